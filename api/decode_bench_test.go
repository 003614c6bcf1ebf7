package api

import (
	"testing"
)

// BenchmarkDecodePage decodes a full 500-contract page (each with four
// items); the target is at least 50,000 contracts/s.
func BenchmarkDecodePage(b *testing.B) {
	entries := make([]string, 500)
	for i := range entries {
		entries[i] = contractJSON(i, int64(1000+i*37))
	}
	body := []byte(pageJSON(entries, 5000, "tok"))
	c := &Client{key: keyFunc(canary)}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := c.decodeChargesPage("op", "perm", body)
		if err != nil || len(p.Results) != 500 {
			b.Fatalf("decode: %v, %d entries", err, len(p.Results))
		}
	}
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "contracts/s")
}

// BenchmarkDecodePageSkipping is the slow path: one bad entry makes the
// page decode entry by entry.
func BenchmarkDecodePageSkipping(b *testing.B) {
	entries := make([]string, 500)
	for i := range entries {
		entries[i] = contractJSON(i, int64(1000+i*37))
	}
	entries[250] = `{"amount":"12.5"}`
	body := []byte(pageJSON(entries, 5000, "tok"))
	c := &Client{key: keyFunc(canary)}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		p, err := c.decodeChargesPage("op", "perm", body)
		if err != nil || len(p.Results) != 499 || p.Skipped != 1 {
			b.Fatalf("decode: %v, %d entries, %d skipped", err, len(p.Results), p.Skipped)
		}
	}
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "contracts/s")
}
