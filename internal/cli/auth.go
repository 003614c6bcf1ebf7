package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/access"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/sanitize"
	"github.com/vastdash/vastdash/ui/signin"
)

// maxTokenInput caps what auth login --with-token reads: a key is 64
// bytes, and an endless pipe must not fill memory.
const maxTokenInput = 4096

// newAuthCommand is `vastdash auth`: login, status and logout.
func newAuthCommand(x *execution) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "sign in with an API key, see what it may do, sign out",
		Long: `Sign in with an API key, see what it may do, sign out.

The key is saved where the official vastai CLI reads it, $XDG_CONFIG_HOME/vastai/vast_api_key (~/.config/vastai/vast_api_key), readable only by you: both programs then use it. A key from VAST_API_KEY or --api-key-file wins over that file and is never touched.

Make a key on the console's Keys page, ` + config.ConsoleKeysURL + ` (a key is shown only once). The dashboard asks for one itself on a terminal when none is found.`,
		Example: `
vastdash auth login                  # paste the key; it does not show
pass show vast | vastdash auth login --with-token
vastdash auth login --scoped         # make a key for vastdash alone and save that
vastdash auth status --json
vastdash auth logout --yes
`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return notACommand(c, c, args[0])
			}
			return nil
		},
		RunE: x.runE(func(c *cobra.Command) error {
			return &usageErr{cmd: c, err: errors.New("name what to do: login, status or logout")}
		}),
		// "did you mean login?" for "logn", as the root does.
		SuggestionsMinimumDistance: 2,
	}
	cmd.AddCommand(newAuthLoginCommand(x), newAuthStatusCommand(x), newAuthLogoutCommand(x))
	return cmd
}

// loginFlags are the options of auth login.
type loginFlags struct {
	withToken, scoped, alerts, yes bool
	output                         string
}

func newAuthLoginCommand(x *execution) *cobra.Command {
	var f loginFlags
	cmd := &cobra.Command{
		Use:   "login",
		Short: "verify an API key and save it where the vastai CLI reads it",
		Long: `Verify an API key and save it where the vastai CLI reads it.

On a terminal the key is read without showing it; --with-token reads it from standard input instead (a pipe, a password manager). Surrounding whitespace is trimmed; a key with spaces or control characters inside is refused.

The key is verified before anything is written: the account lookup and one read per permission vastdash uses. A key the server rejects, or a server that cannot be reached, is exit 1 and nothing is written. The answer is the account's e-mail and each permission with what it unlocks (user_write and instance_write are not tested: every call that needs them changes the account).

An existing key file is replaced only after asking on the terminal; --yes replaces it without asking, and is needed when stdin is not a terminal (--with-token): without it nothing is sent or written, exit 2.

With --account NAME the key is saved to $XDG_CONFIG_HOME/vastdash/keys/NAME instead and [accounts.NAME] is added to the settings, keeping what they say; --url X adds url = X to it, the account's own host.

--scoped makes a key for vastdash alone with the key given: read billing, the account, instances and serverless endpoints (--alerts: changing alerts too; never instance_write, which could rent instances: answer price increases with your own key or in the console), named so you recognise it in the console, verified with the same reads, and saves that one instead. If the new key fails any of them it is deleted and the key given is saved, and stderr says why and which key is saved: exit 1.`,
		Args: noArgs,
		RunE: x.runE(func(*cobra.Command) error {
			ctx, stop := x.env.context()
			defer stop()
			return authLogin(ctx, x, f)
		}),
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.withToken, "with-token", false, "read the key from standard input")
	fs.BoolVar(&f.scoped, "scoped", false, "make a key for vastdash alone (reads only) and save that one")
	fs.BoolVar(&f.alerts, "alerts", false, "with --scoped: the new key may change alerts too (user_write)")
	yesFlag(cmd, &f.yes, "replace an existing key file")
	outputFlags(cmd, &f.output, "text", "json")
	return cmd
}

// authLogin reads, verifies, optionally scopes and saves a key.
func authLogin(ctx context.Context, x *execution, f loginFlags) error {
	switch {
	case f.alerts && !f.scoped:
		return usageError(errors.New("--alerts goes with --scoped"))
	case x.globals.demo:
		return usageError(errors.New("--demo needs no key: auth login signs in to your account"))
	}
	account, err := x.loginAccount()
	if err != nil {
		return err
	}
	raw, from, err := x.readKey(ctx, f.withToken)
	if err != nil {
		return err
	}
	key, err := config.ParseKey(raw, from)
	if err != nil {
		return configError(err)
	}
	si := &signIn{x: x, base: ctx, account: account}
	defer si.close()
	if err := si.checkAccount(); err != nil {
		return configError(err)
	}
	// Where the key goes is judged before any request: a link there or a
	// folder that cannot be written is exit 2 with nothing sent.
	exists := si.check()
	replace := errors.Is(exists, config.ErrKeyExists)
	switch {
	case exists != nil && !replace:
		return configError(exists)
	case replace:
		// No terminal to ask on is known before a request, too.
		if err := x.env.canAsk(f.yes, si.replaceAction()); err != nil {
			return usageError(err)
		}
	}
	access, err := si.verify(ctx, key)
	if err != nil {
		return err
	}
	if replace {
		if err := x.env.confirm(f.yes, exists.Error()+". Replace it?", si.replaceAction()); err != nil {
			return err
		}
	}
	save, scoped, name := key, false, ""
	var (
		made int64
		kept string // why --scoped kept the key given, "" when it did not
	)
	if f.scoped {
		sc := si.scope(ctx, f.alerts)
		access = sc.Access
		if sc.Kept {
			kept = sc.Why
		} else {
			save, scoped, made, name = config.Secret(sc.Key.Reveal()), true, sc.Key.ID, sc.Name
		}
	}
	path, err := si.save(save, replace)
	if err != nil {
		if scoped {
			err = fmt.Errorf("%w; %s", err, si.discardWords(ctx, made))
		}
		return err
	}
	if err := si.addAccount(path); err != nil {
		return err
	}
	if over := x.keyOverride(); over != "" && si.account == "" {
		warn(x.env.stderr, over+" wins over the saved key while it is set")
	}
	env := config.DefaultEnv()
	if kept != "" {
		// Signed in, but not as asked: a script that asked for a key for
		// vastdash alone must not read exit 0 as having one. No answer,
		// as for every error; the line says which key is saved.
		return fmt.Errorf("--scoped made no key for vastdash alone (%s): the key given is the one saved, to %s (auth status says what it may do)", kept, env.Shown(path))
	}
	if f.output == "json" {
		out := loginJSON{Account: si.account, Email: sanitize.String(access.Email), Path: path, Scoped: scoped, Permissions: permissionsOf(access)}
		if scoped {
			out.KeyName = &name
		}
		return answerTo(x.env.stdout, func(w io.Writer) error { return writeJSON(w, out) })
	}
	lines := []string{"signed in" + as(access.Email) + "; the key is saved to " + env.Shown(path)}
	if scoped {
		lines[0] = "signed in" + as(access.Email) + " with a key made for vastdash alone, " + strconv.Quote(name) + "; it is saved to " + env.Shown(path)
	}
	lines = append(lines, accessLines(access)...)
	return textTo(x.env.stdout, x.env.width(x.env.stdout), linesOf(lines))
}

// loginJSON is the --json answer of auth login: the account, where the
// key was saved, whether it is a key made for vastdash (and its name) and
// what it may do, as auth status says it.
type loginJSON struct {
	Account     string           `json:"account,omitempty"`
	Email       string           `json:"email"`
	Path        string           `json:"path"`
	Scoped      bool             `json:"scoped"`
	KeyName     *string          `json:"key_name"`
	Permissions []permissionJSON `json:"permissions"`
}

// permissionsOf is each permission of a key as the JSON answers write it.
func permissionsOf(a access.Access) []permissionJSON {
	out := make([]permissionJSON, 0, len(a.Checks))
	for _, c := range a.Checks {
		out = append(out, permissionJSON{
			Name: string(c.Permission), Granted: c.Verdict.String(), Unlocks: c.Permission.Unlocks(), Note: c.Why,
		})
	}
	return out
}

// as is " as EMAIL", or "" without one.
func as(email string) string {
	if email == "" {
		return ""
	}
	return " as " + sanitize.String(email)
}

// readKey reads the key: from standard input with --with-token, else at a
// prompt on the terminal without echo. Without either it is a usage error
// (a script must say --with-token).
func (x *execution) readKey(ctx context.Context, withToken bool) (raw, from string, err error) {
	if withToken {
		b, err := io.ReadAll(io.LimitReader(x.env.stdin, maxTokenInput+1))
		switch {
		case err != nil:
			return "", "", fmt.Errorf("cannot read standard input: %w", unwrapPath(err))
		case len(b) > maxTokenInput:
			return "", "", configError(errors.New("standard input holds more than a key; pipe in the key alone"))
		}
		defer clear(b)
		return string(b), "standard input", nil
	}
	if !x.env.stdinTerminal() {
		return "", "", usageError(errors.New("auth login reads the key at a terminal; in a script, pipe it in with --with-token"))
	}
	fmt.Fprintf(x.env.stderr, "Paste your API key (make one at %s); it will not show: ", config.ConsoleKeysURL)
	raw, err = x.env.readSecret(ctx)
	fmt.Fprintln(x.env.stderr)
	if err != nil {
		return "", "", err
	}
	return raw, "what was pasted", nil
}

// keyOverride names what would be read before the saved key file
// (--api-key-file, VAST_API_KEY), "" when nothing is.
func (x *execution) keyOverride() string {
	switch {
	case x.globals.flags.APIKeyFile != "":
		return "--api-key-file"
	case strings.TrimSpace(os.Getenv(config.EnvAPIKey)) != "":
		return config.EnvAPIKey
	}
	return ""
}

// accessLines are a key's permissions, one a line: the name, ✓ ✗ or ?,
// what it unlocks, and why when it is not ✓.
func accessLines(a access.Access) []string {
	out := make([]string, 0, len(a.Checks))
	for _, c := range a.Checks {
		l := fmt.Sprintf("%-14s %s  %s", c.Permission, c.Verdict.Mark(), c.Permission.Unlocks())
		if c.Verdict != access.Granted && c.Why != "" {
			l += " — " + c.Why
		}
		out = append(out, l)
	}
	return out
}

// statusFlags are the options of auth status.
type statusFlags struct {
	output string
}

func newAuthStatusCommand(x *execution) *cobra.Command {
	var f statusFlags
	cmd := &cobra.Command{
		Use:   "status",
		Short: "where the key comes from and what it may do",
		Long: `Where the key comes from (--api-key-file, VAST_API_KEY or which file), whether other users can read its file, the account's e-mail, and each permission vastdash uses with what it unlocks: ✓ granted, ✗ lacking, ? not known (user_write is not tested: every call that needs it changes the account).

Never any part of the key. Exit 1 when the key fails (rejected, or the server cannot be reached); no key at all is exit 2.`,
		Example: `
vastdash auth status
vastdash auth status --json | jq -r '.permissions[] | select(.granted == "no") | .name'
`,
		Args: noArgs,
		// Probes read no history: no ledger is opened for the key.
		RunE: x.sessionRun(nil, nil, sessionOptions{noLedger: true}, func(ctx context.Context, s *Session) error { return authStatus(ctx, x, s, f) }),
	}
	outputFlags(cmd, &f.output, "text", "json")
	return cmd
}

// statusJSON is the --json answer of auth status.
type statusJSON struct {
	// Source is "flag", "env", "file" or "demo"; Path the file's path.
	Source           string           `json:"source"`
	Path             string           `json:"path,omitempty"`
	ReadableByOthers bool             `json:"readable_by_others"`
	Email            string           `json:"email"`
	Permissions      []permissionJSON `json:"permissions"`
}

type permissionJSON struct {
	Name    string `json:"name"`
	Granted string `json:"granted"` // yes, no, unknown
	Unlocks string `json:"unlocks"`
	Note    string `json:"note,omitempty"`
}

// authStatus verifies the session's key and says where it comes from and
// what it may do.
func authStatus(ctx context.Context, x *execution, s *Session, f statusFlags) error {
	out := statusJSON{Source: "file", Path: s.KeySource}
	where := "the file " + config.DefaultEnv().Shown(s.KeySource)
	switch {
	case x.globals.demo:
		out.Source, out.Path, where = "demo", "", "the demo server (--demo)"
	case s.KeySource == "env "+config.EnvAPIKey:
		out.Source, out.Path, where = "env", "", "the environment variable "+config.EnvAPIKey
	case x.globals.flags.APIKeyFile != "":
		out.Source, where = "flag", "--api-key-file "+config.DefaultEnv().Shown(s.KeySource)
	}
	if out.Path != "" {
		out.ReadableByOthers, _ = config.ReadableByOthers(out.Path)
	}
	if out.Source == "env" {
		if saved := savedKeyFile(); saved != "" {
			where += ", which wins over the key saved in " + config.DefaultEnv().Shown(saved)
		}
	}
	access, err := access.Probe(ctx, s.Billing)
	if err != nil {
		// Not "auth status shows the key in use" to a user running it,
		// with or without the account's name in it.
		text := s.explain(err)
		for _, hint := range []string{billing.KeyInUseHint, accountAdvice(billing.SignInAgain, s.Account)} {
			text = strings.Replace(text, "; "+hint[strings.Index(hint, "vastdash auth status"):], "", 1)
		}
		return &explained{err, "the key from " + where + ": " + text}
	}
	out.Email = sanitize.String(access.Email)
	out.Permissions = permissionsOf(access)
	if f.output == "json" {
		return s.answer(func(w io.Writer) error { return writeJSON(w, out) })
	}
	key := "key       from " + where
	if out.Path != "" {
		if out.ReadableByOthers {
			key += " — other users can read it: chmod 600 " + config.DefaultEnv().Shown(out.Path)
		} else {
			key += " (only you can read it)"
		}
	}
	account := "account   " + out.Email
	if out.Email == "" {
		account = "account   (this key may not read it: no user_read)"
	}
	return s.answer(linesOf(append([]string{key, account}, accessLines(access)...)))
}

// savedKeyFile is the key file vastdash would read without VAST_API_KEY
// and --api-key-file, "" when there is none.
func savedKeyFile() string {
	for _, p := range config.KeyPaths(config.DefaultEnv()) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// logoutFlags are the options of auth logout.
type logoutFlags struct {
	yes    bool
	output string
}

func newAuthLogoutCommand(x *execution) *cobra.Command {
	var f logoutFlags
	cmd := &cobra.Command{
		Use:   "logout",
		Short: "remove the key file vastdash reads (asks first; --yes does not)",
		Long: `Remove the key file vastdash reads, after asking on the terminal; --yes does not ask, and is needed when stdin is not a terminal (without it nothing is removed, exit 2). The vastai CLI reads that file too. The key itself stays valid: delete it on the console's Keys page to revoke it.

A key from VAST_API_KEY or --api-key-file is named and left alone: unset the variable, or stop passing the flag.`,
		Args: noArgs,
		RunE: x.runE(func(*cobra.Command) error { return authLogout(x, f) }),
	}
	yesFlag(cmd, &f.yes, "remove")
	outputFlags(cmd, &f.output, "text", "json")
	return cmd
}

// authLogout removes the key file the key would be read from.
func authLogout(x *execution, f logoutFlags) error {
	if x.globals.demo {
		return usageError(errors.New("--demo needs no key: auth logout removes your account's"))
	}
	env := config.DefaultEnv()
	var out logoutJSON
	account, err := x.loginAccount()
	if err != nil {
		return err
	}
	if account != "" {
		return x.logoutAccount(f)
	}
	if over := x.keyOverride(); over != "" {
		out.Note = "the key comes from " + over + ", which vastdash leaves alone; nothing was removed"
		return out.write(x.env.stdout, x.env.width(x.env.stdout), f.output)
	}
	_, path, _, err := config.ResolveKey(env, "")
	switch {
	case errors.Is(err, config.ErrNoKey):
		out.Note = "no key file to remove"
		return out.write(x.env.stdout, x.env.width(x.env.stdout), f.output)
	case err != nil:
		return configError(err)
	}
	logout := action{command: "auth logout", does: "removes " + env.Shown(path), done: "removed"}
	if err := x.env.confirm(f.yes, "Remove "+env.Shown(path)+" (the vastai CLI reads it too)?", logout); err != nil {
		return err
	}
	if err := config.RemoveKey(env, path); err != nil {
		return err
	}
	out.Removed = &path
	if _, next, _, err := config.ResolveKey(env, ""); err == nil {
		out.Next = &next
	}
	return out.write(x.env.stdout, x.env.width(x.env.stdout), f.output)
}

// logoutJSON is what auth logout did: the file removed and the one
// vastdash reads next (null: none), or a note of why nothing was.
type logoutJSON struct {
	Removed *string `json:"removed"`
	Next    *string `json:"reads_next"`
	Note    string  `json:"note,omitempty"`
}

// write writes o to out as JSON or as lines, wrapped at width (0: none).
func (o logoutJSON) write(out io.Writer, width int, output string) error {
	if output == "json" {
		return answerTo(out, func(w io.Writer) error { return writeJSON(w, o) })
	}
	env := config.DefaultEnv()
	var lines []string
	if o.Note != "" {
		lines = append(lines, o.Note)
	}
	if o.Removed != nil {
		lines = append(lines, "removed "+env.Shown(*o.Removed))
	}
	if o.Next != nil {
		lines = append(lines, "vastdash now reads the key in "+env.Shown(*o.Next)+" (auth logout again removes it)")
	}
	return textTo(out, width, linesOf(lines))
}

// wrongKeyWords is a key the server rejects, said while signing in with
// it: the usual cause is a key cut short in the copy.
const wrongKeyWords = "the server rejected this key — check you copied all of it (the console shows a key only once: make a new one at " +
	config.ConsoleKeysURL + " if it is lost)"

// signIn verifies keys, makes a key for vastdash alone and saves one:
// what auth login and the dashboard's sign-in screen share. The session
// of the key that verified last stays open for the key to be made with.
//
// The screen calls it from its commands' goroutines, and may end while a
// call is under way (a signal, a second ctrl+c): close waits for the calls
// in flight before it closes the session they use, refuses any that start
// after, and deletes a key made for vastdash that was never saved.
type signIn struct {
	x    *execution
	base context.Context
	// account is the account auth login --account NAME signs in to, ""
	// for the usual key (account_login.go).
	account string

	mu     sync.Mutex
	idle   *sync.Cond // signalled when busy falls
	busy   int        // calls in flight
	keys   int        // of them, those making or deleting a key
	closed bool       // close began: no call starts
	gen    int        // of the verification begun last
	sess   *Session
	access access.Access
	// pending is a key Scope made that is neither saved nor deleted yet.
	pending *access.Scoped
}

// errSignInEnded refuses a call that starts once the sign-in has ended.
var errSignInEnded = errors.New("signing in has ended")

// begin counts a call in (keys: one that makes or deletes a key); false
// once close began.
func (si *signIn) begin(keys bool) bool {
	si.mu.Lock()
	defer si.mu.Unlock()
	if si.closed {
		return false
	}
	si.busy++
	if keys {
		si.keys++
	}
	return true
}

// end counts a call out.
func (si *signIn) end(keys bool) {
	si.mu.Lock()
	defer si.mu.Unlock()
	si.busy--
	if keys {
		si.keys--
	}
	if si.idle != nil {
		si.idle.Broadcast()
	}
}

// verify checks key with a session of its own (access.Probe). Its
// error is in the user's words.
func (si *signIn) verify(ctx context.Context, key config.Secret) (access.Access, error) {
	if !si.begin(false) {
		return access.Access{}, errSignInEnded
	}
	defer si.end(false)
	si.mu.Lock()
	si.gen++
	gen := si.gen
	si.mu.Unlock()
	// No ledger: a key being tried may be wrong, and a ledger's warning
	// would land on stderr, under the sign-in screen.
	s, err := openSession(si.x.env, si.x.globals, sessionOptions{base: si.base, key: &key, noLedger: true})
	if err != nil {
		return access.Access{}, err
	}
	a, err := access.Probe(ctx, s.Billing)
	if err != nil {
		s.Close()
		if errors.Is(err, api.ErrInvalidKey) || errors.Is(err, api.ErrNotLoggedIn) {
			// Said while signing in: what to check, not "sign in again".
			return access.Access{}, &explained{err, wrongKeyWords}
		}
		return access.Access{}, &explained{err, s.Billing.Explain(err)}
	}
	si.mu.Lock()
	defer si.mu.Unlock()
	if gen != si.gen {
		// A newer verification began (this one was cancelled): its key
		// is the one to keep.
		s.Close()
		return access.Access{}, context.Canceled
	}
	if si.sess != nil {
		si.sess.Close()
	}
	si.sess, si.access = s, a
	return a, nil
}

// session is the session of the key that verified last, and its access.
func (si *signIn) session() (*Session, access.Access) {
	si.mu.Lock()
	defer si.mu.Unlock()
	return si.sess, si.access
}

// scope makes a key for vastdash alone with the verified key, named for
// this machine and day. The key made is pending until it is saved or
// deleted.
func (si *signIn) scope(ctx context.Context, write bool) access.Scoped {
	if !si.begin(true) {
		return access.Scoped{Kept: true, Why: errSignInEnded.Error() + "; no key was made"}
	}
	defer si.end(true)
	sess, base := si.session()
	svc := sess.Billing
	host, _ := os.Hostname()
	name := access.ScopedName(host, write, svc.Now())
	sc := access.MakeScopedKey(ctx, svc, base, name, access.ScopedPermissions(base, write), sess.clientFor)
	si.mu.Lock()
	defer si.mu.Unlock()
	if sc.Kept {
		si.access = sc.Access
	} else {
		si.pending = &sc
	}
	return sc
}

// check judges the key file before anything is made or written.
func (si *signIn) check() error {
	if si.account != "" {
		return config.CheckAccountKeyTarget(config.DefaultEnv(), si.account)
	}
	return config.CheckKeyTarget(config.DefaultEnv())
}

// save writes key where the vastai CLI reads it; a pending key saved is
// no longer pending.
func (si *signIn) save(key config.Secret, replace bool) (string, error) {
	if !si.begin(false) {
		return "", errSignInEnded
	}
	defer si.end(false)
	path, err := si.saveKey(key, replace)
	si.mu.Lock()
	defer si.mu.Unlock()
	if err != nil {
		return path, err
	}
	who := si.access.UserID // the key verified, unless the one made for vastdash
	if si.pending != nil && si.pending.Key.Reveal() == key.Reveal() {
		who = si.pending.Access.UserID
		si.pending = nil
	}
	si.sess.rememberUser(key.Reveal(), who)
	return path, nil
}

// discard deletes a key made for vastdash that will not be used; one that
// could not be deleted stays pending, for close to try again.
func (si *signIn) discard(ctx context.Context, id int64) error {
	if !si.begin(true) {
		return errSignInEnded
	}
	defer si.end(true)
	sess, _ := si.session()
	err := access.DeleteKey(context.WithoutCancel(ctx), sess.Billing, id)
	si.mu.Lock()
	defer si.mu.Unlock()
	if err == nil && si.pending != nil && si.pending.Key.ID == id {
		si.pending = nil
	}
	return err
}

// discardWords deletes key id and says how that went.
func (si *signIn) discardWords(ctx context.Context, id int64) string {
	if err := si.discard(ctx, id); err != nil {
		sess, _ := si.session()
		return fmt.Sprintf("the key made for vastdash (id %d) could not be deleted (%s): delete it in the console", id, sess.Billing.Explain(err))
	}
	return "the key made for vastdash was deleted"
}

// pendingTimeout bounds the deletion close makes of a key never saved:
// the user is leaving.
const pendingTimeout = 30 * time.Second

// close ends the sign-in: it waits for the calls in flight, deletes a key
// made for vastdash that was never saved (saying so on stderr: the screen
// has ended), and closes the session.
func (si *signIn) close() {
	si.mu.Lock()
	si.closed = true
	if si.keys > 0 {
		warn(si.x.env.stderr, "finishing the key for vastdash under way (a key not saved is deleted); ctrl+c leaves now")
	}
	if si.busy > 0 {
		si.idle = sync.NewCond(&si.mu)
	}
	for si.busy > 0 {
		si.idle.Wait()
	}
	sess, pending := si.sess, si.pending
	si.sess, si.pending = nil, nil
	si.mu.Unlock()
	if sess == nil {
		return
	}
	defer sess.Close()
	if pending == nil {
		return
	}
	name := strconv.Quote(sanitize.String(pending.Name))
	ctx, cancel := context.WithTimeout(context.WithoutCancel(si.base), pendingTimeout)
	defer cancel()
	if err := access.DeleteKey(ctx, sess.Billing, pending.Key.ID); err != nil {
		warn(si.x.env.stderr, "the key made for vastdash, "+name+", was not saved, and it could not be deleted ("+sess.Billing.Explain(err)+"): delete it on the console's Keys page, "+config.ConsoleKeysURL)
		return
	}
	warn(si.x.env.stderr, "the key made for vastdash, "+name+", was not saved: it was deleted")
}

// funcs are the sign-in screen's ways to the world.
func (si *signIn) funcs() signin.Funcs {
	return signin.Funcs{Verify: si.verify, Scope: si.scope, Check: si.check, Save: si.save, Discard: si.discard}
}
