package notifications

import (
	"context"
	"net/http"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// With reload bound to f5, a failed read and a refused save tell the user
// to press f5, the key that re-reads, not r.
func TestRetryTextNamesReboundKey(t *testing.T) {
	f := newServer(t, fullDoc)
	f.getStatus, f.errBody = http.StatusBadRequest, `{"success":false,"msg":"try later"}`
	s := boundScreen(t, f, map[string][]string{"reload": {"f5"}}, 120, 20)
	mustSay(t, s, shared.StatusError, "could not read the preferences:", "f5 to reload")
	s.press("space")
	mustSay(t, s, shared.StatusError, "must be read before a save", "f5 to reload")
	if strings.Contains(s.status.Text, "r to reload") {
		t.Errorf("status %q", s.status.Text)
	}
	f.set(func(f *fakeServer) { f.getStatus = 0 })
	if n := s.send(tea.KeyPressMsg{Code: tea.KeyF5}); n != 1 || !s.Loading() {
		t.Fatal("f5 should re-read")
	}
}

// A save whose outcome nobody knows tells the user to press the reload
// key as bound to read again.
func TestUnknownOutcomeNamesReboundKey(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"reload": {"f5"}})
	if err != nil {
		t.Fatal(err)
	}
	f := newServer(t, fullDoc)
	s := start(t, f, 120, 20)
	s.ctx.Keys = b
	f.set(func(f *fakeServer) {
		f.putThen = putHang
		f.getStatusAfterPut = http.StatusInternalServerError
	})
	s.do("space")
	mustSay(t, s, shared.StatusError, "its state is unknown, f5 to reload")
}

// TestEveryKeyAsBound: the screen's own keys come from [keys] too: each
// acts on the key bound, no longer on its default, and every hint and the
// help name the key bound (the suggestion said "a applies it" whatever a
// did).
func TestEveryKeyAsBound(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{
		"threshold-suggest": {"x"}, "threshold-edit": {"w"}, "threshold-switch": {"v"},
		"threshold-row-edit": {"o"}, "threshold-save": {"ctrl+s"}, "threshold-cancel": {"ctrl+g"},
		"switch": {"z"}, "down": {"n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, s := suggestedKeys(t, 100, 30, b)
	want, err := notices.SuggestThreshold(context.Background(), s.ctx.Billing, api.ChargesQuery{})
	if err != nil || want.Reason != "" {
		t.Fatalf("billing's suggestion %+v %v", want, err)
	}
	mustShow(t, s, "3 days of your spend: "+want.Amount.Credit()+" — x applies it")
	help := shared.Hint(s.Help().ShortHelp()...)
	for _, k := range []string{"z toggle & save", "w edit threshold", "v threshold on/off", "x apply suggestion", "n down"} {
		if !strings.Contains(help, k) {
			t.Errorf("help %q lacks %q", help, k)
		}
	}
	before, _ := srv.BalanceThreshold()
	for _, k := range []string{"a", "b", "B", "j"} {
		s.do(k)
	}
	if th, _ := srv.BalanceThreshold(); th != before || s.Capturing() || s.cursor != 0 || len(puts(srv, "/api/v0/users")) != 0 {
		t.Fatalf("a default key still acts: threshold %d (was %d), editing %v, cursor %d", th, before, s.Capturing(), s.cursor)
	}
	s.do("x")
	s.do("y")
	if th, _ := srv.BalanceThreshold(); money.Amount(th) != want.Amount {
		t.Fatalf("x did not apply the suggestion: the server holds %d", th)
	}

	// The field: its keys as bound in the hint, the row and the help.
	s.press("w")
	if !s.Capturing() {
		t.Fatal("w does not open the field")
	}
	mustSay(t, s, shared.StatusInfo, "type the threshold in dollars — ctrl+s saves, ctrl+g cancels, ctrl+u clears")
	mustShow(t, s, "ctrl+s saves · ctrl+g cancels")
	if help := shared.Hint(s.Help().ShortHelp()...); help != "ctrl+s save threshold · ctrl+g cancel · ctrl+u clear" {
		t.Errorf("field help %q", help)
	}
	s.press("esc")
	s.press("enter")
	if !s.Capturing() {
		t.Fatal("esc or enter closed the field")
	}
	s.press("ctrl+g")
	if s.Capturing() {
		t.Fatal("ctrl+g does not cancel")
	}

	// On the threshold row, its own keys: o edits, enter does nothing.
	for s.cursor != s.thresholdRow() {
		s.press("n")
	}
	if help := shared.Hint(s.Help().ShortHelp()...); !strings.Contains(help, "o/w edit threshold") || strings.Contains(help, "toggle & save") {
		t.Errorf("help on the threshold row %q", help)
	}
	s.press("enter")
	if s.Capturing() {
		t.Fatal("enter on the threshold row still edits")
	}
	s.press("o")
	if !s.Capturing() {
		t.Fatal("o on the threshold row does not edit")
	}
	s.press("ctrl+g")

	// On a switch: z toggles and saves, space does nothing.
	s.press("k")
	if _, ok := s.switchAt(s.cursor); !ok {
		t.Fatalf("cursor %d is not on a switch", s.cursor)
	}
	label := s.switches[mustSwitch(t, s)].Label
	was := stateOf(t, s, label)
	s.do("space")
	if stateOf(t, s, label) != was {
		t.Fatal("space still toggles")
	}
	s.do("z")
	if stateOf(t, s, label) == was {
		t.Fatalf("z does not toggle %q", label)
	}
}

// mustSwitch is the switch under the cursor.
func mustSwitch(t *testing.T, s *screen) int {
	t.Helper()
	i, ok := s.switchAt(s.cursor)
	if !ok {
		t.Fatalf("cursor %d is not on a switch", s.cursor)
	}
	return i
}

// TestPromptKeysAsBound: the save prompt's hint names its keys as bound.
func TestPromptKeysAsBound(t *testing.T) {
	f := newServer(t, "{}")
	f.getStatus, f.errBody = http.StatusMethodNotAllowed, `{"detail":"Method \"GET\" not allowed."}`
	s := boundScreen(t, f, map[string][]string{"prompt-yes": {"Y"}, "prompt-no": {"N"}, "prompt-flip": {"f"}}, 120, 30)
	s.press("space")
	if s.confirm == nil {
		t.Fatalf("no prompt:\n%s", view(s))
	}
	mustShow(t, s, "Y save · N cancel · f switch on/off")
	s.press("n")
	if s.confirm == nil {
		t.Fatal("n still cancels")
	}
	s.press("N")
	if s.confirm != nil {
		t.Fatal("N does not cancel")
	}
}

// boundScreen is the screen against f at w×h with the keys bound as user
// binds them in [keys], the account delivered and its read answered.
func boundScreen(t *testing.T, f *fakeServer, user map[string][]string, w, h int) *screen {
	t.Helper()
	b, err := keymap.Bind(user)
	if err != nil {
		t.Fatal(err)
	}
	ctx := newCtx(t, f.srv.URL)
	ctx.Keys = b
	s := newScreen(t, ctx)
	s.SetSize(w, h)
	s.send(shared.UserMsg{User: testUser()})
	s.deliver()
	return s
}
