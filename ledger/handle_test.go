package ledger

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A handle opens its ledger once, however many readers ask at once while
// the open is in flight; every one gets the same file, and Close closes
// it after the open has ended.
func TestHandleOpensOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "vastdash")
	release := make(chan struct{})
	var asked atomic.Int32
	h := Opening(dir, func() (Identity, error) { asked.Add(1); <-release; return me, nil }, nil)
	if !h.MayUse() {
		t.Fatal("a handle not yet opened says it has no ledger")
	}
	h.Start()
	var wg sync.WaitGroup
	got := make([]*Ledger, 4)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = h.Ledger() }()
	}
	close(release)
	wg.Wait()
	for _, l := range got {
		if l == nil || l != got[0] {
			t.Fatalf("readers got %v", got)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("whose ledger asked %d times", n)
	}
	if h.Note() != "" {
		t.Errorf("note %q for a ledger in use", h.Note())
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := got[0].CountCharges(t.Context(), 0, 1); err == nil {
		t.Error("the ledger is still open after the handle's Close")
	}
}

// A ledger that cannot be opened: no ledger, and the note says why — kept
// for the feeds (the dashboard) or told at once (a command), never both.
func TestHandleOpenFailsWithANote(t *testing.T) {
	fail := func() (Identity, error) { return Identity{}, errors.New("read-only folder") }
	h := Opening(t.TempDir(), fail, nil)
	if h.Ledger() != nil || h.MayUse() {
		t.Fatal("a ledger after its open failed")
	}
	if n := h.Note(); !strings.Contains(n, "off this run") || !strings.Contains(n, "read-only folder") {
		t.Errorf("note %q", n)
	}
	var told []string
	h = Opening(t.TempDir(), fail, func(note string) { told = append(told, note) })
	if h.Ledger() != nil || h.Note() != "" || len(told) != 1 || !strings.Contains(told[0], "read-only folder") {
		t.Errorf("told %q, kept %q", told, h.Note())
	}
	if err := h.Close(); err != nil {
		t.Error(err)
	}
}

// A handle closed before anyone asked for its ledger never opens it: a
// command that read no history leaves no file behind.
func TestHandleClosedUnopened(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "vastdash")
	h := Opening(dir, func() (Identity, error) { return me, nil }, nil)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if h.Ledger() != nil {
		t.Error("a ledger opened after the handle's Close")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Errorf("files %v", m)
	}
}

// A failure of the file gives the ledger up for the run, with the reason
// in words; an interrupted write does not.
func TestHandleGiveUp(t *testing.T) {
	l := openT(t, path(t))
	h := Opened(l)
	if h.GiveUp(context.Canceled) || h.Ledger() == nil {
		t.Fatal("an interrupted write gave the ledger up")
	}
	if h.GiveUp(errors.New("disk I/O error")) || h.Ledger() != nil {
		t.Fatal("the ledger is still in use after a failure")
	}
	if !strings.Contains(h.Note(), "cannot be used") || h.Failure() == "" {
		t.Errorf("note %q, failure %q", h.Note(), h.Failure())
	}
	var none *Handle
	if none.Ledger() != nil || none.MayUse() || none.Note() != "" || none.GiveUp(errors.New("x")) || none.Close() != nil {
		t.Error("a nil handle is not no ledger")
	}
}
