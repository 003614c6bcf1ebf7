// Package leaks is the audit: what the account pays for without using it
// (money leaks), so far from the charges' disk items, and the hosts' price
// increases waiting for an answer (PendingIncrease, AnswerIncrease). It
// stands on the billing core, whose shared reading of the instances it
// reads beside the rate, and whose client and clock it uses.
package leaks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

// The audit: what the account pays for without using it (money leaks), and
// the hosts' price increases waiting for an answer. The rules (api-notes,
// "What an account pays for without using it"):
//
//   - a stopped instance: intended_status stopped and actual_status exited
//     or stopped, not offline (an offline host charges nothing), not a
//     serverless worker; it pays storage_total_cost an hour, from its
//     start_date (storage is billed from creation: the API has no stop
//     time);
//   - an orphan volume: a volume whose list of instances is empty; the same
//     arithmetic;
//   - an idle endpoint: at least one ready or loading worker and no traffic
//     on any worker (cur_load, cur_load_rolling_avg and reqs_working all 0;
//     the autoscaler's "idle" means ready); it pays its running workers'
//     dph_total and its cold workers' storage; how long it has been idle is
//     not in the API;
//   - an idle GPU: a running instance, not a worker, at gpu_util 0 (null is
//     unknown, not idle); it pays dph_total; one reading has no history;
//   - each instance is counted once: a worker only under its endpoint.
//
// A pending price increase is not a leak: it is shown beside them, old →
// new per hour.

// LeakKind names a kind of leak as the JSON answer writes it.
type LeakKind string

// The kinds of leak.
const (
	LeakStoppedInstance LeakKind = "stopped_instance"
	LeakOrphanVolume    LeakKind = "orphan_volume"
	LeakIdleEndpoint    LeakKind = "idle_endpoint"
	LeakIdleGPU         LeakKind = "idle_gpu"
)

// Title is the kind in words, for a table: "stopped instance".
func (k LeakKind) Title() string {
	switch k {
	case LeakStoppedInstance:
		return "stopped instance"
	case LeakOrphanVolume:
		return "orphan volume"
	case LeakIdleEndpoint:
		return "idle endpoint"
	case LeakIdleGPU:
		return "idle GPU"
	}
	return string(k)
}

// Leak is one thing the account pays for without using it.
type Leak struct {
	Kind LeakKind
	// ID is the instance's, the volume's or the endpoint's.
	ID int64
	// Label is the instance's or volume's label, or the endpoint's name, as
	// the server sent it (not sanitized: the front ends do that).
	Label string
	// PerHour is what it costs an hour; PerHourKnown is false when none of
	// its parts could be priced (an endpoint whose workers are not among
	// the instances read). Partial says some parts were not priced: the
	// figure is a lower bound.
	PerHour      api.Rate
	PerHourKnown bool
	Partial      bool
	// Since is when it began to cost (zero: unknown, never "now").
	Since time.Time
	// SoFar is what it has cost since then, SoFarKnown false when unknown;
	// SoFarExact says it is the contract's disk items from the charges
	// (ExactSoFar) rather than PerHour × age.
	SoFar      money.Amount
	SoFarKnown bool
	SoFarExact bool
	// Why says in a few words what makes it a leak.
	Why string
	// MaybeWorker says the instance may be a serverless worker: the
	// endpoints, or some endpoint's workers, could not be read, and an
	// instance record does not say whether it is one. Such a row is shown,
	// marked, and left out of Total (its kind is not known whole).
	MaybeWorker bool
	// Source is the contract to show in the charges: "instance-5",
	// "volume-7"; an endpoint's is its first ready worker's (the charges
	// list workers as instances; the endpoint is a wrapper of the tree
	// format only).
	Source string
}

// PriceChange is one pending price increase, priced for its instance.
type PriceChange struct {
	// ID is pending_price_increase_id: what an answer sends.
	ID         int64
	InstanceID int64
	Label      string // the instance's label, as sent; "" when none or not read
	// OldPerHour is the instance's dph_total now, NewPerHour that plus the
	// GPU change × its GPUs and the disk change × its disk (a part the
	// server sent as null is unchanged, at today's price). NowKnown says
	// the instance was among those read, so OldPerHour is known; Known
	// says NewPerHour is known too: false when a part has a new price the
	// server sent no old one for.
	OldPerHour, NewPerHour api.Rate
	NowKnown, Known        bool
	// AppliesAt is the contract's end: nothing changes before it.
	// Accepting raises the rate from then, extending the contract to
	// AskEnd; ignoring or rejecting it ends the contract then. Zero when
	// the server did not say.
	AppliesAt, AskEnd time.Time
}

// NowText is the rate now, "unknown" when the instance was not read.
func (pc PriceChange) NowText() string {
	if !pc.NowKnown {
		return "unknown"
	}
	return pc.OldPerHour.String()
}

// ThenText is the rate from AppliesAt, "unknown" when it cannot be told.
func (pc PriceChange) ThenText() string {
	if !pc.Known {
		return "unknown"
	}
	return pc.NewPerHour.String()
}

// ChangeText is the change as every front end says it: "$2.151/h →
// $2.351/h"; "$2.151/h → unknown" when only today's rate is known; "price
// unknown" when neither is.
func (pc PriceChange) ChangeText() string {
	if !pc.NowKnown {
		return "price unknown"
	}
	return pc.NowText() + " → " + pc.ThenText()
}

// Audit is one reading of the leaks and price increases.
type Audit struct {
	// Leaks are largest per hour first (ties by kind, then id).
	Leaks []Leak
	// Total is the sum of the leaks' PerHour but those that may be
	// serverless workers; Partial says some were unknown or lower bounds,
	// so the total is a lower bound. Uncertain and UncertainCount are the
	// rows that may be workers (MaybeWorker), in no total.
	Total          api.Rate
	Partial        bool
	Uncertain      api.Rate
	UncertainCount int
	// uncertainPartial says Uncertain is a lower bound.
	uncertainPartial bool
	// Increases are by the date they apply, soonest first.
	Increases []PriceChange
	// Unreadable has one line per section that could not be read, naming
	// the permission the key lacks when that is why: with any, "no leaks"
	// is not an answer.
	Unreadable []string
	// Notes say what else makes the reading less than whole (entries the
	// server sent that could not be read, a list cut short, figures
	// estimated).
	Notes []string
	AsOf  time.Time
	// SoFarRead says ExactSoFar has consulted the charges for this
	// reading.
	SoFarRead bool
	// missing are the sections not read, for Knows, each with the
	// permission the key lacks for it ("" when not read for another
	// reason).
	missing map[string]string
	// workersUnknown counts the endpoints whose workers were not all read
	// (the autoscaler failed, or sent some it could not read): any
	// instance may be one of them.
	workersUnknown int
}

// Knows reports whether the reading could find every leak of kind k:
// each section its rule needs was read (the instances and every listed
// endpoint's workers for the stopped instances and idle GPUs — a worker
// not read may be any instance, and a worker is not one of these; the
// volumes for the orphans; the instances, the endpoints and every
// endpoint's workers for the idle endpoints). When it does not, the
// kind's sum is unknown, not $0.
func (a Audit) Knows(k LeakKind) bool {
	for _, sec := range sectionsOf[k] {
		if _, ok := a.missing[sec]; ok {
			return false
		}
	}
	return true
}

// sectionsOf are the sections each kind's rule needs (see Knows).
var sectionsOf = map[LeakKind][]string{
	LeakStoppedInstance: {sectionInstances, sectionServerless, sectionWorkers},
	LeakIdleGPU:         {sectionInstances, sectionServerless, sectionWorkers},
	LeakOrphanVolume:    {sectionVolumes},
	LeakIdleEndpoint:    {sectionInstances, sectionServerless, sectionWorkers},
}

// Refused reports that a section kind k's rule needs was not read because
// the key lacks a permission (Lacks says which): the kind is unknown for
// that reason, which a key's owner can change.
func (a Audit) Refused(k LeakKind) bool {
	for _, sec := range sectionsOf[k] {
		if a.missing[sec] != "" {
			return true
		}
	}
	return false
}

// Lacks reports a section not read because the key lacks perm.
func (a Audit) Lacks(perm string) bool {
	for _, p := range a.missing {
		if p == perm {
			return true
		}
	}
	return false
}

// LeakKinds are the kinds, in the order the answers list them.
var LeakKinds = []LeakKind{LeakStoppedInstance, LeakOrphanVolume, LeakIdleEndpoint, LeakIdleGPU}

// PerKind is the sum per hour of the leaks of kind k; known is false when
// the sum is not the whole of it: a section its rule needs was not read
// (Knows), or one of its leaks could not be priced, or only in part. A
// sum that is not known is not a figure to show as one: it would read as
// less than the account pays.
func (a Audit) PerKind(k LeakKind) (sum api.Rate, known bool) {
	known = a.Knows(k)
	for _, l := range a.Leaks {
		if l.Kind == k {
			sum += l.PerHour
			known = known && l.PerHourKnown && !l.Partial
		}
	}
	return sum, known
}

// Complete reports that every section was read.
func (a Audit) Complete() bool { return len(a.Unreadable) == 0 }

// Audit sections, as the unreadable lines name them.
const (
	sectionInstances  = "instances"
	sectionVolumes    = "volumes"
	sectionServerless = "serverless endpoints"
	sectionIncreases  = "price increases"
	// sectionWorkers stands for every endpoint's workers in Knows.
	sectionWorkers = "workers"
)

// maxAuditChargePages bounds the charges an audit reads for its stopped
// instances' and orphan volumes' disk items: 4 pages of 500, 4 s at the
// charges' pacing. Past them (or without billing_read) so far is
// PerHour × age.
const maxAuditChargePages = 4

// Ready and loading workers pay their GPUs; the autoscaler's "idle" means
// ready.
var (
	readyWorker   = []string{"idle", "ready", "running"}
	loadingWorker = []string{"loading", "model_loading"}
)

// Read reads the instances, volumes, serverless endpoints (their worker
// groups and workers) and pending price increases, each endpoint paced by
// the client, and finds the leaks; so far is PerHour × age until
// ExactSoFar reads the charges (the dashboard does that only while its
// Audit screen is shown: the charges' one pacing budget is the screens'
// too). A section the key may not read is a line in Unreadable, not an
// error; so is an endpoint whose workers the autoscaler did not list, for
// whatever reason (it is another server). Any other failure of the
// console (the network, the server) is the error.
func Read(ctx context.Context, core *billing.Service) (Audit, error) {
	a := Audit{AsOf: core.Now()}
	rd, err := core.Instances(ctx)
	if err != nil {
		return Audit{}, err
	}
	if rd.NeedsPermission != "" {
		a.unreadable(sectionInstances, rd.NeedsPermission)
	}
	if rd.Partial {
		a.Notes = append(a.Notes, "only the first "+billing.Plural(len(rd.Instances), "instance", "instances")+" read")
	}
	if rd.Skipped > 0 {
		a.Notes = append(a.Notes, billing.Plural(rd.Skipped, "instance", "instances")+" the server sent could not be read")
	}
	byID := make(map[int64]api.Instance, len(rd.Instances))
	for _, in := range rd.Instances {
		byID[in.ID] = in
	}
	var vols []api.Volume
	var eps []endpointReading
	var incs []api.PriceIncrease
	if core.Client() != nil {
		if vols, err = readVolumes(ctx, core, &a); err != nil {
			return Audit{}, err
		}
		if eps, err = readServerless(ctx, core, &a); err != nil {
			return Audit{}, err
		}
		if incs, err = readIncreases(ctx, core, &a); err != nil {
			return Audit{}, err
		}
	}
	workers := map[int64]bool{}
	for _, e := range eps {
		for _, w := range e.workers {
			workers[w.ID] = true
		}
	}
	now := a.AsOf
	// Without the endpoints (no misc) or some endpoint's workers, any
	// instance may be a worker: an instance record does not say.
	_, endpointsUnread := a.missing[sectionServerless]
	for _, in := range rd.Instances {
		if workers[in.ID] {
			continue // counted under its endpoint
		}
		if l, ok := instanceLeak(in, now); ok {
			switch {
			case endpointsUnread:
				l.MaybeWorker = true
				l.Why += "; may be a serverless worker (the endpoints not read)"
			case a.workersUnknown > 0:
				l.MaybeWorker = true
				l.Why += "; may be a serverless worker (" + billing.Plural(a.workersUnknown, "endpoint's", "endpoints'") + " workers not read)"
			}
			a.Leaks = append(a.Leaks, l)
		}
	}
	for _, v := range vols {
		if v.Orphan() && (v.StorageTotalCost > 0 || !v.StorageKnown) {
			a.Leaks = append(a.Leaks, storageLeak(LeakOrphanVolume, v.ID, v.Label, v.StorageTotalCost, v.StorageKnown, v.StartDate, now,
				diskText(v.DiskSpace)+" volume attached to no instance", "volume-"))
		}
	}
	for _, e := range eps {
		if !e.whole {
			continue // traffic unknown for some: it cannot be called idle
		}
		if l, ok := endpointLeak(e, byID); ok {
			a.Leaks = append(a.Leaks, l)
		}
	}
	a.Increases = priceChanges(incs, byID)
	a.finish()
	return a, nil
}

// unreadable adds the line of a section the key may not read.
func (a *Audit) unreadable(section, perm string) {
	a.Unreadable = append(a.Unreadable, section+": not read — this API key lacks the "+perm+" permission")
	a.miss(section, perm)
}

// miss notes a section not read, for want of perm ("": another reason);
// an endpoint's workers stand for them all.
func (a *Audit) miss(section, perm string) {
	if a.missing == nil {
		a.missing = map[string]string{}
	}
	if strings.HasSuffix(section, "'s workers") {
		section = sectionWorkers
	}
	if _, ok := a.missing[section]; !ok || perm != "" {
		a.missing[section] = perm
	}
}

// readable sorts a console section's failure: a refusal (a missing
// permission, an endpoint the server does not have, a request it refuses)
// becomes a line in Unreadable and ok false; any other error is returned.
func (a *Audit) readable(section, perm string, err error) (bool, error) {
	var ae *api.Error
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, api.ErrPermission):
		if errors.As(err, &ae) && ae.Permission != "" {
			perm = ae.Permission
		}
		a.unreadable(section, perm)
	case errors.Is(err, api.ErrNotFound), errors.Is(err, api.ErrBadRequest):
		a.Unreadable = append(a.Unreadable, section+": not read — "+err.Error())
		a.miss(section, "")
	default:
		return false, err
	}
	return false, nil
}

func readVolumes(ctx context.Context, core *billing.Service, a *Audit) ([]api.Volume, error) {
	l, err := core.Client().Volumes(ctx)
	if ok, err := a.readable(sectionVolumes, billing.NeedsInstanceRead, err); !ok {
		return nil, err
	}
	if l.Skipped > 0 {
		a.Notes = append(a.Notes, billing.Plural(l.Skipped, "volume", "volumes")+" the server sent could not be read")
	}
	return l.Volumes, nil
}

// endpointReading is one endpoint, its worker groups and its workers;
// whole is false when the autoscaler sent workers that could not be read.
type endpointReading struct {
	api.Endpoint
	groups  int
	workers []api.Worker
	whole   bool
}

// readServerless reads the endpoints, their worker groups and each one's
// workers (one autoscaler call per endpoint). The autoscaler is another
// server than the console: any failure of one endpoint's workers (it
// down, a gateway's 5xx, a refusal) leaves that endpoint's workers unread,
// a line in Unreadable, never the whole audit failed; only the context
// ending is an error there.
func readServerless(ctx context.Context, core *billing.Service, a *Audit) ([]endpointReading, error) {
	el, err := core.Client().Endpoints(ctx)
	if ok, err := a.readable(sectionServerless, billing.NeedsMisc, err); !ok {
		if err == nil {
			a.Notes = append(a.Notes, "without the serverless endpoints their workers cannot be told from instances")
		}
		return nil, err
	}
	if el.Skipped > 0 {
		a.Notes = append(a.Notes, billing.Plural(el.Skipped, "endpoint", "endpoints")+" the server sent could not be read")
	}
	groups := map[int64]int{}
	gl, err := core.Client().WorkerGroups(ctx)
	if ok, err := a.readable("worker groups", billing.NeedsMisc, err); err != nil {
		return nil, err
	} else if ok {
		for _, g := range gl.Items {
			groups[g.EndpointID]++
		}
	}
	out := make([]endpointReading, 0, len(el.Items))
	failed := 0
	for _, e := range el.Items {
		wl, err := core.Client().EndpointWorkers(ctx, e.ID)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			// Not a permission of the key's either: the endpoints were
			// read with misc.
			a.Unreadable = append(a.Unreadable, "endpoint "+strconv.FormatInt(e.ID, 10)+"'s workers: not read — "+err.Error())
			a.miss(sectionWorkers, "")
			a.workersUnknown++
			failed++
			continue
		}
		if wl.Skipped > 0 {
			// Traffic unknown for some: the endpoint cannot be called
			// idle; the workers read are still workers.
			a.miss(sectionWorkers, "")
			a.workersUnknown++
			a.Notes = append(a.Notes, "endpoint "+strconv.FormatInt(e.ID, 10)+": "+billing.Plural(wl.Skipped, "worker", "workers")+
				" the autoscaler sent could not be read: whether it is idle is unknown, and a stopped instance or idle GPU may be one of them")
		}
		out = append(out, endpointReading{Endpoint: e, groups: groups[e.ID], workers: wl.Items, whole: wl.Skipped == 0})
	}
	if failed > 0 {
		a.Notes = append(a.Notes, "the autoscaler did not list the workers of "+billing.Plural(failed, "endpoint", "endpoints")+
			": whether they are idle is unknown, and a stopped instance or idle GPU may be one of their workers")
	}
	return out, nil
}

func readIncreases(ctx context.Context, core *billing.Service, a *Audit) ([]api.PriceIncrease, error) {
	p, err := core.Client().PendingPriceIncreases(ctx)
	if ok, err := a.readable(sectionIncreases, billing.NeedsInstanceRead, err); !ok {
		return nil, err
	}
	if p.Truncated {
		a.Notes = append(a.Notes, "the server listed only some of the pending price increases")
	}
	if p.Skipped > 0 {
		a.Notes = append(a.Notes, billing.Plural(p.Skipped, "price increase", "price increases")+" the server sent could not be read")
	}
	return p.Items, nil
}

// instanceLeak is in's leak, if it is one: a stopped instance keeping its
// disk (its price unknown when the server sent none: still a leak), or a
// running GPU at 0%. An offline instance is not charged; a loading one is
// not running yet.
func instanceLeak(in api.Instance, now time.Time) (Leak, bool) {
	switch {
	case in.IntendedStatus == "stopped" && (in.Status == "exited" || in.Status == "stopped") && (in.StorageTotalCost > 0 || !in.StorageKnown):
		why := "stopped (" + in.Status + "), its disk still billed"
		if in.DiskSpace > 0 {
			why = "stopped (" + in.Status + "), its " + diskText(in.DiskSpace) + " disk still billed"
		}
		return storageLeak(LeakStoppedInstance, in.ID, in.Label, in.StorageTotalCost, in.StorageKnown, in.StartDate, now, why, "instance-"), true
	case in.Running() && in.GPUUtilKnown && in.GPUUtil == 0:
		return Leak{Kind: LeakIdleGPU, ID: in.ID, Label: in.Label, PerHour: in.DPHTotal, PerHourKnown: true,
			Why: "running with its GPUs at 0% (one reading: for how long is unknown)", Source: "instance-" + strconv.FormatInt(in.ID, 10)}, true
	}
	return Leak{}, false
}

// storageLeak is a disk billed for nothing since start: so far is rate ×
// age until the charges say better (ExactSoFar). A rate the server did
// not send (known false) is unknown, and so far with it until the charges
// say.
func storageLeak(kind LeakKind, id int64, label string, rate api.Rate, known bool, start int64, now time.Time, why, prefix string) Leak {
	l := Leak{Kind: kind, ID: id, Label: label, PerHour: rate, PerHourKnown: known, Why: why,
		Source: prefix + strconv.FormatInt(id, 10)}
	if !known {
		l.Why += "; its storage price not sent"
	}
	if start > 0 {
		l.Since = time.Unix(start, 0)
	}
	if start > 0 && known {
		age := max(now.Unix()-start, 0)
		// Millionths an hour × seconds / 3600 are millionths; /1000 more
		// to mills, rounded once. A rate is at most $10,000/h (1e10) and
		// an age since 2015 under 4e8 s: the product fits an int64.
		l.SoFar, l.SoFarKnown = money.Amount(roundDiv(int64(rate)*age, 3_600_000)), true
	}
	return l
}

// endpointLeak is e's leak if it is idle: a ready or loading worker, and
// no traffic on any. It costs its running (and loading) workers' dph_total
// and the others' storage, each priced from its instance.
func endpointLeak(e endpointReading, byID map[int64]api.Instance) (Leak, bool) {
	live, cold := 0, 0
	var first int64
	for _, w := range e.workers {
		if w.CurLoad != 0 || w.CurLoadRollingAvg != 0 || w.ReqsWorking != 0 {
			return Leak{}, false
		}
		if slices.Contains(readyWorker, w.Status) || slices.Contains(loadingWorker, w.Status) {
			if live++; live == 1 {
				first = w.ID
			}
		}
	}
	if live == 0 {
		return Leak{}, false
	}
	l := Leak{Kind: LeakIdleEndpoint, ID: e.ID, Label: e.Name, Source: "instance-" + strconv.FormatInt(first, 10)}
	unpriced, noPrice := 0, 0
	for _, w := range e.workers {
		in, ok := byID[w.ID]
		if !ok {
			unpriced++
			continue
		}
		switch {
		case in.Running() || in.Status == "loading":
			l.PerHour += in.DPHTotal
		case in.Offline():
		case !in.StorageKnown:
			cold++
			noPrice++
			continue
		default:
			l.PerHour += in.StorageTotalCost
			cold++
		}
		l.PerHourKnown = true
	}
	l.Partial = unpriced+noPrice > 0 && l.PerHourKnown
	l.Why = billing.Plural(live, "ready worker", "ready workers") + ", no traffic"
	if cold > 0 {
		l.Why += "; " + billing.Plural(cold, "cold worker pays", "cold workers pay") + " storage"
	}
	if unpriced > 0 {
		l.Why += "; " + billing.Plural(unpriced, "worker", "workers") + " not among the instances read"
	}
	if noPrice > 0 {
		l.Why += "; " + billing.Plural(noPrice, "cold worker's", "cold workers'") + " storage price not sent"
	}
	if e.groups > 0 {
		l.Why += " (" + billing.Plural(e.groups, "worker group", "worker groups") + ")"
	}
	l.Why += "; idle since: unknown"
	return l, true
}

// ExactSoFar is a with so far replaced by the contract's disk items where
// the charges have them: one bounded read of the instance and volume
// contracts since the oldest leak began. Without billing_read, past the
// bound, or when the charges fail, so far stays the estimate and a note
// says so; only the context ending is an error.
func ExactSoFar(ctx context.Context, core *billing.Service, a Audit) (Audit, error) {
	a.Leaks = slices.Clone(a.Leaks)
	a.Notes = slices.Clone(a.Notes)
	if err := exactSoFar(ctx, core, &a); err != nil {
		return Audit{}, err
	}
	a.SoFarRead = true
	return a, nil
}

func exactSoFar(ctx context.Context, core *billing.Service, a *Audit) error {
	want := map[string]int{}
	var from time.Time
	for i, l := range a.Leaks {
		// A disk leak (it has a start), its so far estimated or, its price
		// unknown, not yet.
		if !l.Since.IsZero() {
			want[l.Source] = i
			if from.IsZero() || l.Since.Before(from) {
				from = l.Since
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	src := core.ChargePages(api.ChargesQuery{From: from, To: a.AsOf,
		Types: []api.ContractType{api.TypeInstance, api.TypeVolume}, Format: api.FormatTable, Limit: api.MaxLimit})
	if src == nil {
		return nil
	}
	for pages := 0; len(want) > 0 && !src.Done(); pages++ {
		if pages == maxAuditChargePages {
			a.Notes = append(a.Notes, "so far is estimated (rate × age) where the charges read did not reach")
			return nil
		}
		page, err := src.Next(ctx)
		switch {
		case errors.Is(err, api.ErrPagerDone):
			return nil
		case errors.Is(err, api.ErrPermission):
			a.Notes = append(a.Notes, "so far is estimated (rate × age): "+billing.FailReason(err))
			return nil
		case ctx.Err() != nil:
			return err
		case err != nil:
			a.Notes = append(a.Notes, "so far is estimated (rate × age): the charges could not be read")
			return nil
		}
		for _, c := range page.Results {
			i, ok := want[c.Source]
			if !ok || billing.CheckCharge(&c) != nil {
				continue
			}
			var disk money.Amount
			found := false
			for _, it := range c.Items {
				if it.Type == "disk" {
					disk += it.Amount
					found = true
				}
			}
			if found {
				a.Leaks[i].SoFar, a.Leaks[i].SoFarKnown, a.Leaks[i].SoFarExact = disk, true, true
				delete(want, c.Source)
			}
		}
	}
	return nil
}

// secondsPerHour turns a price a second into one an hour.
const secondsPerHour = 3600

// priceChanges prices each pending increase for its instance: dph_total
// now, and that plus the GPU change × its GPUs and the disk change × its
// disk, rounded once to the millionth.
func priceChanges(incs []api.PriceIncrease, byID map[int64]api.Instance) []PriceChange {
	out := make([]PriceChange, 0, len(incs))
	for _, p := range incs {
		pc := PriceChange{ID: p.ID, InstanceID: p.InstanceID}
		if p.ContractEnd > 0 {
			pc.AppliesAt = time.Unix(p.ContractEnd, 0)
		}
		if p.AskEnd > 0 {
			pc.AskEnd = time.Unix(p.AskEnd, 0)
		}
		if in, ok := byID[p.InstanceID]; ok {
			pc.Label = in.Label
			pc.OldPerHour, pc.NowKnown = in.DPHTotal, true
			if p.Known {
				pc.NewPerHour, pc.Known = in.DPHTotal+priceDelta(p, in), true
			}
		}
		out = append(out, pc)
	}
	slices.SortStableFunc(out, func(a, b PriceChange) int {
		return cmp.Or(cmp.Compare(a.AppliesAt.Unix(), b.AppliesAt.Unix()), cmp.Compare(a.InstanceID, b.InstanceID))
	})
	return out
}

// priceDelta is the change an hour in millionths: (new − old GPU price a
// second) × 3600 × GPUs + (new − old disk price a GB-second) × 3600 × GB,
// in picodollars (disk in thousandths of a GB), rounded once. A big.Int,
// because a petabyte at the highest disk price overflows an int64.
func priceDelta(p api.PriceIncrease, in api.Instance) api.Rate {
	gpu := big.NewInt(int64(p.NewGPU - p.OldGPU))
	gpu.Mul(gpu, big.NewInt(int64(in.NumGPUs)*secondsPerHour*1000))
	disk := big.NewInt(int64(p.NewDisk - p.OldDisk))
	disk.Mul(disk, big.NewInt(int64(in.DiskSpace)*secondsPerHour))
	// Both in picodollars × 1000 an hour; a millionth of a dollar is
	// 1e6 picodollars, so divide by 1e9, rounding half away from zero.
	sum := gpu.Add(gpu, disk)
	q, r := new(big.Int).QuoRem(sum, big.NewInt(1_000_000_000), new(big.Int))
	if r.CmpAbs(big.NewInt(500_000_000)) >= 0 {
		q.Add(q, big.NewInt(int64(sum.Sign())))
	}
	if !q.IsInt64() || q.Int64() > int64(api.MaxRate) || q.Int64() < -int64(api.MaxRate) {
		return 0 // cannot happen within the decoders' bounds
	}
	return api.Rate(q.Int64())
}

// finish sorts the leaks, sums them and notes the estimates.
func (a *Audit) finish() {
	slices.SortFunc(a.Leaks, func(x, y Leak) int {
		return cmp.Or(cmp.Compare(y.PerHour, x.PerHour), cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.ID, y.ID))
	})
	a.Total, a.Partial, a.Uncertain, a.UncertainCount, a.uncertainPartial = 0, false, 0, 0, false
	for _, l := range a.Leaks {
		if l.MaybeWorker {
			a.Uncertain += l.PerHour
			a.UncertainCount++
			a.uncertainPartial = a.uncertainPartial || !l.PerHourKnown || l.Partial
			continue
		}
		a.Total += l.PerHour
		if !l.PerHourKnown || l.Partial {
			a.Partial = true
		}
	}
}

// roundDiv is a/b rounded half away from zero (b > 0).
func roundDiv(a, b int64) int64 {
	if a < 0 {
		return -((-a + b/2) / b)
	}
	return (a + b/2) / b
}

// diskText is a disk size in GB, "200 GB", "0.5 GB".
func diskText(m api.Milli) string {
	if m%1000 == 0 {
		return money.Group(int64(m/1000)) + " GB"
	}
	return strconv.FormatFloat(float64(m)/1000, 'f', -1, 64) + " GB"
}

// Counted is how many leaks the total holds: every row but those that may
// be serverless workers.
func (a Audit) Counted() int { return len(a.Leaks) - a.UncertainCount }

// CountText is how many leaks the total holds, and how many rows it
// leaves out as maybe serverless workers: "56 leaks", "10 leaks, 3 maybe
// workers".
func (a Audit) CountText() string {
	s := billing.Plural(a.Counted(), "leak", "leaks")
	if a.UncertainCount > 0 {
		s += ", " + strconv.Itoa(a.UncertainCount) + " maybe workers"
	}
	return s
}

// FoundText is the audit's one line when it found leaks: "56 leaks found:
// $2.210/h", and the rows left out as maybe serverless workers when there
// are some.
func (a Audit) FoundText() string {
	s := billing.Plural(a.Counted(), "leak", "leaks") + " found: " + a.TotalText()
	if u := a.UncertainText(); u != "" {
		s += "; " + u
	}
	return s
}

// UncertainText says the rows left out of the total because they may be
// serverless workers: "3 more may be serverless workers ($0.405/h), not
// counted"; "" when there are none.
func (a Audit) UncertainText() string {
	if a.UncertainCount == 0 {
		return ""
	}
	rate := a.Uncertain.String()
	if a.uncertainPartial {
		rate = "at least " + rate
	}
	return fmt.Sprintf("%d more may be serverless workers (%s), not counted", a.UncertainCount, rate)
}

// TotalText is the total an hour in words for a header: "$3.041/h", "at
// least $3.041/h" when some leaks could not be priced whole.
func (a Audit) TotalText() string {
	if a.Partial {
		return "at least " + a.Total.String()
	}
	return a.Total.String()
}

// NotPendingError says an instance has no price increase waiting for an
// answer (any more): errors.Is(err, api.ErrNotPending).
type NotPendingError struct{ InstanceID int64 }

// Error names the instance and says its increase is no longer pending.
func (e *NotPendingError) Error() string {
	return "instance " + strconv.FormatInt(e.InstanceID, 10) + " has no price increase waiting for an answer: no longer pending"
}

// Is makes the error api.ErrNotPending.
func (e *NotPendingError) Is(target error) bool { return target == api.ErrNotPending }

// PendingIncrease finds the price increase of instance id that waits for
// an answer, priced as the audit prices it (its instance read for that;
// unpriced when the key may not list instances). None is a
// *NotPendingError.
func PendingIncrease(ctx context.Context, core *billing.Service, instanceID int64) (PriceChange, error) {
	if core.Client() == nil {
		return PriceChange{}, billing.ErrNoClient
	}
	p, err := core.Client().PendingPriceIncreases(ctx)
	if err != nil {
		return PriceChange{}, err
	}
	i := slices.IndexFunc(p.Items, func(pi api.PriceIncrease) bool { return pi.InstanceID == instanceID })
	if i < 0 {
		return PriceChange{}, &NotPendingError{InstanceID: instanceID}
	}
	rd, err := core.Instances(ctx)
	if err != nil {
		return PriceChange{}, err
	}
	byID := map[int64]api.Instance{}
	for _, in := range rd.Instances {
		if in.ID == instanceID {
			byID[in.ID] = in
		}
	}
	return priceChanges(p.Items[i:i+1], byID)[0], nil
}

// ErrAnswerUnknown is matched by the error of an answer to a price
// increase that may or may not have reached the server (its response
// lost): only a new reading of the pending increases tells.
var ErrAnswerUnknown = errors.New("the answer may have been sent: its outcome is unknown")

// answerUnknownError is ErrAnswerUnknown with what was sent and why the
// response is missing; it unwraps to that cause.
type answerUnknownError struct {
	instanceID int64
	accept     bool
	err        error
}

func (e *answerUnknownError) Error() string {
	what := "rejection"
	if e.accept {
		what = "acceptance"
	}
	return "the " + what + " of the price increase of instance " + strconv.FormatInt(e.instanceID, 10) +
		" may have been sent (" + e.err.Error() + "): whether it went through is unknown"
}

func (e *answerUnknownError) Unwrap() error { return e.err }

func (e *answerUnknownError) Is(target error) bool { return target == ErrAnswerUnknown }

// AnswerIncrease accepts (accept) or rejects pending price increase pc:
// one PUT, never sent twice. An increase answered meanwhile is a
// *NotPendingError; a key without instance_write is api.ErrPermission
// naming it; an answer whose response was lost (it may have gone through)
// matches ErrAnswerUnknown.
func AnswerIncrease(ctx context.Context, core *billing.Service, pc PriceChange, accept bool) error {
	if core.Client() == nil {
		return billing.ErrNoClient
	}
	var err error
	if accept {
		err = core.Client().AcceptPriceIncrease(ctx, pc.ID)
	} else {
		err = core.Client().RejectPriceIncrease(ctx, pc.ID)
	}
	switch {
	case errors.Is(err, api.ErrNotPending):
		return &NotPendingError{InstanceID: pc.InstanceID}
	case err != nil && ctx.Err() == nil && billing.OutcomeUnknown(err):
		return &answerUnknownError{instanceID: pc.InstanceID, accept: accept, err: err}
	}
	return err
}
