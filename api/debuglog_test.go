package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/sanitize"
)

func TestDebugTransportRedacts(t *testing.T) {
	const key = "CANARY-debug-key-31337"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id": 7, "email": "a@b.c", "credit": 12.5, "api_key": "` + key + `", "note": "echo ` + key + ` \u001b]0;x\u0007"}`))
	}))
	defer srv.Close()
	var log bytes.Buffer
	hc := &http.Client{Transport: DebugTransport(nil, &log)}
	c, err := New(srv.URL, key, WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.CurrentUser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != 7 || u.Credit != 12500 {
		t.Fatalf("the logged body no longer decodes: %+v", u)
	}
	out := log.String()
	if strings.Contains(out, key) || strings.Contains(out, "CANARY") {
		t.Fatalf("the key reached the debug log:\n%s", out)
	}
	for _, want := range []string{"--> ", "GET " + srv.URL + "/api/v0/users/current/", "<-- 200 OK", "Authorization: [redacted]", `"api_key":"[redacted]"`} {
		if !strings.Contains(out, want) {
			t.Errorf("debug log lacks %q:\n%s", want, out)
		}
	}
}

func TestDebugTransportEscapesControls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("<html>\x1b]0;pwned\x07\x1b[2J</html>"))
	}))
	defer srv.Close()
	var log bytes.Buffer
	c, _ := New(srv.URL, "k3y-xyz", WithHTTPClient(&http.Client{Transport: DebugTransport(nil, &log)}))
	if _, err := c.CurrentUser(context.Background()); err == nil {
		t.Fatal("a 500 succeeded")
	}
	out := log.String()
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
		t.Fatalf("a raw control character reached the debug log:\n%q", out)
	}
	if !strings.Contains(out, `\x1b]0;pwned\x07`) {
		t.Fatalf("the escaped body is missing:\n%s", out)
	}
}

func TestDebugTransportLogsPutBodyAndErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"success": true, "notification_preferences": {"client": {"low_credit": {"email": false}}}}`))
	}))
	var log bytes.Buffer
	hc := &http.Client{Transport: DebugTransport(nil, &log)}
	c, _ := New(srv.URL, "k3y-xyz", WithHTTPClient(hc))
	p := NewPrefs(map[string]any{"client": map[string]any{"low_credit": map[string]any{"email": true}}})
	if _, err := c.SetNotificationPrefs(context.Background(), 1, mustWith(t, p, LowCreditEmail, false)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), `{"notification_preferences":{"client":{"low_credit":{"email":false}}}}`) {
		t.Fatalf("PUT body not logged:\n%s", log.String())
	}
	srv.Close()
	_, _ = c.CurrentUser(context.Background())
	if !strings.Contains(log.String(), "<-- error after") {
		t.Fatalf("transport error not logged:\n%s", log.String())
	}
}

// debugKey is a realistic (hex) key for the tests below; its first eight
// characters must never reach a log.
const debugKey = "4f1c2a9be07d35c86b19f2e4a0d7c3b58e61f9a2c4d07b3e5f18a6c92d4e7b01"

// debugRT answers every request with the response it builds, so a test can
// send what no net/http server would: any reason phrase, any header bytes.
type debugRT func(*http.Request) *http.Response

func (f debugRT) RoundTrip(r *http.Request) (*http.Response, error) { return f(r), nil }

// debugExchange sends one request (a PUT when reqBody is non-nil) through
// DebugTransport to a fake server that answers status, header and respBody.
// It returns the log and checks that the caller still reads respBody whole.
func debugExchange(tb testing.TB, status string, header http.Header, reqBody, respBody []byte) string {
	tb.Helper()
	var log bytes.Buffer
	next := debugRT(func(r *http.Request) *http.Response {
		if header == nil {
			header = http.Header{}
		}
		return &http.Response{Status: status, StatusCode: 200, Header: header, Body: io.NopCloser(bytes.NewReader(respBody)), Request: r}
	})
	method, body := http.MethodGet, io.Reader(nil)
	if reqBody != nil {
		method, body = http.MethodPut, bytes.NewReader(reqBody)
	}
	req, err := http.NewRequest(method, "http://vast.test/api/v0/users/current/", body)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+debugKey)
	resp, err := DebugTransport(next, &log).RoundTrip(req)
	if err != nil {
		tb.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, respBody) {
		tb.Fatalf("the caller read %d bytes (err %v), the server sent %d", len(got), err, len(respBody))
	}
	return log.String()
}

// checkDebugLogSafe fails unless log is safe to cat and holds none of the
// secrets: no escape, C0 (but newline), C1 or bidi character, no invalid
// UTF-8 (every line is left as is by the project's sanitizer), and neither
// the key nor any other secret by an 8-character prefix.
func checkDebugLogSafe(tb testing.TB, log string, secrets ...string) {
	tb.Helper()
	for _, line := range strings.Split(log, "\n") {
		if sanitize.String(line) != line {
			tb.Fatalf("the debug log holds characters a terminal would act on: %q", line)
		}
	}
	for _, s := range append(secrets, debugKey) {
		if strings.Contains(log, s[:8]) {
			tb.Fatalf("the debug log holds the first 8 characters of %q:\n%s", s, log)
		}
	}
}

func TestDebugTransportEscapesStatusAndHeaders(t *testing.T) {
	h := http.Header{
		"X-Note":       {"left\u202eright \x9b31m csi \u009b32m c1 \x1b[2J"},
		"X-\x1b]0;hdr": {"name"},
	}
	log := debugExchange(t, "200 OK\x1b]0;pwned\x07", h, nil, []byte("plain \u202e text"))
	checkDebugLogSafe(t, log)
	for _, want := range []string{`<-- 200 OK\x1b]0;pwned\x07 after`, `left\u202eright \x9b31m csi \u009b32m c1 \x1b[2J`, `X-\x1b]0;hdr: name`, `plain \u202e text`} {
		if !strings.Contains(log, want) {
			t.Errorf("debug log lacks the visible form %q:\n%s", want, log)
		}
	}
}

// The account record can be over 16 KiB; wherever the cut falls, around and
// inside "api_key" and its value, no part of the value is written.
func TestDebugTransportCutNeverSplitsTheKey(t *testing.T) {
	const other = "OTHERSECRETb7e2c9d41f8a"
	for _, value := range []string{debugKey, other} {
		member := `"api_key":"` + value + `"`
		for off := -2; off <= len(member)+2; off++ {
			// The member starts off bytes before the 16 KiB mark. The
			// JSON is compact, so its re-encoding is cut at the same place.
			prefix := `{"id":7,"email":"a@b.c","pad":"`
			pad := strings.Repeat("x", debugBodyCap-off-len(prefix)-len(`",`))
			body := prefix + pad + `",` + member + `,"credit":12.5}`
			for _, b := range []string{body, "<pre>" + body[5:]} { // JSON, and text that is not
				log := debugExchange(t, "200 OK", nil, nil, []byte(b))
				checkDebugLogSafe(t, log, value)
			}
		}
	}
}

func TestDebugTransportRedactsDecodedMembers(t *testing.T) {
	secrets := []string{"S1-escaped-secret", "S2-upper-secret!", "S3-nested-object", "S4-in-an-array-x", "S5-object-value-y", "S6-number-valued"}
	body := `{"api\u005fkey": "S1-escaped-secret", "API_KEY": "S2-upper-secret!",
		"user": {"profile": {"api_key": "S3-nested-object"}},
		"keys": [{"id": 1}, {"Api_Key": "S4-in-an-array-x"}],
		"odd": {"api_key": {"v": ["S5-object-value-y"]}}, "num": [{"api_key": 5}],
		"note": "your key is ` + debugKey + `, keep it", "echo": "prefix ` + debugKey[:12] + `…",
		"` + debugKey + `": "a name", "plain": "kept \u202e"}`
	log := debugExchange(t, "200 OK", nil, []byte(body), []byte(body))
	checkDebugLogSafe(t, log, secrets...)
	for _, want := range []string{`"api_key":"[redacted]"`, `"API_KEY":"[redacted]"`, `"Api_Key":"[redacted]"`, `"note":"[redacted]"`, `"plain":"kept \u202e"`} {
		if !strings.Contains(log, want) {
			t.Errorf("debug log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(log, `"id":1`); n != 2 {
		t.Errorf("the other members are not kept in both bodies (%d):\n%s", n, log)
	}
}

// A body that is not JSON keeps the text redaction, escaped member names
// included, and is cut without leaving a prefix of the key.
func TestDebugTransportRedactsText(t *testing.T) {
	body := `<html>{"api\u005fkey": "S7-text-secret-z"} key=` + debugKey + ` half=` + debugKey[:20] + "\x1b[31m</html>"
	log := debugExchange(t, "500 Internal Server Error", nil, nil, []byte(body))
	checkDebugLogSafe(t, log, "S7-text-secret-z")
	if !strings.Contains(log, `key=[redacted] half=[redacted]\x1b[31m</html>`) {
		t.Errorf("the text body is not logged as expected:\n%s", log)
	}
	for cut := 1; cut < len(debugKey); cut++ {
		long := strings.Repeat("y", debugBodyCap-cut) + debugKey + " tail"
		checkDebugLogSafe(t, debugExchange(t, "200 OK", nil, nil, []byte(long)))
	}
}

// A body the log cannot fill its 16 KiB from within debugReadCap is shown
// cut, and the caller still reads all of it.
func TestDebugTransportReadCap(t *testing.T) {
	spaces := `[1, ` + strings.Repeat(" ", debugReadCap+10) + `"` + debugKey + `"]`
	long := `["` + strings.Repeat("z", debugReadCap) + debugKey + `"]`
	for _, body := range []string{spaces, long} {
		log := debugExchange(t, "200 OK", nil, nil, []byte(body))
		checkDebugLogSafe(t, log)
		if !strings.Contains(log, "…(cut)") {
			t.Errorf("a body past the read cap is not marked cut:\n%.300s", log)
		}
	}
}

// debugFailingBody yields its data, then err.
type debugFailingBody struct {
	data []byte
	err  error
}

func (b *debugFailingBody) Read(p []byte) (int, error) {
	if len(b.data) == 0 {
		return 0, b.err
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func (b *debugFailingBody) Close() error { return nil }

// A read that fails is logged (redacted and escaped), and the caller gets the
// bytes before it and then the same error.
func TestDebugTransportReadError(t *testing.T) {
	failure := errors.New("reset by \x1b]0;peer\x07 " + debugKey)
	data := []byte(`{"api_key": "` + debugKey + `", "more": `)
	var log bytes.Buffer
	next := debugRT(func(r *http.Request) *http.Response {
		return &http.Response{Status: "200 OK", StatusCode: 200, Header: http.Header{}, Body: &debugFailingBody{data: slices.Clone(data), err: failure}}
	})
	req, _ := http.NewRequest(http.MethodGet, "http://vast.test/", nil)
	req.Header.Set("Authorization", "Bearer "+debugKey)
	resp, err := DebugTransport(next, &log).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	if !errors.Is(err, failure) || !bytes.Equal(got, data) {
		t.Fatalf("the caller read %q, %v; want the bytes before the failure and then it", got, err)
	}
	checkDebugLogSafe(t, log.String())
	if !strings.Contains(log.String(), `(body read failed: reset by \x1b]0;peer\x07 [redacted])`) {
		t.Fatalf("the read failure is not logged:\n%s", log.String())
	}
}

// Go drops Authorization on a redirect to another host; the server that
// redirected has the key and may put it in the URL or the next answer.
func TestDebugTransportRedactsAfterCrossHostRedirect(t *testing.T) {
	var log bytes.Buffer
	next := debugRT(func(r *http.Request) *http.Response {
		if r.URL.Host == "vast.test" {
			h := http.Header{"Location": {"http://elsewhere.test/?k=" + debugKey}}
			return &http.Response{Status: "302 Found", StatusCode: 302, Header: h, Body: http.NoBody, Request: r}
		}
		return &http.Response{Status: "200 OK", StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("echo " + debugKey)), Request: r}
	})
	req, _ := http.NewRequest(http.MethodGet, "http://vast.test/api/v0/users/current/", nil)
	req.Header.Set("Authorization", "Bearer "+debugKey)
	resp, err := (&http.Client{Transport: DebugTransport(next, &log)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Host != "elsewhere.test" || resp.Request.Header.Get("Authorization") != "" {
		t.Fatalf("the test did not redirect to another host without the key: %v", resp.Request.URL)
	}
	checkDebugLogSafe(t, log.String())
	if !strings.Contains(log.String(), "GET http://elsewhere.test/?k=[redacted]") || !strings.Contains(log.String(), "echo [redacted]") {
		t.Fatalf("the redirected exchange is not logged as expected:\n%s", log.String())
	}
}

// A webhook's signing secret, which the server sends on create and on
// rotate, is redacted like the key: in JSON at any depth and in any case,
// in text that is not JSON, and wherever a cut falls around it.
func TestDebugTransportRedactsWebhookSecrets(t *testing.T) {
	const secret = "whsec_SECRETq8Z3kP0vN7xL2mR5tY9"
	for _, body := range []string{
		`{"success":true,"webhook":{"id":12,"name":"ops","webhook_secret":"` + secret + `"}}`,
		`{"success":true,"Webhook_Secret":"` + secret + `"}`,
		`{"webhook\u005fsecret":"` + secret + `"}`,
		`<html>{"webhook_secret": "` + secret + `"}</html>`,
	} {
		log := debugExchange(t, "200 OK", nil, nil, []byte(body))
		checkDebugLogSafe(t, log, secret)
		if !strings.Contains(strings.ToLower(log), `secret":"[redacted]"`) && !strings.Contains(log, `"webhook_secret": "[redacted]"`) {
			t.Errorf("the secret's member is not shown redacted:\n%s", log)
		}
	}
	member := `"webhook_secret":"` + secret + `"`
	for off := -2; off <= len(member)+2; off++ {
		prefix := `{"id":7,"pad":"`
		pad := strings.Repeat("x", debugBodyCap-off-len(prefix)-len(`",`))
		body := prefix + pad + `",` + member + `,"name":"ops"}`
		for _, b := range []string{body, "<pre>" + body[5:]} {
			checkDebugLogSafe(t, debugExchange(t, "200 OK", nil, nil, []byte(b)), secret)
		}
	}
}

// Through the client: a create and a rotation logged with --debug hold no
// secret, and the client still reads it.
func TestDebugLogOfWebhookCallsHoldsNoSecret(t *testing.T) {
	srv, err := demoserver.Start(demoserver.Options{Contracts: 10, WebhooksThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var log bytes.Buffer
	c, err := New(srv.URL(), demoserver.DemoKey, WithHTTPClient(&http.Client{Transport: DebugTransport(nil, &log)}), WithEndpointThreshold(WebhooksPath, 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, s1, err := c.CreateWebhook(ctx, WebhookSpec{Name: "ops", URL: "https://hooks.example.com/x", Events: []string{"client:low_credit"}})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := c.RotateWebhookSecret(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Reveal() == "" || s2.Reveal() == s1.Reveal() {
		t.Fatalf("secrets %q %q", s1.Reveal(), s2.Reveal())
	}
	checkDebugLogSafe(t, log.String(), s1.Reveal(), s2.Reveal(), s1.Reveal()[6:], s2.Reveal()[6:])
	if n := strings.Count(log.String(), `"webhook_secret":"[redacted]"`); n != 2 {
		t.Fatalf("%d redacted secrets in the log:\n%s", n, log.String())
	}
}
