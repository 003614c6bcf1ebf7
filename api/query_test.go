package api

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"
)

func TestChargesQueryEncoding(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, pageJSON(nil, 0, "")) })
	c := f.client(t)
	ctx := context.Background()

	q := testQuery()
	if _, err := c.Charges(ctx, q, ""); err != nil {
		t.Fatal(err)
	}
	q2 := q
	q2.Types = []ContractType{TypeServerless, TypeInstance, TypeServerless}
	q2.Format = FormatTree
	q2.OldestFirst = true
	q2.Limit = 500
	if _, err := c.Charges(ctx, q2, "tok/+=en"); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if reqs[0].Path != "/api/v0/charges/" || reqs[0].Method != "GET" {
		t.Fatalf("request line %s %s", reqs[0].Method, reqs[0].Path)
	}

	type filters struct {
		Day  map[string]int64 `json:"day"`
		Type map[string][]string
	}
	var got filters
	if err := json.Unmarshal([]byte(reqs[0].Query.Get("select_filters")), &got); err != nil {
		t.Fatalf("select_filters is not JSON: %v", err)
	}
	want := filters{Day: map[string]int64{"gte": testFrom.Unix(), "lte": testTo.Unix()}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("select_filters = %+v, want %+v", got, want)
	}
	first := reqs[0].Query
	if first.Get("format") != "table" || first.Get("latest_first") != "true" || first.Has("limit") || first.Has("after_token") {
		t.Errorf("default query = %s", reqs[0].RawQuery)
	}

	got = filters{}
	if err := json.Unmarshal([]byte(reqs[1].Query.Get("select_filters")), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Type, map[string][]string{"in": {"serverless", "instance"}}) {
		t.Errorf("type filter = %v", got.Type)
	}
	second := reqs[1].Query
	if second.Get("format") != "tree" || second.Get("latest_first") != "false" || second.Get("limit") != "500" ||
		second.Get("after_token") != "tok/+=en" {
		t.Errorf("query = %s", reqs[1].RawQuery)
	}
	if s := q2.SelectFilters(); s != `{"day":{"gte":1735689600,"lte":1738367999},"type":{"in":["serverless","instance"]}}` {
		t.Errorf("SelectFilters = %s", s)
	}
}

// Limits outside 0..500 are the caller's bug: refused, never clamped, and
// nothing is sent.
func TestChargesLimitValidation(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, pageJSON(nil, 0, "")) })
	c := f.client(t)
	for _, limit := range []int{0, 1, 500} {
		q := testQuery()
		q.Limit = limit
		before := f.count()
		if _, err := c.Charges(context.Background(), q, ""); err != nil || f.count() != before+1 {
			t.Errorf("limit %d: %v", limit, err)
		}
	}
	for _, limit := range []int{-1, 501, 100000} {
		q := testQuery()
		q.Limit = limit
		before := f.count()
		_, err := c.Charges(context.Background(), q, "")
		apiErr(t, err, ErrUsage)
		if f.count() != before {
			t.Errorf("limit %d was sent", limit)
		}
	}
}

func TestChargesQueryValidate(t *testing.T) {
	ok := testQuery()
	bad := map[string]ChargesQuery{
		"no from":      {To: testTo},
		"no to":        {From: testFrom},
		"reversed":     {From: testTo, To: testFrom},
		"unknown type": {From: testFrom, To: testTo, Types: []ContractType{"gpu"}},
		"format":       {From: testFrom, To: testTo, Format: "csv"},
	}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid query: %v", err)
	}
	same := ChargesQuery{From: testFrom, To: testFrom, Format: FormatTree, Types: AllContractTypes}
	if err := same.Validate(); err != nil {
		t.Fatalf("one-instant range: %v", err)
	}
	for name, q := range bad {
		t.Run(name, func(t *testing.T) { apiErr(t, q.Validate(), ErrUsage) })
	}
}

func TestChargesQueryEqual(t *testing.T) {
	a := ChargesQuery{From: testFrom, To: testTo, Types: []ContractType{TypeInstance, TypeVolume}}
	b := ChargesQuery{From: testFrom.In(time.FixedZone("x", 3600)), To: testTo.Add(300 * time.Millisecond),
		Types: []ContractType{TypeVolume, TypeInstance, TypeVolume}, Format: FormatTable}
	if !a.Equal(b) || !b.Equal(a) {
		t.Error("same filters (types reordered, same seconds, zero format = table) are not Equal")
	}
	for name, change := range map[string]func(*ChargesQuery){
		"types":  func(q *ChargesQuery) { q.Types = []ContractType{TypeInstance} },
		"all":    func(q *ChargesQuery) { q.Types = nil },
		"from":   func(q *ChargesQuery) { q.From = q.From.Add(time.Second) },
		"to":     func(q *ChargesQuery) { q.To = q.To.Add(-time.Hour) },
		"format": func(q *ChargesQuery) { q.Format = FormatTree },
		"order":  func(q *ChargesQuery) { q.OldestFirst = true },
		"limit":  func(q *ChargesQuery) { q.Limit = 50 },
	} {
		c := a
		c.Types = append([]ContractType(nil), a.Types...)
		change(&c)
		if a.Equal(c) {
			t.Errorf("changing %s still Equal", name)
		}
	}
}
