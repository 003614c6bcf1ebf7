package demoserver

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// BenchmarkGenerate100k: building the data set of 100,000 contracts must
// stay well under a second (it runs at every `vastdash --demo` start and in
// many tests).
func BenchmarkGenerate100k(b *testing.B) {
	for b.Loop() {
		s := New(Options{Now: testNow, Contracts: 100_000})
		if len(s.ds().cs) != 100_000 {
			b.Fatal("wrong size")
		}
	}
}

// BenchmarkChargesPage: one page of 100 rows out of 100,000 contracts, the
// filter set already cached (a client paging through).
func BenchmarkChargesPage(b *testing.B) {
	s := New(Options{Now: testNow, Contracts: 100_000, Threshold: -1})
	defer s.Close()
	h := s.Handler()
	now := s.Now().Unix()
	path := chargesPath(now-90*day, now, nil)
	w := httptest.NewRecorder()
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+DemoKey)
	h.ServeHTTP(w, req)
	var p struct {
		NextToken string `json:"next_token"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.NextToken == "" {
		b.Fatal(err)
	}
	next := chargesPath(now-90*day, now, nil, "after_token", p.NextToken)
	for b.Loop() {
		s.ResetRequests()
		w := httptest.NewRecorder()
		req := httptest.NewRequest("GET", next, nil)
		req.Header.Set("Authorization", "Bearer "+DemoKey)
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkChargesNewFilter: the first request of a new filter set over
// 100,000 contracts (scan, build the tree view, serve the first page).
func BenchmarkChargesNewFilter(b *testing.B) {
	s := New(Options{Now: testNow, Contracts: 100_000, Threshold: -1})
	defer s.Close()
	h := s.Handler()
	now := s.Now().Unix()
	for i := 0; b.Loop(); i++ {
		s.ResetRequests()
		w := httptest.NewRecorder()
		req := httptest.NewRequest("GET", chargesPath(now-365*day+int64(i), now, nil, "format", "tree"), nil)
		req.Header.Set("Authorization", "Bearer "+DemoKey)
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
