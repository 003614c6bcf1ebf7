package api

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/vastdash/vastdash/money"
)

// A hand-written decoder for the charges page. encoding/json manages about
// 60 MB/s on this shape (most of it reflection looking for Unmarshalers on
// every value) and would need a second pass to skip bad entries; this one
// decodes a page in one pass and skips a bad entry by re-scanning only that
// entry. It is strict about JSON syntax (anything encoding/json rejects is
// rejected) and tolerant about the content: unknown fields are skipped,
// null leaves a field at zero, and a field of the wrong type drops the
// entry it is in (counted in ChargesPage.Skipped).

// Limits on nesting. Real trees are four levels deep (endpoint →
// workergroup → contract → item); deeper charge nodes drop the entry, and
// deeper JSON of any kind fails the page instead of recursing without end.
const (
	maxNodeDepth = 64
	maxJSONDepth = 512
)

var (
	// errSyntax: the body is not valid JSON (or is cut short).
	errSyntax = errors.New("syntax")
	// errTruncated: the body ends in the middle of a value.
	errTruncated = errors.New("truncated")
	// errDeep: the body nests deeper than maxJSONDepth.
	errDeep = errors.New("too deep")
	// errShape: valid JSON with a value of the wrong type for its field.
	errShape = errors.New("shape")
)

type pageParser struct {
	b   []byte
	pos int
	// topErr describes a wrong top-level shape for the error message.
	topErr string
}

// rawPageResult is what parsePage extracts from a syntactically valid body.
type rawPageResult struct {
	success      *bool
	count, total *int64
	next         *string
	hasResults   bool
	page         ChargesPage
}

// parsePage decodes a charges body. Errors are errSyntax, errTruncated,
// errDeep or errShape (top-level shape, described in p.topErr).
func (p *pageParser) parsePage() (rawPageResult, error) {
	var r rawPageResult
	p.ws()
	if !p.consume('{') {
		return r, p.syntaxOrEOF()
	}
	p.ws()
	if p.consume('}') {
		return r, p.end()
	}
	for {
		key, err := p.key()
		if err != nil {
			return r, err
		}
		switch string(key) {
		case "success":
			switch {
			case p.lit("true"):
				t := true
				r.success = &t
			case p.lit("false"):
				f := false
				r.success = &f
			case p.lit("null"):
				r.success = nil
			default:
				return r, p.shape("success is not a boolean")
			}
		case "count", "total":
			n, isNull, err := p.intValue(true)
			if err != nil {
				if err == errShape {
					return r, p.shape(string(key) + " is not an integer")
				}
				return r, err
			}
			var v *int64
			if !isNull {
				v = &n
			}
			if string(key) == "count" {
				r.count = v
			} else {
				r.total = v
			}
		case "next_token":
			s, isNull, err := p.stringValue()
			if err != nil {
				if err == errShape {
					return r, p.shape("next_token is not a string")
				}
				return r, err
			}
			r.next = nil
			if !isNull {
				r.next = &s
			}
		case "results":
			r.hasResults = true
			res, skipped, err := p.results()
			if err != nil {
				return r, err
			}
			r.page.Results, r.page.Skipped = res, skipped
		default:
			if err := p.skip(0); err != nil {
				return r, err
			}
		}
		more, err := p.next('}')
		if err != nil {
			return r, err
		}
		if !more {
			return r, p.end()
		}
	}
}

// results decodes the results array (or null).
func (p *pageParser) results() ([]Charge, int, error) {
	if p.lit("null") {
		return nil, 0, nil
	}
	if !p.consume('[') {
		if p.pos >= len(p.b) {
			return nil, 0, errTruncated
		}
		return nil, 0, p.shape("results is not a list")
	}
	out := make([]Charge, 0, 128)
	skipped := 0
	p.ws()
	if p.consume(']') {
		return out, 0, nil
	}
	for {
		p.ws()
		start := p.pos
		var c Charge
		err := errShape
		if p.pos < len(p.b) && p.b[p.pos] == '{' {
			err = p.node(&c, 1)
		}
		switch err {
		case nil:
			out = append(out, c)
		case errShape:
			// Re-scan the entry as plain JSON: valid → skip it, else the
			// page is broken.
			p.pos = start
			if err := p.skip(1); err != nil {
				return nil, 0, err
			}
			skipped++
		default:
			return nil, 0, err
		}
		more, err := p.next(']')
		if err != nil {
			return nil, 0, err
		}
		if !more {
			return out, skipped, nil
		}
	}
}

// node decodes one charge object at p.pos (which holds '{') into c. As
// with encoding/json, null leaves a field unchanged (items becomes nil) and
// a repeated key overrides the earlier value.
func (p *pageParser) node(c *Charge, depth int) error {
	if depth > maxNodeDepth {
		return errShape
	}
	p.pos++ // '{'
	p.ws()
	if p.consume('}') {
		return nil
	}
	for {
		key, err := p.key()
		if err != nil {
			return err
		}
		switch k := string(key); {
		case k != "metadata" && isKnownNodeKey(k) && p.lit("null"):
			if k == "items" {
				c.Items = nil
			}
		case k == "start":
			c.Start, _, err = p.intValue(false)
		case k == "end":
			c.End, _, err = p.intValue(false)
		case k == "type":
			c.Type, _, err = p.stringValue()
		case k == "source":
			c.Source, _, err = p.stringValue()
		case k == "description":
			c.Description, _, err = p.stringValue()
		case k == "amount":
			c.Amount, err = p.amountValue()
		case k == "metadata":
			err = p.metadata(&c.Meta, depth)
		case k == "items":
			c.Items, err = p.items(depth)
		default:
			err = p.skip(depth)
		}
		if err != nil {
			return err
		}
		more, err := p.next('}')
		if err != nil || !more {
			return err
		}
	}
}

func isKnownNodeKey(k string) bool {
	switch k {
	case "start", "end", "type", "source", "description", "amount", "metadata", "items":
		return true
	}
	return false
}

// items decodes a node's items array (or null). A null element is a zero
// node, as encoding/json would make it; any other non-object is a wrong type.
func (p *pageParser) items(depth int) ([]Charge, error) {
	if p.lit("null") {
		return nil, nil
	}
	if !p.consume('[') {
		return nil, p.valueErr()
	}
	p.ws()
	if p.consume(']') {
		return nil, nil
	}
	var out []Charge
	for {
		p.ws()
		var c Charge
		switch {
		case p.pos < len(p.b) && p.b[p.pos] == '{':
			if err := p.node(&c, depth+1); err != nil {
				return nil, err
			}
		case p.lit("null"):
		default:
			return nil, p.valueErr()
		}
		if out == nil {
			out = make([]Charge, 0, 4)
		}
		out = append(out, c)
		more, err := p.next(']')
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
	}
}

// metadata decodes a node's metadata object into m (null: unchanged).
func (p *pageParser) metadata(m *Metadata, depth int) error {
	if p.lit("null") {
		return nil
	}
	if !p.consume('{') {
		return p.valueErr()
	}
	p.ws()
	if p.consume('}') {
		return nil
	}
	for {
		key, err := p.key()
		if err != nil {
			return err
		}
		switch k := string(key); k {
		case "label":
			var s string
			var isNull bool
			if s, isNull, err = p.stringValue(); !isNull {
				m.Label = s
			}
		case "template_id", "endpoint_id", "workergroup_id":
			var v int64
			var isNull bool
			if v, isNull, err = p.intValue(true); err == nil && !isNull {
				switch k {
				case "template_id":
					m.TemplateID = v
				case "endpoint_id":
					m.EndpointID = v
				default:
					m.WorkergroupID = v
				}
			}
		default:
			err = p.skip(depth + 1)
		}
		if err != nil {
			return err
		}
		more, err := p.next('}')
		if err != nil || !more {
			return err
		}
	}
}

// --- scalar values ---

// intValue reads an integer or null. Floats are accepted: truncated when
// !integral (unix times), refused unless integral when integral is set
// (identifiers and counts: 12.0 is 12, 12.5 is not an id).
func (p *pageParser) intValue(integral bool) (v int64, isNull bool, err error) {
	if p.lit("null") {
		return 0, true, nil
	}
	lit, err := p.number()
	if err != nil {
		return 0, false, err
	}
	if n, ok := smallInt(lit); ok {
		return n, false, nil
	}
	if n, perr := strconv.ParseInt(string(lit), 10, 64); perr == nil {
		return n, false, nil
	}
	f, perr := strconv.ParseFloat(string(lit), 64)
	if perr != nil || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false, errShape
	}
	if integral && f != math.Trunc(f) {
		return 0, false, errShape
	}
	return int64(f), false, nil
}

// smallInt parses an integer literal of at most 18 digits.
func smallInt(lit []byte) (int64, bool) {
	neg := false
	if len(lit) > 0 && lit[0] == '-' {
		neg, lit = true, lit[1:]
	}
	if len(lit) == 0 || len(lit) > 18 {
		return 0, false
	}
	var n int64
	for _, ch := range lit {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int64(ch-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// amountValue reads an amount (number or null) exactly.
func (p *pageParser) amountValue() (money.Amount, error) {
	if p.lit("null") {
		return 0, nil
	}
	lit, err := p.number()
	if err != nil {
		return 0, err
	}
	if a, ok := fastAmount(lit); ok {
		return a, nil
	}
	a, perr := money.Parse(string(lit))
	if perr != nil {
		return 0, errShape
	}
	return a, nil
}

// fastAmount handles the common "-?digits(.d{1,3})?" literal without
// allocating; anything else goes to money.Parse.
func fastAmount(lit []byte) (money.Amount, bool) {
	neg := false
	if len(lit) > 0 && lit[0] == '-' {
		neg, lit = true, lit[1:]
	}
	var v int64
	i := 0
	for ; i < len(lit) && lit[i] >= '0' && lit[i] <= '9'; i++ {
		if i >= 15 {
			return 0, false
		}
		v = v*10 + int64(lit[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	frac := 0
	if i < len(lit) {
		if lit[i] != '.' {
			return 0, false
		}
		i++
		for ; i < len(lit); i++ {
			if lit[i] < '0' || lit[i] > '9' || frac == 3 {
				return 0, false
			}
			v = v*10 + int64(lit[i]-'0')
			frac++
		}
		if frac == 0 {
			return 0, false
		}
	}
	for ; frac < 3; frac++ {
		v *= 10
	}
	if neg {
		v = -v
	}
	return money.Amount(v), true
}

// stringValue reads a string or null; any other value is errShape (after
// checking it is valid JSON, so a syntax error is reported as such).
func (p *pageParser) stringValue() (s string, isNull bool, err error) {
	if p.lit("null") {
		return "", true, nil
	}
	if p.pos < len(p.b) && p.b[p.pos] == '"' {
		raw, escaped, err := p.str()
		if err != nil {
			return "", false, err
		}
		if !escaped {
			return string(raw), false, nil
		}
		return unescape(raw), false, nil
	}
	return "", false, p.valueErr()
}

// valueErr is the error for a value of the wrong type at p.pos: errShape
// if it is valid JSON, else the syntax error.
func (p *pageParser) valueErr() error {
	if p.pos >= len(p.b) {
		return errTruncated
	}
	switch p.b[p.pos] {
	case '{', '[', '"', 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return errShape
	}
	return errSyntax
}

func (p *pageParser) shape(msg string) error {
	p.topErr = msg
	return errShape
}

// --- JSON grammar ---

func (p *pageParser) ws() {
	for p.pos < len(p.b) {
		switch p.b[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *pageParser) consume(ch byte) bool {
	if p.pos < len(p.b) && p.b[p.pos] == ch {
		p.pos++
		return true
	}
	return false
}

// lit consumes a literal (true, false, null) if it is next.
func (p *pageParser) lit(s string) bool {
	if len(p.b)-p.pos >= len(s) && string(p.b[p.pos:p.pos+len(s)]) == s {
		p.pos += len(s)
		return true
	}
	return false
}

func (p *pageParser) syntaxOrEOF() error {
	if p.pos >= len(p.b) {
		return errTruncated
	}
	return errSyntax
}

// end checks that only whitespace follows the top-level value.
func (p *pageParser) end() error {
	p.ws()
	if p.pos != len(p.b) {
		return errSyntax
	}
	return nil
}

// key reads `"name" :` (with surrounding whitespace) and returns the name,
// unescaped when needed.
func (p *pageParser) key() ([]byte, error) {
	p.ws()
	if p.pos >= len(p.b) {
		return nil, errTruncated
	}
	if p.b[p.pos] != '"' {
		return nil, errSyntax
	}
	raw, escaped, err := p.str()
	if err != nil {
		return nil, err
	}
	if escaped {
		raw = []byte(unescape(raw))
	}
	p.ws()
	if !p.consume(':') {
		return nil, p.syntaxOrEOF()
	}
	p.ws()
	if p.pos >= len(p.b) {
		return nil, errTruncated
	}
	return raw, nil
}

// next consumes the separator after a member or element: ',' (more) or
// the closing byte.
func (p *pageParser) next(closing byte) (bool, error) {
	p.ws()
	if p.pos >= len(p.b) {
		return false, errTruncated
	}
	switch p.b[p.pos] {
	case ',':
		p.pos++
		return true, nil
	case closing:
		p.pos++
		return false, nil
	}
	return false, errSyntax
}

// str reads a string at p.pos (a '"') and returns its raw content and
// whether it holds escapes. Control characters are a syntax error, as in
// encoding/json.
func (p *pageParser) str() (raw []byte, escaped bool, err error) {
	i := p.pos + 1
	start := i
	for i < len(p.b) {
		ch := p.b[i]
		switch {
		case ch == '"':
			p.pos = i + 1
			return p.b[start:i], escaped, nil
		case ch == '\\':
			escaped = true
			if i+1 >= len(p.b) {
				return nil, false, errTruncated
			}
			switch p.b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(p.b) {
						return nil, false, errTruncated
					}
					if !isHex(p.b[k]) {
						return nil, false, errSyntax
					}
				}
				i += 6
			default:
				return nil, false, errSyntax
			}
		case ch < 0x20:
			return nil, false, errSyntax
		case ch >= utf8.RuneSelf:
			// Invalid UTF-8 is replaced by U+FFFD as encoding/json does;
			// route such strings through unescape.
			r, size := utf8.DecodeRune(p.b[i:])
			if r == utf8.RuneError && size == 1 {
				escaped = true
			}
			i += size
		default:
			i++
		}
	}
	return nil, false, errTruncated
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unescape decodes the content of a string already checked by str,
// following encoding/json: lone surrogates and invalid UTF-8 become U+FFFD.
func unescape(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		ch := raw[i]
		if ch >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, raw[i:i+size]...)
			}
			i += size
			continue
		}
		if ch != '\\' {
			out = append(out, ch)
			i++
			continue
		}
		switch raw[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(raw[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, hex4(raw[i+2:i+6])); dec != utf8.RuneError {
						out = utf8.AppendRune(out, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return string(out)
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// number reads a number literal at p.pos; a value of another type is
// errShape (or a syntax error).
func (p *pageParser) number() ([]byte, error) {
	b, i := p.b, p.pos
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return nil, errTruncated
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		if i > start {
			return nil, errSyntax
		}
		return nil, p.valueErr()
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, p.eofAt(i)
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, p.eofAt(i)
		}
	}
	p.pos = i
	return b[start:i], nil
}

func (p *pageParser) eofAt(i int) error {
	if i >= len(p.b) {
		return errTruncated
	}
	return errSyntax
}

// skip checks and skips any JSON value at p.pos. depth is the nesting
// already entered.
func (p *pageParser) skip(depth int) error {
	if depth > maxJSONDepth {
		return errDeep
	}
	p.ws()
	if p.pos >= len(p.b) {
		return errTruncated
	}
	switch p.b[p.pos] {
	case '{':
		p.pos++
		p.ws()
		if p.consume('}') {
			return nil
		}
		for {
			if _, err := p.key(); err != nil {
				return err
			}
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			more, err := p.next('}')
			if err != nil || !more {
				return err
			}
		}
	case '[':
		p.pos++
		p.ws()
		if p.consume(']') {
			return nil
		}
		for {
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			more, err := p.next(']')
			if err != nil || !more {
				return err
			}
		}
	case '"':
		_, _, err := p.str()
		return err
	case 't', 'f', 'n':
		if p.lit("true") || p.lit("false") || p.lit("null") {
			return nil
		}
		if len(p.b)-p.pos < 5 && isPrefixOfLiteral(p.b[p.pos:]) {
			return errTruncated
		}
		return errSyntax
	default:
		_, err := p.number()
		if err == errShape {
			return errSyntax
		}
		return err
	}
}

func isPrefixOfLiteral(b []byte) bool {
	for _, l := range []string{"true", "false", "null"} {
		if len(b) <= len(l) && string(b) == l[:len(b)] {
			return true
		}
	}
	return false
}
