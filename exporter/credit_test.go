package exporter

import (
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
)

// Issue 27 item 8 on the exporter: an account record without a credit
// figure is not a credit of $0. vast_credit_dollars and the runway built
// on it are left out, vast_up is 0, and the threshold still shows.
func TestNoCreditIsNotExported(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	r.srv.AddFault(demoserver.DropCredit(true))
	r.refresh()
	body, fams := r.scrape(t)
	for _, name := range []string{"vast_credit_dollars", "vast_runway_seconds"} {
		if _, ok := value(fams, name); ok {
			t.Errorf("%s was exported for a record without a credit:\n%s", name, body)
		}
	}
	if up, _ := value(fams, "vast_up"); up != 0 {
		t.Errorf("vast_up %v", up)
	}
	if _, ok := value(fams, "vast_low_balance_threshold_enabled"); !ok {
		t.Errorf("the threshold went with the credit:\n%s", body)
	}
}
