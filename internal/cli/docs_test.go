package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// docsDir is the reference the README links to, seen from this package.
const docsDir = "../../docs"

// Every command and every flag it takes is in the reference (docs/): a
// reader who meets one in the help finds what it does there, and a new one
// cannot land without a word in docs/ (docs/commands.md, or the page of its
// topic: auth in sign-in.md, serve in monitoring.md, completion and man in
// scripting.md, the global flags in settings.md).
func TestDocsNameEveryCommandAndFlag(t *testing.T) {
	isolate(t)
	pages, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in %s (%v)", docsDir, err)
	}
	var all strings.Builder
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	docs := all.String()
	x := &execution{env: testEnv(io.Discard, io.Discard)}
	root := x.rootCommand(io.Discard)
	commands, flags := 0, 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := c.CommandPath()
		if c.Hidden || c.Name() == "help" || strings.HasPrefix(path, "vastdash completion ") {
			return
		}
		commands++
		if c != root && !strings.Contains(docs, path) {
			t.Errorf("docs/ never names %q", path)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			flags++
			if !strings.Contains(docs, "--"+f.Name) {
				t.Errorf("docs/ never names %s's flag --%s", path, f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if commands < 15 || flags < 40 {
		t.Fatalf("only %d commands and %d flags read", commands, flags)
	}
}
