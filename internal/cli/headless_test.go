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
	"reflect"
	"regexp"
	"runtime"
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

// threshold is the pacing of the test servers and clients: real pacing,
// short enough for fast tests.
const threshold = 20 * time.Millisecond

// demoNow is where the test data ends: fixed, so day boundaries are too.
var demoNow = time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)

func startServer(t *testing.T, o demoserver.Options) *demoserver.Server {
	t.Helper()
	if o.Threshold == 0 {
		o.Threshold = threshold
	}
	if o.Now.IsZero() {
		o.Now = demoNow
	}
	srv, err := demoserver.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// result is what one run printed and returned.
type result struct {
	code        int
	out, errOut string
}

// headless runs vastdash against srv with key, the way a user with
// --url and VAST_API_KEY would, the client paced like the server.
func headless(t *testing.T, srv *demoserver.Server, key string, args ...string) result {
	t.Helper()
	return headlessWith(t, srv, key, nil, args...)
}

func headlessWith(t *testing.T, srv *demoserver.Server, key string, tweak func(*runner), args ...string) result {
	t.Helper()
	isolate(t)
	t.Setenv("VAST_API_KEY", key)
	var out, errb bytes.Buffer
	r := newRunner(&out, &errb)
	r.clientOptions = []api.Option{api.WithChargesThreshold(threshold)}
	r.now = srv.Now
	r.context = func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	if tweak != nil {
		tweak(r)
	}
	code := r.run(append([]string{"--url", srv.URL()}, args...))
	return result{code, out.String(), errb.String()}
}

func (res result) ok(t *testing.T) {
	t.Helper()
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.errOut)
	}
}

// oneLine asserts a failure: the exit code, one line on stderr containing
// want, nothing on stdout.
func (res result) failed(t *testing.T, code int, want string) {
	t.Helper()
	if res.code != code {
		t.Errorf("exit %d, want %d (stderr %q)", res.code, code, res.errOut)
	}
	if res.out != "" {
		t.Errorf("stdout %q, want nothing", res.out)
	}
	if !strings.HasPrefix(res.errOut, "vastdash: ") || !strings.HasSuffix(res.errOut, "\n") || strings.Count(res.errOut, "\n") != 1 {
		t.Errorf("stderr %q, want one line starting with vastdash:", res.errOut)
	}
	if !strings.Contains(res.errOut, want) {
		t.Errorf("stderr %q, want it to mention %q", res.errOut, want)
	}
}

// chargesRequests are the requests to the charges endpoint.
func chargesRequests(srv *demoserver.Server) []demoserver.Request {
	var out []demoserver.Request
	for _, r := range srv.Requests() {
		if strings.TrimSuffix(r.Path, "/") == "/api/v0/charges" {
			out = append(out, r)
		}
	}
	return out
}

// wholeSpan is a range holding every contract of a test server.
func wholeSpan() []string {
	return []string{"--from", demoNow.AddDate(-1, 0, -2).Format(time.DateOnly), "--to", demoNow.Format(time.DateOnly), "--utc"}
}

func wholeSpanFilter(t *testing.T) demoserver.Filter {
	t.Helper()
	rng, err := spend.ParseRange(demoNow.AddDate(-1, 0, -2).Format(time.DateOnly)+".."+demoNow.Format(time.DateOnly), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return demoserver.Filter{Gte: rng.From.Unix(), Lte: rng.To.Unix()}
}

func readCSV(t *testing.T, s string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("stdout is not CSV: %v", err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "start,end,type,source,label,description,amount,template_id,endpoint_id,workergroup_id" {
		t.Fatalf("CSV header %v", rows)
	}
	return rows[1:]
}

func parseAmount(t *testing.T, s string) money.Amount {
	t.Helper()
	a, err := money.Parse(s)
	if err != nil {
		t.Fatalf("amount %q: %v", s, err)
	}
	return a
}

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
		if err := writeText(&w, entries, false, time.UTC); err != nil {
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

// credit's runway_until is RFC 3339 too: a runway of millennia is clamped
// to the end of year 9999 in the user's zone, which east of UTC is
// already year 10000.
func TestCreditRunwayUntilStaysRFC3339(t *testing.T) {
	east := time.FixedZone("+14", 14*3600)
	now := demoNow.In(east)
	burn := spend.Burn{PerDay: 1, Label: "last 7 complete days"}
	rw := spend.RunwayFor(money.MaxAmount, burn, true, now)
	b, err := json.Marshal(newRunwayJSON(burn, rw))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Until string `json:"runway_until"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(time.RFC3339, got.Until); err != nil || got.Until != "9999-12-31T23:59:59Z" {
		t.Fatalf("runway_until %q (%v), want 9999-12-31T23:59:59Z", got.Until, err)
	}
	// An ordinary runway is written in the user's zone, unchanged.
	rw = spend.RunwayFor(10*money.Dollar, spend.Burn{PerDay: money.Dollar}, true, now)
	if got := newRunwayJSON(burn, rw).RunwayUntil; got != rw.Until.Format(time.RFC3339) || !strings.HasSuffix(got, "+14:00") {
		t.Fatalf("runway_until %q, want %q", got, rw.Until.Format(time.RFC3339))
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
	tty := headlessWith(t, srv, demoserver.DemoKey, func(r *runner) {
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

func TestCreditIsOneRequest(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 50})
	res := headless(t, srv, demoserver.DemoKey, "credit")
	res.ok(t)
	if want := money.Amount(srv.Credit()).Credit() + "\n"; res.out != want {
		t.Fatalf("stdout %q, want %q", res.out, want)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || strings.TrimSuffix(reqs[0].Path, "/") != "/api/v0/users/current" {
		t.Fatalf("requests %v, want one GET users/current", reqs)
	}
	if res.errOut != "" {
		t.Fatalf("stderr %q", res.errOut)
	}

	srv.ResetRequests()
	// Global flags after the command work too.
	res = headless(t, srv, demoserver.DemoKey, "credit", "--json", "--url", srv.URL())
	res.ok(t)
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.out), &got); err != nil {
		t.Fatal(err)
	}
	if string(got["credit"]) != money.Amount(srv.Credit()).Decimal() || string(got["email"]) == "" || len(got) != 2 {
		t.Fatalf("--json %s, want credit %s and email only", res.out, money.Amount(srv.Credit()).Decimal())
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("--json made %d requests", len(srv.Requests()))
	}
}

func TestCreditRunwayMatchesGroundTruth(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 3000})
	res := headless(t, srv, demoserver.DemoKey, "credit", "--json", "--runway", "--utc")
	res.ok(t)
	var got struct {
		Credit      json.Number `json:"credit"`
		BurnPerDay  json.Number `json:"burn_per_day"`
		RunwayDays  *float64    `json:"runway_days"`
		RunwayUntil string      `json:"runway_until"`
	}
	dec := json.NewDecoder(strings.NewReader(res.out))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v: %s", err, res.out)
	}

	// spend's computation on the server's ground truth.
	now := srv.Now().In(time.UTC)
	from, to := spend.BurnWindow(now, time.UTC)
	truth := srv.Contracts(demoserver.Filter{Gte: from.Unix(), Lte: to.Unix()})
	entries := make([]api.Charge, len(truth))
	for i, c := range truth {
		entries[i] = api.Charge{Start: c.Start, End: c.End, Type: c.Type, Source: c.Source, Amount: money.Amount(c.Amount),
			Meta: api.Metadata{EndpointID: c.EndpointID, WorkergroupID: c.WorkergroupID}}
	}
	daily := spend.NewDailyWindow(time.UTC, from, to)
	daily.Add(entries)
	burn := spend.BurnWeek(daily, now)
	runway := spend.RunwayFor(money.Amount(srv.Credit()), burn, true, now)
	if runway.Reason != "" || burn.PerDay <= 0 {
		t.Fatalf("the demo data should give an estimate: %v", runway)
	}
	if parseAmount(t, got.BurnPerDay.String()) != burn.PerDay {
		t.Errorf("burn_per_day %s, want %s", got.BurnPerDay, burn.PerDay.Decimal())
	}
	if got.RunwayDays == nil || *got.RunwayDays != runway.Days() {
		t.Errorf("runway_days %v, want %v", got.RunwayDays, runway.Days())
	}
	if got.RunwayUntil != runway.Until.Format(time.RFC3339) {
		t.Errorf("runway_until %q, want %q", got.RunwayUntil, runway.Until.Format(time.RFC3339))
	}
	reqs := chargesRequests(srv)
	if len(reqs) != (len(truth)+499)/500 {
		t.Errorf("%d charges requests for %d contracts", len(reqs), len(truth))
	}
	want := fmt.Sprintf(`{"day":{"gte":%d,"lte":%d}}`, from.Unix(), to.Unix())
	if sf := reqs[0].Query.Get("select_filters"); sf != want {
		t.Errorf("select_filters %s, want %s", sf, want)
	}

	res = headless(t, srv, demoserver.DemoKey, "credit", "--runway", "--utc")
	res.ok(t)
	wantLine := money.Amount(srv.Credit()).Credit() + " · burn " + burn.PerDay.String() + "/day (last 7 complete days) · runway " + runway.String() + "\n"
	if res.out != wantLine {
		t.Errorf("stdout %q, want %q", res.out, wantLine)
	}
}

func TestCreditRunwayWithoutSpendSaysWhy(t *testing.T) {
	// All the data is over a month old: nothing was spent last week.
	srv := startServer(t, demoserver.Options{Contracts: 50, Now: demoNow.AddDate(0, -2, 0)})
	res := headlessWith(t, srv, demoserver.DemoKey, func(r *runner) { r.now = func() time.Time { return demoNow } },
		"credit", "--json", "--runway")
	res.ok(t)
	if !strings.Contains(res.out, `"burn_per_day":0.000,"runway_days":null,"runway_note":"no spend in the last 7 complete days"`) {
		t.Fatalf("stdout %s", res.out)
	}
}

func TestNotificationsPutsTheWholeDocument(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	before := srv.Prefs()

	res := headless(t, srv, demoserver.DemoKey, "notifications")
	res.ok(t)
	if res.out != "low credit by email: on\nlow credit by webhooks: off\n" {
		t.Fatalf("stdout %q", res.out)
	}

	srv.ResetRequests()
	res = headless(t, srv, demoserver.DemoKey, "notifications", "--webhooks", "on")
	res.ok(t)
	if res.out != "low credit by email: on\nlow credit by webhooks: on\n" {
		t.Fatalf("stdout %q", res.out)
	}
	next, err := api.NewPrefs(before).With(api.LowCreditWebhooks, true)
	if err != nil {
		t.Fatal(err)
	}
	want := next.Document()
	wantJSON, _ := json.Marshal(want)
	gotJSON, _ := json.Marshal(srv.Prefs())
	if string(gotJSON) != string(wantJSON) {
		t.Fatalf("server holds\n%s\nwant the old document with webhooks on\n%s", gotJSON, wantJSON)
	}
	var puts []demoserver.Request
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPut {
			puts = append(puts, r)
		}
	}
	if len(puts) != 1 {
		t.Fatalf("%d PUTs", len(puts))
	}
	var body struct {
		Prefs map[string]any `json:"notification_preferences"`
	}
	if err := json.Unmarshal(puts[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(body.Prefs); string(b) != string(wantJSON) {
		t.Fatalf("PUT body %s, want %s", b, wantJSON)
	}

	// Asking for the state it already has sends nothing.
	srv.ResetRequests()
	headless(t, srv, demoserver.DemoKey, "notifications", "--webhooks", "on", "--email", "on").ok(t)
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPut {
			t.Fatal("PUT for a switch already in that state")
		}
	}
}

func TestNotificationsWithoutGETNeedForce(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	srv.SetPrefsGET(false)
	before := srv.Prefs()

	headless(t, srv, demoserver.DemoKey, "notifications", "--email", "off").failed(t, 1, "--force")
	headless(t, srv, demoserver.DemoKey, "notifications").failed(t, 1, "cannot read")
	if !reflect.DeepEqual(srv.Prefs(), before) {
		t.Fatal("saved without --force")
	}

	res := headless(t, srv, demoserver.DemoKey, "notifications", "--email", "off", "--force")
	res.ok(t)
	if res.out != "low credit by email: off\nlow credit by webhooks: not set\n" {
		t.Fatalf("stdout %q", res.out)
	}
	want := map[string]any{"client": map[string]any{"low_credit": map[string]any{"email": false}}}
	if got := srv.Prefs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("server holds %v, want %v", got, want)
	}
}

func TestUsageErrorsSendNothing(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"charges", "--from", "2026-11-10", "--to", "2026-11-01"}, "is before"},
		{[]string{"charges", "--from", "2026-13-01", "--to", "2026-11-01"}, `"2026-13-01" is not a date`},
		{[]string{"charges", "--from", "yesterday"}, "not a date"},
		{[]string{"charges", "--to", "2026-11-01"}, "--to needs --from"},
		// Year 1 is Go's zero time, which read as "no date" further down;
		// no charge lies outside billing's window anyway.
		{[]string{"charges", "--from", "0001-01-01"}, "--from 0001-01-01 is outside the days vastdash accepts, 2015-01-01 to 2099-12-31"},
		{[]string{"charges", "--from", "2014-12-31", "--to", "2026-11-01"}, "--from 2014-12-31 is outside"},
		{[]string{"charges", "--from", "2026-11-01", "--to", "2100-01-01"}, "--to 2100-01-01 is outside"},
		{[]string{"charges", "--from", "9999-12-31"}, "--from 9999-12-31 is outside"},
		{[]string{"charges", "--type", "instance,gpu"}, `unknown --type "gpu"`},
		{[]string{"charges", "--type", ","}, "names no type"},
		{[]string{"charges", "--output", "xml"}, `unknown --output "xml"`},
		{[]string{"charges", "--format", "list"}, `unknown --format "list"`},
		{[]string{"charges", "extra"}, `unexpected argument "extra"`},
		{[]string{"credit", "--verbose"}, "unknown flag --verbose (see vastdash credit --help)"},
		{[]string{"notifications", "--email", "yes"}, `--email "yes": want on or off`},
		{[]string{"notifications", "--webhooks", "1"}, `--webhooks "1": want on or off`},
		{[]string{"bogus"}, `unknown command "bogus"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			headless(t, srv, "CANARY-headless-usage-0042", c.args...).failed(t, exitUsage, c.want)
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
}

func TestRuntimeErrorsAreOneLine(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 600})
	srv.AddFault(demoserver.Fault{Path: "/api/v0/charges", Status: 500, Body: `{"success":false,"msg":"boom\u001b[2J"}`})
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--output", "csv"}, wholeSpan()...)...)
	res.failed(t, exitRuntime, "boom")
	if strings.Contains(res.errOut, "\x1b") {
		t.Fatalf("escape reached stderr: %q", res.errOut)
	}

	// Permission: the key cannot read charges.
	srv.ClearFaults()
	// credit --runway is not among them: the credit is still the answer (see
	// TestCreditRunwayWithoutBillingRead).
	headless(t, srv, demoserver.KeyReadOnly, "notifications", "--email", "off").failed(t, exitRuntime, "user_write")
}

func TestInterruptStopsCleanly(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	srv.AddFault(demoserver.Fault{Path: "/api/v0/users/current", Hang: true})
	res := headlessWith(t, srv, demoserver.DemoKey, func(r *runner) {
		r.context = func() (context.Context, context.CancelFunc) {
			// ctrl+c as soon as the request reaches the server.
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				if srv.WaitRequests(ctx, 1) == nil {
					cancel()
				}
			}()
			return ctx, cancel
		}
	}, "credit")
	res.failed(t, exitRuntime, "interrupted")
}

func TestKeyNeverPrinted(t *testing.T) {
	const canary = "CANARY-headless-key-0042"
	srv := startServer(t, demoserver.Options{Contracts: 10})
	runs := [][]string{
		{"credit"},
		{"credit", "--json", "--runway"},
		{"charges", "--output", "csv"},
		{"charges", "--output", "json", "--items"},
		{"notifications"},
		{"notifications", "--webhooks", "on"},
		{"charges", "--output", "nope"},
	}
	for _, args := range runs {
		res := headless(t, srv, canary, args...)
		if res.code == 0 {
			t.Errorf("%v: exit 0 with a key the server does not know", args)
		}
		if strings.Contains(res.out+res.errOut, "CANARY") {
			t.Errorf("%v: the key leaked: %q %q", args, res.out, res.errOut)
		}
	}
	headless(t, srv, canary, "credit").failed(t, exitRuntime, "rejected")
}

func TestDemoFlagNeedsNoKey(t *testing.T) {
	isolate(t)
	var out, errb bytes.Buffer
	r := newRunner(&out, &errb)
	r.demo = demoserver.Options{Contracts: 20, Threshold: -1}
	if code := r.run([]string{"credit", "--demo"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "$") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("stdout %q", out.String())
	}
}

func TestGroupInt(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := money.Group(int64(n)); got != want {
			t.Errorf("money.Group(int64(%d)) = %q, want %q", n, got, want)
		}
	}
}

// A key that can read the account but not the charges still gives a status
// bar its credit: the answer is the credit, stderr says why there is no
// runway, and the JSON carries the note with null figures.
func TestCreditRunwayWithoutBillingRead(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	want := money.Amount(srv.Credit()).Credit()
	res := headless(t, srv, demoserver.KeyNoBilling, "credit", "--runway")
	if res.code != exitOK || strings.TrimSpace(res.out) != want {
		t.Fatalf("exit %d, stdout %q; want 0 and %q", res.code, res.out, want)
	}
	if res.errOut != "vastdash: no runway: this API key lacks the billing_read permission\n" {
		t.Errorf("stderr %q", res.errOut)
	}
	res = headless(t, srv, demoserver.KeyNoBilling, "credit", "--runway", "--json")
	if res.code != exitOK || !strings.Contains(res.out, `"burn_per_day":null,"runway_days":null,"runway_note":"this API key lacks the billing_read permission"`) {
		t.Fatalf("exit %d, stdout %q", res.code, res.out)
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
