package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
)

// auditArgs are the options of audit.
type auditArgs struct {
	output string
	utc    bool
}

// newAuditCommand is `vastdash audit` and its two subcommands, accept and
// reject; audit runs the first, answerIncrease the others.
func newAuditCommand(x *execution) *cobra.Command {
	a := auditArgs{output: "text"}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "find what the account pays for without using it; answer price increases",
		Long: `Find the money leaks: what the account pays for without using it, each priced and summed.

  stopped instance  stopped (exited or stopped, not offline), its disk still billed: storage_total_cost an hour from the day it was made
  orphan volume     a volume attached to no instance: the same
  idle endpoint     a serverless endpoint with a ready worker and no traffic on any: its running workers' dph_total and its cold workers' storage
  idle GPU          a running instance (not a worker) at 0% GPU: its dph_total

Each instance counts once (a worker only under its endpoint). So far is the contract's disk items in the charges where they reach, else the rate × the age; how long an endpoint or a GPU has been idle is not in the API, so theirs is unknown, never $0. Beside the leaks: the hosts' price increases waiting for an answer, old → new per hour, from the day they would apply; answer one with audit accept or audit reject.

A section the key may not read is one line naming the permission it lacks (instance_read, misc); with any, the answer is never "no leaks". It reads the instances (25 a request, one a second), the volumes (one request), the endpoints, worker groups and each endpoint's workers, the price increases, and the charges since the oldest stopped disk began (500 a request, one a second).

--output csv writes the leaks table (kind, id, label, per_hour, since, so_far, why; the JSON's values, empty where unknown); the price increases are in the text and the JSON.

Exit codes: 0 no leaks found; 1 a leak found (a cron job or CI step can fail on it), a section unreadable, or an error; 2 usage.`,
		Example: `
vastdash audit
vastdash audit --json | jq '.leaks[] | select(.kind == "stopped_instance")'
vastdash audit accept 9100104
vastdash audit reject 9100103 --yes
`,
		Args: noArgs,
		RunE: x.commandRun(&a.utc, nil, func(ctx context.Context, s *Session) error { return audit(ctx, s, a) }),
	}
	outputFlags(cmd, &a.output, "text", "csv", "json")
	cmd.Flags().BoolVar(&a.utc, "utc", false, "times in UTC (default: the settings timezone)")
	cmd.AddCommand(newAnswerCommand(x, true), newAnswerCommand(x, false))
	return cmd
}

// answerArgs are the options of audit accept and audit reject.
type answerArgs struct {
	accept     bool
	instanceID int64
	yes, utc   bool
	output     string
}

// newAnswerCommand is `vastdash audit accept|reject INSTANCE_ID`.
func newAnswerCommand(x *execution, accept bool) *cobra.Command {
	a := answerArgs{accept: accept, output: "text"}
	verb, then := "reject", "the contract ends at its current end date, not extended at the old price"
	if accept {
		verb, then = "accept", "the contract goes on at the new price from its current end date, extended to the host's new end date"
	}
	cmd := &cobra.Command{
		Use:   verb + " INSTANCE_ID",
		Short: verb + " the price increase pending on an instance",
		Long: strings.ToUpper(verb[:1]) + verb[1:] + ` the price increase a host asks for an instance (vastdash audit lists them): ` + then + `. Nothing changes before that date.

It reads the pending increase and shows it, old → new per hour; on a terminal it asks before sending; --yes does not ask, and is needed when stdin is not a terminal (without it nothing is sent, exit 2). Then one request answers it, never sent twice: when its response is lost it may have gone through, and vastdash audit shows whether it is still pending (exit 1). One already answered is "no longer pending" (exit 1); a key without instance_write is told so (exit 1).`,
		Example: "\nvastdash audit " + verb + " 9100104\nvastdash audit " + verb + " 9100104 --yes --json\n",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageErr{cmd: c, err: errors.New("want one INSTANCE_ID, the instance's id (vastdash audit lists the pending increases)")}
			}
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return &usageErr{cmd: c, err: fmt.Errorf("INSTANCE_ID %s is not an instance id (a positive whole number)", argText(args[0]))}
			}
			a.instanceID = id
			return nil
		},
		RunE: x.commandRun(&a.utc, func() error { return x.env.canAsk(a.yes, a.action()) },
			func(ctx context.Context, s *Session) error { return answerIncrease(ctx, s, a, x.env) }),
	}
	outputFlags(cmd, &a.output, "text", "json")
	yesFlag(cmd, &a.yes, verb)
	cmd.Flags().BoolVar(&a.utc, "utc", false, "times in UTC (default: the settings timezone)")
	return cmd
}

// auditJSON is audit's --json answer.
type auditJSON struct {
	Leaks        []leakJSON  `json:"leaks"`
	TotalPerHour json.Number `json:"total_per_hour"`
	// TotalAtLeast says total_per_hour is a lower bound: a leak could not
	// be priced (per_hour null) or only in part.
	TotalAtLeast   bool           `json:"total_at_least"`
	PriceIncreases []increaseJSON `json:"price_increases"`
	Unreadable     []string       `json:"unreadable"`
}

type leakJSON struct {
	Kind leaks.LeakKind `json:"kind"`
	ID   int64          `json:"id"`
	// Label is "" when none.
	Label string `json:"label"`
	// PerHour is null when no part of it could be priced.
	PerHour *json.Number  `json:"per_hour"`
	Since   *string       `json:"since"`
	SoFar   *money.Amount `json:"so_far"`
	Why     string        `json:"why"`
	// MaybeWorker: the instance may be a serverless worker (the endpoints
	// or their workers not read); it is in no total.
	MaybeWorker bool `json:"maybe_worker"`
}

type increaseJSON struct {
	ID         int64        `json:"pending_price_increase_id"`
	InstanceID int64        `json:"instance_id"`
	OldPerHour *json.Number `json:"old_per_hour"`
	NewPerHour *json.Number `json:"new_per_hour"`
	AppliesAt  *string      `json:"applies_at"`
}

// rateNumber is a rate as a JSON number with six decimals, exact.
func rateNumber(r api.Rate) *json.Number {
	n := json.Number(r.Decimal())
	return &n
}

// timeJSON is t in RFC 3339 in loc, null when zero.
func timeJSON(t time.Time, loc *time.Location) *string {
	if t.IsZero() {
		return nil
	}
	s := rfc3339(t.In(loc))
	return &s
}

func newIncreaseJSON(pc leaks.PriceChange, loc *time.Location) increaseJSON {
	j := increaseJSON{ID: pc.ID, InstanceID: pc.InstanceID, AppliesAt: timeJSON(pc.AppliesAt, loc)}
	if pc.NowKnown {
		j.OldPerHour = rateNumber(pc.OldPerHour)
	}
	if pc.Known {
		j.NewPerHour = rateNumber(pc.NewPerHour)
	}
	return j
}

// errLeaks is audit's failure when it found leaks, or could not read every
// section: exit 1, so a cron job or CI step fails on it.
type errLeaks struct{ msg string }

func (e *errLeaks) Error() string { return e.msg }

// audit is the audit command, after its flags were parsed.
func audit(ctx context.Context, s *Session, a auditArgs) error {
	s.progress.show("auditing: instances, volumes, serverless endpoints, price increases")
	res, err := leaks.Read(ctx, s.Billing)
	if err == nil {
		res, err = leaks.ExactSoFar(ctx, s.Billing, res)
	}
	s.progress.done()
	if err != nil {
		return err
	}
	loc := s.Billing.Location()
	for _, n := range res.Notes {
		warn(s.stderr, n)
	}
	err = s.answer(func(w io.Writer) error {
		switch a.output {
		case "json":
			return writeJSON(w, newAuditJSON(res, loc))
		case "csv":
			return writeCSV(w, auditCSV(newAuditJSON(res, loc)))
		}
		return writeAudit(w, res, s.Billing.When, s.width)
	})
	switch {
	case err != nil:
		return err
	case len(res.Leaks) > 0:
		return &errLeaks{res.FoundText()}
	case !res.Complete():
		return &errLeaks{"the audit is incomplete: " + billing.Plural(len(res.Unreadable), "section", "sections") + " could not be read"}
	}
	return nil
}

func newAuditJSON(res leaks.Audit, loc *time.Location) auditJSON {
	out := auditJSON{Leaks: []leakJSON{}, TotalPerHour: *rateNumber(res.Total), TotalAtLeast: res.Partial,
		PriceIncreases: []increaseJSON{}, Unreadable: []string{}}
	for _, l := range res.Leaks {
		j := leakJSON{Kind: l.Kind, ID: l.ID, Label: sanitize.String(l.Label), Since: timeJSON(l.Since, loc), Why: l.Why, MaybeWorker: l.MaybeWorker}
		if l.PerHourKnown {
			j.PerHour = rateNumber(l.PerHour)
		}
		if l.SoFarKnown {
			so := l.SoFar
			j.SoFar = &so
		}
		out.Leaks = append(out.Leaks, j)
	}
	for _, pc := range res.Increases {
		out.PriceIncreases = append(out.PriceIncreases, newIncreaseJSON(pc, loc))
	}
	for _, u := range res.Unreadable {
		out.Unreadable = append(out.Unreadable, sanitize.String(u))
	}
	return out
}

// auditCSV is the leaks table as CSV rows, the header first: the JSON's
// values, "" where it has null.
func auditCSV(j auditJSON) [][]string {
	rows := [][]string{{"kind", "id", "label", "per_hour", "since", "so_far", "why"}}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	for _, l := range j.Leaks {
		rate := ""
		if l.PerHour != nil {
			rate = l.PerHour.String()
		}
		rows = append(rows, []string{string(l.Kind), strconv.FormatInt(l.ID, 10), export.Cell(l.Label), rate, str(l.Since),
			amountDecimal(l.SoFar), export.Cell(l.Why)})
	}
	return rows
}

// The leaks table's columns: why last, the first to go on a narrow
// terminal, then the label shrinks and the creation time goes; at 40
// columns the label and the so far go too (kind, id and $/h stay, a row a
// line). The price increases lose what they risk, the label, then the
// time they start from.
var (
	leakColumns = []column{{header: "KIND"}, {header: "ID"}, {header: "LABEL", most: 32}, {header: "$/H", right: true},
		{header: leaks.CreatedHeader}, {header: "SO FAR", right: true}, {header: "WHY", most: 80}}
	leaksFit     = []fitStep{{6, 0}, {2, 12}, {4, 0}, {2, 0}, {5, 0}}
	increaseCols = []column{{header: "INSTANCE"}, {header: "LABEL", most: 32}, {header: "NOW", right: true}, {header: "THEN", right: true},
		{header: "FROM"}, {header: "IF IGNORED"}}
	increasesFit = []fitStep{{5, 0}, {1, 0}, {4, 0}}
)

// writeAudit writes the text answer: the leaks and their total, the
// sections not read, the price increases.
func writeAudit(w io.Writer, res leaks.Audit, when func(time.Time) string, width int) error {
	bw := &errWriter{w: w}
	if len(res.Leaks) == 0 {
		if res.Complete() {
			bw.line("no leaks found")
		} else {
			bw.line("no leaks found in what could be read")
		}
	} else {
		t := &table{cols: leakColumns, fit: leaksFit, width: width}
		bw.do(t.write(w, func(yield func([]string) bool) {
			for _, l := range res.Leaks {
				if !yield(leakRow(l, when)) {
					return
				}
			}
		}))
		total := "total " + res.TotalText() + " (" + billing.Plural(res.Counted(), "leak", "leaks") + ")"
		if u := res.UncertainText(); u != "" {
			total += "; " + u
		}
		for _, l := range hanging("", total, width) {
			bw.line(l)
		}
	}
	for _, u := range res.Unreadable {
		bw.line(sanitize.String(u))
	}
	if len(res.Increases) > 0 {
		bw.line("")
		for _, l := range hanging("", "Price increases waiting for an answer (vastdash audit accept|reject INSTANCE_ID):", width) {
			bw.line(l)
		}
		t := &table{cols: increaseCols, fit: increasesFit, width: width}
		bw.do(t.write(w, func(yield func([]string) bool) {
			for _, pc := range res.Increases {
				if !yield(increaseRow(pc, when)) {
					return
				}
			}
		}))
	}
	return bw.err
}

// leakRow is one leak as the text table shows it.
func leakRow(l leaks.Leak, when func(time.Time) string) []string {
	rate, since, soFar := "unknown", "unknown", "unknown"
	if l.PerHourKnown {
		rate = l.PerHour.String()
		if l.Partial {
			rate = "≥ " + rate
		}
	}
	if l.MaybeWorker {
		rate = "? " + rate // may be a serverless worker: in no total
	}
	if !l.Since.IsZero() {
		since = when(l.Since)
	}
	if l.SoFarKnown {
		soFar = l.SoFar.String()
		if !l.SoFarExact {
			soFar = "≈ " + soFar
		}
	}
	label := l.Label
	if label == "" {
		label = "—"
	}
	return []string{l.Kind.Title(), strconv.FormatInt(l.ID, 10), label, rate, since, soFar, l.Why}
}

// increaseRow is one price increase as the text table shows it.
func increaseRow(pc leaks.PriceChange, when func(time.Time) string) []string {
	now, then, from := pc.NowText(), pc.ThenText(), "unknown"
	if !pc.AppliesAt.IsZero() {
		from = when(pc.AppliesAt)
	}
	label := pc.Label
	if label == "" {
		label = "—"
	}
	return []string{strconv.FormatInt(pc.InstanceID, 10), label, now, then, from, "the contract ends then"}
}

// errWriter writes lines until the first error, which it keeps.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) line(s string) {
	if e.err == nil {
		_, e.err = fmt.Fprintln(e.w, s)
	}
}

func (e *errWriter) do(err error) {
	if e.err == nil {
		e.err = err
	}
}

// answerJSON is the --json answer of audit accept and audit reject.
type answerJSON struct {
	Answer string `json:"answer"` // accepted or rejected
	increaseJSON
}

// action is what audit accept or reject asks about.
func (a answerArgs) action() action {
	verb := "reject"
	if a.accept {
		verb = "accept"
	}
	return action{command: "audit " + verb, does: "sends its answer", done: "sent"}
}

// answerIncrease is audit accept or audit reject, after the flags and the
// argument were parsed: read the increase, ask (on a terminal, without
// --yes), send the one answer, say what it means.
func answerIncrease(ctx context.Context, s *Session, a answerArgs, e *env) error {
	pc, err := leaks.PendingIncrease(ctx, s.Billing, a.instanceID)
	if err != nil {
		return err
	}
	loc := s.Billing.Location()
	verb, done := "Reject", "rejected"
	if a.accept {
		verb, done = "Accept", "accepted"
	}
	what := describeIncrease(pc, s.Billing.When)
	if err := e.confirm(a.yes, verb+" "+what+"?", a.action()); err != nil {
		return err
	}
	if err := leaks.AnswerIncrease(ctx, s.Billing, pc, a.accept); errors.Is(err, leaks.ErrAnswerUnknown) {
		// Not sent again: a second answer would find it answered.
		return fmt.Errorf("%w; vastdash audit shows whether it is still pending", err)
	} else if err != nil {
		return err
	}
	if a.output == "json" {
		return s.answer(func(w io.Writer) error {
			return writeJSON(w, answerJSON{Answer: done, increaseJSON: newIncreaseJSON(pc, loc)})
		})
	}
	line := done + " " + what
	if a.accept {
		line += "; from then the contract goes on at the new price"
		if !pc.AskEnd.IsZero() {
			line += " until " + s.Billing.When(pc.AskEnd)
		}
	} else {
		line += "; the contract ends then"
	}
	return s.answer(linesOf([]string{line}))
}

// describeIncrease is "the price increase of instance 9100104 (pretrain):
// $2.151/h → $2.351/h from 29 Nov 12:05".
func describeIncrease(pc leaks.PriceChange, when func(time.Time) string) string {
	s := "the price increase of instance " + strconv.FormatInt(pc.InstanceID, 10)
	if l := sanitize.String(pc.Label); l != "" {
		s += " (" + cut(l, 40) + ")"
	}
	if pc.NowKnown {
		s += ": " + pc.ChangeText()
	}
	if !pc.AppliesAt.IsZero() {
		s += " from " + when(pc.AppliesAt)
	}
	return s
}
