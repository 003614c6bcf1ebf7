package demoserver

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	pathSettings  = "/api/v0/users"
	pathTypes     = "/api/v0/notification-types"
	pathInstances = "/api/v1/instances"
)

// balanceSettings is the part of the account record PUT /api/v0/users/ may
// change; users/current serves it.
type balanceSettings struct {
	threshold int64 // thousandths of a dollar
	enabled   bool
}

// maxThreshold is the largest balance_threshold the demo accepts
// ($1,000,000): larger values are typos, and keeping them far from int64's
// limit keeps the thousandths arithmetic exact.
const maxThreshold = 1_000_000_000

// paceKey identifies one endpoint's pacing budget of one key.
type paceKey struct {
	ki       *keyInfo
	endpoint string
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// paceEndpoint is pace for the endpoints other than charges: each has its
// own interval and its own clock per key, and only accepted requests move
// that clock.
func (s *Server) paceEndpoint(ki *keyInfo, endpoint string, th time.Duration) bool {
	if th <= 0 {
		return true
	}
	now := s.clock()
	k := paceKey{ki: ki, endpoint: endpoint}
	s.mu.Lock()
	defer s.mu.Unlock()
	if last, ok := s.lastCall[k]; ok && now.Sub(last) < th {
		return false
	}
	s.lastCall[k] = now
	return true
}

// BalanceThreshold returns the account's low-balance threshold in
// thousandths of a dollar and whether it is enabled, as users/current
// serves them (50.0 and true until a PUT changes them).
func (s *Server) BalanceThreshold() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.balance.threshold, s.balance.enabled
}

// serveSettings answers PUT /api/v0/users/: a JSON object holding
// balance_threshold (a number of dollars, 0 to 1,000,000, at most three
// decimals) and/or balance_threshold_enabled (a boolean). Any other field
// is refused with 400 rather than ignored: the demo exists to catch a
// client that sends more than it means to change.
func (s *Server) serveSettings(w http.ResponseWriter, r *http.Request, _ string, ki *keyInfo, body []byte) {
	if th := s.opts.SettingsThreshold; !s.paceEndpoint(ki, pathSettings, th) {
		s.write429(w, th)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			writeError(w, http.StatusBadRequest, "invalid_request", "Content-Type must be application/json.")
			return
		}
	}
	s.mu.Lock()
	next := s.balance
	s.mu.Unlock()
	if msg := parseSettings(body, &next); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request", msg)
		return
	}
	s.mu.Lock()
	s.balance = next
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, []byte(`{"success":true}`))
}

// parseSettings applies a PUT body to bs; a non-empty result is the 400
// message and leaves the caller's settings unchanged.
func parseSettings(body []byte, bs *balanceSettings) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "Request body must be a JSON object."
	}
	next := *bs
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "Request body must be a JSON object."
		}
		k, _ := t.(string)
		if seen[k] {
			return "Field " + strconv.Quote(k) + " given twice."
		}
		seen[k] = true
		var v any
		if err := dec.Decode(&v); err != nil {
			return "Request body must be a JSON object."
		}
		switch k {
		case "balance_threshold":
			n, ok := v.(json.Number)
			m, ok2 := parseMills(string(n))
			if !ok || !ok2 || m < 0 || m > maxThreshold {
				return "balance_threshold must be a number of dollars from 0 to 1000000 with at most three decimals."
			}
			next.threshold = m
		case "balance_threshold_enabled":
			b, ok := v.(bool)
			if !ok {
				return "balance_threshold_enabled must be a boolean."
			}
			next.enabled = b
		default:
			return "Unknown field " + strconv.Quote(k) + "; expected only balance_threshold and balance_threshold_enabled."
		}
	}
	if _, err := dec.Token(); err != nil {
		return "Request body must be a JSON object."
	}
	if _, err := dec.Token(); err != io.EOF {
		return "Request body has trailing data."
	}
	if len(seen) == 0 {
		return "Nothing to change."
	}
	*bs = next
	return ""
}

// parseMills reads a plain decimal JSON number ("25", "25.5", "25.125")
// as thousandths; exponents and more than three decimals are refused, so
// the demo never rounds what a client sent.
func parseMills(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > 12 || len(frac) > 3 || strings.ContainsAny(s, "eE+") {
		return 0, false
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, false
	}
	f := int64(0)
	if frac != "" {
		if f, err = strconv.ParseInt(frac+strings.Repeat("0", 3-len(frac)), 10, 64); err != nil {
			return 0, false
		}
	}
	m := w*1000 + f
	if neg {
		m = -m
	}
	return m, true
}
