package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildServe builds vastdash-serve beside the vastdash of buildBinary, as
// `vastdash serve` finds it, and returns vastdash.
var buildServe = sync.OnceValues(func() (string, error) {
	bin, err := buildBinary()
	if err != nil {
		return "", err
	}
	out, err := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(bin), "vastdash-serve"), "./cmd/vastdash-serve").CombinedOutput()
	if err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

var listeningRe = regexp.MustCompile(`url=(http://\S+)/metrics`)

// logWriter keeps what serve logs and sends the address it listens on.
type logWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	sent bool
	urls chan string
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if m := listeningRe.FindStringSubmatch(l.b.String()); m != nil && !l.sent {
		l.sent = true
		l.urls <- m[1]
	}
	return len(p), nil
}

func (l *logWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `vastdash serve --demo` as a service manager runs it: vastdash hands
// over to vastdash-serve in the same process, which serves the figures;
// SIGTERM (and ctrl+c's SIGINT) with a scrape in progress ends it with
// exit 0 within a second, the log's last line saying so.
func TestServeStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin, err := buildServe()
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(bin, "serve", "--demo", "--listen", "127.0.0.1:0")
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "VAST_API_KEY=")
			log := &logWriter{urls: make(chan string, 1)}
			cmd.Stderr = log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var base string
			select {
			case base = <-log.urls:
			case <-time.After(20 * time.Second):
				t.Fatal("serve did not say where it listens")
			}
			client := &http.Client{Timeout: 10 * time.Second}
			deadline := time.Now().Add(20 * time.Second)
			for {
				resp, err := client.Get(base + "/healthz")
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						break
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("/healthz never ok: %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			// Scrapes keep coming while the signal lands; every one
			// that got an answer got all of it.
			stop := make(chan struct{})
			scrapes := make(chan error, 1)
			go func() {
				var bad error
				for {
					select {
					case <-stop:
						scrapes <- bad
						return
					default:
					}
					resp, err := client.Get(base + "/metrics")
					if err != nil {
						continue // refused once the listener closed
					}
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || !strings.Contains(string(b), "vast_up 1") {
						bad = err
						if bad == nil {
							bad = io.ErrUnexpectedEOF
						}
					}
				}
			}()
			time.Sleep(50 * time.Millisecond)
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			took := time.Since(start)
			close(stop)
			if err != nil || took > time.Second {
				t.Fatalf("after %v: exit %v, want 0 within a second\n%s", sig, err, log.String())
			}
			if bad := <-scrapes; bad != nil {
				t.Errorf("a scrape in flight was cut: %v", bad)
			}
			if !strings.HasSuffix(log.String(), "level=INFO msg=stopped\n") {
				t.Errorf("log:\n%s", log.String())
			}
		})
	}
}
