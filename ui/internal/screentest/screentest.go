// Package screentest builds the program context the dashboard's tests hand
// to a screen or to the root model. Every test builds it here, so a field the
// context gains gets its test default in one place instead of in each test.
package screentest

import (
	"context"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// Option sets one field of the context a test needs other than the default.
type Option func(*shared.Context)

// Context is the screens' context on svc (nil for a screen fed by hand),
// whose requests derive from base. It starts as a
// run with no settings does: the 30d range, the default keys, no state file,
// no budget, and no styles, so the root picks them from its options and a
// screen falls back to its own.
func Context(base context.Context, svc *billing.Service, opts ...Option) *shared.Context {
	ctx := &shared.Context{Base: base, Billing: svc, DefaultRange: "30d"}
	for _, o := range opts {
		o(ctx)
	}
	return ctx
}

// Styles renders with s.
func Styles(s *theme.Styles) Option {
	return func(ctx *shared.Context) { ctx.Styles = s }
}

// Range starts the charges filters on preset ("90d"), as the settings'
// default range does.
func Range(preset string) Option {
	return func(ctx *shared.Context) { ctx.DefaultRange = preset }
}

// Keys binds the keys as the settings' [keys] do.
func Keys(b keymap.Bindings) Option {
	return func(ctx *shared.Context) { ctx.Keys = b }
}
