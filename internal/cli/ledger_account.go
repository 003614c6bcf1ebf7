package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/ledger"
)

// maxUserID bounds the user id a ledger is named by: beyond it the
// server's figure is not trusted as a name.
const maxUserID = 1 << 53

// ledgerIdentity is whose history a run keeps: the account (its user id)
// at its host, so that two keys of one account — a key for vastdash alone
// beside the full one, a team key swapped for a scoped one — share one
// ledger and keep its history. The account is read once, when the ledger
// is first wanted (a command that reads no history pays nothing). A key
// that may not read the account keeps a ledger of its own, by a digest
// of the key, as before; so does the demo.
func ledgerIdentity(ctx context.Context, demo bool, dir, host string, client *api.Client, key string) func() (ledger.Identity, error) {
	byKey := ledger.Identity{Host: host, Account: ledger.KeyDigest(key)}
	if demo {
		return func() (ledger.Identity, error) { return byKey, nil }
	}
	// The key's account, once read, is remembered beside the ledgers (a
	// file named by the key's digest, holding the user id alone): the
	// ledger's own commands (ledger, sql) then ask the server nothing.
	alias := aliasPath(dir, host, key)
	return sync.OnceValues(func() (ledger.Identity, error) {
		if acct := readAlias(alias); acct != "" {
			return ledger.Identity{Host: host, Account: acct}, nil
		}
		u, err := client.CurrentUser(ctx)
		switch {
		case errors.Is(err, api.ErrPermission):
			return byKey, nil
		case err != nil:
			return ledger.Identity{}, err
		case u.ID <= 0 || u.ID > maxUserID:
			return byKey, nil
		}
		acct := "u" + strconv.FormatInt(u.ID, 10)
		// Not remembered is only one request more next time.
		_ = config.WriteFile(alias, []byte(acct+"\n"))
		return ledger.Identity{Host: host, Account: acct}, nil
	})
}

// aliasPath is the file beside the ledgers remembering whose account the
// key is at host: named by the key's digest, never the key.
func aliasPath(dir, host, key string) string {
	byKey := ledger.Identity{Host: host, Account: ledger.KeyDigest(key)}
	return strings.TrimSuffix(ledger.Path(dir, byKey), ".db") + ".account"
}

// rememberUser writes beside the ledgers that key (just verified and
// saved by a sign-in, on this session's host) is the account userID's, as
// the key's first run would after reading the account: that run then
// reopens the account's ledger without the read (the second key of an
// account in at most 3 requests in all). Nothing when the run keeps no
// ledger, or the key may not read the account (no user id); a file that
// cannot be written is only the read again.
func (s *Session) rememberUser(key string, userID int64) {
	if s == nil || s.ledgerHost == "" || s.ledgerDir == "" || userID <= 0 || userID > maxUserID {
		return
	}
	_ = config.WriteFile(aliasPath(s.ledgerDir, s.ledgerHost, key), []byte("u"+strconv.FormatInt(userID, 10)+"\n"))
}

// rememberedUserID is the user id of the run's key and host as remembered
// beside the ledgers (the identity file), reading the account once when it
// is not remembered yet; 0 when the key names no account (the demo, a key
// that may not read it, --no-ledger) or it cannot be known now. The alerts
// use it to find their state when the API is down.
func (s *Session) rememberedUserID() int64 {
	if s.ledgerIdentity == nil {
		return 0
	}
	id, err := s.ledgerIdentity()
	if err != nil || len(id.Account) < 2 || id.Account[0] != 'u' {
		return 0
	}
	n, err := strconv.ParseInt(id.Account[1:], 10, 64)
	if err != nil || n <= 0 || n > maxUserID {
		return 0
	}
	return n
}

// readAlias is the account an alias file names ("u" and digits), "" when
// there is none or it is not one (a link, another's file, garbage).
func readAlias(path string) string {
	f, err := config.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || config.NotOwnOnly(info) != "" {
		return ""
	}
	b := make([]byte, 32)
	n, _ := io.ReadFull(f, b)
	acct := strings.TrimSpace(string(b[:n]))
	if len(acct) < 2 || acct[0] != 'u' {
		return ""
	}
	if id, err := strconv.ParseInt(acct[1:], 10, 64); err != nil || id <= 0 || id > maxUserID || "u"+strconv.FormatInt(id, 10) != acct {
		return ""
	}
	return acct
}

// findLedger names the account's ledger file (LedgerPath) for the
// commands that open it themselves (ledger, ledger forget, sql): it reads
// the account once when the run has not yet.
func (s *Session) findLedger() error {
	if s.LedgerPath != "" || s.ledgerIdentity == nil || s.ledgerDir == "" {
		return nil
	}
	id, err := s.ledgerIdentity()
	if err != nil {
		return err
	}
	s.LedgerPath = ledger.Path(s.ledgerDir, id)
	return nil
}
