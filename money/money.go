// Package money holds dollar amounts as exact integer thousandths of a dollar.
//
// The billing API rounds every amount to 3 decimals, so thousandths represent
// each amount it sends exactly; sums of float64 values would drift by fractions
// of a cent over a few thousand rows, which a billing tool must not show.
package money

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Amount is a number of thousandths of a dollar ("mills"). 1234567 is $1,234.567.
type Amount int64

// Dollar is one dollar as an Amount.
const Dollar Amount = 1000

// ErrSyntax is returned for text that is not a decimal number.
var ErrSyntax = errors.New("not a decimal number")

// ErrRange is returned for numbers too large for an Amount.
var ErrRange = errors.New("amount out of range")

// MaxAmount and MinAmount are the largest and smallest Amounts. A running sum
// that overflows is held at one of them (see AddSaturating), so either value
// in a sum means "too large to show", never a real figure.
const (
	MaxAmount Amount = math.MaxInt64
	MinAmount Amount = math.MinInt64
)

// maxParsed is the largest magnitude Parse returns: 18 digits of thousandths
// ($999,999,999,999,999.999). Keeping it 18 digits means everything Parse
// accepts, Decimal prints back in a form Parse accepts, and a parsed amount is
// never mistaken for a saturated sum.
const maxParsed = 999_999_999_999_999_999

// Parse reads a JSON number ("12.345", "-0.5", "1e-3", "12.3456") as an Amount,
// rounding to the nearest thousandth, halves away from zero. It works on the
// decimal text, never through float64, so "0.1"+"0.2" sum to exactly 0.300.
// A number whose rounded magnitude is above $999,999,999,999,999.999 is
// ErrRange (so is one that only gets there by rounding, like
// "999999999999999.9997"): Parse(a.Decimal()) == a for every a Parse returns.
func Parse(s string) (Amount, error) {
	if s == "" {
		return 0, ErrSyntax
	}
	neg := false
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return 0, ErrSyntax
		}
		mant, exp = s[:i], e
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	if intPart == "" && frac == "" {
		return 0, ErrSyntax
	}
	digits := intPart + frac
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, ErrSyntax
		}
	}
	// value = digits × 10^(exp - len(frac)); we want it × 10^3.
	shift := exp - len(frac) + 3
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return 0, nil
	}
	var whole string
	roundUp := false
	if shift >= 0 {
		if len(digits)+shift > 18 {
			return 0, ErrRange
		}
		whole = digits + strings.Repeat("0", shift)
	} else {
		cut := len(digits) + shift // digits kept before the decimal point of the result
		if cut <= 0 {
			// Everything is below a thousandth; it rounds up only if the first
			// dropped digit is the leading digit and it is at least 5.
			roundUp = cut == 0 && digits[0] >= '5'
			whole = "0"
		} else {
			whole = digits[:cut]
			roundUp = digits[cut] >= '5'
		}
	}
	if len(whole) > 18 {
		return 0, ErrRange
	}
	v, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, ErrRange
	}
	if roundUp {
		v++
	}
	if v > maxParsed {
		// Only rounding gets here: 18 nines rounded up would print as 19
		// digits, which the length check above rejects, breaking round trips.
		return 0, ErrRange
	}
	if neg {
		v = -v
	}
	return Amount(v), nil
}

// UnmarshalJSON accepts a JSON number or null (zero). Strings and other types
// are an error: the caller decides whether to skip the entry or reject the page.
func (a *Amount) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*a = 0
		return nil
	}
	v, err := Parse(s)
	if err != nil {
		return errors.New("amount: " + err.Error() + ": " + clip(s, 24))
	}
	*a = v
	return nil
}

// MarshalJSON writes the amount as a JSON number with 3 decimals.
func (a Amount) MarshalJSON() ([]byte, error) {
	return []byte(a.Decimal()), nil
}

// Decimal is the plain number with 3 decimals and no grouping: "-1234.500".
func (a Amount) Decimal() string {
	neg, u := a.abs()
	s := strconv.FormatUint(u/1000, 10) + "." + pad3(u%1000)
	if neg {
		return "-" + s
	}
	return s
}

// String formats a charge amount: "$1,234.567", "-$0.050".
func (a Amount) String() string {
	neg, u := a.abs()
	s := "$" + group(u/1000) + "." + pad3(u%1000)
	if neg {
		return "-" + s
	}
	return s
}

// Cent is one cent as an Amount. Every rounding to the cent is this
// file's: Credit and CentsDecimal round halves away from zero, CentsUp
// rounds up, WholeCents tells an amount that needs no rounding.
const Cent Amount = 10

// WholeCents reports an amount of whole cents: nothing in its thousandths
// place (a threshold the API takes as it is).
func (a Amount) WholeCents() bool { return a%Cent == 0 }

// CentsUp is a rounded up to the next whole cent (toward +∞): a figure
// that warns, such as a suggested threshold, errs early, never late. An
// amount within a cent of MaxAmount stays where it is.
func (a Amount) CentsUp() Amount {
	r := a % Cent
	switch {
	case r == 0:
		return a
	case r < 0:
		return a - r // toward zero is up for a negative amount
	case a > MaxAmount-Cent:
		return a
	}
	return a + Cent - r
}

// cents is |a| in whole cents, halves away from zero, and a's sign (none
// for a value that rounds to zero cents).
func (a Amount) cents() (neg bool, cents uint64) {
	neg, u := a.abs()
	cents = (u + 5) / 10
	return neg && cents != 0, cents
}

// Credit formats an account balance to the cent, halves away from zero:
// "$1,234.57". A value that rounds to zero cents has no minus sign.
func (a Amount) Credit() string {
	neg, cents := a.cents()
	s := "$" + group(cents/100) + "." + pad2(cents%100)
	if neg {
		return "-" + s
	}
	return s
}

// CentsDecimal is the amount to the cent as a plain number, halves away
// from zero, no grouping: "-1234.50" (a JSON number with two decimals).
func (a Amount) CentsDecimal() string {
	neg, cents := a.cents()
	s := strconv.FormatUint(cents/100, 10) + "." + pad2(cents%100)
	if neg {
		return "-" + s
	}
	return s
}

func pad2(u uint64) string { return string([]byte{byte('0' + u/10), byte('0' + u%10)}) }

// SumChecked adds amounts left to right with AddSaturating. ok is false when
// the running sum overflowed at some point; the result is then MaxAmount or
// MinAmount (whichever bound it passed first) and must not be shown as a
// figure.
func SumChecked(as ...Amount) (sum Amount, ok bool) {
	ok = true
	for _, a := range as {
		var fit bool
		if sum, fit = sum.AddSaturating(a); !fit {
			ok = false
		}
	}
	return sum, ok
}

// Add returns a+b and true, or, when a+b does not fit in an Amount, the bound
// it passed (MaxAmount or MinAmount) and false. It is the plain checked
// addition; running sums want AddSaturating.
func (a Amount) Add(b Amount) (Amount, bool) {
	s := a + b // wraps on overflow; detected below
	switch {
	case b > 0 && s < a:
		return MaxAmount, false
	case b < 0 && s > a:
		return MinAmount, false
	}
	return s, true
}

// AddSaturating is Add for running sums: a that is already saturated
// (MaxAmount or MinAmount, from an earlier overflow) stays where it is and
// reports false, so a refund added after an overflow cannot pull the sum back
// to a plausible-looking but wrong figure. A sum that lands on a bound
// exactly also reports false: the bounds mean "overflowed" wherever they
// appear, and at $9.2 quadrillion that costs nothing.
func (a Amount) AddSaturating(b Amount) (Amount, bool) {
	if a.Saturated() {
		return a, false
	}
	s, ok := a.Add(b)
	return s, ok && !s.Saturated()
}

// Saturated reports whether a is MaxAmount or MinAmount: in a sum built with
// AddSaturating, that the sum overflowed and is too large to show.
func (a Amount) Saturated() bool { return a == MaxAmount || a == MinAmount }

func (a Amount) abs() (bool, uint64) {
	if a < 0 {
		if a == math.MinInt64 {
			return true, uint64(math.MaxInt64) + 1
		}
		return true, uint64(-a)
	}
	return false, uint64(a)
}

func pad3(u uint64) string {
	return string([]byte{byte('0' + u/100), byte('0' + u/10%10), byte('0' + u%10)})
}

// Group writes a count with comma thousands separators, as amounts are
// written: 12345 → "12,345".
func Group(n int64) string {
	if n < 0 {
		_, u := Amount(n).abs()
		return "-" + group(u)
	}
	return group(uint64(n))
}

// group writes u with comma thousands separators.
func group(u uint64) string {
	s := strconv.FormatUint(u, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/3)
	first := len(s) % 3
	if first == 0 {
		first = 3
	}
	b.WriteString(s[:first])
	for i := first; i < len(s); i += 3 {
		b.WriteByte(',')
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
