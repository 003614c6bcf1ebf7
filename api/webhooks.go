package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The webhooks endpoints (api-notes "Webhooks"): where the account's
// notifications are delivered when a preference's webhooks channel is on.
// The list does not page: the platform keeps at most four per account.

// WebhooksPath is GET|POST /api/v0/webhooks/; one webhook is
// WebhooksPath + "{id}/", its secret rotated at …/{id}/rotate-secret/ and a
// test delivery sent at …/{id}/test/. Every one of them shares one pacing
// budget, keyed by this path.
const WebhooksPath = "/api/v0/webhooks/"

// DefaultWebhooksThreshold is the minimum interval between webhook calls.
// The notes name none for these endpoints; 2 s is the interval of the
// account's other settings-like endpoints (API keys, the catalogue), and a
// user manages webhooks a few clicks at a time.
const DefaultWebhooksThreshold = 2 * time.Second

// Bounds of what the webhooks endpoints send and take.
const (
	// MaxWebhooks is how many webhooks a list keeps; the rest are counted
	// in Skipped. The platform allows 4; a list far beyond is a broken
	// server.
	MaxWebhooks = 64
	// MaxWebhookName is the platform's bound on a name, in characters.
	MaxWebhookName = 120
	// MaxWebhookURL is the platform's bound on a URL, in characters.
	MaxWebhookURL = 2048
	// MaxWebhookEvents bounds the events of one webhook: the catalogue has
	// a few dozen types; an entry with more is skipped.
	MaxWebhookEvents = 64
	// maxWireURL bounds a URL the server sends, in bytes: four bytes for
	// each of the platform's characters. A longer one is not a webhook the
	// platform made: the entry is skipped.
	maxWireURL = 4 * MaxWebhookURL
	// maxWireName bounds a name the server sends, in bytes: it is cut.
	maxWireName = 4 * MaxWebhookName
	// maxWebhookID bounds an identifier: it goes into a path.
	maxWebhookID = 64
	// maxSecret bounds a signing secret, in bytes.
	maxSecret = 512
	// maxTestText bounds what a test delivery's answer says.
	maxTestText = 200
)

// Webhook is one registered webhook as the server holds it. Its strings
// are bounded, not sanitized: a front end sanitizes what it shows.
type Webhook struct {
	// ID names the webhook in its paths: digits, or letters, digits, '-'
	// and '_' (at most 64), as CheckWebhookID accepts.
	ID   string
	Name string // cut to 480 bytes; may be empty
	URL  string // as sent, at most 8 KiB
	// Events are the notification keys it carries ("client:low_credit"),
	// in the server's order, each once.
	Events []string
	// Changed is when it was last changed (updated_at, else created_at);
	// zero when the server did not say or said something implausible.
	Changed time.Time
}

// Carries reports whether the webhook delivers event.
func (w Webhook) Carries(event string) bool {
	for _, e := range w.Events {
		if e == event {
			return true
		}
	}
	return false
}

// WebhookList is the account's webhooks.
type WebhookList struct {
	Webhooks []Webhook // in the server's order
	// Skipped counts entries dropped: malformed ones (a field of the wrong
	// type, no usable id or URL, an event that is not a key, too many
	// events), repeats of an id already listed, and those beyond
	// MaxWebhooks. A list with skipped entries cannot say that no webhook
	// carries an event.
	Skipped int
}

// Find returns the webhook with id.
func (l WebhookList) Find(id string) (Webhook, bool) {
	for _, w := range l.Webhooks {
		if w.ID == id {
			return w, true
		}
	}
	return Webhook{}, false
}

// WebhookSpec is what a create or an update sends: the whole record.
type WebhookSpec struct {
	Name   string
	URL    string
	Events []string
}

// WebhookSecret is a webhook's signing secret, which the server sends only
// on create and on rotate. Every way of printing or serialising it (fmt
// with any verb, JSON, text, slog) gives "[redacted]"; only Reveal returns
// it, for the one place that shows it. It holds the secret in a closure,
// so even a struct holding one in an unexported field prints no secret.
type WebhookSecret struct{ v func() string }

func newWebhookSecret(s string) WebhookSecret { return WebhookSecret{v: func() string { return s }} }

// Reveal returns the secret itself ("" for none).
func (s WebhookSecret) Reveal() string {
	if s.v == nil {
		return ""
	}
	return s.v()
}

// IsZero reports that there is no secret.
func (s WebhookSecret) IsZero() bool { return s.v == nil }

// String implements fmt.Stringer: "[redacted]".
func (s WebhookSecret) String() string { return redacted }

// GoString implements fmt.GoStringer: "[redacted]".
func (s WebhookSecret) GoString() string { return redacted }

// Format prints "[redacted]" for every verb.
func (s WebhookSecret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalText implements encoding.TextMarshaler: "[redacted]".
func (s WebhookSecret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// MarshalJSON implements json.Marshaler: the string "[redacted]".
func (s WebhookSecret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// LogValue implements slog.LogValuer: "[redacted]".
func (s WebhookSecret) LogValue() slog.Value { return slog.StringValue(redacted) }

// WebhookTest is the outcome of a test delivery.
type WebhookTest struct {
	// Known is set when the answer said how the delivery went; without
	// it the server only accepted the request.
	Known bool
	// Delivered: the webhook's endpoint took the delivery (a 2xx).
	Delivered bool
	// Status is the endpoint's HTTP status, 0 when not said.
	Status int
	// Msg is what the server said about it, sanitized, at most 200
	// characters; may be empty.
	Msg string
}

// CheckWebhookID refuses an id that cannot be one of a webhook's: empty,
// longer than 64, or holding anything but letters, digits, '-' and '_'
// (it goes into a path as it is). The error does not quote id.
func CheckWebhookID(id string) error {
	if id == "" {
		return fmt.Errorf("a webhook id is needed")
	}
	if len(id) > maxWebhookID {
		return fmt.Errorf("a webhook id is at most %d characters", maxWebhookID)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return fmt.Errorf("a webhook id holds only letters, digits, - and _")
		}
	}
	return nil
}

func webhookPath(id, action string) string {
	p := WebhooksPath + id + "/"
	if action != "" {
		p += action + "/"
	}
	return p
}

// Webhooks lists the account's webhooks (GET /api/v0/webhooks/). The
// answer may be a bare list or an object holding it as webhooks or
// results; any other shape is ErrMalformed naming the endpoint, never an
// empty list. Needs user_read; paced (DefaultWebhooksThreshold).
func (c *Client) Webhooks(ctx context.Context) (WebhookList, error) {
	cl := call{method: http.MethodGet, path: WebhooksPath, perm: "user_read", pacer: c.endpointPacer(WebhooksPath)}
	return doDecode(ctx, c, cl, func(op, perm string, body []byte) (WebhookList, error) {
		return c.decodeWebhooks(op, perm, body, time.Now())
	})
}

// CreateWebhook registers a webhook (POST /api/v0/webhooks/) and returns
// it with its signing secret, which the server sends only now. The secret
// may come back with an error (an answer that holds it but no usable
// webhook): the server made the webhook, and this is the secret's only
// copy. A lost connection is not retried once the request was sent: the
// server may have made it. Needs user_write.
func (c *Client) CreateWebhook(ctx context.Context, spec WebhookSpec) (Webhook, WebhookSecret, error) {
	cl := call{method: http.MethodPost, path: WebhooksPath, perm: "user_write", once: true, pacer: c.endpointPacer(WebhooksPath)}
	body, err := specBody(cl.op(), spec)
	if err != nil {
		return Webhook{}, WebhookSecret{}, err
	}
	cl.body = body
	ans, err := c.do(ctx, cl)
	if err != nil {
		return Webhook{}, WebhookSecret{}, err
	}
	return c.decodeWebhookAnswer(cl.op(), cl.perm, ans, true)
}

// UpdateWebhook replaces webhook id's name, URL and events with spec's
// (PUT /api/v0/webhooks/{id}/). The answer's shape is undocumented: any
// 2xx whose body is empty or JSON without success:false counts as done;
// read the list afterwards to learn what the server holds. Needs
// user_write.
func (c *Client) UpdateWebhook(ctx context.Context, id string, spec WebhookSpec) error {
	cl := call{method: http.MethodPut, path: webhookPath(id, ""), perm: "user_write", pacer: c.endpointPacer(WebhooksPath)}
	if err := CheckWebhookID(id); err != nil {
		return usageErr(http.MethodPut+" "+WebhooksPath+"{id}/", err.Error())
	}
	body, err := specBody(cl.op(), spec)
	if err != nil {
		return err
	}
	cl.body = body
	ans, err := c.do(ctx, cl)
	if err != nil {
		return err
	}
	return c.checkUpdated(cl.op(), cl.perm, ans)
}

// DeleteWebhook removes webhook id (DELETE /api/v0/webhooks/{id}/). A lost
// connection is not retried once the request was sent: a repeat would
// answer 404 for a webhook just deleted. Needs user_write.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	if err := CheckWebhookID(id); err != nil {
		return usageErr(http.MethodDelete+" "+WebhooksPath+"{id}/", err.Error())
	}
	cl := call{method: http.MethodDelete, path: webhookPath(id, ""), perm: "user_write", once: true, pacer: c.endpointPacer(WebhooksPath)}
	ans, err := c.do(ctx, cl)
	if err != nil {
		return err
	}
	return c.checkUpdated(cl.op(), cl.perm, ans)
}

// RotateWebhookSecret gives webhook id a new signing secret
// (POST /api/v0/webhooks/{id}/rotate-secret/) and returns it: the old one
// stops working. An answer without a usable webhook_secret is
// ErrMalformed; the secret may have changed all the same. Not retried
// after a lost connection once sent. Needs user_write.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (WebhookSecret, error) {
	if err := CheckWebhookID(id); err != nil {
		return WebhookSecret{}, usageErr(http.MethodPost+" "+WebhooksPath+"{id}/rotate-secret/", err.Error())
	}
	cl := call{method: http.MethodPost, path: webhookPath(id, "rotate-secret"), perm: "user_write", once: true, pacer: c.endpointPacer(WebhooksPath)}
	ans, err := c.do(ctx, cl)
	if err != nil {
		return WebhookSecret{}, err
	}
	_, secret, err := c.decodeWebhookAnswer(cl.op(), cl.perm, ans, false)
	if err == nil && secret.IsZero() {
		err = malformedMsg(cl.op(), "the response holds no webhook_secret")
	}
	return secret, err
}

// TestWebhook asks the server to send webhook id a test delivery
// (POST /api/v0/webhooks/{id}/test/) and reports how it went, as far as
// the answer says (its shape is undocumented: delivered, status_code and
// msg are read when present). A success:false answer is the error it
// describes. Not retried after a lost connection once sent. Needs
// user_write.
func (c *Client) TestWebhook(ctx context.Context, id string) (WebhookTest, error) {
	if err := CheckWebhookID(id); err != nil {
		return WebhookTest{}, usageErr(http.MethodPost+" "+WebhooksPath+"{id}/test/", err.Error())
	}
	cl := call{method: http.MethodPost, path: webhookPath(id, "test"), perm: "user_write", once: true, pacer: c.endpointPacer(WebhooksPath)}
	return doDecode(ctx, c, cl, c.decodeWebhookTest)
}

// specBody checks spec as far as the wire goes (the domain's rules are
// billing's) and encodes it.
func specBody(op string, spec WebhookSpec) ([]byte, error) {
	switch {
	case utf8.RuneCountInString(spec.Name) > MaxWebhookName:
		return nil, usageErr(op, fmt.Sprintf("a webhook name is at most %d characters", MaxWebhookName))
	case spec.URL == "":
		return nil, usageErr(op, "a webhook needs a URL")
	case utf8.RuneCountInString(spec.URL) > MaxWebhookURL:
		return nil, usageErr(op, fmt.Sprintf("a webhook URL is at most %d characters", MaxWebhookURL))
	case len(spec.Events) == 0:
		return nil, usageErr(op, "a webhook needs at least one event")
	case len(spec.Events) > MaxWebhookEvents:
		return nil, usageErr(op, fmt.Sprintf("a webhook carries at most %d events", MaxWebhookEvents))
	}
	for _, e := range spec.Events {
		if e == "" || len(e) > maxTypeIdent {
			return nil, usageErr(op, "an event is a notification key such as client:low_credit")
		}
	}
	b, err := json.Marshal(struct {
		Name   string   `json:"name"`
		URL    string   `json:"webhook_url"`
		Events []string `json:"event_types"`
	}{spec.Name, spec.URL, spec.Events})
	if err != nil {
		return nil, usageErr(op, "the webhook cannot be encoded")
	}
	return b, nil
}

// wireWebhook is one webhook as sent. Raw fields take any value, so a bad
// one costs only its entry.
type wireWebhook struct {
	ID      json.RawMessage `json:"id"`
	Name    json.RawMessage `json:"name"`
	URL     json.RawMessage `json:"webhook_url"`
	Events  json.RawMessage `json:"event_types"`
	Updated json.RawMessage `json:"updated_at"`
	Created json.RawMessage `json:"created_at"`
}

// decodeWebhooks decodes a list answer: a bare list, or an object whose
// webhooks (else results) member is the list; now bounds the times.
func (c *Client) decodeWebhooks(op, perm string, body []byte, now time.Time) (WebhookList, error) {
	t := bytes.TrimSpace(body)
	var list json.RawMessage
	field := "webhooks"
	switch {
	case len(t) > 0 && t[0] == '[':
		if !json.Valid(t) {
			return WebhookList{}, malformedMsg(op, "the response is not valid JSON")
		}
		list = t
	default:
		var env struct {
			Success  json.RawMessage `json:"success"`
			Webhooks json.RawMessage `json:"webhooks"`
			Results  json.RawMessage `json:"results"`
		}
		if err := decodeEnvelope(op, body, &env); err != nil {
			return WebhookList{}, err
		}
		if e := c.refusedOK(op, perm, env.Success, body); e != nil {
			return WebhookList{}, e
		}
		list = env.Webhooks
		if len(list) == 0 || isNull(list) {
			list, field = env.Results, "results"
		}
		if len(list) == 0 || isNull(list) {
			return WebhookList{}, malformedMsg(op, "the response holds no list of webhooks (webhooks or results)")
		}
	}
	seen := map[string]bool{}
	var (
		l   WebhookList
		err error
	)
	l.Webhooks, l.Skipped, err = decodeList(op, list, field, MaxWebhooks, func(raw json.RawMessage) (Webhook, bool) {
		w, ok := webhookEntry(raw, now)
		if !ok || seen[w.ID] {
			return Webhook{}, false
		}
		seen[w.ID] = true
		return w, true
	})
	if err != nil {
		return WebhookList{}, err
	}
	return l, nil
}

// webhookEntry converts one entry; ok is false when it must be skipped.
func webhookEntry(raw json.RawMessage, now time.Time) (Webhook, bool) {
	var w wireWebhook
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &w) != nil {
		return Webhook{}, false
	}
	id, ok := webhookID(w.ID)
	if !ok {
		return Webhook{}, false
	}
	var name, u string
	if !optString(w.Name, &name) || !optString(w.URL, &u) || u == "" || len(u) > maxWireURL {
		return Webhook{}, false
	}
	var events []string
	if json.Unmarshal(w.Events, &events) != nil || len(events) > MaxWebhookEvents {
		return Webhook{}, false
	}
	out := Webhook{ID: id, Name: cutString(name, maxWireName), URL: u}
	for _, e := range events {
		if e == "" || len(e) > maxTypeIdent {
			return Webhook{}, false
		}
		if !out.Carries(e) {
			out.Events = append(out.Events, e)
		}
	}
	out.Changed = wireTime(w.Updated, now)
	if out.Changed.IsZero() {
		out.Changed = wireTime(w.Created, now)
	}
	return out, true
}

// webhookID reads an id: an integral number, or a string CheckWebhookID
// accepts.
func webhookID(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || isNull(raw) {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil || CheckWebhookID(s) != nil {
			return "", false
		}
		return s, true
	}
	var n wireID
	if json.Unmarshal(raw, &n) != nil || n <= 0 {
		return "", false
	}
	return strconv.FormatInt(int64(n), 10), true
}

// optString reads a string member that may be absent or null ("" then);
// false for any other type.
func optString(raw json.RawMessage, s *string) bool {
	if len(raw) == 0 || isNull(raw) {
		*s = ""
		return true
	}
	return raw[0] == '"' && json.Unmarshal(raw, s) == nil
}

// wireTime reads a time as unix seconds (a number) or an RFC 3339 string
// (a space for the T, and no zone meaning UTC, as Django writes them);
// zero for anything else, or a time before 2015 or over two days ahead of
// now.
func wireTime(raw json.RawMessage, now time.Time) time.Time {
	if len(raw) == 0 || isNull(raw) {
		return time.Time{}
	}
	var t time.Time
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil || len(s) > 64 {
			return time.Time{}
		}
		s = strings.Replace(s, " ", "T", 1)
		var err error
		if t, err = time.Parse(time.RFC3339Nano, s); err != nil {
			if t, err = time.Parse("2006-01-02T15:04:05.999999999", s); err != nil {
				return time.Time{}
			}
		}
	} else {
		f, err := parseNumber(raw)
		if err != nil || math.IsInf(f, 0) || f > math.MaxInt32*4 {
			return time.Time{}
		}
		t = time.Unix(int64(f), 0)
	}
	if t.Unix() < minStartDate || t.After(now.Add(startDateSlack*time.Second)) {
		return time.Time{}
	}
	return t.UTC()
}

// decodeWebhookAnswer reads the answer to a create (want: a webhook) or a
// rotate: an object that is the webhook, or holds it as webhook; the
// secret is webhook_secret in either. A secret that is not printable ASCII
// of at most 512 bytes is ErrMalformed: shown cleaned, it would not be the
// secret.
func (c *Client) decodeWebhookAnswer(op, perm string, body []byte, want bool) (Webhook, WebhookSecret, error) {
	var env struct {
		Success json.RawMessage `json:"success"`
		Webhook json.RawMessage `json:"webhook"`
		Secret  json.RawMessage `json:"webhook_secret"`
	}
	if err := decodeEnvelope(op, body, &env); err != nil {
		return Webhook{}, WebhookSecret{}, err
	}
	if e := c.refusedOK(op, perm, env.Success, body); e != nil {
		return Webhook{}, WebhookSecret{}, e
	}
	obj := json.RawMessage(bytes.TrimSpace(body))
	if len(env.Webhook) > 0 && env.Webhook[0] == '{' {
		obj = env.Webhook
		if len(env.Secret) == 0 || isNull(env.Secret) {
			var inner struct {
				Secret json.RawMessage `json:"webhook_secret"`
			}
			_ = json.Unmarshal(obj, &inner) // an object; RawMessage takes any value
			env.Secret = inner.Secret
		}
	}
	var secret WebhookSecret
	if len(env.Secret) > 0 && !isNull(env.Secret) {
		var s string
		if json.Unmarshal(env.Secret, &s) != nil || !printableSecret(s) {
			return Webhook{}, WebhookSecret{}, malformedMsg(op, "the webhook_secret is not a printable secret")
		}
		// Server text that quotes it later (a test delivery's message,
		// an error body) must not show it.
		c.learnSecret(s)
		secret = newWebhookSecret(s)
	}
	if !want {
		return Webhook{}, secret, nil
	}
	w, ok := webhookEntry(obj, time.Now())
	if !ok {
		return Webhook{}, secret, malformedMsg(op, "the response holds no readable webhook")
	}
	return w, secret, nil
}

// printableSecret reports 1 to 512 bytes of printable ASCII without
// spaces: what can be shown and pasted as it is.
func printableSecret(s string) bool {
	if s == "" || len(s) > maxSecret {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// decodeWebhookTest reads a test delivery's answer: empty (accepted), or
// an object whose delivered, status_code (or response_status) and msg
// (or message, detail, error) say how it went.
func (c *Client) decodeWebhookTest(op, perm string, body []byte) (WebhookTest, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return WebhookTest{}, nil
	}
	var env struct {
		Success   json.RawMessage `json:"success"`
		Delivered json.RawMessage `json:"delivered"`
		Status    json.RawMessage `json:"status_code"`
		Response  json.RawMessage `json:"response_status"`
	}
	if err := decodeEnvelope(op, body, &env); err != nil {
		return WebhookTest{}, err
	}
	if e := c.refusedOK(op, perm, env.Success, body); e != nil {
		return WebhookTest{}, e
	}
	var res WebhookTest
	_, res.Msg = c.parseErrorBody(body)
	if res.Msg == "" {
		// {"error": "connection refused"}: the code field is the words.
		code, _ := c.parseErrorBody(body)
		res.Msg = code
	}
	res.Msg = strings.TrimSpace(cutString(res.Msg, maxTestText))
	status := env.Status
	if len(status) == 0 || isNull(status) {
		status = env.Response
	}
	if len(status) > 0 && !isNull(status) {
		var n wireID
		if json.Unmarshal(status, &n) != nil || n < 100 || n > 599 {
			return WebhookTest{}, malformedMsg(op, "the field status_code is not an HTTP status")
		}
		res.Known, res.Status = true, int(n)
		res.Delivered = n >= 200 && n < 300
	}
	if len(env.Delivered) > 0 && !isNull(env.Delivered) {
		var d wireBool
		if json.Unmarshal(env.Delivered, &d) != nil {
			return WebhookTest{}, malformedMsg(op, "the field delivered is not true or false")
		}
		res.Known, res.Delivered = true, bool(d)
	}
	return res, nil
}
