package notifications

import (
	"net/http"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// With reload bound to f5, a failed read and a refused save tell the user
// to press f5, the key that re-reads, not r.
func TestRetryTextNamesReboundKey(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"reload": {"f5"}})
	if err != nil {
		t.Fatal(err)
	}
	f := newServer(t, fullDoc)
	f.getStatus, f.errBody = http.StatusBadRequest, `{"success":false,"msg":"try later"}`
	ctx := newCtx(t, f.srv.URL)
	ctx.Keys = b
	s := newScreen(t, ctx)
	s.SetSize(120, 20)
	s.send(shared.UserMsg{User: testUser()})
	s.deliver()
	mustSay(t, s, shared.StatusError, "could not read the preferences:", "f5 to retry")
	s.press("space")
	mustSay(t, s, shared.StatusError, "must be read before a save", "f5 to retry")
	if strings.Contains(s.status.Text, "r to retry") {
		t.Errorf("status %q", s.status.Text)
	}
	f.set(func(f *fakeServer) { f.getStatus = 0 })
	if n := s.send(tea.KeyPressMsg{Code: tea.KeyF5}); n != 1 || !s.Loading() {
		t.Fatal("f5 should re-read")
	}
}

// A save whose outcome nobody knows tells the user to press the reload
// key as bound to read again.
func TestUnknownOutcomeNamesReboundKey(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"reload": {"f5"}})
	if err != nil {
		t.Fatal(err)
	}
	f := newServer(t, fullDoc)
	s := start(t, f, 120, 20, api.WithTimeout(300*time.Millisecond))
	s.ctx.Keys = b
	f.set(func(f *fakeServer) {
		f.putThen = putHang
		f.getStatusAfterPut = http.StatusInternalServerError
	})
	s.do("space")
	mustSay(t, s, shared.StatusError, "its state is unknown, f5 to re-read")
}
