package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ledger"
)

// The one money and date form (docs/scripting.md, "Money and dates"): text output
// writes money with the dollar sign and thousands separators, and times in
// the short form the screens use ("26 Nov 08:44"); JSON and CSV write RFC
// 3339, in the configured zone.
var (
	textMoney = regexp.MustCompile(`-?\$\d{1,3}(,\d{3})*\.\d{3}$`)
	textTime  = regexp.MustCompile(`^\S+\s+\d{1,2} [A-Z][a-z]{2} (\d{2}:\d{2}|\d{4})\s`)
	rfc3339Re = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}`)
)

// TestPaymentsTextSpeaksOneMoneyAndDate: payments printed 50.00 with no $
// and its dates as 2026-11-25T13:07:27Z beside the charges' 2026-11-26
// 04:36; now both are the screens' forms, and the machine outputs keep RFC
// 3339 in the settings' zone.
func TestPaymentsTextSpeaksOneMoneyAndDate(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10, InvoicesThreshold: -1})
	tokyo := withTimezone(t, "Asia/Tokyo")
	res := headlessWith(t, srv, demoserver.DemoKey, tokyo, "payments", "--from", "90d")
	res.ok(t)
	lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("too few records:\n%s", res.out)
	}
	for _, l := range lines[1:] {
		if !textMoney.MatchString(l) || !textTime.MatchString(l) || rfc3339Re.MatchString(l) {
			t.Errorf("row not in the one money and date form: %q", l)
		}
	}
	js := headlessWith(t, srv, demoserver.DemoKey, tokyo, "payments", "--from", "90d", "--json")
	js.ok(t)
	var rows []struct{ Created string }
	if err := json.Unmarshal([]byte(js.out), &rows); err != nil || len(rows) == 0 {
		t.Fatalf("%v\n%s", err, js.out)
	}
	for _, r := range rows {
		if !rfc3339Re.MatchString(r.Created) || !strings.HasSuffix(r.Created, "+09:00") {
			t.Errorf("JSON time %q is not RFC 3339 in the configured zone", r.Created)
		}
	}

	st := headless(t, srv, demoserver.DemoKey, "statement", "--months", "2")
	st.ok(t)
	// One precision in the view: the credit is the last closing, to the
	// thousandth, not $2,983.99 under a closing of $2,983.989.
	closing := regexp.MustCompile(`(\$[\d,]+\.\d{3})\s+\$[\d,]+\.\d{3}\n\n`).FindStringSubmatch(st.out)
	if closing == nil || !strings.Contains(st.out, "("+closing[1]+")") {
		t.Errorf("the credit is not written as the last closing:\n%s", st.out)
	}
}

// shortDate is the one short form of a date for people: "26 Nov 14:05",
// "30 Dec 2025".
var shortDate = regexp.MustCompile(`\b\d{1,2} [A-Z][a-z]{2} (\d{2}:\d{2}|\d{4})\b`)

// Every text answer for people dates things one short way: audit's leaks
// and price increases and the webhooks list were RFC 3339, as in JSON.
func TestTextAnswersDateOneShortWay(t *testing.T) {
	srv := auditServer(t)
	for _, args := range [][]string{{"audit"}, {"webhooks"}} {
		res := auditRun(t, srv, demoserver.DemoKey, func(e *env) {
			e.clientOptions = append(e.clientOptions, api.WithEndpointThreshold(api.WebhooksPath, 0))
		}, args...)
		if res.out == "" {
			t.Fatalf("%v: nothing printed (exit %d, %q)", args, res.code, res.errOut)
		}
		if rfc3339Re.MatchString(res.out) {
			t.Errorf("%v: an RFC 3339 time in the text answer:\n%s", args, res.out)
		}
		if !shortDate.MatchString(res.out) {
			t.Errorf("%v: no date in the short form:\n%s", args, res.out)
		}
	}
}

// Every error about a range, a month or a day says it the same way in every
// command: the flag and its value, then what is wrong. Before, statement
// --from a month to come said "--to  is before --from 2026-12", sync took a
// day to come and printed a ledger "from 2026-11-22 to 2026-11-21", charges
// left the flag out ("2026-11-22 is after today"), and a month before 2015
// was named without its flag, or after "--month:".
func TestRangesSpeakOneLanguage(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	const tomorrow, nextMonth = "2026-11-22", "2026-12"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"charges", "--from", tomorrow}, "bad date range: --from 2026-11-22 is after today"},
		{[]string{"charges", "--from", tomorrow, "--to", "2026-11-30"}, "bad date range: --from 2026-11-22 is after today"},
		{[]string{"payments", "--from", tomorrow}, "bad date range: --from 2026-11-22 is after today"},
		{[]string{"sync", "--from", tomorrow}, "bad date range: --from 2026-11-22 is after today"},
		{[]string{"charges", "--from", "2026-11-21T16:00:00Z"}, "bad date range: --from 2026-11-21T16:00:00Z is after now"},
		{[]string{"statement", "--from", nextMonth}, "bad date range: --from 2026-12 is after this month"},
		{[]string{"statement", "--from", "2026-10", "--to", nextMonth}, "bad date range: --to 2026-12 is after this month"},
		{[]string{"spend", "--month", nextMonth}, "bad date range: --month 2026-12 is after this month"},
		{[]string{"charges", "--from", "2026-11-02", "--to", "2026-11-01"}, "bad date range: --to 2026-11-01 is before --from 2026-11-02"},
		{[]string{"charges", "--from", "2026-11-02T10:00:00Z", "--to", "2026-11-02T09:00:00Z"}, "bad date range: --to 2026-11-02T09:00:00Z is before --from 2026-11-02T10:00:00Z"},
		{[]string{"payments", "--from", "2026-11-02", "--to", "2026-11-01"}, "bad date range: --to 2026-11-01 is before --from 2026-11-02"},
		{[]string{"statement", "--from", "2026-11", "--to", "2026-10"}, "bad date range: --to 2026-10 is before --from 2026-11"},
		{[]string{"statement", "--from", "2015-06"}, "bad date range: --from 2015-06 is more than 120 months back: the earliest is 2016-12"},
		{[]string{"spend", "--month", "2015-06"}, "bad date range: --month 2015-06 is more than 120 months back: the earliest is 2016-12"},
		{[]string{"charges", "--from", "2014-12-31"}, "--from 2014-12-31 is outside the days vastdash accepts, 2015-01-01 to 2099-12-31"},
		{[]string{"sync", "--from", "2014-12-31"}, "--from 2014-12-31 is outside the days vastdash accepts, 2015-01-01 to 2099-12-31"},
		{[]string{"statement", "--from", "2014-12"}, "--from 2014-12 is outside the months vastdash accepts, 2015-01 to 2099-12"},
		{[]string{"spend", "--month", "2014-12"}, "--month 2014-12 is outside the months vastdash accepts, 2015-01 to 2099-12"},
		{[]string{"charges", "--from", "2026-13-01"}, `--from "2026-13-01" is not a date like 2026-11-01, a time like 2026-11-01T08:00:00Z or one of 24h, 7d, 30d, 90d, this-month or last-month`},
		{[]string{"sync", "--from", "2026-13-01"}, `--from "2026-13-01" is not a date like 2026-11-01, a time like 2026-11-01T08:00:00Z or one of 24h, 7d, 30d, 90d, this-month or last-month`},
		{[]string{"statement", "--to", "2026-13"}, `--to "2026-13" is not a month like 2026-11`},
		{[]string{"spend", "--month", "2026-13"}, `--month "2026-13" is not a month like 2026-11`},
		{[]string{"payments", "--to", "2026-11-01"}, "--to needs --from"},
		{[]string{"statement", "--to", "2026-11"}, "--to needs --from"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			res := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, t.TempDir()), c.args...)
			res.failed(t, exitUsage, c.want+" (see vastdash "+c.args[0]+" --help)")
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("range errors sent %d requests", n)
	}
}

// One machine switch and one yes: every command that prints an answer
// takes --output and --json through outputFlags, and every command that
// asks before it acts takes -y/--yes, described one way. auth login and
// logout and ledger forget had a bare --yes (no -y), and they and sync
// printed an answer no script could ask for as JSON.
func TestOneSwitchAndOneYes(t *testing.T) {
	isolate(t)
	x := &execution{env: testEnv(io.Discard, io.Discard)}
	root := x.rootCommand(io.Discard)
	// Commands without an answer to format: the dashboard, the exporter,
	// the help, the manual, the completion scripts, and auth alone (which
	// asks for login, status or logout).
	noAnswer := map[string]bool{"vastdash": true, "vastdash serve": true, "vastdash help": true, "vastdash man": true, "vastdash auth": true}
	asks := map[string]bool{"vastdash auth login": true, "vastdash auth logout": true, "vastdash ledger forget": true,
		"vastdash audit accept": true, "vastdash audit reject": true, "vastdash webhooks delete": true, "vastdash webhooks rotate": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := c.CommandPath()
		if !c.Runnable() || strings.HasPrefix(path, "vastdash completion") {
			return
		}
		if !noAnswer[path] {
			out, js := c.Flags().Lookup("output"), c.Flags().Lookup("json")
			if out == nil || js == nil {
				t.Errorf("%s: no --output and --json", path)
			} else if _, ok := out.Value.(*outputValue); !ok {
				t.Errorf("%s: --output is not outputFlags'", path)
			} else if _, ok := js.Value.(*jsonShorthand); !ok {
				t.Errorf("%s: --json is not outputFlags'", path)
			}
		}
		yes := c.Flags().Lookup("yes")
		switch {
		case asks[path] && yes == nil:
			t.Errorf("%s asks but takes no --yes", path)
		case !asks[path] && yes != nil:
			t.Errorf("%s takes --yes but asks nothing", path)
		case yes != nil && (yes.Shorthand != "y" || !strings.HasSuffix(yes.Usage, " without asking (needed when stdin is not a terminal)")):
			t.Errorf("%s: -%s --yes %q, not the one spelling", path, yes.Shorthand, yes.Usage)
		}
	}
	walk(root)
}

// Every question is asked one way: with no terminal and no --yes, a usage
// error before anything is sent (auth login verified the key first, exit
// 1); any answer but yes does nothing and exits 1 (auth logout and ledger
// forget said so on stdout with exit 0); -y does not ask.
func TestEveryQuestionAskedOneWay(t *testing.T) {
	hooksSrv, auditSrv, authSrv := hookServer(t), auditServer(t), authServer(t)
	ledgerSrv := startServer(t, demoserver.Options{Contracts: 10})
	keyThere := func(t *testing.T, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old-key\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	ledgerRun := func(tweak func(*env), args ...string) result {
		t.Helper()
		return headlessWith(t, ledgerSrv, demoserver.DemoKey, withLedger(t, data, func(e *env) {
			if tweak != nil {
				tweak(e)
			}
		}), args...)
	}
	idle := strconv.FormatInt(demoserver.LeakIdleGPU, 10)
	cases := []struct {
		command, does, done string
		// run runs the command: on a terminal answering answer ("" for
		// none), with -y when yes.
		run func(answer string, yes bool) result
	}{
		{"webhooks delete", "deletes webhook 1", "deleted", func(answer string, yes bool) result {
			if yes {
				return hooks(t, hooksSrv, nil, "delete", "1", "-y")
			}
			return hooks(t, hooksSrv, terminal(answer), "delete", "1")
		}},
		{"webhooks rotate", "rotates the secret of webhook 2", "rotated", func(answer string, yes bool) result {
			if yes {
				return hooks(t, hooksSrv, nil, "rotate", "2", "-y")
			}
			return hooks(t, hooksSrv, terminal(answer), "rotate", "2")
		}},
		{"audit reject", "sends its answer", "sent", func(answer string, yes bool) result {
			if yes {
				return auditRun(t, auditSrv, demoserver.DemoKey, nil, "audit", "reject", idle, "-y")
			}
			return auditRun(t, auditSrv, demoserver.DemoKey, terminal(answer), "audit", "reject", idle)
		}},
		{"auth login", "replaces the key file ~/.config/vastai/vast_api_key", "written", func(answer string, yes bool) result {
			if yes {
				return runAuth(t, authSrv, authCase{before: keyThere, stdin: canaryKey}, "auth", "login", "--with-token", "-y")
			}
			if answer == "" {
				return runAuth(t, authSrv, authCase{before: keyThere, stdin: canaryKey}, "auth", "login", "--with-token")
			}
			return runAuth(t, authSrv, authCase{before: keyThere, terminal: true, typed: canaryKey, stdin: answer}, "auth", "login")
		}},
		{"auth logout", "removes ~/.config/vastai/vast_api_key", "removed", func(answer string, yes bool) result {
			if yes {
				return runAuth(t, authSrv, authCase{before: keyThere}, "auth", "logout", "-y")
			}
			return runAuth(t, authSrv, authCase{before: keyThere, terminal: answer != "", stdin: answer}, "auth", "logout")
		}},
		{"ledger forget", "deletes " + filepath.Join(data, "vastdash"), "deleted", func(answer string, yes bool) result {
			ledgerRun(nil, "charges").ok(t)
			if yes {
				return ledgerRun(nil, "ledger", "forget", "-y")
			}
			return ledgerRun(terminal(answer), "ledger", "forget")
		}},
	}
	for _, c := range cases {
		t.Run(c.command, func(t *testing.T) {
			res := c.run("", false)
			res.failed(t, exitUsage, c.command+" asks before it "+c.does)
			res.failed(t, exitUsage, ", and stdin is not a terminal to ask on: add --yes (nothing was "+c.done+") (see vastdash "+c.command+" --help)")
			res = c.run("n\n", false)
			if res.code != exitRuntime || res.out != "" || !strings.Contains(res.errOut, "? [y/N] ") ||
				!strings.HasSuffix(res.errOut, "vastdash: nothing was "+c.done+": the answer was not yes\n") {
				t.Errorf("answered n: exit %d, stdout %q, stderr %q", res.code, res.out, res.errOut)
			}
			if res = c.run("", true); res.code != 0 || strings.Contains(res.errOut, "[y/N]") {
				t.Errorf("-y: exit %d, stderr %q", res.code, res.errOut)
			}
		})
	}
}

// terminal is onTerminal with answer typed, or no terminal for "".
func terminal(answer string) func(*env) {
	if answer == "" {
		return nil
	}
	return onTerminal(answer)
}

// The answers that had no JSON before (sync, ledger forget, auth login
// and logout) are JSON documents with --json, written as every other.
func TestEveryAnswerHasJSON(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	data := t.TempDir()
	res := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), "sync", "--from", "7d", "--json")
	res.ok(t)
	if !hasJSONFields(t, res.out, `{"from":"2026-11-15T00:00:00Z","to":"2026-11-21T15:30:00Z"}`) || !strings.Contains(res.out, "\n  \"contracts\": ") {
		t.Errorf("sync --json %q", res.out)
	}
	files := ledgerFiles(t, data)
	res = headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), "ledger", "forget", "-y", "--json")
	res.ok(t)
	if len(files) != 1 || !hasJSONFields(t, res.out, `{"deleted":`+strconv.Quote(files[0])+`}`) {
		t.Errorf("ledger forget --json %q (files %v)", res.out, files)
	}

	authSrv := authServer(t)
	res = runAuth(t, authSrv, authCase{stdin: canaryKey}, "auth", "login", "--with-token", "--json")
	res.ok(t)
	var login loginJSON
	if err := json.Unmarshal([]byte(res.out), &login); err != nil || login.Email != "demo@vastdash.example" || login.Scoped ||
		login.KeyName != nil || len(login.Permissions) == 0 || !strings.HasSuffix(login.Path, "vastai/vast_api_key") {
		t.Errorf("auth login --json %q: %v", res.out, err)
	}
	var path string
	there := func(t *testing.T, p string) {
		path = p
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old-key\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res = runAuth(t, authSrv, authCase{before: there}, "auth", "logout", "-y", "--json")
	res.ok(t)
	if !hasJSONFields(t, res.out, `{"removed":`+strconv.Quote(path)+`,"reads_next":null}`) {
		t.Errorf("auth logout --json %q", res.out)
	}
}

// sql speaks as every command: its JSON indented and escaped by writeJSON
// (it wrote a row to a line and "<" as \u003c), its table without spaces
// at line ends, and a run kept from the ledger a usage error saying why
// (it was exit 1, "no ledger this run").
func TestSQLSpeaksAsEveryCommand(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	data := t.TempDir()
	run := func(tweak func(*env), args ...string) result {
		return headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data, func(e *env) {
			if tweak != nil {
				tweak(e)
			}
		}), args...)
	}
	run(nil, "charges").ok(t)
	const q = "SELECT '<a&b>' AS x, 1 AS n, NULL AS z, 'c  ' AS w"
	res := run(nil, "sql", q, "--json")
	res.ok(t)
	if want := "[\n  {\n    \"x\": \"<a&b>\",\n    \"n\": 1,\n    \"z\": null,\n    \"w\": \"c  \"\n  }\n]\n"; res.out != want {
		t.Errorf("sql --json\n%s\nwant\n%s", res.out, want)
	}
	if res := run(nil, "sql", "SELECT 1 AS n WHERE 0", "--json"); res.out != "[]\n" {
		t.Errorf("no rows: %q", res.out)
	}
	// Written a row at a time, the rows read as writeJSON writes them whole.
	rows := ledger.Result{Columns: []string{"a", "b"}, Rows: [][]any{{int64(1), "x<"}, {2.5, []byte{0xff}}, {nil, "\x1b[31mred"}}}
	var streamed, whole strings.Builder
	if err := writeRowsJSON(&streamed, resultWalk(rows)); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(&whole, []sqlRow{{rows.Columns, rows.Rows[0]}, {rows.Columns, rows.Rows[1]}, {rows.Columns, rows.Rows[2]}}); err != nil {
		t.Fatal(err)
	}
	if streamed.String() != whole.String() || strings.Contains(streamed.String(), "\x1b") || !json.Valid([]byte(streamed.String())) {
		t.Errorf("streamed\n%s\nwhole\n%s", streamed.String(), whole.String())
	}
	res = run(nil, "sql", "SELECT source, label, NULL AS empty FROM contracts UNION ALL SELECT 'x', 'y  ', NULL")
	res.ok(t)
	for i, l := range strings.Split(strings.TrimSuffix(res.out, "\n"), "\n") {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("line %d ends in spaces: %q", i, l)
		}
	}
	run(nil, "sql", q, "--no-ledger").failed(t, exitUsage, "vastdash: sql reads the ledger, and --no-ledger keeps this run away from it (see vastdash sql --help)")
	off := func(*env) {
		dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vastdash")
		_ = os.MkdirAll(dir, 0o700)
		_ = os.WriteFile(filepath.Join(dir, "config.toml"), []byte("ledger = false\n"), 0o600)
	}
	run(off, "sql", q).failed(t, exitUsage, "vastdash: sql reads the ledger, and the ledger setting is off (ledger = false) (see vastdash sql --help)")
}

// isoTime is a date and time written the machine's way in text for
// people: 2026-11-26 13:21, or RFC 3339.
var isoTime = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}`)

// The rest of the text answers date things the one short way too: webhooks
// add and edit confirmed "changed: 2026-11-26T13:21:47Z", ledger wrote
// "2026-11-20 00:00 → 2026-11-26 13:21", sync "2026-11-20 to 2026-11-26";
// spend's "as of" is the statement's, with the year and the zone.
func TestEveryTextDateShortForm(t *testing.T) {
	srv := hookServer(t)
	ev := []string{"--event", "client:low_credit"}
	for _, args := range [][]string{append([]string{"add", "--name", "ops", "--url", "https://hooks.example.com/vast"}, ev...), append([]string{"edit", "1"}, ev...)} {
		res := hooks(t, srv, nil, args...)
		res.ok(t)
		if isoTime.MatchString(res.out) || !regexp.MustCompile(`(?m)^changed: `+shortDate.String()+`$`).MatchString(res.out) {
			t.Errorf("webhooks %s:\n%s", args[0], res.out)
		}
	}
	data := t.TempDir()
	for _, args := range [][]string{{"sync", "--from", "2026-11-01"}, {"ledger"}} {
		res := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
		res.ok(t)
		if isoTime.MatchString(res.out) || regexp.MustCompile(`\d{4}-\d{2}-\d{2}`).MatchString(strings.ReplaceAll(res.out, data, "")) || !shortDate.MatchString(res.out) {
			t.Errorf("%v:\n%s", args, res.out)
		}
	}
	res := headless(t, srv, demoserver.DemoKey, "spend")
	res.ok(t)
	if !strings.HasPrefix(res.out, "November 2026 so far, as of 21 Nov 2026 15:30 UTC\n") {
		t.Errorf("spend:\n%s", res.out)
	}
}

// resultWalk walks rows held whole, as a query's answer is walked.
func resultWalk(res ledger.Result) rowWalk {
	return func(cols func([]string) error, row func([]any) error) error {
		if err := cols(res.Columns); err != nil {
			return err
		}
		for _, r := range res.Rows {
			if err := row(r); err != nil {
				return err
			}
		}
		return nil
	}
}
