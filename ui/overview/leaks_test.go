package overview

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// One line under Now: the leaks' total and the key of the Audit screen as
// bound; "unknown" when a section could not be read; nothing when nothing
// leaks.
func TestLeaksLine(t *testing.T) {
	leaky := leaks.Audit{Leaks: []leaks.Leak{{Kind: leaks.LeakStoppedInstance, PerHour: 77_800, PerHourKnown: true},
		{Kind: leaks.LeakIdleGPU, PerHour: 2_962_200, PerHourKnown: true}}, Total: 3_040_000,
		Increases: []leaks.PriceChange{{ID: 1}}}
	m := rated(t, 120, 40, shared.RateMsg{Rate: testRate()})
	d := newDriver(m)
	d.send(t, shared.AuditMsg{Audit: leaky})
	if l := lineWith(t, m, "Leaks"); !strings.Contains(l, "Leaks  $3.040/h in 2 leaks — 5 shows them · 1 price increase pending") {
		t.Errorf("line %q", l)
	}
	d.send(t, shared.AuditMsg{Audit: leaks.Audit{Unreadable: []string{"instances: not read", "volumes: not read"}}})
	if l := lineWith(t, m, "Leaks"); !strings.Contains(l, "unknown: 2 sections not read — 5 shows them") {
		t.Errorf("line %q", l)
	}
	d.send(t, shared.AuditMsg{Audit: leaks.Audit{}})
	if strings.Contains(view(m), "Leaks") {
		t.Errorf("nothing leaks, yet:\n%s", view(m))
	}
	// Rebound, the line names the key as bound.
	keys, err := keymap.Bind(map[string][]string{"audit": {"L"}})
	if err != nil {
		t.Fatal(err)
	}
	m.ctx.Keys = keys
	d.send(t, shared.AuditMsg{Audit: leaky})
	if l := lineWith(t, m, "Leaks"); !strings.Contains(l, "— L shows them") {
		t.Errorf("rebound: %q", l)
	}
}
