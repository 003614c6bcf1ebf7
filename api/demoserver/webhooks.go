package demoserver

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The webhooks endpoints (api-notes "Webhooks"):
//
//	GET    /api/v0/webhooks                     user_read   the list, {"success":true,"webhooks":[...]}
//	POST   /api/v0/webhooks                     user_write  create: the webhook with its webhook_secret
//	PUT    /api/v0/webhooks/{id}                user_write  change name, webhook_url, event_types
//	DELETE /api/v0/webhooks/{id}                user_write  remove
//	POST   /api/v0/webhooks/{id}/rotate-secret  user_write  {"success":true,"webhook_secret":...}
//	POST   /api/v0/webhooks/{id}/test           user_write  a test delivery (see serveWebhookTest)
//
// All of them share one pacing budget per key (Options.WebhooksThreshold).
// The secret is sent only by create and rotate, never by the list.

const pathWebhooks = "/api/v0/webhooks"

// Bounds the demo enforces, as the notes give them.
const (
	webhookLimit    = 4
	webhookNameMax  = 120
	webhookURLMax   = 2048
	webhookEventMax = 64
)

// WebhookTruth is one webhook as the demo holds it, secret included: the
// ground truth tests compare with.
type WebhookTruth struct {
	ID      int64
	Name    string
	URL     string
	Events  []string
	Created int64 // unix seconds
	Updated int64
	Secret  string
}

// defaultWebhooks are the demo's: one carrying instance and payment
// events, one whose test delivery fails (its host does not resolve).
// Neither carries low_credit, and the webhooks switches of machine_offline
// and serverless_scaling are on: the dashboard has something to warn of.
func defaultWebhooks(now int64) []WebhookTruth {
	return []WebhookTruth{
		{ID: 1, Name: "ops alerts", URL: "https://hooks.example.com/vast/ops",
			Events: []string{"client:instance_status", "client:payment_failed"}, Created: now - 40*86400, Updated: now - 3*86400},
		{ID: 2, Name: "old pager", URL: "https://pager.example.invalid/hook?team=gpu",
			Events: []string{"client:instance_status"}, Created: now - 200*86400, Updated: now - 200*86400},
	}
}

// Webhooks returns a copy of the webhooks the demo holds, secrets
// included, in id order.
func (s *Server) Webhooks() []WebhookTruth {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]WebhookTruth, len(s.webhooks))
	for i, w := range s.webhooks {
		out[i] = w
		out[i].Events = append([]string(nil), w.Events...)
	}
	return out
}

// SetWebhooks replaces the webhooks the demo holds (nil: none). Ids of
// webhooks created later follow the largest one given.
func (s *Server) SetWebhooks(ws []WebhookTruth) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhooks = nil
	for _, w := range ws {
		w.Events = append([]string(nil), w.Events...)
		s.webhooks = append(s.webhooks, w)
		s.nextWebhook = max(s.nextWebhook, w.ID+1)
	}
}

// webhookRoute splits a webhooks path: id "" for the list, action "" for
// the webhook itself, "rotate-secret" or "test".
func webhookRoute(p string) (id, action string, ok bool) {
	if p == pathWebhooks {
		return "", "", true
	}
	rest, found := strings.CutPrefix(p, pathWebhooks+"/")
	if !found || rest == "" {
		return "", "", false
	}
	id, action, _ = strings.Cut(rest, "/")
	if strings.Contains(action, "/") || (action != "" && action != "rotate-secret" && action != "test") {
		return "", "", false
	}
	return id, action, true
}

// webhookEndpoint is the method, permission and handler of a webhooks path
// and method; allow lists the methods when the method is wrong.
func (s *Server) webhookEndpoint(p, method string) (perm string, serve handlerFunc, allow string, ok bool) {
	id, action, ok := webhookRoute(p)
	if !ok {
		return "", nil, "", false
	}
	switch {
	case id == "" && method == http.MethodGet:
		return "user_read", s.serveWebhookList, "", true
	case id == "" && method == http.MethodPost:
		return "user_write", s.serveWebhookCreate, "", true
	case id == "":
		return "", nil, "GET, POST", true
	case action == "" && (method == http.MethodPut || method == http.MethodDelete):
		return "user_write", s.serveWebhookChange, "", true
	case action == "":
		return "", nil, "PUT, DELETE", true
	case method == http.MethodPost:
		return "user_write", s.serveWebhookAction, "", true
	}
	return "", nil, "POST", true
}

type handlerFunc = func(w http.ResponseWriter, r *http.Request, key string, ki *keyInfo, body []byte)

// paceWebhooks is the one budget of every webhooks path; false means it
// answered 429.
func (s *Server) paceWebhooks(w http.ResponseWriter, ki *keyInfo) bool {
	if th := s.opts.WebhooksThreshold; !s.paceEndpoint(ki, pathWebhooks, th) {
		s.write429(w, th)
		return false
	}
	return true
}

func appendWebhook(b []byte, w WebhookTruth, secret bool) []byte {
	b = appendKeyInt(append(b, '{'), "id", w.ID)
	b = append(b, `,"name":`...)
	b = appendString(b, w.Name)
	b = append(b, `,"webhook_url":`...)
	b = appendString(b, w.URL)
	b = append(b, `,"event_types":[`...)
	for i, e := range w.Events {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, e)
	}
	b = append(b, `],"created_at":`...)
	b = strconv.AppendInt(b, w.Created, 10)
	b = append(b, `,"updated_at":`...)
	b = strconv.AppendInt(b, w.Updated, 10)
	if secret {
		b = append(b, `,"webhook_secret":`...)
		b = appendString(b, w.Secret)
	}
	return append(b, '}')
}

func (s *Server) serveWebhookList(w http.ResponseWriter, _ *http.Request, _ string, ki *keyInfo, _ []byte) {
	if !s.paceWebhooks(w, ki) {
		return
	}
	s.mu.Lock()
	b := []byte(`{"success":true,"webhooks":[`)
	for i, wh := range s.webhooks {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendWebhook(b, wh, false)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, append(b, "]}"...))
}

// newSecret is a fresh signing secret: deterministic for a seed, like the
// rest of the demo's data.
func (s *Server) newSecret() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := []byte("whsec_")
	for range 32 {
		b = append(b, alphabet[s.secretRNG.IntN(len(alphabet))])
	}
	return string(b)
}

func (s *Server) serveWebhookCreate(w http.ResponseWriter, r *http.Request, _ string, ki *keyInfo, body []byte) {
	if !s.paceWebhooks(w, ki) || !jsonContent(w, r) {
		return
	}
	spec, msg := parseWebhook(body, true)
	if msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request", msg)
		return
	}
	s.mu.Lock()
	if len(s.webhooks) >= webhookLimit {
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, "webhook_limit", "At most 4 webhooks per user; delete one first.")
		return
	}
	now := s.clock().Unix()
	wh := WebhookTruth{ID: max(s.nextWebhook, 1), Name: *spec.name, URL: *spec.url, Events: spec.events,
		Created: now, Updated: now, Secret: s.newSecret()}
	s.nextWebhook = wh.ID + 1
	s.webhooks = append(s.webhooks, wh)
	s.mu.Unlock()
	b := append([]byte(`{"success":true,"webhook":`), appendWebhook(nil, wh, true)...)
	writeJSON(w, http.StatusCreated, append(b, '}'))
}

// findWebhook is the index of the webhook of path p's id; s.mu held.
func (s *Server) findWebhook(p string) int {
	id, _, _ := webhookRoute(p)
	for i, wh := range s.webhooks {
		if strconv.FormatInt(wh.ID, 10) == id {
			return i
		}
	}
	return -1
}

func (s *Server) serveWebhookChange(w http.ResponseWriter, r *http.Request, _ string, ki *keyInfo, body []byte) {
	if !s.paceWebhooks(w, ki) {
		return
	}
	var spec webhookSpec
	if r.Method == http.MethodPut {
		if !jsonContent(w, r) {
			return
		}
		var msg string
		if spec, msg = parseWebhook(body, false); msg != "" {
			writeError(w, http.StatusBadRequest, "invalid_request", msg)
			return
		}
	}
	s.mu.Lock()
	i := s.findWebhook(normPath(r.URL.Path))
	if i < 0 {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "not_found", "No such webhook.")
		return
	}
	if r.Method == http.MethodDelete {
		s.webhooks = append(s.webhooks[:i], s.webhooks[i+1:]...)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, []byte(`{"success":true}`))
		return
	}
	wh := &s.webhooks[i]
	if spec.name != nil {
		wh.Name = *spec.name
	}
	if spec.url != nil {
		wh.URL = *spec.url
	}
	if spec.events != nil {
		wh.Events = spec.events
	}
	wh.Updated = s.clock().Unix()
	b := append([]byte(`{"success":true,"webhook":`), appendWebhook(nil, *wh, false)...)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, append(b, '}'))
}

// serveWebhookAction answers rotate-secret and test. The demo delivers
// nothing: a test "reaches" any host but those under .invalid (which never
// resolve: no status) and those whose name starts with "fail" (their
// endpoint answers 500).
func (s *Server) serveWebhookAction(w http.ResponseWriter, r *http.Request, _ string, ki *keyInfo, _ []byte) {
	if !s.paceWebhooks(w, ki) {
		return
	}
	p := normPath(r.URL.Path)
	_, action, _ := webhookRoute(p)
	s.mu.Lock()
	i := s.findWebhook(p)
	if i < 0 {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "not_found", "No such webhook.")
		return
	}
	if action == "rotate-secret" {
		s.webhooks[i].Secret = s.newSecret()
		s.webhooks[i].Updated = s.clock().Unix()
		secret := s.webhooks[i].Secret
		s.mu.Unlock()
		b := append([]byte(`{"success":true,"webhook_secret":`), appendString(nil, secret)...)
		writeJSON(w, http.StatusOK, append(b, '}'))
		return
	}
	target := s.webhooks[i].URL
	s.mu.Unlock()
	host := ""
	if u, err := url.Parse(target); err == nil {
		host = u.Hostname()
	}
	switch {
	case strings.HasSuffix(host, ".invalid"):
		b := append([]byte(`{"success":true,"delivered":false,"msg":`), appendString(nil, "could not connect to "+host+": the name does not resolve")...)
		writeJSON(w, http.StatusOK, append(b, '}'))
	case strings.HasPrefix(host, "fail"):
		writeJSON(w, http.StatusOK, []byte(`{"success":true,"delivered":false,"status_code":500,"msg":"the endpoint answered HTTP 500"}`))
	default:
		writeJSON(w, http.StatusOK, []byte(`{"success":true,"delivered":true,"status_code":200}`))
	}
}

// jsonContent refuses a body declared as something other than JSON.
func jsonContent(w http.ResponseWriter, r *http.Request) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			writeError(w, http.StatusBadRequest, "invalid_request", "Content-Type must be application/json.")
			return false
		}
	}
	return true
}

// webhookSpec is a create or update body; nil: not given.
type webhookSpec struct {
	name, url *string
	events    []string
}

// parseWebhook checks a body: an object of name, webhook_url and
// event_types only, each as the notes bound it; a create needs all three.
// A non-empty message is the 400's.
func parseWebhook(body []byte, create bool) (webhookSpec, string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil || top == nil {
		return webhookSpec{}, "Request body must be a JSON object."
	}
	if _, err := dec.Token(); err != io.EOF {
		return webhookSpec{}, "Request body has trailing data."
	}
	var spec webhookSpec
	for k, v := range top {
		switch k {
		case "name":
			var n string
			if json.Unmarshal(v, &n) != nil || strings.TrimSpace(n) == "" || utf8.RuneCountInString(n) > webhookNameMax {
				return webhookSpec{}, "name must be a string of 1 to 120 characters."
			}
			spec.name = &n
		case "webhook_url":
			var u string
			if json.Unmarshal(v, &u) != nil {
				return webhookSpec{}, "webhook_url must be a string."
			}
			if msg := checkTarget(u); msg != "" {
				return webhookSpec{}, msg
			}
			spec.url = &u
		case "event_types":
			if json.Unmarshal(v, &spec.events) != nil || len(spec.events) == 0 || len(spec.events) > webhookEventMax {
				return webhookSpec{}, "event_types must be a list of at least one notification key."
			}
			for _, e := range spec.events {
				if !knownEvent(e) {
					return webhookSpec{}, "Unknown event type " + strconv.Quote(e) + "."
				}
			}
		default:
			return webhookSpec{}, "Unknown field " + strconv.Quote(k) + "; expected name, webhook_url and event_types."
		}
	}
	switch {
	case create && (spec.name == nil || spec.url == nil || spec.events == nil):
		return webhookSpec{}, "name, webhook_url and event_types are required."
	case len(top) == 0:
		return webhookSpec{}, "Nothing to change."
	}
	return spec, ""
}

// checkTarget is the platform's rule for a URL: https, at most 2,048
// characters, no credentials, not a private or loopback address.
func checkTarget(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case utf8.RuneCountInString(raw) > webhookURLMax:
		return "webhook_url is longer than 2048 characters."
	case err != nil || u.Host == "":
		return "webhook_url is not a URL."
	case u.Scheme != "https":
		return "webhook_url must use https."
	case u.User != nil:
		return "webhook_url must not hold credentials."
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "webhook_url must not point at a private or loopback address."
	}
	if ip := net.ParseIP(host); ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()) {
		return "webhook_url must not point at a private or loopback address."
	}
	return ""
}

func knownEvent(e string) bool {
	for _, t := range catalogue {
		if t.context+":"+t.slug == e {
			return true
		}
	}
	return false
}
