package notices

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
)

// hooked starts the demo server and a service with nothing paced and the
// names of fakeDNS resolved.
func hooked(t *testing.T, timeout time.Duration) (*demoserver.Server, *billing.Service, *fakeDNS) {
	t.Helper()
	srv, err := demoserver.Start(demoserver.Options{Contracts: 40, Threshold: -1, TypesThreshold: -1, WebhooksThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithTimeout(timeout),
		api.WithEndpointThreshold(api.NotificationTypesPath, 0), api.WithEndpointThreshold(api.WebhooksPath, 0),
		api.WithBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	dns := &fakeDNS{names: map[string][]netip.Addr{
		"hooks.example.com":    {netip.MustParseAddr("93.184.216.34")},
		"intranet.example.com": {netip.MustParseAddr("93.184.216.35"), netip.MustParseAddr("10.0.0.5")},
		"rebind.example.com":   {netip.MustParseAddr("::ffff:127.0.0.1")},
	}}
	s := billing.New(context.Background(), client, billing.WithLocation(time.UTC), billing.WithClock(srv.Now), billing.WithResolver(dns.lookup))
	t.Cleanup(s.Close)
	return srv, s, dns
}

// fakeDNS answers the names it holds and fails the rest, counting asks.
type fakeDNS struct {
	mu    sync.Mutex
	names map[string][]netip.Addr
	asked []string
}

func (d *fakeDNS) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, host)
	if a, ok := d.names[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

// webhookCalls are the requests to the webhooks paths, as "METHOD path".
func webhookCalls(srv *demoserver.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/api/v0/webhooks") {
			out = append(out, r.Method+" "+strings.TrimSuffix(r.Path, "/"))
		}
	}
	return out
}

var lowCredit = []string{"client:low_credit"}

// Every bad input of the issue is refused with its reason before any
// request to the webhooks endpoints.
func TestAddWebhookRefusesBadInput(t *testing.T) {
	long := "https://hooks.example.com/" + strings.Repeat("a", 2048-len("https://hooks.example.com/")+1)
	rows := []struct {
		name string
		in   WebhookInput
		want string
	}{
		{"http", WebhookInput{"n", "http://hooks.example.com/x", lowCredit}, "must begin with https://"},
		{"no scheme", WebhookInput{"n", "hooks.example.com/x", lowCredit}, "must begin with https://"},
		{"ftp", WebhookInput{"n", "ftp://hooks.example.com/x", lowCredit}, "https"},
		{"2049 characters", WebhookInput{"n", long, lowCredit}, "2049 characters long; the platform takes at most 2048"},
		{"user and password", WebhookInput{"n", "https://bob:hunter2@hooks.example.com/x", lowCredit}, "credentials"},
		{"user only", WebhookInput{"n", "https://token@hooks.example.com/x", lowCredit}, "credentials"},
		{"loopback", WebhookInput{"n", "https://127.0.0.1/x", lowCredit}, "127.0.0.1, a loopback address"},
		{"loopback v6", WebhookInput{"n", "https://[::1]:8443/x", lowCredit}, "loopback"},
		{"mapped loopback", WebhookInput{"n", "https://[::ffff:127.0.0.1]/x", lowCredit}, "loopback"},
		{"private 10", WebhookInput{"n", "https://10.1.2.3/x", lowCredit}, "private address"},
		{"private 192.168", WebhookInput{"n", "https://192.168.0.10/x", lowCredit}, "private address"},
		{"private 172.16", WebhookInput{"n", "https://172.20.0.1/x", lowCredit}, "private address"},
		{"ula", WebhookInput{"n", "https://[fd00::1]/x", lowCredit}, "private address"},
		{"metadata", WebhookInput{"n", "https://169.254.169.254/latest", lowCredit}, "link-local"},
		{"unspecified", WebhookInput{"n", "https://0.0.0.0/x", lowCredit}, "unspecified"},
		{"cgnat", WebhookInput{"n", "https://100.64.1.1/x", lowCredit}, "reserved"},
		{"nat64 of private", WebhookInput{"n", "https://[64:ff9b::a00:1]/x", lowCredit}, "private address"},
		{"localhost", WebhookInput{"n", "https://localhost:3000/x", lowCredit}, "loopback name"},
		{"sub.localhost", WebhookInput{"n", "https://api.localhost./x", lowCredit}, "loopback name"},
		{"decimal address", WebhookInput{"n", "https://2130706433/x", lowCredit}, "written as a number"},
		{"short address", WebhookInput{"n", "https://127.1/x", lowCredit}, "written as a number"},
		{"hex address", WebhookInput{"n", "https://0x7f.0x0.0x0.0x1/x", lowCredit}, "written as a number"},
		{"resolves to private", WebhookInput{"n", "https://intranet.example.com/x", lowCredit}, "intranet.example.com resolves to 10.0.0.5, a private address"},
		{"resolves to mapped loopback", WebhookInput{"n", "https://rebind.example.com/x", lowCredit}, "loopback"},
		{"space", WebhookInput{"n", "https://hooks.example.com/a b", lowCredit}, "spaces or control"},
		{"escape", WebhookInput{"n", "https://hooks.example.com/\x1b[2J", lowCredit}, "spaces or control"},
		{"no host", WebhookInput{"n", "https:///x", lowCredit}, "no host"},
		{"empty url", WebhookInput{"n", "", lowCredit}, "type the URL"},
		{"name 121", WebhookInput{strings.Repeat("é", 121), "https://hooks.example.com/x", lowCredit}, "121 characters long; the platform takes at most 120"},
		{"no name", WebhookInput{"  ", "https://hooks.example.com/x", lowCredit}, "give the webhook a name"},
		{"name escape", WebhookInput{"ops\x1b]0;x\x07", "https://hooks.example.com/x", lowCredit}, "control characters"},
		{"no event", WebhookInput{"n", "https://hooks.example.com/x", nil}, "at least one event"},
		{"blank event", WebhookInput{"n", "https://hooks.example.com/x", []string{" "}}, "at least one event"},
		{"unknown event", WebhookInput{"n", "https://hooks.example.com/x", []string{"client:low_credit", "client:low_credits"}}, `"client:low_credits" is not an event of the notification catalogue (did you mean client:low_credit?)`},
		{"unknown far event", WebhookInput{"n", "https://hooks.example.com/x", []string{"zzz"}}, `"zzz" is not an event`},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			srv, s, _ := hooked(t, 5*time.Second)
			res, err := AddWebhook(context.Background(), s, row.in, nil)
			if err == nil || !strings.Contains(err.Error(), row.want) || !errors.Is(err, ErrWebhookInput) {
				t.Fatalf("error %v, want an input error saying %q", err, row.want)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "\x1b") {
				t.Errorf("the error repeats what it must not: %q", err)
			}
			if calls := webhookCalls(srv); len(calls) != 0 || !res.Secret.IsZero() || res.Read {
				t.Fatalf("requests %v, result %+v", calls, res)
			}
			if n := len(srv.Webhooks()); n != 2 {
				t.Fatalf("the server holds %d webhooks", n)
			}
		})
	}
}

// A host that resolves only to public addresses, or not at all, goes to
// the platform (which checks again); without a resolver nothing is looked
// up.
func TestCheckWebhookLooksUpNames(t *testing.T) {
	_, s, dns := hooked(t, 5*time.Second)
	ctx := context.Background()
	for _, u := range []string{"https://hooks.example.com/a", "https://unknown.example.net/a", "https://93.184.216.34/a", "HTTPS://Hooks.Example.com:8443/a?x=1"} {
		if _, err := CheckWebhook(ctx, s, WebhookInput{"n", u, lowCredit}); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	if strings.Join(dns.asked, ",") != "hooks.example.com,unknown.example.net,hooks.example.com" {
		t.Fatalf("asked %v", dns.asked)
	}
	off := billing.New(context.Background(), s.Client(), billing.WithResolver(nil))
	defer off.Close()
	if _, err := CheckWebhook(ctx, off, WebhookInput{"n", "https://intranet.example.com/a", lowCredit}); err != nil {
		t.Fatalf("without a resolver: %v", err)
	}
	if len(dns.asked) != 3 {
		t.Fatal("a service without a resolver looked a name up")
	}
}

// Only a public address may receive deliveries: IPv4 that is global
// unicast outside the special-purpose ranges (documentation, benchmarking,
// shared CGNAT, 6to4 relays), IPv6 inside global unicast 2000::/3 outside
// its special ones — an IPv4 address written inside IPv6 (compatible,
// translated, NAT64) is no way around the check.
func TestParseWebhookURLOnlyPublicAddresses(t *testing.T) {
	for _, host := range []string{
		"[::127.0.0.1]", "[::ffff:0:7f00:1]", "[::ffff:0:808:808]", "[::8.8.8.8]",
		"[64:ff9b::808:808]", "[64:ff9b::a00:1]", "[64:ff9b:1::808:808]",
		"[100::1]", "[2001::1]", "[2001:2::1]", "[2001:db8::1]", "[3fff::1]", "[5f00::1]", "[4000::1]",
		"[2002:a00:1::1]", "[fec0::1]", "[ff02::1]", "[fe80::1%25eth0]",
		"192.0.2.1", "198.51.100.7", "203.0.113.9", "198.18.0.1", "198.19.255.1", "100.64.0.1", "192.88.99.1",
		"192.0.0.8", "0.1.2.3", "240.0.0.1", "255.255.255.255", "224.0.0.1",
	} {
		if _, err := ParseWebhookURL("https://" + host + "/x"); err == nil || !strings.Contains(err.Error(), "not a public one") {
			t.Errorf("%s: %v", host, err)
		}
	}
	for _, host := range []string{"93.184.216.34", "8.8.8.8", "[2606:4700:4700::1111]", "[2001:4860:4860::8888]", "[2002:808:808::1]", "[2620:4f:8000::1]"} {
		if _, err := ParseWebhookURL("https://" + host + "/x"); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
}

// A name a DNS64 resolver answers with the NAT64 form of a public IPv4
// address is public: only its IPv4 address is judged.
func TestCheckWebhookNAT64Names(t *testing.T) {
	_, s, dns := hooked(t, 5*time.Second)
	dns.names["v6only.example.com"] = []netip.Addr{netip.MustParseAddr("64:ff9b::5db8:d822")}
	dns.names["v6private.example.com"] = []netip.Addr{netip.MustParseAddr("64:ff9b::a00:5")}
	ctx := context.Background()
	if _, err := CheckWebhook(ctx, s, WebhookInput{"n", "https://v6only.example.com/a", lowCredit}); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckWebhook(ctx, s, WebhookInput{"n", "https://v6private.example.com/a", lowCredit}); err == nil || !strings.Contains(err.Error(), "private address") {
		t.Fatalf("error %v", err)
	}
}

// Without the catalogue the events cannot be checked: the add is refused
// and says why.
func TestAddWebhookNeedsTheCatalogue(t *testing.T) {
	srv, s, _ := hooked(t, 5*time.Second)
	srv.AddFault(demoserver.Fault{Path: "/api/v0/notification-types", Status: 500, Body: `{"msg":"down"}`})
	_, err := AddWebhook(context.Background(), s, WebhookInput{"n", "https://hooks.example.com/a", lowCredit}, nil)
	if err == nil || !strings.Contains(err.Error(), "the events cannot be checked") || errors.Is(err, ErrWebhookInput) {
		t.Fatalf("error %v", err)
	}
	if calls := webhookCalls(srv); len(calls) != 0 {
		t.Fatalf("requests %v", calls)
	}
}

// An add is one create between two reads of the list; its secret is the
// server's and the webhook comes back as the list holds it.
func TestAddWebhook(t *testing.T) {
	srv, s, _ := hooked(t, 5*time.Second)
	res, err := AddWebhook(context.Background(), s, WebhookInput{" low credit ", "https://hooks.example.com/lc", []string{"client:low_credit", "client:low_credit"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	truth := srv.Webhooks()
	if len(truth) != 3 || res.Secret.Reveal() != truth[2].Secret || !res.Found || res.Webhook.Name != "low credit" ||
		strings.Join(res.Webhook.Events, ",") != "client:low_credit" || !res.Read || len(res.List.Webhooks) != 3 {
		t.Fatalf("result %+v, server %+v", res, truth)
	}
	if got := strings.Join(webhookCalls(srv), ","); got != "GET /api/v0/webhooks,POST /api/v0/webhooks,GET /api/v0/webhooks" {
		t.Fatalf("requests %s", got)
	}
	// With the list the caller holds, the first read is not made.
	if _, err := AddWebhook(context.Background(), s, WebhookInput{"b", "https://hooks.example.com/b", lowCredit}, &res.List); err != nil {
		t.Fatal(err)
	}
	if n := len(webhookCalls(srv)); n != 5 {
		t.Fatalf("%d requests", n)
	}
}

// The fifth webhook is refused before anything is sent, counting entries
// the list could not read.
func TestAddWebhookLimit(t *testing.T) {
	srv, s, _ := hooked(t, 5*time.Second)
	var four []demoserver.WebhookTruth
	for i := int64(1); i <= 4; i++ {
		four = append(four, demoserver.WebhookTruth{ID: i, Name: "w", URL: "https://hooks.example.com/", Events: lowCredit})
	}
	srv.SetWebhooks(four)
	_, err := AddWebhook(context.Background(), s, WebhookInput{"n", "https://hooks.example.com/x", lowCredit}, nil)
	if !errors.Is(err, ErrWebhookLimit) || !strings.Contains(err.Error(), "at most") && !strings.Contains(err.Error(), "most the platform allows") {
		t.Fatalf("error %v", err)
	}
	held := api.WebhookList{Webhooks: make([]api.Webhook, 3), Skipped: 1}
	if _, err := AddWebhook(context.Background(), s, WebhookInput{"n", "https://hooks.example.com/x", lowCredit}, &held); !errors.Is(err, ErrWebhookLimit) {
		t.Fatalf("with a skipped entry: %v", err)
	}
	if got := strings.Join(webhookCalls(srv), ","); got != "GET /api/v0/webhooks" {
		t.Fatalf("requests %s", got)
	}
}

// A create with no answer may have landed: the list is read again, and a
// new webhook of that name and URL is reported found, its secret lost.
func TestAddWebhookUnknownOutcome(t *testing.T) {
	srv, s, _ := hooked(t, 300*time.Millisecond)
	srv.AddFault(demoserver.Fault{Method: http.MethodPost, Path: "/api/v0/webhooks", Delay: time.Second, Times: 1})
	res, err := AddWebhook(context.Background(), s, WebhookInput{"late", "https://hooks.example.com/late", lowCredit}, nil)
	if !errors.Is(err, api.ErrTimeout) || !res.Unknown || !res.Read || !res.Secret.IsZero() {
		t.Fatalf("result %+v, error %v", res, err)
	}
	if got := strings.Join(webhookCalls(srv), ","); got != "GET /api/v0/webhooks,POST /api/v0/webhooks,GET /api/v0/webhooks" {
		t.Fatalf("requests %s (the create must not be sent twice)", got)
	}
	// The delayed create was dropped with the connection: nothing made.
	if res.Found || len(res.List.Webhooks) != 2 {
		t.Fatalf("result %+v", res)
	}
}

// A create that landed but whose answer cannot be read: the secret it
// holds comes back with the error, and the list shows the webhook.
func TestAddWebhookBadAnswerKeepsSecret(t *testing.T) {
	srv, s, _ := hooked(t, 5*time.Second)
	srv.AddFault(demoserver.Fault{Method: http.MethodPost, Path: "/api/v0/webhooks", Times: 1, Mutate: func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"id":`, `"id":"no/slash",`+`"x":`, 1))
	}})
	res, err := AddWebhook(context.Background(), s, WebhookInput{"odd", "https://hooks.example.com/odd", lowCredit}, nil)
	truth := srv.Webhooks()
	if !errors.Is(err, api.ErrMalformed) || !res.Unknown || res.Secret.Reveal() != truth[2].Secret || !res.Found || res.Webhook.Name != "odd" {
		t.Fatalf("result %+v, error %v", res, err)
	}
}

// An edit changes only the fields asked for, on the record as just read:
// a change made elsewhere meanwhile is kept. Asking for what the server
// holds sends nothing.
func TestEditWebhook(t *testing.T) {
	srv, s, _ := hooked(t, 5*time.Second)
	ctx := context.Background()
	if _, err := Webhooks(ctx, s); err != nil { // what a screen read
		t.Fatal(err)
	}
	other, _ := api.New(srv.URL(), demoserver.DemoKey)
	if err := other.UpdateWebhook(ctx, "1", api.WebhookSpec{Name: "renamed elsewhere", URL: "https://hooks.example.com/vast/ops", Events: []string{"client:instance_status"}}); err != nil {
		t.Fatal(err)
	}
	url := "https://hooks.example.com/new"
	res, err := EditWebhook(ctx, s, "1", WebhookChange{URL: &url})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Webhooks()[0]
	if got.Name != "renamed elsewhere" || got.URL != url || strings.Join(got.Events, ",") != "client:instance_status" {
		t.Fatalf("server holds %+v", got)
	}
	if !res.Found || res.Webhook.URL != url || !res.Read {
		t.Fatalf("result %+v", res)
	}
	before := len(webhookCalls(srv))
	res, err = EditWebhook(ctx, s, "1", WebhookChange{URL: &url})
	if err != nil || !res.Unchanged || len(webhookCalls(srv)) != before+1 {
		t.Fatalf("unchanged edit: %+v %v, %d requests", res, err, len(webhookCalls(srv))-before)
	}
	bad := "http://hooks.example.com/"
	if _, err := EditWebhook(ctx, s, "1", WebhookChange{URL: &bad}); err == nil || !strings.Contains(err.Error(), "https") {
		t.Fatalf("bad URL: %v", err)
	}
	if _, err := EditWebhook(ctx, s, "1", WebhookChange{Events: []string{}}); err == nil || !strings.Contains(err.Error(), "at least one event") {
		t.Fatalf("no events: %v", err)
	}
	if _, err := EditWebhook(ctx, s, "77", WebhookChange{URL: &url}); !errors.Is(err, ErrNoSuchWebhook) {
		t.Fatalf("missing: %v", err)
	}
	if n := len(webhookCalls(srv)); n != before+2 {
		t.Fatalf("a refused edit sent requests: %v", webhookCalls(srv)[before:])
	}
}

// A delete is one request and a read; a refused one reads nothing and
// the result claims nothing changed.
func TestDeleteWebhook(t *testing.T) {
	srv, s, _ := hooked(t, 5*time.Second)
	ctx := context.Background()
	srv.AddFault(demoserver.Fault{Method: http.MethodDelete, Status: 400, Body: `{"success":false,"msg":"in use"}`, Times: 1})
	res, err := DeleteWebhook(ctx, s, "2")
	if err == nil || !strings.Contains(err.Error(), "in use") || res.Read || res.Unknown {
		t.Fatalf("refused: %+v %v", res, err)
	}
	res, err = DeleteWebhook(ctx, s, "2")
	if err != nil || res.Found || !res.Read || len(res.List.Webhooks) != 1 {
		t.Fatalf("delete: %+v %v", res, err)
	}
	// Already gone: the server's 404 told as no such webhook, and the
	// list read again shows it.
	res, err = DeleteWebhook(ctx, s, "2")
	if !errors.Is(err, ErrNoSuchWebhook) || !errors.Is(err, api.ErrNotFound) || err.Error() != "the account has no webhook 2" || !res.Read || res.Found {
		t.Fatalf("second delete: %+v %v", res, err)
	}
}

// A rotation returns the server's new secret and reads the list again.
func TestRotateWebhookSecret(t *testing.T) {
	srv, s, _ := hooked(t, 5*time.Second)
	old := srv.Webhooks()[0].Secret
	res, err := RotateWebhookSecret(context.Background(), s, "1")
	if err != nil || res.Secret.Reveal() == old || res.Secret.Reveal() != srv.Webhooks()[0].Secret || !res.Read {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := RotateWebhookSecret(context.Background(), s, "../1"); !errors.Is(err, api.ErrUsage) {
		t.Fatalf("bad id: %v", err)
	}
}

// The state where an alert goes nowhere: a webhooks switch on while no
// webhook carries its event — and only then.
func TestUnheard(t *testing.T) {
	prefs, err := api.ParsePrefs([]byte(`{"client":{"low_credit":{"email":true,"webhooks":true},"instance_outbid":{"webhooks":false},"payment_failed":{"webhooks":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	carries := api.WebhookList{Webhooks: []api.Webhook{{ID: "1", Events: []string{"client:payment_failed"}}}}
	lc := api.PrefPath{"client", "low_credit", "webhooks"}
	pf := api.PrefPath{"client", "payment_failed", "webhooks"}
	rows := []struct {
		name string
		list api.WebhookList
		read bool
		path api.PrefPath
		want bool
	}{
		{"on, none carries it", carries, true, lc, true},
		{"on, no webhooks at all", api.WebhookList{}, true, lc, true},
		{"on, carried", carries, true, pf, false},
		{"off", api.WebhookList{}, true, api.PrefPath{"client", "instance_outbid", "webhooks"}, false},
		{"not in the document", api.WebhookList{}, true, api.PrefPath{"host", "payout_sent", "webhooks"}, false},
		{"email channel", api.WebhookList{}, true, api.PrefPath{"client", "low_credit", "email"}, false},
		{"list not read", api.WebhookList{}, false, lc, false},
		{"list with unreadable entries", api.WebhookList{Skipped: 1}, true, lc, false},
	}
	for _, row := range rows {
		if got := Unheard(prefs, row.list, row.read, row.path); got != row.want {
			t.Errorf("%s: %v, want %v", row.name, got, row.want)
		}
	}
}

func TestTestText(t *testing.T) {
	for want, in := range map[string]api.WebhookTest{
		"sent: the server accepted the test delivery":                     {},
		"delivered (the endpoint answered HTTP 200)":                      {Known: true, Delivered: true, Status: 200},
		"not delivered: could not connect":                                {Known: true, Msg: "could not connect"},
		"not delivered (the endpoint answered HTTP 500): boom \\x1b gone": {Known: true, Status: 500, Msg: "boom \\x1b gone"},
	} {
		if got := TestText(in); got != want {
			t.Errorf("%+v: %q, want %q", in, got, want)
		}
	}
}

// A host spelt with international characters is judged as a resolver
// reads it (IDNA's lookup mapping, UTS #46): full-width or circled
// letters, full-width digits and the ideographic or full-width full stop
// lead to localhost, loopback or the metadata address as surely as ASCII,
// and are refused before anything is sent — the form and the command both
// check through CheckWebhook.
func TestCheckWebhookInternationalSpellings(t *testing.T) {
	srv, s, _ := hooked(t, 5*time.Second)
	for _, raw := range []string{
		"https://ｌｏｃａｌｈｏｓｔ/",
		"https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/",
		"https://LOCALHOST./",
		"https://api.ｌｏｃａｌｈｏｓｔ/x",
		"https://１２７.０.０.１/",
		"https://127。0。0。1/",
		"https://169．254．169．254/latest/meta-data/",
		"https://１０｡０｡０｡１/",
		"https://%EF%BD%8C%EF%BD%8F%EF%BD%83%EF%BD%81%EF%BD%8C%EF%BD%88%EF%BD%8F%EF%BD%93%EF%BD%94/",
		"https://２１３０７０６４３３/",
		"https://０１７７.０.０.１/",
		"https://０ｘ７ｆ.１/",
		"https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://2130706433/", "https://0177.0.0.1/", "https://0x7f.1/",
	} {
		if _, err := CheckWebhook(context.Background(), s, WebhookInput{"n", raw, lowCredit}); err == nil || !errors.Is(err, ErrWebhookInput) {
			t.Errorf("%s: error %v", raw, err)
		}
	}
	if calls := webhookCalls(srv); len(calls) != 0 {
		t.Fatalf("requests %v", calls)
	}
	// A public name in another script still passes.
	if _, err := CheckWebhook(context.Background(), s, WebhookInput{"n", "https://bücher.example/", lowCredit}); err != nil {
		t.Fatal(err)
	}
}

// Every change comes back with its outcome decided: what the command and
// the screen say (done, refused, no answer and what the list read again
// shows, done but what followed failed) is read from it alone.
func TestWebhookOutcomes(t *testing.T) {
	srv, s, _ := hooked(t, 300*time.Millisecond)
	ctx := context.Background()
	hooksPath := "/api/v0/webhooks"
	url := "https://hooks.example.com/edited"
	same := srv.Webhooks()[0].URL
	rows := []struct {
		name  string
		fault *demoserver.Fault
		run   func() (WebhookResult, error)
		want  WebhookOutcome
	}{
		{"add", nil, func() (WebhookResult, error) {
			return AddWebhook(ctx, s, WebhookInput{"new", "https://hooks.example.com/new", lowCredit}, nil)
		}, WebhookDone},
		{"add with no answer", &demoserver.Fault{Method: http.MethodPost, Path: hooksPath, Delay: time.Second, Times: 1}, func() (WebhookResult, error) {
			return AddWebhook(ctx, s, WebhookInput{"late", "https://hooks.example.com/late", lowCredit}, nil)
		}, WebhookLostNotTaken},
		{"add whose answer is unreadable but holds the secret", &demoserver.Fault{Method: http.MethodPost, Path: hooksPath, Times: 1, Mutate: func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"id":`, `"id":"no/slash",`+`"x":`, 1))
		}}, func() (WebhookResult, error) {
			return AddWebhook(ctx, s, WebhookInput{"odd", "https://hooks.example.com/odd", lowCredit}, nil)
		}, WebhookHalfDone},
		{"add past the limit", nil, func() (WebhookResult, error) {
			return AddWebhook(ctx, s, WebhookInput{"fifth", "https://hooks.example.com/5", lowCredit}, nil)
		}, WebhookRefused},
		{"edit to what is held", nil, func() (WebhookResult, error) {
			return EditWebhook(ctx, s, "1", WebhookChange{URL: &same})
		}, WebhookUnchanged},
		{"edit with a 5xx, read again unchanged", &demoserver.Fault{Method: http.MethodPut, Status: 500, Times: 1}, func() (WebhookResult, error) {
			return EditWebhook(ctx, s, "1", WebhookChange{URL: &url})
		}, WebhookLostNotTaken},
		{"edit", nil, func() (WebhookResult, error) { return EditWebhook(ctx, s, "1", WebhookChange{URL: &url}) }, WebhookDone},
		{"delete refused", &demoserver.Fault{Method: http.MethodDelete, Status: 400, Body: `{"success":false,"msg":"in use"}`, Times: 1},
			func() (WebhookResult, error) { return DeleteWebhook(ctx, s, "2") }, WebhookRefused},
		{"delete with a 5xx, read again still there", &demoserver.Fault{Method: http.MethodDelete, Status: 500, Times: 1},
			func() (WebhookResult, error) { return DeleteWebhook(ctx, s, "2") }, WebhookLostNotTaken},
		{"delete whose list cannot be read again", &demoserver.Fault{Method: http.MethodGet, Path: hooksPath, Status: 400, Body: `{"success":false,"msg":"no"}`, Times: 1},
			func() (WebhookResult, error) { return DeleteWebhook(ctx, s, "2") }, WebhookHalfDone},
		{"delete of one gone", nil, func() (WebhookResult, error) { return DeleteWebhook(ctx, s, "2") }, WebhookRefused},
		{"rotate with a 5xx", &demoserver.Fault{Method: http.MethodPost, Path: hooksPath + "/1/rotate-secret", Status: 500, Times: 1},
			func() (WebhookResult, error) { return RotateWebhookSecret(ctx, s, "1") }, WebhookLost},
		{"rotate", nil, func() (WebhookResult, error) { return RotateWebhookSecret(ctx, s, "1") }, WebhookDone},
	}
	for _, row := range rows {
		if row.fault != nil {
			srv.AddFault(*row.fault)
		}
		res, err := row.run()
		if res.Outcome != row.want {
			t.Errorf("%s: outcome %d, want %d (%+v, %v)", row.name, res.Outcome, row.want, res, err)
		}
	}
}
