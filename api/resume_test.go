package api

import (
	"context"
	"testing"
)

// A run cut after two pages goes on, in a new pager, from the token of the
// third: every contract arrives once, and the first two pages are not
// asked again.
func TestPagerFromGoesOn(t *testing.T) {
	srv := &chargesServer{n: 450, amount: func(int) int64 { return 1 }}
	f := newFake(t, srv.handle)
	q := testQuery()
	q.Limit = 100
	c := f.client(t)
	p := c.ChargePager(q)
	seen := map[int]bool{}
	for range 2 {
		pg, err := p.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range pg.Results {
			seen[contractID(t, ch)] = true
		}
	}
	tok := p.Token()
	if tok == "" {
		t.Fatal("no token after two pages of five")
	}
	r := c.ChargePager(q).From(tok)
	for !r.Done() {
		pg, err := r.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range pg.Results {
			if seen[contractID(t, ch)] {
				t.Fatalf("contract %s came twice", ch.Source)
			}
			seen[contractID(t, ch)] = true
		}
	}
	if len(seen) != 450 || f.count() != 5 || r.Token() != "" {
		t.Fatalf("%d contracts in %d requests, token %q after the last", len(seen), f.count(), r.Token())
	}
}
