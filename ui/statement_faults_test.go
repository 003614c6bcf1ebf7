package ui

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
)

// The Statement screen's rows of the fault matrix: a 200 with
// success:false, a server error and a key without billing_read each show
// on the status line with the server's words (or the permission), and the
// months the feeds did not reach are marked, never shown as a short
// statement.
func TestFaultStatement(t *testing.T) {
	const invoicesPath = "/api/v1/invoices"
	for _, row := range []struct {
		name  string
		setup func(*demoserver.Server)
		want  string
	}{
		{"success false", func(srv *demoserver.Server) {
			srv.AddFault(demoserver.Fault{Path: invoicesPath, Status: 200, Body: `{"success":false,"error":"Invalid date range \u001b[31m"}`})
		}, "Invalid date range"},
		{"server error", func(srv *demoserver.Server) {
			srv.AddFault(demoserver.Fault{Path: invoicesPath, Status: 500, Body: `{"msg":"\u001b]0;pwned\u0007ledger down"}`})
		}, "ledger down"},
		{"no billing_read", func(srv *demoserver.Server) {
			srv.AddKey(canaryKey, "canary", []string{"user_read"})
		}, "billing_read"},
	} {
		t.Run(row.name, func(t *testing.T) {
			r := startRig(t, demoserver.Options{Contracts: 300}, row.setup)
			r.press("4")
			r.waitFor("the failure", func(s string) bool {
				if row.name == "no billing_read" {
					// Asking again cannot help, and no month is drawn.
					return strings.Contains(s, "[4 Statement]") && strings.Contains(s, "statement not loaded: this API key lacks the billing_read permission") &&
						strings.Contains(s, "no statement: this API key lacks the billing_read") && !strings.Contains(s, "$0.000") && !strings.Contains(s, "retry")
				}
				return strings.Contains(s, "[4 Statement]") && strings.Contains(s, "statement stopped (r to reload)") &&
					strings.Contains(s, row.want) && strings.Contains(s, "? incomplete")
			})
			r.quit()
		})
	}
}
