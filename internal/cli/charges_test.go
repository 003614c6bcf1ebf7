package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

func TestChargesCSVIsExactAndPaged(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300})
	want := srv.Contracts(wholeSpanFilter(t))
	if len(want) <= 2*api.MaxLimit {
		t.Fatalf("only %d contracts: the test needs at least three pages", len(want))
	}
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--output", "csv"}, wholeSpan()...)...)
	res.ok(t)

	rows := readCSV(t, res.out)
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	var sum, wantSum int64
	for i, row := range rows {
		c := want[i]
		wantSum += c.Amount
		sum += int64(parseAmount(t, row[6]))
		wantRow := []string{
			time.Unix(c.Start, 0).UTC().Format(time.RFC3339),
			time.Unix(c.End, 0).UTC().Format(time.RFC3339),
			c.Type, c.Source, c.Label, c.Description, money.Amount(c.Amount).Decimal(),
			idText(c.TemplateID), idText(c.EndpointID), idText(c.WorkergroupID),
		}
		if !reflect.DeepEqual(row, wantRow) {
			t.Fatalf("row %d:\n got %q\nwant %q", i, row, wantRow)
		}
	}
	if sum != wantSum {
		t.Fatalf("CSV sums to %d thousandths, the server to %d", sum, wantSum)
	}
	wantTotals := fmt.Sprintf("%s contracts · %s\n", money.Group(int64(len(want))), money.Amount(wantSum))
	if res.errOut != wantTotals {
		t.Errorf("stderr %q, want only the totals line %q", res.errOut, wantTotals)
	}

	pages := (len(want) + api.MaxLimit - 1) / api.MaxLimit
	var ok int
	for _, r := range chargesRequests(srv) {
		if r.Status == http.StatusOK {
			ok++
		}
		if r.Query.Get("limit") != "500" {
			t.Errorf("limit=%q, want 500", r.Query.Get("limit"))
		}
	}
	if ok != pages {
		t.Errorf("%d successful charges requests, want %d", ok, pages)
	}
	if n := srv.CountStatus(http.StatusTooManyRequests); n != 0 {
		t.Errorf("%d requests got 429", n)
	}
}

// idText is an id as the CSV and text outputs write it: empty when unset.
func idText(id int64) string {
	if id == 0 {
		return ""
	}
	return fmt.Sprint(id)
}

func TestChargesItemRowsFollowTheirParent(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 150})
	want := srv.Contracts(wholeSpanFilter(t))
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--output", "csv", "--items"}, wholeSpan()...)...)
	res.ok(t)
	rows := readCSV(t, res.out)
	i := 0
	for _, c := range want {
		if i >= len(rows) || rows[i][3] != c.Source || rows[i][6] != money.Amount(c.Amount).Decimal() {
			t.Fatalf("row %d: %q, want the contract %s", i, rows[min(i, len(rows)-1)], c.Source)
		}
		i++
		var items int64
		for _, it := range c.Items {
			row := rows[i]
			if row[2] != it.Type || row[3] != c.Source || row[5] != it.Description {
				t.Fatalf("row %d: %q, want item %s of %s", i, row, it.Type, c.Source)
			}
			items += int64(parseAmount(t, row[6]))
			i++
		}
		if items != c.Amount {
			t.Fatalf("items of %s sum to %d, the contract to %d", c.Source, items, c.Amount)
		}
	}
	if i != len(rows) {
		t.Fatalf("%d rows, want %d", len(rows), i)
	}
}

// jsonCharge reads the JSON output back; amounts stay decimal text.
type jsonCharge struct {
	Start, End    *string
	Type          string
	Source        string
	Label         string
	TemplateID    int64 `json:"template_id"`
	EndpointID    int64 `json:"endpoint_id"`
	WorkergroupID int64 `json:"workergroup_id"`
	Description   string
	Amount        json.Number
	Items         *[]jsonCharge
}

func decodeJSON(t *testing.T, s string) []jsonCharge {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var out []jsonCharge
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("stdout is not a JSON array: %v\n%.300s", err, s)
	}
	return out
}

func TestChargesJSONSumsExactly(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 300})
	want := srv.Contracts(wholeSpanFilter(t))
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--output", "json", "--items"}, wholeSpan()...)...)
	res.ok(t)
	got := decodeJSON(t, res.out)
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	var sum, wantSum int64
	for i, g := range got {
		c := want[i]
		wantSum += c.Amount
		sum += int64(parseAmount(t, g.Amount.String()))
		if !strings.Contains(g.Amount.String(), ".") || len(g.Amount.String())-strings.Index(g.Amount.String(), ".") != 4 {
			t.Fatalf("amount %s: want 3 decimals", g.Amount)
		}
		if g.Source != c.Source || g.Type != c.Type || g.Label != c.Label || g.TemplateID != c.TemplateID ||
			g.EndpointID != c.EndpointID || g.WorkergroupID != c.WorkergroupID ||
			*g.Start != time.Unix(c.Start, 0).UTC().Format(time.RFC3339) {
			t.Fatalf("entry %d = %+v, want %+v", i, g, c)
		}
		if g.Items == nil || len(*g.Items) != len(c.Items) {
			t.Fatalf("entry %d: items %v, want %d", i, g.Items, len(c.Items))
		}
		var items int64
		for _, it := range *g.Items {
			items += int64(parseAmount(t, it.Amount.String()))
		}
		if items != c.Amount {
			t.Fatalf("%s: items sum to %d, want %d", c.Source, items, c.Amount)
		}
	}
	if sum != wantSum {
		t.Fatalf("JSON sums to %d, the server to %d", sum, wantSum)
	}

	// Without --items there is no items key at all.
	res = headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--output", "json"}, wholeSpan()...)...)
	res.ok(t)
	if strings.Contains(res.out, `"items"`) {
		t.Fatalf("items without --items: %.300s", res.out)
	}
}

func TestChargesTreeFormat(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 400})
	f := wholeSpanFilter(t)
	f.Types = []string{"serverless"}
	tree := srv.Tree(f)
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--output", "json", "--items", "--format", "tree", "--type", "serverless"}, wholeSpan()...)...)
	res.ok(t)
	got := decodeJSON(t, res.out)
	if len(got) != len(tree) || len(tree) == 0 {
		t.Fatalf("%d entries, want %d (and some)", len(got), len(tree))
	}
	var check func(g jsonCharge, n demoserver.Node) int
	check = func(g jsonCharge, n demoserver.Node) int {
		if g.Source != n.Source || parseAmount(t, g.Amount.String()) != money.Amount(n.Amount) {
			t.Fatalf("%s %s, want %s %d", g.Source, g.Amount, n.Source, n.Amount)
		}
		if n.Contract != nil {
			return 1
		}
		if len(*g.Items) != len(n.Children) {
			t.Fatalf("%s: %d children, want %d", n.Source, len(*g.Items), len(n.Children))
		}
		count := 0
		for i, child := range n.Children {
			count += check((*g.Items)[i], child)
		}
		return count
	}
	contracts := 0
	for i := range tree {
		contracts += check(got[i], tree[i])
	}
	if !strings.HasPrefix(res.errOut, money.Group(int64(contracts))+" contracts · ") {
		t.Errorf("totals %q: want the %d contracts inside the wrappers counted", res.errOut, contracts)
	}
	if q := chargesRequests(srv)[0].Query; q.Get("format") != "tree" || !strings.Contains(q.Get("select_filters"), `"serverless"`) {
		t.Errorf("sent %v", q)
	}
}

// amountAtEnd matches a text row ending with its amount, right-aligned.
var amountAtEnd = regexp.MustCompile(` -?\$[0-9,]+\.[0-9]{3}$`)

func TestChargesTextIsAligned(t *testing.T) {
	// Hostile data: escapes, bidi overrides and wide labels must neither
	// reach the terminal nor break the columns.
	srv := startServer(t, demoserver.Options{Contracts: 60, Hostile: true})
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--items"}, wholeSpan()...)...)
	res.ok(t)
	lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
	want := srv.Contracts(wholeSpanFilter(t))
	rows := len(want)
	for _, c := range want {
		rows += len(c.Items)
	}
	if len(lines) != rows+1 {
		t.Fatalf("%d lines, want a header and %d rows", len(lines), rows)
	}
	header := lines[0]
	width := ansi.StringWidth(header)
	var starts []int
	for _, col := range []string{"END", "TYPE", "SOURCE", "LABEL", "TEMPLATE", "ENDPOINT", "WORKERGROUP", "DESCRIPTION"} {
		starts = append(starts, ansi.StringWidth(header[:strings.Index(header, col)]))
	}
	// The ids of each contract, empty when unset, under their headers.
	line := 1
	for _, c := range want {
		for k, id := range []int64{c.TemplateID, c.EndpointID, c.WorkergroupID} {
			if got := strings.TrimSpace(ansi.Cut(lines[line], starts[4+k], starts[5+k])); got != idText(id) {
				t.Fatalf("line %d: id column %d holds %q, want %q:\n%s\n%s", line, k, got, idText(id), header, lines[line])
			}
		}
		line += 1 + len(c.Items)
	}
	for i, l := range lines {
		if strings.ContainsAny(l, "\x1b\u009b\u202e") {
			t.Fatalf("line %d holds control characters: %q", i, l)
		}
		if w := ansi.StringWidth(l); w != width {
			t.Fatalf("line %d is %d cells wide, the header %d:\n%s\n%s", i, w, width, header, l)
		}
		for _, s := range starts {
			// Every column starts right after a two-space gap.
			if gap := ansi.Cut(l, s-2, s); gap != "  " {
				t.Fatalf("line %d: %q before column at %d:\n%s\n%s", i, gap, s, header, l)
			}
		}
		if i > 0 && !amountAtEnd.MatchString(l) {
			t.Fatalf("line %d does not end with its amount: %q", i, l)
		}
	}
}

// One huge label, description and source must not widen every row: text
// cells are cut to a fixed width with an ellipsis, so the table grows with
// its rows only, while csv and json keep the whole text.
func TestChargesTextCapsCells(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	srv := startServer(t, demoserver.Options{Contracts: 600})
	// run runs charges with the huge strings in the first three entries.
	run := func(args ...string) result {
		srv.ClearFaults()
		srv.AddFault(demoserver.Fault{Path: "/api/v0/charges", Mutate: demoserver.MutateFirstPage(func(page demoserver.Page) {
			page.SetField(0, 1, "metadata", `{"label":"`+huge+`"}`)
			page.SetField(1, 2, "description", `"`+huge+`"`)
			page.SetField(2, 3, "source", `"instance-`+huge+`"`)
		})})
		return headless(t, srv, demoserver.DemoKey, append(append([]string{"charges"}, args...), wholeSpan()...)...)
	}
	res := run()
	res.ok(t)
	lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
	rows := len(srv.Contracts(wholeSpanFilter(t)))
	if len(lines) != rows+1 {
		t.Fatalf("%d lines, want a header and %d rows", len(lines), rows)
	}
	// 16+16+24+40+40 cells, three ids of at most 20 digits, 60 cells and
	// an amount, two spaces between columns.
	const widest = 16 + 16 + 24 + 40 + 40 + 3*20 + 60 + 20 + 9*2
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > widest {
			t.Fatalf("line %d is %d cells wide, want at most %d", i, w, widest)
		}
	}
	for _, cell := range []string{strings.Repeat("x", 39) + "…", "instance-" + strings.Repeat("x", 30) + "…", strings.Repeat("x", 59) + "…"} {
		if !strings.Contains(res.out, " "+cell+" ") {
			t.Errorf("no cell cut to %q", cell)
		}
	}
	if len(res.out) > rows*4*widest {
		t.Fatalf("%d bytes of text for %d rows", len(res.out), rows)
	}

	res = run("--output", "csv")
	res.ok(t)
	csvRows := readCSV(t, res.out)
	if csvRows[0][4] != huge || csvRows[1][5] != huge || csvRows[2][3] != "instance-"+huge {
		t.Error("csv does not keep the whole text")
	}
	res = run("--output", "json")
	res.ok(t)
	if got := decodeJSON(t, res.out); got[0].Label != huge || got[1].Description != huge || got[2].Source != "instance-"+huge {
		t.Error("json does not keep the whole text")
	}
}

// The table's size and what it allocates do not depend on how long the
// server's strings are: a 1 MB label costs what a 1 KB one does.
func TestWriteTextGrowsWithRowsOnly(t *testing.T) {
	measure := func(label string) (bytes, alloc uint64) {
		entries := make([]api.Charge, 100)
		for i := range entries {
			entries[i] = api.Charge{Start: demoNow.Unix(), End: demoNow.Unix(), Type: "instance", Source: fmt.Sprint("instance-", i),
				Description: "Instance", Amount: 1234, Meta: api.Metadata{Label: label}}
		}
		var w countingWriter
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := writeText(&w, entries, false, textTimes(billing.New(context.Background(), nil, billing.WithLocation(time.UTC))), 0); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return w.n, after.TotalAlloc - before.TotalAlloc
	}
	smallOut, _ := measure(strings.Repeat("y", 1<<10))
	bigOut, bigAlloc := measure(strings.Repeat("y", 1<<20))
	if bigOut != smallOut {
		t.Errorf("%d bytes with 1 MB labels, %d with 1 KB ones", bigOut, smallOut)
	}
	if bigAlloc > 8<<20 {
		t.Errorf("writing 100 rows with 1 MB labels allocated %d MB", bigAlloc>>20)
	}
}

// countingWriter counts what is written to it.
type countingWriter struct{ n uint64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += uint64(len(p))
	return len(p), nil
}

// Every time written is valid RFC 3339, whatever the seconds: Go writes
// year 10000 with five digits and year -1 with a sign, which no RFC 3339
// parser (Go's own included) takes. Beyond the years 0 to 9999 a time is
// clipped to the nearest one that can be written.
func TestFormatTimeStaysRFC3339(t *testing.T) {
	east := time.FixedZone("+14", 14*3600)
	west := time.FixedZone("-12", -12*3600)
	cases := []struct {
		unix int64
		loc  *time.Location
		want string
	}{
		{0, time.UTC, ""},
		{1, time.UTC, "1970-01-01T00:00:01Z"},
		{253402300799, time.UTC, "9999-12-31T23:59:59Z"},
		{253402300799, east, "9999-12-31T23:59:59Z"}, // 10000-01-01 there
		{253402300800, time.UTC, "9999-12-31T23:59:59Z"},
		{math.MaxInt64, west, "9999-12-31T11:59:59-12:00"},
		{-62167219200, time.UTC, "0000-01-01T00:00:00Z"},
		{-62167219200, west, "0000-01-01T00:00:00Z"}, // year -1 there
		{math.MinInt64, east, "0000-01-01T14:00:00+14:00"},
		{math.MinInt64, time.UTC, "0000-01-01T00:00:00Z"},
	}
	for _, c := range cases {
		got := formatTime(c.unix, c.loc)
		if got != c.want {
			t.Errorf("formatTime(%d, %s) = %q, want %q", c.unix, c.loc, got, c.want)
		}
		if _, err := time.Parse(time.RFC3339, got); got != "" && err != nil {
			t.Errorf("formatTime(%d, %s) = %q: %v", c.unix, c.loc, got, err)
		}
	}
}

func TestChargesCSVDefusesFormulas(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 20})
	srv.AddFault(demoserver.Fault{Path: "/api/v0/charges", Mutate: func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte(`"description":"`), []byte(`"description":"=HYPERLINK(\"http://x\")`))
		return bytes.ReplaceAll(b, []byte(`"source":"`), []byte(`"source":"@`))
	}})
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--output", "csv"}, wholeSpan()...)...)
	res.ok(t)
	rows := readCSV(t, res.out)
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, row := range rows {
		if !strings.HasPrefix(row[5], `'=HYPERLINK("http://x")`) || !strings.HasPrefix(row[3], "'@") {
			t.Fatalf("formula cell not defused: %q", row)
		}
	}
}

func TestChargesDefaultRangeIsTheSetting(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 100})
	res := headless(t, srv, demoserver.DemoKey, "charges", "--output", "json", "--utc")
	res.ok(t)
	rng, err := spend.PresetRange("30d", demoNow, time.UTC) // the default setting
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"day":{"gte":%d,"lte":%d}}`, rng.From.Unix(), rng.To.Unix())
	if got := chargesRequests(srv)[0].Query.Get("select_filters"); got != want {
		t.Fatalf("select_filters %s, want %s", got, want)
	}
	if n := len(decodeJSON(t, res.out)); n != len(srv.Contracts(demoserver.Filter{Gte: rng.From.Unix(), Lte: rng.To.Unix()})) {
		t.Fatalf("%d entries for the default range", n)
	}
}

func TestChargesProgressOnlyOnATerminal(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 700})
	args := append([]string{"charges", "--output", "csv"}, wholeSpan()...)
	plain := headless(t, srv, demoserver.DemoKey, args...)
	plain.ok(t)
	if strings.Count(plain.errOut, "\n") != 1 || strings.ContainsAny(plain.errOut, "\r\x1b") {
		t.Fatalf("stderr of a non-terminal holds more than the totals: %q", plain.errOut)
	}
	tty := headlessWith(t, srv, demoserver.DemoKey, func(r *env) {
		r.isTerminal = func(io.Writer) bool { return true }
	}, args...)
	tty.ok(t)
	if !strings.Contains(tty.errOut, "\r\x1b[2Kfetching charges: 500 of ") || !strings.Contains(tty.errOut, " contracts (page 1 of ") {
		t.Fatalf("no progress on a terminal: %q", tty.errOut)
	}
	if !strings.HasSuffix(tty.errOut, "\r\x1b[2K"+plain.errOut) {
		t.Fatalf("the progress line is not cleared before the totals: %q", tty.errOut)
	}
	if tty.out != plain.out {
		t.Fatal("progress changed stdout")
	}
}

func TestGroupInt(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := money.Group(int64(n)); got != want {
			t.Errorf("money.Group(int64(%d)) = %q, want %q", n, got, want)
		}
	}
}

// Spend by job: one row per label, against the server's own data (count
// and amount per label; contracts without one in "(no label)"), in csv and
// json; --label keeps only the contracts so labelled.
func TestChargesGroupByLabel(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 600})
	type sum struct {
		count  int
		amount int64
	}
	want := map[string]sum{}
	var total int64
	for _, c := range srv.Contracts(wholeSpanFilter(t)) {
		k := c.Label
		if k == "" {
			k = billing.NoLabel
		}
		s := want[k]
		s.count++
		s.amount += c.Amount
		want[k] = s
		total += c.Amount
	}
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--group-by", "label", "--output", "csv"}, wholeSpan()...)...)
	res.ok(t)
	rows, err := csv.NewReader(strings.NewReader(res.out)).ReadAll()
	if err != nil || len(rows) != len(want)+1 || strings.Join(rows[0], ",") != "label,count,amount,share" {
		t.Fatalf("csv %v (%v); want %d groups", rows, err, len(want))
	}
	for _, r := range rows[1:] {
		w, ok := want[strings.TrimPrefix(r[0], "'")]
		if !ok || r[1] != fmt.Sprint(w.count) || r[2] != money.Amount(w.amount).Decimal() {
			t.Errorf("row %v, want %+v", r, w)
		}
	}
	res = headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--group-by", "label", "--output", "json"}, wholeSpan()...)...)
	res.ok(t)
	var got struct {
		By     string
		Groups []struct {
			Group  string
			Count  int
			Amount json.Number
		}
		Total json.Number
	}
	if err := json.Unmarshal([]byte(res.out), &got); err != nil || got.By != "label" || got.Total.String() != money.Amount(total).Decimal() {
		t.Fatalf("json %s (%v)", res.out, err)
	}

	// --label: only those contracts, and the totals line counts them.
	var label string
	for k := range want {
		if k != billing.NoLabel {
			label = k
			break
		}
	}
	res = headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--label", label, "--output", "csv"}, wholeSpan()...)...)
	res.ok(t)
	kept := readCSV(t, res.out)
	if len(kept) != want[label].count {
		t.Fatalf("--label %q kept %d rows, want %d", label, len(kept), want[label].count)
	}
	for _, r := range kept {
		if r[4] != label {
			t.Errorf("--label %q kept %v", label, r)
		}
	}
	if w := fmt.Sprintf("%s · %s\n", billing.Plural(want[label].count, "contract", "contracts"), money.Amount(want[label].amount)); res.errOut != w {
		t.Errorf("stderr %q, want %q", res.errOut, w)
	}
}

func TestChargesGroupingUsageErrors(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"charges", "--group-by", "user"}, "unknown grouping"},
		{[]string{"charges", "--group-by", "label", "--items"}, "--items does not go with --group-by"},
		{[]string{"charges", "--label", "x", "--format", "tree"}, "--label works with the table format"},
		{[]string{"charges", "--label", ""}, "--label needs a label"},
	} {
		srv.ResetRequests()
		headless(t, srv, demoserver.DemoKey, c.args...).failed(t, exitUsage, c.want)
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("%v: %d requests on a usage error", c.args, n)
		}
	}
}

// --oldest-first asks the server for the oldest contracts first: the rows
// come in the server's ascending order.
func TestChargesOldestFirst(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 300})
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--oldest-first", "--output", "csv"}, wholeSpan()...)...)
	res.ok(t)
	f := wholeSpanFilter(t)
	f.OldestFirst = true
	want := srv.Contracts(f)
	rows := readCSV(t, res.out)
	if len(rows) != len(want) || len(rows) < 2 {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if r[3] != want[i].Source {
			t.Fatalf("row %d is %s, want %s (oldest first)", i, r[3], want[i].Source)
		}
	}
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/api/v0/charges") && r.Query.Get("latest_first") != "false" {
			t.Fatalf("a charges request asked latest_first=%q", r.Query.Get("latest_first"))
		}
	}
}

// TestFromWithoutToIsTheOpenRange: --from without --to reads exactly as
// the dashboard's range field reads "FROM..": to the end of today in the
// zone, today judged in that zone.
func TestFromWithoutToIsTheOpenRange(t *testing.T) {
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC) // already the 21st in Tokyo
	got, err := chargesArgs{from: bound{day: "2026-11-01"}}.timeRange(loc, now)
	if err != nil {
		t.Fatal(err)
	}
	field, err := spend.ParseRangeAt("2026-11-01..", now, loc)
	if err != nil {
		t.Fatal(err)
	}
	if got != field || got.To.Format(time.DateOnly) != "2026-11-21" {
		t.Fatalf("--from alone %v, the field %v", got, field)
	}
	if _, err := (chargesArgs{from: bound{day: "2026-11-22"}}).timeRange(loc, now); err == nil {
		t.Fatal("--from after today was accepted")
	}
}

// dayFilter is the day filter of the charges requests srv received; every
// page of one run asks the same.
func dayFilter(t *testing.T, srv *demoserver.Server) (gte, lte time.Time) {
	t.Helper()
	reqs := chargesRequests(srv)
	if len(reqs) == 0 {
		t.Fatal("no charges request")
	}
	var f struct {
		Day struct{ Gte, Lte int64 } `json:"day"`
	}
	for i, r := range reqs {
		if err := json.Unmarshal([]byte(r.Query.Get("select_filters")), &f); err != nil {
			t.Fatal(err)
		}
		g, l := time.Unix(f.Day.Gte, 0).UTC(), time.Unix(f.Day.Lte, 0).UTC()
		if i > 0 && (!g.Equal(gte) || !l.Equal(lte)) {
			t.Fatalf("page %d asked %s..%s, the first %s..%s", i, g, l, gte, lte)
		}
		gte, lte = g, l
	}
	return gte, lte
}

// withTimezone writes a settings file with the timezone setting; it runs
// after headlessWith isolated the home.
func withTimezone(t *testing.T, zone string) func(*env) {
	return func(*env) {
		dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vastdash")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(`timezone = "`+zone+`"`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// --from and --to take RFC 3339 times for a window shorter than a day,
// asked of the server to the second, while a date keeps its whole-day
// meaning in the settings' zone (or UTC with --utc), and the two mix.
func TestChargesFromToTimes(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 300})
	cases := []struct {
		name     string
		zone     string
		args     []string
		gte, lte string
	}{
		{"times", "UTC", []string{"--from", "2026-11-20T08:00:00Z", "--to", "2026-11-20T12:30:00+01:00"},
			"2026-11-20T08:00:00Z", "2026-11-20T11:30:00Z"},
		{"fractions cut to the second", "UTC", []string{"--from", "2026-11-20T08:00:00.9Z", "--to", "2026-11-20T08:59:59.999Z"},
			"2026-11-20T08:00:00Z", "2026-11-20T08:59:59Z"},
		{"days, --utc", "Europe/Berlin", []string{"--from", "2026-11-20", "--to", "2026-11-20", "--utc"},
			"2026-11-20T00:00:00Z", "2026-11-20T23:59:59Z"},
		{"days in the settings zone", "Europe/Berlin", []string{"--from", "2026-11-20", "--to", "2026-11-20"},
			"2026-11-19T23:00:00Z", "2026-11-20T22:59:59Z"},
		{"a day to a time", "Europe/Berlin", []string{"--from", "2026-11-20", "--to", "2026-11-20T06:00:00Z"},
			"2026-11-19T23:00:00Z", "2026-11-20T06:00:00Z"},
		{"a time to the end of today", "UTC", []string{"--from", "2026-11-21T10:00:00Z"},
			"2026-11-21T10:00:00Z", "2026-11-21T23:59:59Z"},
		// The dashboard's range words (demoNow is 21 Nov 2026).
		{"a word alone is its whole range", "Europe/Berlin", []string{"--from", "last-month"},
			"2026-09-30T22:00:00Z", "2026-10-31T22:59:59Z"},
		{"7d", "UTC", []string{"--from", "7D"}, "2026-11-15T00:00:00Z", "2026-11-21T23:59:59Z"},
		{"a word to a day", "UTC", []string{"--from", "last-month", "--to", "2026-11-03"},
			"2026-10-01T00:00:00Z", "2026-11-03T23:59:59Z"},
		{"a day to the end of a word", "UTC", []string{"--from", "2026-09-15", "--to", "last-month"},
			"2026-09-15T00:00:00Z", "2026-10-31T23:59:59Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv.ResetRequests()
			res := headlessWith(t, srv, demoserver.DemoKey, withTimezone(t, c.zone), append([]string{"charges", "--output", "csv"}, c.args...)...)
			res.ok(t)
			gte, lte := dayFilter(t, srv)
			if !gte.Equal(utc(c.gte)) || !lte.Equal(utc(c.lte)) {
				t.Fatalf("asked %s..%s, want %s..%s", gte.Format(time.RFC3339), lte.Format(time.RFC3339), c.gte, c.lte)
			}
			// The rows are the contracts of that window, no more.
			want := srv.Contracts(demoserver.Filter{Gte: gte.Unix(), Lte: lte.Unix()})
			if rows := readCSV(t, res.out); len(rows) != len(want) {
				t.Fatalf("%d rows, want %d", len(rows), len(want))
			}
		})
	}
}

// A window that ends before it begins is a usage error without a request;
// where a day meets a time, the zone decides, so it is checked once the
// settings are read, still before any request.
func TestChargesFromToReversed(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	for _, c := range []struct {
		zone string
		args []string
		want string
	}{
		{"UTC", []string{"--from", "2026-11-20T12:00:00Z", "--to", "2026-11-20T08:00:00Z"},
			"--to 2026-11-20T08:00:00Z is before --from 2026-11-20T12:00:00Z"},
		{"UTC", []string{"--from", "2026-11-20", "--to", "2026-11-19"}, "--to 2026-11-19 is before --from 2026-11-20"},
		{"UTC", []string{"--from", "2026-11-20", "--to", "2026-11-19T23:30:00Z"}, "--to 2026-11-19T23:30:00Z is before --from 2026-11-20"},
		{"Europe/Berlin", []string{"--from", "2026-11-20", "--to", "2026-11-19T22:30:00Z"}, "is before"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			headlessWith(t, srv, demoserver.DemoKey, withTimezone(t, c.zone), append([]string{"charges"}, c.args...)...).failed(t, exitUsage, c.want)
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
	// The same mixed window is fine where the day begins an hour earlier.
	headlessWith(t, srv, demoserver.DemoKey, withTimezone(t, "Europe/Berlin"),
		"charges", "--from", "2026-11-20", "--to", "2026-11-19T23:30:00Z").ok(t)
}

// --config names the settings file, before or after the command: its
// timezone decides where the days of --from and --to begin; a file that
// cannot be read or holds a bad value is a usage error naming it, with no
// request.
func TestConfigFlag(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tokyo := write("tokyo.toml", "timezone = \"Asia/Tokyo\"\n")
	for _, args := range [][]string{
		{"--config", tokyo, "charges", "--from", "2026-11-20", "--to", "2026-11-20"},
		{"charges", "--from", "2026-11-20", "--to", "2026-11-20", "--config=" + tokyo},
	} {
		srv.ResetRequests()
		headless(t, srv, demoserver.DemoKey, args...).ok(t)
		if gte, lte := dayFilter(t, srv); !gte.Equal(utc("2026-11-19T15:00:00Z")) || !lte.Equal(utc("2026-11-20T14:59:59Z")) {
			t.Errorf("%v: asked %s..%s, want the day in Tokyo", args, gte, lte)
		}
	}
	srv.ResetRequests()
	bad := write("bad.toml", "range = \"7d\"\ntimezone = \"Mars/Base\"\n")
	headless(t, srv, demoserver.DemoKey, "--config", bad, "credit").failed(t, exitUsage, bad+":2: timezone must be")
	missing := filepath.Join(dir, "none.toml")
	headless(t, srv, demoserver.DemoKey, "credit", "--config", missing).failed(t, exitUsage, missing+": cannot read settings")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("bad settings sent %d requests", n)
	}
}

// On a terminal the text table fits its width, giving up columns in the
// stated order (the ids, then the end, …) while START, SOURCE and AMOUNT
// stay; in a pipe every column is kept whole.
func TestTextFitsTheTerminal(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 80})
	args := append([]string{"charges", "--items"}, wholeSpan()...)
	pipe := headless(t, srv, demoserver.DemoKey, args...)
	pipe.ok(t)
	if head := strings.Fields(strings.SplitN(pipe.out, "\n", 2)[0]); len(head) != len(chargesColumns) {
		t.Fatalf("a pipe got the columns %v, want all %d", head, len(chargesColumns))
	}
	for _, width := range []int{200, 120, 80, 60, 40} {
		res := headlessWith(t, srv, demoserver.DemoKey, func(e *env) { e.width = func(io.Writer) int { return width } }, args...)
		res.ok(t)
		lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
		head := strings.Fields(lines[0])
		for _, must := range []string{"START", "SOURCE", "AMOUNT"} {
			if !slices.Contains(head, must) {
				t.Errorf("width %d: %s dropped: %v", width, must, head)
			}
		}
		if width <= 120 && slices.Contains(head, "TEMPLATE") {
			t.Errorf("width %d: the ids kept before the description shrank: %v", width, head)
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > width {
				t.Fatalf("width %d: line %d is %d cells: %q", width, i, w, l)
			}
			if i > 0 && !amountAtEnd.MatchString(l) {
				t.Fatalf("width %d: line %d does not end with its amount: %q", width, i, l)
			}
		}
	}
}

// TestGroupTotalsAreTheRowsSum: the totals line beside --group-by's rows is
// their sum for every grouping; by day over a range that cuts contracts
// started before it, the part outside the range is said apart, not hidden
// in a figure the rows do not add up to.
func TestGroupTotalsAreTheRowsSum(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	from := demoNow.AddDate(0, 0, -10).Format(time.DateOnly)
	for _, by := range billing.GroupKeys {
		t.Run(string(by), func(t *testing.T) {
			res := headless(t, srv, demoserver.DemoKey, "charges", "--from", from, "--utc", "--group-by", string(by), "--output", "csv")
			res.ok(t)
			rows, err := csv.NewReader(strings.NewReader(res.out)).ReadAll()
			if err != nil || len(rows) < 2 {
				t.Fatalf("csv %q (%v)", res.out, err)
			}
			var sum money.Amount
			for _, r := range rows[1:] {
				sum += parseAmount(t, r[2])
			}
			line, _, _ := strings.Cut(res.errOut, "\n")
			_, said, _ := strings.Cut(line, " · ")
			if !strings.HasPrefix(said, sum.String()) {
				t.Errorf("totals line %q, want the rows' sum %s first", line, sum)
			}
			if by == billing.ByDay && !strings.Contains(line, "outside it is left out") {
				t.Errorf("totals line %q does not say what fell before the range", line)
			}
		})
	}
}
