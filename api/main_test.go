package api

import (
	"testing"

	"go.uber.org/goleak"
)

// No test may leave a goroutine behind: a leaked timer or connection
// reader would show a missing cancel or an undrained body.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
