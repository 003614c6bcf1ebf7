// Package layers is the layering of vastdash written down as data: every
// package of the module, on the floor it stands on. A package may import
// only packages on floors below its own, so nothing imports upward and
// nothing imports in a circle; its test checks every import of every file
// against this table, and that ARCHITECTURE.md names every package. A new
// package gets a line here, and one there.
package layers

// Floors lists the module's packages from the bottom up, by their path in
// the module ("." is the root, package main).
var Floors = [][]string{
	// Values and text, no I/O; and the tests' helpers that need nothing of ours.
	{"money", "sanitize", "suggest", "textwrap", "ui/theme", "ui/internal/golden", "ui/internal/hang", "ui/internal/termguard", "internal/testhome", "notify"},
	// The wire, its stand-in, and the key table.
	{"api", "keymap"},
	{"api/demoserver", "config"},
	// Days, ranges and their arithmetic, and the ledger's store, under the
	// billing layer.
	{"spend", "ledger"},
	// Every rule of the domain, once.
	{"billing"},
	// The features carved out of billing, each on the core's service: the
	// audit and the notifications; and what a key may do, whose test runs
	// the audit with a key made for vastdash alone.
	{"billing/leaks", "billing/notices", "billing/demotest"},
	{"billing/access"},
	{"billing/billingtest", "export", "exporter", "alerting"},
	// The dashboard: what the screens share, the screens, the root model.
	{"ui/shared"},
	{"ui/overview", "ui/charges", "ui/notifications", "ui/statement", "ui/audit", "ui/signin", "ui/accounts", "ui/internal/screentest"},
	{"ui"},
	// The command line: the dashboard command and every headless one.
	{"internal/cli"},
	// The door.
	{"."},
}

// Forbidden are imports the floors allow but the design does not, by the
// importing package: the commands reach the domain only through billing
// (spend's arithmetic is billing's business), and the wire's stand-in
// serves tests and --demo only. Test files are exempt.
var Forbidden = map[string][]string{
	"internal/cli":    {"spend"},
	"ui":              {"api/demoserver"},
	"billing":         {"api/demoserver", "config"},
	"billing/access":  {"api/demoserver", "config"},
	"billing/leaks":   {"api/demoserver", "config"},
	"billing/notices": {"api/demoserver", "config"},
	// The exporter's figures are billing's; it never reads the settings
	// itself (the serve command hands it what it needs).
	"exporter": {"spend", "config"},
}

// Doubles are the stand-ins and test builders the tests of any floor may
// use, the packages they stand in for or build on included (api's tests run
// against api/demoserver, the screens' tests take their context from
// ui/internal/screentest).
var Doubles = []string{"api/demoserver", "billing/billingtest", "billing/demotest", "ui/internal/screentest"}

// This package itself is outside the layering: nothing imports it.
const self = "internal/layers"
