package demoserver

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// Fault makes matching requests misbehave. Faults are checked in the order
// added, on arrival, before routing, authentication and pacing; the first live match applies. Set one of Hang, Status, HugeBody,
// or leave them zero to serve the real response, optionally delayed,
// rewritten by Mutate and/or cut by ResetAfterBytes.
type Fault struct {
	// Method and Path select requests; "" matches any. Path is compared
	// without a trailing slash, e.g. "/api/v0/charges".
	Method, Path string
	// Times is how many matching requests the fault applies to before it
	// expires; 0 means until [Server.ClearFaults].
	Times int
	// Until, if set, limits the fault to the time before it (by
	// [Options.Clock]), e.g. "429 for ten seconds".
	Until time.Time
	// Status answers with this status and Body, Content-Type ContentType
	// (default application/json).
	Status      int
	Body        string
	ContentType string
	// Applied, with Status, serves the request for real first — what it
	// changes lands — and then answers with Status and Body: a server or
	// gateway that failed after the change was applied (a 502 HTML page
	// in place of the answer).
	Applied bool
	// Delay is waited before answering (any kind of answer).
	Delay time.Duration
	// Hang accepts the request and never answers, until the client gives up
	// (request context done) or the server closes.
	Hang bool
	// ResetAfterBytes serves the real response (after Mutate) with its full
	// Content-Length but closes the connection after this many body bytes,
	// so the client sees a truncated body. 0 or negative: off.
	ResetAfterBytes int
	// HugeBody answers 200 with a JSON-looking body of exactly this many
	// bytes, streamed with chunked encoding (no Content-Length, never held in
	// memory), to test a client's size limit.
	HugeBody int64
	// Mutate rewrites the real response body (wrong types, truncation, HTML
	// ...); status and headers are kept, Content-Length fixed, Content-Type
	// replaced by ContentType when set.
	Mutate func(body []byte) []byte
}

type faultState struct {
	f    Fault
	left int // remaining uses when f.Times > 0
}

// AddFault appends f to the fault list.
func (s *Server) AddFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &faultState{f: f, left: f.Times})
}

// ClearFaults removes every fault. Requests already held by a fault (Hang,
// Delay) are not released; Close does that.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// takeFault returns the first live fault matching r, consuming one use.
func (s *Server) takeFault(r *http.Request) *Fault {
	now := s.clock()
	p := normPath(r.URL.Path)
	s.mu.Lock()
	defer s.mu.Unlock()
	live := s.faults[:0]
	var hit *Fault
	for _, fs := range s.faults {
		if !fs.f.Until.IsZero() && !now.Before(fs.f.Until) {
			continue // expired: dropped
		}
		if hit == nil && (fs.f.Method == "" || fs.f.Method == r.Method) && (fs.f.Path == "" || normPath(fs.f.Path) == p) {
			f := fs.f
			hit = &f
			if fs.f.Times > 0 {
				fs.left--
				if fs.left <= 0 {
					continue
				}
			}
		}
		live = append(live, fs)
	}
	clear(s.faults[len(live):])
	s.faults = live
	return hit
}

// captureWriter collects a real response so a fault can rewrite or cut it.
type captureWriter struct {
	h      http.Header
	status int
	buf    bytes.Buffer
}

func (c *captureWriter) Header() http.Header { return c.h }
func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}
func (c *captureWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.buf.Write(p)
}

func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f *Fault, body []byte, tooBig bool) {
	ctx := r.Context()
	s.sleep(ctx, f.Delay)
	ct := f.ContentType
	switch {
	case f.Hang:
		select {
		case <-ctx.Done():
		case <-s.done:
		}
		abort()
	case f.Status != 0:
		if f.Applied {
			s.route(&captureWriter{h: http.Header{}}, r, body, tooBig)
		}
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Length", strconv.Itoa(len(f.Body)))
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
	case f.HugeBody > 0:
		s.streamHuge(w, r, f.HugeBody, ct)
	case f.Mutate != nil || f.ResetAfterBytes > 0:
		cw := &captureWriter{h: http.Header{}}
		s.route(cw, r, body, tooBig)
		out := cw.buf.Bytes()
		if f.Mutate != nil {
			out = f.Mutate(bytes.Clone(out))
		}
		h := w.Header()
		for k, v := range cw.h {
			h[k] = v
		}
		if ct != "" {
			h.Set("Content-Type", ct)
		}
		h.Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(cw.status)
		if f.ResetAfterBytes <= 0 {
			_, _ = w.Write(out)
			return
		}
		_, _ = w.Write(out[:min(f.ResetAfterBytes, len(out))])
		_ = http.NewResponseController(w).Flush()
		// The client sees headers, the first bytes, then EOF.
		abort()
	default: // Delay only
		s.route(w, r, body, tooBig)
	}
}

// streamHuge writes n bytes of `{"success":true,"padding":"xxxx…"}` without
// holding them. If the client or the server goes away first it aborts, so
// the body can never look complete.
func (s *Server) streamHuge(w http.ResponseWriter, r *http.Request, n int64, ct string) {
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	head := []byte(`{"success":true,"padding":"`)
	tail := []byte(`"}`)
	chunk := bytes.Repeat([]byte{'x'}, 32<<10)
	var sent int64
	write := func(p []byte) bool {
		if rest := n - sent; int64(len(p)) > rest {
			p = p[:rest]
		}
		if len(p) == 0 {
			return true // n already reached
		}
		select {
		case <-r.Context().Done():
			return false
		case <-s.done:
			return false
		default:
		}
		k, err := w.Write(p)
		sent += int64(k)
		return err == nil
	}
	if !write(head) {
		abort()
	}
	for n-sent > int64(len(tail)) {
		pad := chunk
		if rest := n - sent - int64(len(tail)); rest < int64(len(pad)) {
			pad = pad[:rest]
		}
		if !write(pad) {
			abort()
		}
	}
	if !write(tail) {
		abort()
	}
}
