package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

const (
	// debugBodyCap bounds how much of each body the debug log keeps: enough
	// to see the shape of a page, not a 32 MiB dump.
	debugBodyCap = 16 << 10
	// debugReadCap bounds how far the log reads ahead to fill debugBodyCap
	// with redacted JSON (whitespace and redactions shrink it) or to find
	// where a string that straddles the cut ends. The bytes read are handed
	// on to the caller, so this is also the extra memory one body may take.
	debugReadCap = 1 << 20
	// debugTextRead is how much of a body that is not JSON is read: a
	// little past the cut, so a redaction that shrinks the text near the
	// cut still leaves 16 KiB to show.
	debugTextRead = debugBodyCap + 4<<10
	// keyPrefixLen is how much of the key counts as the key: a server that
	// echoes a truncated key ("key 4f1c2a9b… is invalid") gives away as much
	// as the whole key to whoever reads a bug report, and eight characters
	// of a key do not occur in other text by chance.
	keyPrefixLen = 8
	redacted     = "[redacted]"
)

// DebugTransport wraps next and writes every request and response to w for
// bug reports: method, URL, status, duration, headers and the first 16 KiB of
// each body.
//
// Nothing the server chose can act on a terminal that shows the log (cat,
// less -R, an editor): the status line, header names and values, bodies and
// error texts have their control characters (C0, DEL, C1), format characters
// (bidi overrides, BOM, zero-width …), line separators and invalid UTF-8
// written as visible escapes (\x1b, \u202e, \x9b for a stray byte) rather than
// dropped, so the log still shows what the server sent. A backslash is not
// escaped: a literal "\x1b" in a body reads the same as an escaped ESC.
//
// Secrets are removed before anything is cut or written. A JSON body is
// decoded and re-encoded compactly with the value of every member named
// api_key or webhook_secret (by its decoded name, any case, at any depth)
// — and, in the API-keys endpoint's exchanges, key, where a new key is
// shown once — and every string holding the key replaced by "[redacted]";
// a body that is not JSON has the key and such string members replaced in
// its text. The value of every such member seen (a serverless endpoint's or
// worker group's own key, a webhook's secret, a new API key) is a secret
// from then on, redacted
// like the key wherever it appears again: in the rest of that body, in
// later requests and answers, in error texts. Anywhere, a run of eight or
// more characters of the key (or of such a secret) from its start counts
// as the key, and a cut drops a trailing part of it or of such a member.
// The Authorization, Proxy-Authorization, Cookie and Set-Cookie headers are
// never written. Writes to w are serialized.
func DebugTransport(next http.RoundTripper, w io.Writer) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &debugTransport{next: next, w: w, learned: &learnedSecrets{}}
}

type debugTransport struct {
	next    http.RoundTripper
	mu      sync.Mutex // serializes writes to w
	w       io.Writer
	lastKey atomic.Pointer[string] // see keyFor
	learned *learnedSecrets
}

// secrets are what the log never shows: the key first, then the api_key
// values learned.
type secrets []string

// learnedSecrets are the api_key values the log has seen, for every later
// exchange; bounded like the client's (maxSecrets, minSecretLen).
type learnedSecrets struct {
	mu   sync.Mutex
	list []string
}

func (l *learnedSecrets) add(s string) {
	if len(s) < minSecretLen {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) < maxSecrets && !slices.Contains(l.list, s) {
		l.list = append(l.list, s)
	}
}

// with is key and every secret learned so far.
func (l *learnedSecrets) with(key string) secrets {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append(secrets{key}, l.list...)
}

// redact is redactKey for each secret.
func (ks secrets) redact(s string) string {
	for _, k := range ks {
		s = redactKey(s, k)
	}
	return s
}

// contains reports s holding the start of one of the secrets.
func (ks secrets) contains(s string) bool {
	return slices.ContainsFunc(ks, func(k string) bool { return containsKey(s, k) })
}

// keyFor returns the key to redact in req's exchange: the one req carries,
// or else the last one seen. Go drops Authorization on a redirect to another
// host, and the server that redirected, which has the key, chooses the URL
// and can answer there too.
func (d *debugTransport) keyFor(req *http.Request) string {
	key := strings.TrimSpace(strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer "))
	if key != "" {
		d.lastKey.Store(&key)
	} else if last := d.lastKey.Load(); last != nil {
		key = *last
	}
	return key
}

func (d *debugTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := d.learned.with(d.keyFor(req))
	names := secretMembers(req.URL.Path)
	var b strings.Builder
	// The URL can come from a server's redirect, so it is escaped as well.
	fmt.Fprintf(&b, "--> %s %s %s\n", time.Now().Format(time.RFC3339Nano), logText(req.Method, key), logText(req.URL.String(), key))
	writeHeaders(&b, req.Header, key)
	if req.Body != nil && req.GetBody != nil {
		// GetBody is a fresh copy: what is read here is not sent again.
		if body, err := req.GetBody(); err == nil {
			text, _, _ := logBody(body, key, names, d.learned)
			body.Close()
			writeBody(&b, text)
		}
	}
	start := time.Now()
	resp, err := d.next.RoundTrip(req)
	if err != nil {
		// Go's transport quotes server bytes in some errors.
		fmt.Fprintf(&b, "<-- error after %s: %s\n", time.Since(start).Round(time.Millisecond), logText(err.Error(), key))
		d.write(b.String(), key)
		return resp, err
	}
	fmt.Fprintf(&b, "<-- %s after %s\n", logText(resp.Status, key), time.Since(start).Round(time.Millisecond))
	writeHeaders(&b, resp.Header, key)
	if resp.Body != nil {
		text, read, rerr := logBody(resp.Body, key, names, d.learned)
		writeBody(&b, text)
		if rerr != nil {
			fmt.Fprintf(&b, "    (body read failed: %s)\n", logText(rerr.Error(), key))
		}
		// Hand the caller a body that still reads from the start and fails
		// where the read above failed.
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(read), errReader{rerr}, resp.Body), resp.Body}
	}
	d.write(b.String(), key)
	return resp, nil
}

func (d *debugTransport) write(s string, key secrets) {
	// Every part was redacted on its own; this pass guards the joins, and
	// the parts written before a secret was learned from a later one.
	s = d.learned.with(key[0]).redact(s)
	d.mu.Lock()
	defer d.mu.Unlock()
	_, _ = io.WriteString(d.w, s)
}

// secretHeader reports the headers whose values are credentials.
func secretHeader(name string) bool {
	for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"} {
		if strings.EqualFold(name, h) {
			return true
		}
	}
	return false
}

// writeHeaders writes h sorted by name, so two logs of the same exchange
// compare line by line.
func writeHeaders(b *strings.Builder, h http.Header, key secrets) {
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			if secretHeader(k) {
				v = redacted
			}
			fmt.Fprintf(b, "    %s: %s\n", logText(k, key), logText(v, key))
		}
	}
}

func writeBody(b *strings.Builder, text string) {
	if text == "" {
		return
	}
	b.WriteString("    ")
	b.WriteString(text)
	b.WriteByte('\n')
}

// logText makes one server-chosen line (status, header, error) safe to write.
func logText(s string, key secrets) string {
	return key.redact(escapeForLog(key.redact(s)))
}

// logBody reads from r what the log needs and returns the body's line for
// the log (redacted, cut to debugBodyCap, escaped), every byte it read (for
// the caller to read again) and the read error other than EOF. The api_key
// values it meets join learned, and the line is redacted of them too.
func logBody(r io.Reader, key secrets, names memberNames, learned *learnedSecrets) (text string, read []byte, err error) {
	src := &eofReader{r: r}
	limited := &io.LimitedReader{R: src, N: debugReadCap}
	var seen bytes.Buffer
	tee := io.TeeReader(limited, &seen)
	dec := json.NewDecoder(tee)
	dec.UseNumber()
	out, stopped, jerr := redactJSON(dec, key, names, learned.add)
	key = learned.with(key[0])
	// The read cap ends the JSON early: what was decoded is shown, cut.
	capped := limited.N == 0 && !src.eof && src.err == nil
	if jerr == nil || capped && (errors.Is(jerr, io.ErrUnexpectedEOF) || jerr == io.EOF) {
		if len(out) == 0 && !capped {
			return "", seen.Bytes(), src.err
		}
		return finishBody(string(out), stopped || capped, key, names), seen.Bytes(), src.err
	}
	// Not JSON (or JSON that breaks off or goes wrong): redact the text.
	if seen.Len() < debugTextRead && src.err == nil {
		_, _ = io.CopyN(io.Discard, tee, int64(debugTextRead-seen.Len()))
	}
	data := seen.Bytes()
	whole := src.eof && limited.N > 0
	if len(data) > debugTextRead {
		data, whole = data[:debugTextRead], false
	}
	return finishBody(redactMembers(string(data), names, learned.add), !whole, learned.with(key[0]), names), seen.Bytes(), src.err
}

// finishBody redacts the key, cuts s to debugBodyCap and escapes it. cut
// says s is already less than the whole body. Redacting first means a cut
// cannot split an occurrence of the key past recognition; what a cut leaves
// at the end (part of the key, part of a secret member) is dropped.
func finishBody(s string, cut bool, key secrets, names memberNames) string {
	s = key.redact(s)
	if len(s) > debugBodyCap {
		i := debugBodyCap
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s, cut = s[:i], true
	}
	if cut {
		s = dropPartialTail(s, key, names)
	}
	// Escaping can spell out hex digits next to the key's ("\x1b" + "2c…"),
	// so the key is looked for once more.
	s = key.redact(escapeForLog(s))
	if cut {
		s += " …(cut)"
	}
	return s
}

// redactJSON re-encodes the JSON values dec yields, compactly, with the
// value of every secret member (secretName) and every string or member name holding
// the key replaced by "[redacted]". It streams tokens, so a big body is not
// held decoded, and stops (stopped true) once the output passes
// debugBodyCap. err is dec's error other than io.EOF. learn is given every
// api_key member's string value.
func redactJSON(dec *json.Decoder, key secrets, names memberNames, learn func(string)) (out []byte, stopped bool, err error) {
	type frame struct {
		object bool
		n      int  // members or elements written
		value  bool // in an object: a name was written, its value comes next
	}
	var (
		stack []frame
		skip  int  // depth inside a dropped secret value
		drop  bool // the next value is a secret member's: leave it out
		tops  int  // top-level values written
	)
	// sep writes what goes before a name or value and records it.
	sep := func() {
		if len(stack) == 0 {
			if tops > 0 {
				out = append(out, ' ')
			}
			tops++
			return
		}
		f := &stack[len(stack)-1]
		if f.object && f.value {
			out = append(out, ':')
			f.value = false
			return
		}
		if f.n > 0 {
			out = append(out, ',')
		}
		f.n++
		f.value = f.object
	}
	for len(out) <= debugBodyCap {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, false, nil
		}
		if err != nil {
			return out, false, err
		}
		if drop || skip > 0 {
			if v, ok := tok.(string); ok && drop {
				learn(v)
			}
			drop = false
			switch tok {
			case json.Delim('{'), json.Delim('['):
				skip++
			case json.Delim('}'), json.Delim(']'):
				skip--
			}
			continue
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				sep()
				stack = append(stack, frame{object: t == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
			out = append(out, byte(t))
		case string:
			name := len(stack) > 0 && stack[len(stack)-1].object && !stack[len(stack)-1].value
			sep()
			if key.contains(t) {
				t = redacted
			}
			out = appendJSONString(out, t)
			if name && names.has(t) {
				// Written as if the value had been: the parent frame
				// moves on, the real value is skipped.
				out = append(out, `:"`+redacted+`"`...)
				stack[len(stack)-1].value = false
				drop = true
			}
		case json.Number:
			sep()
			out = append(out, t...)
		case bool:
			sep()
			out = strconv.AppendBool(out, t)
		case nil:
			sep()
			out = append(out, "null"...)
		}
	}
	return out, true, nil
}

// appendJSONString appends s as a JSON string. Characters a terminal acts on
// are written as \u escapes, so the log stays valid JSON as well as safe.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\t':
			b = append(b, `\t`...)
		case needsEscape(r):
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				b = fmt.Appendf(b, `\u%04x\u%04x`, r1, r2)
			} else {
				b = fmt.Appendf(b, `\u%04x`, r)
			}
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// stringMember matches a JSON-like member with a string value in text that
// is not JSON; the name is checked decoded (memberNames.quoted), so "api\u005fkey"
// counts. openMember is such a member whose value the text's end cuts off.
// Compiled when first needed: only a --debug run logs, and every start
// would pay for them.
var (
	stringMember = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"(\s*:\s*)"(?:[^"\\]|\\.)*"`)
	})
	openMember = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*\\?)$`)
	})
)

// memberNames are member names, decoded and in any case, whose values the
// log never shows.
type memberNames []string

// secretNames are redacted in every exchange: the account record's copy
// of the key, and a webhook's signing secret, which the server sends on
// create and rotate. The API-keys endpoint's exchanges add key: a new key
// is shown there its only time.
var (
	secretNames    = memberNames{"api_key", "webhook_secret"}
	apiKeysSecrets = append(secretNames[:len(secretNames):len(secretNames)], "key")
)

// secretMembers are the member names to redact in an exchange with path.
// The endpoint's path is looked for anywhere in it, not only at its
// start: a base URL may have a path of its own (https://proxy/vast).
func secretMembers(path string) memberNames {
	if strings.Contains(path, strings.TrimSuffix(APIKeysPath, "/")) {
		return apiKeysSecrets
	}
	return secretNames
}

// has reports a member name of n, in any case.
func (n memberNames) has(name string) bool {
	for _, m := range n {
		if strings.EqualFold(name, m) {
			return true
		}
	}
	return false
}

// quoted reports whether the inside of a JSON string literal decodes to a
// name of n, in any case.
func (n memberNames) quoted(quoted string) bool {
	// Escapes only lengthen a name: a shorter one is not worth decoding.
	if len(quoted) < len("key") {
		return false
	}
	var name string
	if json.Unmarshal([]byte(`"`+quoted+`"`), &name) != nil {
		return false
	}
	return n.has(name)
}

// redactMembers replaces the value of every secret string member in
// text; learn is given each value (decoded when it decodes).
func redactMembers(s string, names memberNames, learn func(string)) string {
	var b strings.Builder
	last := 0
	for _, m := range stringMember().FindAllStringSubmatchIndex(s, -1) {
		if !names.quoted(s[m[2]:m[3]]) {
			continue
		}
		lit := s[m[5]:m[1]]
		var v string
		if json.Unmarshal([]byte(lit), &v) != nil {
			v = strings.Trim(lit, `"`)
		}
		learn(v)
		b.WriteString(s[last:m[5]])
		b.WriteString(`"` + redacted + `"`)
		last = m[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// dropPartialTail removes from the end of a cut text a secret member's
// value that the cut opened, a part of such a member's name, and a part of
// the key's start (too short for redactKey to know it).
func dropPartialTail(s string, keys secrets, names memberNames) string {
	if m := openMember().FindStringSubmatchIndex(s); m != nil && names.quoted(s[m[2]:m[3]]) {
		s = s[:m[4]]
	}
	if q := strings.LastIndexByte(s, '"'); q >= 0 {
		tail := strings.ToLower(s[q+1:])
		for _, n := range secretNames {
			if tail != "" && len(tail) < len(n) && strings.HasPrefix(n, tail) {
				s = s[:q]
				break
			}
		}
	}
	for _, key := range keys {
		if key == "" {
			continue
		}
		for i := max(0, len(s)-len(key)+1); i < len(s); i++ {
			if strings.HasPrefix(key, s[i:]) {
				s = s[:i]
				break
			}
		}
	}
	return s
}

// keyPrefix is what redactKey looks for: the first keyPrefixLen characters
// of the key, or all of a shorter one.
func keyPrefix(key string) string { return key[:min(len(key), keyPrefixLen)] }

func containsKey(s, key string) bool {
	return key != "" && strings.Contains(s, keyPrefix(key))
}

// redactKey replaces in s every run that starts like the key, for as long
// as it goes on like the key, by "[redacted]".
func redactKey(s, key string) string {
	if !containsKey(s, key) {
		return s
	}
	p := keyPrefix(key)
	var b strings.Builder
	for {
		i := strings.Index(s, p)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(p)
		for j < len(s) && j-i < len(key) && s[j] == key[j-i] {
			j++
		}
		b.WriteString(s[:i])
		b.WriteString(redacted)
		s = s[j:]
	}
}

// needsEscape reports the characters a terminal may act on or that change
// how a line reads: C0 and C1 controls, DEL, format characters (bidi
// overrides and marks, BOM, zero-width ones) and the line and paragraph
// separators.
func needsEscape(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// escapeForLog writes the characters needsEscape reports visibly: C0 and DEL
// as \xNN, the others as \uNNNN (\UNNNNNNNN above U+FFFF), and each byte
// of invalid UTF-8 as \xNN, so a stray 0x9b (CSI to an 8-bit terminal) shows
// as \x9b and an encoded U+009B as \u009b.
func escapeForLog(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r > 0xffff && needsEscape(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// eofReader records how reading r ended: at its end, or with an error.
type eofReader struct {
	r   io.Reader
	eof bool
	err error
}

func (e *eofReader) Read(p []byte) (int, error) {
	if e.eof || e.err != nil {
		if e.err != nil {
			return 0, e.err
		}
		return 0, io.EOF
	}
	n, err := e.r.Read(p)
	switch {
	case err == io.EOF:
		e.eof = true
	case err != nil:
		e.err = err
	}
	return n, err
}

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
