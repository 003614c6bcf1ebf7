// Package golden compares rendered screens with files under testdata/, for
// the UI packages' tests. Run a package's tests with -update to rewrite the
// files after checking the change by eye.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
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
