package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// The one money and date form (README, "Money and dates"): text output
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
