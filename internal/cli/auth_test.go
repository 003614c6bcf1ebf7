package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// authServer is a demo server that paces none of the probes' endpoints
// and knows the canary key, with full access.
func authServer(t *testing.T) *demoserver.Server {
	t.Helper()
	srv := startServer(t, demoserver.Options{Contracts: 20, InstancesThreshold: -1, InvoicesThreshold: -1})
	srv.AddKey(canaryKey, "canary", nil)
	return srv
}

// authCase is one run of an auth command: what is in the key file's
// folder before, what is on stdin or typed at the prompt, and whether
// there is a terminal.
type authCase struct {
	before   func(t *testing.T, keyFile string)
	stdin    string
	typed    string // read at the no-echo prompt (a terminal)
	terminal bool
	env      string // VAST_API_KEY
	ledger   bool   // runs may keep the ledger (as outside the tests)
	width    int    // the terminal's width, 0 for none
}

// keyFile is where the key is saved in the test's home.
func keyFile() string { return filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vastai", "vast_api_key") }

// runAuth runs args against srv as c says, with no pacing of the probes,
// and checks that neither the canary key nor a key the server made was
// printed.
func runAuth(t *testing.T, srv *demoserver.Server, c authCase, args ...string) result {
	t.Helper()
	res := headlessWith(t, srv, c.env, func(e *env) {
		e.clientOptions = append(e.clientOptions,
			api.WithEndpointThreshold(api.InvoicesPath, 0), api.WithEndpointThreshold(api.InstancesPath, 0),
			api.WithEndpointThreshold(api.APIKeysPath, 0), api.WithBackoff(time.Millisecond, 4*time.Millisecond))
		e.stdin = strings.NewReader(c.stdin)
		if c.terminal {
			onTerminal(c.stdin)(e)
		}
		e.readSecret = func(context.Context) (string, error) { return c.typed, nil }
		e.ledger = c.ledger
		if c.width > 0 {
			atWidth(c.width)(e)
		}
		if c.before != nil {
			c.before(t, keyFile())
		}
	}, args...)
	out := res.out + res.errOut
	if strings.Contains(out, "CANARY") || strings.Contains(out, "7f3a9c") {
		t.Fatalf("%v: the key leaked: %q", args, out)
	}
	for _, k := range srv.CreatedKeys() {
		if strings.Contains(out, k.Key) {
			t.Fatalf("%v: a key the server made was printed: %q", args, out)
		}
	}
	return res
}

// saved is the key file's content, "" when there is none.
func saved(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(keyFile())
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAuthLoginWithToken(t *testing.T) {
	srv := authServer(t)
	res := runAuth(t, srv, authCase{stdin: "  " + canaryKey + "\n"}, "auth", "login", "--with-token")
	res.ok(t)
	if !strings.Contains(res.out, "signed in as demo@vastdash.example; the key is saved to ~/.config/vastai/vast_api_key") {
		t.Fatalf("stdout %q", res.out)
	}
	for _, want := range []string{"billing_read   ✓", "user_write     ?", "instance_read  ✓"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("stdout lacks %q: %q", want, res.out)
		}
	}
	if got := saved(t); got != canaryKey+"\n" {
		t.Fatalf("saved %q", got)
	}
	info, err := os.Stat(keyFile())
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v %v", info.Mode(), err)
	}
	if d, _ := os.Stat(filepath.Dir(keyFile())); d.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v", d.Mode())
	}
	// VAST_API_KEY still wins over the saved file: said.
	res = runAuth(t, srv, authCase{stdin: canaryKey, env: demoserver.KeyReadOnly}, "auth", "login", "--with-token", "--yes")
	res.ok(t)
	if !strings.Contains(res.errOut, "VAST_API_KEY wins over the saved key while it is set") {
		t.Fatalf("stderr %q", res.errOut)
	}
	// Nothing but reads reached the server.
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			t.Errorf("login sent %s %s", r.Method, r.Path)
		}
	}
}

// At a terminal the key is read without echo; the answer is the same.
func TestAuthLoginAtTheTerminal(t *testing.T) {
	srv := authServer(t)
	res := runAuth(t, srv, authCase{terminal: true, typed: canaryKey}, "auth", "login")
	res.ok(t)
	if !strings.Contains(res.errOut, "will not show") || saved(t) != canaryKey+"\n" {
		t.Fatalf("stderr %q, saved %q", res.errOut, saved(t))
	}
	// The prompt ran to 81 columns and the answer broke "payme" / "nts"
	// at 80: both now break between words.
	res = runAuth(t, srv, authCase{terminal: true, typed: canaryKey, width: 80}, "auth", "login")
	res.ok(t)
	if wide := tooWide(res.errOut+res.out, 80); len(wide) > 0 || !strings.Contains(res.errOut, "\n") {
		t.Errorf("lines wider than 80 %q in\n%s%s", wide, res.errOut, res.out)
	}
	if !strings.Contains(res.out, "the Statement (charges,\n                  payments, statement)") {
		t.Errorf("a permission's words do not continue under it:\n%s", res.out)
	}
	// No terminal, no --with-token: a usage error, nothing read.
	res = runAuth(t, srv, authCase{}, "auth", "login")
	res.failed(t, exitUsage, "--with-token")
}

// Every failure before the save writes nothing: a wrong key, the server
// down, characters no key has.
func TestAuthLoginFailuresWriteNothing(t *testing.T) {
	srv := authServer(t)
	res := runAuth(t, srv, authCase{stdin: "wrong-key"}, "auth", "login", "--with-token")
	res.failed(t, exitRuntime, "rejected")
	if saved(t) != "" {
		t.Fatal("a wrong key was saved")
	}
	res = runAuth(t, srv, authCase{stdin: "CANARY\x1b[2Jkey"}, "auth", "login", "--with-token")
	res.failed(t, exitUsage, "control or non-ASCII")
	if saved(t) != "" || strings.Contains(res.errOut, "\x1b") {
		t.Fatalf("saved %q, stderr %q", saved(t), res.errOut)
	}
	res = runAuth(t, srv, authCase{stdin: strings.Repeat("k", maxTokenInput+1)}, "auth", "login", "--with-token")
	res.failed(t, exitUsage, "more than a key")

	down := authServer(t)
	down.Close()
	res = runAuth(t, down, authCase{stdin: canaryKey}, "auth", "login", "--with-token")
	res.failed(t, exitRuntime, "cannot reach")
	if saved(t) != "" {
		t.Fatal("saved while the server was down")
	}
}

// A key tried at sign-in, or whose permissions auth status checks, opens
// no ledger: a wrong key would otherwise leave a ledger file behind for an
// account that is not there ("a wrong key: nothing written"). A key
// signed in leaves only the file naming its account (its user id) for its
// first run.
func TestAuthProbesOpenNoLedger(t *testing.T) {
	srv := authServer(t)
	// Each run has a home of its own: what is there after it, it wrote.
	noLedger := func(res result, code int, signedIn bool) {
		t.Helper()
		if res.code != code {
			t.Fatalf("exit %d, stderr %q", res.code, res.errOut)
		}
		files, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_DATA_HOME"), "vastdash", "*"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); signedIn && strings.HasSuffix(f, ".account") && string(b) == "u"+strconv.FormatInt(srv.UserID(), 10)+"\n" {
				continue
			}
			t.Fatalf("wrote %v", files)
		}
	}
	noLedger(runAuth(t, srv, authCase{stdin: "wrong-key", ledger: true}, "auth", "login", "--with-token"), exitRuntime, false)
	noLedger(runAuth(t, srv, authCase{stdin: canaryKey, ledger: true}, "auth", "login", "--with-token"), 0, true)
	noLedger(runAuth(t, srv, authCase{stdin: canaryKey, ledger: true}, "auth", "login", "--with-token", "--scoped"), 0, true)
	noLedger(runAuth(t, srv, authCase{env: canaryKey, ledger: true}, "auth", "status"), 0, false)
	noLedger(runAuth(t, srv, authCase{env: "wrong-key", ledger: true}, "auth", "status"), exitRuntime, false)
}

// signInWith is the sign-in's ways to the world against srv, as the
// dashboard's sign-in screen gets them, in an empty home; what it says on
// stderr after the screen is in errb.
func signInWith(t *testing.T, srv *demoserver.Server) (si *signIn, errb *strings.Builder) {
	t.Helper()
	isolate(t)
	var out strings.Builder
	errb = &strings.Builder{}
	e := testEnv(&out, errb)
	e.clientOptions = []api.Option{api.WithChargesThreshold(threshold), api.WithEndpointThreshold(api.InvoicesPath, 0),
		api.WithEndpointThreshold(api.InstancesPath, 0), api.WithEndpointThreshold(api.APIKeysPath, 0)}
	e.now = srv.Now
	x := &execution{env: e}
	x.globals.flags.URL = srv.URL()
	si = &signIn{x: x, base: context.Background()}
	t.Cleanup(si.close)
	return si, errb
}

// A wrong key is said in the sign-in's own words, on the screen and by
// auth login: what to check, not "sign in again with vastdash auth
// login" while signing in.
func TestSignInWrongKeyWords(t *testing.T) {
	srv := authServer(t)
	si, _ := signInWith(t, srv)
	_, err := si.funcs().Verify(context.Background(), "wrong-key")
	if err == nil || !strings.Contains(err.Error(), "the server rejected this key — check you copied all of it") || strings.Contains(err.Error(), "auth") {
		t.Fatalf("the screen says %v", err)
	}
	res := runAuth(t, srv, authCase{stdin: "wrong-key"}, "auth", "login", "--with-token")
	res.failed(t, exitRuntime, "the server rejected this key — check you copied all of it")
	if strings.Contains(res.errOut, "auth login") {
		t.Fatalf("stderr %q", res.errOut)
	}
}

// The sign-in screen can end (a signal, a second ctrl+c) while a key for
// vastdash is being made: the sign-in waits for that work before it closes
// the session it uses, and deletes a key made and never saved, saying so
// on stderr.
func TestSignInEndsWhileAKeyIsMade(t *testing.T) {
	srv := authServer(t)
	si, errb := signInWith(t, srv)
	f := si.funcs()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := f.Verify(ctx, canaryKey); err != nil {
		t.Fatal(err)
	}
	// The new key's verification takes a while: the screen ends meanwhile.
	srv.AddFault(demoserver.Fault{KeyName: srv.NextKeyName(), Path: "/api/v0/users/current", Delay: 300 * time.Millisecond})
	scoped := make(chan bool, 1)
	go func() { scoped <- !f.Scope(ctx, false).Kept }()
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.CreatedKeys()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no key was made")
		}
		time.Sleep(time.Millisecond)
	}
	si.close()
	if !<-scoped {
		t.Fatal("the key was not made")
	}
	if made := srv.CreatedKeys(); len(made) != 1 || !made[0].Deleted {
		t.Fatalf("the key made and never saved is left on the account: %+v", made)
	}
	if !strings.Contains(errb.String(), "was not saved") || !strings.Contains(errb.String(), "it was deleted") || saved(t) != "" {
		t.Fatalf("stderr %q, saved %q", errb.String(), saved(t))
	}
	// Nothing starts once it has ended.
	if sc := f.Scope(ctx, false); !sc.Kept || len(srv.CreatedKeys()) != 1 {
		t.Fatalf("a key was made after the end: %+v", sc)
	}
}

// A 403 on one probe: signed in, that permission ✗ with what it unlocks.
func TestAuthLoginOneProbeRefused(t *testing.T) {
	srv := authServer(t)
	srv.AddFault(demoserver.Fault{Path: "/api/v1/invoices", Status: 403, Body: `{"success":false,"msg":"permission denied"}`})
	res := runAuth(t, srv, authCase{stdin: canaryKey}, "auth", "login", "--with-token")
	res.ok(t)
	if !strings.Contains(res.out, "billing_read   ✗  charges") || !strings.Contains(res.out, "refused: this key lacks billing_read") {
		t.Fatalf("stdout %q", res.out)
	}
}

// An existing key file is replaced only when the user says so.
func TestAuthLoginExistingFile(t *testing.T) {
	srv := authServer(t)
	old := func(t *testing.T, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old-key\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := runAuth(t, srv, authCase{before: old, stdin: canaryKey}, "auth", "login", "--with-token")
	// No terminal to ask on is known before the key is sent anywhere.
	res.failed(t, exitUsage, "auth login asks before it replaces the key file ~/.config/vastai/vast_api_key, and stdin is not a terminal to ask on: add --yes (nothing was written)")
	if saved(t) != "old-key\n" || len(srv.Requests()) != 0 {
		t.Fatalf("replaced without asking, or %d requests sent", len(srv.Requests()))
	}
	res = runAuth(t, srv, authCase{before: old, terminal: true, typed: canaryKey, stdin: "n\n"}, "auth", "login")
	if res.code != exitRuntime || saved(t) != "old-key\n" || !strings.Contains(res.errOut, "already exists. Replace it? [y/N]") ||
		!strings.HasSuffix(res.errOut, "vastdash: nothing was written: the answer was not yes\n") {
		t.Fatalf("exit %d, saved %q, stderr %q", res.code, saved(t), res.errOut)
	}
	res = runAuth(t, srv, authCase{before: old, terminal: true, typed: canaryKey, stdin: "y\n"}, "auth", "login")
	res.ok(t)
	if saved(t) != canaryKey+"\n" {
		t.Fatal("y did not replace")
	}
	res = runAuth(t, srv, authCase{before: old, stdin: canaryKey}, "auth", "login", "--with-token", "--yes")
	res.ok(t)
	if saved(t) != canaryKey+"\n" {
		t.Fatal("--yes did not replace")
	}
}

// A link at the target is neither written through nor replaced, --yes or
// not; a folder that cannot be written is said in one line.
func TestAuthLoginUnwritableTarget(t *testing.T) {
	srv := authServer(t)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	link := func(t *testing.T, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, p); err != nil {
			t.Fatal(err)
		}
	}
	res := runAuth(t, srv, authCase{before: link, stdin: canaryKey}, "auth", "login", "--with-token", "--yes")
	res.failed(t, exitUsage, "symbolic link")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests before saying the key cannot be saved", n)
	}
	if _, err := os.Lstat(elsewhere); !os.IsNotExist(err) {
		t.Fatal("written through the link")
	}
	if got, _ := os.Readlink(keyFile()); got != elsewhere {
		t.Fatal("the link was replaced")
	}

	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	readOnly := func(t *testing.T, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Dir(p), 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(filepath.Dir(p), 0o700) })
	}
	res = runAuth(t, srv, authCase{before: readOnly, stdin: canaryKey}, "auth", "login", "--with-token")
	res.failed(t, exitUsage, "permission denied; nothing was written")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests before saying the key cannot be saved", n)
	}
}

// --scoped: a key for vastdash alone is made, verified and saved instead;
// the pasted one is not saved.
func TestAuthLoginScoped(t *testing.T) {
	srv := authServer(t)
	res := runAuth(t, srv, authCase{stdin: canaryKey}, "auth", "login", "--with-token", "--scoped")
	res.ok(t)
	made := srv.CreatedKeys()
	if len(made) != 1 || made[0].Deleted || strings.Join(made[0].Perms, ",") != "billing_read,instance_read,misc,user_read" {
		t.Fatalf("made %+v", made)
	}
	if saved(t) != made[0].Key+"\n" {
		t.Fatal("the new key was not saved")
	}
	if !strings.Contains(res.out, "with a key made for vastdash alone, \"vastdash (read-only)") || !strings.Contains(res.out, "user_write     ✗") {
		t.Fatalf("stdout %q", res.out)
	}
	// --alerts adds user_write.
	res = runAuth(t, srv, authCase{stdin: canaryKey}, "auth", "login", "--with-token", "--scoped", "--alerts", "--yes")
	res.ok(t)
	if made := srv.CreatedKeys(); len(made) != 2 || !strings.Contains(strings.Join(made[1].Perms, ","), "user_write") || !strings.Contains(res.out, "user_write     ✓") {
		t.Fatalf("made %+v, stdout %q", made, res.out)
	}
	runAuth(t, srv, authCase{stdin: canaryKey}, "auth", "login", "--with-token", "--alerts").failed(t, exitUsage, "--alerts goes with --scoped")
}

// A new key that fails a probe is deleted, the pasted one saved, and
// stderr says why and which key was saved, exit 1: a script that asked for
// a key for vastdash alone read exit 0 while the full key was saved.
func TestAuthLoginScopedKeyFailsAProbe(t *testing.T) {
	srv := authServer(t)
	srv.AddFault(demoserver.Fault{Path: "/api/v1/instances", KeyName: srv.NextKeyName(), Status: 403, Body: `{"msg":"permission denied"}`})
	res := runAuth(t, srv, authCase{stdin: canaryKey}, "auth", "login", "--with-token", "--scoped")
	res.failed(t, exitRuntime, "the key given is the one saved")
	if made := srv.CreatedKeys(); len(made) != 1 || !made[0].Deleted {
		t.Fatalf("the failed key was not deleted: %+v", made)
	}
	if saved(t) != canaryKey+"\n" || !strings.Contains(res.errOut, "instance_read did not pass") || !strings.Contains(res.errOut, "keeping the pasted key") {
		t.Fatalf("saved %q, stderr %q", saved(t), res.errOut)
	}
	// A key that may not make keys is saved as it is, saying so.
	res = runAuth(t, srv, authCase{stdin: demoserver.KeyScoped}, "auth", "login", "--with-token", "--scoped", "--yes")
	res.failed(t, exitRuntime, "the key given is the one saved")
	if saved(t) != demoserver.KeyScoped+"\n" || !strings.Contains(res.errOut, "may not make keys") {
		t.Fatalf("saved %q, stderr %q", saved(t), res.errOut)
	}
}

// The --debug log of a scoped login holds neither the key given nor the
// key made (the answer that shows it once is redacted).
func TestAuthLoginDebugLogHoldsNoKey(t *testing.T) {
	srv := authServer(t)
	log := filepath.Join(t.TempDir(), "debug.log")
	runAuth(t, srv, authCase{stdin: canaryKey}, "auth", "login", "--with-token", "--scoped", "--debug", log).ok(t)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	made := srv.CreatedKeys()
	if len(made) != 1 || !strings.Contains(string(b), "POST "+srv.URL()+"/api/v0/auth/apikeys/") {
		t.Fatalf("the log lacks the create:\n%s", b)
	}
	if strings.Contains(string(b), "CANARY") || strings.Contains(string(b), made[0].Key) || strings.Contains(string(b), made[0].Key[:20]) {
		t.Fatalf("a key reached the debug log:\n%s", b)
	}
}

func TestAuthStatus(t *testing.T) {
	srv := authServer(t)
	res := runAuth(t, srv, authCase{env: canaryKey}, "auth", "status")
	res.ok(t)
	for _, want := range []string{"from the environment variable VAST_API_KEY", "account   demo@vastdash.example", "billing_read   ✓", "user_write     ?  changing alerts"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.out)
		}
	}
	// A file other users can read.
	open := func(t *testing.T, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(demoserver.KeyReadOnly), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res = runAuth(t, srv, authCase{before: open}, "auth", "status", "--json")
	res.ok(t)
	var st statusJSON
	if err := json.Unmarshal([]byte(res.out), &st); err != nil {
		t.Fatal(err)
	}
	if st.Source != "file" || st.Path != keyFile() || !st.ReadableByOthers || st.Email != "demo@vastdash.example" || len(st.Permissions) != 6 ||
		st.Permissions[3].Name != "instance_read" || st.Permissions[3].Granted != "no" || st.Permissions[2].Granted != "unknown" {
		t.Fatalf("%+v", st)
	}
	res = runAuth(t, srv, authCase{before: open}, "auth", "status")
	if !strings.Contains(res.out, "other users can read it: chmod 600 ~/.config/vastai/vast_api_key") {
		t.Fatalf("stdout %q", res.out)
	}
	// VAST_API_KEY beside a saved key: said, since the saved one is not
	// the one in use.
	res = runAuth(t, srv, authCase{before: open, env: canaryKey}, "auth", "status")
	if !strings.Contains(res.out, "from the environment variable VAST_API_KEY, which wins over the key saved in ~/.config/vastai/vast_api_key") {
		t.Fatalf("stdout %q", res.out)
	}
	// --api-key-file is named as such.
	file := filepath.Join(t.TempDir(), "k")
	if err := os.WriteFile(file, []byte(canaryKey), 0o600); err != nil {
		t.Fatal(err)
	}
	res = runAuth(t, srv, authCase{}, "auth", "status", "--api-key-file", file)
	if !strings.Contains(res.out, "from --api-key-file "+file+" (only you can read it)") {
		t.Fatalf("stdout %q", res.out)
	}
}

// A key that fails is exit 1, naming where it came from; none at all is
// exit 2, as for every command.
func TestAuthStatusFailures(t *testing.T) {
	srv := authServer(t)
	res := runAuth(t, srv, authCase{env: "wrong-key"}, "auth", "status")
	res.failed(t, exitRuntime, "the key from the environment variable VAST_API_KEY: the API key was rejected")
	// The hint once (it was said twice), and not "auth status shows the
	// key in use" to a user running auth status.
	if n := strings.Count(res.errOut, "sign in again"); n != 1 || strings.Contains(res.errOut, "auth status") {
		t.Errorf("the hint %d times, or pointing at auth status: %q", n, res.errOut)
	}
	runAuth(t, srv, authCase{}, "auth", "status").failed(t, exitUsage, "no API key: sign in with vastdash auth login (or run vastdash at a terminal)")
	srv.RevokeKey(canaryKey)
	runAuth(t, srv, authCase{env: canaryKey}, "auth", "status", "--json").failed(t, exitRuntime, "rejected")
	// What to do is said once: the command's explained error was explained
	// again on its way out, and the advice came twice on one line.
	r := runAuth(t, srv, authCase{env: canaryKey}, "auth", "status")
	if n := strings.Count(r.errOut, "sign in again"); n != 1 {
		t.Errorf("the advice is said %d times: %q", n, r.errOut)
	}
}

func TestAuthLogout(t *testing.T) {
	srv := authServer(t)
	key := func(t *testing.T, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(canaryKey), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Without a terminal it does not ask: --yes or nothing.
	res := runAuth(t, srv, authCase{before: key}, "auth", "logout")
	res.failed(t, exitUsage, "auth logout asks before it removes ~/.config/vastai/vast_api_key, and stdin is not a terminal to ask on: add --yes (nothing was removed)")
	if saved(t) == "" {
		t.Fatal("removed without --yes")
	}
	res = runAuth(t, srv, authCase{before: key, terminal: true, stdin: "n\n"}, "auth", "logout")
	if res.code != exitRuntime || saved(t) == "" || res.out != "" || !strings.Contains(res.errOut, "(the vastai CLI reads it too)? [y/N]") ||
		!strings.HasSuffix(res.errOut, "vastdash: nothing was removed: the answer was not yes\n") {
		t.Fatalf("n: %q %q", res.out, res.errOut)
	}
	res = runAuth(t, srv, authCase{before: key, terminal: true, stdin: "y\n"}, "auth", "logout")
	res.ok(t)
	if saved(t) != "" || !strings.Contains(res.out, "removed ~/.config/vastai/vast_api_key") {
		t.Fatalf("y: %q", res.out)
	}
	res = runAuth(t, srv, authCase{before: key}, "auth", "logout", "--yes")
	res.ok(t)
	if saved(t) != "" {
		t.Fatal("--yes did not remove")
	}
	// The legacy file read next is named.
	both := func(t *testing.T, p string) {
		key(t, p)
		if err := os.WriteFile(filepath.Join(os.Getenv("HOME"), ".vast_api_key"), []byte(canaryKey), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res = runAuth(t, srv, authCase{before: both}, "auth", "logout", "--yes")
	if !strings.Contains(res.out, "vastdash now reads the key in ~/.vast_api_key") {
		t.Fatalf("stdout %q", res.out)
	}
	// A key from the environment is named and nothing is touched.
	res = runAuth(t, srv, authCase{before: key, env: canaryKey}, "auth", "logout", "--yes")
	res.ok(t)
	if saved(t) == "" || !strings.Contains(res.out, "the key comes from VAST_API_KEY") {
		t.Fatalf("env: %q", res.out)
	}
	res = runAuth(t, srv, authCase{}, "auth", "logout", "--yes")
	if !strings.Contains(res.out, "no key file to remove") {
		t.Fatalf("none: %q", res.out)
	}
}

// The dashboard without a terminal on both ends changes nothing: no key
// is exit 2 with the line naming the way in first (it named only where a
// key could be put).
func TestDashboardWithoutTerminalStillExits2(t *testing.T) {
	srv := authServer(t)
	for _, terminal := range []bool{false, true} { // stdin a terminal, stdout not
		res := runAuth(t, srv, authCase{terminal: terminal})
		res.failed(t, exitUsage, "no API key: sign in with vastdash auth login (or run vastdash at a terminal), or set VAST_API_KEY; --demo needs none")
	}
}

// --demo has its own key: status says so, login and logout refuse.
func TestAuthDemo(t *testing.T) {
	isolate(t)
	code, out, errOut := runMain("--demo", "auth", "status")
	if code != 0 || !strings.Contains(out, "key       from the demo server (--demo)") || !strings.Contains(out, "demo@vastdash.example") {
		t.Fatalf("exit %d %q %q", code, out, errOut)
	}
	for _, cmd := range []string{"login", "logout"} {
		if code, _, errOut := runMain("--demo", "auth", cmd); code != exitUsage || !strings.Contains(errOut, "--demo needs no key") {
			t.Errorf("%s: exit %d %q", cmd, code, errOut)
		}
	}
}

func TestAuthNeedsASubcommand(t *testing.T) {
	code, _, errOut := runMain("auth")
	if code != exitUsage || !strings.Contains(errOut, "login, status or logout") {
		t.Fatalf("exit %d %q", code, errOut)
	}
	code, _, errOut = runMain("auth", "logn")
	if code != exitUsage || !strings.Contains(errOut, `did you mean "login"`) && !strings.Contains(errOut, "did you mean login") {
		t.Fatalf("exit %d %q", code, errOut)
	}
}
