package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// debugBodyCap bounds how much of each body the debug log keeps: enough to
// see the shape of a page, not a 32 MiB dump.
const debugBodyCap = 16 << 10

// apiKeyField matches an "api_key" JSON member with a string value; the
// account record carries the key itself there.
var apiKeyField = regexp.MustCompile(`("api_key"\s*:\s*)"(?:[^"\\]|\\.)*"`)

// DebugTransport wraps next and writes every request and response to w for
// bug reports: method, URL, status, duration, headers and the first 16 KiB of
// each body. The Authorization header, every "api_key" field and any other
// occurrence of the key are replaced by [redacted] before anything is
// written. Writes to w are serialized.
func DebugTransport(next http.RoundTripper, w io.Writer) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &debugTransport{next: next, w: w}
}

type debugTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	w    io.Writer
}

func (d *debugTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := strings.TrimSpace(strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer "))
	var b strings.Builder
	fmt.Fprintf(&b, "--> %s %s %s\n", time.Now().Format(time.RFC3339Nano), req.Method, req.URL)
	writeHeaders(&b, req.Header)
	if req.Body != nil && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			head, _ := io.ReadAll(io.LimitReader(body, debugBodyCap))
			body.Close()
			writeBody(&b, head)
		}
	}
	start := time.Now()
	resp, err := d.next.RoundTrip(req)
	if err != nil {
		fmt.Fprintf(&b, "<-- error after %s: %v\n", time.Since(start).Round(time.Millisecond), err)
		d.write(b.String(), key)
		return resp, err
	}
	fmt.Fprintf(&b, "<-- %s after %s\n", resp.Status, time.Since(start).Round(time.Millisecond))
	writeHeaders(&b, resp.Header)
	// Keep the head of the body for the log and hand the caller a body
	// that still reads from the start.
	head, rerr := io.ReadAll(io.LimitReader(resp.Body, debugBodyCap))
	writeBody(&b, head)
	if rerr != nil {
		fmt.Fprintf(&b, "    (body read failed: %v)\n", rerr)
	}
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(head), errReader{rerr}, resp.Body), resp.Body}
	d.write(b.String(), key)
	return resp, nil
}

func (d *debugTransport) write(s, key string) {
	s = apiKeyField.ReplaceAllString(s, `$1"[redacted]"`)
	if key != "" {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, _ = io.WriteString(d.w, s)
}

func writeHeaders(b *strings.Builder, h http.Header) {
	for k, vs := range h {
		for _, v := range vs {
			if strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "Cookie") || strings.EqualFold(k, "Set-Cookie") {
				v = "[redacted]"
			}
			fmt.Fprintf(b, "    %s: %s\n", k, v)
		}
	}
}

func writeBody(b *strings.Builder, body []byte) {
	if len(body) == 0 {
		return
	}
	b.WriteString("    ")
	b.WriteString(escapeControls(strings.ToValidUTF8(string(body), "\uFFFD")))
	if len(body) == debugBodyCap {
		b.WriteString(" …(cut)")
	}
	b.WriteByte('\n')
}

// escapeControls writes control characters as \xNN so that reading the log
// with cat cannot recolour or retitle the terminal.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }

// errReader returns err (if any) once the logged head has been read, so a
// failed read reaches the caller at the same place it happened.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

type readCloser struct {
	io.Reader
	io.Closer
}
