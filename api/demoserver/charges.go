package demoserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	defaultLimit = 100
	maxLimit     = 500
	maxViews     = 16 // cached filter sets; a paging client needs one
)

const msgDay = "Both gte and lte of day must be given in select_filters."

// cursor is what next_token encodes: the filter set it belongs to and the
// key (start, id) of the last entry served. Limit is deliberately not part
// of it, so a client may change the page size while paging.
type cursor struct {
	V           int    `json:"v"`
	Gte         int64  `json:"gte"`
	Lte         int64  `json:"lte"`
	Types       uint8  `json:"types"`
	Format      string `json:"format"`
	LatestFirst bool   `json:"latest_first"`
	Start       int64  `json:"start"`
	ID          int64  `json:"id"`
}

func formatName(tree bool) string {
	if tree {
		return "tree"
	}
	return "table"
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	// Standard base64 (with + / =) on purpose: a client that forgets to
	// escape the query value breaks here rather than in production.
	return base64.StdEncoding.EncodeToString(b)
}

func decodeCursor(tok string) (cursor, bool) {
	raw, err := base64.StdEncoding.DecodeString(tok)
	if err != nil {
		return cursor{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c cursor
	if dec.Decode(&c) != nil || c.V != 1 {
		return cursor{}, false
	}
	return c, true
}

// parseUnix accepts a JSON number (integer or not, truncated); strings and
// null are rejected like a missing bound.
func parseUnix(raw json.RawMessage) (int64, bool) {
	t := strings.TrimSpace(string(raw))
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f > math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(f), true
}

// parseFilters decodes select_filters; msg is the 400 message on failure.
func parseFilters(sf string) (gte, lte int64, mask uint8, msg string) {
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(sf), &top) != nil || top == nil {
		return 0, 0, 0, msgDay
	}
	var day map[string]json.RawMessage
	if json.Unmarshal(top["day"], &day) != nil || day == nil {
		return 0, 0, 0, msgDay
	}
	var ok1, ok2 bool
	gte, ok1 = parseUnix(day["gte"])
	lte, ok2 = parseUnix(day["lte"])
	if !ok1 || !ok2 {
		return 0, 0, 0, msgDay
	}
	mask = kindAll
	if raw, ok := top["type"]; ok && string(raw) != "null" {
		var tf map[string][]string
		if json.Unmarshal(raw, &tf) != nil || len(tf) != 1 || tf["in"] == nil {
			return 0, 0, 0, `The type filter must look like {"in": ["instance", "volume", "serverless"]}.`
		}
		if len(tf["in"]) == 0 {
			return 0, 0, 0, "The type filter must list at least one of instance, volume, serverless."
		}
		mask = 0
		for _, t := range tf["in"] {
			bit := typeBit(t)
			if bit == 0 {
				return 0, 0, 0, "Unknown type " + strconv.Quote(t) + " in select_filters; expected instance, volume or serverless."
			}
			mask |= bit
		}
	}
	return gte, lte, mask, ""
}

func parseBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// thresholdText prints a duration in seconds the way the real 429 does
// ("1.0", "0.25").
func thresholdText(d time.Duration) string {
	t := strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	if !strings.Contains(t, ".") {
		t += ".0"
	}
	return t
}

func (s *Server) write429(w http.ResponseWriter, th time.Duration) {
	msg := "API requests too frequent endpoint threshold=" + thresholdText(th)
	if s.opts.PlainText429 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(msg)))
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(msg))
		return
	}
	b := appendString([]byte(`{"detail":`), msg)
	writeJSON(w, http.StatusTooManyRequests, append(b, '}'))
}

// pace reports whether a charges request of ki may proceed now. Only
// accepted requests move the interval clock: a rejected one does not push
// the next allowed moment further away.
func (s *Server) pace(ki *keyInfo) (time.Duration, bool) {
	th := time.Duration(s.threshold.Load())
	if th <= 0 {
		return th, true
	}
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if last, ok := s.lastCharge[ki]; ok && now.Sub(last) < th {
		return th, false
	}
	s.lastCharge[ki] = now
	return th, true
}

func (s *Server) view(d *dataset, k viewKey) *view {
	s.mu.Lock()
	v := s.views[k]
	s.mu.Unlock()
	if v != nil && v.data == d {
		return v
	}
	v = d.buildView(k, s.windowOf(k.gte, k.lte))
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.views) >= maxViews {
		for old := range s.views {
			delete(s.views, old)
			break
		}
	}
	s.views[k] = v
	return v
}

func (s *Server) serveCharges(w http.ResponseWriter, r *http.Request, _ string, ki *keyInfo, _ []byte) {
	if th, ok := s.pace(ki); !ok {
		s.write429(w, th)
		return
	}
	q := r.URL.Query()
	gte, lte, mask, msg := parseFilters(q.Get("select_filters"))
	if msg != "" {
		writeError(w, http.StatusBadRequest, "", msg)
		return
	}
	tree := false
	switch q.Get("format") {
	case "", "table":
	case "tree":
		tree = true
	default:
		writeError(w, http.StatusBadRequest, "", `format must be "table" or "tree".`)
		return
	}
	latest, ok := queryLatestFirst(w, q)
	if !ok {
		return
	}
	limit, ok := queryLimit(w, q, defaultLimit, maxLimit)
	if !ok {
		return
	}
	cur := cursor{V: 1, Gte: gte, Lte: lte, Types: mask, Format: formatName(tree), LatestFirst: latest}
	var after *cursor
	if tok := q.Get("after_token"); tok != "" {
		c, ok := decodeCursor(tok)
		if !ok || c.Gte != gte || c.Lte != lte || c.Types != mask || c.Format != cur.Format || c.LatestFirst != latest {
			writeError(w, http.StatusBadRequest, "invalid_token", "Invalid pagination token.")
			return
		}
		after = &c
	}

	d := s.ds()
	refs := s.view(d, viewKey{gte: gte, lte: lte, mask: mask, tree: tree}).refs
	win := s.windowOf(gte, lte)
	less := func(i int, start, id int64) bool { // refs[i] < (start, id)
		s0, i0 := d.key(refs[i])
		return s0 < start || s0 == start && i0 < id
	}
	// page holds ascending indexes [lo, hi) of refs; served reversed when
	// latest first.
	var lo, hi int
	var more bool
	if latest {
		hi = len(refs)
		if after != nil {
			hi = sort.Search(len(refs), func(i int) bool { return !less(i, after.Start, after.ID) })
		}
		lo = max(0, hi-limit)
		more = lo > 0
	} else {
		if after != nil {
			lo = sort.Search(len(refs), func(i int) bool {
				s0, i0 := d.key(refs[i])
				return s0 > after.Start || s0 == after.Start && i0 > after.ID
			})
		}
		hi = min(len(refs), lo+limit)
		more = hi < len(refs)
	}

	b := make([]byte, 0, 4096+(hi-lo)*900)
	b = append(b, `{"success":true,"count":`...)
	b = strconv.AppendInt(b, int64(hi-lo), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(len(refs)), 10)
	b = append(b, `,"next_token":`...)
	if more {
		last := hi - 1
		if latest {
			last = lo
		}
		cur.Start, cur.ID = d.key(refs[last])
		b = appendString(b, cur.encode())
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"results":[`...)
	ordered(hi-lo, latest, func(i int) {
		if b[len(b)-1] != '[' {
			b = append(b, ',')
		}
		ref := refs[lo+i]
		if ref.w != nil {
			b = d.appendWrapper(b, ref.w, latest, win)
		} else {
			b = d.appendContract(b, ref.ci, win)
		}
	})
	b = append(b, "]}"...)
	writeJSON(w, http.StatusOK, b)
}
