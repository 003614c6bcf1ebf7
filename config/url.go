package config

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// DefaultURL is the production API host, used when neither --url nor
// VAST_URL is set.
const DefaultURL = "https://console.vast.ai"

// EnvURL is the environment variable the official CLI reads the base URL from.
const EnvURL = "VAST_URL"

// ResolveURL returns the API base URL: flagURL (the --url flag) if not empty,
// else $VAST_URL, else [DefaultURL], without trailing slashes.
//
// The URL must be an absolute http or https URL with a host and no user
// info, query or fragment, else [ErrBadURL]. Plain http is accepted only for
// loopback hosts (localhost, 127.0.0.0/8, ::1), for local test servers;
// anywhere else it would expose the key, so it is [ErrInsecureURL].
func ResolveURL(env Env, flagURL string) (string, error) {
	raw, from := strings.TrimSpace(flagURL), "--url"
	if raw == "" {
		raw, from = strings.TrimSpace(env.getenv(EnvURL)), EnvURL
	}
	if raw == "" {
		return DefaultURL, nil
	}
	return checkURL(raw, from)
}

// checkURL is ResolveURL's check of raw, which came from "from" (a flag, a
// variable, a setting), named in its errors.
func checkURL(raw, from string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || u.User != nil {
		// Do not echo the value: it may carry a password in its user info,
		// and url.Parse errors repeat it too.
		return "", newError(ErrBadURL, fmt.Sprintf("bad %s: must be an absolute http:// or https:// URL with a host and no user name or password, e.g. %s", from, DefaultURL))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return "", newError(ErrBadURL, fmt.Sprintf("bad %s %s: must be an absolute http:// or https:// URL with a host, e.g. %s", from, quoteValue(raw), DefaultURL))
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", newError(ErrBadURL, fmt.Sprintf("bad %s %s: must not contain a query or fragment", from, quoteValue(raw)))
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return "", newError(ErrInsecureURL, fmt.Sprintf("refusing to send the API key over plain http to %s; use https", printable(u.Hostname())))
	}
	return u.String(), nil
}

// quoteValue quotes a user-supplied value for a message, shortening it so
// a pasted blob cannot flood the line.
func quoteValue(s string) string {
	const max = 80
	if len(s) > max {
		s = s[:max] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// isLoopback reports whether host certainly names this machine. Names other
// than "localhost" are not resolved: what they point at could change.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return ip.Unmap().IsLoopback()
}

// IsDefaultURL reports whether base is the production URL, so the UI only
// shows the host when the user pointed vastdash somewhere else.
func IsDefaultURL(base string) bool {
	return strings.TrimRight(base, "/") == DefaultURL
}
