// Package golden holds the UI packages' shared screen checks: golden files
// under testdata/ and exact-size assertions. Run a package's tests with -update to rewrite the
// files after checking the change by eye.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// update is registered in every test binary that imports this package.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Check compares got with testdata/name, or rewrites the file with -update.
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("view differs from %s (run with -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// AssertFits fails unless view is exactly h lines of exactly w cells (and
// empty when either is zero or less): every screen must fill its area.
func AssertFits(t testing.TB, view string, w, h int) {
	t.Helper()
	if w <= 0 || h <= 0 {
		if view != "" {
			t.Fatalf("%dx%d: view %q, want empty", w, h, view)
		}
		return
	}
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Fatalf("%dx%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("%dx%d: line %d is %d cells: %q", w, h, i, got, ansi.Strip(l))
		}
	}
}
