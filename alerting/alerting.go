package alerting

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/notify"
)

// ErrBusy is returned when another vastdash holds the account's alert
// state for longer than a run waits.
var ErrBusy = errors.New("alert state busy")

// Sender sends one message to one target; the default is the target's
// own (package notify). Tests put a fake in its place.
type Sender interface {
	Send(ctx context.Context, t notify.Target, m notify.Message) error
}

type notifySender struct{}

func (notifySender) Send(ctx context.Context, t notify.Target, m notify.Message) error {
	return t.Send(ctx, m)
}

// Options configure an Alerter.
type Options struct {
	// Rules are the [alerts] settings, targets included.
	Rules config.Alerts
	// Path is the account's state file (StatePath).
	Path string
	// Location is the settings' zone: the digest's time, the dates in
	// messages.
	Location *time.Location
	// Sender sends; nil: the targets' own.
	Sender Sender
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// LockWait bounds the wait for another vastdash holding the state
	// (default 30 s).
	LockWait time.Duration
}

// Alerter evaluates the rules of one account and delivers what fired.
type Alerter struct{ o Options }

// New returns the alerter of o.
func New(o Options) *Alerter {
	if o.Sender == nil {
		o.Sender = notifySender{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.LockWait == 0 {
		o.LockWait = 30 * time.Second
	}
	return &Alerter{o: o}
}

// Result is what one run did.
type Result struct {
	// Fired are the rules whose condition became true in this run.
	Fired []string
	// Sent counts the deliveries made in this run, by rule.
	Sent map[string]int
	// Failed counts the deliveries that failed in this run.
	Failed int
	// Pending counts the deliveries kept for a later run.
	Pending int
	// Notices are said once each: a target that began to fail, one that
	// works again, deliveries dropped. They name targets redacted.
	Notices []string
}

// Backoff bounds: a failed delivery waits 30 s, then twice as long after
// each failure, at most an hour.
const (
	backoffFirst = 30 * time.Second
	backoffMax   = time.Hour
)

func backoff(attempts int) time.Duration {
	d := backoffFirst
	for i := 1; i < attempts && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// Check evaluates the rules on f, queues what fired (and the digest when
// its time has come today and withDigest) for every target, and delivers
// every delivery due, the earlier ones kept from past runs first. The
// state is read and written under the account's lock.
func (a *Alerter) Check(ctx context.Context, f *Figures, withDigest bool) (Result, error) {
	return a.locked(ctx, func(st *accountState, res *Result) error {
		return a.check(ctx, f, withDigest, st, res)
	})
}

// check is Check under the account's lock, on its state st.
func (a *Alerter) check(ctx context.Context, f *Figures, withDigest bool, st *accountState, res *Result) error {
	now := a.o.Now()
	fired := evaluate(a.o.Rules, f, st, a.o.Location)
	if withDigest && a.digestDue(st, now) {
		t, b := Digest(f, a.o.Location)
		fired = append(fired, alert{RuleDigest, t, b})
	}
	for _, al := range fired {
		res.Fired = append(res.Fired, al.rule)
		for _, t := range a.o.Rules.To {
			st.Pending = append(st.Pending, delivery{Rule: al.rule, Target: t.ID(), Title: al.title, Body: al.body, Made: now})
		}
	}
	if n := len(st.Pending) - maxPending; n > 0 {
		st.Pending = slices.Delete(st.Pending, 0, n)
		res.Notices = append(res.Notices, strconv.Itoa(n)+" of the oldest alerts waiting for a target were dropped: at most "+strconv.Itoa(maxPending)+" are kept")
	}
	// What fired is on disk before anything is sent: a crash now loses
	// nothing and sends nothing twice.
	if err := writeState(a.o.Path, st); err != nil {
		return err
	}
	return a.deliver(ctx, st, res, now)
}

// Retry delivers the deliveries kept from past runs that are due, without
// evaluating any rule: the run that cannot read the figures (the API is
// down) still sends what waits.
func (a *Alerter) Retry(ctx context.Context) (Result, error) {
	return a.locked(ctx, func(st *accountState, res *Result) error {
		return a.deliver(ctx, st, res, a.o.Now())
	})
}

// locked runs do on the account's state, read under its lock, and says
// how many deliveries wait once it is done.
func (a *Alerter) locked(ctx context.Context, do func(st *accountState, res *Result) error) (Result, error) {
	res := Result{Sent: map[string]int{}}
	lctx, cancel := context.WithTimeout(ctx, a.o.LockWait)
	lock, err := lockState(lctx, a.o.Path)
	cancel()
	if err != nil {
		return res, err
	}
	defer lock.release()
	st, err := readState(a.o.Path)
	if err != nil {
		return res, err
	}
	err = do(&st, &res)
	res.Pending = len(st.Pending)
	return res, err
}

// digestDue reports whether today's digest is due at now, and marks it
// sent for today.
func (a *Alerter) digestDue(st *accountState, now time.Time) bool {
	if !a.o.Rules.DigestOn {
		return false
	}
	local := now.In(a.o.Location)
	day := local.Format("2006-01-02")
	y, m, d := local.Date()
	at := time.Date(y, m, d, a.o.Rules.Digest/60, a.o.Rules.Digest%60, 0, 0, a.o.Location)
	if st.DigestDay == day || local.Before(at) {
		return false
	}
	st.DigestDay = day
	return true
}

// deliver sends every pending delivery due, writing the state after each
// success so that none is sent twice.
func (a *Alerter) deliver(ctx context.Context, st *accountState, res *Result, now time.Time) error {
	targets := map[string]notify.Target{}
	for _, t := range a.o.Rules.To {
		targets[t.ID()] = t
	}
	failing := map[string]bool{} // a target that failed in this run is not tried again in it
	keep := st.Pending[:0:0]
	dropped := 0
	for i, d := range st.Pending {
		t, ok := targets[d.Target]
		switch {
		case !ok:
			dropped++
			continue
		case ctx.Err() != nil || failing[d.Target] || d.Next.After(now):
			keep = append(keep, d)
			continue
		}
		err := a.o.Sender.Send(ctx, t, notify.Message{Title: d.Title, Body: d.Body})
		if err == nil {
			res.Sent[d.Rule]++
			if st.Sent == nil {
				st.Sent = map[string]int{}
			}
			st.Sent[d.Rule]++
			if ts, was := st.Targets[d.Target]; was {
				delete(st.Targets, d.Target)
				res.Notices = append(res.Notices, "alerts reach "+t.String()+" again (failing since "+ts.Since.In(a.o.Location).Format("2 Jan 15:04")+")")
			}
			rest := append(slices.Clone(keep), st.Pending[i+1:]...)
			saved := st.Pending
			st.Pending = rest
			if err := writeState(a.o.Path, st); err != nil {
				st.Pending = saved
				return err
			}
			st.Pending = saved
			continue
		}
		res.Failed++
		failing[d.Target] = true
		d.Attempts++
		d.Next = now.Add(backoff(d.Attempts))
		d.Error = err.Error()
		keep = append(keep, d)
		if _, was := st.Targets[d.Target]; !was {
			if st.Targets == nil {
				st.Targets = map[string]targetState{}
			}
			st.Targets[d.Target] = targetState{Since: now, Error: d.Error}
			res.Notices = append(res.Notices, "alerts to "+t.String()+" fail: "+d.Error+"; kept and sent again when it answers (said once)")
		}
	}
	st.Pending = keep
	if dropped > 0 {
		res.Notices = append(res.Notices, strconv.Itoa(dropped)+" alerts waiting for a target no longer in the settings were dropped")
	}
	for id := range st.Targets {
		if _, ok := targets[id]; !ok {
			delete(st.Targets, id)
		}
	}
	return writeState(a.o.Path, st)
}

// TargetResult is one target's answer to a message sent now.
type TargetResult struct {
	Target notify.Target
	Err    error
}

// SendNow sends a message to every target now, outside the state (the
// test message, `alerts digest`): the user is there to see the result.
func (a *Alerter) SendNow(ctx context.Context, m notify.Message) []TargetResult {
	out := make([]TargetResult, len(a.o.Rules.To))
	for i, t := range a.o.Rules.To {
		out[i] = TargetResult{Target: t, Err: a.o.Sender.Send(ctx, t, m)}
	}
	return out
}

// Status is the account's alert state, for `vastdash alerts`.
type Status struct {
	// Fired are the rules fired and not cleared, by key, with when and
	// the figure then.
	Fired map[string]Fired
	// Pending counts the deliveries waiting, by target as shown.
	Pending map[string]int
	// Failing are the targets failing, as shown, with since when and why.
	Failing map[string]Fired
	// Sent counts what was ever delivered, by rule.
	Sent map[string]int
	// DigestDay is the day of the last digest sent at its time.
	DigestDay string
}

// Fired is when a rule fired (or a target began to fail) and the figure
// (or error) then.
type Fired struct {
	At   time.Time
	Text string
}

// Status reads the account's state (under its lock).
func (a *Alerter) Status(ctx context.Context) (Status, error) {
	lctx, cancel := context.WithTimeout(ctx, a.o.LockWait)
	lock, err := lockState(lctx, a.o.Path)
	cancel()
	if err != nil {
		return Status{}, err
	}
	defer lock.release()
	st, err := readState(a.o.Path)
	if err != nil {
		return Status{}, err
	}
	shown := map[string]string{}
	for _, t := range a.o.Rules.To {
		shown[t.ID()] = t.String()
	}
	name := func(id string) string {
		if s, ok := shown[id]; ok {
			return s
		}
		return "a target no longer in the settings"
	}
	s := Status{Fired: map[string]Fired{}, Pending: map[string]int{}, Failing: map[string]Fired{}, Sent: st.Sent, DigestDay: st.DigestDay}
	for k, r := range st.Rules {
		s.Fired[k] = Fired{At: r.Fired, Text: r.Figure}
	}
	for _, d := range st.Pending {
		s.Pending[name(d.Target)]++
	}
	for id, t := range st.Targets {
		s.Failing[name(id)] = Fired{At: t.Since, Text: t.Error}
	}
	return s, nil
}

func dirOf(p string) string { return filepath.Dir(p) }

// DigestDue reports whether a Check now would send the digest, so a
// caller reads the digest's figures (the month's outlook, the last 24
// hours) only then. It peeks at the state without the lock: Check decides.
func (a *Alerter) DigestDue() bool {
	st, err := readState(a.o.Path)
	return err == nil && a.digestDue(&st, a.o.Now())
}
