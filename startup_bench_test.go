package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/internal/testhome"
	"github.com/vastdash/vastdash/money"
)

// The start-up benchmarks time whole processes, the way a user meets
// vastdash: the built binary exec'd, against a server on this machine, and
// for the dashboard in a pseudo-terminal that answers the terminal's
// queries. Each iteration runs vastdash and its yardstick (a plain Go
// program doing the same work, built from testdata/yardstick) back to back,
// in alternating order, so both see the same load; the figures reported are
// the medians over the iterations. Nothing here asserts a time: CI runs them
// once (-benchtime 1x) so they keep working; `-benchtime 21x` gives figures.
//
// Goals (issue 16): credit ≤ 1.6× its yardstick, first frame ≤ 1.4× a bare
// Bubble Tea program, credit on screen ≤ one round trip + 20 ms.

// buildYardstick builds testdata/yardstick/NAME beside the vastdash binary.
func buildYardstick(b *testing.B, name string) string {
	b.Helper()
	bin := buildVastdash(b)
	out := filepath.Join(filepath.Dir(bin), "yardstick-"+name)
	yardsticks.Do(func() {
		for _, n := range []string{"credit", "bubbletea"} {
			build := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(bin), "yardstick-"+n), "./testdata/yardstick/"+n)
			build.Env = testhome.Original()
			o, err := build.CombinedOutput()
			if err != nil {
				yardstickErr = &buildError{out: string(o), err: err}
				return
			}
		}
	})
	if yardstickErr != nil {
		b.Fatal(yardstickErr)
	}
	return out
}

var (
	yardsticks   sync.Once
	yardstickErr error
)

func buildVastdash(b *testing.B) string {
	b.Helper()
	bin, err := buildBinary()
	if err != nil {
		b.Fatal(err)
	}
	return bin
}

// benchEnv is an environment with no settings, no key file and no colour
// hint: what a new user has.
func benchEnv(b *testing.B, extra ...string) []string {
	home := b.TempDir()
	env := append(testhome.Vars(home), "XDG_CONFIG_HOME="+home, "PATH="+os.Getenv("PATH"), "TERM=xterm-256color")
	return append(env, extra...)
}

// paired collects the timings of vastdash and its yardstick, one pair per
// iteration, and reports their medians and the median of the ratios.
type paired struct {
	vastdash, yardstick, ratio []float64
}

func (p *paired) add(v, y time.Duration) {
	p.vastdash = append(p.vastdash, ms(v))
	p.yardstick = append(p.yardstick, ms(y))
	p.ratio = append(p.ratio, float64(v)/float64(y))
}

func (p *paired) report(b *testing.B, unit string) {
	b.ReportMetric(median(p.vastdash), "ms-"+unit)
	b.ReportMetric(median(p.yardstick), "ms-yardstick")
	b.ReportMetric(median(p.ratio), "x-yardstick")
	b.ReportMetric(0, "ns/op") // the wall time of a pair says nothing
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// accountServer answers the account request at once, after delay, or
// 404 for anything else.
func accountServer(b *testing.B, delay time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v0/users/current/" {
			http.NotFound(w, r)
			return
		}
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": 7, "email": "ada@example.com", "credit": 1234.567, "balance": 0, "balance_threshold": 50, "balance_threshold_enabled": true, "api_key": "CANARY-bench-key"}`)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// timedRun runs cmd to its exit and returns the wall time from exec to
// exit and its CPU time; it fails unless stdout holds want.
func timedRun(b *testing.B, cmd *exec.Cmd, want string) (wall, cpu time.Duration) {
	b.Helper()
	var out strings.Builder
	cmd.Stdout = &out
	start := time.Now()
	err := cmd.Run()
	wall = time.Since(start)
	if err != nil || !strings.Contains(out.String(), want) {
		b.Fatalf("%s: %v, stdout %q, want %q", filepath.Base(cmd.Path), err, out.String(), want)
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkStartCredit is `vastdash credit` from exec to exit against a
// local server answering at once, beside a plain Go program making the
// same request (testdata/yardstick/credit). Goal: ≤ 1.6× the yardstick.
func BenchmarkStartCredit(b *testing.B) {
	if testing.Short() {
		b.Skip("builds and runs binaries")
	}
	bin := buildVastdash(b)
	yard := buildYardstick(b, "credit")
	srv := accountServer(b, 0)
	env := benchEnv(b, "VAST_API_KEY=CANARY-bench-key")
	var p paired
	var cpu, cpuY []float64
	for i := 0; b.Loop(); i++ {
		runV := func() time.Duration {
			cmd := exec.Command(bin, "--url", srv.URL, "credit")
			cmd.Env = env
			wall, c := timedRun(b, cmd, "$1,234.57")
			cpu = append(cpu, ms(c))
			return wall
		}
		runY := func() time.Duration {
			cmd := exec.Command(yard, srv.URL)
			cmd.Env = env
			wall, c := timedRun(b, cmd, "$1234.57")
			cpuY = append(cpuY, ms(c))
			return wall
		}
		v, y := alternate(i, runV, runY)
		p.add(v, y)
	}
	p.report(b, "exec-to-exit")
	b.ReportMetric(median(cpu), "ms-cpu")
	b.ReportMetric(median(cpuY), "ms-cpu-yardstick")
}

// alternate runs a then b on even i, b then a on odd i, so neither always
// runs second (warm caches, a scheduler that just woke up).
func alternate(i int, a, b func() time.Duration) (time.Duration, time.Duration) {
	if i%2 == 0 {
		x := a()
		return x, b()
	}
	y := b()
	return a(), y
}

// queryRe matches the terminal queries Bubble Tea v2.0.10 and vastdash
// send: background and foreground colour (OSC 11, OSC 10), mode reports
// (DECRQM, e.g. 2026 synchronized output and 2027 unicode core), primary
// device attributes (DA1), the kitty keyboard flags and the cursor position.
var queryRe = regexp.MustCompile(`\x1b\](1[01]);\?(?:\x07|\x1b\\)|\x1b\[\?(\d+)\$p|\x1b\[0?c|\x1b\[\?u|\x1b\[6n`)

// answer is what a dark xterm-like terminal that supports synchronized
// output replies to a query matched by queryRe.
func answer(m []string) string {
	switch {
	case m[1] == "11":
		return "\x1b]11;rgb:1c1c/1c1c/1c1c\x1b\\"
	case m[1] == "10":
		return "\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\"
	case m[2] != "":
		state := 0 // not recognized
		if n, _ := strconv.Atoi(m[2]); n == 2026 {
			state = 2 // recognized, reset
		}
		return fmt.Sprintf("\x1b[?%s;%d$y", m[2], state)
	case strings.HasSuffix(m[0], "c"):
		return "\x1b[?62;22c"
	case strings.HasSuffix(m[0], "u"):
		return "\x1b[?0u"
	}
	return "\x1b[1;1R"
}

// ptyTerm is a program in a pseudo-terminal that answers its queries,
// tells when its screen first held every one of a set of texts, and hands
// over every frame it writes after that.
type ptyTerm struct {
	cmd    *exec.Cmd
	tty    *os.File
	start  time.Time
	shown  chan time.Duration // once: when every want was on screen
	frames chan frame         // every synchronized update, in order
	done   chan struct{}      // the reader stopped
}

// frame is one update the program wrote, as the terminal shows it at
// once: from the end of the previous one to the end of its synchronized
// output (DECRST 2026, which the terminal answers as supported).
type frame struct {
	at   time.Time // when its last byte was read
	text string    // its text, escape sequences taken out
}

var syncEnd = []byte(ansi.ResetModeSynchronizedOutput)

// startPty execs bin in a 80×24 pseudo-terminal. want are texts that
// together mean the awaited frame is on screen, looked for in the output
// with its escape sequences taken out.
func startPty(b *testing.B, env []string, want []string, bin string, args ...string) *ptyTerm {
	b.Helper()
	return startPtySize(b, 80, 24, env, want, bin, args...)
}

// startPtySize is startPty in a cols×rows pseudo-terminal.
func startPtySize(b *testing.B, cols, rows uint16, env []string, want []string, bin string, args ...string) *ptyTerm {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	t := &ptyTerm{cmd: cmd, shown: make(chan time.Duration, 1), frames: make(chan frame, 4096), done: make(chan struct{})}
	t.start = time.Now()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		b.Fatal(err)
	}
	t.tty = tty
	go t.read(want)
	return t
}

func (t *ptyTerm) read(want []string) {
	defer close(t.done)
	var out []byte
	answered, seen := 0, false
	lastEnd, scan := 0, 0 // where the last frame ended; where to look for the next end
	buf := make([]byte, 64<<10)
	for {
		n, err := t.tty.Read(buf)
		now := time.Now()
		at := now.Sub(t.start)
		out = append(out, buf[:n]...)
		for {
			i := bytes.Index(out[scan:], syncEnd)
			if i < 0 {
				scan = max(scan, len(out)-len(syncEnd)+1)
				break
			}
			end := scan + i + len(syncEnd)
			select {
			case t.frames <- frame{at: now, text: ansi.Strip(string(out[lastEnd:end]))}:
			default: // nobody reads them: only the start's frames pile up
			}
			lastEnd, scan = end, end
		}
		// Answer the queries that arrived, in order, once each.
		base := answered
		for _, loc := range queryRe.FindAllSubmatchIndex(out[base:], -1) {
			m := make([]string, 3)
			for g := range m {
				if loc[2*g] >= 0 {
					m[g] = string(out[base+loc[2*g] : base+loc[2*g+1]])
				}
			}
			_, _ = t.tty.WriteString(answer(m))
			answered = base + loc[1]
		}
		if !seen {
			screen := ansi.Strip(string(out))
			all := true
			for _, w := range want {
				all = all && strings.Contains(screen, w)
			}
			if all {
				seen = true
				t.shown <- at
			}
		}
		if err != nil {
			return
		}
	}
}

// wait returns how long after exec the awaited frame was on screen, then
// ends the program and waits for it.
func (t *ptyTerm) wait(b *testing.B) time.Duration {
	b.Helper()
	defer t.stop()
	return t.firstFrame(b)
}

// firstFrame returns how long after exec the awaited frame was on screen;
// the program goes on.
func (t *ptyTerm) firstFrame(b *testing.B) time.Duration {
	b.Helper()
	select {
	case d := <-t.shown:
		return d
	case <-t.done:
	case <-time.After(20 * time.Second):
	}
	b.Fatalf("%s: the awaited frame never came", filepath.Base(t.cmd.Path))
	return 0
}

func (t *ptyTerm) stop() {
	_ = t.cmd.Process.Kill()
	_ = t.cmd.Wait()
	t.tty.Close()
	<-t.done
}

// dashboardBeside builds vastdash and the bare Bubble Tea yardstick and
// returns them with a new user's environment; it skips under -short.
func dashboardBeside(b *testing.B) (bin, yard string, env []string) {
	if testing.Short() {
		b.Skip("builds and runs binaries")
	}
	return buildVastdash(b), buildYardstick(b, "bubbletea"), benchEnv(b)
}

// BenchmarkStartFirstFrame is the dashboard from exec to its first full
// frame (the header's title on the first line, "quit" ending the help on
// the last) in an 80×24 pseudo-terminal, beside a bare Bubble Tea program
// of the same version filling the screen (testdata/yardstick/bubbletea).
// vastdash runs with --demo: its server starts in-process and no request
// leaves the machine. Goal: ≤ 1.4× the yardstick.
func BenchmarkStartFirstFrame(b *testing.B) {
	bin, yard, env := dashboardBeside(b)
	var p paired
	for i := 0; b.Loop(); i++ {
		v, y := alternate(i,
			func() time.Duration {
				return startPty(b, env, []string{"vastdash", "DEMO", "quit"}, bin, "--demo").wait(b)
			},
			func() time.Duration { return startPty(b, env, []string{"line 1", "yardstick ready"}, yard).wait(b) })
		p.add(v, y)
	}
	p.report(b, "first-frame")
}

// BenchmarkStartCreditOnScreen is the dashboard from exec to the credit in
// its header, in a pseudo-terminal, against the demo server answering
// every request 100 ms late (one round trip). ms-over-rtt is what the start
// adds to the round trip; the goal is ≤ 20 ms.
func BenchmarkStartCreditOnScreen(b *testing.B) {
	if testing.Short() {
		b.Skip("builds and runs binaries")
	}
	const rtt = 100 * time.Millisecond
	bin := buildVastdash(b)
	srv, err := demoserver.Start(demoserver.Options{Latency: rtt, Threshold: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	want := money.Amount(srv.Credit()).Credit()
	env := benchEnv(b, "VAST_API_KEY="+demoserver.DemoKey)
	var total []float64
	for b.Loop() {
		d := startPty(b, env, []string{want}, bin, "--url", srv.URL()).wait(b)
		total = append(total, ms(d))
	}
	b.ReportMetric(median(total), "ms-credit-on-screen")
	b.ReportMetric(median(total)-ms(rtt), "ms-over-rtt")
	b.ReportMetric(0, "ns/op")
}

// settle waits until the program has written no frame for quiet, so what
// comes next answers what is sent next; it fails after limit.
func (t *ptyTerm) settle(b *testing.B, quiet, limit time.Duration) {
	b.Helper()
	deadline := time.After(limit)
	for {
		select {
		case <-t.frames:
		case <-time.After(quiet):
			return
		case <-t.done:
			b.Fatalf("%s ended", filepath.Base(t.cmd.Path))
		case <-deadline:
			b.Fatalf("%s kept drawing for %s", filepath.Base(t.cmd.Path), limit)
		}
	}
}

// keyToScreen types key and returns how long until the terminal holds
// the frame that answers it: the first frame after the key whose text has
// marker (a text of the screen the key leads to).
func (t *ptyTerm) keyToScreen(b *testing.B, key, marker string) time.Duration {
	b.Helper()
	sent := time.Now()
	if _, err := t.tty.WriteString(key); err != nil {
		b.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	var seen []string
	for {
		select {
		case f := <-t.frames:
			if strings.Contains(f.text, marker) {
				return f.at.Sub(sent)
			}
			seen = append(seen, f.text)
		case <-t.done:
			b.Fatalf("%s ended", filepath.Base(t.cmd.Path))
		case <-deadline:
			b.Fatalf("%s: no frame with %q within 10 s of the key %q; frames: %q", filepath.Base(t.cmd.Path), marker, key, seen)
		}
	}
}

// keyStep is a key and a text of the screen it leads to.
type keyStep struct{ key, marker string }

// BenchmarkKeyToScreen is a key typed into the built dashboard (`--demo`,
// every load done, 80×24 pseudo-terminal answering the terminal's queries)
// until the frame that answers it has reached the terminal, beside the
// same keys typed into a bare Bubble Tea program with the same tab row
// (testdata/yardstick/bubbletea), one key each in alternating order per
// iteration. tabs switches screens (1 → 2 → 3 → 4 → 1, vastdash's screens
// each redrawing most of the frame); cursor moves the cursor on the Charges
// screen (j, k). Between keys both programs rest a random 20–60 ms, so a
// key meets the renderer's ticker at any phase. Goal (issue 21): the
// median ≤ 1.4× the yardstick's and < 16 ms, p90 < 30 ms.
func BenchmarkKeyToScreen(b *testing.B) {
	bin, yard, env := dashboardBeside(b)
	// The active tab is drawn in another style, so a switch redraws it
	// whole in both programs, brackets included.
	tabs := []keyStep{{"2", "[2 Charges]"}, {"3", "[3 Notifications]"}, {"4", "[4 Statement]"}, {"1", "[1 Overview]"}}
	for _, c := range []struct {
		name      string
		setup     string // keys typed before, to both
		vastdash  []keyStep
		yardstick []keyStep
	}{
		{"tabs", "", tabs, tabs},
		{"cursor", "2", []keyStep{{"j", "›"}, {"k", "›"}}, []keyStep{{"j", "›"}, {"k", "›"}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			v := startPty(b, env, []string{"vastdash", "DEMO", "quit"}, bin, "--demo")
			defer v.stop()
			y := startPty(b, env, []string{"line 1", "yardstick ready"}, yard)
			defer y.stop()
			v.firstFrame(b)
			y.firstFrame(b)
			// Every screen once, so every load (the Statement's year
			// included) is done before the first key is timed.
			for _, s := range tabs {
				_, _ = v.tty.WriteString(s.key)
				v.settle(b, 300*time.Millisecond, time.Minute)
			}
			for _, t := range []*ptyTerm{v, y} {
				_, _ = t.tty.WriteString(c.setup)
				t.settle(b, time.Second, time.Minute)
			}
			var vs, ys []float64
			for i := 0; b.Loop(); i++ {
				sv, sy := c.vastdash[i%len(c.vastdash)], c.yardstick[i%len(c.yardstick)]
				dv, dy := alternate(i,
					func() time.Duration { rest(); return v.keyToScreen(b, sv.key, sv.marker) },
					func() time.Duration { rest(); return y.keyToScreen(b, sy.key, sy.marker) })
				vs, ys = append(vs, ms(dv)), append(ys, ms(dy))
			}
			// The two programs' keys meet their tickers at independent
			// phases: the goal compares the medians, not pairs.
			b.ReportMetric(median(vs), "ms-key-to-screen")
			b.ReportMetric(percentile(vs, 0.9), "ms-p90")
			b.ReportMetric(median(ys), "ms-yardstick")
			b.ReportMetric(percentile(ys, 0.9), "ms-p90-yardstick")
			b.ReportMetric(median(vs)/median(ys), "x-yardstick")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// rest waits 20–60 ms, so the next key is not in step with the renderer's
// ticker.
func rest() { time.Sleep(20*time.Millisecond + rand.N(40*time.Millisecond)) }

// percentile is the nearest-rank q-th percentile of xs.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(int(math.Ceil(q*float64(len(s))))-1, len(s)-1)]
}

// cpuTime is the CPU time the threads of t's process have used so far,
// to the nanosecond (/proc/PID/task/*/schedstat; /proc/PID/stat counts in
// 10 ms ticks, too coarse for an idle program).
func (t *ptyTerm) cpuTime(b *testing.B) time.Duration {
	b.Helper()
	dir := fmt.Sprintf("/proc/%d/task", t.cmd.Process.Pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var sum time.Duration
	for _, task := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, task.Name(), "schedstat"))
		if err != nil {
			continue // the thread just ended
		}
		f := strings.Fields(string(data))
		if len(f) == 0 {
			b.Fatalf("%s/schedstat: %q", task.Name(), data)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		sum += time.Duration(ns)
	}
	return sum
}

// idleWindow is how long one iteration of BenchmarkIdle watches.
const idleWindow = 10 * time.Second

// BenchmarkIdle is the CPU the built dashboard (`--demo`, default
// settings, 80×24 pseudo-terminal) uses sitting idle once every screen has
// loaded, beside the bare Bubble Tea yardstick over the same window of
// idleWindow, as a percentage of one core. Both wake only for Bubble Tea's
// renderer ticker (60 a second) unless something changes; the refresh
// (every 60 s by default) reads the credit and the rate. Goal (issue 21):
// no more than the yardstick + 0.1% of a core.
func BenchmarkIdle(b *testing.B) {
	bin, yard, env := dashboardBeside(b)
	v := startPty(b, env, []string{"vastdash", "DEMO", "quit"}, bin, "--demo")
	defer v.stop()
	y := startPty(b, env, []string{"line 1", "yardstick ready"}, yard)
	defer y.stop()
	v.firstFrame(b)
	y.firstFrame(b)
	for _, k := range []string{"2", "3", "4", "1"} {
		_, _ = v.tty.WriteString(k)
		v.settle(b, 300*time.Millisecond, time.Minute)
	}
	v.settle(b, time.Second, time.Minute)
	y.settle(b, time.Second, time.Minute)
	var vs, ys []float64
	for b.Loop() {
		v0, y0 := v.cpuTime(b), y.cpuTime(b)
		time.Sleep(idleWindow)
		v1, y1 := v.cpuTime(b), y.cpuTime(b)
		vs = append(vs, 100*float64(v1-v0)/float64(idleWindow))
		ys = append(ys, 100*float64(y1-y0)/float64(idleWindow))
	}
	b.ReportMetric(median(vs), "%core-idle")
	b.ReportMetric(median(ys), "%core-yardstick")
	b.ReportMetric(median(vs)-median(ys), "%core-over-yardstick")
	b.ReportMetric(0, "ns/op")
}
