package notifications

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/shared"
)

// hookCalls are the requests to the webhooks paths, "METHOD path".
func hookCalls(srv *demoserver.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/api/v0/webhooks") {
			out = append(out, r.Method+" "+strings.TrimSuffix(r.Path, "/"))
		}
	}
	return out
}

// toRow moves the cursor to the first row whose line holds text.
func toRow(t *testing.T, s *screen, text string) {
	t.Helper()
	for s.cursor > 0 {
		s.press("k")
	}
	for i := 0; i < s.rowCount(); i++ {
		if strings.Contains(cursorLine(s), text) {
			return
		}
		s.press("j")
	}
	t.Fatalf("no row %q in\n%s", text, view(s))
}

// typeInto types text into the form's focused field, after clearing it.
func (s *screen) typeInto(text string) {
	s.press("ctrl+u")
	s.typeText(text)
}

// neverSaid fails when a status line held secret (or its first 12 bytes).
func neverSaid(t *testing.T, s *screen, secret string) {
	t.Helper()
	for _, said := range s.said {
		if strings.Contains(said, secret[:12]) {
			t.Fatalf("the status line showed the secret: %q", said)
		}
	}
}

// clipboard is what the held commands put on the clipboard ("" for
// nothing); the commands are taken.
func (s *screen) clipboard() string {
	clip := ""
	kept := s.held[:0]
	for _, msg := range s.held {
		// tea.SetClipboard's message type is unexported: compare with
		// what it sends.
		if v := reflect.ValueOf(msg); v.Type() == reflect.TypeOf(tea.SetClipboard("")()) {
			clip = v.String()
			continue
		}
		kept = append(kept, msg)
	}
	s.held = kept
	return clip
}

// The section lists each webhook with its host and the catalogue's names
// of its events; a webhooks switch that is on while no webhook carries its
// event says so, and only such a switch — "No webhook takes this alert",
// as the demo's webhooks carry other alerts (issue 33: it said "No
// webhook registered", false), and with none at all "No webhook
// registered".
func TestWebhooksSectionAndUnheard(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 120, 60)
	mustShow(t, s, "Webhooks · where the webhooks switches deliver · 2 of 4",
		"ops alerts → hooks.example.com · Instance status changed, Payment failed",
		"old pager → pager.example.invalid · Instance status changed",
		"+ add a webhook (+)")
	v := view(s)
	for _, want := range []string{"Serverless scaling by webhooks · ! No webhook takes this alert", "Machine offline by webhooks · ! No webhook takes this alert"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
	for _, quiet := range []string{"Payment failed by webhooks ·", "Instance status changed by webhooks ·", "Low credit by webhooks ·", "Payout sent by webhooks ·", "by email · !"} {
		if strings.Contains(v, quiet) {
			t.Errorf("%q warns:\n%s", quiet, v)
		}
	}
	// Switched on with none carrying it: the warning, and the detail.
	toRow(t, s, webhooks)
	s.do("space")
	if !strings.Contains(cursorLine(s), webhooks+" · ! No webhook takes this alert") || strings.Contains(view(s), notices.NoWebhookText) {
		t.Fatalf("switched on:\n%s", view(s))
	}
	mustShow(t, s, "! No webhook takes client:low_credit (those registered carry other alerts): this alert is delivered nowhere")
	// None registered at all: that is what it says.
	kept := srv.Webhooks()
	srv.SetWebhooks(nil)
	s.do("r")
	if !strings.Contains(cursorLine(s), webhooks+" · ! No webhook registered") {
		t.Fatalf("none registered:\n%s", view(s))
	}
	mustShow(t, s, "! No webhook registered carries client:low_credit: this alert is delivered nowhere — + adds a webhook for it")
	srv.SetWebhooks(kept)
	// A webhook that carries it appears (the console added it): r reads
	// it, and the warning goes.
	hooks := srv.Webhooks()
	hooks = append(hooks, demoserver.WebhookTruth{ID: 9, Name: "lc", URL: "https://lc.example.com/", Events: []string{"client:low_credit"}})
	srv.SetWebhooks(hooks)
	s.do("r")
	if strings.Contains(cursorLine(s), "No webhook") {
		t.Fatalf("carried, still warned:\n%s", view(s))
	}
	mustShow(t, s, "lc → lc.example.com · Low credit")
}

// A list of another shape is an error naming the endpoint, never "No
// webhook registered", and no switch is said to go nowhere: nobody knows.
func TestWebhooksListOfAnotherShape(t *testing.T) {
	srv := startDemo(t, false)
	srv.AddFault(demoserver.Fault{Method: http.MethodGet, Path: "/api/v0/webhooks", Status: 200, Body: `{"success":true,"hooks":[]}`})
	s := demoScreenSized(t, srv, demoserver.DemoKey, 120, 60)
	mustShow(t, s, "✗ the webhooks could not be read: GET /api/v0/webhooks/: unexpected response from the server: the response holds no list of webhooks")
	if v := view(s); strings.Contains(v, notices.NoWebhookText) {
		t.Fatalf("said none registered:\n%s", v)
	}
	// Entries it cannot read: no switch is said to go nowhere either.
	srv.ClearFaults()
	srv.AddFault(demoserver.Fault{Method: http.MethodGet, Path: "/api/v0/webhooks", Status: 200, Body: `[{"id":"no/slash"}]`})
	s.do("r")
	mustShow(t, s, "! 1 webhook the server sent could not be read")
	if v := view(s); strings.Contains(v, notices.NoWebhookText) {
		t.Fatalf("said none registered with an unreadable entry:\n%s", v)
	}
}

// n on a webhooks switch opens the form with its event picked; the add is
// one create between reads of the list; the secret is shown once in its
// panel, y copies it, esc closes it, and it is on no status line and in no
// frame after.
func TestWebhooksAdd(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 30)
	toRow(t, s, webhooks)
	s.press("+")
	if !s.Capturing() || !strings.Contains(view(s), "[x] Low credit") || !strings.Contains(view(s), "Add a webhook") {
		t.Fatalf("the form:\n%s", view(s))
	}
	s.typeText("q1 pager") // q types, it does not quit
	s.press("tab")
	s.typeInto("https://hooks.example.com/lc")
	before := len(hookCalls(srv))
	s.do("enter")
	truth := srv.Webhooks()
	if len(truth) != 3 || truth[2].Name != "q1 pager" || strings.Join(truth[2].Events, ",") != "client:low_credit" {
		t.Fatalf("server holds %+v", truth)
	}
	if got := strings.Join(hookCalls(srv)[before:], ","); got != "POST /api/v0/webhooks,GET /api/v0/webhooks" {
		t.Fatalf("requests %s", got)
	}
	secret := truth[2].Secret
	v := view(s)
	if !strings.Contains(v, secret) || !strings.Contains(v, "Added q1 pager · its signing secret") {
		t.Fatalf("the panel:\n%s", v)
	}
	mustSay(t, s, shared.StatusOK, "added q1 pager")
	s.press("y")
	if got := s.clipboard(); got != secret {
		t.Fatalf("copied %q", got)
	}
	mustSay(t, s, shared.StatusOK, "copied the secret of q1 pager to the clipboard")
	s.press("esc")
	if v := view(s); strings.Contains(v, secret[6:]) {
		t.Fatalf("the secret outlived its panel:\n%s", v)
	}
	neverSaid(t, s, secret)
	if !strings.Contains(cursorLine(s), "q1 pager → hooks.example.com · Low credit") {
		t.Fatalf("the cursor is not on the new webhook:\n%s", view(s))
	}
	toRow(t, s, webhooks)
	if strings.Contains(cursorLine(s), "No webhook") {
		t.Fatalf("still unheard:\n%s", view(s))
	}
}

// Every bad input of the issue is refused in the form with its reason,
// before any request; what was typed stays.
func TestWebhooksFormRefusesBadInput(t *testing.T) {
	rows := []struct {
		name, hookName, url string
		pick                bool
		want                string
	}{
		{"http", "n", "http://hooks.example.com/", true, "must begin with https://"},
		{"2049 characters", "n", "https://hooks.example.com/" + strings.Repeat("a", 2049-26), true, "2049 characters long; the platform takes at most 2048"},
		{"credentials", "n", "https://bob:pw@hooks.example.com/", true, "credentials"},
		{"loopback", "n", "https://127.0.0.1/", true, "loopback address"},
		{"private", "n", "https://10.2.3.4/", true, "private address"},
		{"localhost", "n", "https://localhost:9000/", true, "loopback name"},
		{"name of 121", strings.Repeat("n", 121), "https://hooks.example.com/", true, "121 characters long; the platform takes at most 120"},
		{"no name", "", "https://hooks.example.com/", true, "give the webhook a name"},
		{"no event", "n", "https://hooks.example.com/", false, "pick at least one event"},
	}
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 30)
	before := len(hookCalls(srv))
	for _, row := range rows {
		toRow(t, s, "+ add a webhook")
		s.press("enter")
		s.typeInto(row.hookName)
		s.press("tab")
		s.typeInto(row.url)
		if row.pick {
			s.press("tab")
			s.press("space")
		}
		s.do("enter")
		mustSay(t, s, shared.StatusError, row.want)
		f := s.hooks.form
		if f == nil || f.name.Value() != row.hookName || f.url.Value() != row.url {
			t.Fatalf("%s: the form lost what was typed", row.name)
		}
		s.press("esc")
	}
	if got := hookCalls(srv)[before:]; len(got) != 0 {
		t.Fatalf("requests %v", got)
	}
}

// An event the catalogue does not know, and a name that leads to a
// private address, are refused by billing with the reason; the form
// stays.
func TestWebhooksFormUnknownEvent(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 30)
	w := api.Webhook{ID: "1", Name: "x", URL: "https://hooks.example.com/", Events: []string{"client:no_such_event"}}
	s.openEdit(w)
	s.do("enter")
	mustSay(t, s, shared.StatusInfo, "nothing changed")
	s.openEdit(w)
	s.press("tab")
	s.press("tab")
	s.press("j")
	s.press("space") // Payment receipt, beside the unknown one
	s.do("enter")
	mustSay(t, s, shared.StatusError, `"client:no_such_event" is not an event of the notification catalogue`)
	if s.hooks.form == nil {
		t.Fatal("the form closed on a refusal")
	}
	for _, c := range hookCalls(srv) {
		if strings.HasPrefix(c, "PUT") {
			t.Fatalf("sent %s", c)
		}
	}
}

// The fifth webhook is refused before the form opens.
func TestWebhooksFifthRefused(t *testing.T) {
	srv := startDemo(t, false)
	hooks := srv.Webhooks()
	for i := int64(3); i <= 4; i++ {
		hooks = append(hooks, demoserver.WebhookTruth{ID: i, Name: "w", URL: "https://hooks.example.com/", Events: []string{"client:low_credit"}})
	}
	srv.SetWebhooks(hooks)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 40)
	s.press("+")
	mustSay(t, s, shared.StatusError, "the account has 4 webhooks, the most the platform allows: delete one first")
	if s.hooks.form != nil {
		t.Fatal("the form opened")
	}
	mustShow(t, s, "+ add a webhook — the account has 4, the most allowed")
}

// Delete asks; n keeps it, y deletes it and the list is read again.
func TestWebhooksDelete(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 40)
	toRow(t, s, "old pager →")
	s.press("backspace")
	mustShow(t, s, "Delete old pager → pager.example.invalid?", "y yes · n/esc no")
	s.press("n")
	mustSay(t, s, shared.StatusInfo, "not deleted")
	s.press("backspace")
	s.do("y")
	mustSay(t, s, shared.StatusOK, "deleted old pager")
	if n := len(srv.Webhooks()); n != 1 || strings.Contains(view(s), "old pager") {
		t.Fatalf("%d left:\n%s", n, view(s))
	}
}

// T sends a test delivery; the result is on the status line.
func TestWebhooksTest(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 40)
	toRow(t, s, "ops alerts →")
	s.do("T")
	mustSay(t, s, shared.StatusOK, "test delivery to ops alerts: delivered (the endpoint answered HTTP 200)")
	toRow(t, s, "old pager →")
	s.do("T")
	mustSay(t, s, shared.StatusError, "test delivery to old pager: not delivered: could not connect to pager.example.invalid")
}

// R asks, then rotates and shows the new secret once; the old one is gone
// from the server.
func TestWebhooksRotate(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 40, 12)
	old := srv.Webhooks()[0].Secret
	toRow(t, s, "ops alerts →")
	s.press("R")
	mustShow(t, s, "Rotate the secret of ops alerts?")
	s.do("y")
	secret := srv.Webhooks()[0].Secret
	golden.AssertFits(t, s.View(), 40, 12)
	if secret == old || !strings.Contains(view(s), secret) {
		t.Fatalf("the panel at 40×12:\n%s", view(s))
	}
	s.press("enter")
	neverSaid(t, s, secret)
	if strings.Contains(view(s), secret[6:]) {
		t.Fatal("the secret outlived its panel")
	}
}

// An add with no answer says so, reads the list again and shows what the
// server holds; the form closes (its outcome is the list's now).
func TestWebhooksAddOutcomeUnknown(t *testing.T) {
	srv := startDemo(t, false)
	s, u := demoScreenBare(t, srv, demoserver.DemoKey, 100, 30, api.WithTimeout(300*time.Millisecond))
	s.send(shared.UserMsg{User: u})
	s.deliver()
	srv.AddFault(demoserver.Fault{Method: http.MethodPost, Path: "/api/v0/webhooks", Hang: true})
	toRow(t, s, webhooks)
	s.press("+")
	s.typeText("late")
	s.press("tab")
	s.typeInto("https://hooks.example.com/late")
	s.do("enter")
	mustSay(t, s, shared.StatusWarn, "no answer to the add of late", "the list shows what the server holds")
	if s.hooks.form != nil || s.hooks.secret != nil {
		t.Fatal("the form or a panel stayed")
	}
}

// At 40×12 the form and the section fit, and the host is never cut.
func TestWebhooksNarrow(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 40, 12)
	toRow(t, s, "old pager")
	golden.AssertFits(t, s.View(), 40, 12)
	if !strings.Contains(cursorLine(s), "pager.example.invalid") {
		t.Fatalf("the host is cut: %q", cursorLine(s))
	}
	s.press("+")
	golden.AssertFits(t, s.View(), 40, 12)
	s.press("tab")
	s.press("tab")
	for range 20 {
		s.press("j")
	}
	golden.AssertFits(t, s.View(), 40, 12)
	if !strings.Contains(view(s), "› [ ] Product updates") {
		t.Fatalf("the last event is out of view:\n%s", view(s))
	}
}

// The section's keys come from the key table: rebound, they act and the
// help shows them.
func TestWebhooksKeysRebound(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"webhook-add": {"N"}, "webhook-test": {"T"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := startDemo(t, false)
	s, u := demoScreenKeys(t, srv, demoserver.DemoKey, 100, 40, b)
	s.send(shared.UserMsg{User: u})
	s.deliver()
	s.press("+")
	if s.hooks.form != nil {
		t.Fatal("+ still adds")
	}
	s.press("N")
	if s.hooks.form == nil {
		t.Fatal("N does not add")
	}
	s.press("esc")
	toRow(t, s, "ops alerts →")
	var keys []string
	for _, k := range s.Help().ShortHelp() {
		if k.Enabled() {
			keys = append(keys, k.Help().Key+" "+k.Help().Desc)
		}
	}
	if got := strings.Join(keys, ", "); !strings.Contains(got, "N add webhook") || !strings.Contains(got, "T send a test") || strings.Contains(got, "toggle") {
		t.Fatalf("help %s", got)
	}
	s.do("T")
	mustSay(t, s, shared.StatusOK, "test delivery to ops alerts: delivered")
}

// Hostile names and URLs reach the section, the detail, the form and the
// questions without an escape sequence or a bidi override.
func TestWebhooksHostile(t *testing.T) {
	srv := startDemo(t, true)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 120, 60)
	hooks := srv.Webhooks()
	hooks[1].URL = "https://evil.example/\u202e\x1b]8;;x\x1b\\"
	srv.SetWebhooks(hooks)
	s.do("r")
	clean := func(where string) {
		t.Helper()
		raw := s.View()
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\u202e", "\u009b", "\u0085", "\x07"} {
			if strings.Contains(raw, bad) {
				t.Fatalf("%s holds %q:\n%s", where, bad, view(s))
			}
		}
	}
	toRow(t, s, "ops alerts")
	clean("the section and the detail")
	s.press("backspace")
	clean("the question")
	s.press("esc")
	toRow(t, s, "old pager")
	clean("the detail of a hostile URL")
	s.press("enter")
	clean("the form")
}

// TestWebhookFormFieldsReplace: the edit form opens on the name and URL
// held, each selected, so typing replaces it; the add form's "https://" is
// a start to type after, not a value to replace; the hint names ctrl+u.
func TestWebhookFormFieldsReplace(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 40)
	toRow(t, s, "ops alerts →")
	s.press("enter")
	s.typeText("ops")
	if v := s.hooks.form.name.Value(); v != "ops" {
		t.Fatalf("typing on the held name gave %q", v)
	}
	mustShow(t, s, "ctrl+u clears a field")
	s.press("esc")
	s.press("+")
	s.press("tab")
	s.typeText("hooks.example.com")
	if v := s.hooks.form.url.Value(); v != "https://hooks.example.com" {
		t.Fatalf("the add form's URL is %q", v)
	}
}

// A question that opens clears the words of what came before: the added
// webhook's secret hint stayed on the status line under the next question
// (here: delete another webhook).
func TestQuestionClearsTheHint(t *testing.T) {
	srv := startDemo(t, false)
	s := demoScreenSized(t, srv, demoserver.DemoKey, 100, 40)
	toRow(t, s, "ops alerts →")
	s.do("R")
	s.do("y")
	mustSay(t, s, shared.StatusOK, "rotated the secret of ops alerts")
	s.press("esc")
	toRow(t, s, "old pager →")
	s.press("backspace")
	mustShow(t, s, "Delete old pager → pager.example.invalid?")
	if s.status.Text != "" {
		t.Errorf("the status line still says %q under the question", s.status.Text)
	}
}
