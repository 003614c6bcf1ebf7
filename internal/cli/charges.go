package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
)

// chargesArgs are the options of the charges command. Each flag checks its
// own value when parsed; check looks at them together.
type chargesArgs struct {
	from, to bound // --from, --to; unset when not given
	types    []api.ContractType
	format   string // table or tree
	items    bool
	output   string // text, csv or json
	utc      bool
	groupBy  billing.GroupKey // "" for one row per contract
	labels   labelsFlag       // --label, repeated
	oldest   bool
}

// labelsFlag collects a repeated --label.
type labelsFlag []string

func (l *labelsFlag) String() string { return strings.Join(*l, ",") }

// Set adds one label; an empty one would match nothing and is a mistake.
func (l *labelsFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return badValue("--label needs a label")
	}
	*l = append(*l, v)
	return nil
}

func (l *labelsFlag) Type() string { return "label" }

// check refuses options that do not go together, and a reversed range
// where the zone cannot change the order; what needs the settings' zone
// waits for timeRange.
func (a *chargesArgs) check() error {
	if a.groupBy != "" && a.items {
		return errors.New("--items does not go with --group-by (a group has no items)")
	}
	if len(a.labels) > 0 && a.format == string(api.FormatTree) {
		return errors.New("--label works with the table format (a tree wrapper's amount is its contracts' sum)")
	}
	if a.to.set() && !a.from.set() {
		return errors.New("--to needs --from")
	}
	return reversed(a.from, a.to)
}

// parseTypes reads --type: a comma-separated list of contract types.
func parseTypes(s string) ([]api.ContractType, error) {
	var types []api.ContractType
	for _, t := range strings.Split(s, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" {
			continue
		}
		ct, ok := contractType(t)
		if !ok {
			return nil, badValue("unknown --type %s (want instance, volume or serverless, comma-separated)", argText(t))
		}
		types = append(types, ct)
	}
	if len(types) == 0 {
		return nil, badValue("--type %s names no type (want instance, volume or serverless)", argText(s))
	}
	return types, nil
}

func contractType(s string) (api.ContractType, bool) {
	for _, t := range api.AllContractTypes {
		if string(t) == s {
			return t, true
		}
	}
	return "", false
}

// newChargesCommand is `vastdash charges`: its help and flags, each value
// checked as it is parsed; charges runs it.
func newChargesCommand(x *execution) *cobra.Command {
	a := chargesArgs{format: string(api.FormatTable), output: "text"}
	cmd := &cobra.Command{
		Use:   "charges",
		Short: "print every charge in a range, as a table, CSV or JSON",
		Long: `Print every charge in a range, one row per contract, as an aligned table, CSV or JSON; or one row per group with --group-by.

Every page is fetched (500 contracts each, one request a second), then the whole answer is written. A line with the totals (1,234 contracts · $4,321.000) and warnings about entries left out go to stderr.`,
		Example: `
vastdash charges --from 2026-10-01 --to 2026-10-31 --output csv > october.csv
vastdash charges --from 2026-11-20T08:00:00Z --to 2026-11-20T12:00:00Z
vastdash charges --group-by label
vastdash charges --type serverless --format tree --items --output json | jq .
`,
		Args: noArgs,
		RunE: x.commandRun(&a.utc, func() error { return a.check() }, func(ctx context.Context, s *Session) error { return charges(ctx, s, a) }),
	}
	fs := cmd.Flags()
	rangeFlags(cmd, &a.from, &a.to, "first day, YYYY-MM-DD, an RFC 3339 time like 2026-11-20T08:00:00Z,\nor a range word: "+strings.Join(billing.Presets, ", ")+"\n(default: the range setting, 30d)")
	fs.Var(&checkedValue{typ: "types", parse: func(s string) error {
		types, err := parseTypes(s)
		a.types = append(a.types, types...)
		return err
	}}, "type", "any of instance,volume,serverless, comma-separated or repeated\n(default: all)")
	completeWith(cmd, "type", "instance", "volume", "serverless")
	enumFlag(cmd, &a.format, "format", []string{string(api.FormatTable), string(api.FormatTree)},
		"table: one row per contract; tree: serverless contracts grouped\nunder their endpoint and workergroup")
	fs.BoolVar(&a.items, "items", false, "add each entry's items (gpu, disk, bwd, bwu; for tree wrappers\ntheir contracts and theirs) after it")
	outputFlags(cmd, &a.output, "text", "csv", "json")
	fs.BoolVar(&a.utc, "utc", false, "days and times in UTC (default: the settings timezone)")
	groups := make([]string, len(billing.GroupKeys))
	for i, k := range billing.GroupKeys {
		groups[i] = string(k)
	}
	fs.Var(&checkedValue{typ: "grouping", parse: func(s string) (err error) {
		if a.groupBy, err = billing.ParseGroupKey(s); err != nil {
			// Not billing's error, which quotes the word as it is.
			return badValue("--group-by: unknown grouping %s (want %s)", argText(s), orList(groups))
		}
		return nil
	}}, "group-by", "one row per group instead of per contract (count, amount, share):\n"+orList(groups)+"; contracts without one\nform (no label) or (none)")
	completeWith(cmd, "group-by", groups...)
	fs.Var(&a.labels, "label", "only contracts labelled this (repeat for several; table format)")
	fs.BoolVar(&a.oldest, "oldest-first", false, "the oldest contracts first (default: newest first)")
	return cmd
}

// charges is the charges command, after its flags were parsed.
func charges(ctx context.Context, s *Session, a chargesArgs) error {
	svc := s.Billing
	loc := svc.Location()
	rng, err := a.resolve(s.Settings.Range, svc.Now(), loc)
	if err != nil {
		return usageError(err)
	}
	// A grouping the range cannot have whole is refused before anything is
	// read: an answer without some of its days is not the answer.
	if err := billing.CheckGrouping(a.groupBy, rng.From, rng.To, loc); err != nil {
		return usageError(err)
	}

	// The range's query as every part of the program asks it, narrowed by
	// the flags.
	q := billing.RangeQuery(rng.From, rng.To)
	q.Types, q.Format, q.OldestFirst = a.types, api.Format(a.format), a.oldest
	if a.groupBy != "" {
		// A range the ledger holds is grouped by SQLite, not in memory.
		g, st, ok, err := svc.LedgerGrouping(ctx, q, a.groupBy, a.labels, loc, rng.From, rng.To, s.progress.feed)
		if ok || err != nil {
			s.progress.done()
		}
		if err != nil {
			return err
		}
		if ok {
			return printGroups(s, a, g, st)
		}
	}
	if a.groupBy == "" && (a.output == "csv" || a.output == "json") {
		// A range the ledger holds is written as it is read.
		if ok, err := streamCharges(ctx, s, a, q); ok || err != nil {
			return err
		}
	}
	f := svc.Feed(q)
	defer f.Release()
	if a.groupBy != billing.ByDay {
		f.ListOnly() // amounts as the server sent them, whatever its rule
	}
	entries, st, err := f.All(ctx, s.progress.feed)
	s.progress.done()
	if err != nil {
		return err
	}
	if len(a.labels) > 0 {
		entries = billing.KeepLabels(entries, a.labels)
		st = st.Recount(entries)
	}
	if a.groupBy != "" {
		g := billing.NewGrouping(a.groupBy, loc, rng.From, rng.To)
		g.Add(f.Spreadable(entries)) // by day, an amount is spread over the days it covers
		return printGroups(s, a, g, st)
	}

	// Every entry is in memory and checked, so nothing but stdout can fail
	// from here: a failed load has left stdout empty, and the answer is
	// streamed rather than rendered into a second copy of it.
	err = s.answer(func(w io.Writer) error {
		switch a.output {
		case "csv":
			return export.WriteCSV(w, entries, a.items, loc)
		case "json":
			return writeChargesJSON(w, entries, a.items, loc)
		}
		return writeText(w, entries, a.items, textTimes(svc), s.width)
	})
	if err != nil {
		return err
	}
	writeTotals(s.stderr, st)
	return nil
}

// streamCharges writes the charges of q as CSV or JSON row by row as the
// ledger reads them, when it holds the range (ok false, nothing written,
// when it does not: the feed answers). The bytes are those of the feed's
// rows written whole. A ledger that fails partway leaves the rows written
// so far on stdout, and the error said.
func streamCharges(ctx context.Context, s *Session, a chargesArgs, q api.ChargesQuery) (ok bool, err error) {
	loc := s.Billing.Location()
	var st billing.State
	var readErr error // the sync's or the ledger's, not the writer's
	err = s.answer(func(w io.Writer) error {
		var write func(*api.Charge) error
		var end func() error
		if a.output == "csv" {
			r := export.NewCSVRows(w, a.items, loc)
			write, end = r.Write, r.Flush
		} else {
			r := &jsonRows{w: w, items: a.items, loc: loc}
			write, end = r.write, r.end
		}
		first := true
		var err, werr error
		st, ok, err = s.Billing.LedgerRows(ctx, q, a.labels, s.progress.feed, func(c *api.Charge) error {
			if first {
				s.progress.done() // the line goes before the rows
				first = false
			}
			werr = write(c)
			return werr
		})
		if err != nil && werr == nil {
			readErr = err // said as it is, after the rows written so far
			return nil
		}
		if err != nil || !ok {
			return err
		}
		return end()
	})
	if ok || err != nil || readErr != nil {
		s.progress.done()
	}
	if readErr != nil && err == nil {
		err = readErr
	}
	if err != nil || !ok {
		return ok, err
	}
	writeTotals(s.stderr, st)
	return true, nil
}

// jsonRows writes a JSON array of charges one at a time, byte for byte
// what writeChargesJSON writes of them all.
type jsonRows struct {
	w     io.Writer
	items bool
	loc   *time.Location
	n     int
	buf   bytes.Buffer
}

func (j *jsonRows) write(c *api.Charge) error {
	lead := ",\n  "
	if j.n == 0 {
		lead = "[\n  "
	}
	j.n++
	j.buf.Reset()
	j.buf.WriteString(lead)
	enc := json.NewEncoder(&j.buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(toJSON(c, j.items, j.loc)); err != nil {
		return err
	}
	_, err := j.w.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
	return err
}

func (j *jsonRows) end() error {
	end := "\n]\n"
	if j.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(j.w, end)
	return err
}

// printGroups writes the groups of g, then their total line and the
// warnings of st (the feed's, or the ledger's sync's) on stderr.
func printGroups(s *Session, a chargesArgs, g *billing.Grouping, st billing.State) error {
	if err := s.answer(func(w io.Writer) error { return writeGroups(w, a.output, a.groupBy, g, s.width) }); err != nil {
		return err
	}
	// The line beside the groups is their sum (by day, with what fell
	// outside the range said apart), never the feed's whole amount.
	fmt.Fprintln(s.stderr, g.TotalLine())
	st.Overflow = false // TotalLine said an overflow of the groups
	for _, warning := range st.Warnings() {
		warn(s.stderr, warning)
	}
	return nil
}

// groupJSON is one group of the --group-by JSON answer; share is the
// percentage with one decimal (null when there is none).
type groupJSON struct {
	Group  string       `json:"group"`
	Count  int          `json:"count"`
	Amount money.Amount `json:"amount"`
	Share  *json.Number `json:"share"`
}

// writeGroups writes one row per group: text (an aligned table), csv
// (group,count,amount,share) or json ({"by", "groups", "total"}).
func writeGroups(w io.Writer, output string, by billing.GroupKey, g *billing.Grouping, width int) error {
	groups, total := g.Groups(), g.Total()
	share := func(a money.Amount) string {
		if pm, ok := billing.SharePerMille(a, total); ok && !g.Overflow() {
			return billing.PerMilleText(pm)
		}
		return ""
	}
	switch output {
	case "csv":
		rows := [][]string{{string(by), "count", "amount", "share"}}
		for _, gr := range groups {
			rows = append(rows, []string{export.Cell(gr.Key), fmt.Sprint(gr.Count), gr.Amount.Decimal(), share(gr.Amount)})
		}
		return writeCSV(w, rows)
	case "json":
		out := struct {
			By     billing.GroupKey `json:"by"`
			Groups []groupJSON      `json:"groups"`
			Total  money.Amount     `json:"total"`
		}{By: by, Groups: []groupJSON{}, Total: total}
		for _, gr := range groups {
			j := groupJSON{Group: sanitize.String(gr.Key), Count: gr.Count, Amount: gr.Amount}
			if s := share(gr.Amount); s != "" {
				n := json.Number(s)
				j.Share = &n
			}
			out.Groups = append(out.Groups, j)
		}
		return writeJSON(w, out)
	}
	rows := [][]string{{strings.ToUpper(string(by)), "COUNT", "AMOUNT", "SHARE"}}
	for _, gr := range groups {
		s := share(gr.Amount)
		if s != "" {
			s += "%"
		}
		rows = append(rows, []string{cut(gr.Key, maxLabelCells), money.Group(int64(gr.Count)), gr.Amount.String(), s})
	}
	// On a narrow terminal the group's name is cut, the figures stay.
	return writeTableFit(w, rows, 1, width, []fitStep{{0, 12}})
}

// writeTotals writes the feed's totals line ("1,234 contracts · $4,321.000")
// and then one "vastdash: …" line per warning: entries dropped as malformed
// or repeated. A sum that overflowed is said instead of a wrapped number.
func writeTotals(w io.Writer, st billing.State) {
	contracts := billing.Plural(st.Contracts, "contract", "contracts")
	if st.Overflow {
		fmt.Fprintf(w, "%s · the total is too large to add up\n", contracts)
	} else {
		fmt.Fprintf(w, "%s · %s\n", contracts, st.Amount)
	}
	// The totals line has said the overflow already.
	st.Overflow = false
	for _, warning := range st.Warnings() {
		warn(w, warning)
	}
}

// chargeJSON is one entry of the JSON output. Amount is a JSON number with
// exactly 3 decimals (money.Amount's MarshalJSON), never a float.
type chargeJSON struct {
	Start         *string      `json:"start"` // null when the server sent none
	End           *string      `json:"end"`
	Type          string       `json:"type"`
	Source        string       `json:"source"`
	Label         string       `json:"label"`
	TemplateID    int64        `json:"template_id,omitempty"`
	EndpointID    int64        `json:"endpoint_id,omitempty"`
	WorkergroupID int64        `json:"workergroup_id,omitempty"`
	Description   string       `json:"description"`
	Amount        money.Amount `json:"amount"`
	// Items is present (possibly []) with --items, absent without.
	Items *[]chargeJSON `json:"items,omitempty"`
}

func toJSON(c *api.Charge, items bool, loc *time.Location) chargeJSON {
	j := chargeJSON{
		Type:          sanitize.String(c.Type),
		Source:        sanitize.String(c.Source),
		Label:         sanitize.String(c.Meta.Label),
		TemplateID:    c.Meta.TemplateID,
		EndpointID:    c.Meta.EndpointID,
		WorkergroupID: c.Meta.WorkergroupID,
		Description:   sanitize.String(c.Description),
		Amount:        c.Amount,
	}
	if s := formatTime(c.Start, loc); s != "" {
		j.Start = &s
	}
	if s := formatTime(c.End, loc); s != "" {
		j.End = &s
	}
	if items {
		sub := make([]chargeJSON, len(c.Items))
		for i := range c.Items {
			sub[i] = toJSON(&c.Items[i], true, loc)
		}
		j.Items = &sub
	}
	return j
}

// writeChargesJSON writes entries as a JSON array.
func writeChargesJSON(w io.Writer, entries []api.Charge, items bool, loc *time.Location) error {
	out := make([]chargeJSON, len(entries))
	for i := range entries {
		out[i] = toJSON(&entries[i], items, loc)
	}
	return writeJSON(w, out)
}

// The text table's columns. The widest a server's string is shown, in
// terminal cells, is capped: a longer one is cut and ends in "…" (csv and
// json keep it whole). Without a cap one 1 MB label pads every row to 1 MB:
// 500 rows made 525 MB. Type includes the indentation of items.
const (
	colStart = iota
	colEnd
	colType
	colSource
	colLabel
	colTemplate
	colEndpoint
	colWorkergroup
	colDescription
	colAmount
)

const maxLabelCells = 40

var chargesColumns = []column{
	{header: "START"}, {header: "END"}, {header: "TYPE", most: 24}, {header: "SOURCE", most: 40},
	{header: "LABEL", most: maxLabelCells}, {header: "TEMPLATE"}, {header: "ENDPOINT"}, {header: "WORKERGROUP"},
	{header: "DESCRIPTION", most: 60}, {header: "AMOUNT", right: true},
}

// chargesFit is how the charges table meets a narrow terminal, in this
// order (docs/commands.md states it): the three ids go, then the end (the start and
// the amount say most), the description shrinks to 24 cells and the label
// to 12, then the label goes, the source shrinks to 16, the description to
// 12 and then goes, then the type, and last the source shrinks to 8.
// START, SOURCE and AMOUNT stay.
var chargesFit = []fitStep{
	{colTemplate, 0}, {colWorkergroup, 0}, {colEndpoint, 0}, {colEnd, 0},
	{colDescription, 24}, {colLabel, 12}, {colLabel, 0}, {colSource, 16},
	{colDescription, 12}, {colDescription, 0}, {colType, 0}, {colSource, 8},
}

// textRow is the row of c, an entry or an item at depth, its times
// written by when. Beside the SOURCE column the description drops a lead
// that repeats the contract's id, as on the dashboard
// (billing.DescriptionBeside); CSV and JSON keep the server's text whole.
func textRow(c *api.Charge, depth int, when func(int64) string) []string {
	ids := export.IDs(c)
	return []string{
		when(c.Start),
		when(c.End),
		// Real trees are four levels deep; deeper indentation is cut too.
		strings.Repeat("  ", depth) + c.Type,
		c.Source,
		c.Meta.Label,
		ids[0], ids[1], ids[2],
		billing.DescriptionBeside(c.Description, "", c.Source),
		c.Amount.String(),
	}
}

// writeText writes an aligned table: one row per entry, items indented
// under it, the amount right-aligned last, fitted to a terminal's width.
// Nothing follows the rows (the totals go to stderr), so the output can be
// piped as is. With every cell capped, output and memory grow with the
// number of rows only.
func writeText(w io.Writer, entries []api.Charge, items bool, when func(int64) string, width int) error {
	if len(entries) == 0 {
		return nil
	}
	t := &table{cols: chargesColumns, fit: chargesFit, width: width}
	return t.write(w, func(yield func([]string) bool) {
		for i := range entries {
			stop := false
			walk(&entries[i], items, 0, "", func(c *api.Charge, depth int, _ string) {
				if !stop && !yield(textRow(c, depth, when)) {
					stop = true
				}
			})
			if stop {
				return
			}
		}
	})
}
