package cli

import (
	"encoding/json"
	"github.com/charmbracelet/x/ansi"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vastdash/vastdash/api/demoserver"
)

// Every flag value is checked when the command line is parsed: one line,
// exit 2, nothing on stdout and no request, whether the global flags come
// before or after the command.
func TestFlagValuesCheckedAtParse(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--timeout", "0", "credit"}, `--timeout must be positive, like 30s (got "0")`},
		{[]string{"credit", "--timeout", "0"}, `--timeout must be positive, like 30s (got "0")`},
		{[]string{"credit", "--timeout=-5s"}, `--timeout must be positive`},
		{[]string{"credit", "--timeout", "soon"}, `--timeout "soon" is not a duration like 30s`},
		{[]string{"credit", "--timeout", "2h"}, `--timeout "2h" is longer than 1h (see vastdash credit --help)`},
		{[]string{"credit", "--deadline", "0"}, `--deadline must be positive, like 2m (got "0")`},
		{[]string{"--deadline", "25h", "charges"}, `--deadline "25h" is longer than 24h (see vastdash charges --help)`},
		// One wording for a reversed range, days or months.
		{[]string{"statement", "--from", "2026-09", "--to", "2026-08"}, "bad date range: --to 2026-08 is before --from 2026-09 (see vastdash statement --help)"},
		{[]string{"charges", "--from", "2026-09-02", "--to", "2026-09-01"}, "bad date range: --to 2026-09-01 is before --from 2026-09-02 (see vastdash charges --help)"},
		// spend is no statement: the month to come names no command.
		{[]string{"spend", "--month", "2026-12"}, "bad date range: --month 2026-12 is after this month (see vastdash spend --help)"},
		{[]string{"charges", "--deadline", "1"}, `--deadline "1" is not a duration like 2m`},
		{[]string{"credit", "--json=maybe"}, `--json "maybe": want true or false`},
		{[]string{"credit", "--runway=2"}, `--runway "2": want true or false`},
		{[]string{"credit", "--utc=x"}, `--utc "x": want true or false`},
		{[]string{"charges", "--output", "XML"}, `unknown --output "XML" (want text, csv or json)`},
		{[]string{"charges", "--format", "list"}, `unknown --format "list" (want table or tree)`},
		{[]string{"charges", "--group-by", "user"}, `--group-by: unknown grouping "user" (want label, template, endpoint, workergroup, type or day)`},
		{[]string{"charges", "--type", "gpu"}, `unknown --type "gpu"`},
		{[]string{"charges", "--from", "2026-11-20T08:00:00"}, `--from "2026-11-20T08:00:00" is not a date like 2026-11-01, a time like 2026-11-01T08:00:00Z or one of 24h, 7d, 30d, 90d, this-month or last-month`},
		{[]string{"charges", "--from", "2026-11-01", "--to", "tomorrow"}, `--to "tomorrow" is not a date`},
		{[]string{"charges", "--from", "2100-01-01T00:00:00Z"}, "--from 2100-01-01 is outside the days vastdash accepts"},
		{[]string{"charges", "--items=yes"}, `--items "yes": want true or false`},
		{[]string{"charges", "--oldest-first=no"}, `--oldest-first "no": want true or false`},
		{[]string{"charges", "--from"}, "--from needs a value"},
		{[]string{"notifications", "--email", "yes"}, `--email "yes": want on or off`},
		{[]string{"notifications", "--webhooks", ""}, `--webhooks "": want on or off`},
		{[]string{"notifications", "--force=sure"}, `--force "sure": want true or false`},
		{[]string{"--demo=on"}, `--demo "on": want true or false`},
		{[]string{"--url"}, "--url needs a value"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			headless(t, srv, demoserver.DemoKey, c.args...).failed(t, exitUsage, c.want)
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
}

// A good value of every bounded flag is taken, before or after the
// command: the limits refuse only what they should.
func TestFlagValuesAccepted(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	for _, args := range [][]string{
		{"--timeout", "1h", "--deadline", "24h", "credit"},
		{"credit", "--timeout=30s", "--deadline=1m30s"},
		{"notifications", "--email", "ON", "--webhooks", " off "},
		append([]string{"charges", "--output", "CSV", "--format", "Tree", "--type", "instance, serverless"}, wholeSpan()...),
		append([]string{"charges", "--group-by", "Day", "--label", "a", "--label", "b"}, wholeSpan()...),
	} {
		headless(t, srv, demoserver.DemoKey, args...).ok(t)
	}
}

// --type takes a list, and adds to it when repeated.
func TestChargesTypeList(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	for _, args := range [][]string{
		{"--type", "volume,instance"},
		{"--type", "volume", "--type", "instance"},
		{"--type", "Volume, instance ,volume"},
	} {
		srv.ResetRequests()
		headless(t, srv, demoserver.DemoKey, append([]string{"charges"}, args...)...).ok(t)
		for _, r := range chargesRequests(srv) {
			if got := r.Query.Get("select_filters"); !strings.Contains(got, `"type":{"in":["volume","instance"]}`) {
				t.Errorf("%v: select_filters %s", args, got)
			}
		}
	}
}

// A mistyped flag or command names the nearest ones; a word far from any
// gets no guess.
func TestUsageErrorsSuggest(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"credit", "--jsn"}, "unknown flag --jsn (did you mean --json?) (see vastdash credit --help)"},
		{[]string{"charges", "--oldest-frist"}, "unknown flag --oldest-frist (did you mean --oldest-first?)"},
		{[]string{"charges", "--group"}, "unknown flag --group (did you mean --group-by?)"},
		{[]string{"--api-key", "x", "credit"}, "unknown flag --api-key (did you mean --api-key-file?) (see vastdash credit --help)"},
		{[]string{"credit", "--timout", "1s"}, "unknown flag --timout (did you mean --timeout?)"},
		{[]string{"charges", "--jsn"}, "unknown flag --jsn (did you mean --json?) (see vastdash charges --help)"},
		{[]string{"credit", "-x"}, "unknown flag -x (see vastdash credit --help)"},
		{[]string{"--json", "credit"}, "--json goes after the command: vastdash credit --json (see vastdash --help)"},
		{[]string{"--utc", "charges"}, "--utc goes after the command: vastdash charges --utc"},
		{[]string{"credti"}, `unknown command "credti" (did you mean credit?) (see vastdash --help)`},
		{[]string{"charge"}, `unknown command "charge" (did you mean charges?)`},
		{[]string{"bogus"}, `unknown command "bogus" (see vastdash --help)`},
		{[]string{"credit", "now"}, `unexpected argument "now" (see vastdash credit --help)`},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh" (want bash, fish, powershell or zsh) (see vastdash completion --help)`},
		{[]string{"completion"}, "name the shell: bash, fish, powershell or zsh"},
		{[]string{"help", "chrages"}, `unknown command "chrages" (did you mean charges?) (see vastdash help --help)`},
		{[]string{"help", "completion", "tcsh"}, `unknown command "tcsh" (see vastdash help --help)`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			res := headless(t, srv, demoserver.DemoKey, c.args...)
			res.failed(t, exitUsage, c.want)
			if strings.Contains(c.want, "(see") && res.errOut != "vastdash: "+c.want+"\n" && !strings.Contains(c.want, "did you mean") {
				t.Errorf("stderr %q, want exactly %q", res.errOut, c.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
}

// A key pasted in the wrong place on the command line is not echoed in the
// error: the value of VAST_API_KEY, or a word that looks like a key.
func TestUsageErrorsNeverEchoTheKey(t *testing.T) {
	const canary = "CANARY-cli-key-0042"
	hexKey := strings.Repeat("0123456789abcdef", 4)
	srv := startServer(t, demoserver.Options{Contracts: 10})
	for _, args := range [][]string{
		{canary},
		{hexKey},
		{"credit", canary},
		{"credit", hexKey},
		{"--" + hexKey, "credit"},
		{"credit", "--timeout", canary},
		{"credit", "--timeout", hexKey},
		{"charges", "--from", canary},
		{"charges", "--output", hexKey},
		{"charges", "--group-by", hexKey},
		{"notifications", "--email", canary},
		{"--demo=" + canary},
		{"completion", hexKey},
		{"help", hexKey},
		// The official CLI's --api-key, which vastdash does not take.
		{"--api-key", canary, "credit"},
		{"credit", "--api-key=" + canary},
		{"--key", hexKey},
	} {
		name := strings.NewReplacer(canary, "KEY", hexKey, "HEXKEY").Replace(strings.Join(args, " "))
		t.Run(name, func(t *testing.T) {
			res := headless(t, srv, canary, args...)
			res.failed(t, exitUsage, "")
			if strings.Contains(res.errOut, "CANARY") || strings.Contains(res.errOut, hexKey[:20]) {
				t.Errorf("%v: the key was echoed: %q", args, res.errOut)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
}

// The help of every command is generated from its flags: each flag,
// its own and the global ones, is listed with its description, and the
// text is plain when stdout is not a terminal.
func TestHelpListsEveryFlag(t *testing.T) {
	isolate(t)
	x := &execution{env: testEnv(io.Discard, io.Discard)}
	root := x.rootCommand(io.Discard)
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if c.Name() == "help" {
			continue
		}
		args := []string{"--help"}
		if c != root {
			args = []string{c.Name(), "--help"}
		}
		code, out, errOut := runMain(args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
		}
		if strings.Contains(out, "\x1b") {
			t.Errorf("%v: escape sequences in the help written to a pipe: %q", args, out)
		}
		for i, l := range strings.Split(out, "\n") {
			if strings.TrimRight(l, " ") != l {
				t.Errorf("%v: line %d ends in spaces: %q", args, i, l)
			}
		}
		seen := 0
		check := func(f *pflag.Flag) {
			seen++
			// Words, not lines: the help wraps at the terminal's width.
			words := func(s string) string { return " " + strings.Join(strings.Fields(strings.ToLower(s)), " ") + " " }
			// A value flag shows what it takes: --from day|time|word.
			word, usage := pflag.UnquoteUsage(f)
			name := "--" + f.Name
			if f.Value.Type() != "bool" && f.NoOptDefVal == "" {
				if word == "" {
					t.Errorf("%v: --%s takes a value but shows no placeholder", args, f.Name)
				}
				name += " " + word
			}
			if !strings.Contains(out, name) || !strings.Contains(words(out), words(usage)) {
				t.Errorf("%v: the help lacks %s (%q):\n%s", args, name, usage, out)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.InheritedFlags().VisitAll(check)
		if c == root {
			root.PersistentFlags().VisitAll(check)
		}
		if seen == 0 && c.Name() != "man" {
			t.Errorf("%v: no flags checked", args)
		}
	}
}

// `vastdash help CMD` is `vastdash CMD --help`.
func TestHelpCommand(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{}, {"charges"}, {"completion", "zsh"}} {
		code, out, errOut := runMain(append([]string{"help"}, args...)...)
		_, want, _ := runMain(append(args, "--help")...)
		if code != 0 || errOut != "" || out != want || !strings.Contains(out, "USAGE") {
			t.Errorf("help %v: exit %d, stderr %q; stdout differs from --help: %v", args, code, errOut, out != want)
		}
	}
}

func TestVersionIsOneLine(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		code, out, errOut := runMain(args...)
		if code != 0 || errOut != "" || !regexp.MustCompile(`^vastdash \S+\n$`).MatchString(out) {
			t.Errorf("%v: %d %q %q, want one line: vastdash VERSION", args, code, out, errOut)
		}
	}
}

// `vastdash completion SHELL` prints a script that calls back into
// vastdash, and the call-back completes commands, flags and flag values
// without a request.
func TestCompletion(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	for _, shell := range []string{"bash", "zsh", "fish"} {
		res := headless(t, srv, demoserver.DemoKey, "completion", shell)
		res.ok(t)
		if !strings.Contains(res.out, "__complete") || !strings.Contains(res.out, "vastdash") {
			t.Errorf("%s: not a completion script: %.200q", shell, res.out)
		}
		// The script must at least parse in its shell, where there is one.
		if path, err := exec.LookPath(shell); err == nil && shell != "fish" {
			cmd := exec.Command(path, "-n")
			cmd.Stdin = strings.NewReader(res.out)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v: %s", shell, err, out)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", ""}, []string{"charges", "credit", "notifications", "completion", "man"}},
		{[]string{"__complete", "charges", "--output", ""}, []string{"text", "csv", "json"}},
		{[]string{"__complete", "charges", "--format", ""}, []string{"table", "tree"}},
		{[]string{"__complete", "charges", "--group-by", ""}, []string{"label", "template", "endpoint", "workergroup", "type", "day"}},
		{[]string{"__complete", "charges", "--type", ""}, []string{"instance", "volume", "serverless"}},
		{[]string{"__complete", "notifications", "--webhooks", ""}, []string{"on", "off"}},
		{[]string{"__complete", "credit", "--r"}, []string{"--runway"}},
		{[]string{"__complete", "--demo", "charges", "--gr"}, []string{"--group-by"}},
	} {
		res := headless(t, srv, demoserver.DemoKey, c.args...)
		res.ok(t)
		var words []string
		for _, line := range strings.Split(strings.TrimSpace(res.out), "\n") {
			if w, _, _ := strings.Cut(line, "\t"); !strings.HasPrefix(w, ":") {
				words = append(words, w)
			}
		}
		for _, w := range c.want {
			if !strings.Contains("\n"+strings.Join(words, "\n")+"\n", "\n"+w+"\n") {
				t.Errorf("%v: completions %q lack %q", c.args, words, w)
			}
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("completion sent %d requests", n)
	}
}

// `vastdash man` is a roff page of the whole command tree: a title line
// that fits 80 columns, every command with its own flags, the global
// flags once, and the sections a manual has (KEYS from the one key table,
// ENVIRONMENT, FILES, EXIT STATUS).
func TestManPage(t *testing.T) {
	isolate(t)
	code, out, errOut := runMain("man")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, ".TH VASTDASH 1") {
		t.Fatalf("man: %d %q %.100q", code, errOut, out)
	}
	// The title line's three parts (name, centre, name) share 80 columns.
	title := strings.SplitN(out, "\n", 2)[0]
	if parts := strings.Split(title, `"`); len(parts) < 7 || len("VASTDASH(1)")*2+len(parts[5]) > 76 {
		t.Errorf("title line %q: its centre does not fit beside the names at 80 columns", title)
	}
	text := strings.ReplaceAll(out, `\-`, "-")
	for _, want := range []string{"credit", "charges", "notifications", "--group-by grouping", "--api-key-file file", "--timeout duration",
		"VAST_API_KEY", ".SH KEYS", ".SH ENVIRONMENT", ".SH FILES", ".SH EXIT STATUS", "ctrl+c (force-quit)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the man page lacks %q", want)
		}
	}
	if n := strings.Count(text, "--api-key-file file"); n != 1 {
		t.Errorf("the global flags are listed %d times, want once", n)
	}
}

// TestDocsShowTheHelp keeps docs/scripting.md's copy of `vastdash --help`
// true. The help wraps at the terminal's width, so words are compared, not
// lines. After a change to the commands or flags, regenerate it with
// VASTDASH_UPDATE_DOCS=1 go test -run TestDocsShowTheHelp ./internal/cli
// helpDoc is the page that shows the help, seen from this package's folder.
const helpDoc = "../../docs/scripting.md"

func TestDocsShowTheHelp(t *testing.T) {
	isolate(t)
	const begin, end = "<!-- vastdash --help -->\n```\n", "```\n<!-- end of vastdash --help -->"
	page, err := os.ReadFile(helpDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(page)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no marked copy of vastdash --help", helpDoc)
	}
	update := os.Getenv("VASTDASH_UPDATE_DOCS") == "1"
	if update {
		// 100 columns suit the page.
		t.Setenv("COLUMNS", "100")
	}
	code, help, _ := runMain("--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	if update {
		var lines []string
		for _, l := range strings.Split(strings.Trim(help, "\n"), "\n") {
			lines = append(lines, strings.TrimRight(l, " "))
		}
		doc = doc[:i+len(begin)] + strings.Join(lines, "\n") + "\n" + doc[j:]
		if err := os.WriteFile(helpDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, want := strings.Fields(doc[i+len(begin):j]), strings.Fields(help); !slices.Equal(got, want) {
		t.Errorf("%s's copy of vastdash --help is out of date; run\n"+
			"VASTDASH_UPDATE_DOCS=1 go test -run TestDocsShowTheHelp ./internal/cli\npage:\n%s\nhelp:\n%s", helpDoc, strings.Join(got, " "), strings.Join(want, " "))
	}
}

func TestUsageErrorsSendNothing(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"charges", "--from", "2026-11-10", "--to", "2026-11-01"}, "is before"},
		{[]string{"charges", "--from", "2026-13-01", "--to", "2026-11-01"}, `"2026-13-01" is not a date`},
		{[]string{"charges", "--from", "yesterday"}, "not a date"},
		{[]string{"charges", "--to", "2026-11-01"}, "--to needs --from"},
		// Year 1 is Go's zero time, which read as "no date" further down;
		// no charge lies outside billing's window anyway.
		{[]string{"charges", "--from", "0001-01-01"}, "--from 0001-01-01 is outside the days vastdash accepts, 2015-01-01 to 2099-12-31"},
		{[]string{"charges", "--from", "2014-12-31", "--to", "2026-11-01"}, "--from 2014-12-31 is outside"},
		{[]string{"charges", "--from", "2026-11-01", "--to", "2100-01-01"}, "--to 2100-01-01 is outside"},
		{[]string{"charges", "--from", "9999-12-31"}, "--from 9999-12-31 is outside"},
		{[]string{"charges", "--type", "instance,gpu"}, `unknown --type "gpu"`},
		{[]string{"charges", "--type", ","}, "names no type"},
		{[]string{"charges", "--output", "xml"}, `unknown --output "xml"`},
		{[]string{"charges", "--format", "list"}, `unknown --format "list"`},
		{[]string{"charges", "extra"}, `unexpected argument "extra"`},
		{[]string{"credit", "--verbose"}, "unknown flag --verbose (see vastdash credit --help)"},
		{[]string{"notifications", "--email", "yes"}, `--email "yes": want on or off`},
		{[]string{"notifications", "--webhooks", "1"}, `--webhooks "1": want on or off`},
		{[]string{"bogus"}, `unknown command "bogus"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			headless(t, srv, "CANARY-headless-usage-0042", c.args...).failed(t, exitUsage, c.want)
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
}

func TestVersionAndHelp(t *testing.T) {
	isolate(t)
	code, out, _ := runMain("--version")
	if code != 0 || !strings.HasPrefix(out, "vastdash ") {
		t.Fatalf("--version: %d %q", code, out)
	}
	code, out, _ = runMain("--help")
	if code != 0 || !strings.Contains(out, "--demo") || !strings.Contains(out, "VAST_API_KEY") {
		t.Fatalf("--help: %d %q", code, out)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	isolate(t)
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--no-such-flag"}, nil, "unknown flag --no-such-flag (see vastdash --help)"},
		{[]string{"extra"}, nil, `unknown command "extra"`},
		{nil, nil, "VAST_API_KEY"}, // no key anywhere: say where one can come from
		{nil, nil, "--demo"},
		{[]string{"--url", "http://billing.example.com"}, map[string]string{"VAST_API_KEY": "CANARY-main-key-0042"}, "plain http"},
		{[]string{"--api-key-file", "/nonexistent/key"}, nil, "/nonexistent/key"},
	}
	for _, c := range cases {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		code, out, errOut := runMain(c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, errOut)
		}
		if out != "" {
			t.Errorf("%v: stdout %q, want nothing", c.args, out)
		}
		if !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, errOut, c.want)
		}
		if strings.Contains(errOut, "CANARY") {
			t.Errorf("%v: the key leaked: %q", c.args, errOut)
		}
		for k := range c.env {
			t.Setenv(k, "")
		}
	}
}

// One machine switch: every command that prints takes --output and --json,
// its shorthand, and the two give the same answer.
func TestJSONIsTheOutputShorthand(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 30})
	for _, args := range [][]string{{"credit"}, append([]string{"charges"}, wholeSpan()...), {"payments", "--from", "2026-01-01"}, {"statement", "--months", "2"}} {
		long := headless(t, srv, demoserver.DemoKey, append(args, "--output", "json")...)
		short := headless(t, srv, demoserver.DemoKey, append(args, "--json")...)
		long.ok(t)
		short.ok(t)
		if long.out != short.out || !json.Valid([]byte(short.out)) {
			t.Errorf("%v: --json %q differs from --output json %q", args, short.out, long.out)
		}
		// Given together they must agree: in the program's words, pointing
		// at the command's help (it was cobra's "if any flags in the group
		// [output json] are set none of the others can be…", see vastdash
		// --help).
		see := "(see vastdash " + args[0] + " --help)"
		both := headless(t, srv, demoserver.DemoKey, append(args, "--json", "--output", "text")...)
		both.failed(t, exitUsage, "--json and --output text ask for two formats: give one "+see)
		both = headless(t, srv, demoserver.DemoKey, append(args, "--output", "text", "--json")...)
		both.failed(t, exitUsage, "--json and --output text ask for two formats: give one "+see)
		same := headless(t, srv, demoserver.DemoKey, append(args, "--json", "--output", "json")...)
		same.ok(t)
		if same.out != long.out {
			t.Errorf("%v: --json --output json %q differs from --output json", args, same.out)
		}
	}
	headless(t, srv, demoserver.DemoKey, "statement", "--months", "3", "--from", "2026-01").
		failed(t, exitUsage, "--months and --from both choose the months: give one (see vastdash statement --help)")
}

// audit's help and manual ran the leak kinds' table (lines the source
// indents by two spaces) into one paragraph. The help keeps each row on
// its own line, its text wrapping under itself; the manual makes them a
// .TP list.
func TestHelpKeepsIndentedRows(t *testing.T) {
	isolate(t)
	code, help, _ := runMain("audit", "--help")
	if code != 0 {
		t.Fatalf("audit --help: exit %d", code)
	}
	lines := strings.Split(help, "\n")
	for _, kind := range []string{"stopped instance", "orphan volume", "idle endpoint", "idle GPU"} {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, "    "+kind+"  ") {
				found = true
			}
		}
		if !found {
			t.Errorf("audit --help has no row starting with %q:\n%s", kind, help)
		}
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("a help line is wider than 80: %q", l)
		}
	}
	code, man, _ := runMain("man")
	if code != 0 || !strings.Contains(man, ".TP\n\\fBidle GPU\\fR\na running instance") {
		t.Errorf("the manual has no .TP row for idle GPU (exit %d)", code)
	}
}
