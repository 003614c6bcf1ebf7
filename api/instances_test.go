package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

func TestRate(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Rate
		perHour money.Amount
		dec     string
	}{
		{"0.421333333", 421_333, 421, "0.421333"},
		{"0.4215", 421_500, 422, "0.421500"},
		{"1e-6", 1, 0, "0.000001"},
		{"0.0000005", 1, 0, "0.000001"},
		{"0.0000004", 0, 0, "0.000000"},
		{"2", 2_000_000, 2000, "2.000000"},
		{"12.5E1", 125_000_000, 125_000, "125.000000"},
		{"10000", MaxRate, 10_000_000, "10000.000000"},
		{"null", 0, 0, "0.000000"},
	} {
		var r wireRate
		if err := r.UnmarshalJSON([]byte(tc.in)); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if Rate(r) != tc.want || Rate(r).PerHour() != tc.perHour || Rate(r).Decimal() != tc.dec {
			t.Errorf("%s: %d %v %s, want %d %v %s", tc.in, r, Rate(r).PerHour(), Rate(r).Decimal(), tc.want, tc.perHour, tc.dec)
		}
	}
	for _, in := range []string{`"0.5"`, "-0.01", "10000.000001", "1e1001", "true", "{}", "1e400"} {
		var r wireRate
		if err := r.UnmarshalJSON([]byte(in)); err == nil {
			t.Errorf("%s accepted as %d", in, r)
		}
	}
	if s := Rate(421_333).String(); s != "$0.421/h" {
		t.Errorf("String %q", s)
	}
	if d := Rate(-1_500_000).Decimal(); d != "-1.500000" {
		t.Errorf("Decimal %q", d)
	}
}

// The rounding rule is why rates keep six decimals: three instances at
// $0.4215/h are $1.2645/h, which rounds to $1.265 (not 3 × $0.422).
func TestRateSumRoundsOnce(t *testing.T) {
	var sum Rate
	for range 3 {
		sum += 421_500
	}
	if got := sum.PerHour(); got != 1_265 {
		t.Fatalf("sum %v", got)
	}
}

const instanceJSON = `{"id":101,"actual_status":"running","label":"train","num_gpus":2,"gpu_name":"RTX 4090",
	"dph_total":0.8123456,"storage_total_cost":0.0125,"start_date":1772000000.75,"extra":{"x":[1]}}`

func decodeInst(t *testing.T, body string) (InstancesPage, error) {
	t.Helper()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, body) })
	return f.client(t).Instances(context.Background(), "")
}

func TestInstancesDecode(t *testing.T) {
	p, err := decodeInst(t, `{"instances":[`+instanceJSON+`,
		{"id":102.0,"actual_status":null,"label":null,"num_gpus":0,"gpu_name":null},
		{"id":103,"actual_status":"exited","num_gpus":64,"dph_total":10000,"storage_total_cost":0,"start_date":null}
	],"next_token":"abc","total_instances":40,"label_counts":{"train":1}}`)
	if err != nil {
		t.Fatal(err)
	}
	if p.NextToken != "abc" || p.Total != 40 || p.Skipped != 0 || len(p.Results) != 3 {
		t.Fatalf("%+v", p)
	}
	want := Instance{ID: 101, Status: "running", Label: "train", NumGPUs: 2, GPUName: "RTX 4090",
		DPHTotal: 812_346, StorageTotalCost: 12_500, StorageKnown: true, StartDate: 1772000000}
	if p.Results[0] != want {
		t.Errorf("got %+v\nwant %+v", p.Results[0], want)
	}
	if !p.Results[0].Running() || p.Results[0].Billing() != 812_346 {
		t.Errorf("running instance bills %v", p.Results[0].Billing())
	}
	if in := p.Results[1]; in != (Instance{ID: 102}) {
		t.Errorf("sparse %+v", in)
	}
	if in := p.Results[2]; in.Running() || in.Billing() != 0 || in.DPHTotal != MaxRate {
		t.Errorf("exited %+v", in)
	}
}

func TestInstancesSkips(t *testing.T) {
	now := time.Now().Unix()
	bad := []string{
		`null`, `1`, `"x"`, `[]`, `{}`, `{"id":null}`, `{"id":0}`, `{"id":-3}`, `{"id":1.5}`, `{"id":"7"}`,
		`{"id":1,"actual_status":5}`, `{"id":1,"label":[]}`, `{"id":1,"gpu_name":{}}`,
		`{"id":1,"num_gpus":65}`, `{"id":1,"num_gpus":-1}`, `{"id":1,"num_gpus":1.5}`, `{"id":1,"num_gpus":"2"}`,
		`{"id":1,"dph_total":-0.1}`, `{"id":1,"dph_total":10000.01}`, `{"id":1,"dph_total":"0.5"}`, `{"id":1,"dph_total":1e30}`,
		`{"id":1,"storage_total_cost":-1}`, `{"id":1,"storage_total_cost":true}`,
		`{"id":1,"start_date":1000}`, `{"id":1,"start_date":` + fmt.Sprint(now+3*86400) + `}`, `{"id":1,"start_date":"2026-01-01"}`,
		`{"id":1,"start_date":1e300}`, `{"id":1,"start_date":-5}`,
	}
	long := strings.Repeat("界", 200)
	p, err := decodeInst(t, `{"instances":[`+strings.Join(bad, ",")+`,{"id":9,"label":"`+long+`","gpu_name":"`+long+`","actual_status":"`+long+`"}],"next_token":null}`)
	if err != nil {
		t.Fatal(err)
	}
	if p.Skipped != len(bad) || len(p.Results) != 1 || p.Total != -1 || p.NextToken != "" {
		t.Fatalf("skipped %d of %d, kept %d, %+v", p.Skipped, len(bad), len(p.Results), p)
	}
	in := p.Results[0]
	if len(in.Label) > maxLabelLen || len(in.GPUName) > maxGPUNameLen || len(in.Status) > maxStatusLen || in.Label == "" {
		t.Errorf("not cut: %d %d %d", len(in.Label), len(in.GPUName), len(in.Status))
	}
}

func TestInstancesBoundPerPage(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"instances":[`)
	for i := range MaxLimit + 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d}`, i+1)
	}
	b.WriteString(`]}`)
	p, err := decodeInst(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Results) != MaxLimit || p.Skipped != 3 {
		t.Fatalf("kept %d skipped %d", len(p.Results), p.Skipped)
	}
}

func TestInstancesErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		kind   error
	}{
		{200, `{"success":true}`, ErrMalformed},
		{200, `{"instances":null}`, ErrMalformed},
		{200, `{"instances":{}}`, ErrMalformed},
		{200, `{"instances":[],"next_token":5}`, ErrMalformed},
		{200, `{"instances":[],"total_instances":"3"}`, ErrMalformed},
		{200, `{"instances":[],"total_instances":-1}`, ErrMalformed},
		{200, `{"instances":[],"total_instances":1e20}`, ErrMalformed},
		{200, `[]`, ErrMalformed},
		{200, ``, ErrMalformed},
		{200, `<!doctype html><title>x</title>`, ErrMalformed},
		{200, `{"instances":[{"id":1}`, ErrMalformed},
		{200, `{"success":false,"error":"invalid_request","msg":"` + canary + `"}`, ErrBadRequest},
		{200, `{"success":false,"instances":[]}`, ErrBadRequest},
		{400, `{"success":false,"error":"invalid_token","msg":"Invalid pagination token."}`, ErrInvalidToken},
		{401, `{"success":false,"error":"permission_denied","msg":"API key lacks the permission for this action"}`, ErrPermission},
		{401, ``, ErrPermission},
		{403, `{"error":"auth_error","msg":"This action requires login."}`, ErrNotLoggedIn},
		{403, ``, ErrPermission},
		{404, `{"error":"auth_error","msg":"Invalid user key"}`, ErrInvalidKey},
		{404, ``, ErrNotFound},
		{429, `{"detail":"API requests too frequent endpoint threshold=0.001"}`, ErrRateLimited},
		{429, `API requests too frequent endpoint threshold=0.001`, ErrRateLimited},
		{429, ``, ErrRateLimited},
		{500, ``, ErrServer},
	} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, tc.status, tc.body) })
		_, err := f.client(t, noEndpointPacing()...).Instances(context.Background(), "")
		e := apiErr(t, err, tc.kind)
		if tc.status == 401 && tc.body != "" && e.Permission != "instance_read" {
			t.Errorf("%d %s: permission %q", tc.status, tc.body, e.Permission)
		}
	}
}

func TestInstancesQuery(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, `{"instances":[]}`) })
	c := f.client(t, noEndpointPacing()...)
	if _, err := c.Instances(context.Background(), "a+b/c="); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if r.Path != InstancesPath || r.Query.Get("limit") != "25" || r.Query.Get("after_token") != "a+b/c=" {
		t.Fatalf("%s %s", r.Path, r.RawQuery)
	}
}

// pagesFake serves the instances pages in order; page i's next_token is
// tokens[i] ("" ends); total < 0 leaves total_instances out.
func pagesFake(t *testing.T, perPage int, tokens []string, total int) *fake {
	return newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		i := 0
		if tok := r.URL.Query().Get("after_token"); tok != "" {
			fmt.Sscanf(strings.TrimPrefix(tok, "t"), "%d", &i)
		}
		var entries []string
		for k := range perPage {
			entries = append(entries, fmt.Sprintf(`{"id":%d,"actual_status":"running","dph_total":0.5}`, i*100+k+1))
		}
		next := "null"
		if i < len(tokens) && tokens[i] != "" {
			next = `"` + tokens[i] + `"`
		}
		tot := ""
		if total >= 0 {
			tot = fmt.Sprintf(`,"total_instances":%d`, total)
		}
		reply(w, 200, fmt.Sprintf(`{"instances":[%s],"next_token":%s%s}`, strings.Join(entries, ","), next, tot))
	})
}

func TestInstancePager(t *testing.T) {
	f := pagesFake(t, 25, []string{"t1", "t2", ""}, 60)
	p := f.client(t, noEndpointPacing()...).InstancePager()
	n := 0
	for _, err := range everyEntry(context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 75 || !p.Done() || p.Total() != 60 || f.count() != 3 {
		t.Fatalf("n %d done %v total %d requests %d", n, p.Done(), p.Total(), f.count())
	}
	if _, err := p.Next(context.Background()); !errors.Is(err, ErrPagerDone) {
		t.Fatalf("after the end: %v", err)
	}
}

func TestInstancePagerStops(t *testing.T) {
	ctx := context.Background()
	// A token leading back to an earlier page.
	f := pagesFake(t, 25, []string{"t1", "t2", "t1"}, -1)
	p := f.client(t, noEndpointPacing()...).InstancePager()
	var err error
	for err == nil {
		_, err = p.Next(ctx)
	}
	if e := apiErr(t, err, ErrMalformed); !strings.Contains(e.Error(), "cycle") || f.count() > 4 {
		t.Fatalf("%v after %d requests", e, f.count())
	}
	// Endless empty pages.
	f = newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, fmt.Sprintf(`{"instances":[],"next_token":"e%d"}`, n))
	})
	_, err = f.client(t, noEndpointPacing()...).InstancePager().Next(ctx)
	if apiErr(t, err, ErrMalformed); f.count() != maxEmptyPages {
		t.Fatalf("%d requests", f.count())
	}
	// More pages than the total allows.
	f = pagesFake(t, 25, []string{"t1", "t2", "t3", "t4", "t5", ""}, 10)
	p = f.client(t, noEndpointPacing()...).InstancePager()
	for err = nil; err == nil; _, err = p.Next(ctx) {
	}
	if apiErr(t, err, ErrMalformed); f.count() != 4 {
		t.Fatalf("%d requests", f.count())
	}
}

// Against the demo: every instance arrives once, in 25s, paced, and the
// sum of what is billing matches the server's ground truth.
func TestInstancesDemo(t *testing.T) {
	const th = 50 * time.Millisecond
	clk := demoserver.NewClock(1)
	s, c := demo(t, demoserver.Options{InstancesThreshold: th, Clock: clk.Now}, demoserver.KeyNoBilling,
		WithEndpointThreshold(InstancesPath, th), WithClock(clk))
	truth := s.Instances()
	if len(truth) <= InstancesLimit {
		t.Fatalf("only %d instances: paging untested", len(truth))
	}
	p := c.InstancePager()
	var got []Instance
	for in, err := range everyEntry(context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, in)
	}
	if len(got) != len(truth) || p.Total() != len(truth) {
		t.Fatalf("got %d of %d (total %d)", len(got), len(truth), p.Total())
	}
	statuses := map[string]int{}
	var billing, want Rate
	for i, in := range got {
		tr := truth[i]
		if in.ID != tr.ID || in.Status != tr.Status || int64(in.DPHTotal) != tr.DPH || int64(in.StorageTotalCost) != tr.Storage {
			t.Fatalf("instance %d: %+v, want %+v", i, in, tr)
		}
		if in.NumGPUs == 0 || in.GPUName == "" || in.StartDate == 0 {
			t.Errorf("instance %d incomplete: %+v", i, in)
		}
		statuses[in.Status]++
		billing += in.Billing()
		if tr.Status == "running" {
			want += Rate(tr.DPH)
		} else {
			want += Rate(tr.Storage)
		}
	}
	if billing != want || statuses["running"] == 0 || statuses["exited"]+statuses["stopped"] == 0 {
		t.Fatalf("billing %v want %v, statuses %v", billing, want, statuses)
	}
	if n := s.CountStatus(429); n != 0 {
		t.Fatalf("%d 429s", n)
	}

	// KeyReadOnly has no instance_read.
	_, ro := demo(t, demoserver.Options{}, demoserver.KeyReadOnly)
	_, err := ro.Instances(context.Background(), "")
	if e := apiErr(t, err, ErrPermission); e.Permission != "instance_read" {
		t.Fatalf("permission %q", e.Permission)
	}
	// A token the server did not make.
	_, err = c.Instances(context.Background(), "bm9wZQ==")
	apiErr(t, err, ErrInvalidToken)
}
