package api

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/money"
)

func decodeTest(t *testing.T, body string) (ChargesPage, error) {
	t.Helper()
	c := &Client{key: keyFunc(canary)}
	return c.decodeChargesPage("GET /api/v0/charges/", "billing_read", []byte(body))
}

func mustDecode(t *testing.T, body string) ChargesPage {
	t.Helper()
	p, err := decodeTest(t, body)
	if err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return p
}

func TestDecodeRealisticContract(t *testing.T) {
	p := mustDecode(t, pageJSON([]string{contractJSON(42, 12345)}, 7, "next-1"))
	if len(p.Results) != 1 || p.Total != 7 || p.NextToken != "next-1" || p.Skipped != 0 {
		t.Fatalf("page header = %+v", p)
	}
	c := p.Results[0]
	want := Charge{
		Start: 1700000000 + 42*60, End: 1700000000 + 42*60 + 86400,
		Type: "instance", Source: "instance-42",
		Description: "Instance 42: 1x RTX 4090, 24 GB, on machine 4242",
		Amount:      12345,
		Meta:        Metadata{TemplateID: 1000 + 42%7, Label: "training run 42"},
	}
	items := c.Items
	c.Items = nil
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("contract = %+v\nwant       %+v", c, want)
	}
	if len(items) != 4 {
		t.Fatalf("%d items, want 4", len(items))
	}
	var sum money.Amount
	for i, typ := range []string{"gpu", "disk", "bwd", "bwu"} {
		if items[i].Type != typ || items[i].Source != "" {
			t.Errorf("item %d = %+v", i, items[i])
		}
		sum += items[i].Amount
	}
	if sum != 12345 {
		t.Errorf("items sum to %v, want the contract's $12.345", sum)
	}
}

func TestDecodeMissingAndNullFields(t *testing.T) {
	body := `{"results":[
		{},
		{"start":null,"end":null,"type":null,"source":null,"description":null,"amount":null,"metadata":null,"items":null},
		{"type":"volume","metadata":{}},
		{"type":"instance","items":[{"type":"gpu","source":null,"amount":0.5}]}
	]}`
	p := mustDecode(t, body)
	if len(p.Results) != 4 || p.Skipped != 0 {
		t.Fatalf("got %d entries, %d skipped; want 4, 0", len(p.Results), p.Skipped)
	}
	if !reflect.DeepEqual(p.Results[0], Charge{}) || !reflect.DeepEqual(p.Results[1], Charge{}) {
		t.Errorf("empty/null entries = %+v, %+v; want zero", p.Results[0], p.Results[1])
	}
	if p.Results[2].Type != "volume" || p.Results[2].Meta != (Metadata{}) {
		t.Errorf("entry with empty metadata = %+v", p.Results[2])
	}
	if it := p.Results[3].Items; len(it) != 1 || it[0].Amount != 500 || it[0].Source != "" {
		t.Errorf("item with null source = %+v", it)
	}
	// No count or total: the total is unknown.
	if len(p.Results) != 4 || p.Total != -1 || p.NextToken != "" {
		t.Errorf("page header = %d entries, total %d, next %q", len(p.Results), p.Total, p.NextToken)
	}
}

func TestDecodeTreeFourLevels(t *testing.T) {
	body := `{"success":true,"count":1,"total":1,"next_token":null,"results":[
	 {"type":"serverless","source":"endpoint-7","description":"endpoint llm","amount":3.5,
	  "metadata":{"endpoint_id":7},"items":[
	   {"type":"serverless","source":"workergroup-70","amount":3.5,"metadata":{"endpoint_id":7.0,"workergroup_id":70},"items":[
	    {"type":"instance","source":"instance-700","amount":3.5,"metadata":{"workergroup_id":70,"endpoint_id":7},"items":[
	     {"type":"gpu","source":null,"amount":3.0,"metadata":{},"items":[]},
	     {"type":"disk","amount":0.5}
	    ]}
	   ]}
	  ]}
	]}`
	p := mustDecode(t, body)
	ep := p.Results[0]
	if ep.Source != "endpoint-7" || ep.Meta.EndpointID != 7 || len(ep.Items) != 1 {
		t.Fatalf("endpoint = %+v", ep)
	}
	wg := ep.Items[0]
	if wg.Source != "workergroup-70" || wg.Meta.EndpointID != 7 || wg.Meta.WorkergroupID != 70 || len(wg.Items) != 1 {
		t.Fatalf("workergroup = %+v", wg)
	}
	ct := wg.Items[0]
	if ct.Source != "instance-700" || len(ct.Items) != 2 {
		t.Fatalf("contract = %+v", ct)
	}
	if ct.Items[0].Type != "gpu" || ct.Items[0].Amount != 3000 || ct.Items[1].Amount != 500 {
		t.Fatalf("items = %+v", ct.Items)
	}
}

func TestDecodeWrongTypesSkipped(t *testing.T) {
	good := `{"type":"instance","source":"instance-1","amount":1.25,"metadata":{"template_id":12.0}}`
	bad := []string{
		`{"type":"instance","amount":"12.5"}`,                // amount as string
		`{"type":"instance","items":{}}`,                     // items as object
		`{"type":"instance","metadata":{"template_id":1.5}}`, // fractional id
		`{"type":"instance","start":"yesterday"}`,            // start as string
		`{"type":5}`,                  // type as number
		`{"metadata":[]}`,             // metadata as array
		`{"metadata":"x"}`,            // metadata as string
		`{"items":[1]}`,               // item not an object
		`{"items":[{"amount":true}]}`, // wrong type two levels down
		`{"items":[{"items":[{"metadata":{"label":3}}]}]}`, // three levels down
		`5`, `"entry"`, `null`, `[]`, // entries that are not objects
	}
	entries := []string{good}
	for _, b := range bad {
		entries = append(entries, b, good)
	}
	p := mustDecode(t, pageJSON(entries, 100, ""))
	if p.Skipped != len(bad) {
		t.Errorf("skipped %d, want %d", p.Skipped, len(bad))
	}
	if len(p.Results) != len(bad)+1 {
		t.Fatalf("kept %d entries, want %d", len(p.Results), len(bad)+1)
	}
	for _, c := range p.Results {
		if c.Source != "instance-1" || c.Amount != 1250 || c.Meta.TemplateID != 12 {
			t.Fatalf("kept entry = %+v", c)
		}
	}
}

func TestDecodeStrings(t *testing.T) {
	body := `{"results":[{"description":"caf\u00e9 \ud83d\ude00 \"q\" a\\b\/c\n\t","label":1,
		"source":"lone \ud800 x","type":"bad` + "\xff" + `byte","metadata":{"label":"\u001b[31mred"}}]}`
	p := mustDecode(t, body)
	c := p.Results[0]
	if c.Description != "café 😀 \"q\" a\\b/c\n\t" {
		t.Errorf("description = %q", c.Description)
	}
	if c.Source != "lone \uFFFD x" || c.Type != "bad\uFFFDbyte" {
		t.Errorf("source %q, type %q: want U+FFFD replacements", c.Source, c.Type)
	}
	// Stored raw: sanitizing is the UI's job at display time.
	if c.Meta.Label != "\x1b[31mred" {
		t.Errorf("label = %q, want the raw server text", c.Meta.Label)
	}
}

func TestDecodeUnknownFieldsIgnored(t *testing.T) {
	body := `{"success":true,"extra":{"a":[1,2,{"b":null}],"c":"d"},"results":[
		{"type":"volume","future":{"x":[true,false,null,1e5,-0.5]},"amount":2,"metadata":{"new":[1],"label":"v"}}
	],"count":1,"total":1,"next_token":null,"more":[]}`
	p := mustDecode(t, body)
	if len(p.Results) != 1 || p.Results[0].Amount != 2000 || p.Results[0].Meta.Label != "v" {
		t.Fatalf("page = %+v", p)
	}
}

func TestDecodeDepthLimits(t *testing.T) {
	// A charge nested deeper than any real tree drops its entry.
	deep := `{"type":"x"}`
	for range maxNodeDepth + 2 {
		deep = `{"type":"w","items":[` + deep + `]}`
	}
	p := mustDecode(t, pageJSON([]string{deep, `{"type":"ok"}`}, 2, ""))
	if p.Skipped != 1 || len(p.Results) != 1 || p.Results[0].Type != "ok" {
		t.Fatalf("deep entry: skipped %d, kept %+v", p.Skipped, p.Results)
	}
	// Absurdly nested JSON fails the page instead of recursing on
	// (encoding/json stops at 10000 levels), and says so: the JSON is
	// valid and every field has the right type.
	junk := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	deepest := `{"type":"x"}`
	for range 10001 {
		deepest = `{"type":"w","items":[` + deepest + `]}`
	}
	for name, body := range map[string]string{
		"junk member": `{"results":[],"junk":` + junk + `}`,
		"charge tree": pageJSON([]string{deepest}, 1, ""),
	} {
		_, err := decodeTest(t, body)
		e := apiErr(t, err, ErrMalformed)
		if e.Msg != "the response is nested too deeply" {
			t.Errorf("%s: message %q, want it to say the response is nested too deeply", name, e.Msg)
		}
	}
	// The account and preferences bodies are judged the same way.
	if e := malformed("GET /api/v0/users/current/", json.Unmarshal([]byte(junk), new(any)), len(junk)); e.Msg != "the response is nested too deeply" {
		t.Errorf("malformed: %q", e.Msg)
	}
}

func TestDecodeTopLevelMalformed(t *testing.T) {
	cases := map[string]string{
		"empty":              "",
		"whitespace":         " \n ",
		"html":               "<!DOCTYPE html><html><body>Welcome</body></html>",
		"array":              "[]",
		"string":             `"ok"`,
		"results object":     `{"results":{}}`,
		"results string":     `{"results":"none"}`,
		"no results":         `{"success":true,"count":0}`,
		"next_token number":  `{"results":[],"next_token":5}`,
		"total string":       `{"results":[],"total":"5"}`,
		"trailing garbage":   `{"results":[]} x`,
		"two objects":        `{"results":[]}{}`,
		"bad literal":        `{"results":[],"success":tru}`,
		"control in string":  "{\"results\":[{\"type\":\"a\x01b\"}]}",
		"leading zero":       `{"results":[{"amount":01}]}`,
		"bad escape":         `{"results":[{"type":"\q"}]}`,
		"missing comma":      `{"results":[{} {}]}`,
		"trailing comma":     `{"results":[{},]}`,
		"single quotes":      `{'results':[]}`,
		"bare minus":         `{"results":[{"amount":-}]}`,
		"unterminated key":   `{"results`,
		"entry syntax error": `{"results":[{"type":"a",}]}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := decodeTest(t, body)
			apiErr(t, err, ErrMalformed)
		})
	}
}

// Every proper prefix of a valid page is a truncated body: all must fail,
// none may panic or return a partial page.
func TestDecodeEveryTruncation(t *testing.T) {
	body := pageJSON([]string{contractJSON(1, 1500), `{"type":"x","amount":"bad"}`,
		`{"description":"esc \u00e9 \n","amount":-1.5e1,"metadata":{"endpoint_id":3.0}}`}, 3, "tok")
	if _, err := decodeTest(t, body); err != nil {
		t.Fatalf("full body: %v", err)
	}
	for n := range len(body) {
		if _, err := decodeTest(t, body[:n]); err == nil {
			t.Fatalf("prefix of %d bytes decoded without error: %q", n, body[:n])
		} else if !errors.Is(err, ErrMalformed) {
			t.Fatalf("prefix of %d bytes: %v, want ErrMalformed", n, err)
		}
	}
}

func TestDecodeSuccessFalseOn200(t *testing.T) {
	_, err := decodeTest(t, `{"success":false,"error":"invalid_token","msg":"Invalid pagination token"}`)
	e := apiErr(t, err, ErrInvalidToken)
	if e.Status != 200 || e.Msg != "Invalid pagination token" {
		t.Errorf("error = %+v", e)
	}
	// Even when its other fields have other shapes.
	_, err = decodeTest(t, `{"success":false,"results":"none","msg":"Both gte and lte must be given"}`)
	e = apiErr(t, err, ErrBadRequest)
	if !strings.Contains(e.Msg, "gte and lte") {
		t.Errorf("msg = %q", e.Msg)
	}
}

func TestDecodeNumbers(t *testing.T) {
	body := `{"count":2.0,"total":1e3,"next_token":"","results":[
		{"start":1700000000.75,"end":-5,"amount":1E-3,"metadata":{"template_id":9007199254740993,"endpoint_id":-0}},
		{"amount":-0.0005,"metadata":{"workergroup_id":9223372036854775807}}
	]}`
	p := mustDecode(t, body)
	if len(p.Results) != 2 || p.Total != 1000 || p.NextToken != "" {
		t.Fatalf("header = %+v", p)
	}
	a, b := p.Results[0], p.Results[1]
	if a.Start != 1700000000 || a.End != -5 || a.Amount != 1 || a.Meta.TemplateID != 9007199254740993 {
		t.Errorf("first = %+v", a)
	}
	if b.Amount != -1 || b.Meta.WorkergroupID != 9223372036854775807 {
		t.Errorf("second = %+v", b)
	}
}

// Edge cases of single entries, each decoded in a page with the others:
// repeated keys, nulls, rounding, exponents, surrogates and wrong types.
func TestDecodeEdgeEntries(t *testing.T) {
	skip := (*Charge)(nil)
	cases := []struct {
		entry string
		want  *Charge // nil: skipped
	}{
		// A page with bad entries is decoded entry by entry; a contract
		// must come out as it does from a clean page.
		{contractJSON(1, 999), nil},
		{`{"type":"volume","type":"instance","amount":1,"amount":2}`, &Charge{Type: "instance", Amount: 2000}},
		{`{"metadata":{"label":"a"},"metadata":{"template_id":4}}`, &Charge{Meta: Metadata{Label: "a", TemplateID: 4}}},
		{`{"type":"a","type":null,"items":[{"type":"b"}],"items":null}`, &Charge{Type: "a"}},
		{`{"items":[null,{"type":"x"}]}`, &Charge{Items: []Charge{{}, {Type: "x"}}}},
		{`{"amount":123456789012.345678}`, &Charge{Amount: 123456789012346}},
		{`{"amount":1e-4}`, &Charge{}},
		{`{"amount":0.0005}`, &Charge{Amount: 1}},
		{`{"start":1e18,"end":-1e3}`, &Charge{Start: 1e18, End: -1000}},
		{`{"metadata":{"template_id":1e2,"label":null}}`, &Charge{Meta: Metadata{TemplateID: 100}}},
		{`{"description":"\ud83d\ude00\ud800\udc00\udbff"}`, &Charge{Description: "😀\U00010000\uFFFD"}},
		{`{"Amount":3}`, &Charge{Amount: 3000}}, // keys match case-insensitively, as in encoding/json
		{`{"start":1e19}`, skip},
		{`{"amount":"1"}`, skip},
		{`{"items":"no"}`, skip},
		{`{"source":[]}`, skip},
		{`{"metadata":{"endpoint_id":"7"}}`, skip},
	}
	var entries []string
	var want []Charge
	skipped := 0
	for i, tc := range cases {
		entries = append(entries, tc.entry)
		switch {
		case i == 0:
			want = append(want, mustDecode(t, pageJSON([]string{tc.entry}, 1, "")).Results[0])
		case tc.want == nil:
			skipped++
		default:
			want = append(want, *tc.want)
		}
	}
	p := mustDecode(t, pageJSON(entries, len(entries), ""))
	if p.Skipped != skipped || len(p.Results) != len(want) {
		t.Fatalf("kept %d, skipped %d; want %d, %d", len(p.Results), p.Skipped, len(want), skipped)
	}
	for i := range want {
		if !reflect.DeepEqual(p.Results[i], want[i]) {
			t.Errorf("kept entry %d:\ngot  %+v\nwant %+v", i, p.Results[i], want[i])
		}
	}
}
