package statement

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// With reload bound to f5 in [keys], the screen answers f5 and not r, and
// its texts name f5: "r to reload" sent users to a key that did nothing.
func TestReloadAsBound(t *testing.T) {
	h := boundHarness(t, map[string][]string{"reload": {"f5"}}, &demoserver.Fault{Path: "/api/v1/invoices", Status: 200, Times: 1,
		Body: `{"success":false,"error":"Invalid date range"}`})
	if st := h.m.Statement(); st == nil || !st.Incomplete {
		t.Fatalf("statement %+v", st)
	}
	if v := h.view(); !strings.Contains(v, "(f5 to reload)") || strings.Contains(v, "r to reload") {
		t.Errorf("the note does not name f5:\n%s", v)
	}
	h.press("e")
	if s := h.lastStatus(); !strings.Contains(s, "f5 to reload, then e") {
		t.Errorf("export refusal %q", s)
	}
	if got := h.m.Help().ShortHelp(); !strings.Contains(shared.Hint(got...), "f5 reload") {
		t.Errorf("help %q", shared.Hint(got...))
	}
	h.press("r")
	if st := h.m.Statement(); st == nil || !st.Incomplete {
		t.Fatal("r still reloads")
	}
	h.run(h.m.Update(tea.KeyPressMsg{Code: tea.KeyF5}))
	if st := h.m.Statement(); st == nil || st.Incomplete {
		t.Fatalf("f5 did not retry: %+v", st)
	}
}

// With search bound to ctrl+f and export to x in [keys], the Statement's
// find and export follow them as the Charges screen's do: one binding for
// the same action on every list.
func TestSharedActionsAsBound(t *testing.T) {
	h := boundHarness(t, map[string][]string{"search": {"ctrl+f"}, "export": {"x"}}, nil)
	h.press("/")
	if h.m.finding {
		t.Fatal("/ still opens the find field")
	}
	h.run(h.m.Update(tea.KeyPressMsg{Code: 'f', Mod: tea.ModCtrl}))
	if !h.m.finding {
		t.Fatal("ctrl+f does not open the find field")
	}
	if hint := shared.Hint(h.m.Help().FullHelp()[0]...) + shared.Hint(h.m.Help().ShortHelp()...); strings.Contains(hint, "/ find") {
		t.Errorf("the help still names /: %q", hint)
	}
}

// An account refresh (the live credit, every minute) rebuilds the
// statement; it does not wipe the note of what the user just did.
func TestRefreshKeepsCopyNote(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.m.Update(shared.UserMsg{User: api.User{Credit: 1000}})
	h.run(h.m.Shown(true))
	if st := h.m.Statement(); st == nil || st.Incomplete {
		t.Fatalf("statement %+v", st)
	}
	h.press("y")
	if !strings.HasPrefix(h.lastStatus(), "copied ") {
		t.Fatalf("status %q", h.lastStatus())
	}
	h.run(h.m.Update(shared.UserMsg{User: api.User{Credit: 1000}}))
	if !strings.HasPrefix(h.lastStatus(), "copied ") {
		t.Errorf("the refresh wiped the note: %q", h.lastStatus())
	}
}

// TestRecordsAsBound: the month's records open on the key [keys] binds
// records to, not on enter, and the help names it.
func TestRecordsAsBound(t *testing.T) {
	h := boundHarness(t, map[string][]string{"records": {"o"}}, nil)
	if help := shared.Hint(h.m.Help().ShortHelp()...); !strings.Contains(help, "o the month's records") {
		t.Errorf("help %q", help)
	}
	h.press("enter")
	if h.m.open {
		t.Fatal("enter still opens the records")
	}
	h.press("o")
	if !h.m.open {
		t.Fatal("o does not open the records")
	}
}

// boundHarness is the screen at 100×20 with the keys bound as user binds
// them in [keys], against the demo server (with fault, if any), shown and
// loaded with a credit of $1.
func boundHarness(t *testing.T, user map[string][]string, fault *demoserver.Fault) *harness {
	t.Helper()
	b, err := keymap.Bind(user)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, demoserver.DemoKey, fault)
	ctx := *h.m.ctx
	ctx.Keys = b
	h.m = New(&ctx)
	h.m.SetSize(100, 20)
	h.m.Update(shared.UserMsg{User: api.User{Credit: 1000}})
	h.run(h.m.Shown(true))
	return h
}
