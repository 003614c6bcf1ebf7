package statement

import (
	"cmp"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// This file is the Charges screen's find (/) and sort (s) conventions on
// the payment records: with a find text the records pane lists the
// records of the whole year holding it (type, source, service,
// description or invoice id, any case), and s orders the pane by date,
// by effect on the credit (largest first) or by type.

// sortOrder is how the records pane is ordered.
type sortOrder int

const (
	byDate sortOrder = iota
	byAmount
	byType
	numOrders
)

var orderNames = [numOrders]string{"by date", "by amount", "by type"}

// matches reports whether in holds low (lower-cased; "" matches all), as
// shown: sanitized, so hidden control characters neither match nor stop a
// match.
func matches(in *api.Invoice, low string) bool {
	return shared.Holds(low, in.Type, in.Source, in.Service, in.Description, in.ID)
}

// openFind gives the keyboard to the find field, holding the text in use.
func (m *Model) openFind() tea.Cmd {
	var cmd tea.Cmd
	m.findInput, cmd = shared.NewFindInput(m.find)
	m.finding = true
	return cmd
}

// updateFind handles a message while the find field has the keyboard:
// enter keeps the text, esc clears it, anything else is typed and filters
// at once.
func (m *Model) updateFind(msg tea.Msg) tea.Cmd {
	out, text, cmd := shared.UpdateFind(&m.findInput, msg, m.keys.FindKeep, m.keys.FindClear, nil)
	switch out {
	case shared.FindCleared:
		m.finding, m.find = false, ""
	case shared.FindKept:
		m.finding = false
	case shared.FindTyped:
		m.find = text
	}
	return cmd
}

// shownRecords are the records of the pane: the selected month's, or with
// a find text the year's that match; in the chosen order.
func (m *Model) shownRecords() []api.Invoice {
	if m.st == nil {
		return nil
	}
	var recs []api.Invoice
	if m.find == "" {
		if m.cursor < len(m.st.Months) {
			recs = slices.Clone(m.st.Months[m.cursor].Records)
		}
	} else {
		low := strings.ToLower(m.find)
		for i := range m.st.Months {
			for j := range m.st.Months[i].Records {
				if r := &m.st.Months[i].Records[j]; matches(r, low) {
					recs = append(recs, *r)
				}
			}
		}
	}
	switch m.order {
	case byAmount:
		slices.SortStableFunc(recs, func(a, b api.Invoice) int { return cmp.Compare(effect(&b), effect(&a)) })
	case byType:
		slices.SortStableFunc(recs, func(a, b api.Invoice) int { return cmp.Compare(a.Type, b.Type) })
	}
	return recs
}

// effect is what a record adds to the credit, or would once paid; 0 for
// an unknown type.
func effect(in *api.Invoice) money.Amount {
	e, _ := billing.Effect(in)
	return e
}

// recordsTitle is the pane's first line: what it lists, how many, the sum
// of what counts and the order.
func (m *Model) recordsTitle(recs []api.Invoice) string {
	t := billing.TotalPayments(recs, m.ctx.Clock())
	what := ""
	switch {
	case m.find != "":
		what = "find \"" + shared.Safe(m.find) + "\": " + billing.Plural(len(recs), "record", "records") + " of the year"
	case m.cursor < len(m.st.Months):
		what = m.st.Months[m.cursor].Label() + ": " + billing.Plural(len(recs), "payment record", "payment records")
	}
	sums := "in " + t.In.String() + " · out " + t.Out.String()
	// Narrow, the sums go first: the order, then the words, give way.
	return shared.FirstFit(m.width, what+" · "+sums+" · "+orderNames[m.order], what+" · "+sums, sums+" · "+what)
}
