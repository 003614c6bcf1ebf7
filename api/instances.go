package api

import (
	"context"
	"encoding/json"
	"errors"
	"hash/maphash"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/money"
)

// Rate is a price per hour in millionths of a dollar. dph_total is the sum
// of per-GPU, disk and bandwidth prices and commonly has more decimals than
// money's thousandths (0.421333…): rounding each instance to the mill
// before summing would let the error grow with the number of instances and
// hours, so rates keep six decimals and are rounded once, when turned into
// money (PerHour). Anything beyond six decimals is rounded on decode,
// halves away from zero: a millionth of a dollar per hour is under a cent
// a year.
type Rate int64

// MaxRate is the highest rate accepted from the server ($10,000 an hour):
// far above the costliest machine, and low enough that the sum of the
// rates of a billion instances still fits an int64.
const MaxRate Rate = 10_000 * 1_000_000

// PerHour is r rounded to thousandths of a dollar, halves away from zero.
func (r Rate) PerHour() money.Amount { return money.Amount(roundDiv(int64(r), 1000)) }

// Decimal is r in dollars with six decimals: "0.421333".
func (r Rate) Decimal() string {
	neg, u := r < 0, uint64(r)
	if neg {
		u = uint64(-r)
	}
	f := strconv.FormatUint(u%1_000_000, 10)
	s := strconv.FormatUint(u/1_000_000, 10) + "." + strings.Repeat("0", 6-len(f)) + f
	if neg {
		return "-" + s
	}
	return s
}

// String is the rate to the mill per hour: "$0.421/h".
func (r Rate) String() string { return r.PerHour().String() + "/h" }

// roundDiv is a/b rounded half away from zero (b > 0).
func roundDiv(a, b int64) int64 {
	if a < 0 {
		return -((-a + b/2) / b)
	}
	return (a + b/2) / b
}

// wireRate decodes a JSON number of dollars per hour; null is 0. Strings,
// negative values and values above MaxRate are errors: the entry is
// skipped rather than priced wrongly.
type wireRate Rate

func (r *wireRate) UnmarshalJSON(b []byte) error {
	v, err := bounded(b, 6, int64(MaxRate))
	*r = wireRate(v)
	return err
}

// bounded is scaled for a value that must lie in 0..most; null is 0. A
// value out of range is errRateRange.
func bounded(b []byte, digits int, most int64) (int64, error) {
	if isNull(b) {
		return 0, nil
	}
	v, err := scaled(b, digits)
	if err == errNotNumber {
		return 0, err
	}
	if err != nil || v < 0 || v > most {
		return 0, errRateRange
	}
	return v, nil
}

// scaled reads the JSON number b exactly as an integer count of
// 10^-digits (digits ≥ 3), rounded half away from zero: money.Parse
// rounds on the decimal text, with no float in between, to thousandths,
// so the value is shifted by digits-3 first; the exponent is bounded
// first, as Parse bounds its own. A value too large for an int64 is
// money.ErrRange.
func scaled(b []byte, digits int) (int64, error) {
	if _, err := parseNumber(b); err != nil {
		return 0, err
	}
	s := string(b)
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return 0, errNotNumber
		}
		mant, exp = s[:i], e
	}
	v, err := money.Parse(mant + "e" + strconv.Itoa(exp+digits-3))
	return int64(v), err
}

// errRateRange: a rate that is negative or above MaxRate.
var errRateRange = errors.New("rate out of range")

// Instance is what vastdash keeps of one instance of the account.
type Instance struct {
	ID int64
	// Status is actual_status: running, loading, exited, created, … ("" when
	// the server sent null, as it does while an instance is being made).
	Status  string
	Label   string // "" when none
	NumGPUs int
	GPUName string
	// DPHTotal is what the instance costs per hour while it runs (GPUs,
	// disk and the rest).
	DPHTotal Rate
	// StorageTotalCost is what its disk costs per hour, which a stopped or
	// exited instance keeps paying (unsure: inferred from community tools;
	// show figures built on it as estimates). StorageKnown is false when
	// the server sent none (null or absent): the price is unknown then,
	// not 0, though StorageTotalCost reads 0.
	StorageTotalCost Rate
	StorageKnown     bool
	StartDate        int64 // unix seconds; 0 when unknown
	// IntendedStatus is intended_status: running, stopped or frozen (""
	// when not sent). A stopped instance often reads Status exited with
	// IntendedStatus stopped.
	IntendedStatus string
	// GPUUtil is gpu_util, GPUUtilKnown false when the server sent null,
	// nothing, or a value outside 0..100 (the docs call it a fraction, the
	// official CLI prints it as a percent: 0 is idle either way).
	GPUUtil      float64
	GPUUtilKnown bool
	// DiskSpace is disk_space in thousandths of a GB; 0 when not sent.
	DiskSpace Milli
}

// Milli is a quantity in thousandths of its unit: disk sizes in GB, read
// exactly from the decimal text, as money reads amounts.
type Milli int64

// Running reports whether the instance is billing its full DPHTotal.
func (i Instance) Running() bool { return i.Status == "running" }

// Offline reports an instance whose host is offline: the billing guide
// charges nothing for it, storage included.
func (i Instance) Offline() bool { return i.Status == "offline" }

// Billing is what the instance costs per hour now: DPHTotal while it
// runs, nothing while its host is offline, else its storage (a stopped
// or exited instance keeps its disk; StorageTotalCost is 0 when the
// server did not say).
func (i Instance) Billing() Rate {
	switch {
	case i.Running():
		return i.DPHTotal
	case i.Offline():
		return 0
	}
	return i.StorageTotalCost
}

// Instance bounds.
const (
	// InstancesLimit is the page size asked for: the endpoint's maximum.
	InstancesLimit = 25
	maxNumGPUs     = 64
	maxStatusLen   = 32
	maxLabelLen    = 256
	maxGPUNameLen  = 64
	// MaxDiskSpace bounds disk_space (and a volume's): a petabyte, in
	// thousandths of a GB.
	MaxDiskSpace Milli = 1_000_000 * 1000
	// maxUtil bounds gpu_util: a percent at most.
	maxUtil = 100
	// minStartDate is 2015-01-01: the platform did not exist before.
	minStartDate = 1_420_070_400
	// startDateSlack allows clocks that disagree; a start further in the
	// future is not a date.
	startDateSlack = 48 * 3600
)

const instancesOp = http.MethodGet + " " + InstancesPath

// wireInstance is one instance as sent; the record has dozens more fields.
type wireInstance struct {
	ID               *wireID   `json:"id"`
	Status           *string   `json:"actual_status"`
	Label            *string   `json:"label"`
	NumGPUs          wireID    `json:"num_gpus"`
	GPUName          *string   `json:"gpu_name"`
	DPHTotal         wireRate  `json:"dph_total"`
	StorageTotalCost *wireRate `json:"storage_total_cost"` // nil: not sent
	StartDate        *float64  `json:"start_date"`
	IntendedStatus   *string   `json:"intended_status"`
	GPUUtil          *float64  `json:"gpu_util"`
	DiskSpace        wireMilli `json:"disk_space"`
}

// wireMilli decodes a JSON number into thousandths, exactly; null is 0.
// Negative values and values above MaxDiskSpace are errors: the entry is
// skipped rather than priced wrongly.
type wireMilli Milli

func (m *wireMilli) UnmarshalJSON(b []byte) error {
	v, err := bounded(b, 3, int64(MaxDiskSpace))
	*m = wireMilli(v)
	return err
}

// Instances fetches one page (25) of the account's instances after
// afterToken ("" for the first page). Needs instance_read; calls are paced
// 1 s apart (WithEndpointThreshold).
func (c *Client) Instances(ctx context.Context, afterToken string) (InstancesPage, error) {
	v := url.Values{}
	v.Set("limit", strconv.Itoa(InstancesLimit))
	if afterToken != "" {
		v.Set("after_token", afterToken)
	}
	cl := call{
		method: http.MethodGet,
		path:   InstancesPath,
		query:  v.Encode(),
		perm:   "instance_read",
		pacer:  c.endpointPacer(InstancesPath),
	}
	return doDecode(ctx, c, cl, func(op, perm string, body []byte) (InstancesPage, error) {
		return c.decodeInstances(op, perm, body, time.Now().Unix())
	})
}

// decodeInstances decodes {"instances":[...],"next_token":…,
// "total_instances":…}; now bounds start dates. Each entry is decoded on
// its own so one bad entry costs only itself: Skipped counts entries
// dropped for a missing or bad id, a field of the wrong type or a value out
// of bounds (dph_total or storage_total_cost above $10,000/h or negative,
// num_gpus outside 0..64, a start_date before 2015 or in the future), and
// entries beyond MaxLimit in one page.
func (c *Client) decodeInstances(op, perm string, body []byte, now int64) (InstancesPage, error) {
	var env struct {
		Success   json.RawMessage `json:"success"`
		Instances json.RawMessage `json:"instances"`
		NextToken json.RawMessage `json:"next_token"`
		Total     json.RawMessage `json:"total_instances"`
	}
	if err := decodeEnvelope(op, body, &env); err != nil {
		return InstancesPage{}, err
	}
	if e := c.refusedOK(op, perm, env.Success, body); e != nil {
		return InstancesPage{}, e
	}
	p := InstancesPage{}
	var err error
	if p.Results, p.Skipped, err = decodeList(op, env.Instances, "instances", MaxLimit,
		func(raw json.RawMessage) (Instance, bool) { return instance(raw, now) }); err != nil {
		return InstancesPage{}, err
	}
	if p.NextToken, p.Total, err = listHeader(op, env.NextToken, env.Total, "total_instances"); err != nil {
		return InstancesPage{}, err
	}
	return p, nil
}

// decodeList decodes the list field named field: every entry on its own
// through conv, so one bad entry costs only itself (counted in skipped),
// and at most limit entries (the rest skipped). An absent, null or non-list
// field is ErrMalformed.
func decodeList[T any](op string, list json.RawMessage, field string, limit int, conv func(json.RawMessage) (T, bool)) (items []T, skipped int, err error) {
	if len(list) == 0 || isNull(list) {
		return nil, 0, malformedMsg(op, "the response has no "+field)
	}
	var raws []json.RawMessage
	if json.Unmarshal(list, &raws) != nil {
		return nil, 0, malformedMsg(op, "the response has the wrong shape: "+field+" is not a list")
	}
	if len(raws) > limit {
		skipped = len(raws) - limit
		raws = raws[:limit]
	}
	items = make([]T, 0, len(raws))
	for _, raw := range raws {
		if v, ok := conv(raw); ok {
			items = append(items, v)
		} else {
			skipped++
		}
	}
	return items, skipped, nil
}

// listHeader reads a list's next_token ("" when absent or null) and its
// total, named totalField (-1 when absent or null): a token that is not a
// string or a total that is not a count is ErrMalformed.
func listHeader(op string, next, total json.RawMessage, totalField string) (string, int, error) {
	tok, n := "", -1
	if len(next) > 0 && !isNull(next) {
		if json.Unmarshal(next, &tok) != nil {
			return "", 0, malformedMsg(op, "the field next_token has the wrong type")
		}
	}
	if len(total) > 0 && !isNull(total) {
		var v wireID
		if json.Unmarshal(total, &v) != nil || v < 0 || v > math.MaxInt32 {
			return "", 0, malformedMsg(op, "the field "+totalField+" is not a count")
		}
		n = int(v)
	}
	return tok, n, nil
}

// instance converts one entry; ok is false when it must be skipped.
func instance(raw json.RawMessage, now int64) (Instance, bool) {
	var w wireInstance
	if raw[0] != '{' || json.Unmarshal(raw, &w) != nil || w.ID == nil || *w.ID <= 0 {
		return Instance{}, false
	}
	if w.NumGPUs < 0 || w.NumGPUs > maxNumGPUs {
		return Instance{}, false
	}
	in := Instance{
		ID:             int64(*w.ID),
		Status:         cutString(deref(w.Status), maxStatusLen),
		Label:          cutString(deref(w.Label), maxLabelLen),
		NumGPUs:        int(w.NumGPUs),
		GPUName:        cutString(deref(w.GPUName), maxGPUNameLen),
		DPHTotal:       Rate(w.DPHTotal),
		IntendedStatus: cutString(deref(w.IntendedStatus), maxStatusLen),
		DiskSpace:      Milli(w.DiskSpace),
	}
	in.StorageTotalCost, in.StorageKnown = storageCost(w.StorageTotalCost)
	if u := w.GPUUtil; u != nil && *u >= 0 && *u <= maxUtil {
		// Out of range is not worth the instance's price: only the
		// reading is dropped.
		in.GPUUtil, in.GPUUtilKnown = *u, true
	}
	var ok bool
	if in.StartDate, ok = startDate(w.StartDate, now); !ok {
		return Instance{}, false
	}
	return in, true
}

// storageCost is a storage_total_cost as sent: known false when it was
// not (null or absent), which is not a price of 0.
func storageCost(r *wireRate) (Rate, bool) {
	if r == nil {
		return 0, false
	}
	return Rate(*r), true
}

// startDate bounds a start_date (unix seconds, a float): 0 when absent,
// null or 0; ok false before 2015 or further in the future than clocks
// disagree.
func startDate(sd *float64, now int64) (int64, bool) {
	if sd == nil || *sd == 0 {
		return 0, true
	}
	if *sd < minStartDate || *sd > float64(now+startDateSlack) {
		return 0, false
	}
	return int64(*sd), true
}

// InstancePager starts paging the account's instances (25 a page).
func (c *Client) InstancePager() *Pager[Instance] {
	return InstancePagerVia(c.Instances)
}

// InstancePagerVia is InstancePager reading each page through fetch (a
// caller that shares a page between readers wraps Instances): the pages
// get the pager's checks all the same.
func InstancePagerVia(fetch func(ctx context.Context, token string) (InstancesPage, error)) *Pager[Instance] {
	key := func(h *maphash.Hash, in *Instance) { maphash.WriteComparable(h, in.ID) }
	return newPager(instancesOp, InstancesLimit, key, fetch)
}
