package api

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzDebugTransport checks, for any body, reason phrase and header value,
// that the debug log is safe to cat and never holds the key's first eight
// characters, and that the caller still reads the body byte for byte. The
// body is sent as the request's body too.
func FuzzDebugTransport(f *testing.F) {
	long := strings.Repeat("x", debugBodyCap-20)
	for _, seed := range []string{
		``,
		`{"id": 7, "api_key": "` + debugKey + `"}`,
		`{"api\u005fkey": "` + debugKey + `"}`,
		`{"a": [{"API_KEY": {"x": "` + debugKey + `"}}], "n": "echo ` + debugKey[:9] + `"}`,
		`{"pad": "` + long + `", "api_key": "` + debugKey + `"}`,
		`<pre>` + long + debugKey + `</pre>`,
		`{"s": "\u0034f1c2a9b"}`,
		"\x1b2c\u202e\x9b\u009b{\"api_key\": \"" + debugKey[:20],
		`{"a": 1} {"b": ` + debugKey[:8] + `}`,
	} {
		f.Add([]byte(seed), "200 OK\x1b]0;pwned\x07", "v\u202e"+debugKey[:10])
	}
	f.Fuzz(func(t *testing.T, body []byte, reason, value string) {
		h := http.Header{"X-Fuzz": {value}}
		log := debugExchange(t, "200 "+reason, h, body, body)
		checkDebugLogSafe(t, log)
	})
}
