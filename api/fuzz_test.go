package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecodeChargesPage: the decoder never panics, never accepts what is
// not JSON, and on valid JSON agrees with the encoding/json reference.
// Seeds live in testdata/fuzz/FuzzDecodeChargesPage.
func FuzzDecodeChargesPage(f *testing.F) {
	f.Add([]byte(pageJSON([]string{contractJSON(1, 1234), `{"amount":"x"}`}, 2, "t")))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := decodeTest(t, string(body))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error", err)
			}
			if e.Kind != ErrMalformed && !(e.Status == 200 && json.Valid(body)) {
				t.Fatalf("unexpected error kind %v: %v", e.Kind, err)
			}
			if fold, deep := jsonQuirks(body); !fold && !deep && referenceAccepts(body) {
				t.Fatalf("reference accepts the page, decoder says %v", err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("decoder accepted invalid JSON %q", body)
		}
		if p.Skipped < 0 || p.Skipped > len(body) {
			t.Fatalf("skipped = %d", p.Skipped)
		}
		if fold, deep := jsonQuirks(body); !fold && !deep {
			checkAgainstOracle(t, body, p)
		}
	})
}

// referenceAccepts reports whether encoding/json sees a usable page: an
// object with a results list (or null), well-typed header fields and no
// success:false.
func referenceAccepts(body []byte) bool {
	var ref struct {
		Success   *bool           `json:"success"`
		Count     *wireID         `json:"count"`
		Total     *wireID         `json:"total"`
		NextToken *string         `json:"next_token"`
		Results   json.RawMessage `json:"results"`
	}
	if json.Unmarshal(body, &ref) != nil || len(ref.Results) == 0 {
		return false
	}
	if ref.Success != nil && !*ref.Success {
		return false
	}
	return ref.Results[0] == '[' || isNull(ref.Results)
}

var knownKeys = []string{"start", "end", "type", "source", "description", "amount", "metadata", "items",
	"label", "template_id", "endpoint_id", "workergroup_id", "success", "count", "total", "next_token", "results"}

// jsonQuirks reports inputs where encoding/json differs from the decoder by
// design: keys matched case-insensitively ("Amount"), and nesting deeper
// than the decoder's limits.
func jsonQuirks(body []byte) (folded, deep bool) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false, false
	}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 60 {
			deep = true
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				for _, known := range knownKeys {
					if k != known && strings.EqualFold(k, known) {
						folded = true
					}
				}
				walk(sub, depth+1)
			}
		case []any:
			for _, sub := range x {
				walk(sub, depth+1)
			}
		}
	}
	walk(v, 0)
	return folded, deep
}

// FuzzParseRateLimit: the 429 parser never panics, stays within bounds,
// reads JSON and plain text alike, and finds a threshold appended to any
// text that names none.
func FuzzParseRateLimit(f *testing.F) {
	f.Add("API requests too frequent endpoint threshold=", uint16(1000))
	f.Fuzz(func(t *testing.T, s string, ms uint16) {
		d, ok := ParseRateLimit([]byte(s))
		if ok != (d > 0) || d > maxServerThreshold {
			t.Fatalf("ParseRateLimit(%q) = %v, %v", s, d, ok)
		}
		if utf8.ValidString(s) {
			wrapped, _ := json.Marshal(map[string]string{"detail": s})
			if d2, ok2 := ParseRateLimit(wrapped); d2 != d || ok2 != ok {
				t.Fatalf("plain %q gives %v,%v; as JSON detail %v,%v", s, d, ok, d2, ok2)
			}
		}
		if strings.Contains(asciiLower(s), "threshold") {
			return
		}
		body := fmt.Sprintf("%s threshold=%d.%03d", s, ms/1000, ms%1000)
		d, ok = ParseRateLimit([]byte(body))
		want := min(time.Duration(ms)*time.Millisecond, maxServerThreshold)
		if ok != (ms > 0) || d != want {
			t.Fatalf("ParseRateLimit(%q) = %v, %v; want %v", body, d, ok, want)
		}
	})
}
