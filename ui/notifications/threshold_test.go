package notifications

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/shared"
)

// typeText types s into the focused field, one key a character.
func (s *screen) typeText(text string) {
	for _, r := range text {
		s.press(string(r))
	}
}

// thresholdLine is the threshold row as shown.
func thresholdLine(t *testing.T, s *screen) string {
	t.Helper()
	for _, l := range strings.Split(view(s), "\n") {
		if strings.Contains(l, "low-balance threshold:") {
			return l
		}
	}
	t.Fatalf("no threshold row in\n%s", view(s))
	return ""
}

// cursorLine is the line the cursor is on.
func cursorLine(s *screen) string {
	for _, l := range strings.Split(view(s), "\n") {
		if strings.HasPrefix(l, "›") {
			return l
		}
	}
	return ""
}

func puts(srv *demoserver.Server, path string) []demoserver.Request {
	var out []demoserver.Request
	for _, q := range srv.Requests() {
		if q.Method == http.MethodPut && strings.HasPrefix(q.Path, path) {
			out = append(out, q)
		}
	}
	return out
}

// enter on the threshold row opens a text field; bad input keeps what was
// typed and says why in one line; a good amount is saved and the row shows
// what the server then holds.
func TestThresholdEdit(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 30)
	mustShow(t, s, "low-balance threshold: $50.00 — alerts fire below it")
	s.press("j")
	s.press("j")
	s.press("enter")
	if !s.Capturing() {
		t.Fatal("enter on the threshold row should open the field")
	}
	s.press("ctrl+u")
	s.typeText("12.345")
	s.press("enter")
	if !s.Capturing() || len(s.held) != 0 {
		t.Fatal("bad input closed the field or sent something")
	}
	mustSay(t, s, shared.StatusError, "threshold: the threshold takes at most two decimals")
	if strings.Contains(s.status.Text, "\n") {
		t.Errorf("a two-line error: %q", s.status.Text)
	}
	if !strings.Contains(thresholdLine(t, s), "$12.345") {
		t.Errorf("the typed text was lost: %q", thresholdLine(t, s))
	}
	// q types, it does not quit; backspace mends.
	s.press("backspace")
	s.press("enter")
	if s.Capturing() {
		t.Fatal("a good amount should close the field")
	}
	s.deliver()
	if th, on := srv.BalanceThreshold(); th != 12340 || !on {
		t.Fatalf("server holds %d %v", th, on)
	}
	if got := thresholdLine(t, s); !strings.Contains(got, "[x] on") || !strings.Contains(got, "$12.34 — alerts fire below it") {
		t.Errorf("row %q", got)
	}
	mustSay(t, s, shared.StatusOK, "saved: the server holds the threshold $12.34, enabled")
	body := string(puts(srv, "/api/v0/users")[0].Body)
	if body != `{"balance_threshold":12.34}` {
		t.Errorf("PUT body %s", body)
	}
	// The account read after the save went to the root and back (deliver
	// hands it to the screen) without a second read of the preferences.
	gets := 0
	for _, q := range srv.Requests() {
		if strings.Contains(q.Path, "notification-prefs") {
			gets++
		}
	}
	if gets != 1 {
		t.Errorf("%d reads of the preferences; the account after the save should not re-read them", gets)
	}
}

func TestThresholdEditCancel(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 30)
	s.press("b")
	s.typeText("99")
	s.press("esc")
	if s.Capturing() || len(puts(srv, "/api/v0/users")) != 0 {
		t.Fatal("esc should close the field and send nothing")
	}
	if !strings.Contains(thresholdLine(t, s), "$50.00") {
		t.Errorf("row %q", thresholdLine(t, s))
	}
	mustSay(t, s, shared.StatusInfo, "threshold not changed")
}

// e (and space on its row) switches the threshold, sending the amount the
// server holds.
func TestThresholdToggle(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 30)
	s.do("B")
	if th, on := srv.BalanceThreshold(); th != 50000 || on {
		t.Fatalf("server holds %d %v", th, on)
	}
	if got := thresholdLine(t, s); !strings.Contains(got, "[ ] off") || !strings.Contains(got, "switched off") {
		t.Errorf("row %q", got)
	}
	s.press("j")
	s.press("j")
	s.do("space")
	if _, on := srv.BalanceThreshold(); !on {
		t.Fatal("space on the threshold row did not switch it on")
	}
	if got := thresholdLine(t, s); !strings.Contains(got, "[x] on") {
		t.Errorf("row %q", got)
	}
}

// The suggestion is three days of the burn billing measures; a works it
// out again from the figures loaded now (the one shown may be stale) and
// asks, as every other write to the account does: n leaves the server
// alone, y saves it.
func TestThresholdSuggestion(t *testing.T) {
	srv, s := suggested(t, 100, 30)
	want, err := notices.SuggestThreshold(context.Background(), s.ctx.Billing, api.ChargesQuery{})
	if err != nil || want.Reason != "" {
		t.Fatalf("billing's suggestion %+v %v", want, err)
	}
	mustShow(t, s, "3 days of your spend: "+want.Amount.Credit()+" — a applies it")
	before, _ := srv.BalanceThreshold()
	s.th.sugg.Amount = 1 // as from figures a reload has since replaced
	s.do("a")
	mustShow(t, s, "Set the low-balance threshold to "+want.Amount.Credit()+" (3 days of your spend as loaded now)?", "y save · n cancel")
	if help := shared.Hint(s.Help().ShortHelp()...); !strings.Contains(help, "y save") || strings.Contains(help, "on/off") {
		t.Errorf("help under the question: %q", help)
	}
	if th, _ := srv.BalanceThreshold(); th != before || len(puts(srv, "/api/v0/users")) != 0 {
		t.Fatalf("a wrote without asking: the server holds %d (was %d)", th, before)
	}
	s.do("n")
	mustSay(t, s, shared.StatusInfo, "threshold not changed")
	if th, _ := srv.BalanceThreshold(); th != before || strings.Contains(view(s), "Set the low-balance") {
		t.Fatalf("n saved or kept asking: %d\n%s", th, view(s))
	}
	s.do("a")
	s.do("y")
	if th, _ := srv.BalanceThreshold(); money.Amount(th) != want.Amount {
		t.Fatalf("server holds %d, suggested %v", th, want.Amount)
	}
	if !strings.Contains(thresholdLine(t, s), want.Amount.Credit()) {
		t.Errorf("row %q", thresholdLine(t, s))
	}
}

// A key without user_write: the refusal is said, and the screen turns
// read-only.
func TestThresholdReadOnlyKey(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.KeyReadOnly, 100, 30)
	s.do("B")
	mustSay(t, s, shared.StatusError, "could not save the threshold:", "user_write")
	mustShow(t, s, readOnlyText)
	if th, on := srv.BalanceThreshold(); th != 50000 || !on {
		t.Fatalf("server holds %d %v", th, on)
	}
	if n := s.press("b"); n != 0 || s.Capturing() {
		t.Error("a read-only threshold opened its field")
	}
}

// Every alert of the document, grouped, named by the catalogue; the
// mandatory one locked and refused without a request.
func TestEveryAlertListed(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 40)
	mustShow(t, s, "client", "host", "marketing", "Payment receipt by email", "Machine offline by webhooks", "Newsletter by email")
	if got := stateOf(t, s, "Payment failed by email · always sent"); got != "[=] locked" {
		t.Errorf("locked row %q", got)
	}
	before := len(srv.Requests())
	for i := 0; !strings.Contains(cursorLine(s), "Payment failed by email"); i++ {
		if i > 30 {
			t.Fatalf("no Payment failed row:\n%s", view(s))
		}
		s.press("j")
	}
	s.do("space")
	mustSay(t, s, shared.StatusError, "Payment failed by email is locked")
	if n := len(srv.Requests()); n != before {
		t.Errorf("%d requests for a locked switch", n-before)
	}
	// Any other switch saves the fresh way.
	s.press("j")
	s.do("space")
	mustSay(t, s, shared.StatusOK, "saved: Payment failed by webhooks off")
	if on, _ := api.NewPrefs(srv.Prefs()).Get(api.PrefPath{"client", "payment_failed", "webhooks"}); on {
		t.Error("the server still holds it on")
	}
}

// At 40×12 the list scrolls: the cursor's row is always shown, down to the
// last row (the Webhooks section's) and back up to the first.
func TestScrollsSmall(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 40, 12)
	rows := s.rowCount()
	for i := 0; i < rows+3; i++ {
		golden.AssertFits(t, s.View(), 40, 12)
		if !strings.Contains(view(s), "›") {
			t.Fatalf("after %d downs the cursor is out of view:\n%s", i, view(s))
		}
		s.press("j")
	}
	if !strings.Contains(view(s), "› + add a webhook") || !strings.Contains(view(s), "old pager → pager.example.invalid") {
		t.Errorf("the last row:\n%s", view(s))
	}
	s.press("pgup")
	s.press("pgup")
	for i := 0; i < rows; i++ {
		s.press("k")
	}
	if !strings.Contains(view(s), "› [x] on       Low credit by") || !strings.Contains(view(s), "client") {
		t.Errorf("back at the top:\n%s", view(s))
	}
}

// On a narrow screen the field keeps its room: the words around it go
// first, never what is typed.
func TestThresholdFieldNarrow(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 40, 12)
	s.press("b")
	s.press("ctrl+u")
	s.typeText("1234.56")
	golden.AssertFits(t, s.View(), 40, 12)
	if line := cursorLine(s); !strings.Contains(line, "$1234.56") {
		t.Errorf("the typed amount is cut: %q", line)
	}
}

// ? lists the threshold's keys.
func TestHelpListsThresholdKeys(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 30)
	var keys []string
	for _, col := range s.Help().FullHelp() {
		for _, b := range col {
			if b.Enabled() {
				keys = append(keys, b.Help().Key+" "+b.Help().Desc)
			}
		}
	}
	all := strings.Join(keys, "\n")
	for _, want := range []string{"b edit threshold", "B threshold on/off", "pgdn page down"} {
		if !strings.Contains(all, want) {
			t.Errorf("help lacks %q:\n%s", want, all)
		}
	}
	s.press("b")
	k := s.Help().(KeyMap)
	if !k.Save.Enabled() || !k.Cancel.Enabled() || k.Toggle.Enabled() || k.Up.Enabled() {
		t.Error("while editing: enter and esc only")
	}
	if !key.Matches(keyMsg("esc"), k.Cancel) {
		t.Error("esc does not cancel")
	}
}

func TestGoldenEveryAlert(t *testing.T) {
	_, s := suggested(t, 80, 24)
	golden.Check(t, "notifications_80x24.golden", view(s)+"\n")
	s.press("b")
	s.typeText("x")
	golden.Check(t, "notifications_edit_80x24.golden", ansi.Strip(s.View())+"\n")
}

// A read of the preferences that lands after a threshold save was refused
// does not wipe the refusal off the status line: the message is the
// save's, not the read's (the fault test of the refused PUT saw it vanish
// whenever the read was the slower one).
func TestLateReadKeepsSaveMessage(t *testing.T) {
	srv := startDemo(t, false)
	srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: "/api/v0/users", Status: 403,
		Body: `{"success":false,"error":"permission_denied","msg":"API key lacks permission user_write"}`})
	s, u := demoScreenBare(t, srv, demoserver.DemoKey, 100, 30)
	s.send(shared.UserMsg{User: u}) // the read is held, not delivered
	if len(s.held) != 1 {
		t.Fatalf("%d answers held, want the read", len(s.held))
	}
	read := s.held[0]
	s.held = nil
	s.press("b")
	s.press("ctrl+u")
	s.typeText("20")
	s.press("enter")
	s.deliver() // the refusal
	mustSay(t, s, shared.StatusError, "could not save the threshold")
	s.send(read)
	s.deliver()
	mustSay(t, s, shared.StatusError, "could not save the threshold")
}

// TestThresholdFieldReplaces: the field opens on the amount held, selected,
// so typing 25 replaces it ($10.00 then 25 was "$10.0025" and "at most two
// decimals"); a move keeps the amount for editing; ctrl+u empties the
// field at any time and the hints say so.
func TestThresholdFieldReplaces(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 30)
	s.press("b")
	if !strings.Contains(thresholdLine(t, s), "$50.00") || !s.th.input.Selected() {
		t.Fatalf("the field does not open on the amount, selected: %q", thresholdLine(t, s))
	}
	mustSay(t, s, shared.StatusInfo, "ctrl+u clears")
	mustShow(t, s, "ctrl+u clears")
	s.typeText("25")
	s.press("enter")
	s.deliver()
	if th, _ := srv.BalanceThreshold(); th != 25000 {
		t.Fatalf("typing 25 on $50.00: the server holds %d, want 25000", th)
	}

	s.press("b")
	s.press("ctrl+e") // a move (to the end): the amount stays, to be edited
	s.typeText("5")
	if l := thresholdLine(t, s); !strings.Contains(l, "$25.005") {
		t.Fatalf("after a move the typing does not add: %q", l)
	}
	s.press("ctrl+u")
	if v := s.th.input.Value(); v != "" {
		t.Fatalf("ctrl+u left %q", v)
	}
	s.typeText("30")
	s.press("enter")
	s.deliver()
	if th, _ := srv.BalanceThreshold(); th != 30000 {
		t.Fatalf("the server holds %d, want 30000", th)
	}

	s.press("b")
	s.press("backspace") // on the selection: empties the field
	if v := s.th.input.Value(); v != "" {
		t.Fatalf("backspace on the selected amount left %q", v)
	}
	s.press("esc")
}

// Issue 27 item 9: the threshold's PUT is applied and a gateway answers
// 502 with an HTML page. The screen reads the account again and says the
// change took, the row showing what the server holds; had it not been
// applied, the row keeps the old amount and the line says it was not
// saved.
func TestThresholdSaveAnswered502(t *testing.T) {
	for _, applied := range []bool{true, false} {
		srv := startDemo(t, false)
		srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: "/api/v0/users", Applied: applied, Status: http.StatusBadGateway,
			ContentType: "text/html", Body: "<html>502 Bad Gateway</html>"})
		s := demoScreenSized(t, srv, demoserver.DemoKey, 200, 30)
		s.press("b")
		s.press("ctrl+u")
		s.typeText("25")
		s.press("enter")
		s.deliver()
		if applied {
			mustSay(t, s, shared.StatusOK, "saved: the server holds the threshold $25.00, enabled", "(HTTP 502)", "a read says the change took")
			if !strings.Contains(thresholdLine(t, s), "$25.00") {
				t.Errorf("row %q", thresholdLine(t, s))
			}
			continue
		}
		mustSay(t, s, shared.StatusWarn, "not saved: the threshold save's answer was lost; read again, the server holds $50.00, enabled", "(HTTP 502)")
		if !strings.Contains(thresholdLine(t, s), "$50.00") {
			t.Errorf("row %q", thresholdLine(t, s))
		}
	}
}
