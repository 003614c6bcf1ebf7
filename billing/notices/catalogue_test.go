package notices

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// labels lists the switches' group and label, in display order.
func labels(as Alerts) []string {
	var out []string
	for _, sw := range as.Switches() {
		l := as.Groups[sw.Group].Name + ": " + sw.Label
		if sw.Channel.Locked {
			l += " (locked)"
		}
		out = append(out, l)
	}
	return out
}

func TestListAlertsNamesGroupsAndLocks(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	ctx := context.Background()
	doc, err := ReadPrefs(ctx, s, srv.UserID())
	if err != nil {
		t.Fatal(err)
	}
	cat, cerr := s.Catalogue(ctx, false)
	as := ListAlerts(doc, cat, cerr)
	got := labels(as)
	if len(got) != len(doc.Paths()) {
		t.Fatalf("%d switches listed, the document holds %d:\n%s", len(got), len(doc.Paths()), strings.Join(got, "\n"))
	}
	want := []string{
		"client: Low credit by email", "client: Low credit by webhooks",
		"client: Payment receipt by email",
	}
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("switch %d is %q, want %q:\n%s", i, got[i], w, strings.Join(got, "\n"))
		}
	}
	all := strings.Join(got, "\n")
	for _, w := range []string{"client: Payment failed by email (locked)", "client: Payment failed by webhooks\n",
		"host: Machine offline by email", "marketing: Newsletter by email"} {
		if !strings.Contains(all+"\n", w) {
			t.Errorf("no %q in\n%s", w, all)
		}
	}
	if n := strings.Count(all, "(locked)"); n != 1 {
		t.Errorf("%d locked switches, want 1 (payment_failed by email)", n)
	}
	var order []string
	for _, g := range as.Groups {
		order = append(order, g.Name)
	}
	if strings.Join(order, ",") != "client,host,marketing" {
		t.Errorf("groups %v", order)
	}
}

// A catalogue that fails, refuses or sends garbage never hides a switch:
// the raw keys are shown, and nothing is locked.
func TestListAlertsWithoutCatalogue(t *testing.T) {
	faults := map[string]demoserver.Fault{
		"404":     {Status: 404, Body: `{"success":false,"error":"not_found"}`},
		"500":     {Status: 500, Body: `{"error":"boom"}`},
		"403":     {Status: 403, Body: `{"success":false,"error":"permission_denied","msg":"needs user_read"}`},
		"garbage": {Mutate: func([]byte) []byte { return []byte(`{"success":true,"notification_types":{"a":1}}`) }},
	}
	for name, f := range faults {
		t.Run(name, func(t *testing.T) {
			srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
			f.Path = "/api/v0/notification-types"
			srv.AddFault(f)
			ctx := context.Background()
			doc, err := ReadPrefs(ctx, s, srv.UserID())
			if err != nil {
				t.Fatal(err)
			}
			cat, cerr := s.Catalogue(ctx, false)
			if cerr == nil {
				t.Fatal("the fault did not fail the catalogue")
			}
			as := ListAlerts(doc, cat, cerr)
			got := labels(as)
			if len(got) != len(doc.Paths()) || as.Named || as.CatalogueErr == nil {
				t.Fatalf("%d of %d switches, named %v:\n%s", len(got), len(doc.Paths()), as.Named, strings.Join(got, "\n"))
			}
			all := strings.Join(got, "\n")
			if !strings.Contains(all, "client: payment_failed by email\n") || strings.Contains(all, "locked") {
				t.Errorf("want raw keys and no lock:\n%s", all)
			}
			// A save of the switch the catalogue would lock goes ahead: nothing
			// is known to be locked.
			if _, err := SaveSwitches(ctx, s, srv.UserID(), []Switch{{Path: api.PrefPath{"client", "payment_failed", "email"}, On: false}}, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Hostile and huge values from either source are bounded and sanitized.
func TestListAlertsBoundsAndSanitizes(t *testing.T) {
	doc := map[string]any{}
	client := map[string]any{"low_credit": map[string]any{"email": true, "webhooks": false}}
	for i := 0; i < MaxAlertTypes+50; i++ {
		client[fmt.Sprintf("t%04d", i)] = map[string]any{"email": true}
	}
	many := map[string]any{}
	for i := 0; i < MaxAlertChannels+5; i++ {
		many[fmt.Sprintf("ch%02d", i)] = true
	}
	doc["aa\x1b]0;pwned\x07"+strings.Repeat("x", 5000)] = map[string]any{"many\u202e": many}
	doc["client"] = client
	cat := api.NotificationCatalogue{Types: []api.NotificationType{
		{Key: "client:t0001", Context: "client", Slug: "t0001", DisplayName: "\x1b[2JEvil\u202e name " + strings.Repeat("é", 500)},
	}}
	as := ListAlerts(api.NewPrefs(doc), cat, nil)
	types := 0
	for _, g := range as.Groups {
		types += len(g.Alerts)
		for _, a := range g.Alerts {
			if len(a.Channels) > MaxAlertChannels {
				t.Errorf("%d channels of %q", len(a.Channels), a.Name)
			}
		}
	}
	if types > MaxAlertTypes || as.Hidden == 0 {
		t.Errorf("%d types listed, %d hidden", types, as.Hidden)
	}
	for _, sw := range as.Switches() {
		for _, s := range []string{sw.Label, as.Groups[sw.Group].Name, sw.Channel.Name} {
			if strings.ContainsAny(s, "\x1b\x07\u202e") || utf8.RuneCountInString(s) > 2*maxNameRunes+4 {
				t.Fatalf("unsafe or unbounded name %q", s)
			}
		}
	}
	if got := labels(as)[0]; got != "client: Low credit by email" {
		t.Errorf("first switch %q", got)
	}
}

// A switch the catalogue marks mandatory by email is refused before
// anything is read or sent, with an error that says why.
func TestSaveSwitchesRefusesLocked(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	before := srv.Prefs()
	_, err := SaveSwitches(context.Background(), s, srv.UserID(),
		[]Switch{{Path: api.PrefPath{"client", "payment_failed", "email"}, On: false}}, false)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "Payment failed by email is locked") {
		t.Fatalf("err %v", err)
	}
	for _, q := range srv.Requests() {
		if q.Method == http.MethodPut || strings.Contains(q.Path, "notification-prefs") {
			t.Errorf("%s %s after a refusal", q.Method, q.Path)
		}
	}
	if fmt.Sprint(before) != fmt.Sprint(srv.Prefs()) {
		t.Error("the document changed")
	}
}

// Any channel is saved the same fresh way as low_credit: read, change the
// one switch, write.
func TestSaveAnySwitchFresh(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	ctx := context.Background()
	id := srv.UserID()
	other, _ := api.New(srv.URL(), demoserver.DemoKey)
	doc, _ := other.NotificationPrefs(ctx, id)
	doc, _ = doc.With(api.LowCreditEmail, false) // meanwhile, elsewhere
	if _, err := other.SetNotificationPrefs(ctx, id, doc); err != nil {
		t.Fatal(err)
	}
	p := api.PrefPath{"host", "machine_offline", "webhooks"}
	res, err := SaveSwitches(ctx, s, id, []Switch{{Path: p, On: false}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if on, ok := res.Prefs.Get(p); !ok || on {
		t.Fatalf("machine_offline webhooks %v %v", on, ok)
	}
	if on, _ := api.NewPrefs(srv.Prefs()).Get(api.LowCreditEmail); on {
		t.Fatal("the save reverted a change made elsewhere")
	}
}

// The catalogue is read once a session; a refresh reads it again.
func TestCatalogueReadOnce(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	ctx := context.Background()
	count := func() int {
		n := 0
		for _, q := range srv.Requests() {
			if strings.Contains(q.Path, "notification-types") {
				n++
			}
		}
		return n
	}
	for i := 0; i < 3; i++ {
		if _, err := s.Catalogue(ctx, false); err != nil {
			t.Fatal(err)
		}
	}
	if count() != 1 {
		t.Fatalf("%d catalogue requests, want 1", count())
	}
	if _, err := s.Catalogue(ctx, true); err != nil || count() != 2 {
		t.Fatalf("refresh: %v, %d requests", err, count())
	}
}

func TestParseSwitch(t *testing.T) {
	sw, err := ParseSwitch("client.instance_outbid.email=off")
	if err != nil || sw.Path != (api.PrefPath{"client", "instance_outbid", "email"}) || sw.On {
		t.Fatalf("%+v %v", sw, err)
	}
	if sw, err := ParseSwitch("host.machine_offline.webhooks=ON"); err != nil || !sw.On {
		t.Fatalf("%+v %v", sw, err)
	}
	for _, bad := range []string{"", "client.x=on", "client.x.email", "client.x.email=maybe", "a..b=on", "a.b.c.d=on"} {
		if _, err := ParseSwitch(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSwitch(%q) = %v", bad, err)
		}
	}
}

// A switch the document does not hold is a typo: refused, nothing sent.
// low_credit's are exempt (a document without them gets them).
func TestSaveSwitchesRefusesUnknown(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	ctx := context.Background()
	_, err := SaveSwitches(ctx, s, srv.UserID(), []Switch{{Path: api.PrefPath{"client", "instance_outbd", "email"}, On: false}}, false)
	if !errors.Is(err, ErrNoSuchSwitch) || !strings.Contains(err.Error(), "client.instance_outbd.email") {
		t.Fatalf("err %v", err)
	}
	for _, q := range srv.Requests() {
		if q.Method == http.MethodPut {
			t.Fatal("a PUT for a switch the document does not hold")
		}
	}
}
