package billing

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// GroupKey is what charges are grouped by: spend per job, as users ask of
// the official CLI.
type GroupKey string

// The groupings.
const (
	ByLabel       GroupKey = "label"
	ByTemplate    GroupKey = "template"
	ByEndpoint    GroupKey = "endpoint"
	ByWorkergroup GroupKey = "workergroup"
	ByType        GroupKey = "type"
	ByDay         GroupKey = "day"
)

// GroupKeys lists every grouping, for flag validation and help.
var GroupKeys = []GroupKey{ByLabel, ByTemplate, ByEndpoint, ByWorkergroup, ByType, ByDay}

// ParseGroupKey reads a grouping name.
func ParseGroupKey(s string) (GroupKey, error) {
	k := GroupKey(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(GroupKeys, k) {
		return k, nil
	}
	names := make([]string, len(GroupKeys))
	for i, g := range GroupKeys {
		names[i] = string(g)
	}
	return "", fmt.Errorf("unknown grouping %q (want %s)", s, strings.Join(names, ", "))
}

// CheckGrouping refuses a grouping a range cannot have whole: by day, one
// group a day, at most spend.MaxDays days (ten years) — past them the days
// would be cut, and an answer without them is not the answer. The error
// names the limit and the range's length.
func CheckGrouping(by GroupKey, from, to time.Time, loc *time.Location) error {
	if by != ByDay {
		return nil
	}
	if n := spend.CountDays(from, to, loc); n > spend.MaxDays {
		return fmt.Errorf("a grouping by day covers at most %s days (ten years); %s to %s is %s days: choose a shorter range",
			money.Group(spend.MaxDays), from.In(orUTC(loc)).Format(time.DateOnly), to.In(orUTC(loc)).Format(time.DateOnly), money.Group(int64(n)))
	}
	return nil
}

// orUTC reads a nil location as UTC.
func orUTC(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}

// NoLabel and NoID name the groups of contracts without a label, or
// without the id grouped by: they form a group of their own rather than
// vanish from the split.
const (
	NoLabel = "(no label)"
	NoID    = "(none)"
)

// Group is one group of a split: its name, how many contracts fall in it,
// and their amount.
type Group struct {
	Key    string
	Count  int
	Amount money.Amount
}

// Grouping accumulates contracts into groups as pages arrive. Contracts
// inside tree-format wrappers are grouped one by one, so a split does not
// depend on the format. By day, each contract's amount is spread over the
// days it ran (as the daily chart does, exact in thousandths) within the
// window given, and it counts on every day it has a share of.
type Grouping struct {
	by       GroupKey
	loc      *time.Location
	from, to time.Time
	groups   map[string]*Group
	total    money.Amount
	overflow bool
	// contracts is how many contracts were folded in; outside is the part
	// of their amounts that fell before or after the window (by day only),
	// in no group: a total printed beside the groups is theirs, and says
	// this part apart rather than hide it in a figure the rows miss.
	contracts int
	outside   money.Amount
	// By day: the window's days found once (a million contracts spread
	// by a search, not the calendar), the shares' buffer, and each day's
	// key written once.
	days    *spend.Spreader
	shares  []spend.DayShare
	dayKeys map[int64]string
}

// NewGrouping starts an empty grouping by key; loc, from and to matter only
// by day (the days of that window in loc).
func NewGrouping(by GroupKey, loc *time.Location, from, to time.Time) *Grouping {
	return &Grouping{by: by, loc: orUTC(loc), from: from, to: to, groups: map[string]*Group{}}
}

// Add folds top-level entries in.
func (g *Grouping) Add(entries []api.Charge) {
	for i := range entries {
		g.addEntry(&entries[i])
	}
}

func (g *Grouping) addEntry(e *api.Charge) {
	if IsWrapper(e) {
		for i := range e.Items {
			g.addEntry(&e.Items[i])
		}
		return
	}
	g.contracts++
	if g.by == ByDay {
		if g.days == nil {
			g.days, g.dayKeys = spend.NewSpreader(g.loc, g.from, g.to, spend.Day), map[int64]string{}
		}
		in, before, after := g.days.Spread(e.Amount, e.Start, e.End, g.shares[:0])
		g.shares = in
		for _, s := range in {
			k, ok := g.dayKeys[s.Day.Unix()]
			if !ok {
				k = s.Day.Format(time.DateOnly)
				g.dayKeys[s.Day.Unix()] = k
			}
			g.add(k, s.Amount)
		}
		var ok bool
		for _, a := range []money.Amount{before, after} {
			if g.outside, ok = g.outside.AddSaturating(a); !ok {
				g.overflow = true
			}
		}
		return
	}
	g.add(g.keyOf(e), e.Amount)
}

// keyOf is the group of a contract.
func (g *Grouping) keyOf(e *api.Charge) string {
	id := func(n int64) string {
		if n == 0 {
			return NoID
		}
		return strconv.FormatInt(n, 10)
	}
	switch g.by {
	case ByTemplate:
		return id(e.Meta.TemplateID)
	case ByEndpoint:
		return id(e.Meta.EndpointID)
	case ByWorkergroup:
		return id(e.Meta.WorkergroupID)
	case ByType:
		return spend.ContractKind(e)
	}
	if e.Meta.Label == "" {
		return NoLabel
	}
	return e.Meta.Label
}

func (g *Grouping) add(key string, a money.Amount) {
	gr := g.groups[key]
	if gr == nil {
		gr = &Group{Key: key}
		g.groups[key] = gr
	}
	gr.Count++
	var ok bool
	if gr.Amount, ok = gr.Amount.AddSaturating(a); !ok {
		g.overflow = true
	}
	if g.total, ok = g.total.AddSaturating(a); !ok {
		g.overflow = true
	}
}

// Total is the amount of every group together.
func (g *Grouping) Total() money.Amount { return g.total }

// Contracts is how many contracts were grouped (a tree wrapper's, one by
// one); by day a contract counts once here however many days it has.
func (g *Grouping) Contracts() int { return g.contracts }

// Outside is the part of the grouped contracts' amounts that fell outside
// the window's days (by day only; 0 otherwise): it is in no group and not
// in Total.
func (g *Grouping) Outside() money.Amount { return g.outside }

// TotalLine is the line said beside the groups: how many contracts, the
// sum of the groups, and — by day — what of their amounts fell outside
// the range and is in no row ("12 contracts · $40.000 within the range;
// $3.500 of theirs outside it is left out"). The total beside rows is
// their sum, so a share of it adds up.
func (g *Grouping) TotalLine() string {
	contracts := Plural(g.contracts, "contract", "contracts")
	if g.overflow {
		return contracts + " · the total is too large to add up"
	}
	if g.outside == 0 {
		return contracts + " · " + g.total.String()
	}
	return fmt.Sprintf("%s · %s within the range; %s of theirs outside it is left out", contracts, g.total, g.outside)
}

// Overflow reports a sum that left what an amount can hold: the figures
// are saturated and must not be shown as numbers.
func (g *Grouping) Overflow() bool { return g.overflow }

// Groups returns the groups, largest amount first (name second on a tie);
// by day, in calendar order.
func (g *Grouping) Groups() []Group {
	out := make([]Group, 0, len(g.groups))
	for _, gr := range g.groups {
		out = append(out, *gr)
	}
	slices.SortFunc(out, func(a, b Group) int {
		if g.by != ByDay && a.Amount != b.Amount {
			if a.Amount > b.Amount {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// SharePerMille is a's share of total in tenths of a percent, half up,
// exact in 128 bits so no amount overflows it; ok is false when there is no
// meaningful share (total not positive or saturated, or a share beyond any
// worth printing).
func SharePerMille(a, total money.Amount) (pm int64, ok bool) {
	if total <= 0 || total.Saturated() {
		return 0, false
	}
	neg := a < 0
	abs := uint64(a)
	if neg {
		abs = uint64(-a) // MinAmount too: its two's complement is its magnitude
	}
	// per mille, half up: (abs×2000 + total) / (2×total)
	hi, lo := bits.Mul64(abs, 2000)
	lo, carry := bits.Add64(lo, uint64(total), 0)
	hi += carry
	den := 2 * uint64(total)
	if hi >= den {
		return 0, false
	}
	q, _ := bits.Div64(hi, lo, den)
	if q > 1<<62 {
		return 0, false
	}
	if neg {
		return -int64(q), true
	}
	return int64(q), true
}

// PerMilleText writes a per-mille share as "12.3" (no sign for zero).
func PerMilleText(pm int64) string {
	sign := ""
	if pm < 0 {
		sign, pm = "-", -pm
	}
	return sign + strconv.FormatInt(pm/10, 10) + "." + strconv.FormatInt(pm%10, 10)
}

// ShareText is a's share of total as "12.3%", or "—" when there is no
// meaningful share. The Overview's splits and the commands' groups both
// print it.
func ShareText(a, total money.Amount) string {
	pm, ok := SharePerMille(a, total)
	if !ok {
		return "—"
	}
	return PerMilleText(pm) + "%"
}

// KeepLabels returns the contracts of entries whose label is one of labels
// (exactly, as the server wrote it; "" never matches), in order. Tree-format
// wrappers are refused by the caller: their amounts are their contracts'
// sums, which a filter would make wrong.
func KeepLabels(entries []api.Charge, labels []string) []api.Charge {
	var out []api.Charge
	for _, e := range entries {
		if e.Meta.Label != "" && slices.Contains(labels, e.Meta.Label) {
			out = append(out, e)
		}
	}
	return out
}

// Recount is st with its contracts and amount counted again over kept, the
// entries a caller narrowed the feed's to (KeepLabels), the way the feed
// counts them: a totals line then speaks of what was printed. The rest of
// st (pages, skipped, warnings) still describes the whole feed.
func (s State) Recount(kept []api.Charge) State {
	s.Contracts, s.Amount, s.Overflow = 0, 0, false
	for i := range kept {
		s.tally(chargeRules.count(&kept[i]), chargeRules.amount(&kept[i]))
	}
	return s
}
