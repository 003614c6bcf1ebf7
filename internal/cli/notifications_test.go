package cli

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// alertServer is the demo server without the settings and catalogue
// pacing, so one test can run the command several times in a row.
func alertServer(t *testing.T) *demoserver.Server {
	t.Helper()
	return startServer(t, demoserver.Options{Contracts: 10, SettingsThreshold: -1, TypesThreshold: -1})
}

func putsTo(srv *demoserver.Server, prefix string) []demoserver.Request {
	var out []demoserver.Request
	for _, q := range srv.Requests() {
		if q.Method == http.MethodPut && strings.HasPrefix(q.Path, prefix) {
			out = append(out, q)
		}
	}
	return out
}

func TestNotificationsAll(t *testing.T) {
	srv := alertServer(t)
	res := headless(t, srv, demoserver.DemoKey, "notifications", "--all")
	res.ok(t)
	lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
	if n := len(api.NewPrefs(srv.Prefs()).Paths()); len(lines) != n+1 {
		t.Fatalf("%d lines for %d switches and the threshold:\n%s", len(lines), n, res.out)
	}
	for i, want := range []string{
		"low-balance threshold: $50.00, enabled",
		"client.low_credit.email: on (Low credit by email)",
		"client.low_credit.webhooks: off (Low credit by webhooks)",
	} {
		if lines[i] != want {
			t.Errorf("line %d %q, want %q", i, lines[i], want)
		}
	}
	for _, want := range []string{"client.payment_failed.email: locked · always sent (Payment failed by email)\n",
		"host.machine_offline.webhooks: on (Machine offline by webhooks)\n", "marketing.newsletter.email: off (Newsletter by email)\n"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("no %q in\n%s", want, res.out)
		}
	}
}

// Without the catalogue every switch still prints, under its raw key, and
// stderr says why.
func TestNotificationsAllWithoutCatalogue(t *testing.T) {
	srv := alertServer(t)
	srv.AddFault(demoserver.Fault{Path: "/api/v0/notification-types", Status: 500, Body: `{"error":"boom"}`})
	res := headless(t, srv, demoserver.DemoKey, "notifications", "--all")
	res.ok(t)
	if !strings.Contains(res.out, "client.payment_failed.email: on (payment_failed by email)\n") || strings.Contains(res.out, "locked") {
		t.Errorf("stdout:\n%s", res.out)
	}
	if !strings.Contains(res.errOut, "raw keys shown") {
		t.Errorf("stderr %q", res.errOut)
	}
}

func TestNotificationsSet(t *testing.T) {
	srv := alertServer(t)
	before := api.NewPrefs(srv.Prefs())
	res := headless(t, srv, demoserver.DemoKey, "notifications",
		"--set", "client.instance_outbid.email=off", "--set", "host.payout_sent.webhooks=on")
	res.ok(t)
	want := "Low credit by email: on\nLow credit by webhooks: off\nInstance outbid by email: off\nPayout sent by webhooks: on\n"
	if res.out != want {
		t.Fatalf("stdout %q, want %q", res.out, want)
	}
	if n := len(putsTo(srv, "/api/v0/users/")); n != 1 {
		t.Fatalf("%d PUTs, want one for both", n)
	}
	next, _ := before.With(api.PrefPath{"client", "instance_outbid", "email"}, false)
	next, _ = next.With(api.PrefPath{"host", "payout_sent", "webhooks"}, true)
	got, _ := json.Marshal(srv.Prefs())
	wantDoc, _ := json.Marshal(next.Document())
	if string(got) != string(wantDoc) {
		t.Fatalf("server holds\n%s\nwant\n%s", got, wantDoc)
	}
}

// A locked switch and one the document does not hold are refused: exit 1,
// one line, nothing sent.
func TestNotificationsSetRefused(t *testing.T) {
	srv := alertServer(t)
	headless(t, srv, demoserver.DemoKey, "notifications", "--set", "client.payment_failed.email=off").
		failed(t, exitRuntime, "Payment failed by email is locked")
	headless(t, srv, demoserver.DemoKey, "notifications", "--set", "client.instance_outbd.email=off").
		failed(t, exitRuntime, "hold no switch client.instance_outbd.email")
	if n := len(putsTo(srv, "/")); n != 0 {
		t.Fatalf("%d PUTs", n)
	}
}

func TestNotificationsThreshold(t *testing.T) {
	srv := alertServer(t)
	res := headless(t, srv, demoserver.DemoKey, "notifications", "--threshold", "25.00", "--threshold-enabled", "off")
	res.ok(t)
	if res.out != "low-balance threshold: $25.00, disabled\n" {
		t.Fatalf("stdout %q", res.out)
	}
	puts := putsTo(srv, "/api/v0/users")
	if len(puts) != 1 || string(puts[0].Body) != `{"balance_threshold":25.00,"balance_threshold_enabled":false}` {
		t.Fatalf("PUTs %v", puts)
	}
	// Switching it back on alone sends the amount the server holds.
	headless(t, srv, demoserver.DemoKey, "notifications", "--threshold-enabled", "on").ok(t)
	if th, on := srv.BalanceThreshold(); th != 25000 || !on {
		t.Fatalf("server holds %d %v", th, on)
	}
	// With --all the threshold leads every switch.
	res = headless(t, srv, demoserver.DemoKey, "notifications", "--all", "--threshold", "30")
	res.ok(t)
	if !strings.HasPrefix(res.out, "low-balance threshold: $30.00, enabled\nclient.low_credit.email: on") {
		t.Fatalf("stdout %q", res.out)
	}
}

func TestNotificationsThresholdUsage(t *testing.T) {
	srv := alertServer(t)
	for args, want := range map[string]string{
		"--threshold -5":               `--threshold "-5": the threshold cannot be negative`,
		"--threshold 1.234":            "at most two decimals",
		"--threshold 2000000":          "at most $1,000,000.00",
		"--threshold-enabled maybe":    "want on or off",
		"--set client.x":               "want CONTEXT.TYPE.CHANNEL=on|off",
		"--set client.x.email=perhaps": "the value must be on or off",
	} {
		headless(t, srv, demoserver.DemoKey, append([]string{"notifications"}, strings.Fields(args)...)...).failed(t, exitUsage, want)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests for usage errors", n)
	}
}

// The account read after the save holds another value: it is printed, and
// the run fails saying so.
func TestNotificationsThresholdServerDisagrees(t *testing.T) {
	srv := alertServer(t)
	srv.AddFault(demoserver.Fault{Method: http.MethodGet, Path: "/api/v0/users/current", Times: 1})
	srv.AddFault(demoserver.Fault{Method: http.MethodGet, Path: "/api/v0/users/current", Mutate: func(b []byte) []byte {
		return regexp.MustCompile(`"balance_threshold":[0-9.]+`).ReplaceAll(b, []byte(`"balance_threshold":30`))
	}})
	res := headless(t, srv, demoserver.DemoKey, "notifications", "--threshold", "25")
	if res.code != exitRuntime || res.out != "low-balance threshold: $30.00, enabled\n" ||
		!strings.Contains(res.errOut, "the server holds the low-balance threshold $30.00, enabled, not what was sent ($25.00)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.out, res.errOut)
	}
}

// A PUT that never answers: the account is read again, printed, and the
// line says the change did not take; exit 1.
func TestNotificationsThresholdTimeout(t *testing.T) {
	srv := alertServer(t)
	srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: "/api/v0/users", Hang: true})
	res := headlessWith(t, srv, demoserver.DemoKey, func(r *env) {
		r.clientOptions = append(r.clientOptions, api.WithTimeout(300*time.Millisecond))
	}, "notifications", "--threshold", "25")
	if res.code != exitRuntime || res.out != "low-balance threshold: $50.00, enabled\n" ||
		!strings.Contains(res.errOut, "read again, the server holds the low-balance threshold $50.00, enabled, not what was sent ($25.00): not saved") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.out, res.errOut)
	}
}

// Every name the server sent — catalogue names, document keys — reaches
// stdout stripped of escapes and controls.
func TestNotificationsAllHostile(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10, SettingsThreshold: -1, TypesThreshold: -1, Hostile: true})
	res := headless(t, srv, demoserver.DemoKey, "notifications", "--all")
	res.ok(t)
	if strings.ContainsAny(res.out, "\x1b\x07\u202e\u009b") {
		t.Fatalf("unsafe output: %q", res.out)
	}
	if n := len(api.NewPrefs(srv.Prefs()).Paths()); strings.Count(res.out, "\n") != n+1 {
		t.Fatalf("%d lines for %d switches:\n%s", strings.Count(res.out, "\n"), n, res.out)
	}
}

func TestNotificationsPutsTheWholeDocument(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	before := srv.Prefs()

	res := headless(t, srv, demoserver.DemoKey, "notifications")
	res.ok(t)
	if res.out != "Low credit by email: on\nLow credit by webhooks: off\n" {
		t.Fatalf("stdout %q", res.out)
	}

	srv.ResetRequests()
	res = headless(t, srv, demoserver.DemoKey, "notifications", "--webhooks", "on")
	res.ok(t)
	if res.out != "Low credit by email: on\nLow credit by webhooks: on\n" {
		t.Fatalf("stdout %q", res.out)
	}
	next, err := api.NewPrefs(before).With(api.LowCreditWebhooks, true)
	if err != nil {
		t.Fatal(err)
	}
	want := next.Document()
	wantJSON, _ := json.Marshal(want)
	gotJSON, _ := json.Marshal(srv.Prefs())
	if string(gotJSON) != string(wantJSON) {
		t.Fatalf("server holds\n%s\nwant the old document with webhooks on\n%s", gotJSON, wantJSON)
	}
	var puts []demoserver.Request
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPut {
			puts = append(puts, r)
		}
	}
	if len(puts) != 1 {
		t.Fatalf("%d PUTs", len(puts))
	}
	var body struct {
		Prefs map[string]any `json:"notification_preferences"`
	}
	if err := json.Unmarshal(puts[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(body.Prefs); string(b) != string(wantJSON) {
		t.Fatalf("PUT body %s, want %s", b, wantJSON)
	}

	// Asking for the state it already has sends nothing.
	srv.ResetRequests()
	headless(t, srv, demoserver.DemoKey, "notifications", "--webhooks", "on", "--email", "on").ok(t)
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPut {
			t.Fatal("PUT for a switch already in that state")
		}
	}
}

func TestNotificationsWithoutGETNeedForce(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	srv.SetPrefsGET(false)
	before := srv.Prefs()

	headless(t, srv, demoserver.DemoKey, "notifications", "--email", "off").failed(t, 1, "--force")
	headless(t, srv, demoserver.DemoKey, "notifications").failed(t, 1, "cannot read")
	if !reflect.DeepEqual(srv.Prefs(), before) {
		t.Fatal("saved without --force")
	}

	res := headless(t, srv, demoserver.DemoKey, "notifications", "--email", "off", "--force")
	res.ok(t)
	if res.out != "Low credit by email: off\nLow credit by webhooks: not set\n" {
		t.Fatalf("stdout %q", res.out)
	}
	want := map[string]any{"client": map[string]any{"low_credit": map[string]any{"email": false}}}
	if got := srv.Prefs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("server holds %v, want %v", got, want)
	}
}

// TestNotificationsJSON: notifications takes the one machine switch
// (--output json, --json): the threshold and the switches it prints as
// text, each with its path, name, channel, state and lock, indented as
// every command's JSON; after a change, what the server then holds.
func TestNotificationsJSON(t *testing.T) {
	srv := alertServer(t)
	type doc struct {
		Threshold *struct {
			Amount  *json.Number `json:"amount"`
			Enabled *bool        `json:"enabled"`
		} `json:"threshold"`
		Switches []struct {
			Path, Name, Channel string
			On                  *bool
			Locked              bool
		} `json:"switches"`
	}
	read := func(res result) doc {
		t.Helper()
		res.ok(t)
		var d doc
		if err := json.Unmarshal([]byte(res.out), &d); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, res.out)
		}
		if !strings.HasPrefix(res.out, "{\n  \"threshold\": {\n    \"amount\": ") || !strings.Contains(res.out, "\n  \"switches\": [\n    {\n      \"path\": ") {
			t.Errorf("not indented as the other commands' JSON:\n%s", res.out)
		}
		return d
	}
	d := read(headless(t, srv, demoserver.DemoKey, "notifications", "--json"))
	if d.Threshold == nil || d.Threshold.Amount == nil || d.Threshold.Amount.String() != "50.000" || d.Threshold.Enabled == nil || !*d.Threshold.Enabled {
		t.Errorf("threshold %+v", d.Threshold)
	}
	if len(d.Switches) != 2 {
		t.Fatalf("%d switches, want the two low-credit ones: %+v", len(d.Switches), d.Switches)
	}
	if s := d.Switches[1]; s.Path != "client.low_credit.webhooks" || s.Name != "Low credit" || s.Channel != "webhooks" || s.On == nil || *s.On || s.Locked {
		t.Errorf("switch %+v", s)
	}

	all := read(headless(t, srv, demoserver.DemoKey, "notifications", "--all", "--output", "json"))
	if n := len(api.NewPrefs(srv.Prefs()).Paths()); len(all.Switches) != n {
		t.Fatalf("%d switches with --all, the document holds %d", len(all.Switches), n)
	}
	locked := false
	for _, s := range all.Switches {
		locked = locked || (s.Path == "client.payment_failed.email" && s.Locked && s.Name == "Payment failed")
	}
	if !locked {
		t.Errorf("payment failed by email is not locked: %+v", all.Switches)
	}

	set := read(headless(t, srv, demoserver.DemoKey, "notifications", "--webhooks", "on", "--threshold", "20", "--json"))
	if set.Threshold == nil || set.Threshold.Amount.String() != "20.000" || len(set.Switches) != 2 || !*set.Switches[1].On {
		t.Errorf("after the change: %+v", set)
	}
	headless(t, srv, demoserver.DemoKey, "notifications", "--json", "--output", "text").failed(t, exitUsage, "json")
}

// notifications --webhooks on was silent when no webhook carried
// client:low_credit, while the dashboard says so: the alert goes nowhere.
// It says so on stderr in one line pointing at webhooks add, the answer
// and the exit code unchanged — in words true of the account: the demo's
// webhooks carry other alerts, so "no webhook takes" it (issue 33: it said
// "no webhook registered"), and with none at all "no webhook registered";
// a webhook for the event, or the switch off, says nothing and reads no
// webhooks.
func TestWebhooksSwitchWithNoWebhookSaysSo(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10, SettingsThreshold: -1, TypesThreshold: -1, WebhooksThreshold: -1})
	const want = "vastdash: no webhook takes client:low_credit (those registered carry other alerts): this alert is delivered nowhere — " +
		"vastdash webhooks add registers one for it; vastdash webhooks edit ID --event (its events and this one) gives it to one\n"
	res := headless(t, srv, demoserver.DemoKey, "notifications", "--webhooks", "on")
	res.ok(t)
	if !strings.Contains(res.out, "Low credit by webhooks: on") || res.errOut != want {
		t.Fatalf("stdout %q, stderr %q; want the switch on and %q", res.out, res.errOut, want)
	}
	listed := headless(t, srv, demoserver.DemoKey, "notifications")
	listed.ok(t)
	if listed.errOut != want {
		t.Errorf("listed on: stderr %q, want %q", listed.errOut, want)
	}

	srv.SetWebhooks(nil)
	none := headless(t, srv, demoserver.DemoKey, "notifications")
	none.ok(t)
	if w := "vastdash: no webhook registered carries client:low_credit: this alert is delivered nowhere — vastdash webhooks add registers one\n"; none.errOut != w {
		t.Errorf("no webhook at all: stderr %q, want %q", none.errOut, w)
	}

	srv.SetWebhooks([]demoserver.WebhookTruth{{ID: 7, Name: "pager", URL: "https://hooks.example.com/low", Events: []string{"client:low_credit"}}})
	heard := headless(t, srv, demoserver.DemoKey, "notifications")
	heard.ok(t)
	if heard.errOut != "" {
		t.Errorf("with a webhook for it: stderr %q, want nothing", heard.errOut)
	}
	srv.SetWebhooks(nil)
	before := len(srv.Requests())
	off := headless(t, srv, demoserver.DemoKey, "notifications", "--webhooks", "off")
	off.ok(t)
	if off.errOut != "" {
		t.Errorf("switched off: stderr %q, want nothing", off.errOut)
	}
	for _, q := range srv.Requests()[before:] {
		if strings.HasPrefix(q.Path, api.WebhooksPath) {
			t.Errorf("switched off, the webhooks were read: %s", q.Path)
		}
	}
}
