package charges

import (
	"io"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/ui/shared"
)

// This file is e: the entries the screen shows — its range, types and
// format, the find filter, in the order of the sort — written to a CSV file
// in the current folder, in the format of `vastdash charges --output csv`
// (package export). Like that command without --items, one row per entry:
// with items the amount column would count each contract twice.

// exportedMsg reports an export's end: the path written, or why not.
type exportedMsg struct {
	path string
	n    int
	err  error
}

// exportName is the file name of the current range:
// vastdash-charges-2026-10-24..2026-11-23.csv.
func (m *Model) exportName() string {
	r := m.f.rng
	return "vastdash-charges-" + r.From.Format(time.DateOnly) + ".." + r.To.Format(time.DateOnly) + ".csv"
}

// startExport is e. Everything of the range must be in the file, so a feed
// not done loads the rest first (paced, as the footer shows) and the file
// is written when it is; the status line says so meanwhile.
func (m *Model) startExport() tea.Cmd {
	if !m.fl.Held() {
		m.setNotice(shared.StatusError, "nothing to export: "+errNoService.Error())
		return nil
	}
	if m.win != nil {
		return m.windowExport()
	}
	m.exporting = true
	if m.syncOnly {
		return nil // written from the window once the sync has made it
	}
	if !m.fl.State().Done {
		if m.fl.State().Err != nil {
			m.fl.Retry()
		}
		m.fl.WantAll()
		return nil
	}
	return m.exportCmd()
}

// exportCmd writes the entries shown now. It copies what it needs: the
// entries (read-only pages, copied as values), the folder, the name.
func (m *Model) exportCmd() tea.Cmd {
	m.exporting = false
	tops := m.orderedTops()
	entries := make([]api.Charge, len(tops))
	for i, n := range tops {
		entries[i] = *n
	}
	dir, name, loc := m.exportDir, m.exportName(), m.ctx.Loc()
	m.setNotice(shared.StatusInfo, "exporting "+strconv.Itoa(len(entries))+" entries…")
	return func() tea.Msg {
		path, err := writeExport(dir, name, entries, loc)
		return exportedMsg{path: path, n: len(entries), err: err}
	}
}

// writeExport creates the file (never over an existing one) and writes
// entries to it; a file left half written is removed.
func writeExport(dir, name string, entries []api.Charge, loc *time.Location) (string, error) {
	return export.ToFile(dir, name, func(w io.Writer) error { return export.WriteCSV(w, entries, false, loc) })
}

// exportStatus is the status line of an export waiting for the rest of the
// range, "" when none waits.
func (m *Model) exportStatus() string {
	if !m.exporting {
		return ""
	}
	text := "exporting: loading the rest of the range first: " + m.pageText() + "…"
	if m.waiting() {
		text += " (" + msgRateWait + ")"
	}
	return text
}

// exportDue returns the export command once the feed is done, and drops a
// waiting export the feed's failure stopped (the status line says why).
func (m *Model) exportDue() tea.Cmd {
	switch {
	case !m.exporting:
		return nil
	case m.fl.State().Done:
		return m.exportCmd()
	case m.fl.State().Err != nil || m.fl.State().Closed:
		m.exporting = false
		m.setNotice(shared.StatusError, "export stopped: the range did not load ("+m.ctx.Key("reload")+" to reload, then "+m.ctx.Key("export")+")")
	}
	return nil
}

// exported shows an export's outcome.
func (m *Model) exported(msg exportedMsg) {
	if msg.err != nil {
		m.setNotice(shared.StatusError, "export failed: "+shared.Safe(msg.err.Error()))
		return
	}
	m.setNotice(shared.StatusOK, "exported "+strconv.Itoa(msg.n)+" entries to "+shared.Safe(msg.path))
}
