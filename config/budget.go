package config

import (
	"errors"
	"strconv"
	"strings"

	"github.com/vastdash/vastdash/money"
)

// MaxBudget is the largest monthly budget accepted: a billion dollars. A
// larger figure is a typo, and keeping far below what an amount holds
// keeps every share of it exact.
const MaxBudget = 1_000_000_000 * money.Dollar

// errBudget is the one-line error of a bad budget value.
var errBudget = errors.New(`budget must be a positive amount of dollars a month with at most two decimals, like "500" or "1250.50"`)

// budget decodes the budget setting: dollars a month, as a string ("500",
// "$1250.50") or a number, positive and at most MaxBudget. Unset, there is
// no budget.
type budget struct {
	value money.Amount
	set   bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (b *budget) UnmarshalTOML(v any) error {
	var s string
	switch x := v.(type) {
	case string:
		s = strings.TrimPrefix(strings.TrimSpace(x), "$")
	case int64:
		s = strconv.FormatInt(x, 10)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return errBudget
	}
	if _, frac, _ := strings.Cut(s, "."); len(frac) > 2 || strings.ContainsAny(s, ",eE_+") {
		// "1,5" may be 1.50 or 15, and an exponent is no way to write
		// dollars: refuse rather than guess.
		return errBudget
	}
	a, err := money.Parse(s)
	if err != nil || a <= 0 || a > MaxBudget {
		return errBudget
	}
	b.value, b.set = a, true
	return nil
}
