package shared

import (
	"errors"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/keymap"
)

// TestProseNamesKeysAsBound: "r to reload" says the key reload is bound to,
// and a binding carries its keys and label as bound.
func TestProseNamesKeysAsBound(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"reload": {"f5"}, "export": {}})
	if err != nil {
		t.Fatal(err)
	}
	c := &Context{Keys: b}
	if got := c.RetryText("charges", errors.New("boom")); !strings.HasPrefix(got, "charges stopped (f5 to reload): ") {
		t.Errorf("RetryText = %q", got)
	}
	if got := c.Key("export"); got != "export" {
		t.Errorf("an unbound action is named %q", got)
	}
	if got := (&Context{}).Key("down"); got != "↓" {
		t.Errorf("default down is named %q", got)
	}
	if bd := Binding(b, "reload"); bd.Help().Key != "f5" || len(bd.Keys()) != 1 || bd.Keys()[0] != "f5" {
		t.Errorf("binding %q %q", bd.Help().Key, bd.Keys())
	}
	if Binding(b, "export").Enabled() {
		t.Error("an action bound to no key is enabled")
	}
}
