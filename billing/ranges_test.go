package billing

import (
	"strings"
	"testing"
	"time"
)

// A typed range is read and bounded in one call, the same for the
// command's --from and the dashboard's range field: one reaching outside
// the days vastdash accepts is refused, 0001-01-01 above all (a query
// would read it as "no date").
func TestParseRangeBounds(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{"0001-01-01..2026-11-01", "2014-12-31", "2014-12-31.."} {
		if _, err := ParseRange(s, now, time.UTC); err == nil || !strings.Contains(err.Error(), "outside the days vastdash accepts") {
			t.Errorf("%s: %v", s, err)
		}
	}
	r, err := ParseRange("2026-11-01..", now, time.UTC)
	if err != nil || !r.From.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) || r.To.Before(now) {
		t.Fatalf("%+v %v", r, err)
	}
}
