package access

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/demotest"
	"github.com/vastdash/vastdash/billing/leaks"
)

// accessOpts are a demo server and client with no pacing anywhere.
var accessOpts = demoserver.Options{Contracts: 40, Threshold: -1, InstancesThreshold: -1, InvoicesThreshold: -1,
	EndpointsThreshold: -1, WorkerGroupsThreshold: -1, VolumesThreshold: -1}

func accessClientOpts() []api.Option {
	return []api.Option{
		api.WithChargesThreshold(0), api.WithTimeout(2 * time.Second),
		api.WithBackoff(time.Millisecond, time.Millisecond),
		api.WithEndpointThreshold(api.InstancesPath, 0), api.WithEndpointThreshold(api.InvoicesPath, 0),
		api.WithEndpointThreshold(api.APIKeysPath, 0), api.WithEndpointThreshold(api.EndpointJobsPath, 0),
		api.WithEndpointThreshold(api.WorkerGroupsPath, 0), api.WithEndpointThreshold(api.VolumesPath, 0),
	}
}

// verdicts is a's verdicts as marks, in order: "✓✓?✗".
func verdicts(a Access) string {
	var b strings.Builder
	for _, c := range a.Checks {
		b.WriteString(c.Verdict.Mark())
	}
	return b.String()
}

// Each demo key gets the verdicts of its permissions (billing_read,
// user_read, user_write, instance_read, instance_write, misc), and no
// probe writes anything.
func TestCheckAccessPerKey(t *testing.T) {
	for key, want := range map[string]string{
		demoserver.DemoKey:      "✓✓?✓?✓",
		demoserver.KeyReadOnly:  "✓✓?✗?✗",
		demoserver.KeyNoBilling: "✗✓?✓?✓",
		demoserver.KeyNoAccount: "✓✗?✓?✗",
		demoserver.KeyScoped:    "✓✓?✓?✓",
	} {
		srv, s, _ := demotest.Start(t, accessOpts, key, accessClientOpts()...)
		a, err := Probe(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if got := verdicts(a); got != want {
			t.Errorf("%s: %s, want %s (%+v)", key, got, want, a.Checks)
		}
		if wantMail := a.Verdict(UserRead) == Granted; (a.Email == "demo@vastdash.example") != wantMail {
			t.Errorf("%s: e-mail %q", key, a.Email)
		}
		for _, r := range srv.Requests() {
			if r.Method != http.MethodGet {
				t.Errorf("%s: a probe sent %s %s", key, r.Method, r.Path)
			}
		}
		if c := a.Checks[2]; c.Permission != UserWrite || !strings.Contains(c.Why, "not tested") {
			t.Errorf("%s: user_write %+v", key, c)
		}
	}
}

func TestCheckAccessWrongKey(t *testing.T) {
	_, s, _ := demotest.Start(t, accessOpts, "no-such-key", accessClientOpts()...)
	_, err := Probe(context.Background(), s)
	if !errors.Is(err, api.ErrInvalidKey) {
		t.Fatalf("got %v, want ErrInvalidKey", err)
	}
}

func TestCheckAccessServerDown(t *testing.T) {
	srv, s, _ := demotest.Start(t, accessOpts, demoserver.DemoKey, accessClientOpts()...)
	srv.Close()
	_, err := Probe(context.Background(), s)
	if !errors.Is(err, api.ErrTransport) || !strings.Contains(s.Explain(err), "cannot reach") {
		t.Fatalf("got %v (%s)", err, s.Explain(err))
	}
}

// A 403 on one probe is that permission lacking; a 500 on another leaves
// that one unknown, saying why; the rest still answer.
func TestCheckAccessOneProbeRefused(t *testing.T) {
	srv, s, _ := demotest.Start(t, accessOpts, demoserver.DemoKey, accessClientOpts()...)
	srv.AddFault(demoserver.Fault{Path: "/api/v1/invoices", Status: 403, Body: `{"success":false,"error":"forbidden","msg":"permission denied"}`})
	srv.AddFault(demoserver.Fault{Path: "/api/v1/instances", Status: 500, Body: `{"msg":"boom"}`})
	a, err := Probe(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(a); got != "✗✓???✓" {
		t.Fatalf("%s %+v", got, a.Checks)
	}
	if l := a.Lacking(); len(l) != 1 || l[0] != BillingRead {
		t.Fatalf("lacking %v", l)
	}
	if why := a.Checks[3].Why; !strings.Contains(why, "server error") {
		t.Fatalf("instance_read unknown because %q", why)
	}
}

func TestScopedPermissionsAndName(t *testing.T) {
	base := Access{Checks: []Check{{BillingRead, Granted, ""}, {UserRead, Granted, ""}, {UserWrite, Unsure, ""}, {InstanceRead, Denied, ""},
		{InstanceWrite, Granted, ""}, {Misc, Granted, ""}}}
	// Every read vastdash makes the base key may, misc (the audit's
	// endpoints) included; never instance_write, which could rent
	// instances.
	if got := ScopedPermissions(base, false); !slices.Equal(got, []Permission{BillingRead, UserRead, Misc}) {
		t.Fatalf("read-only: %v", got)
	}
	if got := ScopedPermissions(base, true); !slices.Equal(got, []Permission{BillingRead, UserRead, Misc, UserWrite}) {
		t.Fatalf("with write: %v", got)
	}
	day := time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)
	if got := ScopedName("laptop\x1b[2J", false, day); got != "vastdash (read-only) on laptop, 2026-11-21" {
		t.Fatalf("name %q", got)
	}
	if got := ScopedName("", true, day); got != "vastdash (reads, changes alerts), 2026-11-21" {
		t.Fatalf("name %q", got)
	}
}

// opener makes clients for new keys on srv, as the front ends do.
func opener(srv *demoserver.Server) func(string) (*api.Client, error) {
	return func(key string) (*api.Client, error) { return api.New(srv.URL(), key, accessClientOpts()...) }
}

func TestMakeScopedKey(t *testing.T) {
	srv, s, _ := demotest.Start(t, accessOpts, demoserver.DemoKey, accessClientOpts()...)
	ctx := context.Background()
	base, err := Probe(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	perms := ScopedPermissions(base, false)
	got := MakeScopedKey(ctx, s, base, "vastdash (read-only), 2026-11-21", perms, opener(srv))
	if got.Kept {
		t.Fatalf("kept: %s", got.Why)
	}
	made := srv.CreatedKeys()
	if len(made) != 1 || made[0].Key != got.Key.Reveal() || made[0].Deleted || strings.Join(made[0].Perms, ",") != "billing_read,instance_read,misc,user_read" {
		t.Fatalf("made %+v", made)
	}
	if v := verdicts(got.Access); v != "✓✓✗✓✗✓" || got.Access.Email == "" || got.Name == "" {
		t.Fatalf("the new key's access %s %q", v, got.Access.Email)
	}
	// The key vastdash made for itself runs vastdash's audit whole: the
	// serverless endpoints too (issue 33: it lacked misc, and the audit
	// said "no leaks found in what could be read" forever).
	client, err := opener(srv)(got.Key.Reveal())
	if err != nil {
		t.Fatal(err)
	}
	own := billing.New(ctx, client, billing.WithClock(s.Now))
	defer own.Close()
	if a, err := leaks.Read(ctx, own); err != nil || !a.Complete() {
		t.Fatalf("the scoped key's audit: %v, unreadable %q", err, a.Unreadable)
	}
	// With user_write: the answer's permissions say it, no probe does.
	got = MakeScopedKey(ctx, s, base, "vastdash (reads, changes alerts)", ScopedPermissions(base, true), opener(srv))
	if got.Kept || verdicts(got.Access) != "✓✓✓✓✗✓" {
		t.Fatalf("kept %v (%s), %s", got.Kept, got.Why, verdicts(got.Access))
	}
}

// A key that may not make keys is kept, and its user_write is now known.
func TestMakeScopedKeyRefused(t *testing.T) {
	srv, s, _ := demotest.Start(t, accessOpts, demoserver.KeyScoped, accessClientOpts()...)
	ctx := context.Background()
	base, _ := Probe(ctx, s)
	got := MakeScopedKey(ctx, s, base, "vastdash", ScopedPermissions(base, false), opener(srv))
	if !got.Kept || !strings.Contains(got.Why, "may not make keys") || got.Access.Verdict(UserWrite) != Denied {
		t.Fatalf("%+v", got)
	}
	if len(srv.CreatedKeys()) != 0 {
		t.Fatal("a key was made")
	}
}

// A new key that fails any probe is deleted and the pasted one kept,
// saying why; so is one the server gave more than asked.
func TestMakeScopedKeyDeletedWhenAProbeFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault demoserver.Fault
		why   string
	}{
		{"403 on instances", demoserver.Fault{Path: "/api/v1/instances", Times: 1, Status: 403, Body: `{"msg":"permission denied"}`}, "instance_read did not pass"},
		{"server down for the new key", demoserver.Fault{Path: "/api/v0/users/current", Times: 1, Status: 500, Body: `{"msg":"boom"}`}, "user_read did not pass"},
		{"more than asked", demoserver.Fault{Method: "POST", Path: "/api/v0/auth/apikeys", Times: 1, Mutate: func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"billing_read":{}`), []byte(`"billing_read":{},"billing_write":{}`), 1)
		}}, "more than asked (billing_write)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, s, _ := demotest.Start(t, accessOpts, demoserver.DemoKey, accessClientOpts()...)
			ctx := context.Background()
			base, err := Probe(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			srv.AddFault(tc.fault)
			got := MakeScopedKey(ctx, s, base, "vastdash", ScopedPermissions(base, false), opener(srv))
			if !got.Kept || !strings.Contains(got.Why, tc.why) || !strings.Contains(got.Why, "it was deleted") || !strings.Contains(got.Why, "keeping the pasted key") {
				t.Fatalf("%+v", got)
			}
			if made := srv.CreatedKeys(); len(made) != 1 || !made[0].Deleted {
				t.Fatalf("the failed key is not deleted: %+v", made)
			}
			if strings.Contains(got.Why, srv.CreatedKeys()[0].Key) {
				t.Fatal("the reason quotes the new key")
			}
		})
	}
}

// When the delete fails too, the user is told to delete it by name.
func TestMakeScopedKeyCannotDelete(t *testing.T) {
	srv, s, _ := demotest.Start(t, accessOpts, demoserver.DemoKey, accessClientOpts()...)
	ctx := context.Background()
	base, _ := Probe(ctx, s)
	srv.AddFault(demoserver.Fault{Path: "/api/v1/instances", Times: 1, Status: 403, Body: `{"msg":"permission denied"}`})
	srv.AddFault(demoserver.Fault{Method: "DELETE", Status: 500, Body: `{"msg":"boom"}`})
	got := MakeScopedKey(ctx, s, base, "vastdash test key", ScopedPermissions(base, false), opener(srv))
	if !got.Kept || !strings.Contains(got.Why, "could not be deleted") || !strings.Contains(got.Why, "vastdash test key") {
		t.Fatalf("%+v", got)
	}
}

// refusing counts the requests it refuses, by path, as a server that went
// down would: no response at all.
type refusing struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *refusing) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.n[req.URL.Path]++
	r.mu.Unlock()
	return nil, errors.New("connection refused")
}

// A server the account lookup cannot reach is down for every probe: the
// others stop instead of retrying on their endpoints' pacing (3 s apart
// for the payment records), so a sign-in against a server down says so in
// the time of the account's own retries.
func TestCheckAccessStopsWhenTheServerIsDown(t *testing.T) {
	tr := &refusing{n: map[string]int{}}
	client, err := api.New("http://127.0.0.1:9", demoserver.DemoKey, api.WithHTTPClient(&http.Client{Transport: tr}),
		api.WithBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	s := billing.New(context.Background(), client)
	defer s.Close()
	if _, err := Probe(context.Background(), s); !errors.Is(err, api.ErrTransport) {
		t.Fatalf("got %v", err)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if n := tr.n[api.InvoicesPath]; n >= 4 {
		t.Fatalf("the payment records were asked %d times: every retry, though the server was down", n)
	}
}

// A delete whose answer is lost is sent again, and the repeat finds the
// key gone (404): it was deleted, and the user is told so — not to delete
// it in the console. A 404 while the list still holds the key is no
// deletion.
func TestDeleteKeyWhoseAnswerWasLost(t *testing.T) {
	srv, s, base := verifiedDemo(t)
	ctx := context.Background()
	srv.AddFault(demoserver.Fault{Path: "/api/v1/instances", Times: 1, Status: 403, Body: `{"msg":"permission denied"}`})
	srv.AddFault(demoserver.Fault{Method: "DELETE", Times: 1, ResetAfterBytes: 1})
	got := MakeScopedKey(ctx, s, base, "vastdash lost answer", ScopedPermissions(base, false), opener(srv))
	if !got.Kept || !strings.Contains(got.Why, "it was deleted") || strings.Contains(got.Why, "console") {
		t.Fatalf("%+v", got)
	}
	if made := srv.CreatedKeys(); len(made) != 1 || !made[0].Deleted {
		t.Fatalf("made %+v", made)
	}

	// A 404 from something else (a proxy) while the key is still there.
	other := MakeScopedKey(ctx, s, base, "vastdash kept", ScopedPermissions(base, false), opener(srv))
	if other.Kept {
		t.Fatal(other.Why)
	}
	srv.AddFault(demoserver.Fault{Method: "DELETE", Times: 1, Status: 404, Body: `{"msg":"no route"}`})
	if err := DeleteKey(ctx, s, other.Key.ID); err == nil {
		t.Fatal("a key still listed was reported deleted")
	}
}

// A create whose outcome nobody knows — a gateway's 502 after the server
// made the key, a connection lost while the answer came, an answer that
// cannot be read, ctrl+c after it was sent — is settled by the account's
// keys: the one that appeared is deleted, and the user is not told that
// no key was made.
func TestMakeScopedKeyUnknownOutcome(t *testing.T) {
	post := func(f demoserver.Fault) demoserver.Fault {
		f.Method, f.Path, f.Times = "POST", "/api/v0/auth/apikeys", 1
		return f
	}
	for _, tc := range []struct {
		name   string
		fault  demoserver.Fault
		cancel bool // ctrl+c once the server made the key
	}{
		{"502 after it was made", post(demoserver.Fault{Status: 502, Applied: true, Body: "<html>Bad Gateway</html>", ContentType: "text/html"}), false},
		{"503 after it was made", post(demoserver.Fault{Status: 503, Applied: true, Body: "<html>busy</html>", ContentType: "text/html"}), false},
		{"connection lost in the answer", post(demoserver.Fault{ResetAfterBytes: 3}), false},
		{"an answer that is not JSON", post(demoserver.Fault{Mutate: func([]byte) []byte { return []byte(`{"id":`) }}), false},
		{"an answer with an id and no key", post(demoserver.Fault{Mutate: func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"key":"`), []byte(`"key":" `), 1)
		}}), false},
		{"ctrl+c after it was sent", demoserver.Fault{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, s, base := verifiedDemo(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				made, release := make(chan struct{}), make(chan struct{})
				t.Cleanup(func() { close(release) }) // before the server closes
				srv.AddFault(post(demoserver.Fault{Mutate: func(b []byte) []byte {
					close(made)
					<-release
					return b
				}}))
				go func() { <-made; cancel() }()
			} else {
				srv.AddFault(tc.fault)
			}
			got := MakeScopedKey(ctx, s, base, "vastdash (read-only) on box", ScopedPermissions(base, false), opener(srv))
			if !got.Kept || !strings.Contains(got.Why, "it was deleted") || strings.Contains(got.Why, "no key was made") {
				t.Fatalf("%+v", got)
			}
			if made := srv.CreatedKeys(); len(made) != 1 || !made[0].Deleted {
				t.Fatalf("the key made is left on the account: %+v", made)
			}
		})
	}
}

// When the keys cannot be listed, an unknown outcome names the key to
// look for in the console; a refusal is no key made, and nothing else is
// deleted.
func TestMakeScopedKeyUnknownOutcomeUnlisted(t *testing.T) {
	srv, s, base := verifiedDemo(t)
	ctx := context.Background()
	srv.AddFault(demoserver.Fault{Method: "GET", Path: "/api/v0/auth/apikeys", Status: 500, Body: `{"msg":"boom"}`})
	srv.AddFault(demoserver.Fault{Method: "POST", Path: "/api/v0/auth/apikeys", Times: 1, Status: 502, Applied: true, Body: "bad gateway"})
	got := MakeScopedKey(ctx, s, base, "vastdash (read-only) on box", ScopedPermissions(base, false), opener(srv))
	if !got.Kept || !strings.Contains(got.Why, "vastdash (read-only) on box") || !strings.Contains(got.Why, "console") || strings.Contains(got.Why, "no key was made") {
		t.Fatalf("%+v", got)
	}

	srv.ClearFaults()
	srv.AddFault(demoserver.Fault{Method: "POST", Path: "/api/v0/auth/apikeys", Times: 1, Status: 400, Body: `{"error":"invalid_permissions","msg":"no"}`})
	got = MakeScopedKey(ctx, s, base, "vastdash refused", ScopedPermissions(base, false), opener(srv))
	if !got.Kept || !strings.Contains(got.Why, "no key was made") {
		t.Fatalf("%+v", got)
	}
	if made := srv.CreatedKeys(); len(made) != 1 || made[0].Deleted {
		t.Fatalf("keys %+v: the refusal deleted one", made)
	}
}

// A new key's rights are checked whatever the create's answer says of
// them: when it says nothing, the account's list of keys is read for them;
// rights still unknown, beyond what was asked, or short of it (user_write
// asked for changing alerts) delete the key, and the "read-only" label is
// never taken on trust.
func TestMakeScopedKeyChecksTheRights(t *testing.T) {
	noPerms := demoserver.Fault{Method: "POST", Path: "/api/v0/auth/apikeys", Times: 1, Mutate: func(b []byte) []byte {
		i := bytes.Index(b, []byte(`,"permissions":`))
		return append(b[:i:i], '}')
	}}
	listed := func(mutate func([]byte) []byte) demoserver.Fault {
		return demoserver.Fault{Method: "GET", Path: "/api/v0/auth/apikeys", Mutate: mutate}
	}
	for _, tc := range []struct {
		name   string
		write  bool
		faults []demoserver.Fault
		why    string // "": the key is kept
	}{
		{"the list says them", false, []demoserver.Fault{noPerms}, ""},
		{"the list says more than asked", false, []demoserver.Fault{noPerms, listed(func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`"billing_read":{}`), []byte(`"billing_read":{},"billing_write":{}`))
		})}, "more than asked (billing_write)"},
		{"nothing says them", false, []demoserver.Fault{noPerms, listed(func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`"rights":{`), []byte(`"rights":false,"x":{`))
		})}, "could not tell what the new key may do"},
		{"the list cannot be read", false, []demoserver.Fault{noPerms, {Method: "GET", Path: "/api/v0/auth/apikeys", Times: 2, Status: 500, Body: `{"msg":"boom"}`}},
			"could not tell what the new key may do"},
		{"user_write asked, not given", true, []demoserver.Fault{{Method: "POST", Path: "/api/v0/auth/apikeys", Times: 1, Mutate: func(b []byte) []byte {
			return bytes.Replace(b, []byte(`,"user_write":{}`), nil, 1)
		}}}, "not give the new key user_write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, s, base := verifiedDemo(t)
			for _, f := range tc.faults {
				srv.AddFault(f)
			}
			got := MakeScopedKey(context.Background(), s, base, "vastdash", ScopedPermissions(base, tc.write), opener(srv))
			made := srv.CreatedKeys()
			if len(made) != 1 {
				t.Fatalf("made %+v", made)
			}
			if tc.why == "" {
				if got.Kept || made[0].Deleted || verdicts(got.Access) != "✓✓✗✓✗✓" {
					t.Fatalf("%+v", got)
				}
				return
			}
			if !got.Kept || !strings.Contains(got.Why, tc.why) || !made[0].Deleted {
				t.Fatalf("%+v, made %+v", got, made)
			}
		})
	}
}

// verifiedDemo is a demo server, the service of its full key and that
// key's access, verified.
func verifiedDemo(t *testing.T) (*demoserver.Server, *billing.Service, Access) {
	t.Helper()
	srv, s, _ := demotest.Start(t, accessOpts, demoserver.DemoKey, accessClientOpts()...)
	base, err := Probe(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return srv, s, base
}
