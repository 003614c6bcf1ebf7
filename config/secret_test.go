package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestSecretNeverPrinted(t *testing.T) {
	s := Secret(testKey)
	cfg := Config{Key: s, KeySource: "env VAST_API_KEY", BaseURL: DefaultURL}
	ptr := &cfg
	values := map[string]any{"secret": s, "config": cfg, "pointer": ptr, "slice": []Secret{s}, "map": map[string]Secret{"k": s}}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s"}
	for name, v := range values {
		for _, verb := range verbs {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, testKey) || strings.Contains(out, fmt.Sprintf("%x", testKey)) {
				t.Errorf("%s with %s shows the key: %s", name, verb, out)
			}
			if name == "secret" && !strings.Contains(out, "[redacted]") {
				t.Errorf("%s with %s: %s lacks [redacted]", name, verb, out)
			}
		}
	}
	if got := fmt.Sprint(s) + s.String() + s.GoString(); got != "[redacted][redacted][redacted]" {
		t.Errorf("got %s", got)
	}
	if s.Reveal() != testKey {
		t.Error("Reveal does not return the key")
	}
}

func TestSecretSerialisation(t *testing.T) {
	s := Secret(testKey)
	b, err := json.Marshal(struct {
		Key Secret
		Cfg Config
	}{s, Config{Key: s}})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(testKey)) || !bytes.Contains(b, []byte(`"Key":"[redacted]"`)) {
		t.Errorf("json: %s", b)
	}
	txt, _ := s.MarshalText()
	if string(txt) != "[redacted]" {
		t.Errorf("text: %s", txt)
	}

	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("loaded", "key", s, "cfg", Config{Key: s})
	slog.New(slog.NewTextHandler(&buf, nil)).Info("loaded", "key", s)
	if strings.Contains(buf.String(), testKey) || !strings.Contains(buf.String(), "[redacted]") {
		t.Errorf("slog: %s", buf.String())
	}
}

func TestSecretInErrors(t *testing.T) {
	s := Secret(testKey)
	err := fmt.Errorf("request with key %v failed: %w", s, errors.New("boom"))
	err = fmt.Errorf("outer %s %q: %w", s, s, err)
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error shows the key: %s", err)
	}
}
