package ledger

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Handle owns one run's ledger from its open to its close: the front end
// that makes it decides when the file opens (Start beside a dashboard's
// first frame, or when first wanted), the billing layer reads and writes
// through it and gives it up on a failure, and the front end closes it.
// Its note is what the user is told of the ledger this run (why it is off,
// or that a corrupt file was started anew). It opens once: every reader
// waits for an open in flight. A nil *Handle is no ledger, said nowhere.
type Handle struct {
	// open makes the ledger (nil for Opened and Off, whose open has ended
	// when they are made); tell, when set, hears the open's note instead of
	// Note (see Opening).
	open func() (*Ledger, string)
	tell func(note string)

	once    sync.Once
	started atomic.Bool // an open was asked for (Close then waits for it)
	done    atomic.Bool // the open has ended

	mu sync.Mutex
	// opened is the ledger the open made (closed by Close even once it
	// was given up); led is the one in use, nil once given up.
	opened, led *Ledger
	// note is why the ledger is off this run, or was started anew;
	// failure why it was given up, in words (a sync asked by name fails
	// with it); reset once a corrupt file was moved aside this run.
	note, failure string
	reset         bool
	closed        bool
}

// Opening is a handle on the ledger of the account identity names, in
// dir, opened when first wanted (or at Start). identity is asked once, by
// the open (it may read the account from the server). A file that cannot
// be opened leaves the run without a ledger, and the note says why; a
// corrupt one is moved aside and started anew, and the note says so.
// tell, when not nil, hears the open's note the moment it is known
// instead of Note keeping it (a command says it on stderr before its
// answer; a dashboard, with no tell, on its status line through Note).
func Opening(dir string, identity func() (Identity, error), tell func(note string)) *Handle {
	return &Handle{tell: tell, open: func() (*Ledger, string) {
		id, err := identity()
		if err != nil {
			return nil, "the ledger is off this run: " + err.Error()
		}
		path := Path(dir, id)
		l, moved, err := Open(path, id)
		switch {
		case err != nil:
			return nil, "the ledger is off this run: " + err.Error()
		case moved != "":
			return l, "the ledger " + path + " was unreadable: moved to " + moved + "; it is rebuilt from the server"
		}
		return l, ""
	}}
}

// Opened is a handle on l, already open: its caller closes l.
func Opened(l *Ledger) *Handle {
	h := &Handle{opened: l, led: l}
	h.done.Store(true)
	return h
}

// Off is a handle on no ledger, with the note saying why.
func Off(note string) *Handle {
	h := &Handle{note: note}
	h.done.Store(true)
	return h
}

// Start begins the open in the background: the first reader then waits
// only for what is left of it.
func (h *Handle) Start() {
	if h == nil || h.open == nil {
		return
	}
	h.started.Store(true)
	go h.once.Do(h.doOpen)
}

// doOpen is the one open of the handle.
func (h *Handle) doOpen() {
	defer h.done.Store(true)
	l, note := h.open()
	if note != "" && h.tell != nil {
		h.tell(note)
		note = ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.opened, h.led = l, l
	if note != "" {
		h.note = note
	}
}

// Wait opens the ledger if nobody has yet, waits until its open has ended
// and returns the ledger it opened (nil when it could not be), given up
// since or not.
func (h *Handle) Wait() *Ledger {
	if h == nil {
		return nil
	}
	if h.open != nil {
		h.started.Store(true)
		h.once.Do(h.doOpen)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.opened
}

// Ledger is the ledger in use, waiting for an open in flight (and opening
// it if nobody has): nil without one, or once it was given up.
func (h *Handle) Ledger() *Ledger {
	if h.Wait() == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.led
}

// MayUse reports, without waiting or opening, that there is a ledger or
// may be one: what is made meanwhile takes the ledger's way (whose first
// read opens it) and goes without it if the open fails.
func (h *Handle) MayUse() bool {
	if h == nil {
		return false
	}
	if h.open != nil && !h.done.Load() {
		return true
	}
	return h.Ledger() != nil
}

// Note is what the user is told of the ledger this run: why it was given
// up, or started anew ("" while in use, or still being opened: it never
// waits).
func (h *Handle) Note() string {
	if h == nil {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.note
}

// Failure is why the ledger was given up, in words ("the disk is full");
// "" while it is in use.
func (h *Handle) Failure() string {
	if h == nil {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failure
}

// GiveUp handles a failure of the ledger in use: a corrupt file is moved
// aside and a new one started (retry says to sync again, as does a window
// begun in the file moved aside); anything else (disk full, read-only, a
// lock held too long) drops the ledger for the rest of the run, what it
// holds left as it is. The note says so once, in words (Describe), never
// SQLite's. An interrupted write is no fault of the file, which stays in
// use.
func (h *Handle) GiveUp(err error) (retry bool) {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.led == nil || IsInterrupted(err) {
		// Cut short by its caller (a feed replaced while it wrote, a
		// command interrupted): no fault of the file, which stays in use.
		return false
	}
	if errors.Is(err, ErrMoved) {
		return true
	}
	if IsCorrupt(err) && !h.reset {
		h.reset = true
		moved, rerr := h.led.Reset()
		if rerr == nil {
			h.note = "the ledger " + h.led.Path() + " was unreadable: moved to " + moved + "; it is rebuilt from the server"
			return true
		}
		err = rerr
	}
	h.note = "the ledger " + h.led.Path() + " cannot be used (" + Describe(err) + "): this run reads the server"
	h.failure = Describe(err)
	h.led = nil
	return false
}

// Close waits for an open in flight and closes the ledger it opened; a
// handle never opened stays closed (no open begins after). Opened's
// ledger is its caller's to close.
func (h *Handle) Close() error {
	if h == nil || h.open == nil {
		return nil
	}
	h.once.Do(func() { h.done.Store(true) }) // waits for an open begun
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.opened == nil {
		return nil
	}
	h.closed = true
	return h.opened.Close()
}
