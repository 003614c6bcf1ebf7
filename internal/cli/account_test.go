package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui"
	"github.com/vastdash/vastdash/ui/accounts"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/signin"
)

// The keys of the accounts fixture: the personal account is reached by
// the demo key and by a scoped key of its own; the lab team by its team
// key; a fourth key was revoked.
const (
	labKey     = "1ab0000000000000000000000000000000000000000000000000000000000001"
	revokedKey = "0dd0000000000000000000000000000000000000000000000000000000000004"
)

// accountsFixture is one host serving two accounts by key: three keys
// that work (two of them one account's) and a revoked fourth, like a
// person with a personal and a team account.
type accountsFixture struct {
	url            string
	personal, team *demoserver.Server
	home           string
	settings       string
}

// newAccountsFixture starts the two accounts behind one loopback URL
// (VAST_URL), the demo key as the usual key (VAST_API_KEY), and settings
// naming lab, scoped (the personal account's scoped key) and old (the
// revoked key).
func newAccountsFixture(t *testing.T) *accountsFixture {
	t.Helper()
	home := isolate(t)
	personal := demoserver.New(demoserver.Options{Seed: 1, Now: demoNow, Threshold: threshold, Contracts: 400})
	team := demoserver.New(demoserver.Options{Seed: 7, Now: demoNow, Threshold: threshold, Contracts: 300})
	team.AddKey(labKey, "lab", nil)
	personal.AddKey(revokedKey, "old", nil)
	personal.RevokeKey(revokedKey)
	// The API picks the account by the key: so does this host.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.TrimSpace(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) == labKey {
			team.Handler().ServeHTTP(w, r)
			return
		}
		personal.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(team.Close)
	t.Cleanup(personal.Close)
	t.Cleanup(ts.Close)
	t.Setenv("VAST_URL", ts.URL)
	t.Setenv("VAST_API_KEY", demoserver.DemoKey)
	keys := filepath.Join(home, ".config", "vastdash", "keys")
	for name, key := range map[string]string{"lab": labKey, "scoped": demoserver.KeyScoped, "old": revokedKey} {
		writePrivateTestFile(t, filepath.Join(keys, name), key+"\n")
	}
	settings := filepath.Join(home, ".config", "vastdash", "config.toml")
	writePrivateTestFile(t, settings, `timezone = "UTC"

[accounts.lab]
key_file = "~/.config/vastdash/keys/lab"

[accounts.scoped]
key_file = "keys/scoped"

[accounts.old]
key_file = "keys/old"
`)
	return &accountsFixture{url: ts.URL, personal: personal, team: team, home: home, settings: settings}
}

func writePrivateTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run is one run against the fixture's host.
func (f *accountsFixture) run(t *testing.T, tweak func(*env), args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	r := testEnv(&out, &errb)
	r.clientOptions = []api.Option{api.WithChargesThreshold(threshold)}
	r.now = f.personal.Now
	r.context = func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	if tweak != nil {
		tweak(r)
	}
	code := run(args, r)
	return result{code, out.String(), errb.String()}
}

// requests is how many requests both accounts were sent.
func (f *accountsFixture) requests() int { return len(f.personal.Requests()) + len(f.team.Requests()) }

func creditOf(t *testing.T, out string) (money.Amount, string) {
	t.Helper()
	var v struct {
		Account string       `json:"account"`
		Credit  money.Amount `json:"credit"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	return v.Credit, v.Account
}

func TestAccountFlagReadsThatAccount(t *testing.T) {
	f := newAccountsFixture(t)
	r := f.run(t, nil, "credit", "--account", "lab", "--output", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if c, acct := creditOf(t, r.out); int64(c) != f.team.Credit() || acct != "lab" {
		t.Errorf("credit --account lab: %v of %q, want the team's %d of \"lab\"", c, acct, f.team.Credit())
	}
	if strings.Contains(r.out+r.errOut, labKey) {
		t.Error("the key is in the output")
	}
	// VASTDASH_ACCOUNT is the same choice.
	t.Setenv("VASTDASH_ACCOUNT", "lab")
	r = f.run(t, nil, "credit", "--json")
	if c, acct := creditOf(t, r.out); r.code != 0 || int64(c) != f.team.Credit() || acct != "lab" {
		t.Errorf("VASTDASH_ACCOUNT=lab: exit %d, %v of %q", r.code, c, acct)
	}
	// The flag wins over the variable: the usual key is "default".
	r = f.run(t, nil, "credit", "--json", "--account", "default")
	if c, acct := creditOf(t, r.out); r.code != 0 || int64(c) != f.personal.Credit() || acct != "default" {
		t.Errorf("--account default: exit %d, %v of %q", r.code, c, acct)
	}
}

func TestAccountJSONWithoutAChoiceIsAsBefore(t *testing.T) {
	f := newAccountsFixture(t)
	r := f.run(t, nil, "credit", "--json")
	if c, acct := creditOf(t, r.out); r.code != 0 || int64(c) != f.personal.Credit() || acct != "" {
		t.Errorf("exit %d, %v, account %q (want none named)", r.code, c, acct)
	}
}

func TestAccountUnknownIsUsageBeforeAnyRequest(t *testing.T) {
	f := newAccountsFixture(t)
	for _, args := range [][]string{{"credit", "--account", "labb"}, {"--account", "labb"}} {
		r := f.run(t, nil, args...)
		if r.code != 2 || !strings.Contains(r.errOut, "default, lab, old, scoped") || r.out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", args, r.code, r.errOut, r.out)
		}
	}
	r := f.run(t, nil, "credit", "--account", "a/b")
	if r.code != 2 || !strings.Contains(r.errOut, "letters, digits") {
		t.Errorf("a bad name: exit %d, %q", r.code, r.errOut)
	}
	if n := f.requests(); n != 0 {
		t.Errorf("%d requests before the name was checked", n)
	}
}

// rollUp is the accounts command's JSON.
type rollUp struct {
	Accounts []struct {
		Name         string        `json:"name"`
		Email        *string       `json:"email"`
		UserID       *int64        `json:"user_id"`
		Credit       *money.Amount `json:"credit"`
		RatePerHour  *json.Number  `json:"rate_per_hour"`
		MonthSoFar   *money.Amount `json:"month_so_far"`
		Forecast     *money.Amount `json:"forecast"`
		LeaksPerHour *json.Number  `json:"leaks_per_hour"`
		SameAs       string        `json:"same_as"`
		Error        string        `json:"error"`
	} `json:"accounts"`
	Total struct {
		Accounts int          `json:"accounts"`
		Credit   money.Amount `json:"credit"`
		Complete bool         `json:"complete"`
	} `json:"total"`
}

func TestAccountsRollUpCountsAnAccountOnce(t *testing.T) {
	f := newAccountsFixture(t)
	r := f.run(t, nil, "accounts", "--output", "json")
	if r.code != 1 || !strings.Contains(r.errOut, "1 of 4 accounts could not be read") {
		t.Errorf("exit %d, stderr %q: want 1 and the failed account said", r.code, r.errOut)
	}
	var got rollUp
	if err := json.Unmarshal([]byte(r.out), &got); err != nil {
		t.Fatalf("%v in %q", err, r.out)
	}
	byName := map[string]int{}
	for i, a := range got.Accounts {
		byName[a.Name] = i
	}
	if len(got.Accounts) != 4 {
		t.Fatalf("rows %+v, want default, lab, old, scoped", got.Accounts)
	}
	want := map[string]int64{"default": f.personal.Credit(), "scoped": f.personal.Credit(), "lab": f.team.Credit()}
	for name, credit := range want {
		a := got.Accounts[byName[name]]
		if a.Error != "" || a.Credit == nil || int64(*a.Credit) != credit || a.UserID == nil || a.MonthSoFar == nil || a.Forecast == nil || a.LeaksPerHour == nil {
			t.Errorf("%s: %+v, want credit %d and every figure", name, a, credit)
		}
	}
	if s := got.Accounts[byName["scoped"]].SameAs; s != "default" {
		t.Errorf("scoped is the personal account again: same_as %q, want default", s)
	}
	old := got.Accounts[byName["old"]]
	if old.Error == "" || old.Credit != nil {
		t.Errorf("the revoked key's row: %+v, want an error and no figures", old)
	}
	if !strings.Contains(old.Error, "sign in again with vastdash auth login --account old;") || !strings.Contains(old.Error, "vastdash auth status --account old shows") {
		t.Errorf("the revoked key's row does not name its own way in: %q", old.Error)
	}
	if int64(got.Total.Credit) != f.personal.Credit()+f.team.Credit() || got.Total.Accounts != 2 || got.Total.Complete {
		t.Errorf("total %+v: want the two accounts' credit once each (%d), incomplete", got.Total, f.personal.Credit()+f.team.Credit())
	}
	for _, k := range []string{labKey, revokedKey, demoserver.DemoKey, demoserver.KeyScoped} {
		if strings.Contains(r.out+r.errOut, k) {
			t.Error("a key is in the output")
		}
	}
}

func TestAccountsRollUpTextAndCSV(t *testing.T) {
	f := newAccountsFixture(t)
	// Only the two that work: the revoked one's table goes.
	writePrivateTestFile(t, f.settings, "[accounts.lab]\nkey_file = \"keys/lab\"\n")
	r := f.run(t, nil, "accounts")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	total := money.Amount(f.personal.Credit() + f.team.Credit()).Credit()
	if !strings.Contains(r.out, "total (2 accounts)") || !strings.Contains(r.out, total) || !strings.Contains(r.out, money.Amount(f.team.Credit()).Credit()) {
		t.Errorf("text:\n%s\nwant the total %s of 2 accounts", r.out, total)
	}
	r = f.run(t, nil, "accounts", "--output", "csv")
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if r.code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "name,email,user_id,credit,") || !strings.HasPrefix(lines[3], "total,,,"+money.Amount(f.personal.Credit()+f.team.Credit()).Decimal()) {
		t.Errorf("csv: exit %d\n%s", r.code, r.out)
	}
}

// Two keys of one account share its ledger: the second key (a scoped one)
// reopens the history the first fetched in at most 3 requests, and answers
// the same; another account has a ledger of its own.
func TestLedgerSharedByTwoKeysOfOneAccount(t *testing.T) {
	f := newAccountsFixture(t)
	data := t.TempDir()
	args := append([]string{"charges", "--output", "csv"}, wholeSpan()...)
	first := f.run(t, withLedger(t, data), args...)
	first.ok(t)
	files := ledgerFiles(t, data)
	if len(files) != 1 {
		t.Fatalf("ledgers after the first key: %v", files)
	}
	f.personal.ResetRequests()
	second := f.run(t, withLedger(t, data), append(args, "--account", "scoped")...)
	second.ok(t)
	if second.out != first.out {
		t.Error("the second key's answer differs from the first's")
	}
	// The account once (whose ledger is it?), then the ledger's reopen:
	// at most 3 charges requests, as for the first key.
	if n, who := len(chargesRequests(f.personal)), f.personal.CountPath("/api/v0/users/current"); n > 3 || who > 1 {
		t.Errorf("the second key of the account asked %d charges requests and the account %d times, want the ledger reopened in ≤ 3 and one", n, who)
	}
	if got := ledgerFiles(t, data); len(got) != 1 || got[0] != files[0] {
		t.Errorf("ledgers after the second key: %v, want %v alone", got, files)
	}
	f.run(t, withLedger(t, data), "charges", "--account", "lab").ok(t)
	if got := ledgerFiles(t, data); len(got) != 2 {
		t.Errorf("ledgers after another account: %v, want two", got)
	}
	for _, p := range ledgerFiles(t, data) {
		for _, k := range []string{labKey, demoserver.DemoKey, demoserver.KeyScoped} {
			if strings.Contains(p, k) {
				t.Errorf("a key in a file name: %s", p)
			}
		}
	}
}

// auth login --account saves the key in keys/NAME (0600, folder 0700) and
// appends its table to the settings, keeping every line there; the
// account works at once; logout removes the key.
func TestAuthLoginAccountAddsAnAccount(t *testing.T) {
	f := newAccountsFixture(t)
	before, err := os.ReadFile(f.settings)
	if err != nil {
		t.Fatal(err)
	}
	login := func(name string, args ...string) result {
		return f.run(t, func(e *env) { e.stdin = strings.NewReader(labKey + "\n") }, append([]string{"auth", "login", "--with-token", "--account", name}, args...)...)
	}
	r := login("team2")
	r.ok(t)
	path := filepath.Join(f.home, ".config", "vastdash", "keys", "team2")
	st, err := os.Lstat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v %v", st, err)
	}
	if d, _ := os.Stat(filepath.Dir(path)); d.Mode().Perm() != 0o700 {
		t.Errorf("the keys folder is %v", d.Mode().Perm())
	}
	after, _ := os.ReadFile(f.settings)
	if !strings.HasPrefix(string(after), string(before)) || !strings.Contains(string(after), "[accounts.team2]\nkey_file = '~/.config/vastdash/keys/team2'\n") {
		t.Errorf("the settings became:\n%s", after)
	}
	if strings.Contains(r.out+r.errOut+string(after), labKey) {
		t.Error("the key is in the output or the settings")
	}
	// Usable at once.
	r = f.run(t, nil, "credit", "--json", "--account", "team2")
	if c, acct := creditOf(t, r.out); r.code != 0 || int64(c) != f.team.Credit() || acct != "team2" {
		t.Errorf("credit --account team2: exit %d %s, %v of %q", r.code, r.errOut, c, acct)
	}
	r = f.run(t, nil, "auth", "status", "--account", "team2", "--json")
	if r.code != 0 || !strings.Contains(r.out, `"account": "team2"`) {
		t.Errorf("auth status --account: exit %d %s %s", r.code, r.out, r.errOut)
	}
	// A name the settings give another key file is refused before any
	// request, and the settings are left as they were.
	text, _ := os.ReadFile(f.settings)
	writePrivateTestFile(t, f.settings, string(text)+"[accounts.elsewhere]\nkey_file = \"/somewhere/else\"\n")
	n := f.requests()
	r = login("elsewhere", "--yes")
	if r.code != 2 || !strings.Contains(r.errOut, "already in the settings") || f.requests() != n {
		t.Errorf("login to elsewhere: exit %d, %q, %d requests", r.code, r.errOut, f.requests()-n)
	}
	r = f.run(t, nil, "auth", "logout", "--account", "team2", "--yes")
	if _, err := os.Lstat(path); r.code != 0 || !os.IsNotExist(err) {
		t.Errorf("logout --account: exit %d %s, the file: %v", r.code, r.errOut, err)
	}
}

// serve exports every account, each series labelled with its name, one
// refresh loop each; the revoked key's account has vast_up 0 and
// /healthz names it.
func TestServeExportsEveryAccount(t *testing.T) {
	f := newAccountsFixture(t)
	s := &serving{stderr: &syncBuffer{}, stdout: &syncBuffer{}, code: make(chan int, 1)}
	e := testEnv(s.stdout, s.stderr)
	e.now = f.personal.Now
	e.clientOptions = []api.Option{api.WithChargesThreshold(threshold), api.WithEndpointThreshold(api.InstancesPath, threshold)}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	e.context = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	go func() { s.code <- run([]string{"serve", "--listen", "127.0.0.1:0"}, e) }()
	t.Cleanup(func() { s.stop(t) })
	deadline := time.Now().Add(20 * time.Second)
	for s.base == "" {
		if m := servingURL.FindStringSubmatch(s.stderr.String()); m != nil {
			s.base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("serve did not say where it listens: %s", s.stderr)
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
	// Every account's first refresh ended: the revoked one failing.
	var health string
	for {
		var code int
		code, health = s.get(t, "/healthz")
		if code == http.StatusServiceUnavailable && !strings.Contains(health, "starting") && strings.Contains(health, "old: failing") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz %d %q", code, health)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(health, "lab:") || strings.Contains(health, "default:") {
		t.Errorf("/healthz names an account that works: %q", health)
	}
	_, metrics := s.get(t, "/metrics")
	for _, want := range []string{`vast_up{account="default"} 1`, `vast_up{account="lab"} 1`, `vast_up{account="scoped"} 1`, `vast_up{account="old"} 0`,
		`vast_credit_dollars{account="lab"} ` + money.Amount(f.team.Credit()).Decimal(), `vast_credit_dollars{account="default"} `} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, line := range strings.Split(metrics, "\n") {
		if strings.HasPrefix(line, "vast_") && !strings.Contains(line, `account="`) {
			t.Errorf("a series without its account: %s", line)
			break
		}
	}
	if strings.Contains(metrics+s.stderr.String(), labKey) || strings.Contains(metrics+s.stderr.String(), revokedKey) {
		t.Error("a key in the metrics or the log")
	}
}

// The dashboard's header names the account once the settings name
// accounts, and each account but the default remembers its filters in a
// file of its own.
func TestDashboardNamesTheAccount(t *testing.T) {
	home := isolate(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	lab := &Session{Account: "lab", accountNamed: true, Host: "127.0.0.1:9"}
	if got := lab.headerName(); got != "lab @ 127.0.0.1:9" {
		t.Errorf("header %q", got)
	}
	def := &Session{Account: "default"}
	if got := def.headerName(); got != "" {
		t.Errorf("no accounts configured: header %q, want as before", got)
	}
	def.Settings.Accounts = []config.Account{{Name: "lab"}}
	if got := def.headerName(); got != "default" {
		t.Errorf("accounts configured: header %q, want default", got)
	}
	if a, b := lab.statePath(), def.statePath(); a == b || filepath.Base(a) != "state-lab.toml" || filepath.Base(b) != "state.toml" {
		t.Errorf("state files %s and %s", a, b)
	}
}

// VASTDASH_ACCOUNT with a name no account can have is a usage error for
// auth login and auth logout, as --account is: not a silent fall back to
// the usual key, which logout would remove and login replace while the
// user means another account.
func TestAuthAccountFromEnvironmentMustBeAName(t *testing.T) {
	isolate(t)
	srv := startServer(t, demoserver.Options{Contracts: 50})
	t.Setenv("VAST_URL", srv.URL())
	usual := config.KeySavePath(config.DefaultEnv())
	writePrivateTestFile(t, usual, demoserver.DemoKey+"\n")
	for _, name := range []string{"my.lab", "../lab", "lab team"} {
		t.Setenv("VASTDASH_ACCOUNT", name)
		var out, errb bytes.Buffer
		e := testEnv(&out, &errb)
		code := run([]string{"auth", "logout", "--yes"}, e)
		if _, err := os.Lstat(usual); code != 2 || err != nil || !strings.Contains(errb.String(), "VASTDASH_ACCOUNT") {
			t.Errorf("VASTDASH_ACCOUNT=%q auth logout: exit %d %q, the usual key file: %v", name, code, errb.String(), err)
		}
		out.Reset()
		errb.Reset()
		e = testEnv(&out, &errb)
		e.stdin = strings.NewReader(labKey + "\n")
		code = run([]string{"auth", "login", "--with-token", "--yes"}, e)
		text, _ := os.ReadFile(usual)
		if code != 2 || string(text) != demoserver.DemoKey+"\n" || len(srv.Requests()) != 0 {
			t.Errorf("VASTDASH_ACCOUNT=%q auth login: exit %d %q, %d requests, the usual key file changed: %v", name, code, errb.String(), len(srv.Requests()), string(text) != demoserver.DemoKey+"\n")
		}
	}
}

// An account that cannot be read says why under the table, not in the
// EMAIL column: a long reason (a revoked key's advice, a key file's path)
// there widened every row of the roll-up past any terminal.
func TestAccountsRollUpReasonDoesNotWidenTheTable(t *testing.T) {
	f := newAccountsFixture(t)
	r := f.run(t, nil, "accounts")
	if r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	lines := strings.Split(r.out, "\n")
	header := lines[0]
	email, credit := strings.Index(header, "EMAIL"), strings.Index(header, "CREDIT")
	if widest := len("demo@vastdash.example (= default)"); email < 0 || credit-email > widest+len("  $1,000,000.00") {
		t.Errorf("the EMAIL column is %d wide, its widest e-mail %d:\n%s", credit-email, widest, r.out)
	}
	var old string
	for _, l := range lines {
		if strings.Contains(l, "old") {
			old += l + "\n"
		}
	}
	if !strings.Contains(old, "✗") || !strings.Contains(old, "rejected") {
		t.Errorf("the revoked account's reason is not said:\n%s", r.out)
	}
}

// A named account's refused key says to sign in to that account: the
// usual advice, vastdash auth login, would replace the personal key.
func TestRefusedKeyOfAnAccountNamesItInTheAdvice(t *testing.T) {
	f := newAccountsFixture(t)
	for _, args := range [][]string{{"credit", "--account", "old"}, {"auth", "status", "--account", "old"}, {"accounts"}} {
		r := f.run(t, nil, args...)
		if text := r.out + r.errOut; !strings.Contains(text, "auth login --account old") || strings.Contains(text, "auth login;") {
			t.Errorf("%v: exit %d, want the advice for old:\n%s", args, r.code, text)
		}
	}
}

// Signing in to LAB beside lab is refused before any request: on macOS
// and Windows it would replace lab's key file.
func TestAuthLoginAccountCaseTwinRefused(t *testing.T) {
	f := newAccountsFixture(t)
	r := f.run(t, func(e *env) { e.stdin = strings.NewReader(labKey + "\n") }, "auth", "login", "--with-token", "--yes", "--account", "LAB")
	if _, err := os.Lstat(filepath.Join(f.home, ".config", "vastdash", "keys", "LAB")); r.code != 2 || f.requests() != 0 || !strings.Contains(r.errOut, "only in case") || err == nil {
		t.Errorf("login --account LAB: exit %d %q, %d requests, keys/LAB: %v", r.code, r.errOut, f.requests(), err)
	}
}

// A settings file auth login --account cannot add the table to (a link
// into a dotfiles repository) is said before any request, as exit 2
// promises: the key was checked and saved first, then the run ended in a
// usage error with the key left in keys/NAME and no table naming it.
func TestAuthLoginAccountSettingsLinkBeforeAnyRequest(t *testing.T) {
	f := newAccountsFixture(t)
	real := filepath.Join(f.home, "dotfiles", "config.toml")
	text, _ := os.ReadFile(f.settings)
	writePrivateTestFile(t, real, string(text))
	if err := os.Remove(f.settings); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, f.settings); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	r := f.run(t, func(e *env) { e.stdin = strings.NewReader(labKey + "\n") }, "auth", "login", "--with-token", "--account", "team2")
	_, err := os.Lstat(filepath.Join(f.home, ".config", "vastdash", "keys", "team2"))
	if r.code != 2 || f.requests() != 0 || err == nil || !strings.Contains(r.errOut, "[accounts.team2]") {
		t.Errorf("exit %d %q, %d requests, keys/team2: %v", r.code, r.errOut, f.requests(), err)
	}
	if after, _ := os.ReadFile(real); string(after) != string(text) {
		t.Errorf("the settings changed:\n%s", after)
	}
}

// dashboardProbe runs the real dashboard model as ui.Run would, in a
// program of the test's (no terminal), and publishes its screen after
// every update so the test waits for what a user would see.
type dashboardProbe struct {
	m      *ui.Model
	mu     sync.Mutex
	screen string
	seen   chan struct{}
	prog   *tea.Program
	done   chan error
}

type probeModel struct{ p *dashboardProbe }

func (w probeModel) Init() tea.Cmd  { return w.p.m.Init() }
func (w probeModel) View() tea.View { return w.p.m.View() }
func (w probeModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := w.p.m.Update(msg)
	text := ansi.Strip(w.p.m.View().Content)
	w.p.mu.Lock()
	w.p.screen = text
	w.p.mu.Unlock()
	select {
	case w.p.seen <- struct{}{}:
	default:
	}
	return w, cmd
}

func startProbe(base context.Context, ctx *shared.Context, opts ui.Options, events *ui.Events) *dashboardProbe {
	ctx.Base = base
	p := &dashboardProbe{m: ui.New(ctx, opts), seen: make(chan struct{}, 1), done: make(chan error, 1)}
	p.prog = tea.NewProgram(probeModel{p}, tea.WithContext(base), tea.WithInput(nil), tea.WithOutput(io.Discard),
		tea.WithWindowSize(100, 30), tea.WithoutSignalHandler())
	events.Attach(p.prog)
	go func() { _, err := p.prog.Run(); p.done <- err }()
	return p
}

func (p *dashboardProbe) waitFor(t *testing.T, what string, cond func(string) bool) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		p.mu.Lock()
		s := p.screen
		p.mu.Unlock()
		if cond(s) {
			return s
		}
		select {
		case <-p.seen:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
	}
}

// end waits for the program's end: Run's answer, a SwitchAccount when
// enter on the Accounts screen chose one.
func (p *dashboardProbe) end(t *testing.T) error {
	t.Helper()
	select {
	case err := <-p.done:
		if err == nil && p.m.SwitchTo() != "" {
			return ui.SwitchAccount{Name: p.m.SwitchTo()}
		}
		if err == nil && p.m.Adding() {
			return ui.AddAccount{}
		}
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the dashboard did not end")
		return nil
	}
}

func key(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

// With two accounts or more, 0 shows the roll-up, as vastdash accounts
// reads it, and enter on lab opens the whole dashboard on lab: the header
// names it, the Overview shows lab's credit, its filters are lab's file;
// the roll-up is not read again for it.
func TestDashboardAccountsScreenSwitches(t *testing.T) {
	f := newAccountsFixture(t)
	host := strings.TrimPrefix(f.url, "http://")
	personal, team := money.Amount(f.personal.Credit()).Credit(), money.Amount(f.team.Credit()).Credit()
	var runs []ui.Options
	var states []string
	tweak := func(e *env) {
		e.isTerminal = func(io.Writer) bool { return true }
		e.tty = func() bool { return true }
		e.runUI = func(base context.Context, ctx *shared.Context, opts ui.Options, events *ui.Events) error {
			runs = append(runs, opts)
			states = append(states, ctx.State.Path())
			p := startProbe(base, ctx, opts, events)
			switch len(runs) {
			case 1:
				p.waitFor(t, "the default account's credit", contains("credit "+personal))
				p.prog.Send(key('0'))
				s := p.waitFor(t, "the roll-up", contains("total (2 accounts)"))
				if !strings.Contains(lineWith(s, " lab "), team) || !strings.Contains(lineWith(s, " default ●"), personal) || !strings.Contains(lineWith(s, " old "), "✗") {
					t.Errorf("the roll-up's rows:\n%s", s)
				}
				p.prog.Send(key('j'))
				p.waitFor(t, "the cursor on lab", func(s string) bool { return strings.HasPrefix(lineWith(s, " lab "), "▸") })
				p.prog.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
			case 2:
				s := p.waitFor(t, "lab's credit on the Overview", func(s string) bool {
					return strings.Contains(lineWith(s, "Credit "), team)
				})
				if head := strings.Split(s, "\n")[0]; !strings.Contains(head, "lab @ "+host) || !strings.Contains(head, "credit "+team) {
					t.Errorf("the header does not name lab with its credit: %q", head)
				}
				// The revoked key is read by the roll-up alone.
				before := f.keyRequests("old")
				if before == 0 {
					t.Error("the roll-up did not read the revoked account")
				}
				p.prog.Send(key('0'))
				s = p.waitFor(t, "the roll-up again", contains("total (2 accounts)"))
				if !strings.Contains(lineWith(s, " lab ●"), team) {
					t.Errorf("lab is not the one open:\n%s", s)
				}
				if n := f.keyRequests("old") - before; n != 0 {
					t.Errorf("%d requests to show the roll-up again, want it kept", n)
				}
				p.prog.Send(key('q'))
			}
			return p.end(t)
		}
	}
	r := f.run(t, tweak)
	if r.code != 0 || len(runs) != 2 {
		t.Fatalf("exit %d after %d runs, stderr %q", r.code, len(runs), r.errOut)
	}
	if runs[0].Accounts == nil || runs[0].Accounts.Current != "default" || runs[1].Accounts.Current != "lab" {
		t.Errorf("the accounts open: %+v, %+v", runs[0].Accounts, runs[1].Accounts)
	}
	if filepath.Base(states[0]) != "state.toml" || filepath.Base(states[1]) != "state-lab.toml" {
		t.Errorf("remembered filters in %s then %s, want each account's own", states[0], states[1])
	}
}

// With one account (or the demo) there is no Accounts screen.
func TestDashboardNoAccountsScreenForTheDemo(t *testing.T) {
	isolate(t)
	var got *accounts.Options
	opened := false
	var out, errb bytes.Buffer
	e := testEnv(&out, &errb)
	e.isTerminal = func(io.Writer) bool { return true }
	e.tty = func() bool { return true }
	e.runUI = func(_ context.Context, _ *shared.Context, opts ui.Options, _ *ui.Events) error {
		got, opened = opts.Accounts, true
		return nil
	}
	if code := run([]string{"--demo"}, e); code != 0 || !opened || got != nil {
		t.Fatalf("exit %d (%s), ran %v, accounts %+v: want no Accounts screen", code, errb.String(), opened, got)
	}
}

// keyRequests is how many requests the key named name sent.
func (f *accountsFixture) keyRequests(name string) int {
	n := 0
	for _, r := range f.personal.Requests() {
		if r.KeyName == name {
			n++
		}
	}
	return n
}

func contains(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// lineWith is the first line of s holding sub, "" when none.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// An account whose key went between the roll-up and enter is not opened:
// the dashboard comes back on the account that was open, saying why.
func TestDashboardAccountGoneStaysOnTheOpenOne(t *testing.T) {
	f := newAccountsFixture(t)
	personal := money.Amount(f.personal.Credit()).Credit()
	var runs []ui.Options
	tweak := func(e *env) {
		e.isTerminal = func(io.Writer) bool { return true }
		e.tty = func() bool { return true }
		e.runUI = func(base context.Context, ctx *shared.Context, opts ui.Options, events *ui.Events) error {
			runs = append(runs, opts)
			p := startProbe(base, ctx, opts, events)
			switch len(runs) {
			case 1:
				p.rollUp(t)
				if err := os.Remove(filepath.Join(f.home, ".config", "vastdash", "keys", "lab")); err != nil {
					t.Error(err)
				}
				p.prog.Send(key('j'))
				p.waitFor(t, "the cursor on lab", func(s string) bool { return strings.HasPrefix(lineWith(s, " lab "), "▸") })
				p.prog.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
			default:
				s := p.waitFor(t, "why lab was not opened", contains("not opened: lab"))
				if head := strings.Split(s, "\n")[0]; !strings.Contains(head, "default @ ") || !strings.Contains(p.waitFor(t, "the credit", contains("credit "+personal)), "credit "+personal) {
					t.Errorf("not back on default: %q", head)
				}
				p.prog.Send(key('q'))
			}
			return p.end(t)
		}
	}
	r := f.run(t, tweak)
	if r.code != 0 || len(runs) != 2 || runs[1].Accounts.Current != "default" || !strings.Contains(runs[1].Warning, "not opened: lab") {
		t.Fatalf("exit %d after %d runs (%q): want the second on default, saying why", r.code, len(runs), r.errOut)
	}
}

// auth login --account NAME --url X keeps X as the account's own host
// (url in its table, checked as --url is): the account is read there when
// VAST_URL points elsewhere, and signing in to it again tries the key
// there. A --url that is not one is exit 2 with nothing written or sent.
func TestAuthLoginAccountStoresTheURL(t *testing.T) {
	f := newAccountsFixture(t)
	login := func(args ...string) result {
		return f.run(t, func(e *env) { e.stdin = strings.NewReader(labKey + "\n") }, append([]string{"auth", "login", "--with-token", "--yes", "--account", "team2"}, args...)...)
	}
	before, _ := os.ReadFile(f.settings)
	n := f.requests()
	for _, bad := range []string{"http://example.com", "ftp://" + strings.TrimPrefix(f.url, "http://"), f.url + "/?x=1"} {
		if r := login("--url", bad); r.code != 2 || f.requests() != n || strings.Contains(r.errOut, labKey) {
			t.Errorf("--url %s: exit %d %q, %d requests", bad, r.code, r.errOut, f.requests()-n)
		}
	}
	if after, _ := os.ReadFile(f.settings); string(after) != string(before) {
		t.Errorf("a bad --url changed the settings:\n%s", after)
	}
	if _, err := os.Lstat(filepath.Join(f.home, ".config", "vastdash", "keys", "team2")); !os.IsNotExist(err) {
		t.Errorf("a bad --url saved the key: %v", err)
	}
	login("--url", f.url+"/").ok(t)
	after, _ := os.ReadFile(f.settings)
	if !strings.HasSuffix(string(after), "[accounts.team2]\nkey_file = '~/.config/vastdash/keys/team2'\nurl = '"+f.url+"'\n") {
		t.Errorf("the settings became:\n%s", after)
	}
	// Nothing listens at VAST_URL now: only the account's url reaches it.
	t.Setenv("VAST_URL", "http://127.0.0.1:1")
	r := f.run(t, nil, "credit", "--json", "--account", "team2")
	if c, _ := creditOf(t, r.out); r.code != 0 || int64(c) != f.team.Credit() {
		t.Errorf("credit --account team2 at its url: exit %d %s, %v", r.code, r.errOut, c)
	}
	login().ok(t)
	if again, _ := os.ReadFile(f.settings); string(again) != string(after) {
		t.Errorf("signing in again changed the settings:\n%s", again)
	}
}

// Each account keeps its own Charges cursor across a switch: default's
// cursor moved well down its rows, then lab's, then default again and lab
// again: each opens on the contract its cursor was on (loading up to it),
// not on the first row.
func TestDashboardAccountKeepsItsChargesCursor(t *testing.T) {
	f := newAccountsFixture(t)
	cursorRow := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "›") {
				return l
			}
		}
		return ""
	}
	// down moves the cursor n rows, one at a time, and is its row.
	down := func(p *dashboardProbe, n int) string {
		row := cursorRow(p.waitFor(t, "the Charges rows", func(s string) bool { return cursorRow(s) != "" }))
		for range n {
			p.prog.Send(key('j'))
			was := row
			row = cursorRow(p.waitFor(t, "the cursor to move", func(s string) bool { return cursorRow(s) != was && cursorRow(s) != "" }))
		}
		return row
	}
	open := func(p *dashboardProbe, name string) {
		p.rollUp(t)
		for _, k := range []rune{'g', 'j'} { // default is the first row, lab the second
			if name == "default" && k == 'j' {
				break
			}
			p.prog.Send(key(k))
		}
		p.waitFor(t, "the cursor on "+name, func(s string) bool { return strings.HasPrefix(lineWith(s, " "+name+" "), "▸") })
		p.prog.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	}
	var kept = map[string]string{}
	runs := 0
	tweak := func(e *env) {
		e.isTerminal = func(io.Writer) bool { return true }
		e.tty = func() bool { return true }
		e.runUI = func(base context.Context, ctx *shared.Context, opts ui.Options, events *ui.Events) error {
			runs++
			p := startProbe(base, ctx, opts, events)
			name := opts.Accounts.Current
			p.prog.Send(key('2'))
			switch runs {
			case 1, 2:
				kept[name] = down(p, 40-runs*10) // past the first screen
				open(p, map[string]string{"default": "lab", "lab": "default"}[name])
			default:
				s := p.waitFor(t, name+"'s cursor where it was", func(s string) bool { return cursorRow(s) == kept[name] })
				if !strings.Contains(s, "lab @ ") != (name == "default") {
					t.Errorf("not on %s:\n%s", name, s)
				}
				if runs == 3 {
					open(p, "lab")
				} else {
					p.prog.Send(key('q'))
				}
			}
			return p.end(t)
		}
	}
	r := f.run(t, tweak)
	if r.code != 0 || runs != 4 {
		t.Fatalf("exit %d after %d runs, stderr %q", r.code, runs, r.errOut)
	}
	if kept["default"] == kept["lab"] || kept["default"] == "" {
		t.Errorf("the rows kept: %q", kept)
	}
}

// driveSignIn runs the sign-in screen's model m as a program would, msgs
// in order, each command's answer delivered before the next message (the
// spinner's ticks dropped: they only animate). It reports the screen last
// drawn and whether the screen quit.
func driveSignIn(m *signin.Model, msgs ...tea.Msg) (string, bool) {
	quit := false
	var deliver func(tea.Msg)
	run := func(cmd tea.Cmd) {
		if cmd != nil {
			deliver(cmd())
		}
	}
	deliver = func(msg tea.Msg) {
		switch msg := msg.(type) {
		case nil, spinner.TickMsg:
		case tea.BatchMsg:
			for _, c := range msg {
				run(c)
			}
		case tea.QuitMsg:
			quit = true
		default:
			_, cmd := m.Update(msg)
			run(cmd)
		}
	}
	for _, msg := range append([]tea.Msg{tea.WindowSizeMsg{Width: 80, Height: 24}}, msgs...) {
		deliver(msg)
	}
	return ansi.Strip(m.View().Content), quit
}

// typed is text typed key by key, then enter.
func typed(text string) []tea.Msg {
	var msgs []tea.Msg
	for _, r := range text {
		msgs = append(msgs, key(r))
	}
	return append(msgs, tea.KeyPressMsg{Code: tea.KeyEnter})
}

// + on the Accounts screen adds an account with the sign-in screen: a name
// the settings have already (or not a name) is refused there; the key is
// saved as auth login --account saves it (keys/NAME 0600, the table
// appended, the settings' text kept) and the dashboard opens on the new
// account at once, which the roll-up then shows.
func TestDashboardAddsAnAccount(t *testing.T) {
	f := newAccountsFixture(t)
	before, err := os.ReadFile(f.settings)
	if err != nil {
		t.Fatal(err)
	}
	team := money.Amount(f.team.Credit()).Credit()
	var runs []ui.Options
	var refused []string
	added := false
	tweak := func(e *env) {
		e.runSignIn = func(base context.Context, o signin.Options) (signin.Result, error) {
			added = true
			for _, name := range []string{"lab", "default", "LAB", "a b", "con"} {
				if _, err := o.AddAccount(name); err == nil {
					t.Errorf("the name %q was taken", name)
				} else {
					refused = append(refused, err.Error())
				}
			}
			m := signin.New(base, o)
			msgs := append(typed("team2"), tea.PasteMsg{Content: labKey + "\n"}, tea.KeyPressMsg{Code: tea.KeyEnter})
			if s, _ := driveSignIn(m, msgs...); !strings.Contains(s, "The key works") {
				t.Errorf("the key was not verified:\n%s", s)
			}
			if _, quit := driveSignIn(m, tea.KeyPressMsg{Code: tea.KeyEnter}); !quit {
				t.Error("the sign-in did not end on save")
			}
			return m.Result(), nil
		}
		onProbes(t, e, &runs, func(n int, p *dashboardProbe) {
			if n == 1 {
				p.rollUp(t)
				p.prog.Send(key('+'))
				return
			}
			s := p.waitFor(t, "team2's credit on the Overview", func(s string) bool { return strings.Contains(lineWith(s, "Credit "), team) })
			if head := strings.Split(s, "\n")[0]; !strings.Contains(head, "team2 @ ") {
				t.Errorf("the header does not name team2: %q", head)
			}
			p.prog.Send(key('0'))
			s = p.waitFor(t, "team2 in the roll-up", contains(" team2 ●"))
			if !strings.Contains(lineWith(s, " team2 ●"), team) {
				t.Errorf("team2's row:\n%s", s)
			}
			p.prog.Send(key('q'))
		})
	}
	r := f.run(t, tweak)
	if r.code != 0 || !added || len(runs) != 2 || runs[1].Accounts == nil || runs[1].Accounts.Current != "team2" || !strings.Contains(runs[1].Notice, "account team2 added") {
		t.Fatalf("exit %d (%q), added %v, %d runs", r.code, r.errOut, added, len(runs))
	}
	if len(refused) != 5 || !strings.Contains(refused[0], "there is an account lab already") || !strings.Contains(refused[2], "only in case") || !strings.Contains(refused[3], "letters, digits") {
		t.Errorf("the refusals: %q", refused)
	}
	path := filepath.Join(f.home, ".config", "vastdash", "keys", "team2")
	if st, err := os.Lstat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v %v", st, err)
	}
	after, _ := os.ReadFile(f.settings)
	if !strings.HasPrefix(string(after), string(before)) || !strings.HasSuffix(string(after), "\n[accounts.team2]\nkey_file = '~/.config/vastdash/keys/team2'\n") {
		t.Errorf("the settings became:\n%s", after)
	}
	if strings.Contains(r.out+r.errOut+string(after)+runs[1].Notice, labKey) {
		t.Error("the key is shown")
	}
}

// rollUp shows the Accounts screen and waits for its figures.
func (p *dashboardProbe) rollUp(t *testing.T) string {
	t.Helper()
	p.prog.Send(key('0'))
	return p.waitFor(t, "the roll-up", contains("total (2 accounts)"))
}

// onProbes runs each dashboard of a run as a probe on a terminal, its
// options added to runs, step driving the n-th (from 1) before it ends.
func onProbes(t *testing.T, e *env, runs *[]ui.Options, step func(n int, p *dashboardProbe)) {
	e.isTerminal = func(io.Writer) bool { return true }
	e.tty = func() bool { return true }
	e.runUI = func(base context.Context, ctx *shared.Context, opts ui.Options, events *ui.Events) error {
		*runs = append(*runs, opts)
		p := startProbe(base, ctx, opts, events)
		step(len(*runs), p)
		return p.end(t)
	}
}

// A key signed in with auth login --account is remembered as its
// account's there and then (the user id its verification read, beside the
// ledgers, in a file named by the key's digest): its first run reopens the
// account's ledger in at most 3 requests in all, the account not read
// again, and no file holds the key.
func TestSecondKeySignedInReopensTheLedgerInThreeRequests(t *testing.T) {
	f := newAccountsFixture(t)
	data := t.TempDir()
	args := append([]string{"charges", "--output", "csv"}, wholeSpan()...)
	first := f.run(t, withLedger(t, data), args...)
	first.ok(t)
	f.run(t, withLedger(t, data, func(e *env) { e.stdin = strings.NewReader(demoserver.KeyScoped + "\n") }),
		"auth", "login", "--with-token", "--account", "second").ok(t)
	f.personal.ResetRequests()
	second := f.run(t, withLedger(t, data), append(args, "--account", "second")...)
	second.ok(t)
	if second.out != first.out {
		t.Error("the second key's answer differs from the first's")
	}
	if n, who := len(f.personal.Requests()), f.personal.CountPath("/api/v0/users/current"); n > 3 || who != 0 {
		t.Errorf("the second key's first run sent %d requests (%d for the account), want ≤ 3 and none", n, who)
	}
	if got := ledgerFiles(t, data); len(got) != 1 {
		t.Errorf("ledgers: %v, want the account's alone", got)
	}
	_ = filepath.WalkDir(data, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			if strings.Contains(path+string(b), demoserver.KeyScoped) {
				t.Errorf("the key is in %s", path)
			}
		}
		return nil
	})
}

// esc at the added account's name goes back to the dashboard on the
// account that was open, its roll-up kept, nothing written.
func TestDashboardAddAccountCancelled(t *testing.T) {
	f := newAccountsFixture(t)
	before, _ := os.ReadFile(f.settings)
	var runs []ui.Options
	reads := 0
	r := f.run(t, func(e *env) {
		e.runSignIn = func(base context.Context, o signin.Options) (signin.Result, error) {
			m := signin.New(base, o)
			if _, quit := driveSignIn(m, key('x'), tea.KeyPressMsg{Code: tea.KeyEscape}); !quit {
				t.Error("esc did not leave")
			}
			return m.Result(), nil
		}
		onProbes(t, e, &runs, func(n int, p *dashboardProbe) {
			p.rollUp(t)
			if n == 1 {
				reads = f.keyRequests("old")
				p.prog.Send(key('+'))
				return
			}
			if got := f.keyRequests("old"); got != reads {
				t.Errorf("the roll-up was read again: %d requests", got-reads)
			}
			p.prog.Send(key('q'))
		})
	})
	if r.code != 0 || len(runs) != 2 || runs[1].Accounts.Current != "default" || runs[1].Notice != "" {
		t.Fatalf("exit %d (%q) after %d runs", r.code, r.errOut, len(runs))
	}
	if after, _ := os.ReadFile(f.settings); string(after) != string(before) {
		t.Errorf("the settings changed:\n%s", after)
	}
}
