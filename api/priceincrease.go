package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
)

// PerSec is a price per second in millionths of a millionth of a dollar
// (picodollars): the hosts' prices come per second with many decimals
// (0.000108333 $/GPU/s), and an hour of them is 3600 times that, so they
// are kept exactly enough that the hour, rounded once, is exact to the
// millionth.
type PerSec int64

// Price bounds, per second: a GPU at most MaxRate an hour, a GB of disk at
// most $10 an hour.
const (
	maxGPUPerSec  PerSec = PerSec(MaxRate) * 1_000_000 / 3600
	maxDiskPerSec PerSec = 10 * 1_000_000_000_000 / 3600
	// maxDate is 2100-01-01: a date a century ahead is a broken server.
	maxDate = 4_102_444_800
)

// PriceIncrease is one host's price increase waiting for an answer. A
// price the server sent as null (unchanged) reads as the old one.
type PriceIncrease struct {
	ID         int64 // pending_price_increase_id: what the answer sends
	InstanceID int64 // contract_id: the instance it is for
	// OldGPU and NewGPU are per GPU, OldDisk and NewDisk per GB. A part
	// whose new price is null is unchanged, whether or not its old price
	// was sent (the server sends an unchanged part as null): its change is
	// 0. Known says every part's change is known: false only when a part
	// has a new price and no old one to tell the change from.
	OldGPU, NewGPU   PerSec
	OldDisk, NewDisk PerSec
	Known            bool
	// ContractEnd is when the current contract ends and the new price
	// would apply; AskEnd how long accepting extends it to; Created when
	// the host asked. Unix seconds, 0 when not sent.
	ContractEnd, AskEnd, Created int64
}

// PriceIncreases is the answer of GET
// /api/v0/instances/pending-price-increases/.
type PriceIncreases struct {
	Items []PriceIncrease
	// Truncated is the server saying it listed only some.
	Truncated bool
	// Skipped counts entries dropped for a missing or bad id, a field of
	// the wrong type or a value out of bounds (a negative price or one
	// above $10,000/h per GPU or $10/h per GB, a date before 2015 or after
	// 2100), and entries beyond MaxLimit.
	Skipped int
}

// ErrNotPending: the price increase was answered already (404
// no_pending_price_increase).
var ErrNotPending = errors.New("no longer pending")

type wirePriceIncrease struct {
	ID          *wireID   `json:"pending_price_increase_id"`
	ContractID  *wireID   `json:"contract_id"`
	OldGPU      *wirePico `json:"old_gpu_costpersec"`
	NewGPU      *wirePico `json:"new_gpu_costpersec"`
	OldDisk     *wirePico `json:"old_disk_ram_costpersec"`
	NewDisk     *wirePico `json:"new_disk_ram_costpersec"`
	ContractEnd *float64  `json:"contract_end_date"`
	AskEnd      *float64  `json:"ask_end_date"`
	Created     *float64  `json:"created_at"`
}

// wirePico decodes dollars per second into PerSec, exactly; negative
// values are errors (bounds per kind are checked after; null is a nil
// pointer, unchanged).
type wirePico PerSec

func (p *wirePico) UnmarshalJSON(b []byte) error {
	v, err := bounded(b, 12, int64(maxGPUPerSec))
	*p = wirePico(v)
	return err
}

// PendingPriceIncreases reads the price increases waiting for an answer.
// Needs instance_read.
func (c *Client) PendingPriceIncreases(ctx context.Context) (PriceIncreases, error) {
	cl := call{method: http.MethodGet, path: PriceIncreasesPath, perm: "instance_read"}
	return doDecode(ctx, c, cl, c.decodePriceIncreases)
}

func (c *Client) decodePriceIncreases(op, perm string, body []byte) (PriceIncreases, error) {
	var env struct {
		Success   json.RawMessage `json:"success"`
		Truncated json.RawMessage `json:"truncated"`
		List      json.RawMessage `json:"pending_price_increases"`
	}
	if err := decodeEnvelope(op, body, &env); err != nil {
		return PriceIncreases{}, err
	}
	if e := c.refusedOK(op, perm, env.Success, body); e != nil {
		return PriceIncreases{}, e
	}
	var p PriceIncreases
	var tr wireBool
	if len(env.Truncated) > 0 && json.Unmarshal(env.Truncated, &tr) != nil {
		return PriceIncreases{}, malformedMsg(op, "the field truncated is not a boolean")
	}
	p.Truncated = bool(tr)
	var err error
	p.Items, p.Skipped, err = decodeList(op, env.List, "pending_price_increases", MaxLimit, priceIncrease)
	return p, err
}

// priceIncrease converts one entry; ok is false when it must be skipped.
func priceIncrease(raw json.RawMessage) (PriceIncrease, bool) {
	var w wirePriceIncrease
	if raw[0] != '{' || json.Unmarshal(raw, &w) != nil || w.ID == nil || *w.ID <= 0 || w.ContractID == nil || *w.ContractID <= 0 {
		return PriceIncrease{}, false
	}
	// A part is known when unchanged (new null) or when both prices came.
	known := func(old, nw *wirePico) bool { return nw == nil || old != nil }
	p := PriceIncrease{ID: int64(*w.ID), InstanceID: int64(*w.ContractID), Known: known(w.OldGPU, w.NewGPU) && known(w.OldDisk, w.NewDisk)}
	price := func(old, nw *wirePico, bound PerSec) (PerSec, PerSec, bool) {
		var o PerSec
		if old != nil {
			o = PerSec(*old)
		}
		n := o // null: unchanged
		if nw != nil {
			n = PerSec(*nw)
		}
		return o, n, o <= bound && n <= bound
	}
	var ok1, ok2 bool
	p.OldGPU, p.NewGPU, ok1 = price(w.OldGPU, w.NewGPU, maxGPUPerSec)
	p.OldDisk, p.NewDisk, ok2 = price(w.OldDisk, w.NewDisk, maxDiskPerSec)
	if !ok1 || !ok2 {
		return PriceIncrease{}, false
	}
	for _, d := range []struct {
		in  *float64
		out *int64
	}{{w.ContractEnd, &p.ContractEnd}, {w.AskEnd, &p.AskEnd}, {w.Created, &p.Created}} {
		if d.in == nil || *d.in == 0 {
			continue
		}
		if *d.in < minStartDate || *d.in > maxDate {
			return PriceIncrease{}, false
		}
		*d.out = int64(*d.in)
	}
	return p, true
}

// AcceptPriceIncrease accepts pending price increase id: the contract
// goes on at the new price from its current end date. RejectPriceIncrease
// refuses it: the contract ends at its current end date. Each is one PUT
// whose body is exactly {"pending_price_increase_id": id} (the server
// refuses any other key), never sent twice: a connection lost once the
// request was written is not retried, since the answer may have arrived
// (and a second one would find it answered). One already answered is
// ErrNotPending; a key without instance_write is ErrPermission naming it.
func (c *Client) AcceptPriceIncrease(ctx context.Context, id int64) error {
	return c.answerPriceIncrease(ctx, AcceptPriceIncreasePath, id)
}

// RejectPriceIncrease: see AcceptPriceIncrease.
func (c *Client) RejectPriceIncrease(ctx context.Context, id int64) error {
	return c.answerPriceIncrease(ctx, RejectPriceIncreasePath, id)
}

func (c *Client) answerPriceIncrease(ctx context.Context, path string, id int64) error {
	op := http.MethodPut + " " + path
	if id <= 0 {
		return usageErr(op, "the price increase id must be positive")
	}
	cl := call{
		method: http.MethodPut,
		path:   path,
		body:   []byte(`{"pending_price_increase_id":` + strconv.FormatInt(id, 10) + `}`),
		perm:   "instance_write",
		once:   true,
	}
	body, err := c.do(ctx, cl)
	if err == nil {
		err = c.checkUpdated(op, cl.perm, body)
	}
	var e *Error
	if errors.As(err, &e) && e.Code == "no_pending_price_increase" && (e.Status == http.StatusNotFound || e.Status == http.StatusOK) {
		e.Kind = ErrNotPending
	}
	return err
}
