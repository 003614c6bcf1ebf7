package ui

import (
	"errors"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/ui/shared"
)

// The live part of the root: the current rate, the refresh that reads it
// and the credit again every Options.Refresh, the "updated … ago" of the
// header, and the alarm (status line and bell) when the credit crosses
// into trouble.
//
// Idle costs nothing beyond one timer per refresh interval: the age in the
// header is written as a bound that stays true until the next wake ("<1
// min ago" with a 60 s refresh), never as seconds that would need a
// per-second redraw; with refresh 0 it is the clock time of the reading and
// no timer exists at all.

// liveState is the root's share of the live reading.
type liveState struct {
	rate        *billing.CurrentRate // the last reading; nil before one
	rateErr     error                // why the last reading failed
	rateLoading bool
	// audit is the last reading of the leaks, auditErr why the last one
	// failed; auditLoading while one is in flight. auditOwed is a reload
	// asked (after an answer to a price increase) while one was: that
	// reading may have begun before the answer landed, so another follows
	// it.
	audit        *leaks.Audit
	auditErr     error
	auditLoading bool
	auditOwed    bool
	// updated is when the credit was last read successfully.
	updated time.Time
	// timer is set while a refresh timer is pending: there is only ever
	// one.
	timer bool
	// quiet marks the readings a refresh started: they do not turn the
	// spinner, so a refresh wakes the program once per interval and no
	// more (the header's age says when it landed).
	quiet bool
	watch billing.Watch
}

// refreshMsg is the refresh timer firing.
type refreshMsg struct{}

// statusLive names the alarm's status lines.
const statusLive = "live"

// fetchRate reads the current rate, as fetchUser reads the account.
func (m *Model) fetchRate() tea.Cmd {
	svc, base := m.ctx.Billing, m.ctx.Base
	m.live.rateLoading = true
	return func() tea.Msg {
		if svc == nil {
			return shared.RateMsg{Err: errors.New("no API client configured")}
		}
		r, err := svc.CurrentRate(base)
		return shared.RateMsg{Rate: r, Err: err}
	}
}

// reloadRate reads the rate again unless a reading is in flight.
func (m *Model) reloadRate() tea.Cmd {
	if m.live.rateLoading {
		return nil
	}
	return m.fetchRate()
}

// fetchAudit reads the leaks and pending price increases, as fetchRate
// reads the rate.
func (m *Model) fetchAudit() tea.Cmd {
	svc, base := m.ctx.Billing, m.ctx.Base
	m.live.auditLoading = true
	return func() tea.Msg {
		if svc == nil {
			return shared.AuditMsg{Err: errors.New("no API client configured")}
		}
		a, err := leaks.Read(base, svc)
		return shared.AuditMsg{Audit: a, Err: err}
	}
}

// reloadAudit reads the audit again unless a reading is in flight.
func (m *Model) reloadAudit() tea.Cmd {
	if m.live.auditLoading {
		return nil
	}
	return m.fetchAudit()
}

// liveUpdate is the live part of Update, after the message was routed:
// it notes readings, checks the alarms once a round of readings is in,
// and keeps the one refresh timer going.
func (m *Model) liveUpdate(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case shared.UserMsg:
		if msg.Err == nil {
			m.live.updated = m.ctx.Clock()
		}
		cmds = append(cmds, m.checkAlarms())
	case shared.RateMsg:
		m.live.rateLoading = false
		m.live.rateErr = msg.Err
		if msg.Err == nil {
			r := msg.Rate
			m.live.rate = &r
		}
		cmds = append(cmds, m.checkAlarms()) // update broadcast it to the screens
	case shared.AuditMsg:
		m.live.auditLoading = false
		m.live.auditErr = msg.Err
		if msg.Err == nil {
			a := msg.Audit
			m.live.audit = &a
		}
		if m.live.auditOwed {
			m.live.auditOwed = false
			cmds = append(cmds, m.fetchAudit())
		}
	case shared.AuditReloadMsg:
		// What changed on the server must show: a reading in flight may
		// predate it.
		m.live.auditOwed = m.live.auditLoading
		cmds = append(cmds, m.reloadAudit())
	case refreshMsg:
		m.live.timer = false
		if wait := m.opts.Refresh - m.ctx.Clock().Sub(m.live.updated); wait > 0 && !m.live.updated.IsZero() {
			// An r since the timer was set read everything already:
			// wait out the rest, so readings stay an interval apart.
			m.live.timer = true
			return shared.After(m.ctx.Base, wait, refreshMsg{})
		}
		m.live.quiet = !m.userLoading && !m.live.rateLoading && !m.live.auditLoading
		cmds = append(cmds, m.reloadUser())
		if r := m.live.rate; r == nil || r.NeedsPermission == "" || m.live.rateErr != nil {
			// A key without instance_read will not gain it by asking
			// every minute; r still asks.
			cmds = append(cmds, m.reloadRate())
		}
		cmds = append(cmds, m.reloadAudit())
	}
	if !m.userLoading && !m.live.rateLoading && !m.live.auditLoading {
		m.live.quiet = false
	}
	return tea.Batch(append(cmds, m.refreshTimer())...)
}

// liveLoading reports a reading of the credit or the rate in flight that
// the spinner shows: not a refresh's own.
func (m *Model) liveLoading() bool {
	return (m.userLoading || m.live.rateLoading || m.live.auditLoading) && !m.live.quiet
}

// refreshTimer starts the refresh timer when refresh is on, nothing is
// being read and no timer is pending. The next reading starts an interval
// after the last one ended, so a slow reading (many pages, paced) is never
// overlapped by the next.
//
// A rejected key stops the refresh: asking again every interval with a key
// the server refused would change nothing (r still asks).
func (m *Model) refreshTimer() tea.Cmd {
	if m.opts.Refresh <= 0 || m.live.timer || m.userLoading || m.live.rateLoading || m.live.auditLoading || m.userRejected() {
		return nil
	}
	m.live.timer = true
	return shared.After(m.ctx.Base, m.opts.Refresh, refreshMsg{})
}

// checkAlarms runs the watch once a round of readings is complete (credit
// and rate both in), says a crossing on the status line and rings once.
func (m *Model) checkAlarms() tea.Cmd {
	if m.userLoading || m.live.rateLoading {
		return nil
	}
	var u = m.user
	if m.userErr != nil {
		u = nil // the last read failed: the watch keeps what it knew
	}
	var r *billing.CurrentRate
	if m.live.rateErr == nil {
		r = m.live.rate
	}
	crossed := m.live.watch.Observe(u, r)
	if len(crossed) == 0 {
		if !m.live.watch.Active(billing.AlarmThreshold) && !m.live.watch.Active(billing.AlarmRunway) {
			return m.setStatus(shared.StatusMsg{Source: statusLive}) // clears only an alarm of ours
		}
		return nil
	}
	text := crossed[0].Text
	for _, c := range crossed[1:] {
		text += "; " + c.Text
	}
	return m.alarm(shared.AlarmMsg{Source: statusLive, Text: text, Ring: true})
}

// alarm says a screen's alarm on the status line and rings once when it
// asks to and the bell setting allows: the budget's crossings, heard the
// same way as the credit's.
func (m *Model) alarm(msg shared.AlarmMsg) tea.Cmd {
	cmd := m.setStatus(shared.StatusMsg{Source: msg.Source, Kind: shared.StatusWarn, Text: msg.Text})
	if !msg.Ring || m.opts.NoBell {
		return cmd
	}
	return tea.Batch(cmd, tea.Raw(bel))
}

// bel rings the terminal.
const bel = "\a"

// ageView is the header's "updated … ago": a bound that stays true until
// the next refresh wakes the program, or with refresh off the time of the
// reading. "" before the first reading.
func (m *Model) ageView() string {
	if m.live.updated.IsZero() {
		return ""
	}
	if m.userErr != nil && m.user != nil {
		// The last read failed: the credit shown is the one before, and
		// says so with its time (a clock time stays true with no redraw).
		return "stale: read at " + m.live.updated.In(m.ctx.Loc()).Format("15:04")
	}
	return "updated " + ageText(m.ctx.Clock().Sub(m.live.updated), m.opts.Refresh, m.live.updated.In(m.ctx.Loc()))
}

// ageText writes an age without needing a redraw before the next wake,
// which comes at most every interval: under the interval it is "<1 min
// ago" (the interval rounded up); past it (a refresh that failed or is
// slow) the age in its largest whole unit, floored; with refresh off
// (interval 0), the reading's clock time.
func ageText(age, interval time.Duration, at time.Time) string {
	switch {
	case interval <= 0:
		return "at " + at.Format("15:04")
	case age < interval:
		return "<" + span(interval, true) + " ago"
	}
	return span(age, false) + " ago"
}

// span is a duration in its largest whole unit, "40 s", "5 min", "2 h",
// rounded up or down; at least 1.
func span(d time.Duration, up bool) string {
	unit, name := time.Second, " s"
	switch {
	case d >= time.Hour:
		unit, name = time.Hour, " h"
	case d >= time.Minute:
		unit, name = time.Minute, " min"
	}
	n := d / unit
	if up && d%unit != 0 {
		n++
	}
	return strconv.Itoa(max(int(n), 1)) + name
}
