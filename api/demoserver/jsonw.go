package demoserver

import (
	"strconv"
	"unicode/utf8"
)

// The charges handler writes JSON by hand: it is the hot path, and amounts
// must come out of int64 thousandths exactly, never through a float.

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Control characters below U+0020
// (ESC included) must be escaped by JSON; C1 controls, bidi overrides and
// the like are valid JSON and pass through raw, which is the point of
// Hostile mode. Invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON, but not valid JavaScript; escaped like encoding/json.
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// appendAmount writes thousandths as a JSON number with at most three
// decimals and at least one ("12.345", "12.5", "12.0"), like the real API's
// rounded floats.
func appendAmount(b []byte, m int64) []byte {
	u := uint64(m)
	if m < 0 {
		b = append(b, '-')
		u = uint64(-m)
	}
	b = strconv.AppendUint(b, u/1000, 10)
	f := u % 1000
	b = append(b, '.')
	if f == 0 {
		return append(b, '0')
	}
	digits := [3]byte{byte('0' + f/100), byte('0' + f/10%10), byte('0' + f%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	return append(b, digits[:n]...)
}

func appendKeyInt(b []byte, key string, v int64) []byte {
	b = append(b, '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

// appendContract writes one contract row with its items.
func (d *dataset) appendContract(b []byte, ci int32, w window) []byte {
	c := &d.cs[ci]
	am := c.amountsIn(w)
	b = appendKeyInt(append(b, '{'), "start", c.start)
	b = appendKeyInt(append(b, ','), "end", c.end)
	b = append(b, `,"type":`...)
	b = appendString(b, d.typeName(c))
	b = append(b, `,"source":`...)
	b = appendString(b, d.source(c))
	b = append(b, `,"description":`...)
	b = appendString(b, d.contractDesc(c))
	b = append(b, `,"amount":`...)
	b = appendAmount(b, am.total)
	b = append(b, `,"metadata":{`...)
	sep := false
	field := func(key string) {
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, '"', ':')
	}
	if c.template != 0 {
		field("template_id")
		b = strconv.AppendInt(b, c.template, 10)
	}
	if c.label >= 0 {
		field("label")
		b = appendString(b, d.labels[c.label])
	}
	if c.ep >= 0 {
		field("endpoint_id")
		b = strconv.AppendInt(b, d.endpoints[c.ep].id, 10)
		field("workergroup_id")
		b = strconv.AppendInt(b, d.groups[c.wg].id, 10)
	}
	b = append(b, `},"items":[`...)
	for i := 0; i < int(c.nitems); i++ {
		it := &c.items[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKeyInt(append(b, '{'), "start", c.start)
		b = appendKeyInt(append(b, ','), "end", c.end)
		b = append(b, `,"type":"`...)
		b = append(b, itemTypes[it.typ]...)
		b = append(b, `","source":null,"description":`...)
		b = appendString(b, d.itemDesc(c, it))
		b = append(b, `,"amount":`...)
		b = appendAmount(b, am.items[i])
		b = append(b, `,"metadata":{},"items":[]}`...)
	}
	return append(b, "]}"...)
}

// appendWrapper writes an endpoint wrapper with its workergroups and their
// contracts, children in the same direction as the page.
func (d *dataset) appendWrapper(b []byte, w *epWrap, desc bool, win window) []byte {
	epID := d.endpoints[w.ep].id
	b = appendKeyInt(append(b, '{'), "start", w.start)
	b = appendKeyInt(append(b, ','), "end", w.end)
	b = append(b, `,"type":"serverless","source":"endpoint-`...)
	b = strconv.AppendInt(b, epID, 10)
	b = append(b, `","description":`...)
	b = appendString(b, d.epDesc(w.ep))
	b = append(b, `,"amount":`...)
	b = appendAmount(b, w.amount)
	b = appendKeyInt(append(b, `,"metadata":{`...), "endpoint_id", epID)
	b = append(b, `},"items":[`...)
	ordered(len(w.groups), desc, func(j int) {
		g := w.groups[j]
		wgID := d.groups[g.wg].id
		if b[len(b)-1] != '[' {
			b = append(b, ',')
		}
		b = appendKeyInt(append(b, '{'), "start", g.start)
		b = appendKeyInt(append(b, ','), "end", g.end)
		b = append(b, `,"type":"serverless","source":"workergroup-`...)
		b = strconv.AppendInt(b, wgID, 10)
		b = append(b, `","description":`...)
		b = appendString(b, d.wgDesc(g.wg))
		b = append(b, `,"amount":`...)
		b = appendAmount(b, g.amount)
		b = appendKeyInt(append(b, `,"metadata":{`...), "endpoint_id", epID)
		b = appendKeyInt(append(b, ','), "workergroup_id", wgID)
		b = append(b, `},"items":[`...)
		ordered(len(g.members), desc, func(k int) {
			if b[len(b)-1] != '[' {
				b = append(b, ',')
			}
			b = d.appendContract(b, g.members[k], win)
		})
		b = append(b, "]}"...)
	})
	return append(b, "]}"...)
}
