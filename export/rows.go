package export

import (
	"encoding/csv"
	"io"
	"time"

	"github.com/vastdash/vastdash/api"
)

// CSVRows writes entries as WriteCSV does, one at a time as they are
// read (Write), so that a range of any size goes out in flat memory:
// Header first (at the first Write, or at Flush when there was none),
// then each entry's row and, with items, its items' rows.
type CSVRows struct {
	cw      *csv.Writer
	items   bool
	loc     *time.Location
	started bool
}

// NewCSVRows starts a CSV of entries on w; times in loc.
func NewCSVRows(w io.Writer, items bool, loc *time.Location) *CSVRows {
	return &CSVRows{cw: csv.NewWriter(w), items: items, loc: loc}
}

func (r *CSVRows) header() error {
	if r.started {
		return nil
	}
	r.started = true
	return r.cw.Write(Header)
}

// Write writes one entry (and its items).
func (r *CSVRows) Write(e *api.Charge) error {
	if err := r.header(); err != nil {
		return err
	}
	var err error
	Walk(e, r.items, 0, "", func(c *api.Charge, _ int, source string) {
		if err != nil {
			return
		}
		ids := IDs(c)
		err = r.cw.Write([]string{
			Time(c.Start, r.loc),
			Time(c.End, r.loc),
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

// Flush ends the CSV: what is buffered goes out.
func (r *CSVRows) Flush() error {
	if err := r.header(); err != nil {
		return err
	}
	r.cw.Flush()
	return r.cw.Error()
}
