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
}

// Add folds top-level entries into t. A serverless wrapper counts under
// "serverless" and its contracts' items under their item types; a contract
// row carrying endpoint metadata (table format) also counts as serverless.
func (t *Totals) Add(entries []api.Charge) {
	if t.ByType == nil {
		t.ByType = map[string]money.Amount{}
		t.ByItem = map[string]money.Amount{}
	}
	for i := range entries {
		e := &entries[i]
		t.Contracts++
		t.Total += e.Amount
		t.ByType[ContractKind(e)] += e.Amount
		addItems(t.ByItem, e)
	}
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
// split still adds up to the total.
func addItems(by map[string]money.Amount, c *api.Charge) {
	if len(c.Items) == 0 {
		by["other"] += c.Amount
		return
	}
	for i := range c.Items {
		it := &c.Items[i]
		if isItemType(it.Type) {
			by[it.Type] += it.Amount
		} else {
			addItems(by, it)
		}
	}
}
