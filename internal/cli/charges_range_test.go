package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// dayFilter is the day filter of the charges requests srv received; every
// page of one run asks the same.
func dayFilter(t *testing.T, srv *demoserver.Server) (gte, lte time.Time) {
	t.Helper()
	reqs := chargesRequests(srv)
	if len(reqs) == 0 {
		t.Fatal("no charges request")
	}
	var f struct {
		Day struct{ Gte, Lte int64 } `json:"day"`
	}
	for i, r := range reqs {
		if err := json.Unmarshal([]byte(r.Query.Get("select_filters")), &f); err != nil {
			t.Fatal(err)
		}
		g, l := time.Unix(f.Day.Gte, 0).UTC(), time.Unix(f.Day.Lte, 0).UTC()
		if i > 0 && (!g.Equal(gte) || !l.Equal(lte)) {
			t.Fatalf("page %d asked %s..%s, the first %s..%s", i, g, l, gte, lte)
		}
		gte, lte = g, l
	}
	return gte, lte
}

// withTimezone writes a settings file with the timezone setting; it runs
// after headlessWith isolated the home.
func withTimezone(t *testing.T, zone string) func(*runner) {
	return func(*runner) {
		dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vastdash")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(`timezone = "`+zone+`"`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// --from and --to take RFC 3339 times for a window shorter than a day,
// asked of the server to the second, while a date keeps its whole-day
// meaning in the settings' zone (or UTC with --utc), and the two mix.
func TestChargesFromToTimes(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 300})
	cases := []struct {
		name     string
		zone     string
		args     []string
		gte, lte string
	}{
		{"times", "UTC", []string{"--from", "2026-11-20T08:00:00Z", "--to", "2026-11-20T12:30:00+01:00"},
			"2026-11-20T08:00:00Z", "2026-11-20T11:30:00Z"},
		{"fractions cut to the second", "UTC", []string{"--from", "2026-11-20T08:00:00.9Z", "--to", "2026-11-20T08:59:59.999Z"},
			"2026-11-20T08:00:00Z", "2026-11-20T08:59:59Z"},
		{"days, --utc", "Europe/Berlin", []string{"--from", "2026-11-20", "--to", "2026-11-20", "--utc"},
			"2026-11-20T00:00:00Z", "2026-11-20T23:59:59Z"},
		{"days in the settings zone", "Europe/Berlin", []string{"--from", "2026-11-20", "--to", "2026-11-20"},
			"2026-11-19T23:00:00Z", "2026-11-20T22:59:59Z"},
		{"a day to a time", "Europe/Berlin", []string{"--from", "2026-11-20", "--to", "2026-11-20T06:00:00Z"},
			"2026-11-19T23:00:00Z", "2026-11-20T06:00:00Z"},
		{"a time to the end of today", "UTC", []string{"--from", "2026-11-21T10:00:00Z"},
			"2026-11-21T10:00:00Z", "2026-11-21T23:59:59Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv.ResetRequests()
			res := headlessWith(t, srv, demoserver.DemoKey, withTimezone(t, c.zone), append([]string{"charges", "--output", "csv"}, c.args...)...)
			res.ok(t)
			gte, lte := dayFilter(t, srv)
			if !gte.Equal(utc(c.gte)) || !lte.Equal(utc(c.lte)) {
				t.Fatalf("asked %s..%s, want %s..%s", gte.Format(time.RFC3339), lte.Format(time.RFC3339), c.gte, c.lte)
			}
			// The rows are the contracts of that window, no more.
			want := srv.Contracts(demoserver.Filter{Gte: gte.Unix(), Lte: lte.Unix()})
			if rows := readCSV(t, res.out); len(rows) != len(want) {
				t.Fatalf("%d rows, want %d", len(rows), len(want))
			}
		})
	}
}

// A window that ends before it begins is a usage error without a request;
// where a day meets a time, the zone decides, so it is checked once the
// settings are read, still before any request.
func TestChargesFromToReversed(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	for _, c := range []struct {
		zone string
		args []string
		want string
	}{
		{"UTC", []string{"--from", "2026-11-20T12:00:00Z", "--to", "2026-11-20T08:00:00Z"},
			"--to 2026-11-20T08:00:00Z is before --from 2026-11-20T12:00:00Z"},
		{"UTC", []string{"--from", "2026-11-20", "--to", "2026-11-19"}, "--to 2026-11-19 is before --from 2026-11-20"},
		{"UTC", []string{"--from", "2026-11-20", "--to", "2026-11-19T23:30:00Z"}, "--to 2026-11-19T23:30:00Z is before --from 2026-11-20"},
		{"Europe/Berlin", []string{"--from", "2026-11-20", "--to", "2026-11-19T22:30:00Z"}, "is before"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			headlessWith(t, srv, demoserver.DemoKey, withTimezone(t, c.zone), append([]string{"charges"}, c.args...)...).failed(t, exitUsage, c.want)
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
	// The same mixed window is fine where the day begins an hour earlier.
	headlessWith(t, srv, demoserver.DemoKey, withTimezone(t, "Europe/Berlin"),
		"charges", "--from", "2026-11-20", "--to", "2026-11-19T23:30:00Z").ok(t)
}

// --config names the settings file, before or after the command: its
// timezone decides where the days of --from and --to begin; a file that
// cannot be read or holds a bad value is a usage error naming it, with no
// request.
func TestConfigFlag(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tokyo := write("tokyo.toml", "timezone = \"Asia/Tokyo\"\n")
	for _, args := range [][]string{
		{"--config", tokyo, "charges", "--from", "2026-11-20", "--to", "2026-11-20"},
		{"charges", "--from", "2026-11-20", "--to", "2026-11-20", "--config=" + tokyo},
	} {
		srv.ResetRequests()
		headless(t, srv, demoserver.DemoKey, args...).ok(t)
		if gte, lte := dayFilter(t, srv); !gte.Equal(utc("2026-11-19T15:00:00Z")) || !lte.Equal(utc("2026-11-20T14:59:59Z")) {
			t.Errorf("%v: asked %s..%s, want the day in Tokyo", args, gte, lte)
		}
	}
	srv.ResetRequests()
	bad := write("bad.toml", "range = \"7d\"\ntimezone = \"Mars/Base\"\n")
	headless(t, srv, demoserver.DemoKey, "--config", bad, "credit").failed(t, exitUsage, bad+":2: timezone must be")
	missing := filepath.Join(dir, "none.toml")
	headless(t, srv, demoserver.DemoKey, "credit", "--config", missing).failed(t, exitUsage, missing+": cannot read settings")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("bad settings sent %d requests", n)
	}
}
