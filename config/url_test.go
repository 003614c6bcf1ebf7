package config

import (
	"errors"
	"strings"
	"testing"
)

func TestResolveURL(t *testing.T) {
	tests := []struct {
		name, flag, env string
		want            string
		err             error
		msg             string // substring of the error
	}{
		{"default", "", "", DefaultURL, nil, ""},
		{"env", "", "https://example.com", "https://example.com", nil, ""},
		{"flag beats env", "https://flag.example", "https://env.example", "https://flag.example", nil, ""},
		{"blank env is unset", "", "  ", DefaultURL, nil, ""},
		{"trailing slash trimmed", "https://console.vast.ai/", "", DefaultURL, nil, ""},
		{"several slashes trimmed", "https://h.example/prefix//", "", "https://h.example/prefix", nil, ""},
		{"upper-case scheme", "HTTPS://h.example", "", "https://h.example", nil, ""},
		{"https remote with port", "https://h.example:8443", "", "https://h.example:8443", nil, ""},
		{"http localhost", "http://localhost:8080/", "", "http://localhost:8080", nil, ""},
		{"http LOCALHOST", "http://LOCALHOST", "", "http://LOCALHOST", nil, ""},
		{"http 127.0.0.1", "http://127.0.0.1:9999", "", "http://127.0.0.1:9999", nil, ""},
		{"http 127.0.0.5", "http://127.0.0.5", "", "http://127.0.0.5", nil, ""},
		{"http [::1]", "http://[::1]:8080", "", "http://[::1]:8080", nil, ""},
		{"http remote refused", "http://example.com", "", "", ErrInsecureURL,
			"refusing to send the API key over plain http to example.com; use https"},
		{"http remote from env refused", "", "http://10.0.0.1:80", "", ErrInsecureURL, "10.0.0.1"},
		{"http localhost lookalike refused", "http://localhost.example.com", "", "", ErrInsecureURL, "localhost.example.com"},
		{"http 128.0.0.1 refused", "http://128.0.0.1", "", "", ErrInsecureURL, "128.0.0.1"},
		{"garbage", "not a url", "", "", ErrBadURL, `bad --url "not a url"`},
		{"no scheme", "console.vast.ai", "", "", ErrBadURL, "absolute"},
		{"ftp", "ftp://h.example", "", "", ErrBadURL, "http"},
		{"no host", "https://", "", "", ErrBadURL, "host"},
		{"opaque", "https:h.example", "", "", ErrBadURL, "host"},
		{"bad env names VAST_URL", "", "gopher://x", "", ErrBadURL, "bad VAST_URL"},
		{"query", "https://h.example/?a=1", "", "", ErrBadURL, "query"},
		{"fragment", "https://h.example#x", "", "", ErrBadURL, "fragment"},
		{"control characters", "https://h.example/\x1b[2J", "", "", ErrBadURL, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fakeEnv(t, map[string]string{"VAST_URL": tt.env})
			got, err := ResolveURL(env, tt.flag)
			if tt.err == nil {
				if err != nil || got != tt.want {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.err) {
				t.Fatalf("got %q, %v; want %v", got, err, tt.err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%q does not say %q", err, tt.msg)
			}
			if strings.ContainsRune(err.Error(), '\x1b') {
				t.Errorf("error carries a raw escape: %q", err)
			}
			assertSafeError(t, err)
		})
	}
}

func TestResolveURLHidesUserInfo(t *testing.T) {
	_, err := ResolveURL(fakeEnv(t, nil), "https://me:"+testKey+"@h.example")
	if !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), "password") {
		t.Fatalf("err = %v", err)
	}
	assertSafeError(t, err)
}

func TestIsDefaultURL(t *testing.T) {
	for u, want := range map[string]bool{
		"https://console.vast.ai":  true,
		"https://console.vast.ai/": true,
		"http://console.vast.ai":   false,
		"https://localhost:8080":   false,
	} {
		if IsDefaultURL(u) != want {
			t.Errorf("IsDefaultURL(%q) = %v", u, !want)
		}
	}
}
