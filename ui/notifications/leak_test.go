package notifications

import (
	"testing"

	"go.uber.org/goleak"
)

// The screen's requests run in goroutines; none may outlive the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
