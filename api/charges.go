package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	chargesPath = "/api/v0/charges/"
	// MaxLimit is the largest page size the server accepts.
	MaxLimit = 500
)

// ChargesQuery is a set of charges filters. Zero Format means table, zero
// Limit the server default (100).
type ChargesQuery struct {
	From, To    time.Time      // day.gte / day.lte (sent as unix seconds UTC)
	Types       []ContractType // empty: every type
	Format      Format
	OldestFirst bool // latest_first=false
	Limit       int  // 1..500, or 0 for the server default
}

// Validate reports a query the server would refuse or that vastdash must
// not send, as an *Error of kind ErrUsage: From and To are required and
// From must not be after To; Limit is 0 or 1..500 (never clamped: a wrong
// limit is the caller's bug); Types and Format must be known values.
func (q ChargesQuery) Validate() error {
	const op = http.MethodGet + " " + chargesPath
	switch {
	case q.From.IsZero() || q.To.IsZero():
		return usageErr(op, "the date range needs both a start and an end")
	case q.From.After(q.To):
		return usageErr(op, "the date range starts after it ends")
	case q.Limit < 0 || q.Limit > MaxLimit:
		return usageErr(op, "the page size must be 0 (server default) or 1 to 500, not "+strconv.Itoa(q.Limit))
	}
	for _, t := range q.Types {
		if !slices.Contains(AllContractTypes, t) {
			return usageErr(op, "unknown contract type "+strconv.Quote(string(t)))
		}
	}
	if q.Format != "" && q.Format != FormatTable && q.Format != FormatTree {
		return usageErr(op, "unknown format "+strconv.Quote(string(q.Format)))
	}
	return nil
}

// Key is the one identity of the report q asks the server for: the same
// range (to the second, as sent), the same set of types, the same format
// (zero = table), order and page size. Queries with the same key share a
// feed in billing; Equal compares it.
func (q ChargesQuery) Key() string {
	types := make([]string, 0, len(q.Types))
	for _, t := range q.typeSet() {
		types = append(types, string(t))
	}
	return fmt.Sprintf("%d|%d|%s|%s|%t|%d", q.From.Unix(), q.To.Unix(), strings.Join(types, ","), q.format(), q.OldestFirst, q.Limit)
}

// Equal reports whether q and o ask the server for the same report (Key).
// The screens use it to drop late responses for a filter the user has
// already changed, and to keep a feed whose query did not change.
func (q ChargesQuery) Equal(o ChargesQuery) bool { return q.Key() == o.Key() }

func (q ChargesQuery) format() Format {
	if q.Format == "" {
		return FormatTable
	}
	return q.Format
}

// typeSet returns the types sorted and without duplicates.
func (q ChargesQuery) typeSet() []ContractType {
	s := slices.Clone(q.Types)
	slices.Sort(s)
	return slices.Compact(s)
}

// clone copies the Types slice so a held query cannot change under its
// holder.
func (q ChargesQuery) clone() ChargesQuery {
	q.Types = slices.Clone(q.Types)
	return q
}

// SelectFilters returns the select_filters JSON text for q:
// {"day":{"gte":<unix>,"lte":<unix>}} plus "type":{"in":[...]} when Types is
// not empty (duplicates dropped, order kept).
func (q ChargesQuery) SelectFilters() string {
	var b strings.Builder
	writeRangeFilter(&b, "day", q.From, q.To)
	if len(q.Types) > 0 {
		b.WriteString(`,"type":{"in":[`)
		seen := make(map[ContractType]bool, len(q.Types))
		for _, t := range q.Types {
			if seen[t] {
				continue
			}
			if len(seen) > 0 {
				b.WriteByte(',')
			}
			seen[t] = true
			// Validate allows only the three known values, which need no
			// escaping; Quote keeps the JSON valid regardless.
			b.WriteString(strconv.Quote(string(t)))
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`}`)
	return b.String()
}

// writeRangeFilter opens a select_filters object with its required range:
// {"field":{"gte":<unix>,"lte":<unix>} (the caller closes it).
func writeRangeFilter(b *strings.Builder, field string, from, to time.Time) {
	b.WriteString(`{"` + field + `":{"gte":`)
	b.WriteString(strconv.FormatInt(from.Unix(), 10))
	b.WriteString(`,"lte":`)
	b.WriteString(strconv.FormatInt(to.Unix(), 10))
	b.WriteString(`}`)
}

// Values returns the query parameters for q and afterToken: select_filters,
// format (always sent, zero = table), latest_first (true/false), limit
// when non-zero and after_token when non-empty.
func (q ChargesQuery) Values(afterToken string) url.Values {
	v := pageValues(q.SelectFilters(), q.OldestFirst, q.Limit, afterToken)
	v.Set("format", string(q.format()))
	return v
}

// pageValues are the parameters every select_filters report shares:
// the filters, latest_first, limit (when not 0) and after_token (when
// not empty).
func pageValues(filters string, oldestFirst bool, limit int, afterToken string) url.Values {
	v := url.Values{}
	v.Set("select_filters", filters)
	v.Set("latest_first", strconv.FormatBool(!oldestFirst))
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if afterToken != "" {
		v.Set("after_token", afterToken)
	}
	return v
}

// Charges fetches one page of charges for q, after afterToken ("" for the
// first page). An invalid q fails with ErrUsage before anything is sent.
// Charges calls of one Client are paced to the server's threshold. Sharing
// pages between parts of a program is the billing layer's feeds' job, not
// the wire's.
func (c *Client) Charges(ctx context.Context, q ChargesQuery, afterToken string) (ChargesPage, error) {
	if err := q.Validate(); err != nil {
		return ChargesPage{}, err
	}
	return c.fetchCharges(ctx, q.Values(afterToken).Encode())
}

// fetchCharges sends one charges request with its encoded query.
func (c *Client) fetchCharges(ctx context.Context, query string) (ChargesPage, error) {
	cl := call{
		method: http.MethodGet,
		path:   chargesPath,
		query:  query,
		perm:   "billing_read",
		paced:  true,
	}
	return doDecode(ctx, c, cl, c.decodeChargesPage)
}
