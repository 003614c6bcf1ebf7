package api

import "github.com/vastdash/vastdash/money"

// ContractType is a value of the charges type filter.
type ContractType string

// The contract types the charges type filter accepts.
const (
	TypeInstance   ContractType = "instance"
	TypeVolume     ContractType = "volume"
	TypeServerless ContractType = "serverless"
)

// AllContractTypes lists the filter values in display order.
var AllContractTypes = []ContractType{TypeInstance, TypeVolume, TypeServerless}

// Format is the shape of the charges report.
type Format string

// Charges report formats.
const (
	// FormatTable is a flat list of per-contract rows.
	FormatTable Format = "table"
	// FormatTree collapses serverless contracts under endpoint and
	// workergroup wrappers.
	FormatTree Format = "tree"
)

// Charge is one node of the charges report: a top-level entry (a contract or
// a serverless wrapper) or one of its items. The API nests the same shape
// through Items at every depth (endpoint → workergroup → contract →
// gpu/disk/bwd/bwu), so one recursive type serves them all.
//
// Times are unix seconds (UTC) rather than time.Time: a loaded contract with
// four items is five nodes, and heavy users hold tens of thousands of them.
type Charge struct {
	Start, End  int64  // unix seconds; 0 when the server sent none
	Type        string // instance, volume, serverless; gpu, disk, bwd, bwu for items
	Source      string // "instance-123", "endpoint-7"; empty when null (common on items)
	Description string
	Amount      money.Amount
	Meta        Metadata
	Items       []Charge
}

// Metadata holds the optional keys of a charge; each is zero when absent.
type Metadata struct {
	Label         string
	TemplateID    int64
	EndpointID    int64
	WorkergroupID int64
}

// User is what vastdash keeps of the account record. The raw record also
// holds the API key itself; it is never decoded into anything kept.
type User struct {
	ID    int64
	Email string
	// Credit is the account's credit; valid unless CreditMissing.
	Credit money.Amount
	// CreditMissing is set when the record holds no credit figure (null,
	// or no field at all): Credit is then 0 and means nothing. It is never
	// to be shown or used as $0.
	CreditMissing bool
	Balance       money.Amount
	// BalanceThreshold is the low-balance threshold that triggers the
	// low_credit notification; nil when the record has none.
	BalanceThreshold *money.Amount
	// BalanceThresholdBad is set when the record's balance_threshold is
	// not a number an Amount holds (a string, 1e308); BalanceThreshold is
	// then nil.
	BalanceThresholdBad bool
	// BalanceThresholdEnabled is nil when the record does not say.
	BalanceThresholdEnabled *bool
}
