package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vastdash/vastdash/api/demoserver"
)

// typedKey is a key as Vast makes them (64 hex digits), typed where
// another value goes.
const typedKey = "5f1e9c0a7b3d4e2f8a6c1b0d9e7f3a2c4b6d8e0f1a3c5e7b9d2f4a6c8e0b1d3f"

// Every word of the command line that may be the key — the value of any
// flag of any command, any argument, in any of the spellings that join a
// flag to its value — is refused before anything reads it: the key is on
// neither stdout nor stderr, no request is made (so none carries it in a
// path), no file is named after it, and the run is a usage error. Both
// with the key in VAST_API_KEY and with it only in the key file.
func TestKeyTypedAnywhereIsNeverRepeated(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 20})
	srv.AddKey(typedKey, "typed", nil)
	var lines [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		lines = append(lines, append(append([]string{}, path...), typedKey))
		seen := map[string]bool{}
		each := func(f *pflag.Flag) {
			if seen[f.Name] {
				return
			}
			seen[f.Name] = true
			p := append([]string{}, path...)
			if f.Value.Type() == "bool" {
				lines = append(lines, append(p, "--"+f.Name+"="+typedKey))
				return
			}
			lines = append(lines, append(p, "--"+f.Name, typedKey), append(p, "--"+f.Name+"="+typedKey))
			if f.Shorthand != "" {
				lines = append(lines, append(p, "-"+f.Shorthand+typedKey))
			}
		}
		c.LocalFlags().VisitAll(each)
		c.InheritedFlags().VisitAll(each)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk((&execution{env: testEnv(&bytes.Buffer{}, &bytes.Buffer{})}).rootCommand(&bytes.Buffer{}), nil)
	// The places the red team typed it, and a key pasted as a list item or
	// a suggestion's bait.
	lines = append(lines,
		[]string{"webhooks", "test", typedKey}, []string{"webhooks", "delete", "-y", typedKey},
		[]string{"webhooks", "edit", typedKey, "--name", "x"}, []string{"webhooks", "add", "--event", "client:low_credit," + typedKey},
		[]string{"--" + typedKey}, []string{"credti", typedKey}, []string{"--api-key-file", " " + typedKey + " "})
	if len(lines) < 100 {
		t.Fatalf("only %d command lines: the walk missed the tree", len(lines))
	}
	for _, envKey := range []string{typedKey, "vastdash-demo-key"} {
		for _, args := range lines {
			res := runAgainst(t, srv, envKey, nil, append([]string{"--url", srv.URL()}, args...)...)
			line := strings.Join(args, " ")
			if strings.Contains(res.out+res.errOut, typedKey) || strings.Contains(res.out+res.errOut, typedKey[:16]) {
				t.Fatalf("%s: the key is repeated: stdout %q stderr %q", line, res.out, res.errOut)
			}
			if res.code != exitUsage || !strings.Contains(res.errOut, "may be the API key") {
				t.Errorf("%s: exit %d, stderr %q", line, res.code, res.errOut)
			}
			_ = filepath.WalkDir(os.Getenv("HOME"), func(p string, _ os.DirEntry, _ error) error {
				if strings.Contains(p, typedKey[:16]) {
					t.Errorf("%s: a file is named after the key: %s", line, p)
				}
				return nil
			})
		}
	}
	for _, r := range srv.Requests() {
		t.Errorf("a request was sent: %s %s", r.Method, r.Path)
	}
}

// The key rule refuses keys, not the values people type: a job's label
// with its date and run number, a UUID, a webhook address with its token,
// a query, a date. Those ended the run (exit 2) while a key joined to a
// word by - or _ is refused still.
func TestKeyRuleLeavesLabelsAndIDs(t *testing.T) {
	isolate(t)
	for _, word := range []string{
		"train-llama-70b-run-20261129-0001-final",
		"550e8400-e29b-41d4-a716-446655440000",
		"exp_2026_11_29_lr0001_bs512_seed12345678_v2",
		"https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_aBcDeFgHiJkLmNoPqRsTuV",
		"select day, sum(amount) from charges where day >= '2026-11-01' group by day",
		"2026-11-01T00:00:00+01:00",
		"/home/me/.config/vastdash/settings-2026-11-29-backup-1234567890.toml",
	} {
		if mayBeKey(word) {
			t.Errorf("%q is taken for a key", word)
		}
	}
	for _, word := range []string{typedKey, strings.ToUpper(typedKey), "lab-" + typedKey, typedKey + "_x", "--" + typedKey, "a," + typedKey} {
		if !mayBeKey(word) {
			t.Errorf("%q is not taken for a key", word)
		}
	}
	code, out, errOut := runMain("--demo", "charges", "--label", "train-llama-70b-run-20261129-0001-final", "--json")
	if code != 0 || strings.Contains(errOut, "may be the API key") {
		t.Errorf("charges --label with a long label: exit %d %q %q", code, out, errOut)
	}
}
