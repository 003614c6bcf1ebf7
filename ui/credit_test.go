package ui

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
)

// Issue 27 item 8: an account record with "credit": null, or no credit
// field. The dashboard showed "credit $0.00 empty", "at or below zero" and
// "no credit left"; a figure the record does not hold is "unknown", in the
// header and on the Overview, and the runway says why there is none.
func TestNoCreditIsUnknownOnScreen(t *testing.T) {
	for _, null := range []bool{true, false} {
		r := startRig(t, demoserver.Options{Contracts: 200}, func(srv *demoserver.Server) { srv.AddFault(demoserver.DropCredit(null)) })
		s := r.waitFor("the unknown credit", func(s string) bool {
			return strings.Contains(s, "credit unknown") && strings.Contains(s, "Credit unknown") && strings.Contains(s, "Runway — the credit is unknown")
		})
		r.quit()
		if r.everShown(func(s string) bool {
			return strings.Contains(s, "$0.00") || strings.Contains(s, "empty") || strings.Contains(s, "at or below zero") || strings.Contains(s, "no credit left")
		}) {
			t.Errorf("null %v: a screen read the missing credit as $0:\n%s", null, s)
		}
	}
}
