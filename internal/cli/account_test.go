package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/money"
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
