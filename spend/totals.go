package spend

import (
	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// Totals splits loaded charges by contract type and by charge item type.
type Totals struct {
	Contracts int                     // top-level entries added
	Total     money.Amount            // sum of their amounts
	ByType    map[string]money.Amount // instance, volume, serverless
	ByItem    map[string]money.Amount // gpu, disk, bwd, bwu (other item types kept by name)
	// Overflow says some sum became too large for an Amount. That sum
	// (Total or a map value) is held at money.MaxAmount or money.MinAmount,
	// which Amount.Saturated reports; say it is too large, never show it.
	Overflow bool
}

// Add folds top-level entries into t. A serverless wrapper counts under
// "serverless" and its contracts' items under their item types; a contract
// row carrying endpoint metadata (table format) also counts as serverless.
// Sums that would overflow stay saturated and set Overflow.
func (t *Totals) Add(entries []api.Charge) {
	if t.ByType == nil {
		t.ByType = map[string]money.Amount{}
	}
	if t.ByItem == nil {
		t.ByItem = map[string]money.Amount{}
	}
	for i := range entries {
		e := &entries[i]
		t.Contracts++
		var ok bool
		if t.Total, ok = t.Total.AddSaturating(e.Amount); !ok {
			t.Overflow = true
		}
		if !addTo(t.ByType, ContractKind(e), e.Amount) {
			t.Overflow = true
		}
		if !addItems(t.ByItem, e) {
			t.Overflow = true
		}
	}
}

// addTo adds a to by[k] as a saturating running sum; false if it overflowed.
func addTo(by map[string]money.Amount, k string, a money.Amount) bool {
	v, ok := by[k].AddSaturating(a)
	by[k] = v
	return ok
}

// ContractKind is the contract type of a top-level entry for grouping:
// serverless for wrappers and for worker contracts that name an endpoint.
func ContractKind(e *api.Charge) string {
	if e.Type == string(api.TypeServerless) || e.Meta.EndpointID != 0 || e.Meta.WorkergroupID != 0 {
		return string(api.TypeServerless)
	}
	if e.Type == "" {
		return "other"
	}
	return e.Type
}

// ItemTypes are the charge item types of a contract's breakdown.
var ItemTypes = []string{"gpu", "disk", "bwd", "bwu"}

func isItemType(t string) bool {
	for _, it := range ItemTypes {
		if t == it {
			return true
		}
	}
	return false
}

// addItems sums a node's breakdown by item type, recursing through wrappers
// and contracts. A node with no breakdown counts under "other" so the item
// split still adds up to the total. It reports false if a sum overflowed.
func addItems(by map[string]money.Amount, c *api.Charge) bool {
	if len(c.Items) == 0 {
		return addTo(by, "other", c.Amount)
	}
	ok := true
	for i := range c.Items {
		it := &c.Items[i]
		if isItemType(it.Type) {
			ok = addTo(by, it.Type, it.Amount) && ok
		} else {
			ok = addItems(by, it) && ok
		}
	}
	return ok
}
