package alerting

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/config"
)

// accountState is what is remembered of one account between runs: the
// state file's content.
type accountState struct {
	// Rules are the conditions that fired and have not cleared since, by
	// key ("runway", "leak idle_gpu 12", "budget 2026-11 800").
	Rules map[string]ruleState `json:"rules,omitempty"`
	// Pending are the deliveries not yet made, oldest first.
	Pending []delivery `json:"pending,omitempty"`
	// Targets are the targets that are failing, by ID.
	Targets map[string]targetState `json:"targets,omitempty"`
	// DigestDay is the day ("2026-11-28", the settings' zone) of the last
	// digest sent at its time.
	DigestDay string `json:"digest_day,omitempty"`
	// Sent counts what was delivered, by rule, for `vastdash alerts`.
	Sent map[string]int `json:"sent,omitempty"`
	// disk is the state as the file holds it (encoded), so that a run
	// that changed nothing writes nothing: serve checks at every refresh.
	disk []byte
}

// ruleState is a condition that fired: when, and the figure then.
type ruleState struct {
	Fired  time.Time `json:"fired"`
	Figure string    `json:"figure,omitempty"`
}

// delivery is one message for one target, kept until it is delivered.
type delivery struct {
	Rule     string    `json:"rule"`
	Target   string    `json:"target"`
	Title    string    `json:"title"`
	Body     string    `json:"body"`
	Made     time.Time `json:"made"`
	Attempts int       `json:"attempts,omitempty"`
	Next     time.Time `json:"next,omitzero"`
	Error    string    `json:"error,omitempty"`
}

// targetState is a target whose deliveries fail: since when, and why.
type targetState struct {
	Since time.Time `json:"since"`
	Error string    `json:"error"`
}

// flip applies a condition with hysteresis to rule key: it fires (true)
// when on and not fired already, and re-arms when off.
func (st *accountState) flip(key string, on, off bool, now time.Time, figure string) bool {
	_, fired := st.Rules[key]
	switch {
	case on && !fired:
		st.set(key, now, figure)
		return true
	case off && fired:
		delete(st.Rules, key)
	}
	return false
}

// once fires key the first time it is seen.
func (st *accountState) once(key string, now time.Time) bool {
	if _, ok := st.Rules[key]; ok {
		return false
	}
	st.set(key, now, "")
	return true
}

func (st *accountState) set(key string, now time.Time, figure string) {
	if st.Rules == nil {
		st.Rules = map[string]ruleState{}
	}
	st.Rules[key] = ruleState{Fired: now, Figure: figure}
}

// forget re-arms the keys with prefix not in seen, when gone says the
// reading could have seen them (a section not read proves nothing).
func (st *accountState) forget(prefix string, seen map[string]bool, gone func(key string) bool) {
	for k := range st.Rules {
		if strings.HasPrefix(k, prefix) && !seen[k] && gone(k) {
			delete(st.Rules, k)
		}
	}
}

// maxStateFile caps the state file read: a few kilobytes in use, more with
// messages pending for a target long down.
const maxStateFile = 4 << 20

// maxPending bounds the deliveries kept: a target down for weeks must not
// grow the file without end. The oldest go first, said in the log.
const maxPending = 500

// StatePath is the state file of the account userID at host, in the
// folder of config.StatePath ($XDG_STATE_HOME/vastdash); "" when there
// is no home for it.
func StatePath(env config.Env, userID int64, host string) string {
	p := config.StatePath(env)
	if p == "" {
		return ""
	}
	h := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, host)
	if len(h) > 80 {
		h = h[:80]
	}
	return filepath.Join(filepath.Dir(p), "alerts-"+h+"-"+strconv.FormatInt(userID, 10)+".json")
}

// readState reads the state at path: empty when there is none yet. The
// file is opened without following a link and must be the user's alone.
func readState(path string) (accountState, error) {
	var st accountState
	f, err := config.OpenNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("alert state %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return st, fmt.Errorf("alert state %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return st, fmt.Errorf("alert state %s is not a regular file", path)
	}
	if why := config.NotOwnOnly(info); why != "" {
		return st, fmt.Errorf("alert state %s: %s", path, why)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err != nil {
		return st, fmt.Errorf("alert state %s: %w", path, err)
	}
	if len(data) > maxStateFile {
		return st, fmt.Errorf("alert state %s is larger than %d bytes: not one of vastdash's", path, maxStateFile)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return accountState{}, fmt.Errorf("alert state %s is unreadable (%v): remove it to start afresh (what fired before may be told again)", path, err)
	}
	st.disk = encodeState(&st)
	return st, nil
}

// encodeState is the state as the file holds it (nil if it cannot be
// encoded, which then always counts as a change).
func encodeState(st *accountState) []byte {
	data, err := json.MarshalIndent(st, "", "\t")
	if err != nil {
		return nil
	}
	return append(data, '\n')
}

// writeState replaces the state at path (0600, by rename).
// Nothing is written when st is what the file holds already.
func writeState(path string, st *accountState) error {
	data, err := json.MarshalIndent(st, "", "\t")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if st.disk != nil && bytes.Equal(data, st.disk) {
		return nil
	}
	if err := config.WriteFile(path, data); err != nil {
		return fmt.Errorf("alert state %s: %w", path, err)
	}
	st.disk = data
	return nil
}
