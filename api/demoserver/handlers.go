package demoserver

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

const (
	pathCharges = "/api/v0/charges"
	pathCurrent = "/api/v0/users/current"
)

// normPath drops one trailing slash: the public docs write paths with it,
// clients often send them without, the real server takes both.
func normPath(p string) string {
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		return p[:len(p)-1]
	}
	return p
}

// prefsUser returns the {id} segment of a notification-prefs path.
func prefsUser(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/api/v0/users/")
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, "/notification-prefs")
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	return id, true
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes the API's error body; code "" omits the error field, as
// the real server does for its filter validation messages.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	b := []byte(`{"success":false`)
	if code != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, code)
	}
	b = append(b, `,"msg":`...)
	b = appendString(b, msg)
	b = append(b, '}')
	writeJSON(w, status, b)
}

// lookupKey parses "Authorization: Bearer <key>". hasAuth reports whether a
// usable header was sent at all; ki is nil for unknown keys.
func (s *Server) lookupKey(r *http.Request) (key string, ki *keyInfo, hasAuth bool) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if h == "" {
		return "", nil, false
	}
	scheme, tok, _ := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if !strings.EqualFold(scheme, "Bearer") || tok == "" {
		// A header that carries no bearer key: treated as a login attempt
		// with an unknown key.
		return "", nil, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return tok, s.keys[tok], true
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "Method "+strconv.Quote(r.Method)+" not allowed.")
}

// route dispatches after faults: path, method, body size, auth, permission.
func (s *Server) route(w http.ResponseWriter, r *http.Request, body []byte, tooBig bool) {
	p := normPath(r.URL.Path)
	var perm string
	var serve handlerFunc
	// One row per fixed path: its method, the permission it needs and its
	// handler. The preferences path carries the user id and is routed below.
	type endpoint struct {
		method, perm string
		serve        func(w http.ResponseWriter, r *http.Request, key string, ki *keyInfo, body []byte)
	}
	fixed := map[string]endpoint{
		pathCharges:   {http.MethodGet, "billing_read", s.serveCharges},
		pathCurrent:   {http.MethodGet, "user_read", s.serveCurrent},
		pathSettings:  {http.MethodPut, "user_write", s.serveSettings},
		pathTypes:     {http.MethodGet, "user_read", s.serveTypes},
		pathInstances: {http.MethodGet, "instance_read", s.serveInstances},
		pathInvoices:  {http.MethodGet, "billing_read", s.serveInvoices},

		pathVolumes:         {http.MethodGet, "instance_read", s.serveVolumes},
		pathEndpointJobs:    {http.MethodGet, "misc", s.serveEndpointJobs},
		pathWorkerGroups:    {http.MethodGet, "misc", s.serveWorkerGroups},
		pathEndpointWorkers: {http.MethodPost, "misc", s.serveEndpointWorkers},
		pathIncreases:       {http.MethodGet, "instance_read", s.serveIncreases},
		pathAccept:          {http.MethodPut, "instance_write", s.serveAnswer},
		pathReject:          {http.MethodPut, "instance_write", s.serveAnswer},
	}
	switch e, ok := fixed[p]; {
	case ok:
		if r.Method != e.method {
			methodNotAllowed(w, r, e.method)
			return
		}
		perm, serve = e.perm, e.serve
	case strings.HasPrefix(p, pathAPIKeys), strings.HasPrefix(p, pathWebhooks):
		var allow string
		var found bool
		route := s.webhookEndpoint
		if strings.HasPrefix(p, pathAPIKeys) {
			route = s.apiKeysEndpoint
		}
		if perm, serve, allow, found = route(p, r.Method); !found {
			writeError(w, http.StatusNotFound, "not_found", "Not found.")
			return
		}
		if serve == nil {
			methodNotAllowed(w, r, allow)
			return
		}
	default:
		if _, ok := prefsUser(p); !ok {
			writeError(w, http.StatusNotFound, "not_found", "Not found.")
			return
		}
		s.mu.Lock()
		noGET := s.prefsNoGET
		s.mu.Unlock()
		switch {
		case r.Method == http.MethodGet && !noGET:
			perm, serve = "user_read", s.servePrefsGET
		case r.Method == http.MethodPut:
			perm, serve = "user_write", s.servePrefsPUT
		case noGET:
			methodNotAllowed(w, r, "PUT")
			return
		default:
			methodNotAllowed(w, r, "GET, PUT")
			return
		}
	}
	if tooBig {
		writeError(w, http.StatusBadRequest, "", "Request body too large (limit 1 MiB).")
		return
	}
	key, ki, hasAuth := s.lookupKey(r)
	if !hasAuth {
		writeError(w, http.StatusForbidden, "auth_error", "This action requires login.")
		return
	}
	s.mu.Lock()
	bad := ki == nil || ki.revoked
	s.mu.Unlock()
	if bad {
		writeError(w, http.StatusNotFound, "auth_error", "Invalid user key")
		return
	}
	if !ki.allows(perm) {
		// The permission is not named: the client knows which one the
		// endpoint needs, as it would have to with the real server.
		writeError(w, http.StatusUnauthorized, "permission_denied", "API key lacks the permission for this action")
		return
	}
	serve(w, r, key, ki, body)
}

func (s *Server) serveCurrent(w http.ResponseWriter, _ *http.Request, key string, _ *keyInfo, _ []byte) {
	d := s.ds()
	str := func(v string, n int64) string {
		if d.hostile {
			return hostile(v, n)
		}
		return v
	}
	b := appendKeyInt([]byte{'{'}, "id", d.userID)
	b = append(b, `,"username":`...)
	b = appendString(b, str("demo", 0))
	b = append(b, `,"fullname":`...)
	b = appendString(b, str("Demo User", 1))
	b = append(b, `,"email":`...)
	b = appendString(b, str("demo@vastdash.example", 2))
	b = append(b, `,"email_verified":true,"credit":`...)
	b = appendAmount(b, d.credit)
	s.mu.Lock()
	bal := s.balance
	s.mu.Unlock()
	b = append(b, `,"balance":0.0,"balance_threshold":`...)
	b = appendAmount(b, bal.threshold)
	b = append(b, `,"balance_threshold_enabled":`...)
	b = strconv.AppendBool(b, bal.enabled)
	b = append(b, `,"billed_verified":true,"has_billing":true,"can_pay":true,"host_only":false`...)
	b = append(b, `,"paypal_email":null,"billaddress_country":"NL","last4":"4242"`...)
	b = append(b, `,"created_at":`...)
	b = strconv.AppendInt(b, d.now-2*365*86400, 10)
	b = append(b, `,"ssh_key":`...)
	b = appendString(b, str("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHZhc3RkYXNoLWRlbW8ta2V5LW5vdC1yZWFs demo@vastdash", 3))
	// The real API echoes the caller's key here; clients must never show it.
	b = append(b, `,"api_key":`...)
	b = appendString(b, key)
	b = append(b, '}')
	writeJSON(w, http.StatusOK, b)
}

func (s *Server) prefsAllowed(w http.ResponseWriter, r *http.Request) bool {
	id, _ := prefsUser(normPath(r.URL.Path))
	if id != strconv.FormatInt(s.ds().userID, 10) {
		writeError(w, http.StatusForbidden, "forbidden", "You can only access your own notification preferences.")
		return false
	}
	return true
}

func (s *Server) writePrefs(w http.ResponseWriter) {
	s.mu.Lock()
	doc, err := json.Marshal(s.prefs)
	s.mu.Unlock()
	if err != nil { // cannot happen: maps of bools only
		writeError(w, http.StatusInternalServerError, "", "internal error")
		return
	}
	b := append([]byte(`{"success":true,"notification_preferences":`), doc...)
	writeJSON(w, http.StatusOK, append(b, '}'))
}

func (s *Server) servePrefsGET(w http.ResponseWriter, r *http.Request, _ string, _ *keyInfo, _ []byte) {
	if s.prefsAllowed(w, r) {
		s.writePrefs(w)
	}
}

func (s *Server) servePrefsPUT(w http.ResponseWriter, r *http.Request, _ string, _ *keyInfo, body []byte) {
	if !s.prefsAllowed(w, r) {
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			writeError(w, http.StatusBadRequest, "invalid_request", "Content-Type must be application/json.")
			return
		}
	}
	doc, msg := parsePrefs(body)
	if msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request", msg)
		return
	}
	s.mu.Lock()
	s.prefs = doc
	s.mu.Unlock()
	s.writePrefs(w)
}

// parsePrefs validates a PUT body: exactly {"notification_preferences": OBJ}
// where OBJ is nested objects of any depth with boolean leaves.
func parsePrefs(body []byte) (map[string]any, string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var top map[string]any
	if err := dec.Decode(&top); err != nil || top == nil {
		return nil, "Request body must be a JSON object."
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, "Request body has trailing data."
	}
	for k := range top {
		if k != "notification_preferences" {
			return nil, "Unknown field " + strconv.Quote(k) + "; expected only notification_preferences."
		}
	}
	doc, ok := top["notification_preferences"].(map[string]any)
	if !ok {
		return nil, "notification_preferences must be an object."
	}
	if path, ok := boolLeaves(doc, "notification_preferences"); !ok {
		return nil, path + " must be a boolean or an object of booleans."
	}
	return doc, ""
}

func boolLeaves(m map[string]any, path string) (string, bool) {
	for k, v := range m {
		switch v := v.(type) {
		case bool:
		case map[string]any:
			if p, ok := boolLeaves(v, path+"."+k); !ok {
				return p, false
			}
		default:
			return path + "." + k, false
		}
	}
	return "", true
}

// Prefs returns a deep copy of the current notification preferences
// document (the value of notification_preferences).
func (s *Server) Prefs() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return deepCopy(s.prefs)
}

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			out[k] = deepCopy(sub)
		} else {
			out[k] = v
		}
	}
	return out
}

func defaultPrefs(hostileMode bool) map[string]any {
	ch := func(email, webhooks bool) map[string]any {
		return map[string]any{"email": email, "webhooks": webhooks}
	}
	doc := map[string]any{
		"client": map[string]any{
			"low_credit":         ch(true, false),
			"instance_status":    ch(true, true),
			"instance_outbid":    ch(true, false),
			"billing_receipt":    ch(true, false),
			"payment_failed":     ch(true, true),
			"credit_transfer":    ch(true, false),
			"serverless_scaling": ch(false, true),
		},
		"host": map[string]any{
			"machine_offline": ch(true, true),
			"payout_sent":     ch(true, false),
			"rental_started":  ch(false, false),
		},
		"marketing": map[string]any{
			"newsletter":      map[string]any{"email": false},
			"product_updates": map[string]any{"email": true},
		},
	}
	if hostileMode {
		doc["client"].(map[string]any)[hostile("spoofed_alert", 1)] = ch(true, false)
		doc[hostile("team", 2)] = map[string]any{hostile("invite", 3): map[string]any{"email": true}}
	}
	return doc
}
