// Package keymap is the one table of the dashboard's rebindable actions:
// each action's name (what the settings file's [keys] table calls it), its
// default keys, its help text and where it acts. The settings loader checks
// a user's [keys] against it; the root model and every screen build their
// bindings from it, so the help, the footer and every hint that names a key
// show the keys as bound. It knows nothing of Bubble Tea: a key is the string Bubble Tea's
// KeyPressMsg.String() gives ("ctrl+f", "G", "pgdown").
package keymap

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vastdash/vastdash/suggest"
)

// Where is the set of places an action acts in; two actions live in the
// same place must not share a key.
type Where uint32

// The places keys act in. Everywhere is the root's keys, which come before
// a screen's own (except while a text field has the keyboard).
const (
	Everywhere     Where = 1 << iota // any screen, no text field open
	HelpPane                         // the ? pane, which takes the keyboard
	Rows                             // the Charges rows
	Detail                           // the Charges detail pane (i)
	Picker                           // the Charges type picker (t)
	Field                            // the Charges custom-range field (c)
	Find                             // a find field (/): the Charges', the Statement's
	Always                           // every place, text fields too
	Top                              // the Overview's top contracts
	Switches                         // Notifications, the cursor on a switch
	ThresholdRow                     // Notifications, the cursor on the threshold
	Prompt                           // Notifications, the save prompt open
	ThresholdField                   // Notifications, the threshold's text field (b)
	Months                           // the Statement's months and records
	HookRow                          // Notifications, the cursor on a webhook or the add row
	HookForm                         // the webhook form, a text field (name, URL) focused
	HookEvents                       // the webhook form, its events focused
	SecretPanel                      // a webhook's new secret, shown once
	Leaks                            // the Audit's rows
	Answer                           // the Audit's prompt to answer a price increase
	SignInField                      // the sign-in screen's key field
	SignInResult                     // the sign-in screen, a key verified
	SignInAsk                        // the sign-in screen asking to replace a key file
	AccountRows                      // the Accounts roll-up's rows (two accounts or more)
)

// fields are the places where a text field has the keyboard: a key that
// types a character cannot act there.
const fields = Field | Find | ThresholdField | HookForm | SignInField

// places lists the sets of places whose keys are matched together; a key
// may serve one action in each.
var places = []struct {
	name string
	w    Where
}{
	{"the Charges rows", Everywhere | Rows | Always},
	{"the Charges detail pane", Everywhere | Detail | Always},
	{"the Charges type picker", Everywhere | Picker | Always},
	{"the Charges range field", Field | Always},
	{"a find field", Find | Always},
	{"the help pane", HelpPane | Always},
	{"the Overview", Everywhere | Top | Always},
	{"the Notifications switches", Everywhere | Switches | Always},
	{"the Notifications threshold row", Everywhere | ThresholdRow | Always},
	{"the Notifications save prompt", Everywhere | Prompt | Always},
	{"the threshold field", ThresholdField | Always},
	{"the Statement", Everywhere | Months | Always},
	{"the Notifications webhooks", Everywhere | HookRow | Always},
	{"the webhook form's fields", HookForm | Always},
	{"the webhook form's events", HookEvents | Always},
	{"the secret panel", Everywhere | SecretPanel | Always},
	{"the Audit", Everywhere | Leaks | Always},
	{"the Audit's answer prompt", Answer | Always},
	{"the sign-in field", SignInField | Always},
	{"the sign-in result", SignInResult | Always},
	{"the sign-in question", SignInAsk | Always},
	{"the Accounts", Everywhere | AccountRows | Always},
}

// notifications is every place of the Notifications list.
const notifications = Switches | ThresholdRow | HookRow

// Action is one rebindable action.
type Action struct {
	Name  string   // as written in [keys]: "search"
	Keys  []string // default keys; the help shows the first two
	Desc  string   // help text: "find"
	Where Where
}

// Actions is the table, in the order docs/keys.md lists it.
var Actions = []Action{
	{"accounts", []string{"0"}, "Accounts", Everywhere | HelpPane},
	{"overview", []string{"1"}, "Overview", Everywhere | HelpPane},
	{"charges", []string{"2"}, "Charges", Everywhere | HelpPane},
	{"notifications", []string{"3"}, "Notifications", Everywhere | HelpPane},
	{"statement", []string{"4"}, "Statement", Everywhere | HelpPane},
	{"audit", []string{"5"}, "Audit", Everywhere | HelpPane},
	{"next-screen", []string{"tab"}, "next screen", Everywhere | HelpPane},
	{"prev-screen", []string{"shift+tab"}, "previous screen", Everywhere | HelpPane},
	{"reload", []string{"r"}, "reload", Everywhere | Rows},
	{"help", []string{"?"}, "help", Everywhere},
	{"quit", []string{"q"}, "quit", Everywhere | HelpPane},
	{"force-quit", []string{"ctrl+c"}, "quit, even while typing", Always},

	{"help-close", []string{"?", "esc"}, "close help", HelpPane},
	{"help-up", []string{"up", "k"}, "scroll up", HelpPane},
	{"help-down", []string{"down", "j"}, "scroll down", HelpPane},
	{"help-page-up", []string{"pgup", "ctrl+u"}, "page up", HelpPane},
	{"help-page-down", []string{"pgdown", "ctrl+d", "space"}, "page down", HelpPane},
	{"help-top", []string{"g", "home"}, "top", HelpPane},
	{"help-bottom", []string{"G", "end"}, "bottom", HelpPane},

	{"up", []string{"up", "k"}, "up", Rows | Detail | Top | notifications | Months | Leaks | AccountRows},
	{"down", []string{"down", "j"}, "down", Rows | Detail | Top | notifications | Months | Leaks | AccountRows},
	{"page-up", []string{"pgup"}, "page up", Rows | Detail | notifications},
	{"page-down", []string{"pgdown"}, "page down", Rows | Detail | notifications},
	{"half-page-up", []string{"ctrl+u"}, "half page up", Rows},
	{"half-page-down", []string{"ctrl+d"}, "half page down", Rows},
	{"top", []string{"g", "home"}, "first row", Rows | Detail | Top | notifications | Months | AccountRows},
	{"bottom", []string{"G", "end"}, "last row (keeps loading)", Rows | Top | notifications | Months | AccountRows},
	{"toggle", []string{"enter", "space"}, "expand/collapse", Rows},
	{"expand", []string{"right", "l"}, "expand", Rows},
	{"collapse", []string{"left", "h"}, "collapse/parent", Rows},
	{"range-next", []string{"d"}, "next range", Rows},
	{"range-prev", []string{"D"}, "previous range", Rows},
	{"custom-range", []string{"c"}, "custom range", Rows},
	{"types", []string{"t"}, "types", Rows},
	{"format", []string{"f"}, "table/tree", Rows},
	{"order", []string{"o"}, "newest/oldest", Rows},
	{"search", []string{"/"}, "find", Rows | Months | notifications | Top},
	{"search-keep", []string{"enter"}, "keep filter", Find},
	{"search-clear", []string{"esc"}, "clear filter", Rows | Find | Months},
	{"match-up", []string{"up"}, "previous match", Find},
	{"match-down", []string{"down"}, "next match", Find},
	{"details", []string{"i"}, "details", Rows | Detail},
	{"close", []string{"esc"}, "close", Detail},
	{"copy", []string{"y"}, "copy source", Rows | Detail | Months},
	{"export", []string{"e"}, "export csv", Rows | Months},
	{"sort", []string{"s"}, "sort", Rows | Months},

	{"pick-instance", []string{"i"}, "instance", Picker},
	{"pick-volume", []string{"v"}, "volume", Picker},
	{"pick-serverless", []string{"s"}, "serverless", Picker},
	{"pick-toggle", []string{"space", "x"}, "toggle", Picker},
	{"pick-left", []string{"left", "h"}, "move left", Picker},
	{"pick-right", []string{"right", "l"}, "move right", Picker},
	{"apply", []string{"enter"}, "apply", Picker | Field},
	{"field-clear", []string{"ctrl+u"}, "clear", fields},
	{"cancel", []string{"esc"}, "cancel", Picker | Field},

	{"reveal", []string{"enter"}, "show in charges", Top | Leaks},

	{"switch", []string{"space", "enter"}, "toggle & save", Switches},
	{"threshold-edit", []string{"b"}, "edit threshold", notifications},
	{"threshold-switch", []string{"B"}, "threshold on/off", notifications},
	{"threshold-suggest", []string{"a"}, "apply suggestion", notifications},
	{"threshold-row-edit", []string{"enter"}, "edit threshold", ThresholdRow},
	{"threshold-row-switch", []string{"space"}, "threshold on/off", ThresholdRow},
	{"threshold-save", []string{"enter"}, "save threshold", ThresholdField},
	{"threshold-cancel", []string{"esc"}, "cancel", ThresholdField},
	{"prompt-yes", []string{"y"}, "save", Prompt | Answer},
	{"prompt-no", []string{"n", "esc"}, "cancel", Prompt | Answer},
	{"prompt-flip", []string{"space", "enter"}, "on/off", Prompt},

	{"records", []string{"enter", "space"}, "the month's records", Months},

	{"webhook-add", []string{"+"}, "add webhook", notifications},
	{"webhook-edit", []string{"enter"}, "edit webhook", HookRow},
	{"webhook-delete", []string{"delete", "backspace"}, "delete webhook", HookRow},
	{"webhook-test", []string{"T"}, "send a test", HookRow},
	{"webhook-rotate", []string{"R"}, "rotate secret", HookRow},
	{"form-next", []string{"tab"}, "next field", HookForm | HookEvents},
	{"form-prev", []string{"shift+tab"}, "previous field", HookForm | HookEvents},
	{"form-save", []string{"enter"}, "save webhook", HookForm | HookEvents},
	{"form-cancel", []string{"esc"}, "cancel", HookForm | HookEvents},
	{"event-up", []string{"up", "k"}, "previous event", HookEvents},
	{"event-down", []string{"down", "j"}, "next event", HookEvents},
	{"event-pick", []string{"space", "x"}, "pick event", HookEvents},
	{"secret-copy", []string{"y"}, "copy secret", SecretPanel},
	{"secret-close", []string{"esc", "enter"}, "close", SecretPanel},
	{"account-open", []string{"enter"}, "open this account", AccountRows},
	{"account-add", []string{"+"}, "add an account", AccountRows},
	{"answer-accept", []string{"A"}, "accept increase", Leaks},
	{"answer-reject", []string{"X"}, "reject increase", Leaks},
	{"signin-verify", []string{"enter"}, "verify", SignInField},
	{"signin-quit", []string{"esc"}, "quit", SignInField},
	{"signin-save", []string{"enter"}, "save & open", SignInResult},
	{"signin-scoped", []string{"s"}, "key for vastdash", SignInResult},
	{"signin-scoped-alerts", []string{"w"}, "…changing alerts too", SignInResult},
	{"signin-back", []string{"esc"}, "back", SignInResult | SignInAsk},
	{"signin-replace", []string{"y"}, "replace", SignInAsk},
	{"signin-keep", []string{"n"}, "keep it", SignInAsk},
}

// ways are the actions a user cannot unbind all of: each group (one
// action or two) is the only way to something that must stay reachable,
// and one of its actions keeps a key.
var ways = []struct {
	names []string
	what  string
}{
	{[]string{"quit", "force-quit"}, "quit the dashboard"},
	{[]string{"help"}, "open the help"},
	{[]string{"help-close"}, "close the help"},
	{[]string{"close", "details"}, "close the Charges details"},
	{[]string{"search-keep", "search-clear"}, "leave a find field"},
	{[]string{"apply", "cancel"}, "leave the Charges type picker and range field"},
	{[]string{"threshold-save", "threshold-cancel"}, "leave the threshold field"},
	{[]string{"prompt-yes", "prompt-no"}, "answer the save prompt and the Audit's"},
	{[]string{"form-save", "form-cancel"}, "leave the webhook form"},
	{[]string{"secret-close"}, "close the secret panel"},
	{[]string{"signin-quit", "force-quit"}, "leave the sign-in"},
	{[]string{"signin-verify"}, "verify a key at the sign-in"},
	{[]string{"signin-save"}, "save a key at the sign-in"},
	{[]string{"signin-replace", "signin-keep", "signin-back"}, "answer the sign-in's question"},
}

// Bindings maps every action's name to its keys. The zero value (nil)
// means the defaults.
type Bindings map[string][]string

// Defaults returns the default keys of every action.
func Defaults() Bindings {
	b := make(Bindings, len(Actions))
	for _, a := range Actions {
		b[a.Name] = slices.Clone(a.Keys)
	}
	return b
}

// Lookup returns the action named name.
func Lookup(name string) (Action, bool) {
	i := slices.IndexFunc(Actions, func(a Action) bool { return a.Name == name })
	if i < 0 {
		return Action{}, false
	}
	return Actions[i], true
}

// Keys returns the keys of action name: as bound, or its defaults when b
// has none for it.
func (b Bindings) Keys(name string) []string {
	if k, ok := b[name]; ok {
		return k
	}
	a, _ := Lookup(name)
	return a.Keys
}

// Label is how the help shows action name's keys: the first two, arrows
// as arrows ("↑/k", "pgdn", "ctrl+f"); "" when it has no key.
func (b Bindings) Label(name string) string {
	keys := b.Keys(name)
	if len(keys) > 2 {
		keys = keys[:2]
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = Name(k)
	}
	return strings.Join(out, "/")
}

// First is action name's first key as the help shows it ("r", "↓"), ""
// when it has none: for prose like "r to retry".
func (b Bindings) First(name string) string {
	if keys := b.Keys(name); len(keys) > 0 {
		return Name(keys[0])
	}
	return ""
}

// Name is how the help shows key k: arrows as arrows ("↑"), pgdown as
// "pgdn", any other key as Bubble Tea spells it.
func Name(k string) string {
	switch k {
	case "up":
		return "↑"
	case "down":
		return "↓"
	case "left":
		return "←"
	case "right":
		return "→"
	case "pgdown":
		return "pgdn"
	}
	return k
}

// Error is a problem with one action of a user's [keys]: the settings
// loader adds the file and line.
type Error struct {
	Action string // the name as written
	Msg    string
}

// Error is the problem alone; the settings loader puts the file and line
// in front.
func (e *Error) Error() string { return e.Msg }

// Bind returns the defaults with user's bindings in place of theirs. An
// action name not in the table, a key Bubble Tea never reports, two
// actions live in one place sharing a key (a global key one of a screen's
// too), or no key left for the only ways to quit, to open or close the
// help, or out of a text field or prompt is an *Error. Keys are returned
// in Bubble Tea's spelling (modifiers in its order: "ctrl+alt+x"). An
// empty list unbinds an action.
func Bind(user map[string][]string) (Bindings, error) {
	b := Defaults()
	names := make([]string, 0, len(user))
	for n := range user {
		names = append(names, n)
	}
	slices.Sort(names) // the same error each run
	for _, n := range names {
		if _, ok := Lookup(n); !ok {
			return nil, &Error{Action: n, Msg: unknownAction(n)}
		}
		keys := make([]string, 0, len(user[n]))
		for _, k := range user[n] {
			nk, err := ParseKey(k)
			if err != nil {
				return nil, &Error{Action: n, Msg: fmt.Sprintf("keys: %s = %q: %v", n, k, err)}
			}
			if a, _ := Lookup(n); a.Where&fields != 0 && typed(nk) {
				return nil, &Error{Action: n, Msg: fmt.Sprintf("keys: %s = %q: %s acts while a text field has the keyboard, where %q is typed; bind it to a key with ctrl or alt, or a named key", n, k, n, nk)}
			}
			if !slices.Contains(keys, nk) {
				keys = append(keys, nk)
			}
		}
		b[n] = keys
	}
	if err := b.check(user); err != nil {
		return nil, err
	}
	if err := b.reachable(user); err != nil {
		return nil, err
	}
	return b, nil
}

// reachable finds a group of ways that the user left without a key,
// naming the first of its actions the user bound (the defaults bind all).
func (b Bindings) reachable(user map[string][]string) error {
	for _, w := range ways {
		blame := ""
		for _, n := range w.names {
			if len(b.Keys(n)) > 0 {
				blame = ""
				break
			}
			if _, ok := user[n]; ok && blame == "" {
				blame = n
			}
		}
		if blame == "" {
			continue
		}
		if len(w.names) == 1 {
			return &Error{Action: blame, Msg: fmt.Sprintf("keys: %s has no key, and nothing else can %s: give it one", blame, w.what)}
		}
		return &Error{Action: blame, Msg: fmt.Sprintf("keys: %s both have no key, and nothing else can %s: give one of them a key", strings.Join(w.names, " and "), w.what)}
	}
	return nil
}

// check finds two actions live in one place that share a key, naming one
// the user bound (the defaults share none).
func (b Bindings) check(user map[string][]string) error {
	for _, p := range places {
		owner := map[string]string{}
		for _, a := range Actions {
			if a.Where&p.w == 0 {
				continue
			}
			for _, k := range b.Keys(a.Name) {
				other, taken := owner[k]
				if !taken {
					owner[k] = a.Name
					continue
				}
				blame := a.Name
				if _, ok := user[blame]; !ok {
					blame = other
				}
				return &Error{Action: blame, Msg: fmt.Sprintf("keys: %q is bound to both %s and %s, which both act in %s", k, other, a.Name, p.name)}
			}
		}
	}
	return nil
}

// unknownAction is the error for a name not in the table, suggesting the
// nearest one when there is one close enough.
func unknownAction(n string) string {
	names := make([]string, len(Actions))
	for i, a := range Actions {
		names[i] = a.Name
	}
	if near := suggest.Closest(n, names, 2, false); len(near) > 0 {
		return fmt.Sprintf("keys: unknown action %q (did you mean %q? vastdash man lists every action)", n, near[0])
	}
	return fmt.Sprintf("keys: unknown action %q (vastdash man lists every action, under KEYS)", n)
}

// modifiers in the order Bubble Tea writes them.
var modifiers = []string{"ctrl", "alt", "shift", "meta", "hyper", "super"}

// named are the keys Bubble Tea names, besides f1–f63.
var named = []string{
	"enter", "tab", "backspace", "esc", "space", "up", "down", "left", "right",
	"begin", "find", "insert", "delete", "select", "pgup", "pgdown", "home", "end",
}

// ErrKey is wrapped by every ParseKey error.
var ErrKey = errors.New("not a key")

// ParseKey checks that s is a key as Bubble Tea reports it and returns its
// canonical spelling: modifiers (ctrl, alt, shift, meta, hyper, super) in
// Bubble Tea's order, then one printable character or a named key (enter,
// esc, tab, space, up, pgdown, home, f1 … f63, …). "shift+a" is refused:
// a shifted letter arrives as "A".
func ParseKey(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrKey)
	}
	base := s
	var mods []string
	if s != "+" {
		parts := strings.Split(s, "+")
		if strings.HasSuffix(s, "++") { // "ctrl++"
			parts = append(parts[:len(parts)-2], "+")
		}
		base = parts[len(parts)-1]
		for _, m := range parts[:len(parts)-1] {
			m = strings.ToLower(m)
			if !slices.Contains(modifiers, m) {
				return "", fmt.Errorf("%w: unknown modifier %q (want ctrl, alt, shift, meta, hyper or super)", ErrKey, m)
			}
			if slices.Contains(mods, m) {
				return "", fmt.Errorf("%w: %s given twice", ErrKey, m)
			}
			mods = append(mods, m)
		}
	}
	if base == "" {
		return "", fmt.Errorf("%w: a modifier needs a key after it", ErrKey)
	}
	if utf8.RuneCountInString(base) == 1 {
		r, _ := utf8.DecodeRuneInString(base)
		if !unicode.IsPrint(r) || r == ' ' {
			return "", fmt.Errorf("%w: write space, tab, enter or esc by name", ErrKey)
		}
		if len(mods) > 0 {
			// ctrl+F never arrives: Bubble Tea reports the letter.
			base = strings.ToLower(base)
		}
		if len(mods) == 1 && mods[0] == "shift" {
			return "", fmt.Errorf("%w: a shifted character arrives as itself: write %q", ErrKey, string(unicode.ToUpper(r)))
		}
	} else {
		low := strings.ToLower(base)
		if !slices.Contains(named, low) && !isFKey(low) {
			return "", fmt.Errorf("%w: %q is neither one character nor a key name like enter, esc, tab, space, up, pgdown, home or f5", ErrKey, base)
		}
		base = low
	}
	slices.SortFunc(mods, func(a, b string) int { return slices.Index(modifiers, a) - slices.Index(modifiers, b) })
	return strings.Join(append(mods, base), "+"), nil
}

// typed reports a key that types a character into a text field: one
// character, alone or with shift only.
func typed(k string) bool {
	k = strings.TrimPrefix(k, "shift+")
	return utf8.RuneCountInString(k) == 1 || k == "space"
}

func isFKey(s string) bool {
	n, ok := strings.CutPrefix(s, "f")
	if !ok || n == "" || len(n) > 2 || n[0] == '0' {
		return false
	}
	v := 0
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
		v = v*10 + int(c-'0')
	}
	return v >= 1 && v <= 63
}
