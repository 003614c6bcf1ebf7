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
// its texts name f5: "r to retry" sent users to a key that did nothing.
func TestReloadAsBound(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"reload": {"f5"}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, demoserver.DemoKey, &demoserver.Fault{Path: "/api/v1/invoices", Status: 200, Times: 1,
		Body: `{"success":false,"error":"Invalid date range"}`})
	ctx := *h.m.ctx
	ctx.Keys = b
	h.m = New(&ctx)
	h.m.SetSize(100, 20)
	h.m.Update(shared.UserMsg{User: api.User{Credit: 1000}})
	h.run(h.m.Shown(true))
	if st := h.m.Statement(); st == nil || !st.Incomplete {
		t.Fatalf("statement %+v", st)
	}
	if v := h.view(); !strings.Contains(v, "(f5 to retry)") || strings.Contains(v, "r to retry") {
		t.Errorf("the note does not name f5:\n%s", v)
	}
	h.press("e")
	if s := h.lastStatus(); !strings.Contains(s, "f5 to retry, then e") {
		t.Errorf("export refusal %q", s)
	}
	if got := h.m.Help().ShortHelp(); !strings.Contains(shared.Hint(got...), "f5 reload the year") {
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
	b, err := keymap.Bind(map[string][]string{"search": {"ctrl+f"}, "export": {"x"}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, demoserver.DemoKey, nil)
	ctx := *h.m.ctx
	ctx.Keys = b
	h.m = New(&ctx)
	h.m.SetSize(100, 20)
	h.m.Update(shared.UserMsg{User: api.User{Credit: 1000}})
	h.run(h.m.Shown(true))
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
