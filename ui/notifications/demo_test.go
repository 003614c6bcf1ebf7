package notifications

import (
	"context"
	"maps"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// The tests below run the screen against the demo server, which was written
// from the spec alone: they check the screen and the client together.

func startDemo(t *testing.T, hostile bool) *demoserver.Server {
	t.Helper()
	s, err := demoserver.Start(demoserver.Options{
		Now:       time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC),
		Contracts: 50,
		Threshold: -1, SettingsThreshold: -1, TypesThreshold: -1, InstancesThreshold: -1, WebhooksThreshold: -1, // not about pacing
		Hostile: hostile,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// demoScreen reads the account with key, as the root does, and hands it to
// a new 100×30 screen whose GET has finished.
func demoScreen(t *testing.T, s *demoserver.Server, key string) *screen {
	t.Helper()
	return demoScreenSized(t, s, key, 100, 30)
}

// demoScreenSized is demoScreen at w×h, on a client that does not pace
// (the server does not either), so a test can save several times without
// waiting the documented 5 s.
func demoScreenSized(t *testing.T, s *demoserver.Server, key string, w, h int) *screen {
	t.Helper()
	m, u := demoScreenBare(t, s, key, w, h)
	m.send(shared.UserMsg{User: u})
	m.deliver()
	return m
}

// demoScreenBare is the screen against s before the account reached it,
// and that account: the test decides when the read it starts lands. opts
// are added to the client's.
func demoScreenBare(t *testing.T, s *demoserver.Server, key string, w, h int, opts ...api.Option) (*screen, api.User) {
	t.Helper()
	return demoScreenKeys(t, s, key, w, h, nil, opts...)
}

// demoScreenKeys is demoScreenBare with the keys bound as keys binds them
// (nil: the defaults).
func demoScreenKeys(t *testing.T, s *demoserver.Server, key string, w, h int, keys keymap.Bindings, opts ...api.Option) (*screen, api.User) {
	t.Helper()
	c, err := api.New(s.URL(), key, append([]api.Option{api.WithChargesThreshold(0), api.WithTimeout(5 * time.Second),
		api.WithEndpointThreshold(api.SettingsPath, 0), api.WithEndpointThreshold(api.NotificationTypesPath, 0),
		api.WithEndpointThreshold(api.WebhooksPath, 0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	svc := newService(t, ctx, c)
	u, err := svc.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := newScreen(t, screentest.Context(ctx, svc, screentest.Styles(theme.New(false)), screentest.Keys(keys)))
	m.SetSize(w, h)
	return m, u
}

// flipped is doc with client.low_credit.<channel> set to on.
func flipped(doc map[string]any, channel string, on bool) map[string]any {
	out := maps.Clone(doc)
	client := maps.Clone(out["client"].(map[string]any))
	lc := maps.Clone(client["low_credit"].(map[string]any))
	lc[channel] = on
	client["low_credit"] = lc
	out["client"] = client
	return out
}

func TestDemoToggleKeepsEverythingElse(t *testing.T) {
	for _, hostile := range []bool{false, true} {
		s := startDemo(t, hostile)
		before := s.Prefs()
		m := demoScreen(t, s, demoserver.DemoKey)
		if stateOf(t, m, email) != "[x] on" || stateOf(t, m, webhooks) != "[ ] off" {
			t.Fatalf("hostile=%v: states read:\n%s", hostile, view(m))
		}
		m.press("j")
		m.do("space")
		if got, want := s.Prefs(), flipped(before, "webhooks", true); !reflect.DeepEqual(got, want) {
			t.Errorf("hostile=%v: server holds %v\nwant %v", hostile, got, want)
		}
		if stateOf(t, m, webhooks) != "[x] on" {
			t.Errorf("hostile=%v:\n%s", hostile, view(m))
		}
	}
}

func TestDemoReadOnlyKey(t *testing.T) {
	s := startDemo(t, false)
	before := s.Prefs()
	m := demoScreen(t, s, demoserver.KeyReadOnly)
	m.do("space")
	mustShow(t, m, "this API key lacks the user_write permission — switches are read-only")
	if stateOf(t, m, email) != "[x] on" {
		t.Errorf("state not kept:\n%s", view(m))
	}
	if !reflect.DeepEqual(s.Prefs(), before) {
		t.Error("a read-only key changed the preferences")
	}
	if s.CountStatus(http.StatusUnauthorized) != 1 {
		t.Errorf("%d refused requests, want the one PUT", s.CountStatus(http.StatusUnauthorized))
	}
}

func TestDemoWithoutGet(t *testing.T) {
	s := startDemo(t, false)
	s.SetPrefsGET(false)
	m := demoScreen(t, s, demoserver.DemoKey)
	if stateOf(t, m, email) != "[?] unknown" {
		t.Fatalf("without GET:\n%s", view(m))
	}
	m.press("space")
	m.do("y")
	// As the prompt warned: the whole document is now the one switch.
	want := map[string]any{"client": map[string]any{"low_credit": map[string]any{"email": true}}}
	if got := s.Prefs(); !reflect.DeepEqual(got, want) {
		t.Errorf("server holds %v, want %v", got, want)
	}
	if stateOf(t, m, email) != "[x] on" || stateOf(t, m, webhooks) != "[?] unknown" {
		t.Errorf("after the save:\n%s", view(m))
	}
}

// The bug of issue 9 against the demo server: the web console (here a
// second client with the same key) changes another category and adds a new
// one after the screen read the document; the next toggle keeps both.
func TestDemoKeepsConsoleChanges(t *testing.T) {
	s := startDemo(t, false)
	m := demoScreen(t, s, demoserver.DemoKey)

	console, err := api.New(s.URL(), demoserver.DemoKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc, err := console.NotificationPrefs(ctx, s.UserID())
	if err != nil {
		t.Fatal(err)
	}
	for _, sw := range []notices.Switch{
		{Path: api.PrefPath{"host", "payout_sent", "email"}, On: false},
		{Path: api.PrefPath{"team", "invite", "email"}, On: true},
	} {
		if doc, err = doc.With(sw.Path, sw.On); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := console.SetNotificationPrefs(ctx, s.UserID(), doc); err != nil {
		t.Fatal(err)
	}
	before := s.Prefs()
	if _, ok := before["team"]; !ok {
		t.Fatalf("the console's save did not land: %v", before)
	}

	m.press("j")
	m.do("space")
	if got, want := s.Prefs(), flipped(before, "webhooks", true); !reflect.DeepEqual(got, want) {
		t.Errorf("the toggle reverted the console's changes:\nserver holds %v\nwant         %v", got, want)
	}
	if stateOf(t, m, webhooks) != "[x] on" {
		t.Errorf("after the save:\n%s", view(m))
	}
}
