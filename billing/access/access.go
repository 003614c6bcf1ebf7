// Package access is what a key may do, asked of the server: the account
// and one read-only probe per permission vastdash uses (Probe, ProbeWith),
// and a key for vastdash alone (MakeScopedKey: made, verified by the same
// probes, deleted if short). It stands on the billing core, whose client,
// clock and words it uses, and shares the instances' first page with the
// core's readings.
package access

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/sanitize"
)

// Permission is a permission category of a scoped key that vastdash uses.
type Permission string

// The permissions vastdash uses (the provider's categories).
const (
	BillingRead   Permission = "billing_read"
	UserRead      Permission = "user_read"
	UserWrite     Permission = "user_write"
	InstanceRead  Permission = "instance_read"
	InstanceWrite Permission = "instance_write"
	Misc          Permission = billing.NeedsMisc
)

// Permissions are the ones vastdash uses, in the order both front ends
// show them.
var Permissions = []Permission{BillingRead, UserRead, UserWrite, InstanceRead, InstanceWrite, Misc}

// Unlocks says what p gives in vastdash, whole: every screen, command and
// metric that needs it.
func (p Permission) Unlocks() string {
	switch p {
	case BillingRead:
		return "charges, spend, burn and runway, the Statement (charges, payments, statement)"
	case UserRead:
		return "the credit, the e-mail and the alert switches (credit, notifications)"
	case UserWrite:
		return "changing alerts and the low-balance threshold"
	case InstanceRead:
		return "what bills now: the Overview's Now and forecast, credit --rate, the Audit (audit), serve's rate, instances and leaks"
	case InstanceWrite:
		return "accepting or rejecting price increases (audit accept|reject)"
	case Misc:
		return "the Audit's serverless endpoints: idle ones, and their workers told from your instances"
	}
	return ""
}

// Verdict is what vastdash knows of one permission of a key.
type Verdict int

// Verdicts.
const (
	// Unsure: no probe could tell (the server failed, or no probe
	// exists that changes nothing).
	Unsure Verdict = iota
	// Granted: a probe that needs the permission was answered.
	Granted
	// Denied: a probe was refused for want of the permission.
	Denied
)

// Mark is the verdict as one symbol: ✓, ✗ or ?.
func (v Verdict) Mark() string {
	switch v {
	case Granted:
		return "✓"
	case Denied:
		return "✗"
	}
	return "?"
}

// String is the verdict as a word: "yes", "no", "unknown" (JSON and logs).
func (v Verdict) String() string {
	switch v {
	case Granted:
		return "yes"
	case Denied:
		return "no"
	}
	return "unknown"
}

// Check is one permission's verdict.
type Check struct {
	Permission Permission
	Verdict    Verdict
	// Why says what decided a verdict other than Granted: the probe's
	// error in the user's words (sanitized, one line), or why no probe
	// was made.
	Why string
}

// Access is what a key may do: the account it belongs to and one Check per
// permission, in the order of Permissions.
type Access struct {
	// Email is the account's e-mail, sanitized; "" when the account could
	// not be read (no user_read).
	Email string
	// UserID is the account's id; 0 when it could not be read.
	UserID int64
	Checks []Check
}

// Verdict is p's verdict (Unsure for a permission not checked).
func (a Access) Verdict(p Permission) Verdict {
	for _, c := range a.Checks {
		if c.Permission == p {
			return c.Verdict
		}
	}
	return Unsure
}

// Lacking lists the permissions a probe found missing.
func (a Access) Lacking() []Permission {
	var out []Permission
	for _, c := range a.Checks {
		if c.Verdict == Denied {
			out = append(out, c.Permission)
		}
	}
	return out
}

// Learn returns a with p's verdict set to v for reason why (what a later
// call showed: making a key proves user_write).
func (a Access) Learn(p Permission, v Verdict, why string) Access {
	a.Checks = slices.Clone(a.Checks)
	for i := range a.Checks {
		if a.Checks[i].Permission == p {
			a.Checks[i].Verdict, a.Checks[i].Why = v, why
		}
	}
	return a
}

// noWriteProbe is why user_write and instance_write are not probed: every
// call that needs them changes the account, and a request meant to be
// refused could be accepted and change it.
const noWriteProbe = "not tested: every call that needs it changes the account"

// noMiscProbe is why the dashboard's check at start does not probe misc:
// its probe would hold the audit's own read of the endpoints behind their
// pacing (3 s), and the audit says a refusal itself.
const noMiscProbe = "not tested at start: the Audit says whether the endpoints could be read"

// probeWindow is the span of payment records the billing_read probe asks
// for: one day, so the answer is small.
const probeWindow = 24 * time.Hour

// Probe verifies the core's key: the account lookup and, side by
// side, one cheap read per permission vastdash uses — payment records of
// the last day (billing_read), the account itself (user_read), the first
// page of instances (instance_read), the serverless endpoints (misc).
// None of them changes anything, so user_write and instance_write, which
// no call tests without a change, stay Unsure. A key
// the server rejects, or a server that answered none of the probes, is an
// error (explained); otherwise each permission gets its verdict.
func Probe(ctx context.Context, core *billing.Service) (Access, error) {
	return probe(ctx, core, nil, nil, true)
}

// ProbeWith is Probe around an account lookup already made (the
// dashboard reads the account first thing): user and userErr stand for
// the lookup, which is not made again; a key the lookup found rejected is
// that error at once, with no probe sent. misc is not probed (Unsure):
// the dashboard's audit reads the endpoints itself and says a refusal.
func ProbeWith(ctx context.Context, core *billing.Service, user api.User, userErr error) (Access, error) {
	return probe(ctx, core, &user, userErr, false)
}

func probe(ctx context.Context, core *billing.Service, known *api.User, knownErr error, probeMisc bool) (Access, error) {
	if core.Client() == nil {
		return Access{}, billing.ErrNoClient
	}
	if rejected(knownErr) {
		return Access{}, knownErr
	}
	now := core.Now()
	var (
		wg                       sync.WaitGroup
		user                     api.User
		userErr, billErr, instEr error
		miscErr                  = errors.New(noMiscProbe)
	)
	// A server the account lookup cannot reach is down for the other
	// probes too: they stop rather than retry on their endpoints' pacing.
	probes, stop := context.WithCancel(ctx)
	defer stop()
	if known != nil {
		user, userErr = *known, knownErr
	} else {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user, userErr = core.Client().CurrentUser(ctx)
			if errors.Is(userErr, api.ErrTransport) || errors.Is(userErr, api.ErrTimeout) {
				stop()
			}
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, billErr = core.Client().Invoices(probes, api.InvoicesQuery{From: now.Add(-probeWindow), To: now}, "")
	}()
	go func() { defer wg.Done(); instEr = core.ProbeInstances(probes) }()
	if probeMisc {
		wg.Add(1)
		go func() { defer wg.Done(); _, miscErr = core.Client().Endpoints(probes) }()
	}
	wg.Wait()

	errs := []error{userErr, billErr, instEr}
	if probeMisc {
		errs = append(errs, miscErr)
	}
	for _, err := range errs {
		if rejected(err) {
			return Access{}, err
		}
	}
	if !slices.ContainsFunc(errs, func(err error) bool { return err == nil || errors.Is(err, api.ErrPermission) }) {
		// Nothing answered: the server is down or unreachable, and
		// nothing is known of the key.
		return Access{}, userErr
	}
	a := Access{Checks: []Check{
		verdict(core, BillingRead, billErr),
		verdict(core, UserRead, userErr),
		{Permission: UserWrite, Verdict: Unsure, Why: noWriteProbe},
		verdict(core, InstanceRead, instEr),
		{Permission: InstanceWrite, Verdict: Unsure, Why: noWriteProbe},
		{Permission: Misc, Verdict: Unsure, Why: noMiscProbe},
	}}
	if probeMisc {
		a.Checks[5] = verdict(core, Misc, miscErr)
	}
	if userErr == nil {
		a.Email, a.UserID = sanitize.Short(user.Email, 254), user.ID
	}
	return a, nil
}

// rejected reports an error saying the server does not know the key.
func rejected(err error) bool {
	return errors.Is(err, api.ErrInvalidKey) || errors.Is(err, api.ErrNotLoggedIn)
}

// verdict is what a probe's outcome says of p.
func verdict(core *billing.Service, p Permission, err error) Check {
	switch {
	case err == nil:
		return Check{Permission: p, Verdict: Granted}
	case errors.Is(err, api.ErrPermission):
		return Check{Permission: p, Verdict: Denied, Why: "refused: this key lacks " + string(p)}
	}
	return Check{Permission: p, Verdict: Unsure, Why: core.Explain(err)}
}

// readPermissions are what a key for vastdash alone is given besides
// user_write: everything vastdash reads, the audit's serverless endpoints
// (misc) included. Never instance_write: vastdash uses it only to answer
// price increases, and it cannot be narrowed to that — a key holding it
// could rent and destroy instances, spending the credit.
var readPermissions = []Permission{BillingRead, UserRead, InstanceRead, Misc}

// ScopedPermissions are the permissions of a key for vastdash alone made
// with a key of access base: the reads vastdash uses that base is not
// known to lack (a key cannot grant what it lacks), and user_write when
// the user wants to change alerts from vastdash.
func ScopedPermissions(base Access, write bool) []Permission {
	var out []Permission
	for _, p := range readPermissions {
		if base.Verdict(p) != Denied {
			out = append(out, p)
		}
	}
	if write {
		out = append(out, UserWrite)
	}
	return out
}

// ScopedName is the name a key for vastdash alone gets, so the user
// recognises it in the console's list: what it is for, where it was made
// and when ("vastdash (read-only) on laptop, 2026-11-21").
func ScopedName(host string, write bool, day time.Time) string {
	what := "vastdash (read-only)"
	if write {
		what = "vastdash (reads, changes alerts)"
	}
	host = sanitize.Short(strings.TrimSpace(host), 40)
	if host != "" {
		what += " on " + host
	}
	return what + ", " + day.Format(time.DateOnly)
}

// Scoped is the outcome of MakeScopedKey.
type Scoped struct {
	// Key is the new key, verified; zero when the pasted one is kept.
	Key api.CreatedKey
	// Access is the new key's access (with Key), else the pasted key's,
	// with user_write learned when making the key showed it.
	Access Access
	// Name is the name the new key was given.
	Name string
	// Kept is set when no new key is to be used: it could not be made, or
	// it failed a probe and was deleted. Why says which, in a line.
	Kept bool
	Why  string
}

// MakeScopedKey makes a key for vastdash alone with the core's key
// (base is that key's access), named name, with exactly perms; verifies
// it with the same probes through a client open makes for it; and deletes
// it again if any probe of a permission it was given does not pass, or if
// the server gave it more or less than asked, or will not say what it
// gave (neither the create's answer nor the account's list of keys does).
// Then the pasted key is kept and Why
// says why. Making the key at all proves the pasted key's user_write, and
// a refusal for want of a permission disproves it: Access says so.
//
// The create is sent once. When its outcome is unknown (no answer in
// time, a lost connection, a gateway's 5xx, an answer that cannot be
// read, ctx ended after it was sent), the account's keys listed before
// and after tell: a key that appeared is this one, and it is deleted;
// failing that, Why names the key to look for in the console.
func MakeScopedKey(ctx context.Context, core *billing.Service, base Access, name string, perms []Permission, open func(key string) (*api.Client, error)) Scoped {
	names := make([]string, len(perms))
	for i, p := range perms {
		names[i] = string(p)
	}
	// The keys before, for an outcome nobody knows; not being able to
	// list them only costs the user a look in the console then.
	before, berr := core.Client().APIKeys(ctx)
	made, err := core.Client().CreateAPIKey(ctx, name, names)
	switch {
	case errors.Is(err, api.ErrPermission):
		base = base.Learn(UserWrite, Denied, "refused: this key may not make keys")
		return Scoped{Access: base, Kept: true, Why: "this key may not make keys (it lacks user_write); keeping it"}
	case err != nil && made.ID > 0:
		// The answer named the key but is no use: the key is there.
		base = base.Learn(UserWrite, Granted, "")
		return discardMade(ctx, core, base, made.ID, name, "the answer to making the key could not be used ("+core.Explain(err)+")")
	case err != nil && keyOutcomeUnknown(err):
		return settleMade(ctx, core, base, name, names, before, berr, err)
	case err != nil:
		return Scoped{Access: base, Kept: true, Why: "no key was made (" + core.Explain(err) + "); keeping the pasted one"}
	}
	base = base.Learn(UserWrite, Granted, "")
	fail := func(why string) Scoped { return discardMade(ctx, core, base, made.ID, name, why) }
	// What the key may do is the server's word on it, never taken from
	// what was asked: the create's answer, else the account's list.
	rights, known := made.Permissions, made.PermissionsKnown
	if !known {
		rights, known = listedRights(ctx, core, made.ID)
	}
	if !known {
		return fail("the server could not tell what the new key may do")
	}
	if extra := missingFrom(names, rights); extra != "" {
		return fail("the server gave the new key more than asked (" + extra + ")")
	}
	if short := missingFrom(rights, names); short != "" {
		return fail("the server did not give the new key " + short)
	}
	client, err := open(made.Reveal())
	if err != nil {
		return fail("the new key cannot be used (" + core.Explain(err) + ")")
	}
	svc := billing.New(ctx, client, billing.WithClock(core.Now), billing.WithLocation(core.Location()))
	defer svc.Close()
	access, err := Probe(ctx, svc)
	if err != nil {
		return fail("the new key did not verify (" + core.Explain(err) + ")")
	}
	// No probe tests user_write; the server's own word on the key it
	// made does.
	if slices.Contains(rights, string(UserWrite)) {
		access = access.Learn(UserWrite, Granted, "")
	} else {
		access = access.Learn(UserWrite, Denied, "not given to this key")
	}
	access = access.Learn(InstanceWrite, Denied, "never given to a key for vastdash alone (it could rent instances)")
	for _, p := range perms {
		if v := access.Verdict(p); v != Granted && p != UserWrite {
			return fail("the new key's " + string(p) + " did not pass its probe (" + checkWhy(access, p) + ")")
		}
	}
	return Scoped{Key: made, Access: access, Name: name}
}

// discardMade deletes key id, made for vastdash and not to be used for
// why, and says how that went; the pasted key is kept.
func discardMade(ctx context.Context, core *billing.Service, base Access, id int64, name, why string) Scoped {
	if derr := DeleteKey(context.WithoutCancel(ctx), core, id); derr != nil {
		why += "; it could not be deleted (" + core.Explain(derr) + "): delete the key named " + sanitize.String(name) + " in the console"
	} else {
		why += "; it was deleted"
	}
	return Scoped{Access: base, Kept: true, Why: why + ", keeping the pasted key"}
}

// settleMade settles a create whose outcome is unknown (err) by the keys
// the account holds now and did not before (berr: why those could not be
// listed): none is no key made; one, or one of several with exactly the
// rights asked, is the key made, deleted; anything else names the key to
// look for in the console. ctx may have ended (ctrl+c): what is left to
// ask is asked all the same.
func settleMade(ctx context.Context, core *billing.Service, base Access, name string, asked []string, before []api.APIKeyInfo, berr, err error) Scoped {
	why := "making the key got no usable answer (" + core.Explain(err) + ")"
	if berr == nil {
		after, aerr := core.Client().APIKeys(context.WithoutCancel(ctx))
		if aerr == nil {
			fresh := newKeys(before, after, asked)
			switch len(fresh) {
			case 0:
				return Scoped{Access: base, Kept: true, Why: "no key was made (" + core.Explain(err) + "; the account's keys show no new one); keeping the pasted one"}
			case 1:
				base = base.Learn(UserWrite, Granted, "")
				return discardMade(ctx, core, base, fresh[0], name, why+"; the account's keys show it was made")
			}
		}
	}
	return Scoped{Access: base, Kept: true, Why: why + "; a key may have been made: look for " + strconv.Quote(sanitize.String(name)) +
		" on the console's Keys page and delete it; keeping the pasted key"}
}

// newKeys are the ids of after that before does not hold; of several,
// only those with exactly the rights asked (another client may have made
// a key meanwhile).
func newKeys(before, after []api.APIKeyInfo, asked []string) []int64 {
	var fresh []api.APIKeyInfo
	for _, k := range after {
		if !slices.ContainsFunc(before, func(b api.APIKeyInfo) bool { return b.ID == k.ID }) {
			fresh = append(fresh, k)
		}
	}
	if len(fresh) > 1 {
		want := slices.Sorted(slices.Values(asked))
		fresh = slices.DeleteFunc(fresh, func(k api.APIKeyInfo) bool { return !slices.Equal(k.Rights, want) })
	}
	ids := make([]int64, len(fresh))
	for i, k := range fresh {
		ids[i] = k.ID
	}
	return ids
}

// DeleteKey deletes the API key id with the core's key: a key made for
// vastdash that will not be used after all. A delete may be sent twice
// (its answer lost, it is repeated), and then the repeat finds the key
// gone: a 404, or an outcome nobody knows, is settled by the account's
// list of keys — a key it does not hold is deleted.
func DeleteKey(ctx context.Context, core *billing.Service, id int64) error {
	if core.Client() == nil {
		return billing.ErrNoClient
	}
	err := core.Client().DeleteAPIKey(ctx, id)
	if err == nil || !errors.Is(err, api.ErrNotFound) && !keyOutcomeUnknown(err) {
		return err
	}
	keys, lerr := core.Client().APIKeys(context.WithoutCancel(ctx))
	if lerr != nil || slices.ContainsFunc(keys, func(k api.APIKeyInfo) bool { return k.ID == id }) {
		return err
	}
	return nil
}

// keyOutcomeUnknown reports a failed call to the API-keys endpoint that
// may have reached the server: those of outcomeUnknown, an answer too
// large to read, and one given up (ctrl+c) after it may have been sent.
func keyOutcomeUnknown(err error) bool {
	return billing.OutcomeUnknown(err) || errors.Is(err, api.ErrTooLarge) || errors.Is(err, api.ErrCanceled)
}

// missingFrom names the permissions of got that want does not hold, ""
// when none.
func missingFrom(want, got []string) string {
	var extra []string
	for _, p := range got {
		if !slices.Contains(want, p) {
			extra = append(extra, p)
		}
	}
	return strings.Join(extra, ", ")
}

// listedRights are key id's rights as the account's list of keys says
// them; false when the list cannot be read, does not hold the key, or
// does not say them (a key with full access lists none).
func listedRights(ctx context.Context, core *billing.Service, id int64) ([]string, bool) {
	keys, err := core.Client().APIKeys(ctx)
	if err != nil {
		return nil, false
	}
	i := slices.IndexFunc(keys, func(k api.APIKeyInfo) bool { return k.ID == id })
	if i < 0 || keys[i].Rights == nil {
		return nil, false
	}
	return keys[i].Rights, true
}

// checkWhy is the reason of p's check in a.
func checkWhy(a Access, p Permission) string {
	for _, c := range a.Checks {
		if c.Permission == p && c.Why != "" {
			return c.Why
		}
	}
	return a.Verdict(p).String()
}
