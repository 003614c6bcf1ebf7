package overview

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// With reload bound to f5, a stopped feed's hint names f5, not r (which
// no longer does anything).
func TestRetryHintNamesReboundKey(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"reload": {"f5"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := fixture()
	boom := &api.Error{Kind: api.ErrServer, Op: "GET /api/v0/charges/", Status: 500, Msg: "internal error"}
	m, d, _ := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs), Errs: map[int]error{2: boom}}
	})
	m.ctx.Keys = b
	d.send(t, shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	if v := view(m); !strings.Contains(v, "✗ charges: ") || !strings.Contains(v, "f5 to reload") || strings.Contains(v, "r to reload") {
		t.Fatalf("the retry hint does not name f5:\n%s", v)
	}
}

// TestTopKeysAsBound: the top contracts' keys come from [keys]: up, down
// and reveal act on the keys bound and not on their defaults, and the
// heading's hint and the help name the keys bound.
func TestTopKeysAsBound(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"up": {"p"}, "down": {"n"}, "reveal": {"o"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := fixture()
	m, d := fixtureScreen(t, cs, b)
	want := topOrder(cs)
	if l := lineWith(t, m, "by amount"); !strings.Contains(l, "p/n choose · o shows it in Charges") {
		t.Errorf("heading %q", l)
	}
	if help := shared.Hint(m.Help().ShortHelp()...); help != "p up · n down · o show in charges · r reload" {
		t.Errorf("help %q", help)
	}
	for _, k := range []string{"j", "down", "enter"} {
		d.key(t, k)
	}
	if len(d.reveals) != 0 || m.cursor != 0 {
		t.Fatalf("a default key still acts: cursor %d, revealed %v", m.cursor, d.reveals)
	}
	d.key(t, "n")
	d.key(t, "n")
	d.key(t, "p")
	d.key(t, "o")
	if len(d.reveals) != 1 || d.reveals[0].Source != want[1] {
		t.Errorf("revealed %v, want %s", d.reveals, want[1])
	}
}

// TestTopBottomAndFindSaysWhere: g and G go to the first and last top
// contract; / has nothing to find among five and says where finding is.
func TestTopBottomAndFindSaysWhere(t *testing.T) {
	m, d := fixtureScreen(t, fixture(), nil)
	d.key(t, "G")
	if m.cursor != len(m.top)-1 || m.cursor == 0 {
		t.Fatalf("G: cursor %d of %d", m.cursor, len(m.top))
	}
	d.key(t, "g")
	if m.cursor != 0 {
		t.Fatalf("g: cursor %d", m.cursor)
	}
	d.key(t, "/")
	if n := len(d.statuses); n == 0 || !strings.Contains(d.statuses[n-1].Text, "/ finds contracts on Charges (2)") {
		t.Fatalf("/ says nothing of where finding is: %v", d.statuses)
	}
}

// fixtureScreen is the screen at 100×40 on charges cs, its keys bound as
// b binds them, the account read and every page loaded.
func fixtureScreen(t *testing.T, cs []api.Charge, b keymap.Bindings) (*Model, *driver) {
	t.Helper()
	ctx := newCtx()
	ctx.Keys = b
	newService(t, ctx, func(api.ChargesQuery) billing.Source[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
	})
	m := New(ctx)
	m.SetSize(100, 40)
	d := newDriver(m)
	d.send(t, shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	return m, d
}
