package overview

import (
	"testing"

	"github.com/vastdash/vastdash/ui/internal/golden"
)

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name, got)
}
