package notices

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/sanitize"
	"github.com/vastdash/vastdash/suggest"
	"golang.org/x/net/idna"
)

// The webhooks a preference's webhooks channel delivers to: what a webhook
// may be (the checks before any request), the safe way to change one (one
// request, then the list read again; an unknown outcome says so), and the
// one state where an alert silently goes nowhere — a webhooks switch that
// is on while no webhook carries its event. Both front ends ask here.

// MaxWebhooksPerAccount is the platform's limit.
const MaxWebhooksPerAccount = 4

// NoWebhookText is what both front ends show beside a webhooks switch that
// is on while the account has no webhook at all; NoWebhookTakesText when
// it has some, none of them for this switch's alert (UnheardText picks).
const (
	NoWebhookText      = "No webhook registered"
	NoWebhookTakesText = "No webhook takes this alert"
)

// UnheardText is what is said beside a switch Unheard reports, true of the
// list l it was judged on: no webhook registered at all, or none of those
// registered takes this alert.
func UnheardText(l api.WebhookList) string {
	if len(l.Webhooks) == 0 {
		return NoWebhookText
	}
	return NoWebhookTakesText
}

// ErrWebhookInput is matched by every refusal of what the user typed for
// a webhook — its name, URL or events — made before anything is sent: a
// front end tells it as a mistake to correct (the command line exits 2).
var ErrWebhookInput = errors.New("the webhook cannot be saved as typed")

// inputError is a refusal of the user's input.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func (e *inputError) Is(target error) bool { return target == ErrWebhookInput }

func bad(msg string) error { return &inputError{msg: msg} }

func badf(format string, a ...any) error { return bad(fmt.Sprintf(format, a...)) }

// resolveTimeout bounds the look-up of a URL's host name: a resolver that
// hangs must not hold a save.
const resolveTimeout = 3 * time.Second

// WebhookInput is a webhook as the user typed it.
type WebhookInput struct {
	Name   string
	URL    string
	Events []string
}

// WebhookChange is an edit: a nil field is left as the server holds it.
type WebhookChange struct {
	Name, URL *string
	Events    []string // nil: unchanged
}

// CheckWebhookName refuses a name the platform would (empty, over 120
// characters) or that a terminal would act on; it returns the name
// trimmed.
func CheckWebhookName(name string) (string, error) {
	n := strings.TrimSpace(name)
	switch {
	case n == "":
		return "", bad("give the webhook a name")
	case utf8.RuneCountInString(n) > api.MaxWebhookName:
		return "", badf("the name is %d characters long; the platform takes at most %d", utf8.RuneCountInString(n), api.MaxWebhookName)
	case !utf8.ValidString(n) || sanitize.String(n) != n:
		return "", bad("the name holds control characters or invisible formatting")
	}
	return n, nil
}

// ParseWebhookURL checks a URL the way the platform does, before any
// request: https only, at most 2,048 characters, no credentials, and not
// a private, loopback or link-local address (a literal one, or one of the
// localhost names). It returns the URL trimmed. Host names are looked up
// by CheckWebhook, not here. The error does not repeat the URL,
// which may hold credentials.
func ParseWebhookURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", bad("type the URL the alerts go to, https://…")
	}
	if n := utf8.RuneCountInString(s); n > api.MaxWebhookURL {
		return "", badf("the URL is %d characters long; the platform takes at most %d", n, api.MaxWebhookURL)
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
		return "", bad("the URL holds spaces or control characters")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", bad("the URL cannot be read as a URL")
	}
	switch {
	case !strings.EqualFold(u.Scheme, "https"):
		return "", bad("the URL must begin with https:// — the platform delivers only over https")
	case u.User != nil:
		return "", bad("the URL holds credentials (user:password@), which the platform refuses")
	case u.Host == "" || u.Hostname() == "":
		return "", bad("the URL has no host")
	}
	if why := targetProblem(u.Hostname()); why != "" {
		return "", bad(why)
	}
	return s, nil
}

// targetProblem says why host cannot receive deliveries, as the refusal
// says it ("" when it may):
// a literal address that is not public, a localhost name, or a name made
// of digits that resolvers read as an address ("2130706433", "127.1").
func targetProblem(host string) string {
	h := lookupHost(host)
	if a, err := netip.ParseAddr(h); err == nil {
		if kind := addrKind(a); kind != "" {
			return "the URL points at " + a.String() + ", " + kind + ", not a public one"
		}
		return ""
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return "the URL points at localhost, a loopback name, not a public host"
	}
	labels := strings.Split(h, ".")
	last := labels[len(labels)-1]
	if last == "" || strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		// No top-level domain is numeric: this is an address written
		// in a form netip does not read, which the platform's resolver
		// may.
		return "the URL's host is written as a number, which resolvers read as an address"
	}
	return ""
}

// lookupHost is host as a resolver reads it, the form every check judges:
// an address literal as it is; a name mapped as IDNA's lookup (UTS #46)
// does — full-width and circled letters and digits, the ideographic and
// full-width full stops, upper case — so "ｌｏｃａｌｈｏｓｔ" or
// "１２７。０。０。１" is judged as localhost or 127.0.0.1 and not passed as
// some other name. A name the mapping finds invalid (an underscore, say)
// is judged as far as it mapped: the platform decides on the rest.
func lookupHost(host string) string {
	h := strings.ToLower(host)
	if _, err := netip.ParseAddr(h); err == nil {
		return h
	}
	if a, _ := idna.Lookup.ToASCII(h); a != "" {
		h = strings.ToLower(a)
	}
	return strings.TrimSuffix(h, ".")
}

// nonPublic are the special-purpose ranges (IANA's registries) inside
// IPv4 global unicast and IPv6's 2000::/3 that no delivery can or must
// reach: "this network", shared address space (CGNAT), IETF protocol
// assignments, the documentation and benchmarking ranges, the 6to4 relay
// anycast, the reserved 240/4 with broadcast; IPv6's protocol assignments
// (Teredo, benchmarking, ORCHID …) and documentation.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("3fff::/20"),
}

var (
	// globalIPv6 is IPv6's global unicast: nothing outside it is public
	// (the IPv4-compatible ::/96 and translated ::ffff:0:0:0/96 forms,
	// NAT64, discard-only 100::/64, site-local …).
	globalIPv6 = netip.MustParsePrefix("2000::/3")
	// nat64 is the well-known NAT64 prefix, the IPv4 address in its last
	// 32 bits; 6to4 has its IPv4 address in bits 16 to 48.
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// addrKind names what kind of non-public address a is ("" for public):
// public is IPv4 global unicast outside nonPublic, or IPv6 inside 2000::/3
// outside nonPublic. An IPv4 address inside IPv6 (mapped, 6to4) counts as
// itself; one in NAT64 form is named as its IPv4 address when that is
// not public, and is not public either way: a delivery goes to the IPv4
// address (a name a DNS64 resolver answers so is judged by resolvedKind).
func addrKind(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	switch {
	case sixToFour.Contains(a):
		b := a.As16()
		return addrKind(netip.AddrFrom4([4]byte(b[2:6])))
	case nat64.Contains(a):
		if kind := addrKind(fromNAT64(a)); kind != "" {
			return kind
		}
		return "a NAT64 address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "a link-local address"
	case a.IsUnspecified():
		return "an unspecified address"
	case a.IsMulticast() || a.IsInterfaceLocalMulticast():
		return "a multicast address"
	case !a.IsGlobalUnicast(), a.Is6() && !globalIPv6.Contains(a):
		return "a reserved address"
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return "a reserved address"
		}
	}
	return ""
}

// resolvedKind is addrKind of an address a name resolved to, where the
// NAT64 form of an address is that address: a DNS64 resolver on an
// IPv6-only network answers so for a name that has only IPv4 ones.
func resolvedKind(a netip.Addr) string {
	if a = a.Unmap().WithZone(""); nat64.Contains(a) {
		a = fromNAT64(a)
	}
	return addrKind(a)
}

// fromNAT64 is the IPv4 address in the last 32 bits of a.
func fromNAT64(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte(b[12:16]))
}

// CheckWebhookEvents checks the events a webhook is to carry against the
// catalogue (cerr: why it could not be read): at least one, each a key of
// the catalogue ("client:low_credit"). It returns them trimmed, each once,
// in the order given. Without the catalogue nothing can be checked, and
// that is the error.
func CheckWebhookEvents(events []string, cat api.NotificationCatalogue, cerr error) ([]string, error) {
	out, err := PickedEvents(events)
	if err != nil {
		return nil, err
	}
	if cerr != nil || len(cat.Types) == 0 {
		why := "it is empty"
		if cerr != nil {
			why = cerr.Error()
		}
		return nil, fmt.Errorf("the events cannot be checked: the notification catalogue could not be read (%s)", why)
	}
	keys := make([]string, len(cat.Types))
	for i, t := range cat.Types {
		keys[i] = t.Key
	}
	for _, e := range out {
		if slices.Contains(keys, e) {
			continue
		}
		msg := fmt.Sprintf("%q is not an event of the notification catalogue", sanitize.Short(e, 40))
		if near := suggest.Closest(e, keys, 3, false); len(near) > 0 {
			return nil, bad(msg + " (did you mean " + near[0] + "?)")
		}
		return nil, bad(msg + " (its keys look like " + keys[0] + ")")
	}
	if len(out) > api.MaxWebhookEvents {
		return nil, badf("a webhook carries at most %d events", api.MaxWebhookEvents)
	}
	return out, nil
}

// PickedEvents is the first of CheckWebhookEvents' checks, the one that
// needs no catalogue: the events trimmed, each once, and at least one.
func PickedEvents(events []string) ([]string, error) {
	var out []string
	for _, e := range events {
		if e = strings.TrimSpace(e); e != "" && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, bad("pick at least one event for the webhook to carry, e.g. client:low_credit")
	}
	return out, nil
}

// checkHost looks up a URL's host name and refuses it when any address it
// leads to is not public. A look-up that fails says nothing: the platform
// checks too, and a host that does not resolve now may later.
func checkHost(ctx context.Context, core *billing.Service, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || core.Resolver() == nil {
		return err
	}
	host := lookupHost(u.Hostname())
	if _, err := netip.ParseAddr(host); err == nil {
		return nil // a literal, checked by ParseWebhookURL
	}
	lctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := core.Resolver()(lctx, host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if kind := resolvedKind(a); kind != "" {
			return badf("the URL's host %s resolves to %s, %s, not a public one", sanitize.Short(host, 60), a, kind)
		}
	}
	return nil
}

// CheckWebhook checks everything the user typed for a webhook, in the
// order a form shows it: the name, the URL (its host name looked up), the
// events against the catalogue (the session's copy). The spec it returns
// is what a save sends.
func CheckWebhook(ctx context.Context, core *billing.Service, in WebhookInput) (api.WebhookSpec, error) {
	name, err := CheckWebhookName(in.Name)
	if err != nil {
		return api.WebhookSpec{}, err
	}
	u, err := ParseWebhookURL(in.URL)
	if err != nil {
		return api.WebhookSpec{}, err
	}
	if err := checkHost(ctx, core, u); err != nil {
		return api.WebhookSpec{}, err
	}
	cat, cerr := core.Catalogue(ctx, false)
	events, err := CheckWebhookEvents(in.Events, cat, cerr)
	if err != nil {
		return api.WebhookSpec{}, err
	}
	return api.WebhookSpec{Name: name, URL: u, Events: events}, nil
}

// Webhooks reads the account's webhooks.
func Webhooks(ctx context.Context, core *billing.Service) (api.WebhookList, error) {
	if core.Client() == nil {
		return api.WebhookList{}, billing.ErrNoClient
	}
	return core.Client().Webhooks(ctx)
}

// ErrWebhookLimit is returned by AddWebhook when the account already has
// MaxWebhooksPerAccount webhooks: nothing is sent.
var ErrWebhookLimit = fmt.Errorf("the account has %d webhooks, the most the platform allows: delete one first", MaxWebhooksPerAccount)

// ErrNoSuchWebhook is matched by the error of a change to a webhook the
// list just read does not hold.
var ErrNoSuchWebhook = errors.New("no such webhook")

// noSuchWebhookError names the webhook; cause is the server's 404, if
// that is how it is known.
type noSuchWebhookError struct {
	id    string
	cause error
}

func (e *noSuchWebhookError) Error() string {
	return "the account has no webhook " + sanitize.Short(e.id, 64)
}

func (e *noSuchWebhookError) Is(target error) bool { return target == ErrNoSuchWebhook }

func (e *noSuchWebhookError) Unwrap() error { return e.cause }

// missing tells a 404 on webhook id's own path as what it means: no such
// webhook (the endpoints exist: the list answered).
func missing(id string, err error) error {
	if errors.Is(err, api.ErrNotFound) {
		return &noSuchWebhookError{id: id, cause: err}
	}
	return err
}

// WebhookResult is the outcome of a change to the webhooks.
type WebhookResult struct {
	// List is what the server holds after the change, read again; Read
	// is false when that read failed or was not made (the change was
	// refused: nothing changed).
	List api.WebhookList
	Read bool
	// Webhook is the one changed as the server holds it now, when Found:
	// from List, else (a create whose list could not be read) from the
	// answer.
	Webhook api.Webhook
	Found   bool
	// Secret is the signing secret a create or a rotation returned. It
	// comes only once: when it is not zero, show it, whatever the error.
	Secret api.WebhookSecret
	// Unknown is set when the change may or may not have reached the
	// server (a timeout, a lost connection, an answer that could not be
	// read); List, if Read, shows what it holds.
	Unknown bool
	// Unchanged is set when an edit asked for what the server holds:
	// nothing was sent.
	Unchanged bool
	// Outcome is what the change came to, decided here once from all of
	// the above: both front ends present it and decode nothing.
	Outcome WebhookOutcome
}

// WebhookOutcome is what a change to the webhooks came to, by the
// server's answer and the list read again after it. Billing decides it;
// the command and the screen only say it in their words.
type WebhookOutcome int

// The outcomes of a change to the webhooks.
const (
	// WebhookRefused: refused, or never sent (a bad input, the limit, no
	// such webhook): the server holds what it held; the error says why.
	WebhookRefused WebhookOutcome = iota
	// WebhookDone: done as asked, and the list read again agrees.
	WebhookDone
	// WebhookUnchanged: an edit asked for what the server holds: nothing
	// was sent.
	WebhookUnchanged
	// WebhookHalfDone: the change was made (the server said so, or its
	// secret came), but what followed failed — its answer could not be
	// read, or the list could not be read again; the error says which.
	// A secret in the result is shown.
	WebhookHalfDone
	// WebhookDiffers: the server said done, but the list read again says
	// otherwise: a deleted webhook still listed, an edited one gone.
	WebhookDiffers
	// WebhookLostTook: no answer, but the list read again shows the change
	// took: a new webhook of this name and URL (its secret lost), the
	// deleted one gone, the edited one holding what was asked.
	WebhookLostTook
	// WebhookLostNotTaken: no answer, and the list read again shows the
	// change did not take: no new webhook, the deleted one still there,
	// the edited one holding something else.
	WebhookLostNotTaken
	// WebhookLost: no answer, and the list read again cannot tell (a
	// rotated secret is not listed; an edited webhook is gone): it shows
	// what the server holds now.
	WebhookLost
	// WebhookUnread: no answer, and the list could not be read again:
	// the server may hold either.
	WebhookUnread
)

// webhookOp is the change a WebhookResult is the outcome of.
type webhookOp int

const (
	hookAdd webhookOp = iota
	hookEdit
	hookDelete
	hookRotate
)

// errHooksReread marks a change the server confirmed whose read of the
// list afterwards failed.
var errHooksReread = errors.New("done, but reading the webhooks again failed")

// decide sets res.Outcome from the change's error and what was read after
// it (spec: what an edit asked for), and returns res and err: the one
// place a change's booleans are read.
func decide(op webhookOp, res WebhookResult, spec api.WebhookSpec, err error) (WebhookResult, error) {
	took := func() bool {
		switch op {
		case hookAdd:
			return res.Found
		case hookDelete:
			return !res.Found
		}
		return res.Found && res.Webhook.Name == spec.Name && res.Webhook.URL == spec.URL && slices.Equal(res.Webhook.Events, spec.Events)
	}
	switch {
	case err == nil && res.Unchanged:
		res.Outcome = WebhookUnchanged
	case err == nil && (op == hookDelete && res.Found || op == hookEdit && !res.Found):
		res.Outcome = WebhookDiffers
	case err == nil:
		res.Outcome = WebhookDone
	case !res.Secret.IsZero() || errors.Is(err, errHooksReread):
		res.Outcome = WebhookHalfDone
	case !res.Unknown:
		res.Outcome = WebhookRefused
	case !res.Read:
		res.Outcome = WebhookUnread
	case op == hookRotate || op == hookEdit && !res.Found:
		res.Outcome = WebhookLost
	case took():
		res.Outcome = WebhookLostTook
	default:
		res.Outcome = WebhookLostNotTaken
	}
	return res, err
}

// reread reads the list after a change (err: the change's error) and
// fills res: Read and List, and Webhook/Found for id ("" for none).
func reread(ctx context.Context, core *billing.Service, res *WebhookResult, id string, err error) error {
	res.Unknown = err != nil && billing.OutcomeUnknown(err)
	l, rerr := core.Client().Webhooks(ctx)
	if rerr == nil {
		res.List, res.Read = l, true
		if id != "" {
			res.Webhook, res.Found = l.Find(id)
		}
	}
	switch {
	case err != nil:
		return err
	case rerr != nil:
		return fmt.Errorf("%w: %w", errHooksReread, rerr)
	}
	return nil
}

// afterChange is the outcome of a change whose request ended with err: a
// refusal ends here with nothing read (nothing changed); success, an
// unknown outcome and a webhook that is already gone read the list again.
func afterChange(ctx context.Context, core *billing.Service, res *WebhookResult, id string, err error) error {
	if err != nil && (ctx.Err() != nil || !billing.OutcomeUnknown(err) && !errors.Is(err, api.ErrNotFound)) {
		return err
	}
	return reread(ctx, core, res, id, err)
}

// AddWebhook registers a webhook: the input is checked (CheckWebhook), the
// limit against held (the list the caller last read; nil reads it), then
// one create, then the list read again. When the create's outcome is
// unknown and the list read again holds a webhook of this name and URL
// that held did not, it is returned as Found: it was made, and its secret
// is lost (rotate it).
func AddWebhook(ctx context.Context, core *billing.Service, in WebhookInput, held *api.WebhookList) (WebhookResult, error) {
	if core.Client() == nil {
		return WebhookResult{}, billing.ErrNoClient
	}
	spec, err := CheckWebhook(ctx, core, in)
	if err != nil {
		return WebhookResult{}, err
	}
	if held == nil {
		l, err := core.Client().Webhooks(ctx)
		if err != nil {
			return WebhookResult{}, err
		}
		held = &l
	}
	if len(held.Webhooks)+held.Skipped >= MaxWebhooksPerAccount {
		return WebhookResult{}, ErrWebhookLimit
	}
	w, secret, err := core.Client().CreateWebhook(ctx, spec)
	res := WebhookResult{Secret: secret}
	if err != nil && !secret.IsZero() {
		// The answer held a secret and nothing else usable: the webhook
		// was made. Read the list for it like an unknown outcome.
		err = fmt.Errorf("the webhook was made, but %w", err)
	}
	err = afterChange(ctx, core, &res, w.ID, err)
	switch {
	case err == nil && !res.Found:
		res.Webhook, res.Found = w, true // the list did not show it (yet)
	case res.Unknown && res.Read:
		for _, got := range res.List.Webhooks {
			if _, before := held.Find(got.ID); !before && got.Name == spec.Name && got.URL == spec.URL {
				res.Webhook, res.Found = got, true
			}
		}
	}
	return decide(hookAdd, res, spec, err)
}

// EditWebhook changes webhook id the one safe way: it reads the list,
// changes only the fields asked for (each checked as CheckWebhook does),
// sends the whole record once (a PUT replaces it) and reads the list
// again. An edit to what the server already holds sends nothing
// (Unchanged).
func EditWebhook(ctx context.Context, core *billing.Service, id string, ch WebhookChange) (WebhookResult, error) {
	if core.Client() == nil {
		return WebhookResult{}, billing.ErrNoClient
	}
	if err := api.CheckWebhookID(id); err != nil {
		return WebhookResult{}, err
	}
	if ch.Name == nil && ch.URL == nil && ch.Events == nil {
		return WebhookResult{}, bad("nothing to change: give a name, a URL or events")
	}
	var err error
	next := api.WebhookSpec{}
	if ch.Name != nil {
		if next.Name, err = CheckWebhookName(*ch.Name); err != nil {
			return WebhookResult{}, err
		}
	}
	if ch.URL != nil {
		if next.URL, err = ParseWebhookURL(*ch.URL); err != nil {
			return WebhookResult{}, err
		}
		if err := checkHost(ctx, core, next.URL); err != nil {
			return WebhookResult{}, err
		}
	}
	if ch.Events != nil {
		cat, cerr := core.Catalogue(ctx, false)
		if next.Events, err = CheckWebhookEvents(ch.Events, cat, cerr); err != nil {
			return WebhookResult{}, err
		}
	}
	l, err := core.Client().Webhooks(ctx)
	if err != nil {
		return WebhookResult{}, err
	}
	cur, ok := l.Find(id)
	if !ok {
		return WebhookResult{List: l, Read: true}, &noSuchWebhookError{id: id}
	}
	spec := api.WebhookSpec{Name: cur.Name, URL: cur.URL, Events: cur.Events}
	if ch.Name != nil {
		spec.Name = next.Name
	}
	if ch.URL != nil {
		spec.URL = next.URL
	}
	if ch.Events != nil {
		spec.Events = next.Events
	}
	if spec.Name == cur.Name && spec.URL == cur.URL && slices.Equal(spec.Events, cur.Events) {
		return decide(hookEdit, WebhookResult{List: l, Read: true, Webhook: cur, Found: true, Unchanged: true}, spec, nil)
	}
	res := WebhookResult{}
	err = afterChange(ctx, core, &res, id, core.Client().UpdateWebhook(ctx, id, spec))
	return decide(hookEdit, res, spec, missing(id, err))
}

// DeleteWebhook removes webhook id, then reads the list again: Found
// reports it still listed.
func DeleteWebhook(ctx context.Context, core *billing.Service, id string) (WebhookResult, error) {
	if core.Client() == nil {
		return WebhookResult{}, billing.ErrNoClient
	}
	var res WebhookResult
	err := afterChange(ctx, core, &res, id, core.Client().DeleteWebhook(ctx, id))
	return decide(hookDelete, res, api.WebhookSpec{}, missing(id, err))
}

// RotateWebhookSecret gives webhook id a new signing secret, returned in
// the result (show it: it comes once), then reads the list again.
func RotateWebhookSecret(ctx context.Context, core *billing.Service, id string) (WebhookResult, error) {
	if core.Client() == nil {
		return WebhookResult{}, billing.ErrNoClient
	}
	secret, err := core.Client().RotateWebhookSecret(ctx, id)
	res := WebhookResult{Secret: secret}
	err = afterChange(ctx, core, &res, id, err)
	return decide(hookRotate, res, api.WebhookSpec{}, missing(id, err))
}

// TestWebhook asks for a test delivery to webhook id.
func TestWebhook(ctx context.Context, core *billing.Service, id string) (api.WebhookTest, error) {
	if core.Client() == nil {
		return api.WebhookTest{}, billing.ErrNoClient
	}
	res, err := core.Client().TestWebhook(ctx, id)
	return res, missing(id, err)
}

// TestText says how a test delivery went, in words both front ends show:
// "delivered (HTTP 200)", "not delivered: the endpoint answered HTTP 500".
func TestText(t api.WebhookTest) string {
	var s string
	switch {
	case !t.Known:
		s = "sent: the server accepted the test delivery"
	case t.Delivered:
		s = "delivered"
	default:
		s = "not delivered"
	}
	if t.Status != 0 {
		s += fmt.Sprintf(" (the endpoint answered HTTP %d)", t.Status)
	}
	if t.Msg != "" {
		s += ": " + sanitize.Short(t.Msg, 200)
	}
	return s
}

// EventOf is the catalogue key of a switch's notification type:
// "client:low_credit" for client.low_credit.webhooks.
func EventOf(p api.PrefPath) string { return p[0] + ":" + p[1] }

// Reach is whether any webhook carries an event.
type Reach int

// The answers of WebhookReach.
const (
	ReachUnknown Reach = iota // the list was not read, or entries of it were skipped
	ReachNone                 // no webhook carries it
	ReachSome                 // at least one does
)

// WebhookReach says whether any webhook of the list carries event. A list
// with entries vastdash could not read cannot say "none".
func WebhookReach(l api.WebhookList, event string) Reach {
	for _, w := range l.Webhooks {
		if w.Carries(event) {
			return ReachSome
		}
	}
	if l.Skipped > 0 {
		return ReachUnknown
	}
	return ReachNone
}

// Unheard reports a webhooks switch that is on in prefs while no webhook
// of the list carries its event: the alert is delivered nowhere. read is
// false when the list could not be read (nothing is then claimed).
func Unheard(prefs api.Prefs, l api.WebhookList, read bool, p api.PrefPath) bool {
	if !read || p[2] != "webhooks" {
		return false
	}
	if on, ok := prefs.Get(p); !ok || !on {
		return false
	}
	return WebhookReach(l, EventOf(p)) == ReachNone
}

// WebhookHost is the host a webhook's URL delivers to, sanitized, for a
// list: the part of the URL that must never be cut away. "" when the URL
// cannot be read.
func WebhookHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return sanitize.String(u.Host)
}

// EventName names an event of a webhook by the catalogue ("Low credit"),
// else its key; sanitized and bounded like every alert's name.
func EventName(cat api.NotificationCatalogue, cerr error, event string) string {
	ctx, slug, ok := strings.Cut(event, ":")
	if !ok {
		return showKey(event)
	}
	if cerr == nil {
		if t, found := cat.Find(ctx, slug); found {
			if n := showText(t.DisplayName); n != "" {
				return n
			}
		}
	}
	return showKey(event)
}

// WebhookName names a webhook for a line of text: its name, sanitized and
// bounded like an alert's, else "webhook ID".
func WebhookName(w api.Webhook) string {
	if n := showText(w.Name); n != "" {
		return n
	}
	return "webhook " + w.ID
}
