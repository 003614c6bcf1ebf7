//go:build unix && !aix && (!solaris || illumos)

package ledger

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A ledger another vastdash has open (here another open of the file, as a
// dashboard's) is neither deleted by forget nor moved aside by a reset: both
// refuse at once, and the one using it goes on. Once it is closed, forget
// deletes every file, the lock too.
func TestForgetAndResetLeaveAnOpenLedgerAlone(t *testing.T) {
	p := path(t)
	ctx := context.Background()
	inUse := openT(t, p)
	if _, err := inUse.WriteCharges(ctx, page(Window{Lo: 0, Hi: 1000, Started: 900}, true, nil, contract("1", 100, 200, 5))); err != nil {
		t.Fatal(err)
	}
	if err := Forget(p); !errors.Is(err, ErrInUse) {
		t.Fatalf("forget of a ledger in use: %v", err)
	}
	other := openT(t, p)
	if moved, err := other.Reset(); !errors.Is(err, ErrInUse) || moved != "" {
		t.Fatalf("reset of a ledger in use: %q %v", moved, err)
	}
	if aside, _ := filepath.Glob(p + ".corrupt-*"); len(aside) != 0 {
		t.Fatalf("moved aside: %v", aside)
	}
	for _, l := range []*Ledger{inUse, other} {
		if n, err := l.CountCharges(ctx, 0, 1000); err != nil || n != 1 {
			t.Fatalf("the ledger in use reads %d contracts (%v)", n, err)
		}
	}
	if _, err := inUse.WriteCharges(ctx, page(Window{Lo: 0, Hi: 1000, Started: 950}, false, nil, contract("2", 300, 400, 5))); err != nil {
		t.Fatalf("the ledger in use cannot be written: %v", err)
	}
	inUse.Close()
	other.Close()
	if err := Forget(p); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p, p + "-wal", p + "-shm", p + ".lock"} {
		if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left: %v", f, err)
		}
	}
}
