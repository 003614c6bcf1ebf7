package signin

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/access"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/ui/internal/golden"
)

// canary is the key pasted in every test: no frame, message or print of
// the model may hold it, nor its distinctive part.
const canary = "CANARY-signin-key-9d4e"

func leaked(s string) bool { return strings.Contains(s, "CANARY") || strings.Contains(s, "9d4e") }

// fakes are Funcs that record what they were asked and answer as told.
type fakes struct {
	mu        sync.Mutex
	verifyErr error
	access    access.Access
	checkErr  error
	scoped    access.Scoped
	saveErr   error
	saved     []string // the keys saved, "replace:" marked
	verified  []string
	discarded []int64
}

func fullAccess(email string) access.Access {
	return access.Access{Email: email, UserID: 7, Checks: []access.Check{
		{Permission: access.BillingRead, Verdict: access.Granted},
		{Permission: access.UserRead, Verdict: access.Granted},
		{Permission: access.UserWrite, Verdict: access.Unsure, Why: "not tested: every call that needs it changes the account"},
		{Permission: access.InstanceRead, Verdict: access.Granted},
		{Permission: access.InstanceWrite, Verdict: access.Unsure, Why: "not tested: every call that needs it changes the account"},
		{Permission: access.Misc, Verdict: access.Granted},
	}}
}

func (f *fakes) funcs() Funcs {
	return Funcs{
		Verify: func(_ context.Context, k config.Secret) (access.Access, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.verified = append(f.verified, k.Reveal())
			return f.access, f.verifyErr
		},
		Scope: func(context.Context, bool) access.Scoped { return f.scoped },
		Check: func() error { return f.checkErr },
		Save: func(k config.Secret, replace bool) (string, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.saveErr != nil {
				return "", f.saveErr
			}
			mark := ""
			if replace {
				mark = "replace:"
			}
			f.saved = append(f.saved, mark+k.Reveal())
			return "/home/u/.config/vastai/vast_api_key", nil
		},
		Discard: func(_ context.Context, id int64) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.discarded = append(f.discarded, id)
			return nil
		},
	}
}

// screen is a model at w×h with its commands run as Bubble Tea would.
// While hold is set its commands wait in held, as I/O under way does,
// until release runs them.
type screen struct {
	t    *testing.T
	m    *Model
	w, h int
	quit bool
	hold bool
	held []tea.Cmd
}

// step runs the commands held once: what they lead to is held again.
func (s *screen) step() {
	s.t.Helper()
	held := s.held
	s.held = nil
	for _, c := range held {
		s.deliver(c())
	}
}

// release runs the commands held, and those they lead to, at once.
func (s *screen) release() {
	s.t.Helper()
	s.hold = false
	s.step()
}

// isQuit reports tea.Quit, which no I/O holds up.
func isQuit(cmd tea.Cmd) bool {
	return reflect.ValueOf(cmd).Pointer() == reflect.ValueOf(tea.Quit).Pointer()
}

func newScreen(t *testing.T, f *fakes, w, h int) *screen {
	m := New(context.Background(), Options{Funcs: f.funcs(), Path: "~/.config/vastai/vast_api_key"})
	s := &screen{t: t, m: m, w: w, h: h}
	s.send(tea.WindowSizeMsg{Width: w, Height: h})
	return s
}

// send delivers msg and runs the commands it returns (spinner ticks are
// not followed: they only animate), checking every frame.
func (s *screen) send(msg tea.Msg) {
	s.t.Helper()
	_, cmd := s.m.Update(msg)
	s.run(cmd)
	s.frame()
}

func (s *screen) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if s.hold && !isQuit(cmd) {
		s.held = append(s.held, cmd)
		return
	}
	s.deliver(cmd())
}

func (s *screen) deliver(msg tea.Msg) {
	s.t.Helper()
	switch msg := msg.(type) {
	case nil, spinner.TickMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			s.run(c)
		}
	case tea.QuitMsg:
		s.quit = true
	default:
		s.send(msg)
	}
}

// frame is the screen now, checked: exactly w×h, no key.
func (s *screen) frame() string {
	s.t.Helper()
	v := s.m.View().Content
	golden.AssertFits(s.t, v, s.w, s.h)
	if leaked(v) {
		s.t.Fatalf("the key is drawn:\n%s", ansi.Strip(v))
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		if p := fmt.Sprintf(verb, s.m); leaked(p) || strings.Contains(p, fmt.Sprintf("%x", canary[:8])) {
			s.t.Fatalf("%s of the model shows the key: %s", verb, p)
		}
	}
	return ansi.Strip(v)
}

func (s *screen) key(k string) {
	s.t.Helper()
	switch k {
	case "enter":
		s.send(tea.KeyPressMsg{Code: tea.KeyEnter})
	case "esc":
		s.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	case "ctrl+u":
		s.send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	case "backspace":
		s.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	default:
		s.send(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
	}
}

// flat is a frame's words on one line, so a check does not depend on
// where a message wraps.
func flat(fr string) string { return strings.Join(strings.Fields(fr), " ") }

func (s *screen) paste(text string) { s.t.Helper(); s.send(tea.PasteMsg{Content: text}) }

func TestPasteIsMaskedAndVerified(t *testing.T) {
	f := &fakes{access: fullAccess("ann@example.com")}
	s := newScreen(t, f, 80, 24)
	for _, want := range []string{"console's Keys page", config.ConsoleKeysURL, "shown only once", "--demo", "~/.config/vastai/vast_api_key"} {
		if !strings.Contains(s.frame(), want) {
			t.Errorf("the intro lacks %q:\n%s", want, s.frame())
		}
	}
	s.paste(canary + "\n")
	if fr := s.frame(); !strings.Contains(fr, strings.Repeat("•", len(canary))) || !strings.Contains(fr, fmt.Sprintf("(%d characters)", len(canary))) {
		t.Fatalf("the field is not drawn as dots:\n%s", fr)
	}
	s.key("enter")
	if len(f.verified) != 1 || f.verified[0] != canary {
		t.Fatalf("verified %d keys", len(f.verified))
	}
	fr := s.frame()
	for _, want := range []string{"ann@example.com", "✓ billing_read", "? user_write", "✓ instance_read", "charges, spend", "A key for vastdash alone"} {
		if !strings.Contains(fr, want) {
			t.Errorf("the result lacks %q:\n%s", want, fr)
		}
	}
	if len(f.saved) != 0 {
		t.Fatal("saved before the user confirmed")
	}
	s.key("enter")
	if len(f.saved) != 1 || f.saved[0] != canary || !s.quit {
		t.Fatalf("saved %d, quit %v", len(f.saved), s.quit)
	}
	if r := s.m.Result(); !r.Saved || !strings.Contains(r.Note, "signed in") || leaked(r.Note) {
		t.Fatalf("result %+v", r)
	}
}

// A wrong key, or a server down while verifying: the message in place,
// the field kept for another try, nothing written.
func TestFailedVerificationKeepsTheField(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"wrong key", &api.Error{Kind: api.ErrInvalidKey}, "rejected"},
		{"server down", errors.New("cannot reach 127.0.0.1:9 (connection refused) — check the URL"), "cannot reach"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakes{verifyErr: tc.err}
			s := newScreen(t, f, 80, 24)
			s.paste(canary)
			s.key("enter")
			fr := s.frame()
			if !strings.Contains(flat(fr), tc.want) || !strings.Contains(fr, fmt.Sprintf("(%d characters)", len(canary))) || !strings.Contains(fr, "API key") {
				t.Fatalf("want the message and the field kept:\n%s", fr)
			}
			if len(f.saved) != 0 || s.quit {
				t.Fatal("something was written")
			}
			// Another try with the same field.
			f.verifyErr, f.access = nil, fullAccess("a@b.c")
			s.key("enter")
			if len(f.verified) != 2 || f.verified[1] != canary || !strings.Contains(s.frame(), "a@b.c") {
				t.Fatalf("the second try did not verify the kept key: %d", len(f.verified))
			}
		})
	}
}

// What no key holds is refused whole, and never repeated.
func TestPasteRefusesWhatIsNotAKey(t *testing.T) {
	f := &fakes{}
	s := newScreen(t, f, 80, 24)
	for _, bad := range []string{"CANARY key", "CANARY\x1b[2J", "CANARY\x00", "CANARYé", strings.Repeat("CANARY", 100)} {
		s.paste(bad)
		if fr := s.frame(); strings.Contains(fr, "characters)") || !strings.Contains(flat(fr), "paste only the key") {
			t.Fatalf("%q was taken:\n%s", bad, fr)
		}
	}
	s.key("enter")
	if len(f.verified) != 0 || !strings.Contains(s.frame(), "paste your key first") {
		t.Fatal("an empty field was verified")
	}
	// Typed by hand, edited, cleared.
	for _, k := range []string{"a", "b", "c", "backspace"} {
		s.key(k)
	}
	if !strings.Contains(s.frame(), "(2 characters)") {
		t.Fatalf("typing: %s", s.frame())
	}
	s.key("ctrl+u")
	if strings.Contains(s.frame(), "characters)") {
		t.Fatal("ctrl+u kept the field")
	}
}

// A 403 on one probe is shown as ✗ with what it would unlock.
func TestLackingPermissionShown(t *testing.T) {
	a := fullAccess("a@b.c")
	a.Checks[0] = access.Check{Permission: access.BillingRead, Verdict: access.Denied, Why: "refused: this key lacks billing_read"}
	s := newScreen(t, &fakes{access: a}, 80, 24)
	s.paste(canary)
	s.key("enter")
	if fr := s.frame(); !strings.Contains(fr, "✗ billing_read") || !strings.Contains(flat(fr), "refused: this key lacks billing_read") {
		t.Fatalf("%s", fr)
	}
}

// A key file already there: asked; n writes nothing, y replaces.
func TestExistingFileIsReplacedOnlyWhenAsked(t *testing.T) {
	f := &fakes{access: fullAccess("a@b.c"), checkErr: config.ErrKeyExists}
	s := newScreen(t, f, 80, 24)
	s.paste(canary)
	s.key("enter")
	s.key("enter")
	if fr := s.frame(); !strings.Contains(flat(fr), "already exists. Replace it?") || len(f.saved) != 0 {
		t.Fatalf("not asked:\n%s", fr)
	}
	s.key("n")
	if fr := s.frame(); !strings.Contains(flat(fr), "nothing was written") || len(f.saved) != 0 || s.quit {
		t.Fatalf("n: %s", fr)
	}
	s.key("enter")
	s.key("y")
	if len(f.saved) != 1 || f.saved[0] != "replace:"+canary || !s.quit {
		t.Fatalf("y saved %d", len(f.saved))
	}
}

// A target that cannot be written (a link, a read-only folder) is said
// before anything is made; nothing is saved.
func TestUnwritableTargetSaid(t *testing.T) {
	f := &fakes{access: fullAccess("a@b.c"), checkErr: errors.New("~/.config/vastai/vast_api_key is a symbolic link; vastdash never writes through one")}
	s := newScreen(t, f, 80, 24)
	s.paste(canary)
	s.key("enter")
	s.key("s")
	if fr := s.frame(); !strings.Contains(flat(fr), "symbolic link") || len(f.saved) != 0 || s.quit {
		t.Fatalf("%s", fr)
	}
	f.checkErr, f.saveErr = nil, errors.New("cannot save the API key to ~/.config/vastai/vast_api_key: permission denied; nothing was written")
	s.key("enter")
	if fr := s.frame(); !strings.Contains(flat(fr), "permission denied") || s.quit {
		t.Fatalf("%s", fr)
	}
}

// The least-privilege offer: taken, the new key is saved instead; when it
// is kept instead, the reason shows and the pasted key can still be saved.
func TestScopedKey(t *testing.T) {
	const newKey = "CANARY-new-9d4e-made"
	made := api.CreatedKey{ID: 42}
	t.Run("made and saved", func(t *testing.T) {
		f := &fakes{access: fullAccess("a@b.c"), scoped: access.Scoped{Key: withKey(made, newKey), Access: fullAccess("a@b.c"), Name: "vastdash (read-only)"}}
		s := newScreen(t, f, 80, 24)
		s.paste(canary)
		s.key("enter")
		s.key("s")
		if len(f.saved) != 1 || f.saved[0] != newKey || !strings.Contains(s.m.Result().Note, "vastdash alone") {
			t.Fatalf("saved %v, result %+v", len(f.saved), s.m.Result())
		}
		// Shown before the dashboard opens on it: its name and access.
		if fr := flat(s.frame()); s.quit || !strings.Contains(fr, "Saved a key for vastdash alone, “vastdash (read-only)”") || !strings.Contains(fr, "✓ billing_read") || !strings.Contains(fr, "enter open the dashboard") {
			t.Fatalf("quit %v: %s", s.quit, fr)
		}
		s.key("enter")
		if r := s.m.Result(); !s.quit || r.Access == nil || r.Left {
			t.Fatal("enter did not open the dashboard")
		}
	})
	t.Run("kept", func(t *testing.T) {
		kept := fullAccess("a@b.c")
		kept.Checks[2].Verdict = access.Denied
		f := &fakes{access: fullAccess("a@b.c"), scoped: access.Scoped{Kept: true, Access: kept, Why: "the new key's instance_read did not pass its probe; it was deleted, keeping the pasted key"}}
		s := newScreen(t, f, 80, 24)
		s.paste(canary)
		s.key("enter")
		s.key("w")
		fr := s.frame()
		if !strings.Contains(flat(fr), "it was deleted, keeping the pasted key") || !strings.Contains(fr, "✗ user_write") || strings.Contains(fr, "A key for vastdash alone") {
			t.Fatalf("%s", fr)
		}
		s.key("enter")
		if len(f.saved) != 1 || f.saved[0] != canary {
			t.Fatalf("the pasted key was not saved: %v", len(f.saved))
		}
	})
	t.Run("save fails, new key deleted", func(t *testing.T) {
		f := &fakes{access: fullAccess("a@b.c"), scoped: access.Scoped{Key: withKey(made, newKey), Access: fullAccess("a@b.c")}, saveErr: errors.New("cannot save: permission denied")}
		s := newScreen(t, f, 80, 24)
		s.paste(canary)
		s.key("enter")
		s.key("s")
		if fr := s.frame(); len(f.discarded) != 1 || f.discarded[0] != 42 || !strings.Contains(flat(fr), "was deleted") || s.quit {
			t.Fatalf("discarded %v:\n%s", f.discarded, fr)
		}
	})
}

// withKey is a created key holding k, as the API returns it.
func withKey(k api.CreatedKey, key string) api.CreatedKey { return api.NewCreatedKey(k.ID, key, nil) }

// At 40×12 the field, its message and the keys stay; the intro shortens
// and still says where keys are made.
func TestSmallTerminal(t *testing.T) {
	f := &fakes{verifyErr: errors.New("the API key was rejected (invalid or revoked key)")}
	s := newScreen(t, f, 40, 12)
	fr := s.frame()
	for _, want := range []string{"API key", "manage-keys", "enter verify"} {
		if !strings.Contains(fr, want) {
			t.Errorf("40×12 lacks %q:\n%s", want, fr)
		}
	}
	s.paste(canary)
	s.key("enter")
	if fr := s.frame(); !strings.Contains(fr, "rejected") || !strings.Contains(fr, "characters)") {
		t.Fatalf("%s", fr)
	}
	f.verifyErr, f.access = nil, fullAccess("a@b.c")
	s.key("enter")
	if fr := s.frame(); !strings.Contains(fr, "a@b.c") || !strings.Contains(fr, "instance_read") || !strings.Contains(fr, "enter save") {
		t.Fatalf("%s", fr)
	}
}

// esc leaves without signing in; ctrl+c anywhere.
func TestQuit(t *testing.T) {
	s := newScreen(t, &fakes{}, 80, 24)
	s.paste(canary)
	s.key("esc")
	if !s.quit || s.m.Result().Saved {
		t.Fatal("esc did not leave")
	}
	s = newScreen(t, &fakes{access: fullAccess("a@b.c")}, 80, 24)
	s.paste(canary)
	s.key("enter")
	s.send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if !s.quit || !s.m.Result().Left {
		t.Fatal("ctrl+c did not leave")
	}
}

// ctrl+c while a key for vastdash is being made, saved or deleted does
// not walk away from it: the screen leaves once that is settled, and a
// new key that was not saved is deleted first. A second ctrl+c leaves at
// once.
func TestCtrlCWhileAKeyIsMadeLeavesWhenSettled(t *testing.T) {
	const newKey = "CANARY-new-9d4e-made"
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	made := access.Scoped{Key: api.NewCreatedKey(42, newKey, nil), Access: fullAccess("a@b.c"), Name: "vastdash (read-only)"}
	for _, tc := range []struct {
		name string
		// steps is how far the work goes before ctrl+c (step).
		steps     int
		saveErr   error
		saved     bool
		discarded bool
	}{
		{"while making it", 1, nil, false, true},
		{"while saving it", 2, nil, true, false},
		{"while deleting it after a failed save", 3, errors.New("cannot save: permission denied"), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakes{access: fullAccess("a@b.c"), scoped: made, saveErr: tc.saveErr}
			s := newScreen(t, f, 80, 24)
			s.paste(canary)
			s.key("enter")
			s.hold = true
			s.key("s")
			for range tc.steps {
				s.step()
			}
			s.send(ctrlC)
			if fr := flat(s.frame()); s.quit || !strings.Contains(fr, "leaving once") {
				t.Fatalf("quit %v at once:\n%s", s.quit, fr)
			}
			s.release()
			if !s.quit {
				t.Fatalf("did not leave once settled:\n%s", s.frame())
			}
			r := s.m.Result()
			if (len(f.saved) == 1) != tc.saved || r.Saved != tc.saved || !r.Left {
				t.Fatalf("saved %v, result %+v", f.saved, r)
			}
			if tc.discarded && (len(f.discarded) != 1 || f.discarded[0] != 42) || !tc.discarded && len(f.discarded) != 0 {
				t.Fatalf("discarded %v", f.discarded)
			}
		})
	}
	// A second ctrl+c leaves at once.
	f := &fakes{access: fullAccess("a@b.c"), scoped: made}
	s := newScreen(t, f, 80, 24)
	s.paste(canary)
	s.key("enter")
	s.hold = true
	s.key("s")
	s.send(ctrlC)
	s.send(ctrlC)
	if !s.quit || !s.m.Result().Left {
		t.Fatal("a second ctrl+c did not leave")
	}
}

// A paste the terminal did not bracket arrives as keys, its escape
// sequences as events the field cannot hold: what is left once they are
// dropped is not what was pasted, so nothing of it is verified, sent or
// saved until the field is cleared. The bytes go through the terminal
// decoder Bubble Tea uses, as a terminal would send them.
func TestPasteWithEscapeSequencesIsRefusedWhole(t *testing.T) {
	for name, raw := range map[string]string{
		"colour": "\x1b[31m" + canary + "\x1b[0m",
		"title":  canary[:8] + "\x1b]0;x\x07" + canary[8:],
		"alt":    canary[:4] + "\x1bq" + canary[4:],
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakes{access: fullAccess("ann@example.com")}
			s := newScreen(t, f, 80, 24)
			var d uv.EventDecoder
			for buf := []byte(raw); len(buf) > 0; {
				n, ev := d.Decode(buf)
				if n == 0 {
					t.Fatalf("the decoder is stuck at %q", buf)
				}
				buf = buf[n:]
				if k, ok := ev.(uv.KeyPressEvent); ok {
					s.send(tea.KeyPressMsg(k))
				} else {
					s.send(ev)
				}
			}
			s.key("enter")
			if len(f.verified) != 0 || !strings.Contains(flat(s.frame()), "escape sequences") {
				t.Fatalf("verified %d keys; frame:\n%s", len(f.verified), s.frame())
			}
			// Cleared, the field takes the key alone.
			s.key("ctrl+u")
			s.paste(canary)
			s.key("enter")
			if len(f.verified) != 1 || f.verified[0] != canary {
				t.Fatalf("verified %d keys after clearing", len(f.verified))
			}
		})
	}
}

// Each permission says what it unlocks whole, at 80×24: instance_read the
// Audit, the Overview's Now and forecast and serve too; misc the audit's
// serverless endpoints; instance_write answering price increases.
func TestEveryPermissionSaysWhatItUnlocks(t *testing.T) {
	s := newScreen(t, &fakes{access: fullAccess("ann@example.com")}, 80, 24)
	s.paste(canary)
	s.key("enter")
	fr := flat(s.frame())
	for _, p := range access.Permissions {
		if !strings.Contains(fr, flat(p.Unlocks())) {
			t.Errorf("%s: %q not whole in\n%s", p, p.Unlocks(), s.frame())
		}
	}
	for _, want := range []string{"Audit", "Now and forecast", "serve", "serverless endpoints", "price increases"} {
		if !strings.Contains(fr, want) {
			t.Errorf("the permissions do not mention %q", want)
		}
	}
}

// Adding an account (the dashboard's Accounts screen asks): the name
// first, refused in the words AddAccount gives until it takes one, then
// the key, saved where AddAccount said; the result names the account. A
// name's field refuses what no name holds, and a pasted key with escape
// sequences is refused whole there as at a first sign-in.
func TestAddAccountAsksTheNameFirst(t *testing.T) {
	f := &fakes{access: fullAccess("lab@example.com")}
	var asked []string
	add := func(name string) (string, error) {
		asked = append(asked, name)
		if name == "default" {
			return "", errors.New("account default exists already: pick another name")
		}
		return "~/.config/vastdash/keys/" + name, nil
	}
	fn := f.funcs()
	fn.AddAccount = add
	m := New(context.Background(), Options{Funcs: fn, Path: "~/.config/vastai/vast_api_key"})
	s := &screen{t: t, m: m, w: 80, h: 24}
	s.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if fr := flat(s.frame()); !strings.Contains(fr, "add an account") || !strings.Contains(fr, "Account name") || !strings.Contains(fr, "enter next: the key") {
		t.Fatalf("the name's field is not shown:\n%s", s.frame())
	}
	s.paste("la b")
	if fr := flat(s.frame()); !strings.Contains(fr, "letters, digits, - and _") || len(asked) != 0 {
		t.Fatalf("a name with a space: asked %v\n%s", asked, s.frame())
	}
	for _, k := range "default" {
		s.key(string(k))
	}
	s.key("enter")
	if fr := flat(s.frame()); !strings.Contains(fr, "account default exists already") || strings.Contains(fr, "API key") {
		t.Fatalf("a name refused: asked %v\n%s", asked, s.frame())
	}
	s.key("ctrl+u")
	s.paste("lab")
	s.key("enter")
	fr := flat(s.frame())
	if len(asked) != 2 || asked[1] != "lab" || !strings.Contains(fr, "API key") || !strings.Contains(fr, "~/.config/vastdash/keys/lab") || !strings.Contains(fr, "account lab") {
		t.Fatalf("asked %v\n%s", asked, s.frame())
	}
	// A paste with an escape sequence, as keys: refused whole.
	s.send(tea.KeyPressMsg{Code: 'q', Mod: tea.ModAlt})
	s.paste(canary)
	s.key("enter")
	if len(f.verified) != 0 || !strings.Contains(flat(s.frame()), "escape sequences") {
		t.Fatalf("verified %d keys after an escape", len(f.verified))
	}
	s.key("ctrl+u")
	s.paste(canary)
	s.key("enter")
	s.key("enter")
	if len(f.saved) != 1 || f.saved[0] != canary || !s.quit {
		t.Fatalf("saved %d, quit %v", len(f.saved), s.quit)
	}
	if r := s.m.Result(); !r.Saved || r.Account != "lab" || !strings.Contains(r.Note, "account lab added") || !strings.Contains(r.Note, "keys/lab") {
		t.Fatalf("result %+v", r)
	}
}

// esc at the name leaves without anything asked or written: back to the
// dashboard.
func TestAddAccountEscLeaves(t *testing.T) {
	f := &fakes{}
	fn := f.funcs()
	fn.AddAccount = func(string) (string, error) {
		t.Error("the name was asked about")
		return "", nil
	}
	m := New(context.Background(), Options{Funcs: fn})
	s := &screen{t: t, m: m, w: 80, h: 24}
	s.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	s.key("l")
	s.key("esc")
	if r := s.m.Result(); !s.quit || r.Saved || r.Left {
		t.Fatalf("quit %v, result %+v", s.quit, r)
	}
}
