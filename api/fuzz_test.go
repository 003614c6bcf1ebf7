package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vastdash/vastdash/money"
)

// FuzzDecodeChargesPage: the decoder never panics and fails only with an
// *Error. A page it accepts is valid JSON; each entry of its results list
// is either kept or counted as skipped, and is kept or skipped exactly as
// it is when alone on a page (a bad neighbour never changes an entry);
// kept amounts equal the exact decimal text. A well-formed page is never
// rejected. Seeds live in testdata/fuzz/FuzzDecodeChargesPage.
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
			if referenceAccepts(body) {
				t.Fatalf("a well-formed page was rejected: %v", err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("decoder accepted invalid JSON %q", body)
		}
		var ref struct {
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(body, &ref); err != nil {
			t.Fatalf("accepted page has no results list: %v", err)
		}
		if p.Skipped+len(p.Results) != len(ref.Results) {
			t.Fatalf("%d entries, decoder kept %d and skipped %d", len(ref.Results), len(p.Results), p.Skipped)
		}
		kept := 0
		for i, raw := range ref.Results {
			alone, err := decodeTest(t, `{"results":[`+string(raw)+`]}`)
			if err != nil {
				t.Fatalf("entry %d alone: %v", i, err)
			}
			if len(alone.Results) == 0 {
				continue
			}
			if kept >= len(p.Results) || !reflect.DeepEqual(p.Results[kept], alone.Results[0]) {
				t.Fatalf("entry %d (%s) decodes differently alone: %+v", i, raw, alone.Results[0])
			}
			checkAmount(t, raw, p.Results[kept].Amount)
			kept++
		}
		if kept != len(p.Results) {
			t.Fatalf("decoder kept %d entries, alone %d", len(p.Results), kept)
		}
	})
}

// checkAmount asserts that a kept entry's amount is its "amount" text
// parsed as an exact decimal (zero when absent or null).
func checkAmount(t *testing.T, raw json.RawMessage, got money.Amount) {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatalf("kept entry %s is not an object: %v", raw, err)
	}
	var text json.RawMessage
	for k, v := range fields {
		if strings.EqualFold(k, "amount") {
			if text != nil {
				return // keys differing in case: which one wins depends on their order
			}
			text = v
		}
	}
	want := money.Amount(0)
	if text != nil && !isNull(text) {
		var err error
		if want, err = money.Parse(string(text)); err != nil {
			t.Fatalf("kept entry %s has an amount money.Parse refuses: %v", raw, err)
		}
	}
	if got != want {
		t.Fatalf("entry %s: amount %v, want %v", raw, got, want)
	}
}

// referenceAccepts reports whether the body is a usable page: an object
// with a results list (or null), well-typed header fields and no
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
