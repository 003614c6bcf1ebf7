package billing

import (
	"errors"
	"net"
	"net/url"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/sanitize"
)

// Explain says what failed and what to check, in a user's words, the same
// on the command line and on every screen: a server that cannot be reached
// or did not answer in time is named with its host and port (the error
// itself knows only the request, "GET /api/v0/users/current/"), with what
// the user can do about it; a refused key says to sign in again; any other
// error is its own text, which already says what went wrong. The result is sanitized, one line. A nil Service
// explains too, naming "the server".
func (s *Service) Explain(err error) string {
	if err == nil {
		return ""
	}
	text := err.Error()
	var ae *api.Error
	if errors.As(err, &ae) {
		var words string
		switch {
		case errors.Is(ae, api.ErrTransport):
			words = "cannot reach " + s.Server() + transportCause(ae) + " — check the URL (--url / VAST_URL) and the network"
		case errors.Is(ae, api.ErrTimeout):
			words = s.Server() + " did not answer " + ae.Op + " in time — check the network (--timeout sets how long to wait)"
		case errors.Is(ae, api.ErrInvalidKey), errors.Is(ae, api.ErrNotLoggedIn):
			// Asking again cannot help: say what can.
			words = ae.Error() + " — " + SignInAgain
		}
		// The wire's words are replaced where they stand, so what the
		// caller said around them ("the outcome of the save is unknown
		// (…)") stays.
		if wire := ae.Error(); words != "" {
			if i := strings.Index(text, wire); i >= 0 {
				text = text[:i] + words + text[i+len(wire):]
			} else {
				text = words
			}
		}
	}
	return strings.TrimSpace(sanitize.String(text))
}

// transportCause is the last words of a transport error's cause in
// parentheses (" (connection refused)", " (no such host)"), which tell a
// wrong URL from a network down; "" when there is none.
func transportCause(err error) string {
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Err == nil {
		return ""
	}
	text := ae.Err.Error()
	if i := strings.LastIndex(text, ": "); i >= 0 {
		text = text[i+2:]
	}
	text = strings.TrimSpace(sanitize.String(text))
	if text == "" || ansi.StringWidth(text) > 40 {
		return ""
	}
	return " (" + text + ")"
}

// SignInAgain is what to do about a refused key, in both front ends:
// asking again with the same key cannot help. A front end that reads a
// named account puts its --account in (the words as they stand would
// replace the usual key).
const SignInAgain = "sign in again with vastdash auth login; " + KeyInUseHint

// KeyInUseHint ends the words of a refused key: where to see which key
// was sent. auth status, which says it itself, leaves it out.
const KeyInUseHint = "vastdash auth status shows the key in use"

// Server is the host and port the session talks to ("console.vast.ai:443",
// "127.0.0.1:8080"), from the client's base URL, or "the server" when there
// is no client.
func (s *Service) Server() string {
	if s == nil || s.client == nil {
		return "the server"
	}
	u, err := url.Parse(s.client.BaseURL())
	if err != nil || u.Host == "" {
		return "the server"
	}
	host := u.Host
	if u.Port() == "" {
		// The port is part of what to check (a proxy, a firewall): name
		// the one the scheme implies.
		port := "443"
		if u.Scheme == "http" {
			port = "80"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	return sanitize.String(host)
}

// OutcomeUnknown reports a failed write that may have reached the server:
// no complete answer came back, or a 5xx came back after the request was
// sent — a server (or a gateway before it, with an HTML page) that failed
// while or after applying it. Only a read tells what it holds. Every
// write of the features above the core (saves, webhooks, keys, answers)
// reads its failures the same way.
func OutcomeUnknown(err error) bool {
	return errors.Is(err, api.ErrTimeout) || errors.Is(err, api.ErrTransport) || errors.Is(err, api.ErrMalformed) ||
		errors.Is(err, api.ErrServer)
}
