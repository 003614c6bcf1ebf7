package demoserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestDayFilterRequired(t *testing.T) {
	ts := start(t, Options{})
	now := ts.Now().Unix()
	want := `{"success":false,"msg":"Both gte and lte of day must be given in select_filters."}`
	for name, sf := range map[string]string{
		"missing":    "",
		"not json":   "{day:",
		"no day":     `{"type":{"in":["instance"]}}`,
		"no gte":     fmt.Sprintf(`{"day":{"lte":%d}}`, now),
		"no lte":     fmt.Sprintf(`{"day":{"gte":%d}}`, now),
		"string gte": fmt.Sprintf(`{"day":{"gte":"%d","lte":%d}}`, now, now),
		"day array":  `{"day":[1,2]}`,
	} {
		t.Run(name, func(t *testing.T) {
			p := "/api/v0/charges"
			if sf != "" {
				p += "?select_filters=" + url.QueryEscape(sf)
			}
			wantBody(t, ts.get(p, DemoKey), 400, want)
		})
	}
}

func TestTypeFilter(t *testing.T) {
	ts := start(t, Options{})
	now := ts.Now().Unix()
	span := now - 400*day
	has := func(es []entry, pred func(entry) bool) int {
		n := 0
		for _, e := range es {
			if pred(e) {
				n++
			}
		}
		return n
	}
	serverless := func(e entry) bool { _, ok := e.Metadata["endpoint_id"]; return ok }
	volume := func(e entry) bool { return e.Type == "volume" }

	vols, _ := ts.all(span, now, []string{"volume"}, "limit", "500")
	if len(vols) == 0 || has(vols, volume) != len(vols) {
		t.Fatalf("volume filter: %d rows, %d volumes", len(vols), has(vols, volume))
	}
	inst, _ := ts.all(span, now, []string{"instance"}, "limit", "500")
	if len(inst) == 0 || has(inst, serverless) != 0 || has(inst, volume) != 0 {
		t.Fatalf(`"instance" alone must exclude serverless workers and volumes`)
	}
	sl, _ := ts.all(span, now, []string{"serverless"}, "limit", "500")
	if len(sl) == 0 || has(sl, serverless) != len(sl) {
		t.Fatalf("serverless filter in table format returned non-worker rows")
	}
	all, _ := ts.all(span, now, nil, "limit", "500")
	if len(all) != len(vols)+len(inst)+len(sl) {
		t.Fatalf("no filter: %d rows, classes add up to %d", len(all), len(vols)+len(inst)+len(sl))
	}

	r := ts.get(chargesPath(span, now, []string{"instance", "gpu"}), DemoKey)
	if r.status != 400 || !strings.Contains(string(r.body), `\"gpu\"`) {
		t.Fatalf("unknown type: %d %s", r.status, r.body)
	}
	r = ts.get("/api/v0/charges?select_filters="+url.QueryEscape(fmt.Sprintf(`{"day":{"gte":0,"lte":%d},"type":{"eq":"volume"}}`, now)), DemoKey)
	if r.status != 400 {
		t.Fatalf("type filter without in: %d %s", r.status, r.body)
	}
}

// The table format served page by page equals the ground truth, amounts to
// the thousandth, and every contract's amount is the sum of its items.
func TestTableMatchesGroundTruth(t *testing.T) {
	ts := start(t, Options{})
	now := ts.Now().Unix()
	got, _ := ts.all(now-30*day, now-10*day, nil, "limit", "37")
	want := ts.Contracts(Filter{Gte: now - 30*day, Lte: now - 10*day})
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("got %d rows, ground truth %d", len(got), len(want))
	}
	for i, e := range got {
		w := want[i]
		if src(e) != w.Source || e.Type != w.Type || e.Start != w.Start || e.End != w.End ||
			milli(t, e.Amount) != w.Amount || e.Description != w.Description {
			t.Fatalf("row %d: got %s %s %d..%d %s, want %+v", i, src(e), e.Type, e.Start, e.End, e.Amount, w)
		}
		if e.End < now-30*day || e.Start > now-10*day {
			t.Fatalf("row %s [%d,%d] does not overlap the day range", src(e), e.Start, e.End)
		}
		var sum int64
		for j, it := range e.Items {
			if it.Source != nil || len(it.Metadata) != 0 || it.Items == nil || len(it.Items) != 0 {
				t.Fatalf("item %d of %s: source must be null, metadata {}, items []", j, src(e))
			}
			if it.Type != w.Items[j].Type || milli(t, it.Amount) != w.Items[j].Amount || it.Description != w.Items[j].Description {
				t.Fatalf("item %d of %s differs from ground truth", j, src(e))
			}
			sum += milli(t, it.Amount)
		}
		if sum != milli(t, e.Amount) {
			t.Fatalf("%s: amount %s but items sum to %d thousandths", src(e), e.Amount, sum)
		}
		if _, ok := e.Metadata["label"]; ok != (w.Label != "") {
			t.Fatalf("%s: label present=%v, ground truth %q", src(e), ok, w.Label)
		}
		if v, ok := e.Metadata["template_id"]; ok && fmt.Sprint(v) != fmt.Sprint(w.TemplateID) {
			t.Fatalf("%s: template_id %v, want %d", src(e), v, w.TemplateID)
		}
	}
}

func TestTreeWrappers(t *testing.T) {
	ts := start(t, Options{})
	now := ts.Now().Unix()
	gte, lte := now-20*day, now
	got, _ := ts.all(gte, lte, nil, "format", "tree", "limit", "7")
	truth := ts.Tree(Filter{Gte: gte, Lte: lte})
	if len(got) != len(truth) {
		t.Fatalf("tree: %d top-level entries, ground truth %d", len(got), len(truth))
	}
	table := ts.Contracts(Filter{Gte: gte, Lte: lte})
	workers, wrappers, members := 0, 0, 0
	for _, c := range table {
		if c.Serverless() {
			workers++
		}
	}
	for i, e := range got {
		if src(e) != truth[i].Source {
			t.Fatalf("entry %d: %s, want %s", i, src(e), truth[i].Source)
		}
		if e.Type != "serverless" {
			if _, ok := e.Metadata["endpoint_id"]; ok {
				t.Fatalf("serverless worker %s at top level of tree", src(e))
			}
			continue
		}
		wrappers++
		if !strings.HasPrefix(src(e), "endpoint-") || fmt.Sprint(e.Metadata["endpoint_id"]) != strings.TrimPrefix(src(e), "endpoint-") {
			t.Fatalf("bad endpoint wrapper %s %v", src(e), e.Metadata)
		}
		var sum int64
		lo, hi := e.End, e.Start
		for _, g := range e.Items {
			if g.Type != "serverless" || !strings.HasPrefix(src(g), "workergroup-") || g.Metadata["endpoint_id"] == nil || g.Metadata["workergroup_id"] == nil {
				t.Fatalf("bad workergroup wrapper %s %v", src(g), g.Metadata)
			}
			var gsum int64
			for _, c := range g.Items {
				members++
				if c.Type != "instance" || len(c.Items) != 4 || fmt.Sprint(c.Metadata["workergroup_id"]) != fmt.Sprint(g.Metadata["workergroup_id"]) {
					t.Fatalf("bad worker %s under %s", src(c), src(g))
				}
				gsum += milli(t, c.Amount)
				lo, hi = min(lo, c.Start), max(hi, c.End)
			}
			if gsum != milli(t, g.Amount) {
				t.Fatalf("%s amount %s, members sum %d", src(g), g.Amount, gsum)
			}
			sum += gsum
		}
		if sum != milli(t, e.Amount) || sum != truth[i].Amount {
			t.Fatalf("%s amount %s, members sum %d, truth %d", src(e), e.Amount, sum, truth[i].Amount)
		}
		if lo != e.Start || hi != e.End {
			t.Fatalf("%s spans %d..%d, members %d..%d", src(e), e.Start, e.End, lo, hi)
		}
	}
	if wrappers == 0 || members != workers {
		t.Fatalf("%d wrappers holding %d workers; table has %d workers", wrappers, members, workers)
	}
	if len(got) != len(table)-workers+wrappers {
		t.Fatalf("total %d, want %d plain + %d wrappers", len(got), len(table)-workers, wrappers)
	}

	// "instance" alone has no wrappers in tree format either.
	inst, _ := ts.all(gte, lte, []string{"instance"}, "format", "tree", "limit", "500")
	for _, e := range inst {
		if e.Type != "instance" {
			t.Fatalf("instance filter in tree format returned %s", src(e))
		}
	}
}

func TestLatestFirstOrdering(t *testing.T) {
	ts := start(t, Options{})
	now := ts.Now().Unix()
	keys := func(es []entry) [][2]int64 {
		var out [][2]int64
		for _, e := range es {
			var id int64
			_, err := fmt.Sscanf(src(e)[strings.LastIndex(src(e), "-")+1:], "%d", &id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, [2]int64{e.Start, id})
		}
		return out
	}
	cmpKey := func(a, b [2]int64) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	}
	desc, _ := ts.all(now-60*day, now, nil, "limit", "500")
	for _, v := range []string{"false", "0"} {
		asc, _ := ts.all(now-60*day, now, nil, "limit", "500", "latest_first", v)
		if !slices.IsSortedFunc(keys(asc), cmpKey) {
			t.Fatalf("latest_first=%s is not oldest first", v)
		}
		slices.Reverse(asc)
		if fmt.Sprint(keys(asc)) != fmt.Sprint(keys(desc)) {
			t.Fatalf("latest_first=%s is not the reverse of the default order", v)
		}
	}
	k := keys(desc)
	slices.Reverse(k)
	if !slices.IsSortedFunc(k, cmpKey) {
		t.Fatal("default order is not newest first")
	}
	for _, v := range []string{"true", "1", "True"} {
		p := decodePage(t, ts.get(chargesPath(now-60*day, now, nil, "latest_first", v, "limit", "5"), DemoKey))
		if src(p.Results[0]) != src(desc[0]) {
			t.Fatalf("latest_first=%s: first %s, want %s", v, src(p.Results[0]), src(desc[0]))
		}
	}
	if r := ts.get(chargesPath(now-60*day, now, nil, "latest_first", "maybe"), DemoKey); r.status != 400 {
		t.Fatalf("latest_first=maybe: %d", r.status)
	}
}

func TestLimitBounds(t *testing.T) {
	ts := start(t, Options{Contracts: 800})
	now := ts.Now().Unix()
	for _, l := range []string{"0", "501", "-1", "abc", "1.5"} {
		if r := ts.get(chargesPath(0, now, nil, "limit", l), DemoKey); r.status != 400 {
			t.Fatalf("limit=%s: %d %s", l, r.status, r.body)
		}
	}
	for l, want := range map[string]int{"": 100, "1": 1, "500": 500} {
		var extra []string
		if l != "" {
			extra = []string{"limit", l}
		}
		p := decodePage(t, ts.get(chargesPath(0, now, nil, extra...), DemoKey))
		if p.Count != want || p.Total != 800 {
			t.Fatalf("limit=%q: count %d total %d", l, p.Count, p.Total)
		}
	}
	if r := ts.get(chargesPath(0, now, nil, "format", "csv"), DemoKey); r.status != 400 {
		t.Fatalf("format=csv: %d", r.status)
	}
}

func TestPagingYieldsEachContractOnce(t *testing.T) {
	ts := start(t, Options{Contracts: 1234})
	now := ts.Now().Unix()
	for _, lf := range []string{"true", "false"} {
		seen := map[string]int{}
		tok := ""
		pages := 0
		for {
			args := []string{"latest_first", lf}
			if tok != "" {
				args = append(args, "after_token", tok)
			}
			p := decodePage(t, ts.get(chargesPath(0, now, nil, args...), DemoKey))
			pages++
			if p.Total != 1234 {
				t.Fatalf("total %d", p.Total)
			}
			for _, e := range p.Results {
				seen[src(e)]++
			}
			if p.NextToken == nil {
				break
			}
			if p.Count != 100 {
				t.Fatalf("page %d has %d rows but a next token", pages, p.Count)
			}
			tok = *p.NextToken
		}
		if pages != 13 || len(seen) != 1234 {
			t.Fatalf("latest_first=%s: %d pages, %d distinct contracts", lf, pages, len(seen))
		}
		for s, n := range seen {
			if n != 1 {
				t.Fatalf("%s served %d times", s, n)
			}
		}
	}
}

func TestTokenBoundToFilters(t *testing.T) {
	ts := start(t, Options{})
	now := ts.Now().Unix()
	p := decodePage(t, ts.get(chargesPath(0, now, nil, "limit", "10"), DemoKey))
	tok := *p.NextToken
	invalid := `{"success":false,"error":"invalid_token","msg":"Invalid pagination token."}`
	for name, path := range map[string]string{
		"other day range": chargesPath(1, now, nil, "after_token", tok),
		"other types":     chargesPath(0, now, []string{"volume"}, "after_token", tok),
		"other format":    chargesPath(0, now, nil, "format", "tree", "after_token", tok),
		"other order":     chargesPath(0, now, nil, "latest_first", "false", "after_token", tok),
		"garbage":         chargesPath(0, now, nil, "after_token", "%%%not-base64"),
		"base64 of junk":  chargesPath(0, now, nil, "after_token", base64.StdEncoding.EncodeToString([]byte(`{"v":9}`))),
	} {
		t.Run(name, func(t *testing.T) {
			wantBody(t, ts.get(path, DemoKey), 400, invalid)
		})
	}
	// Same filters, other limit: the token is still valid and continues
	// where the first page stopped.
	all := ts.Contracts(Filter{Gte: 0, Lte: now})
	p2 := decodePage(t, ts.get(chargesPath(0, now, nil, "limit", "3", "after_token", tok), DemoKey))
	if src(p2.Results[0]) != all[10].Source {
		t.Fatalf("page 2 starts at %s, want %s", src(p2.Results[0]), all[10].Source)
	}
	// An equivalent type filter (all three, any order) is the same set.
	p3 := decodePage(t, ts.get(chargesPath(0, now, []string{"volume", "serverless", "instance"}, "after_token", tok), DemoKey))
	if src(p3.Results[0]) != all[10].Source {
		t.Fatalf("equivalent filter: starts at %s", src(p3.Results[0]))
	}
}

func TestAmountFormat(t *testing.T) {
	for m, want := range map[int64]string{0: "0.0", 12345: "12.345", 12340: "12.34", 12300: "12.3", 12000: "12.0", 7: "0.007", -5: "-0.005", 412386: "412.386"} {
		if got := string(appendAmount(nil, m)); got != want {
			t.Errorf("appendAmount(%d) = %s, want %s", m, got, want)
		}
	}
	var v any
	b := appendString(nil, "a\x1b[31m\"\\\u202e\u0085\xff\u2028\n")
	if err := json.Unmarshal(b, &v); err != nil || v != "a\x1b[31m\"\\\u202e\u0085\ufffd\u2028\n" {
		t.Fatalf("appendString round trip: %q %v", v, err)
	}
}

func TestDescriptionsAndData(t *testing.T) {
	ts := start(t, Options{Contracts: 2000})
	now := ts.Now().Unix()
	cs := ts.Contracts(Filter{})
	var recent, old, running, zero, cjk int
	for _, c := range cs {
		switch {
		case c.Start > now-30*day:
			recent++
		case c.Start > now-300*day && c.Start <= now-270*day:
			old++
		}
		if c.End == now {
			running++
		}
		if c.Amount == 0 {
			zero++
		}
		if strings.ContainsRune(c.Label, '訓') {
			cjk++
		}
		if c.End < c.Start || c.End > now {
			t.Fatalf("%s: bad span %d..%d", c.Source, c.Start, c.End)
		}
	}
	if recent < 2*old || running == 0 || zero == 0 || cjk == 0 {
		t.Fatalf("recent %d old %d running %d zero %d cjk %d", recent, old, running, zero, cjk)
	}
	for _, c := range cs[:50] {
		for _, it := range c.Items {
			var unit string
			switch it.Type {
			case "gpu":
				unit = " hours at $"
			case "disk":
				unit = " GB-hours at $"
			default:
				unit = " GB at $"
			}
			if !strings.Contains(it.Description, unit) {
				t.Fatalf("%s %s: description %q", c.Source, it.Type, it.Description)
			}
		}
	}
}
