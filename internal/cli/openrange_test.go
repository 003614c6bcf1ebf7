package cli

import (
	"testing"
	"time"

	"github.com/vastdash/vastdash/spend"
)

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
