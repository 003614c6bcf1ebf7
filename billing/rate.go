package billing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// withInstances makes CurrentRate read through fn instead of the client's
// instance pager (tests).
func withInstances(fn func() Source[api.Instance]) Option {
	return func(s *Service) { s.instances = fn }
}

// MaxRatePages bounds the pages of instances one reading takes: 40 pages of
// 25 are 1,000 instances, 40 s at the endpoint's pacing of one call a
// second. An account (or a broken server) listing more is read that far and
// marked Partial, so the rate is a lower bound, never a reading that pages
// for hours. The pager's own checks stop a token cycle sooner.
const MaxRatePages = 40

// RunwayShortTenths is the runway at the current rate, in tenths of days,
// under which the dashboard rings: a day is the last chance to top up
// before the instances stop.
const RunwayShortTenths = 10

// NeedsInstanceRead is CurrentRate.NeedsPermission when the key may not
// list instances.
const NeedsInstanceRead = "instance_read"

// NeedsMisc is the permission the serverless endpoints need (the audit's
// idle endpoints, a key's misc probe).
const NeedsMisc = "misc"

// CurrentRate is what the account's instances cost per hour right now.
// Every sum is of exact millionths: dph_total has more decimals than a
// mill, and a float sum would drift.
type CurrentRate struct {
	// PerHour is the sum of dph_total over the running instances: the
	// current rate.
	PerHour api.Rate
	// Storage is the sum of storage_total_cost over instances that are not
	// running but keep their disk (stopped, exited, …). It is an estimate:
	// what that field means is inferred from community tools.
	Storage api.Rate
	// Running and Stored count the instances behind PerHour and Storage.
	Running, Stored int
	// Billing lists the instances that cost money now: running ones by
	// dph_total, then the others holding storage by storage cost, each
	// largest first (ties by id).
	Billing []api.Instance
	// Statuses counts every instance read by its Status as sent ("" when
	// the server sent none), billing or not.
	Statuses map[string]int
	// Read counts the instances read; Skipped those the server sent that
	// vastdash refused (a rate above $10,000/h or negative, a start date
	// before 2015 or in the future, a field of the wrong type).
	Read, Skipped int
	// Partial is set when MaxRatePages were read and the server had more:
	// the sums are lower bounds.
	Partial bool
	// NeedsPermission is NeedsInstanceRead when the key lacks it; the
	// reading is otherwise empty and the credit and charges still work.
	NeedsPermission string
	// AsOf is when the reading was taken.
	AsOf time.Time
}

// Total is what is billing per hour: the running instances' rate and the
// stopped instances' storage. Both are bounded by MaxRatePages pages of at
// most api.MaxLimit instances of at most api.MaxRate each, far below what
// an int64 holds.
func (r CurrentRate) Total() api.Rate { return r.PerHour + r.Storage }

// RunwayOf is Runway for the account u: the reason there is none when u
// is not read yet (nil) or holds no credit figure.
func (r CurrentRate) RunwayOf(u *api.User) spend.Runway {
	switch {
	case u == nil:
		return spend.Runway{Reason: "account not loaded yet"}
	case u.CreditMissing:
		return spend.Runway{Reason: CreditUnknown}
	}
	return r.Runway(u.Credit)
}

// Runway is how long credit lasts at Total: the same tenths of days and
// "until" date as the 7-day runway, and a Reason instead when there is no
// figure (nothing billing, no credit left, no permission).
func (r CurrentRate) Runway(credit money.Amount) spend.Runway {
	total := r.Total()
	switch {
	case r.NeedsPermission != "":
		return spend.Runway{Reason: "this API key lacks the " + r.NeedsPermission + " permission"}
	case credit <= 0:
		return spend.Runway{Reason: "no credit left"}
	case total <= 0:
		return spend.Runway{Reason: "nothing is billing now"}
	}
	// Thousandths a day, at least one, so that a rate of a few millionths
	// an hour reads as a long runway rather than as none.
	perDay := max(money.Amount((int64(total)*24+500)/1000), 1)
	burn := spend.Burn{PerDay: perDay, Label: "current rate"}
	return spend.RunwayFor(credit, burn, true, r.AsOf)
}

// Note says what makes the reading less than exact, for a line under the
// figures; "" when nothing does.
func (r CurrentRate) Note() string {
	var parts []string
	if r.Partial {
		parts = append(parts, "only the first "+Plural(r.Read, "instance", "instances")+" read: the rate is at least this")
	}
	if r.Skipped > 0 {
		parts = append(parts, Plural(r.Skipped, "instance", "instances")+" the server sent could not be read")
	}
	if len(parts) == 0 {
		return ""
	}
	s := parts[0]
	for _, p := range parts[1:] {
		s += "; " + p
	}
	return s
}

// CurrentRate reads every instance of the account (up to MaxRatePages
// pages, paced by the client) and sums what is billing now. A key without
// instance_read is not an error: the reading comes back with
// NeedsPermission set, so each front end can say so in its place and go on.
func (s *Service) CurrentRate(ctx context.Context) (CurrentRate, error) {
	r := CurrentRate{AsOf: s.Now()}
	rd, err := s.Instances(ctx)
	if err != nil {
		return CurrentRate{}, err
	}
	if rd.NeedsPermission != "" {
		return CurrentRate{AsOf: r.AsOf, NeedsPermission: rd.NeedsPermission}, nil
	}
	r.Partial, r.Skipped = rd.Partial, rd.Skipped
	r.add(rd.Instances)
	slices.SortFunc(r.Billing, func(a, b api.Instance) int {
		if a.Running() != b.Running() {
			if a.Running() {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.Billing(), a.Billing()), cmp.Compare(a.ID, b.ID))
	})
	return r, nil
}

// add folds the instances in. An offline instance bills nothing.
func (r *CurrentRate) add(instances []api.Instance) {
	r.Read += len(instances)
	for _, in := range instances {
		if r.Statuses == nil {
			r.Statuses = map[string]int{}
		}
		r.Statuses[in.Status]++
		switch {
		case in.Running():
			r.PerHour += in.DPHTotal
			r.Running++
			r.Billing = append(r.Billing, in)
		case in.Billing() > 0:
			r.Storage += in.Billing()
			r.Stored++
			r.Billing = append(r.Billing, in)
		}
	}
}

// InstanceReading is every instance one reading took: up to MaxRatePages
// pages (Partial when the server had more), the entries the server sent
// that vastdash refused (Skipped), or the permission the key lacks
// (NeedsPermission, the reading otherwise empty).
type InstanceReading struct {
	Instances       []api.Instance
	Skipped         int
	Partial         bool
	NeedsPermission string
}

// Instances reads the account's instances, paced by the client; a key
// without instance_read is not an error but a reading that says so. A
// reader arriving while a reading runs shares it (its own ctx still ends
// its wait): two readers side by side (the rate and the audit start
// together) would page the same endpoint twice and, interleaved on one
// pacing budget, provoke a 429 on a loaded network. Each reader gets a
// copy of its own to append to or sort.
func (s *Service) Instances(ctx context.Context) (InstanceReading, error) {
	ch := s.flight.DoChan("instances", func() (any, error) { return s.pageInstances(ctx) })
	select {
	case r := <-ch:
		if r.Err != nil {
			return InstanceReading{}, r.Err
		}
		rd := r.Val.(InstanceReading)
		rd.Instances = slices.Clone(rd.Instances)
		return rd, nil
	case <-ctx.Done():
		return InstanceReading{}, ctx.Err()
	}
}

// pageInstances pages the instances, up to MaxRatePages pages.
func (s *Service) pageInstances(ctx context.Context) (InstanceReading, error) {
	var src Source[api.Instance]
	switch {
	case s.instances != nil:
		src = s.instances()
	case s.client != nil:
		src = api.InstancePagerVia(func(ctx context.Context, token string) (api.InstancesPage, error) {
			return s.instancesPage(ctx, token, false)
		})
	default:
		return InstanceReading{}, ErrNoClient
	}
	var rd InstanceReading
	for pages := 0; !src.Done(); pages++ {
		if pages == MaxRatePages {
			rd.Partial = true
			break
		}
		page, err := src.Next(ctx)
		if errors.Is(err, api.ErrPagerDone) {
			break
		}
		if errors.Is(err, api.ErrPermission) {
			// The endpoint needs nothing else: a refusal that names no
			// permission is still this one.
			return InstanceReading{NeedsPermission: NeedsInstanceRead}, nil
		}
		if err != nil {
			return InstanceReading{}, err
		}
		rd.Instances = append(rd.Instances, page.Results...)
		rd.Skipped += page.Skipped
	}
	return rd, nil
}

// firstPage is the instances' first page as last answered, kept for a
// moment to serve a reader of the other kind (see instancesPage).
type firstPage struct {
	page api.InstancesPage
	err  error
	at   time.Time // when the answer came (monotonic)
	// probe: the access probe asked for it, not a reading.
	probe bool
}

// instancesPage reads a page of the instances; the first is shared. The
// opening asks for it twice within a moment — the key's access probe (does
// it have instance_read?) and the reading of the rate and the audit — each
// then waiting a second of the endpoint's pace behind the other. A first
// page being read serves any reader; one answered less than the endpoint's
// interval ago serves only a reader of the other kind (probe is whether
// this one is the probe), since no new request could have gone sooner. A
// reading never takes an earlier reading's page: r, pressed a moment after
// a load, reads the server again and learns that it stopped answering.
func (s *Service) instancesPage(ctx context.Context, token string, probe bool) (api.InstancesPage, error) {
	if token != "" {
		return s.client.Instances(ctx, token)
	}
	fresh := max(s.client.Interval(api.InstancesPath), 0)
	s.mu.Lock()
	last := s.first
	s.mu.Unlock()
	if last != nil && last.err == nil && last.probe != probe && time.Since(last.at) < fresh {
		page := last.page
		page.Results = slices.Clone(page.Results)
		return page, nil
	}
	ch := s.flight.DoChan("instances first page", func() (any, error) {
		page, err := s.client.Instances(ctx, "")
		s.mu.Lock()
		s.first = &firstPage{page: page, err: err, at: time.Now(), probe: probe}
		s.mu.Unlock()
		return page, err
	})
	select {
	case r := <-ch:
		page := r.Val.(api.InstancesPage)
		page.Results = slices.Clone(page.Results)
		return page, r.Err
	case <-ctx.Done():
		return api.InstancesPage{}, ctx.Err()
	}
}

// ProbeInstances reads the instances' first page as a key's access probe
// (may it list instances?) and says how that went: the page is shared
// with a reading of the rate or the audit made at the same moment (see
// instancesPage), so the opening asks the endpoint once.
func (s *Service) ProbeInstances(ctx context.Context) error {
	if s.client == nil {
		return ErrNoClient
	}
	_, err := s.instancesPage(ctx, "", true)
	return err
}

// Alarm is one reason to tell the user at once that the money is running
// out.
type Alarm int

// The alarms, in the order they are told.
const (
	// AlarmThreshold: the credit fell below the account's low-balance
	// threshold (as LowBalance reads it).
	AlarmThreshold Alarm = iota
	// AlarmRunway: at the current rate the credit lasts under a day.
	AlarmRunway
	numAlarms
)

// Watch tells when the credit crosses into an alarm, so that a front end
// rings once per crossing rather than on every refresh that finds the
// credit still low. The first reading only sets where things stand: the
// header already shows a low credit at start, and a ring for a state the
// user opened the program in is noise. A reading that cannot tell (the
// account or the rate unavailable) keeps the last known state, so a failed
// refresh between two low readings is not a new crossing. The zero value is
// ready.
type Watch struct {
	known [numAlarms]bool
	on    [numAlarms]bool
}

// Crossing is an alarm that just went on, and the line that says it.
type Crossing struct {
	Alarm Alarm
	Text  string
}

// Observe takes a reading (u or rate nil when not read) and returns the
// alarms that went on since the last one.
func (w *Watch) Observe(u *api.User, rate *CurrentRate) []Crossing {
	var out []Crossing
	if u != nil && u.CreditMissing {
		u = nil // a record without a credit cannot tell whether it is low
	}
	see := func(a Alarm, on bool, text func() string) {
		was, known := w.on[a], w.known[a]
		w.on[a], w.known[a] = on, true
		if known && on && !was {
			out = append(out, Crossing{Alarm: a, Text: text()})
		}
	}
	if u != nil {
		see(AlarmThreshold, LowBalance(*u), func() string {
			return "credit " + u.Credit.Credit() + " fell below your " + u.BalanceThreshold.Credit() + " low-balance alert"
		})
	}
	if u != nil && rate != nil && rate.NeedsPermission == "" {
		rw := rate.Runway(u.Credit)
		short := u.Credit <= 0 && rate.Total() > 0 || rw.Reason == "" && rw.Tenths < RunwayShortTenths
		see(AlarmRunway, short, func() string {
			if u.Credit <= 0 {
				return fmt.Sprintf("the credit is gone and instances bill %s", rate.Total())
			}
			return fmt.Sprintf("at %s the credit lasts under a day: %s", rate.Total(), rw)
		})
	}
	return out
}

// Active reports whether alarm a was on at the last reading that could
// tell.
func (w *Watch) Active(a Alarm) bool { return a >= 0 && a < numAlarms && w.on[a] }
