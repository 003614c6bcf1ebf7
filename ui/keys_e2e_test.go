package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/internal/screentest"
)

// This file presses every key of the Charges screen, and the tab, help and
// quit keys, through the real program loop: Bubble Tea reads the bytes a
// terminal would send from a pipe, parses them into keys and runs the real
// root against the demo server, writing to a buffer. Each test waits on
// what the user would see (the screen after each update, or the bytes
// written), never on a fixed sleep.

// Bytes a terminal sends for the keys used here.
const (
	kEnter    = "\r"
	kEsc      = "\x1b"
	kTab      = "\t"
	kShiftTab = "\x1b[Z"
	kUp       = "\x1b[A"
	kDown     = "\x1b[B"
	kRight    = "\x1b[C"
	kLeft     = "\x1b[D"
	kPgDown   = "\x1b[6~"
	kPgUp     = "\x1b[5~"
	kHome     = "\x1b[H"
	kEnd      = "\x1b[F"
	kCtrlC    = "\x03"
	kCtrlD    = "\x04"
	kCtrlF    = "\x06"
	kCtrlU    = "\x15"
)

// syncBuffer is the program's output, read while the program writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// keySession is one run of the dashboard fed through a pipe.
type keySession struct {
	t    *testing.T
	p    probe
	in   *io.PipeWriter
	out  *syncBuffer
	done chan error
	srv  *demoserver.Server
}

// startKeys starts the dashboard at w×h on a demo server of n contracts,
// with keys bound as b (nil: the defaults), and waits for its first frame
// with the credit.
func startKeys(t *testing.T, w, h, n int, b keymap.Bindings) *keySession {
	t.Helper()
	const threshold = 20 * time.Millisecond
	srv, err := demoserver.Start(demoserver.Options{Contracts: n, Threshold: threshold})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	client, err := api.New(srv.URL(), demoserver.DemoKey,
		api.WithChargesThreshold(threshold), api.WithPacingMargin(60*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	base, cancel := context.WithCancel(context.Background())
	svc := billing.New(base, client, billing.WithLocation(time.UTC), billing.WithClock(srv.Now))
	ctx := screentest.Context(base, svc, screentest.Keys(b))
	var screen string
	s := &keySession{t: t, out: &syncBuffer{}, done: make(chan error, 1), srv: srv}
	s.p = probe{Model: New(ctx, Options{Demo: true, Theme: "dark", Dark: true}), mu: &sync.Mutex{}, screen: &screen, seen: make(chan struct{}, 1)}
	r, wr := io.Pipe()
	s.in = wr
	prog := newProgram(base, s.p, nil,
		tea.WithInput(r), tea.WithOutput(s.out), tea.WithWindowSize(w, h), tea.WithoutSignalHandler())
	go func() { _, err := prog.Run(); s.done <- err }()
	t.Cleanup(func() {
		prog.Kill()
		<-s.done
		_ = wr.Close()
		cancel()
		svc.Close()
		// Bubble Tea leaves a command running when its program ends: a
		// text field's cursor blink ends within half a second. Wait for
		// it here, so TestMain's leak check sees none.
		for deadline := time.Now().Add(10 * time.Second); blinking() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // a poll, not a wait for something to happen
		}
	})
	s.p.waitFor(t, "the credit", contains("credit $"))
	return s
}

// blinking reports a text field's cursor blink still running.
func blinking() bool {
	buf := make([]byte, 1<<20)
	return bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("bubbles/v2/cursor.(*Model).Blink"))
}

// send writes the bytes of keys, one key per write, as a terminal would.
func (s *keySession) send(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		if _, err := io.WriteString(s.in, k); err != nil {
			s.t.Fatalf("writing %q: %v", k, err)
		}
	}
}

// wait waits for the screen to satisfy cond and returns it.
func (s *keySession) wait(what string, cond func(string) bool) string {
	s.t.Helper()
	return s.p.waitFor(s.t, what, cond)
}

// press sends one key and waits for the screen to satisfy cond.
func (s *keySession) press(k, what string, cond func(string) bool) string {
	s.t.Helper()
	s.send(k)
	return s.wait(what, cond)
}

// quits waits for the program to end after a quit key, without error.
func (s *keySession) quits(what string) {
	s.t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		if err != nil {
			s.t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(20 * time.Second):
		s.t.Fatalf("%s did not quit", what)
	}
}

// charges goes to the Charges screen and waits for its range to be loaded.
func (s *keySession) charges() string {
	s.t.Helper()
	s.send("2")
	return s.wait("the charges loaded", func(v string) bool {
		return strings.Contains(v, "[2 Charges]") && strings.Contains(v, "all loaded")
	})
}

// line returns the first line of v holding sub, or "".
func line(v, sub string) string {
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// rowIndex is the position of the cursor row among the screen's lines.
func rowIndex(v string) int {
	for i, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(l, "› ") {
			return i
		}
	}
	return -1
}

// rowID is the id shown on the cursor row ("1041585"), "" for none.
func rowID(v string) string {
	f := strings.Fields(strings.TrimPrefix(cursorRow(v), "› "))
	if len(f) < 3 || (f[1] != "▸" && f[1] != "▾") {
		return ""
	}
	return f[2]
}

// moved waits for the cursor row to leave the row from.
func (s *keySession) moved(what, from string) string {
	s.t.Helper()
	return s.wait(what, func(v string) bool { id := rowID(v); return id != "" && id != from })
}

func TestKeysMove(t *testing.T) {
	s := startKeys(t, 100, 30, 600, nil)
	v := s.charges()
	first := rowID(v)
	if first == "" {
		t.Fatalf("no cursor row:\n%s", v)
	}
	s.send("j")
	v = s.moved("j moves down", first)
	second := rowID(v)
	s.press("k", "k moves back up", func(v string) bool { return rowID(v) == first })
	s.press(kDown, "↓ moves down", func(v string) bool { return rowID(v) == second })
	s.press(kUp, "↑ moves up", func(v string) bool { return rowID(v) == first })
}

// lastRow reports the cursor on the last row: the footer follows it.
func lastRow(v string) bool {
	lines := strings.Split(v, "\n")
	i := rowIndex(v)
	return i >= 0 && i+1 < len(lines) && strings.Contains(lines[i+1], "all loaded")
}

func TestKeysPageAndEnds(t *testing.T) {
	s := startKeys(t, 100, 30, 600, nil)
	first := rowID(s.charges())
	for _, k := range []struct{ name, down, up string }{
		{"pgdn/pgup", kPgDown, kPgUp}, {"ctrl+d/ctrl+u", kCtrlD, kCtrlU},
	} {
		s.send(k.down)
		s.moved(k.name+": down", first)
		s.send(k.up)
		s.wait(k.name+": back up", func(v string) bool { return rowID(v) == first })
	}
	for _, k := range []struct{ name, end, home string }{{"G/g", "G", "g"}, {"end/home", kEnd, kHome}} {
		s.send(k.end)
		s.wait(k.name+": the last row", lastRow)
		s.send(k.home)
		s.wait(k.name+": the first row", func(v string) bool { return rowID(v) == first && rowIndex(v) == 4 })
	}
}

func TestKeysExpandCollapse(t *testing.T) {
	s := startKeys(t, 100, 30, 600, nil)
	s.charges()
	open := func(v string) bool { return strings.Contains(cursorRow(v), " ▾ ") }
	shut := func(v string) bool { return strings.Contains(cursorRow(v), " ▸ ") }
	v := s.press(kEnter, "enter opens the row", open)
	lines := strings.Split(v, "\n")
	if item := lines[rowIndex(v)+1]; !strings.Contains(item, "gpu") && !strings.Contains(item, "disk") {
		t.Fatalf("no item under the open row:\n%s", v)
	}
	s.press(" ", "space closes it", shut)
	s.press("l", "l opens it", open)
	s.press("l", "l on an open row steps onto its first item", func(v string) bool { return rowID(v) == "" && cursorRow(v) != "" })
	s.press("h", "h on an item goes to its parent", open)
	s.press("h", "h closes it", shut)
	s.press(kRight, "→ opens it", open)
	s.press(kLeft, "← closes it", shut)
}

func TestKeysFilters(t *testing.T) {
	s := startKeys(t, 120, 30, 600, nil)
	s.charges()
	bar := func(sub string) func(string) bool {
		return func(v string) bool { return strings.Contains(line(v, "range "), sub) }
	}
	s.press("d", "d: the next range", bar("range 90d ("))
	s.press("D", "D: the previous range", bar("range 30d ("))
	s.press("f", "f: tree format", bar("format tree"))
	s.press("f", "f: table format", bar("format table"))
	s.press("o", "o: oldest first", bar("oldest first"))
	s.press("s", "s: sorted by amount", bar("sort amount, largest first"))
	s.press("t", "t: the type picker", contains("types: ›[ ] instance"))
	s.send("v", kEnter)
	s.wait("the picker applied", bar("types volume"))

	from := s.srv.Now().AddDate(0, 0, -5).Format(time.DateOnly)
	s.press("c", "c: the range field", contains("custom range: "))
	s.send(kCtrlU)
	s.send(strings.Split(from+"..", "")...)
	s.press(kEnter, "the open range applied", bar("range "+from+".. ·"))
}

func TestKeysReloadKeepsCursor(t *testing.T) {
	s := startKeys(t, 100, 30, 600, nil)
	first := rowID(s.charges())
	s.send("j")
	second := rowID(s.moved("j", first))
	before := len(s.srv.Requests())
	v := s.press("r", "r reloads, the cursor on its row", func(v string) bool {
		return len(s.srv.Requests()) > before+1 && rowID(v) == second && strings.Contains(v, "all loaded")
	})
	if rowIndex(v) != 5 {
		t.Fatalf("cursor on line %d after r:\n%s", rowIndex(v), v)
	}
}

func TestKeysFind(t *testing.T) {
	s := startKeys(t, 100, 30, 600, nil)
	v := s.charges()
	s.send("j")
	id := rowID(s.moved("j", rowID(v)))
	s.press("/", "/ opens the find field", contains("find: "))
	s.send(strings.Split(id, "")...)
	s.wait("the rows found", func(v string) bool { return strings.Contains(v, "1 of ") && rowID(v) == id })
	s.press(kEnter, "enter keeps the filter", func(v string) bool { return !strings.Contains(v, "find: ") && strings.Contains(v, "/"+id+": 1 of ") })
	s.press(kEsc, "esc clears it", func(v string) bool { return !strings.Contains(v, "/"+id) && strings.Contains(v, "all loaded") })
}

func TestKeysDetailsCopyExport(t *testing.T) {
	t.Chdir(t.TempDir()) // e writes to the current folder
	s := startKeys(t, 100, 30, 600, nil)
	v := s.charges()
	f := strings.Fields(strings.TrimPrefix(cursorRow(v), "› "))
	src := f[0] + "-" + f[2] // "instance-1041585"
	s.press("i", "i opens the details", contains("details: "+src))
	s.press(kEsc, "esc closes them", func(v string) bool { return !strings.Contains(v, "details: ") && cursorRow(v) != "" })

	s.press("y", "y says what it copied", contains("copied "+src+" to the clipboard"))
	osc := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(src))
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(s.out.String(), osc) {
		if time.Now().After(deadline) {
			t.Fatalf("no OSC 52 of %s written", src)
		}
		select { // a poll: the bytes are written outside any update
		case <-s.p.seen:
		case <-time.After(20 * time.Millisecond):
		}
	}

	v = s.press("e", "e says where it wrote", contains("exported "))
	matches, _ := filepath.Glob("vastdash-charges-*.csv")
	if len(matches) != 1 || !strings.Contains(line(v, "exported "), "vastdash-charges-") {
		t.Fatalf("files %v, status %q", matches, line(v, "exported "))
	}
	info, err := os.Stat(matches[0])
	data, _ := os.ReadFile(matches[0])
	if err != nil || info.Mode().Perm() != 0o600 || !strings.HasPrefix(string(data), "start,end,type,source,label,description,amount,template_id,endpoint_id,workergroup_id\n") || !strings.Contains(string(data), src) {
		t.Fatalf("export %v %v:\n%.300s", info, err, data)
	}
}

func TestKeysScreensHelpQuit(t *testing.T) {
	s := startKeys(t, 100, 30, 600, nil)
	s.charges()
	tab := func(name string) func(string) bool { return contains("[" + name + "]") }
	s.press(kTab, "tab: the next screen", tab("3 Notifications"))
	s.press(kShiftTab, "shift+tab: the previous screen", tab("2 Charges"))
	s.press("1", "1: Overview", tab("1 Overview"))
	s.press("3", "3: Notifications", tab("3 Notifications"))
	s.press("2", "2: Charges", tab("2 Charges"))
	s.press("?", "?: every key", func(v string) bool { return strings.Contains(v, "Charges keys") && strings.Contains(v, "Everywhere") })
	s.press(kEsc, "esc closes the help", func(v string) bool { return !strings.Contains(v, "Charges keys") && cursorRow(v) != "" })
	s.send("q")
	s.quits("q")
}

// ctrl+c quits even while a text field has the keyboard, where q is typed.
func TestKeysForceQuitWhileTyping(t *testing.T) {
	s := startKeys(t, 100, 30, 600, nil)
	s.charges()
	s.send("/", "q")
	s.wait("q typed into the find field", contains("find: /q"))
	s.send(kCtrlC)
	s.quits("ctrl+c")
}

// A click on a row selects it; a click below the last row does nothing.
func TestClickSelectsRowThroughTheProgram(t *testing.T) {
	s := startKeys(t, 100, 40, 40, nil) // a handful of rows in the range, blank below
	v := s.charges()
	lines := strings.Split(v, "\n")
	target := rowIndex(v) + 2
	want := strings.Fields(lines[target])[2]
	click := func(y int) { s.send(fmt.Sprintf("\x1b[<0;10;%dM", y+1), fmt.Sprintf("\x1b[<0;10;%dm", y+1)) }
	click(target)
	s.wait("the clicked row selected", func(v string) bool { return rowID(v) == want && rowIndex(v) == target })
	blank := len(lines) - 4 // above the footer, status and help: no row there
	if strings.TrimSpace(lines[blank]) != "" {
		t.Fatalf("line %d is not blank:\n%s", blank, v)
	}
	click(blank)
	s.send("j") // a key after the click: once it shows, the click was handled
	v = s.wait("j after the click", func(v string) bool { return rowIndex(v) == target+1 })
	if rowIndex(v) != target+1 {
		t.Fatalf("the blank click moved the cursor:\n%s", v)
	}
}

// Keys as bound in [keys]: search on ctrl+f opens the find field, / no
// longer does, and the footer and the help show ctrl+f.
func TestReboundKeysThroughTheProgram(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"search": {"ctrl+f"}, "quit": {"Q"}})
	if err != nil {
		t.Fatal(err)
	}
	s := startKeys(t, 200, 40, 600, b)
	s.charges()
	s.send("/", "j")
	s.wait("/ does nothing, j still moves", func(v string) bool { return rowIndex(v) == 5 && !strings.Contains(v, "find:") })
	v := s.press("?", "the help", contains("Charges keys"))
	if !strings.Contains(v, "ctrl+f") || !strings.Contains(line(v, "ctrl+f"), "find") || line(v, "Q ") == "" {
		t.Fatalf("the help does not show the keys as bound:\n%s", v)
	}
	s.press(kEsc, "the help closed", func(v string) bool { return !strings.Contains(v, "Charges keys") })
	s.press(kCtrlF, "ctrl+f opens the find field", contains("find: "))
	v = s.press(kEsc, "closed", func(v string) bool { return !strings.Contains(v, "find: ") })
	if f := strings.Split(v, "\n"); !strings.HasSuffix(strings.TrimSpace(f[len(f)-1]), "Q quit") {
		t.Fatalf("the footer does not end with the bound quit key: %q", f[len(f)-1])
	}
	s.send("q") // no longer quits: the next key still moves the cursor
	s.press("j", "q does not quit", func(v string) bool { return rowIndex(v) == 6 })
	s.send("Q")
	s.quits("Q")
}

// The type picker's keys, and esc in the picker and the range field.
func TestKeysPickerAndCancel(t *testing.T) {
	s := startKeys(t, 120, 30, 600, nil)
	s.charges()
	picker := func(want string) func(string) bool {
		return func(v string) bool { return strings.Contains(line(v, "types:"), want) }
	}
	s.press("t", "t: the picker", picker("›[ ] instance  [ ] volume  [ ] serverless"))
	s.press("i", "i: instance", picker("›[x] instance"))
	s.press("s", "s: serverless, focused", picker("[x] instance  [ ] volume ›[x] serverless"))
	s.press("x", "x: the focused type off", picker("›[ ] serverless"))
	s.press("h", "h: focus left", picker("›[ ] volume"))
	s.press(" ", "space: the focused type on", picker("›[x] volume"))
	s.press(kLeft, "←: focus left", picker("›[x] instance"))
	s.press("l", "l: focus right", picker("›[x] volume"))
	s.press(kRight, "→: focus right", picker("›[ ] serverless"))
	s.press("v", "v: volume off, focused", picker("[x] instance ›[ ] volume"))
	s.press(kEsc, "esc: the picker cancelled", func(v string) bool {
		return !strings.Contains(v, "types:") && strings.Contains(line(v, "range "), "types all")
	})
	s.press("c", "c: the range field", contains("custom range: "))
	s.send("9")
	s.press(kEsc, "esc: the field cancelled", func(v string) bool {
		return !strings.Contains(v, "custom range:") && strings.Contains(line(v, "range "), "range 30d (")
	})
}
