package money

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
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
		sum, _ = SumChecked(sum, a)
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

// Rounding can carry 18 nines into a 19th digit; Parse must not return a
// value its own Decimal output cannot be parsed back from.
func TestParseRoundingAtTheTop(t *testing.T) {
	for _, in := range []string{"999999999999999.9997", "-999999999999999.9995", "9999999999999999995e-4"} {
		if a, err := Parse(in); !errors.Is(err, ErrRange) {
			t.Errorf("Parse(%q) = %d (%q), %v; want ErrRange", in, a, a.Decimal(), err)
		}
	}
	for in, want := range map[string]Amount{"999999999999999.9994": maxParsed, "-999999999999999.999": -maxParsed} {
		a, err := Parse(in)
		if err != nil || a != want {
			t.Fatalf("Parse(%q) = %d, %v; want %d", in, a, err, want)
		}
		if b, err := Parse(a.Decimal()); err != nil || b != a {
			t.Fatalf("%q does not round-trip: %q → %d, %v", in, a.Decimal(), b, err)
		}
	}
}

func TestAdd(t *testing.T) {
	cases := []struct {
		a, b, want Amount
		ok         bool
	}{
		{1, 2, 3, true},
		{-5, 3, -2, true},
		{MaxAmount, 0, MaxAmount, true},
		{MaxAmount, 1, MaxAmount, false},
		{MaxAmount - 1, 1, MaxAmount, true},
		{MinAmount, -1, MinAmount, false},
		{MinAmount, 1, MinAmount + 1, true},
		{MaxAmount, MinAmount, -1, true},
		{1e18 * 5, 1e18 * 5, MaxAmount, false},
		{-1e18 * 5, -1e18 * 5, MinAmount, false},
	}
	for _, c := range cases {
		if got, ok := c.a.Add(c.b); got != c.want || ok != c.ok {
			t.Errorf("%d.Add(%d) = %d, %v; want %d, %v", c.a, c.b, got, ok, c.want, c.ok)
		}
	}
	// A saturated running sum stays saturated: a refund must not bring an
	// overflowed total back to a plausible figure.
	if got, ok := MaxAmount.AddSaturating(-1000); got != MaxAmount || ok {
		t.Fatalf("saturated sum moved: %d, %v", got, ok)
	}
	if got, ok := Amount(5).AddSaturating(-7); got != -2 || !ok {
		t.Fatalf("5 + -7 = %d, %v", got, ok)
	}
}

// Twelve amounts of $1e15 (1e18 thousandths each) are 1.2e19 thousandths,
// past int64: the plain sum used to wrap to a negative total.
func TestSumTwelveQuadrillionsDoesNotWrap(t *testing.T) {
	as := make([]Amount, 12)
	for i := range as {
		as[i] = 1e18
	}
	sum, ok := SumChecked(as...)
	if ok || sum != MaxAmount || !sum.Saturated() {
		t.Fatalf("SumChecked = %d, %v; want MaxAmount, false", sum, ok)
	}
	// Negative overflow saturates the other way, and stays there.
	for i := range as {
		as[i] = -1e18
	}
	as = append(as, 5e18)
	if sum, ok := SumChecked(as...); ok || sum != MinAmount {
		t.Fatalf("negative SumChecked = %d, %v; want MinAmount, false", sum, ok)
	}
	if sum, ok := SumChecked(1e18, -3, 2); !ok || sum != 1e18-1 {
		t.Fatalf("small SumChecked = %d, %v", sum, ok)
	}
}

// refParse is Parse done with exact rationals: the number × 1000 rounded to
// the nearest integer, halves away from zero.
func refParse(s string) (*big.Int, bool) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, false
	}
	r.Mul(r, big.NewRat(1000, 1))
	neg := r.Sign() < 0
	r.Abs(r)
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if new(big.Int).Lsh(m, 1).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q, true
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"12.345", "-0.0005", "1e-3", "1E+5", ".5", "abc", "99999999999999999",
		"999999999999999.9997", "999999999999999.9994", "-999999999999999.9995", "1e15", "999999999999999999e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrRange) {
				t.Fatalf("%q: unexpected error %v", s, err)
			}
			return
		}
		// Whatever parsed must print and parse back to itself, through
		// Decimal and through JSON.
		if b, err := Parse(a.Decimal()); err != nil || b != a {
			t.Fatalf("%q → %d → %q → %d, %v", s, a, a.Decimal(), b, err)
		}
		var b Amount
		if out, err := json.Marshal(a); err != nil || json.Unmarshal(out, &b) != nil || b != a {
			t.Fatalf("%q → %d does not survive JSON: %s → %d, %v", s, a, out, b, err)
		}
		if a > maxParsed || a < -maxParsed {
			t.Fatalf("%q → %d, beyond the documented range", s, a)
		}
		// And the value is the exact rounding of the text. big.Rat reads
		// every number Parse accepts, so it must read this one.
		want, ok := refParse(s)
		if !ok {
			t.Fatalf("Parse accepted %q, which is not a number", s)
		}
		if want.Cmp(big.NewInt(int64(a))) != 0 {
			t.Fatalf("Parse(%q) = %d, exact rounding is %s", s, a, want)
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

// Every rounding to the cent is money's: Credit and CentsDecimal halves
// away from zero, CentsUp toward +∞, WholeCents exactly.
func TestCents(t *testing.T) {
	for _, c := range []struct {
		a           Amount
		credit, dec string
		up          Amount
		whole       bool
	}{
		{1005, "$1.01", "1.01", 1010, false},
		{-1005, "-$1.01", "-1.01", -1000, false},
		{1004, "$1.00", "1.00", 1010, false},
		{25_000, "$25.00", "25.00", 25_000, true},
		{-4, "$0.00", "0.00", 0, false},
		{0, "$0.00", "0.00", 0, true},
		{123_456_789, "$123,456.79", "123456.79", 123_456_790, false},
		{MaxAmount, "$9,223,372,036,854,775.81", "9223372036854775.81", MaxAmount, false},
		{MinAmount, "-$9,223,372,036,854,775.81", "-9223372036854775.81", MinAmount + 8, false},
	} {
		if got := c.a.Credit(); got != c.credit {
			t.Errorf("%d.Credit() = %s, want %s", c.a, got, c.credit)
		}
		if got := c.a.CentsDecimal(); got != c.dec {
			t.Errorf("%d.CentsDecimal() = %s, want %s", c.a, got, c.dec)
		}
		if got := c.a.CentsUp(); got != c.up {
			t.Errorf("%d.CentsUp() = %d, want %d", c.a, got, c.up)
		}
		if got := c.a.WholeCents(); got != c.whole {
			t.Errorf("%d.WholeCents() = %v", c.a, got)
		}
	}
}
