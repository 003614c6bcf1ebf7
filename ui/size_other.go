//go:build !unix

package ui

import (
	"os"

	tea "charm.land/bubbletea/v2"
)

// sizeUnderRun: without SIGWINCH, Bubble Tea keeps watching the size.
const sizeUnderRun = false

func watchSize(*tea.Program, *os.File, int, int) (stop func()) { return func() {} }
