// Package export writes charges in the formats vastdash hands to other
// programs. Both front ends use it: `vastdash charges --output csv` and the
// Charges screen's e, so a file saved from the dashboard reads exactly like
// the command's output and scripts need to know one format.
package export

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/sanitize"
)

// Header is the first CSV row; scripts depend on it, keep it stable: the
// id columns came later and follow amount, so a script reading columns by
// position still finds amount seventh.
var Header = []string{"start", "end", "type", "source", "label", "description", "amount", "template_id", "endpoint_id", "workergroup_id"}

// IDs are c's template, endpoint and workergroup ids as text, "" when
// unset (0): the columns of the CSV and of the command's text table.
func IDs(c *api.Charge) [3]string {
	var ids [3]string
	for i, id := range [3]int64{c.Meta.TemplateID, c.Meta.EndpointID, c.Meta.WorkergroupID} {
		if id != 0 {
			ids[i] = strconv.FormatInt(id, 10)
		}
	}
	return ids
}

// Cell sanitizes a server string for a CSV cell. A cell starting with
// = + - @ (after any spaces) would be run as a formula by a spreadsheet,
// so it gets a leading single quote, which spreadsheets show as text.
func Cell(s string) string {
	s = sanitize.String(s)
	if t := strings.TrimLeft(s, " "); t != "" && strings.ContainsRune("=+-@", rune(t[0])) {
		return "'" + s
	}
	return s
}

// WriteCSV writes entries as CSV: Header, then one row per entry and, when
// items is set, one per item below it right after its parent. Times are RFC
// 3339 in loc ("" when absent), amounts exact decimals, ids "" when unset.
func WriteCSV(w io.Writer, entries []api.Charge, items bool, loc *time.Location) error {
	cw, err := NewCSV(w, items, loc)
	if err != nil {
		return err
	}
	for i := range entries {
		if err := cw.Write(&entries[i]); err != nil {
			return err
		}
	}
	return cw.Flush()
}

// CSV writes entries as WriteCSV does, one at a time: a caller reading
// them a page at a time (the Charges screen's window over the ledger)
// holds one page, not the range.
type CSV struct {
	cw    *csv.Writer
	items bool
	loc   *time.Location
}

// NewCSV writes Header to w and returns the writer of the rows.
func NewCSV(w io.Writer, items bool, loc *time.Location) (*CSV, error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return nil, err
	}
	return &CSV{cw: cw, items: items, loc: loc}, nil
}

// Write writes entry c's row and, with items, its items' rows.
func (x *CSV) Write(c *api.Charge) error {
	var err error
	Walk(c, x.items, 0, "", func(c *api.Charge, _ int, source string) {
		if err != nil {
			return
		}
		ids := IDs(c)
		err = x.cw.Write([]string{
			Time(c.Start, x.loc),
			Time(c.End, x.loc),
			Cell(c.Type),
			Cell(source),
			Cell(c.Meta.Label),
			Cell(c.Description),
			// Our own number, never quoted: a negative amount is data.
			c.Amount.Decimal(),
			ids[0], ids[1], ids[2],
		})
	})
	return err
}

// Flush writes what is buffered and returns the first error of any write.
func (x *CSV) Flush() error {
	x.cw.Flush()
	return x.cw.Error()
}

// Walk calls fn for c and, when items is set, for every item below it,
// depth first, each item right after its parent. source is the item's own
// source, or its parent's when it has none (items usually carry null).
func Walk(c *api.Charge, items bool, depth int, source string, fn func(c *api.Charge, depth int, source string)) {
	if c.Source != "" {
		source = c.Source
	}
	fn(c, depth, source)
	if !items {
		return
	}
	for i := range c.Items {
		Walk(&c.Items[i], true, depth+1, source, fn)
	}
}

// The first and last instants whose year RFC 3339 can write: it has four
// digits and no sign.
var (
	firstWritable = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	lastWritable  = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// Time is a time in loc as RFC 3339, "" when absent. Billing keeps no
// charge outside 2015–2100, so clipping (see In) is only a defence.
func Time(unix int64, loc *time.Location) string {
	if unix == 0 {
		return ""
	}
	return RFC3339(In(unix, loc))
}

// In is unix seconds as a time in loc, clamped to years 0 to 9999: beyond
// them time's calendar arithmetic wraps (math.MinInt64 seconds has a
// plausible-looking year), and no format of ours can write them.
func In(unix int64, loc *time.Location) time.Time {
	unix = min(max(unix, firstWritable.Unix()), lastWritable.Unix())
	return clipYear(time.Unix(unix, 0).In(loc))
}

// clipYear is t, or the nearest writable instant (in UTC) when t's year in
// its own location is not 0 to 9999: year 9999 in UTC is 10000 east of it.
func clipYear(t time.Time) time.Time {
	switch y := t.Year(); {
	case y > 9999:
		return lastWritable
	case y < 0:
		return firstWritable
	}
	return t
}

// RFC3339 is t as valid RFC 3339, clipped to years 0 to 9999: Go writes
// year 10000 as five digits and year -1 with a sign, which RFC 3339 parsers
// (Go's own among them) refuse.
func RFC3339(t time.Time) string {
	return clipYear(t).Format(time.RFC3339)
}
