package money

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Amount
	}{
		{"0", 0},
		{"12.345", 12345},
		{"-12.345", -12345},
		{"0.1", 100},
		{"1", 1000},
		{"1234567.891", 1234567891},
		{"12.3454", 12345},
		{"12.3455", 12346},   // half away from zero
		{"-12.3455", -12346}, // half away from zero
		{"0.0005", 1},
		{"0.0004999", 0},
		{"1e-3", 1},
		{"1.5E2", 150000},
		{"2e3", 2000000},
		{"0.000000001", 0},
		{"5e-4", 1},
		{"4e-4", 0},
		{"00012.000", 12000},
		{".5", 500},
		{"5.", 5000},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "-", ".", "abc", "1.2.3", "1e", "1e99999", "\"1\"", "1,5", "99999999999999999999"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded; want error", in)
		}
	}
}

func TestUnmarshalJSON(t *testing.T) {
	var v struct {
		A Amount `json:"a"`
		B Amount `json:"b"`
	}
	if err := json.Unmarshal([]byte(`{"a": 3.141, "b": null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != 3141 || v.B != 0 {
		t.Fatalf("got %d %d", v.A, v.B)
	}
	err := json.Unmarshal([]byte(`{"a": "3.141"}`), &v)
	if err == nil {
		t.Fatal("a string amount was accepted")
	}
	out, _ := json.Marshal(Amount(-1500))
	if string(out) != "-1.500" {
		t.Fatalf("marshal: %s", out)
	}
}

func TestFormat(t *testing.T) {
	cases := []struct {
		a              Amount
		str, credit, d string
	}{
		{0, "$0.000", "$0.00", "0.000"},
		{1, "$0.001", "$0.00", "0.001"},
		{5, "$0.005", "$0.01", "0.005"},
		{-4, "-$0.004", "$0.00", "-0.004"},
		{1234567, "$1,234.567", "$1,234.57", "1234.567"},
		{1234565, "$1,234.565", "$1,234.57", "1234.565"},
		{-1234565, "-$1,234.565", "-$1,234.57", "-1234.565"},
		{999995, "$999.995", "$1,000.00", "999.995"},
		{123456789012, "$123,456,789.012", "$123,456,789.01", "123456789.012"},
	}
	for _, c := range cases {
		if got := c.a.String(); got != c.str {
			t.Errorf("%d.String() = %q, want %q", c.a, got, c.str)
		}
		if got := c.a.Credit(); got != c.credit {
			t.Errorf("%d.Credit() = %q, want %q", c.a, got, c.credit)
		}
		if got := c.a.Decimal(); got != c.d {
			t.Errorf("%d.Decimal() = %q, want %q", c.a, got, c.d)
		}
	}
}

// Summing the API's 3-decimal amounts as float64 drifts; as Amounts it must not.
func TestSumExactWhereFloatDrifts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var f float64
	var sum Amount
	var wantMills int64
	drifted := false
	for i := 0; i < 20000; i++ {
		mills := r.Int64N(100000)
		text := strconv.FormatInt(mills/1000, 10) + "." + pad3(uint64(mills%1000))
		fv, _ := strconv.ParseFloat(text, 64)
		f += fv
		a, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		sum = Sum(sum, a)
		wantMills += mills
		if f != float64(wantMills)/1000 {
			drifted = true
		}
	}
	if !drifted {
		t.Fatal("test data did not make float64 drift; pick other data")
	}
	if int64(sum) != wantMills {
		t.Fatalf("sum = %d, want %d", sum, wantMills)
	}
}

func TestParseRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 10000; i++ {
		a := Amount(r.Int64N(1<<50) - 1<<49)
		got, err := Parse(a.Decimal())
		if err != nil || got != a {
			t.Fatalf("round trip of %d: %d, %v", a, got, err)
		}
	}
	if _, err := Parse("1e30"); !errors.Is(err, ErrRange) {
		t.Fatalf("1e30: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"12.345", "-0.0005", "1e-3", "1E+5", ".5", "abc", "99999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			return
		}
		// Whatever parsed must print and parse back to itself.
		if b, err := Parse(a.Decimal()); err != nil || b != a {
			t.Fatalf("%q → %d → %q → %d, %v", s, a, a.Decimal(), b, err)
		}
	})
}

func TestGroup(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", -1234567: "-1,234,567", math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
}
