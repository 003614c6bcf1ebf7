//go:build unix

package ui

import (
	"os"
	"os/signal"
	"sync"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
)

// sizeUnderRun: Run can watch the terminal's size itself (SIGWINCH).
const sizeUnderRun = true

// watchSize reports out's size to p as Bubble Tea would (it cannot see the
// terminal behind a screenWriter): w×h at once, then every change, on
// SIGWINCH and on SIGCONT (a resize while stopped sends no SIGWINCH).
// stop ends the watch.
func watchSize(p *tea.Program, out *os.File, w, h int) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH, syscall.SIGCONT)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sendSize(p, w, h)
		for {
			select {
			case <-done:
				return
			case <-sig:
				nw, nh, err := term.GetSize(out.Fd())
				if err != nil || nw <= 0 || nh <= 0 || (nw == w && nh == h) {
					continue
				}
				w, h = nw, nh
				sendSize(p, w, h)
			}
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
		wg.Wait()
	}
}
