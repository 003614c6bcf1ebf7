package billing

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones below on machines without a zone database

	"github.com/vastdash/vastdash/api"
)

func loadZone(t *testing.T, name string) *time.Location {
	t.Helper()
	if name == "fixed-03" {
		return time.FixedZone("-03", -3*3600)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func monthLabels(st Statement) string {
	var ls []string
	for _, m := range st.Months {
		ls = append(ls, m.Label())
	}
	return strings.Join(ls, " ")
}

// Issue 27 item 1: in Asunción clocks jump from 00:00 to 01:00 on
// 1 October 2023. September to November is three months, September,
// October and November, each once; October alone is October, with
// October's figures.
func TestStatementMonthWhoseMidnightDoesNotExist(t *testing.T) {
	loc := loadZone(t, "America/Asuncion")
	at := func(m time.Month, d, h int) time.Time { return time.Date(2023, m, d, h, 0, 0, 0, loc) }
	now := at(11, 20, 12)
	in := StatementInput{Loc: loc, Now: now, Credit: 100_000,
		Payments: []api.Invoice{
			rec("sep", "credit", -10_000, at(9, 10, 12), at(9, 10, 12)),
			rec("oct", "credit", -20_000, at(10, 1, 2), at(10, 1, 2)), // an hour into October
			rec("nov", "credit", -30_000, at(11, 2, 12), at(11, 2, 12)),
		}}
	from, err := ParseMonth("2023-09", loc)
	if err != nil {
		t.Fatal(err)
	}
	to, _ := ParseMonth("2023-11", loc)
	in.From, in.To = from, to
	st := BuildStatement(in)
	checkIdentity(t, st)
	if got := monthLabels(st); got != "2023-09 2023-10 2023-11" {
		t.Fatalf("September to November: months %q", got)
	}
	if st.Months[1].MoneyIn != 20_000 || st.Months[0].MoneyIn != 10_000 {
		t.Errorf("in: September %v, October %v", st.Months[0].MoneyIn, st.Months[1].MoneyIn)
	}
	if s := st.Months[1].Start.Format("2006-01-02 15:04 -0700"); s != "2023-10-01 01:00 -0300" {
		t.Errorf("October begins at %s", s)
	}

	oct, _ := ParseMonth("2023-10", loc)
	in.From, in.To = oct, oct
	st = BuildStatement(in)
	if got := monthLabels(st); got != "2023-10" || st.Months[0].MoneyIn != 20_000 {
		t.Fatalf("October alone: months %q, in %v", got, st.Months[0].MoneyIn)
	}
	// Any instant of October names October, the hour before its first
	// included (30 September 23:00 is the same instant as the skipped
	// "1 October 00:00").
	in.From, in.To = at(10, 15, 0), at(10, 15, 0)
	if got := monthLabels(BuildStatement(in)); got != "2023-10" {
		t.Fatalf("from the 15th of October: months %q", got)
	}
	if err := StatementMonths(oct, oct, now, loc); err != nil {
		t.Fatal(err)
	}
}

// Every zone whose clocks jumped at midnight, and a fixed zone: a year of
// months from the 2nd, through LastMonths, has twelve consecutive labels,
// each month beginning at the first instant of its 1st.
func TestStatementMonthsInEveryZone(t *testing.T) {
	for _, name := range []string{"America/Asuncion", "America/Santiago", "Asia/Beirut", "America/Havana", "fixed-03"} {
		loc := loadZone(t, name)
		for y := 2016; y <= 2030; y++ {
			now := time.Date(y, 1, 2, 12, 0, 0, 0, loc)
			from, to := LastMonths(now, loc, 12)
			if err := StatementMonths(from, to, now, loc); err != nil {
				t.Fatalf("%s %d: %v", name, y, err)
			}
			st := BuildStatement(StatementInput{Loc: loc, Now: now, From: from, To: to})
			if len(st.Months) != 12 {
				t.Fatalf("%s %d: %d months", name, y, len(st.Months))
			}
			for i, m := range st.Months {
				want := time.Date(y-1, time.Month(2+i), 1, 12, 0, 0, 0, loc).Format("2006-01")
				if m.Label() != want || m.Start.Day() != 1 || m.Start.Add(-time.Nanosecond).In(loc).Day() == 1 {
					t.Fatalf("%s %d: month %d is %s starting %v, want %s from its first instant", name, y, i, m.Label(), m.Start, want)
				}
			}
		}
	}
}

func TestParseMonth(t *testing.T) {
	loc := loadZone(t, "America/Asuncion")
	got, err := ParseMonth(" 2017-10 ", loc)
	if err != nil || got.Format("2006-01-02 15:04") != "2017-10-01 01:00" {
		t.Fatalf("2017-10 in Asunción: %v, %v", got, err)
	}
	for _, bad := range []string{"", "2017", "2017-13", "10-2017", "2017-10-01"} {
		if _, err := ParseMonth(bad, loc); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
