package charges

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

// This file is the detail pane (i): everything the server said about the
// row under the cursor, with nothing cut that the pane has room to wrap.

// runningSlack is how near "now" an end may be for the contract to count as
// running. The server reports a contract still running with its end at the
// moment it wrote the report. "Now" is when the screen took its feed
// (Model.asOf): the rows are the report as of then, and a page fetched later
// ends its running contracts later still. An end within a minute before
// that (or later, or none) is taken as "still running", which allows for a
// server clock a little behind ours; a contract that ended earlier shows as
// ended. r reloads, and judges again.
const runningSlack = time.Minute

// running reports whether n is still running at now (see runningSlack).
// Items are not contracts: they run when their contract does.
func running(n *api.Charge, now time.Time) bool {
	if n.Start == 0 {
		return false
	}
	return n.End == 0 || n.End >= now.Add(-runningSlack).Unix()
}

// openDetail shows the detail pane of the row under the cursor.
func (m *Model) openDetail() {
	if m.tree.Len() == 0 {
		return
	}
	// The node itself, not its row: rows move when a sort lands.
	m.detailN, m.detailSrc, m.detailOff = m.tree.At(m.cursor).node, m.sourceOf(m.cursor), 0
	m.mode = modeDetail
}

// updateDetail handles a key while the detail pane is open: esc (or i)
// closes it, the movement keys scroll it.
func (m *Model) updateDetail(k tea.KeyPressMsg) tea.Cmd {
	body := max(m.frame().body, 1)
	switch {
	case key.Matches(k, m.keys.Close), key.Matches(k, m.keys.Info):
		m.mode = modeTree
	case key.Matches(k, m.keys.Up):
		m.detailOff--
	case key.Matches(k, m.keys.Down):
		m.detailOff++
	case key.Matches(k, m.keys.PageUp):
		m.detailOff -= body
	case key.Matches(k, m.keys.PageDown):
		m.detailOff += body
	case key.Matches(k, m.keys.Home):
		m.detailOff = 0
	case key.Matches(k, m.keys.Copy):
		return m.copySource()
	}
	m.detailOff = max(min(m.detailOff, len(m.detailLines())-body), 0)
	return nil
}

// detailNode is the row the pane shows and its nearest ancestor with a
// source (itself when it has one), for the source line of an item.
func (m *Model) detailNode() (n *api.Charge, src string) {
	return m.detailN, m.detailSrc
}

// sourceOf is row i's source, or for a row without one (an item) its
// nearest ancestor's.
func (m *Model) sourceOf(i int) string {
	for i >= 0 {
		if s := m.tree.At(i).node.Source; s != "" {
			return s
		}
		i = m.tree.Parent(i)
	}
	return ""
}

// stampYear formats unix seconds with the year and zone: "2 Nov 2026
// 14:00 UTC" (spend.Long); "—" when absent.
func stampYear(sec int64, loc *time.Location) string {
	if sec == 0 {
		return "—"
	}
	return spend.Long(time.Unix(sec, 0).In(loc))
}

// detailLines renders the pane's content at the screen's width: label and
// value pairs, long values wrapped, then the items with their amounts.
func (m *Model) detailLines() []string {
	n, src := m.detailNode()
	if n == nil {
		return nil
	}
	const keyW = 13
	w := max(m.w, 20)
	var out []string
	field := func(name, value string) {
		if value == "" {
			return
		}
		// Wrapped rather than cut: the pane exists to show it whole.
		lines := strings.Split(ansi.Wrap(value, max(w-keyW, 8), " "), "\n")
		for i, l := range lines {
			k := ""
			if i == 0 {
				k = name
			}
			out = append(out, shared.PadRight(k, keyW)+l)
		}
	}
	loc, now := m.ctx.Loc(), m.asOf
	field("type", display(n.Type))
	field("description", display(n.Description))
	field("label", display(n.Meta.Label))
	if n.Source != "" {
		field("source", display(n.Source))
	} else if src != "" {
		field("source", display(src)+" (its contract)")
	}
	if id := n.Meta.TemplateID; id != 0 {
		field("template", strconv.FormatInt(id, 10))
	}
	if id := n.Meta.EndpointID; id != 0 {
		field("endpoint", strconv.FormatInt(id, 10))
	}
	if id := n.Meta.WorkergroupID; id != 0 {
		field("workergroup", strconv.FormatInt(id, 10))
	}
	field("start", stampYear(n.Start, loc))
	isRunning := running(n, now)
	if isRunning {
		field("end", stampYear(n.End, loc)+" (still running)")
	} else {
		field("end", stampYear(n.End, loc))
	}
	field("duration", duration(n.Start, n.End))
	if !isItem(n.Type) {
		if isRunning {
			field("state", "running")
		} else if n.Start != 0 {
			field("state", "ended")
		}
	}
	field("amount", n.Amount.String())
	if len(n.Items) > 0 {
		out = append(out, "", "items ("+strconv.Itoa(len(n.Items))+")")
		amtW := 0
		for i := range n.Items {
			amtW = max(amtW, amountWidth(n.Items[i].Amount))
		}
		typeW := 0
		for i := range n.Items {
			typeW = max(typeW, min(shared.Width(display(n.Items[i].Type)), 12))
		}
		for i := range n.Items {
			it := &n.Items[i]
			text := it.Description
			if text == "" || !isItem(it.Type) && it.Source != "" {
				text = strings.TrimSpace(it.Source + " " + it.Description)
			}
			textW := max(w-2-typeW-1-1-amtW, 1)
			out = append(out, "  "+shared.Fit(display(it.Type), typeW)+" "+shared.Fit(display(text), textW)+" "+
				shared.PadLeft(it.Amount.String(), amtW))
		}
	}
	return out
}

// detailView fills body lines with the pane, scrolled to detailOff.
func (m *Model) detailView(body int) []string {
	all := m.detailLines()
	off := max(min(m.detailOff, len(all)-body), 0)
	lines := all[off:]
	if len(lines) > body && body > 0 {
		lines = append(lines[:body-1:body-1], m.styles().Muted.Render("… "+strconv.Itoa(len(all)-off-body+1)+" more lines ("+m.keys.Down.Help().Key+")"))
	}
	return lines
}
