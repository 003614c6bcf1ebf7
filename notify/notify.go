// Package notify sends a message to a target given as a shoutrrr URL
// (ntfy, Discord, Slack, Telegram, e-mail over SMTP, Gotify, Matrix, a
// generic webhook …) and names the target without its secrets.
//
// A target URL carries tokens: outside this package it is only ever shown
// as Target.String (the service and, when it is a server's name rather than
// a token, the host), and every error that leaves Send or Parse has the
// URL's parts scrubbed from it, since the libraries below put whole URLs in
// theirs (net/http's `Post "https://…/TOKEN": …`).
//
// The services are linked one by one rather than through shoutrrr's
// router, which links every service it knows: Zulip's package alone
// compiles its expressions at start-up (0.8 ms of every run of vastdash,
// measured with GODEBUG=inittrace=1), for a service few would use here.
package notify

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/discord"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/googlechat"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/matrix"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/mattermost"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/rocketchat"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/slack"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/teams"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/chat/telegram"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/email/smtp"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/push/gotify"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/push/ntfy"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/push/pushbullet"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/push/pushover"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/specialized/generic"
	"github.com/nicholas-fedor/shoutrrr/pkg/types"
)

// services are the shoutrrr services a target may name, by scheme.
var services = map[string]func() types.Service{
	"discord":    func() types.Service { return &discord.Service{} },
	"generic":    func() types.Service { return &generic.Service{} },
	"googlechat": func() types.Service { return &googlechat.Service{} },
	"gotify":     func() types.Service { return &gotify.Service{} },
	"matrix":     func() types.Service { return &matrix.Service{} },
	"mattermost": func() types.Service { return &mattermost.Service{} },
	"ntfy":       func() types.Service { return &ntfy.Service{} },
	"pushbullet": func() types.Service { return &pushbullet.Service{} },
	"pushover":   func() types.Service { return &pushover.Service{} },
	"rocketchat": func() types.Service { return &rocketchat.Service{} },
	"slack":      func() types.Service { return &slack.Service{} },
	"smtp":       func() types.Service { return &smtp.Service{} },
	"teams":      func() types.Service { return &teams.Service{} },
	"telegram":   func() types.Service { return &telegram.Service{} },
}

// serverHost are the services whose URL host is a server's name (shown)
// rather than a token or an id (Discord's webhook id, Pushover's user key,
// Slack's token parts: never shown).
var serverHost = map[string]bool{
	"generic": true, "gotify": true, "matrix": true, "mattermost": true,
	"ntfy": true, "rocketchat": true, "smtp": true,
}

// Services returns the schemes a target may use, sorted.
func Services() []string {
	names := make([]string, 0, len(services))
	for k := range services {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Target is one place messages go: a parsed shoutrrr URL.
type Target struct {
	raw     string
	service string
	host    string
	secrets []string
}

// ErrTarget is the kind of every error Parse returns.
var ErrTarget = errors.New("bad alert target")

// Parse checks a shoutrrr URL: a service this program sends to, and a URL
// that service accepts. The error never holds the URL, only its service
// and host.
func Parse(raw string) (Target, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return Target{}, fmt.Errorf("%w: not a URL like ntfy://ntfy.sh/TOPIC (its text is not shown: it may hold a token)", ErrTarget)
	}
	t := Target{raw: raw, secrets: secretsOf(u)}
	scheme, _, _ := strings.Cut(strings.ToLower(u.Scheme), "+")
	t.service = scheme
	if _, ok := services[scheme]; !ok {
		return Target{}, fmt.Errorf("%w: unknown service %q (known: %s)", ErrTarget, sanitizeScheme(scheme), strings.Join(Services(), ", "))
	}
	if serverHost[scheme] {
		t.host = u.Host
	}
	if _, err := t.service0(); err != nil {
		return Target{}, fmt.Errorf("%w: %s: %s", ErrTarget, t, t.scrub(err.Error()))
	}
	return t, nil
}

// sanitizeScheme keeps a scheme printable and short for an error.
func sanitizeScheme(s string) string {
	if len(s) > 20 {
		s = s[:20] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// String is the target as it may be shown: "ntfy ntfy.sh", "discord".
func (t Target) String() string {
	if t.host == "" {
		return t.service
	}
	return t.service + " " + t.host
}

// Service is the target's service: "ntfy", "discord", "smtp" …
func (t Target) Service() string { return t.service }

// ID tells targets apart in a state file without their secrets: the
// name as shown and a short digest of the whole URL (two ntfy topics on
// one server are two targets).
func (t Target) ID() string {
	sum := sha256.Sum256([]byte(t.raw))
	return t.String() + " #" + hex.EncodeToString(sum[:4])
}

// service0 makes the target's service, initialized from its URL.
func (t Target) service0() (types.Service, error) {
	u, err := url.Parse(t.raw)
	if err != nil {
		return nil, err
	}
	svc := services[t.service]()
	if u.Scheme != t.service {
		custom, ok := svc.(types.CustomURLService)
		if !ok {
			return nil, errors.New("this service takes no custom URL (" + t.service + "+…)")
		}
		if u, err = custom.GetConfigURLFromCustom(u); err != nil {
			return nil, err
		}
	}
	if err := svc.Initialize(u, nil); err != nil {
		return nil, err
	}
	return svc, nil
}

// Timeout bounds one delivery: the libraries below have no context, and
// some (the generic webhook) no timeout of their own.
const Timeout = 15 * time.Second

// sendClient is the HTTP client of a service that takes one (ntfy): it
// gives up before Send does, so the send's goroutine ends with it, and
// keeps no connection alive — the service's own made a transport for each
// target whose idle connection outlived the send (two goroutines an
// alert, for as long as serve runs). The other services' clients are
// their own (shoutrrr offers no way in): most time out on their own.
func sendClient(insecure bool) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableKeepAlives = true
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: insecure} //nolint:gosec // the URL's own choice (ntfy's disabletlsverification)
	return &http.Client{Timeout: Timeout - 2*time.Second, Transport: tr}
}

// Message is what is sent: a title (where the service has one) and a
// body.
type Message struct {
	Title, Body string
}

// Send delivers m to t, giving up at ctx's end or after Timeout. The error
// is scrubbed of the target's secrets.
func (t Target) Send(ctx context.Context, m Message) error {
	svc, err := t.service0()
	if err != nil {
		return errors.New(t.scrub(err.Error()))
	}
	params := types.Params{}
	if m.Title != "" {
		params.SetTitle(m.Title)
	}
	if n, ok := svc.(*ntfy.Service); ok {
		n.SetHTTPClient(sendClient(n.Config.DisableTLSVerification))
	}
	done := make(chan error, 1)
	go func() { done <- svc.Send(m.Body, &params) }()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = errors.New("no answer in time")
	}
	if err != nil {
		return errors.New(t.scrub(err.Error()))
	}
	return nil
}

// secretsOf lists the parts of u that may be secrets, longest first (so
// a token is not scrubbed in part by a shorter one within it).
func secretsOf(u *url.URL) []string {
	var s []string
	add := func(v string) {
		if len(v) >= 3 {
			s = append(s, v, url.PathEscape(v), url.QueryEscape(v))
		}
	}
	if u.User != nil {
		add(u.User.Username())
		p, _ := u.User.Password()
		add(p)
	}
	add(u.Hostname())
	for seg := range strings.SplitSeq(u.Path, "/") {
		add(seg)
	}
	add(u.Path)
	add(u.RawPath)
	add(u.Opaque)
	add(u.RawQuery)
	for _, vs := range u.Query() {
		for _, v := range vs {
			if !plainValue[strings.ToLower(v)] {
				add(v)
			}
		}
	}
	add(u.Fragment)
	slices.SortFunc(s, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(s)
}

// plainValue are option values no one would call a secret; scrubbing
// them would garble every error ("http" in "…://host").
var plainValue = map[string]bool{"http": true, "https": true, "yes": true, "no": true, "true": true,
	"false": true, "none": true, "auto": true, "plain": true}

// urlRe finds URLs in a library's error text; compiled at the first
// error, not at every start of vastdash.
var urlRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"']+`) })

// scrub removes from text every URL (leaving its scheme and host when the
// host is not a secret) and every part of the target's URL that may be a
// secret, then keeps it on one short line.
func (t Target) scrub(text string) string {
	text = urlRe().ReplaceAllStringFunc(text, func(s string) string {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return "<url>"
		}
		if !slices.Contains(t.secrets, u.Hostname()) || t.host != "" {
			return u.Scheme + "://" + u.Host + "/…"
		}
		return u.Scheme + "://…"
	})
	for _, s := range t.secrets {
		if t.host != "" && (s == t.host || s == strings.Split(t.host, ":")[0]) {
			continue // the host is shown anyway
		}
		text = strings.ReplaceAll(text, s, "…")
	}
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > 300 {
		text = string(r[:300]) + "…"
	}
	return text
}
