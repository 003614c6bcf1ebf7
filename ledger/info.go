package ledger

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// Info is what `vastdash ledger` shows of a ledger.
type Info struct {
	Path string
	// Size is the bytes of the file and its WAL.
	Size      int64
	Contracts int
	Items     int
	Days      int
	Payments  int
	Spans     map[string][]Span // by kind
	// LastSync is the latest synced_at of any span (0: never).
	LastSync int64
	// Rule is the amount rule learnt for the account ("totals", "window"
	// or "" before it was).
	Rule    string
	Version int
}

// Info reads the ledger's figures.
func (l *Ledger) Info(ctx context.Context) (Info, error) {
	in := Info{Path: l.path, Spans: map[string][]Span{}, Rule: l.Meta("amount_rule")}
	in.Version, _ = strconv.Atoi(l.Meta("schema_version"))
	for _, p := range []string{l.path, l.path + "-wal"} {
		if st, err := os.Stat(p); err == nil {
			in.Size += st.Size()
		}
	}
	db := l.conn()
	for table, n := range map[string]*int{"contracts": &in.Contracts, "items": &in.Items, "daily": &in.Days, "payments": &in.Payments} {
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(n); err != nil {
			return Info{}, unavailable(l.path, err)
		}
	}
	for _, kind := range []string{KindCharges, KindPayments} {
		s, err := l.Spans(ctx, kind)
		if err != nil {
			return Info{}, unavailable(l.path, err)
		}
		in.Spans[kind] = s
		for _, sp := range s {
			in.LastSync = max(in.LastSync, sp.SyncedAt)
		}
	}
	return in, nil
}

// Forget deletes the ledger at path with its WAL, shared-memory and lock
// files. A link or another user's file there is refused, not followed; a
// ledger another vastdash has open is left as it is (ErrInUse). A missing
// ledger is no error.
func Forget(path string) error {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := checkOwn(path, true); err != nil {
		return err
	}
	lk, err := lockAlone(path)
	if err != nil {
		return err
	}
	defer lk.release()
	for _, p := range []string{path + "-wal", path + "-shm", path} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %s", p, reason(err))
		}
	}
	return lk.remove()
}
