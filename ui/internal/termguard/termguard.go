// Package termguard restores the terminal when the dashboard's process
// ends without doing it itself: a fatal runtime error (out of memory, a
// stack overflow), a panic in a goroutine nobody recovers, or SIGKILL.
// Bubble Tea restores the terminal on every exit it sees — a quit, a
// signal Run handles, a panic in the model — but none of these reach it,
// and the shell was left raw (no echo, no line editing) in the alternate
// screen.
//
// Start, called before the terminal is put in raw mode, saves its state
// and starts a guard in the background: the same executable again, which
// this package's init turns into the guard before anything else runs. The guard holds
// the read end of a pipe that the runtime's crash output
// (runtime/debug.SetCrashOutput) also writes to. Release, once the
// terminal is restored, writes a mark and closes the pipe: the guard sees
// it and leaves without a word. Any other end of the pipe — a crash
// report, or nothing when the process was killed — makes it put the saved
// state back, leave the alternate screen and the modes Bubble Tea sets,
// and say so in one line.
package termguard

import (
	"os"
)

// envVar carries the saved terminal state to the guard; its presence is
// what makes a process the guard.
const envVar = "VASTDASH_TERMINAL_GUARD"

// releasedMark is what Release writes: the terminal was restored.
const releasedMark = "released\n"

// crashedLine is what the guard says on the terminal after restoring it. The crash report itself (which Go printed on the
// alternate screen, gone now) is not repeated: nothing guarantees what a
// panic's value holds.
const crashedLine = "vastdash: ended without restoring the terminal (a crash or a kill); the terminal was restored; please report it, with a --debug log if you can\n"

func init() {
	if state, ok := os.LookupEnv(envVar); ok {
		os.Exit(guard(state))
	}
}
