package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// hookServer is a test server whose webhooks calls are paced like the
// others' (20 ms), with the demo's two webhooks.
func hookServer(t *testing.T) *demoserver.Server {
	t.Helper()
	return startServer(t, demoserver.Options{Contracts: 10, WebhooksThreshold: threshold, TypesThreshold: threshold})
}

// hooks runs a webhooks command with the client paced like the server.
// The server's URL comes from VAST_URL: on add and edit, --url is the
// webhook's.
func hooks(t *testing.T, srv *demoserver.Server, tweak func(*env), args ...string) result {
	t.Helper()
	return hooksAs(t, srv, demoserver.DemoKey, tweak, args...)
}

func hooksAs(t *testing.T, srv *demoserver.Server, key string, tweak func(*env), args ...string) result {
	t.Helper()
	return runAgainst(t, srv, key, func(e *env) {
		t.Setenv("VAST_URL", srv.URL())
		e.clientOptions = append(e.clientOptions, api.WithEndpointThreshold(api.WebhooksPath, threshold),
			api.WithEndpointThreshold(api.NotificationTypesPath, threshold))
		if tweak != nil {
			tweak(e)
		}
	}, append([]string{"webhooks"}, args...)...)
}

// webhookRequests are the requests to the webhooks paths the server
// took, "METHOD path": on a loaded machine a request can arrive inside the
// 20 ms interval, be refused with a 429 and be sent again.
func webhookRequests(srv *demoserver.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/api/v0/webhooks") && r.Status != http.StatusTooManyRequests {
			out = append(out, r.Method+" "+strings.TrimSuffix(r.Path, "/"))
		}
	}
	return out
}

func TestWebhooksList(t *testing.T) {
	srv := hookServer(t)
	res := hooks(t, srv, nil)
	res.ok(t)
	lines := strings.Split(strings.TrimSpace(res.out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID  NAME") || !strings.Contains(lines[1], "hooks.example.com") ||
		!strings.Contains(lines[1], "client:instance_status, client:payment_failed") || !strings.Contains(lines[2], "pager.example.invalid") {
		t.Fatalf("stdout:\n%s", res.out)
	}
	if res.errOut != "" {
		t.Fatalf("stderr %q", res.errOut)
	}

	res = hooks(t, srv, nil, "--json")
	res.ok(t)
	var doc struct {
		Webhooks []webhookRow `json:"webhooks"`
		Skipped  int          `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(res.out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Webhooks) != 2 || doc.Webhooks[0].ID != "1" || doc.Webhooks[0].URL != "https://hooks.example.com/vast/ops" ||
		doc.Webhooks[0].Host != "hooks.example.com" || doc.Webhooks[0].Changed == nil {
		t.Fatalf("json %+v", doc)
	}

	res = hooks(t, srv, nil, "--output", "csv")
	res.ok(t)
	if !strings.HasPrefix(res.out, "id,name,url,host,events,changed\n1,ops alerts,https://hooks.example.com/vast/ops,hooks.example.com,client:instance_status client:payment_failed,") {
		t.Fatalf("csv:\n%s", res.out)
	}
	if strings.Contains(res.out+res.errOut, "whsec_") {
		t.Fatal("a list printed a secret")
	}

	srv.SetWebhooks(nil)
	res = hooks(t, srv, nil)
	res.ok(t)
	if res.out != "no webhooks registered\n" {
		t.Fatalf("empty list: %q", res.out)
	}
	res = hooks(t, srv, nil, "--json")
	res.ok(t)
	if !strings.Contains(res.out, `"webhooks": []`) {
		t.Fatalf("empty json: %q", res.out)
	}
}

// An answer of another shape is an error naming the endpoint, never "no
// webhooks registered"; a list with unreadable entries says so.
func TestWebhooksListOtherShapes(t *testing.T) {
	for name, body := range map[string]string{
		"no list":   `{"success":true}`,
		"html":      `<html>maintenance</html>`,
		"list is 7": `{"webhooks":7}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := hookServer(t)
			srv.AddFault(demoserver.Fault{Method: "GET", Path: "/api/v0/webhooks", Status: 200, Body: body})
			res := hooks(t, srv, nil)
			res.failed(t, exitRuntime, "GET /api/v0/webhooks/")
		})
	}
	srv := hookServer(t)
	srv.AddFault(demoserver.Fault{Method: "GET", Path: "/api/v0/webhooks", Status: 200,
		Body: `[{"id":1,"name":"ok","webhook_url":"https://a.example","event_types":["client:low_credit"]},{"id":"bad/id"}]`})
	res := hooks(t, srv, nil)
	res.ok(t)
	if !strings.Contains(res.errOut, "1 webhook the server sent could not be read") || !strings.Contains(res.out, "a.example") {
		t.Fatalf("stdout %q stderr %q", res.out, res.errOut)
	}
}

// Every bad input of the issue is refused with its reason, exit 2, and
// nothing sent to the webhooks endpoints.
func TestWebhooksAddRefusesBadInput(t *testing.T) {
	ev := []string{"--event", "client:low_credit"}
	rows := []struct {
		name string
		args []string
		want string
	}{
		{"http", append([]string{"--name", "n", "--url", "http://hooks.example.com/"}, ev...), "must begin with https://"},
		{"2049 characters", append([]string{"--name", "n", "--url", "https://hooks.example.com/" + strings.Repeat("a", 2049-26)}, ev...), "2049 characters long"},
		{"credentials", append([]string{"--name", "n", "--url", "https://bob:hunter2@hooks.example.com/"}, ev...), "credentials"},
		{"loopback", append([]string{"--name", "n", "--url", "https://127.0.0.1:8443/"}, ev...), "loopback address"},
		{"private", append([]string{"--name", "n", "--url", "https://192.168.1.20/"}, ev...), "private address"},
		{"localhost", append([]string{"--name", "n", "--url", "https://localhost/"}, ev...), "loopback name"},
		{"resolves to private", append([]string{"--name", "n", "--url", "https://intranet.corp.example/"}, ev...), "resolves to 10.9.8.7, a private address"},
		{"name 121", append([]string{"--name", strings.Repeat("n", 121), "--url", "https://hooks.example.com/"}, ev...), "121 characters long"},
		{"no name", append([]string{"--url", "https://hooks.example.com/"}, ev...), "--name is required"},
		{"no event", []string{"--name", "n", "--url", "https://hooks.example.com/"}, "at least one event"},
		{"unknown event", []string{"--name", "n", "--url", "https://hooks.example.com/", "--event", "client:low_credit,client:lowcredit"}, `"client:lowcredit" is not an event of the notification catalogue (did you mean client:low_credit?)`},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			srv := hookServer(t)
			res := hooks(t, srv, func(e *env) {
				e.resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
					if host == "intranet.corp.example" {
						return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.9.8.7")}, nil
					}
					return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
				}
			}, append([]string{"add"}, row.args...)...)
			res.failed(t, exitUsage, row.want)
			if strings.Contains(res.errOut, "hunter2") {
				t.Errorf("the error repeats the URL's password: %q", res.errOut)
			}
			if got := webhookRequests(srv); len(got) != 0 {
				t.Fatalf("requests %v", got)
			}
		})
	}
}

// An add prints the webhook as the server holds it and its secret, once,
// on stdout; nothing of it on stderr.
func TestWebhooksAdd(t *testing.T) {
	srv := hookServer(t)
	res := hooks(t, srv, nil, "add", "--name", "low credit", "--url", "https://hooks.example.com/lc", "--event", "client:low_credit")
	res.ok(t)
	truth := srv.Webhooks()
	if len(truth) != 3 {
		t.Fatalf("server holds %d", len(truth))
	}
	want := "id: 3\nname: low credit\nurl: https://hooks.example.com/lc\nevents: client:low_credit\n"
	if !strings.HasPrefix(res.out, want) || !strings.HasSuffix(res.out, "\nsecret: "+truth[2].Secret+"\n") || strings.Count(res.out, truth[2].Secret) != 1 {
		t.Fatalf("stdout:\n%s", res.out)
	}
	if res.errOut != "" {
		t.Fatalf("stderr %q", res.errOut)
	}
	if got := strings.Join(webhookRequests(srv), ","); got != "GET /api/v0/webhooks,POST /api/v0/webhooks,GET /api/v0/webhooks" {
		t.Fatalf("requests %s", got)
	}
	// JSON, for scripts: the secret beside the webhook.
	res = hooks(t, srv, nil, "add", "--name", "b", "--url", "https://hooks.example.com/b", "--event", "client:low_credit", "--json")
	res.ok(t)
	var doc struct {
		Webhook webhookRow `json:"webhook"`
		Secret  string     `json:"secret"`
	}
	if err := json.Unmarshal([]byte(res.out), &doc); err != nil || doc.Secret != srv.Webhooks()[3].Secret || doc.Webhook.ID != "4" {
		t.Fatalf("json %q: %v", res.out, err)
	}
	// The fifth is refused before it is sent.
	res = hooks(t, srv, nil, "add", "--name", "c", "--url", "https://hooks.example.com/c", "--event", "client:low_credit")
	res.failed(t, exitRuntime, "the most the platform allows")
	if n := len(srv.Webhooks()); n != 4 {
		t.Fatalf("server holds %d", n)
	}
	if posts := strings.Count(strings.Join(webhookRequests(srv), ","), "POST"); posts != 2 {
		t.Fatalf("%d creates sent", posts)
	}
}

// An add with no answer says its outcome is unknown, reads the list again
// and prints no secret (none came).
func TestWebhooksAddOutcomeUnknown(t *testing.T) {
	srv := hookServer(t)
	srv.AddFault(demoserver.Fault{Method: "POST", Path: "/api/v0/webhooks", Hang: true})
	res := hooks(t, srv, func(e *env) {
		e.clientOptions = append(e.clientOptions, api.WithTimeout(300*time.Millisecond))
	}, "add", "--name", "n", "--url", "https://hooks.example.com/n", "--event", "client:low_credit")
	res.failed(t, exitRuntime, "the outcome of the add is unknown")
	if !strings.Contains(res.errOut, "nothing was added") {
		t.Errorf("stderr %q", res.errOut)
	}
	if got := strings.Join(webhookRequests(srv), ","); got != "GET /api/v0/webhooks,POST /api/v0/webhooks,GET /api/v0/webhooks" {
		t.Fatalf("requests %s", got)
	}
}

func TestWebhooksEdit(t *testing.T) {
	srv := hookServer(t)
	res := hooks(t, srv, nil, "edit", "1", "--url", "https://hooks.example.com/v2")
	res.ok(t)
	got := srv.Webhooks()[0]
	if got.URL != "https://hooks.example.com/v2" || got.Name != "ops alerts" || len(got.Events) != 2 {
		t.Fatalf("server holds %+v", got)
	}
	if !strings.Contains(res.out, "url: https://hooks.example.com/v2\n") || strings.Contains(res.out, "secret") {
		t.Fatalf("stdout %q", res.out)
	}
	res = hooks(t, srv, nil, "edit", "1", "--url", "https://hooks.example.com/v2")
	res.ok(t)
	if !strings.Contains(res.errOut, "nothing to change") {
		t.Fatalf("stderr %q", res.errOut)
	}
	for _, row := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"edit", "1"}, exitUsage, "nothing to change: give --name, --url or --event"},
		{[]string{"edit", "1", "--url", "ftp://x.example"}, exitUsage, "https"},
		{[]string{"edit", "1", "--event", " "}, exitUsage, "at least one event"},
		{[]string{"edit", "../1", "--name", "x"}, exitUsage, "is not a webhook id"},
		{[]string{"edit", "--name", "x"}, exitUsage, "give the webhook's id"},
		{[]string{"edit", "9", "--name", "x"}, exitRuntime, "no webhook 9"},
	} {
		hooks(t, srv, nil, row.args...).failed(t, row.code, row.want)
	}
	if puts := strings.Count(strings.Join(webhookRequests(srv), ","), "PUT"); puts != 1 {
		t.Fatalf("%d updates sent", puts)
	}
}

// fakeTTY is a terminal for the delete's question: its answer is read
// from the string.
type fakeTTY struct{ *strings.Reader }

func (fakeTTY) Write(p []byte) (int, error) { return len(p), nil }

func onTerminal(answer string) func(*env) {
	tty := fakeTTY{strings.NewReader(answer)}
	return func(e *env) {
		e.stdin = tty
		e.isTerminal = func(w io.Writer) bool { return w == tty }
	}
}

// Delete asks on a terminal; with no terminal and no --yes nothing is
// sent and the exit code is 2.
func TestWebhooksDelete(t *testing.T) {
	srv := hookServer(t)
	res := hooks(t, srv, nil, "delete", "1")
	res.failed(t, exitUsage, "add --yes (nothing was deleted)")
	if got := webhookRequests(srv); len(got) != 0 {
		t.Fatalf("requests %v", got)
	}
	for _, no := range []string{"n\n", "\n", "", "yess\n"} {
		res = hooks(t, srv, onTerminal(no), "delete", "1")
		if res.code != exitRuntime || !strings.Contains(res.errOut, `Delete webhook 1, "ops alerts" → hooks.example.com (client:instance_status, client:payment_failed)? [y/N]`) ||
			!strings.HasSuffix(res.errOut, "vastdash: nothing was deleted: the answer was not yes\n") || res.out != "" {
			t.Fatalf("answer %q: %+v", no, res)
		}
	}
	if n := len(srv.Webhooks()); n != 2 || strings.Contains(strings.Join(webhookRequests(srv), ","), "DELETE") {
		t.Fatalf("a refused question deleted: %d left", n)
	}
	res = hooks(t, srv, onTerminal("y\n"), "delete", "1")
	res.ok(t)
	if res.out != "deleted webhook 1\n" || len(srv.Webhooks()) != 1 {
		t.Fatalf("stdout %q, %d left", res.out, len(srv.Webhooks()))
	}
	res = hooks(t, srv, nil, "delete", "2", "--yes", "--json")
	res.ok(t)
	if strings.TrimSpace(res.out) != "{\n  \"deleted\": \"2\"\n}" || len(srv.Webhooks()) != 0 {
		t.Fatalf("stdout %q", res.out)
	}
	hooks(t, srv, nil, "delete", "2", "--yes").failed(t, exitRuntime, "the account has no webhook 2 (vastdash webhooks lists them)")
}

func TestWebhooksTest(t *testing.T) {
	srv := hookServer(t)
	res := hooks(t, srv, nil, "test", "1")
	res.ok(t)
	if res.out != "webhook 1: delivered (the endpoint answered HTTP 200)\n" {
		t.Fatalf("stdout %q", res.out)
	}
	res = hooks(t, srv, nil, "test", "2")
	if res.code != exitRuntime || res.out != "webhook 2: not delivered: could not connect to pager.example.invalid: the name does not resolve\n" ||
		res.errOut != "vastdash: the test delivery did not reach webhook 2's endpoint\n" {
		t.Fatalf("%+v", res)
	}
	res = hooks(t, srv, nil, "test", "2", "--json")
	var doc struct {
		Known, Delivered bool
		Status           *int
	}
	if res.code != exitRuntime || json.Unmarshal([]byte(res.out), &doc) != nil || !doc.Known || doc.Delivered || doc.Status != nil {
		t.Fatalf("%+v", res)
	}
}

// A rotation prints the new secret alone on stdout, and nowhere else: not
// on stderr, not in the --debug log.
func TestWebhooksRotate(t *testing.T) {
	srv := hookServer(t)
	old := srv.Webhooks()[0].Secret
	debug := filepath.Join(t.TempDir(), "debug.log")
	res := hooks(t, srv, nil, "rotate", "1", "--yes", "--debug", debug)
	res.ok(t)
	secret := srv.Webhooks()[0].Secret
	if secret == old || res.out != secret+"\n" || res.errOut != "" {
		t.Fatalf("stdout %q stderr %q, server %q", res.out, res.errOut, secret)
	}
	log, err := os.ReadFile(debug)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), secret[6:]) || !strings.Contains(string(log), `"webhook_secret":"[redacted]"`) {
		t.Fatalf("the debug log:\n%s", log)
	}
	res = hooks(t, srv, nil, "rotate", "1", "-y", "--json")
	res.ok(t)
	if !strings.Contains(res.out, `"secret": "`+srv.Webhooks()[0].Secret+`"`) {
		t.Fatalf("json %q", res.out)
	}
}

// A rotation asks first, as a delete does: the old secret stops working at
// once. With no terminal and no --yes nothing is sent (exit 2); on a
// terminal it shows the webhook, and any answer but yes rotates nothing
// (exit 1); y rotates.
func TestWebhooksRotateAsks(t *testing.T) {
	srv := hookServer(t)
	old := srv.Webhooks()[0].Secret
	res := hooks(t, srv, nil, "rotate", "1")
	res.failed(t, exitUsage, "webhooks rotate asks before it rotates the secret of webhook 1, and stdin is not a terminal to ask on: add --yes (nothing was rotated)")
	if got := webhookRequests(srv); len(got) != 0 || res.out != "" {
		t.Fatalf("requests %v, stdout %q", got, res.out)
	}
	for _, no := range []string{"n\n", "\n", "", "yess\n"} {
		res = hooks(t, srv, onTerminal(no), "rotate", "1")
		if res.code != exitRuntime || !strings.Contains(res.errOut, `Rotate the secret of webhook 1, "ops alerts" → hooks.example.com (the old one stops working at once)? [y/N]`) ||
			!strings.HasSuffix(res.errOut, "vastdash: nothing was rotated: the answer was not yes\n") || res.out != "" {
			t.Fatalf("answer %q: %+v", no, res)
		}
	}
	if srv.Webhooks()[0].Secret != old || strings.Contains(strings.Join(webhookRequests(srv), ","), "POST") {
		t.Fatalf("a refused question rotated: %v", webhookRequests(srv))
	}
	hooks(t, srv, onTerminal("y\n"), "rotate", "9").failed(t, exitRuntime, "the account has no webhook 9 (vastdash webhooks lists them)")
	res = hooks(t, srv, onTerminal("y\n"), "rotate", "1")
	res.ok(t)
	if secret := srv.Webhooks()[0].Secret; secret == old || res.out != secret+"\n" {
		t.Fatalf("stdout %q, server %q", res.out, secret)
	}
}

// On add and edit --url is the webhook's: a second --url (the global one,
// meant for the API) is refused rather than silently taken for either.
func TestWebhooksURLGivenTwice(t *testing.T) {
	srv := hookServer(t)
	res := hooks(t, srv, nil, "--url", "https://proxy.example.com", "add", "--name", "n", "--url", "https://hooks.example.com/", "--event", "client:low_credit")
	res.failed(t, exitUsage, "--url given twice: here --url is the webhook's URL; set the API's base URL with VAST_URL")
	if got := webhookRequests(srv); len(got) != 0 {
		t.Fatalf("requests %v", got)
	}
}

// A --url before the subcommand, where the global flags go, is the API's
// base URL to whoever wrote it: on add and edit it is refused, never taken
// for the webhook's (which would register a webhook pointing at the API's
// host and send the add to VAST_URL). The list takes it as the API's.
func TestWebhooksURLBeforeTheSubcommand(t *testing.T) {
	srv := hookServer(t)
	paced := func(e *env) {
		e.clientOptions = append(e.clientOptions, api.WithEndpointThreshold(api.WebhooksPath, threshold),
			api.WithEndpointThreshold(api.NotificationTypesPath, threshold))
	}
	atVASTURL := func(e *env) { t.Setenv("VAST_URL", srv.URL()); paced(e) }
	for _, args := range [][]string{
		{"--url", "https://staging.example.com", "webhooks", "add", "--name", "n", "--event", "client:low_credit"},
		{"--url=https://staging.example.com", "webhooks", "add", "--name", "n", "--event", "client:low_credit"},
		{"--config", "/dev/null/x", "--url", "https://staging.example.com", "webhooks", "edit", "1", "--name", "n"},
		{"webhooks", "--url", "https://staging.example.com", "add", "--name", "n", "--event", "client:low_credit"},
	} {
		res := runAgainst(t, srv, demoserver.DemoKey, atVASTURL, args...)
		res.failed(t, exitUsage, "put the webhook's --url after add/edit; the API's base URL comes from VAST_URL")
	}
	if got := webhookRequests(srv); len(got) != 0 || len(srv.Webhooks()) != 2 {
		t.Fatalf("requests %v, webhooks %v", got, srv.Webhooks())
	}
	// After the subcommand it is the webhook's, whatever comes first.
	res := runAgainst(t, srv, demoserver.DemoKey, atVASTURL, "--timeout", "30s", "webhooks", "edit", "1", "--url", "https://hooks.example.com/new")
	res.ok(t)
	if w := srv.Webhooks()[0]; w.URL != "https://hooks.example.com/new" {
		t.Fatalf("webhook %+v", w)
	}
	if res := runAgainst(t, srv, demoserver.DemoKey, paced, "--url", srv.URL(), "webhooks"); res.code != 0 || !strings.Contains(res.out, "hooks.example.com") {
		t.Fatalf("the list with the API's --url: %+v", res)
	}
}

// The fault matrix of the webhooks commands, run with the canary key: every
// failure is one sanitized line on stderr and exit 1, and neither the key
// nor any part of a secret reaches stdout or stderr when the command
// failed.
func TestWebhooksFaults(t *testing.T) {
	hooksPath := "/api/v0/webhooks"
	cut := func(b []byte) []byte {
		if i := strings.Index(string(b), "whsec_"); i > 0 {
			return b[:i+10] // inside the secret
		}
		return b[:len(b)/2]
	}
	rows := []struct {
		name  string
		fault demoserver.Fault
		args  []string
		want  string
	}{
		{"list 500 echoing the key", demoserver.Fault{Path: hooksPath, Status: 500, Body: `{"msg":"bad key ` + canaryKey + ` \u001b[2J"}`}, nil, "server error"},
		{"list hangs", demoserver.Fault{Path: hooksPath, Hang: true}, nil, "in time"},
		{"list html", demoserver.Fault{Path: hooksPath, Status: 200, ContentType: "text/html", Body: "<html>\x1b]0;pwned\x07</html>"}, nil, "GET /api/v0/webhooks/: unexpected response"},
		{"create answer cut in its secret", demoserver.Fault{Method: "POST", Path: hooksPath, Mutate: cut},
			[]string{"add", "--name", "n", "--url", "https://hooks.example.com/n", "--event", "client:low_credit"}, "unknown"},
		{"rotate answer cut in its secret", demoserver.Fault{Method: "POST", Path: hooksPath + "/1/rotate-secret", Mutate: cut},
			[]string{"rotate", "1", "--yes"}, "the outcome of the rotation is unknown"},
		{"test 500", demoserver.Fault{Method: "POST", Path: hooksPath + "/1/test", Status: 500, Body: `{"msg":"` + canaryKey + `"}`}, []string{"test", "1"}, "server error"},
		{"delete 400", demoserver.Fault{Method: "DELETE", Status: 400, Body: `{"success":false,"msg":"in use \u001b[31m"}`}, []string{"delete", "1", "--yes"}, "in use"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			srv := hookServer(t)
			srv.AddKey(canaryKey, "canary", nil)
			srv.AddFault(row.fault)
			res := hooksAs(t, srv, canaryKey, func(e *env) {
				e.clientOptions = append(e.clientOptions, api.WithTimeout(300*time.Millisecond), api.WithBackoff(2*time.Millisecond, 10*time.Millisecond))
			}, row.args...)
			if res.code != exitRuntime || !strings.Contains(res.errOut, row.want) || strings.Count(res.errOut, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line saying %q", res.code, res.out, res.errOut, row.want)
			}
			if strings.Contains(res.out+res.errOut, "CANARY") || strings.ContainsAny(res.errOut, "\x1b\x07") {
				t.Fatalf("the key or a control character leaked: %q %q", res.out, res.errOut)
			}
			for _, w := range srv.Webhooks() {
				if strings.Contains(res.errOut, w.Secret[:10]) || strings.Contains(res.out, w.Secret[:10]) {
					t.Fatalf("a secret leaked: %q %q", res.out, res.errOut)
				}
			}
		})
	}
}
