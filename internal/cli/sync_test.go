package cli

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// The two syncs of `vastdash sync` run side by side and share the progress
// line: the payment records (paced 1 s here, three pages) go on reporting
// long after the charges are done, and each report reads both states —
// the charges' last one included, which its goroutine stores (under -race
// this once failed). The line's last form holds both final counts, it is
// cleared before the answer, and nothing is drawn after it.
func TestSyncProgressThenAnswer(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 300, Payments: 250, Threshold: -1, InvoicesThreshold: -1})
	data := t.TempDir()
	res := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data, func(e *env) {
		e.isTerminal = func(io.Writer) bool { return true }
		e.clientOptions = append(e.clientOptions, api.WithEndpointThreshold(api.InvoicesPath, time.Second))
	}), "sync")
	res.ok(t)
	m := regexp.MustCompile(`holds .*: ([0-9,]+) contracts and ([0-9,]+) payment records`).FindStringSubmatch(res.out)
	if m == nil {
		t.Fatalf("sync said %q", res.out)
	}
	if !strings.HasSuffix(res.errOut, "\r\x1b[2K") {
		t.Fatalf("the progress line is not cleared last: %q", res.errOut)
	}
	lines := strings.Split(strings.TrimSuffix(res.errOut, "\r\x1b[2K"), "\r\x1b[2K")
	last := lines[len(lines)-1]
	if want := "syncing charges: " + m[1] + " contracts (page 1 of 1) · payment records: " + m[2]; last != want {
		t.Errorf("the last progress line %q, want %q", last, want)
	}
	if n := strings.Count(res.errOut, "payment records: "); n < 3 {
		t.Errorf("%d progress lines of the payment records' pages: %q", n, res.errOut)
	}
}
