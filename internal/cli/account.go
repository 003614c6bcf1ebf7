package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/config"
)

// accountFlag is --account NAME: a name an account can have, checked as
// it is parsed; whether the settings configure it is the session's check
// (config.Load), still before any request.
type accountFlag struct{ p *string }

func (v accountFlag) String() string { return *v.p }
func (v accountFlag) Type() string   { return "name" }

func (v accountFlag) Set(s string) error {
	if !config.ValidAccountName(s) {
		return badValue("--account %s: an account's name is letters, digits, - and _ (not con, nul or another device name)", argText(s))
	}
	*v.p = s
	return nil
}

// registerAccount defines --account on the global flags.
func registerAccount(fs *pflag.FlagSet, p *string) {
	fs.Var(accountFlag{p}, "account", "the account to read, by its `name` in the settings ([accounts.NAME];\n\"default\" is the usual key; env VASTDASH_ACCOUNT)")
}

// accountWriter is the writer an answer goes through in a run for a named
// account: writeJSON puts "account": NAME in every JSON object it writes
// there, so each command's JSON says whose figures it holds without each
// command saying it.
type accountWriter struct {
	io.Writer
	name string
}

// withAccount is v's JSON with "account": name first, when v is an object;
// an array or a scalar is returned as is (its shape is the command's
// promise to scripts).
func withAccount(v any, name string) (any, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	raw := bytes.TrimSpace(b.Bytes())
	if len(raw) == 0 || raw[0] != '{' {
		return json.RawMessage(raw), nil
	}
	n, _ := json.Marshal(name)
	out := append([]byte(`{"account":`), n...)
	if rest := bytes.TrimSpace(raw[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return json.RawMessage(append(out, raw[1:]...)), nil
}

// explain is s.Billing.Explain(err), its advice to sign in again naming
// the account when the run reads one by name: "vastdash auth login" alone
// would replace the usual key, not this account's.
func (s *Session) explain(err error) string {
	return accountAdvice(s.Billing.Explain(err), s.Account)
}

// accountAdvice is text with billing.SignInAgain's commands given
// --account name, for an account other than the usual key's.
func accountAdvice(text, name string) string {
	if name == "" || name == config.DefaultAccount {
		return text
	}
	flag := " --account " + name
	return strings.Replace(text, billing.SignInAgain, strings.NewReplacer(
		"vastdash auth login", "vastdash auth login"+flag,
		"vastdash auth status", "vastdash auth status"+flag).Replace(billing.SignInAgain), 1)
}

// headerName is what the dashboard's header shows right of the title:
// the account's name once the settings name accounts (so the figures
// below are never taken for another account's), and the host when it is
// not the default one.
func (s *Session) headerName() string {
	if s.demo != nil || (!s.accountNamed && len(s.Settings.Accounts) == 0) {
		return s.Host
	}
	if s.Host == "" {
		return s.Account
	}
	return s.Account + " @ " + s.Host
}

// statePath is the file the dashboard remembers its filters in: the
// usual one for the default account, state-NAME.toml beside it for
// another, so one account's filters never show under another's name.
func (s *Session) statePath() string {
	p := config.StatePath(config.DefaultEnv())
	if p == "" || s.demo != nil || s.Account == "" || s.Account == config.DefaultAccount {
		return p
	}
	return filepath.Join(filepath.Dir(p), "state-"+s.Account+".toml")
}
