package demoserver

import (
	"cmp"
	"math"
	"slices"
	"strconv"
)

// viewKey identifies one filter set; next_token cursors are bound to it.
type viewKey struct {
	gte, lte int64
	mask     uint8
	tree     bool
}

// ref is one top-level entry of a response: a contract (w == nil) or a
// serverless endpoint wrapper (tree format only).
type ref struct {
	ci int32
	w  *epWrap
}

type epWrap struct {
	ep                 int16
	start, end, amount int64
	groups             []*wgWrap // ascending by (start, id)
}

type wgWrap struct {
	wg                 int16
	start, end, amount int64
	members            []int32 // ascending contract indexes
}

// view is the precomputed answer to one filter set, ascending by (start, id);
// paging reads a slice of it by binary search, so only the first request of
// a filter set scans the data.
type view struct {
	data *dataset // the data set it was built from
	refs []ref
}

func (d *dataset) key(r ref) (start, id int64) {
	if r.w != nil {
		return r.w.start, d.endpoints[r.w.ep].id
	}
	c := &d.cs[r.ci]
	return c.start, c.id
}

func (d *dataset) buildView(k viewKey, win window) *view {
	m := d.matches(k.gte, k.lte, k.mask)
	if !k.tree {
		refs := make([]ref, len(m))
		for i, ci := range m {
			refs[i] = ref{ci: ci}
		}
		return &view{data: d, refs: refs}
	}
	var plain []ref
	eps := map[int16]*epWrap{}
	wgs := map[int16]*wgWrap{}
	var epOrder []*epWrap
	for _, ci := range m {
		c := &d.cs[ci]
		if c.kind != kindServerless {
			plain = append(plain, ref{ci: ci})
			continue
		}
		e := eps[c.ep]
		if e == nil {
			// Members arrive in ascending start order, so the first one
			// fixes the wrapper's start.
			e = &epWrap{ep: c.ep, start: c.start, end: c.end}
			eps[c.ep] = e
			epOrder = append(epOrder, e)
		}
		g := wgs[c.wg]
		if g == nil {
			g = &wgWrap{wg: c.wg, start: c.start, end: c.end}
			wgs[c.wg] = g
			e.groups = append(e.groups, g)
		}
		g.members = append(g.members, ci)
		g.end = max(g.end, c.end)
		a := c.amountsIn(win).total
		g.amount += a
		e.end = max(e.end, c.end)
		e.amount += a
	}
	refs := make([]ref, 0, len(plain)+len(epOrder))
	refs = append(refs, plain...)
	for _, e := range epOrder {
		// Groups were appended in order of their first member, which is
		// (start, index) order; ids break equal starts.
		slices.SortStableFunc(e.groups, func(a, b *wgWrap) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(d.groups[a.wg].id, d.groups[b.wg].id))
		})
		refs = append(refs, ref{w: e})
	}
	slices.SortFunc(refs, func(a, b ref) int {
		as, ai := d.key(a)
		bs, bi := d.key(b)
		return cmp.Or(cmp.Compare(as, bs), cmp.Compare(ai, bi))
	})
	return &view{data: d, refs: refs}
}

// Filter selects ground-truth contracts the way select_filters and
// latest_first do.
type Filter struct {
	// Gte and Lte are the day range in unix seconds, inclusive; a contract
	// matches when its [start, end] overlaps it. Lte 0 means no upper bound.
	Gte, Lte int64
	// Types holds any of "instance", "volume", "serverless"; empty means all.
	// "instance" alone excludes serverless worker contracts. Unknown values
	// match nothing.
	Types []string
	// OldestFirst orders ascending (latest_first=false). The zero value
	// orders newest first, the API's default.
	OldestFirst bool
}

func (f Filter) key(tree bool) viewKey {
	k := viewKey{gte: f.Gte, lte: f.Lte, tree: tree}
	if k.lte == 0 {
		k.lte = math.MaxInt64
	}
	if len(f.Types) == 0 {
		k.mask = kindAll
	}
	for _, t := range f.Types {
		k.mask |= typeBit(t)
	}
	return k
}

func typeBit(t string) uint8 {
	switch t {
	case "instance":
		return kindInstance
	case "volume":
		return kindVolume
	case "serverless":
		return kindServerless
	}
	return 0
}

// Contract is the ground truth of one contract as a table-format row.
type Contract struct {
	ID int64 // the number in Source; ids grow with Start
	// Type is "instance" or "volume"; serverless workers are "instance"
	// with EndpointID and WorkergroupID set.
	Type        string
	Source      string // "instance-<ID>" or "volume-<ID>"
	Start, End  int64  // unix seconds; End == the server's Now for running contracts
	Description string // as served (decorated in Hostile mode)
	Amount      int64  // thousandths of a dollar, exactly the sum of Items
	// Metadata; zero / empty means the key is absent on the wire.
	TemplateID    int64
	Label         string
	EndpointID    int64
	WorkergroupID int64
	// Items: gpu, disk, bwd, bwu for instances and workers; disk alone for
	// volumes. They share the contract's Start and End.
	Items []Item
}

// Serverless reports whether c is a serverless worker contract.
func (c Contract) Serverless() bool { return c.EndpointID != 0 }

// Item is one line of a contract's breakdown.
type Item struct {
	Type        string // "gpu", "disk", "bwd" or "bwu"
	Start, End  int64
	Description string
	Amount      int64 // thousandths of a dollar
}

// Node is one entry of a tree-format response: a contract, or a serverless
// wrapper ("endpoint-<id>" holding "workergroup-<id>" nodes holding
// contracts).
type Node struct {
	Type        string // "serverless" for wrappers, else the contract's type
	Source      string
	Start, End  int64
	Description string
	Amount      int64 // thousandths; for wrappers the exact sum of Children
	// EndpointID is set on both wrapper levels, WorkergroupID on workergroup
	// wrappers.
	EndpointID, WorkergroupID int64
	Children                  []Node    // wrappers only, in response order
	Contract                  *Contract // contract nodes only
}

func (d *dataset) export(ci int32, w window) Contract {
	c := &d.cs[ci]
	am := c.amountsIn(w)
	out := Contract{
		ID: c.id, Type: d.typeName(c), Source: d.source(c), Start: c.start, End: c.end,
		Description: d.contractDesc(c), Amount: am.total, TemplateID: c.template,
	}
	if c.label >= 0 {
		out.Label = d.labels[c.label]
	}
	if c.ep >= 0 {
		out.EndpointID = d.endpoints[c.ep].id
		out.WorkergroupID = d.groups[c.wg].id
	}
	for i := 0; i < int(c.nitems); i++ {
		it := &c.items[i]
		out.Items = append(out.Items, Item{
			Type: itemTypes[it.typ], Start: c.start, End: c.end,
			Description: d.itemDesc(c, it), Amount: am.items[i],
		})
	}
	return out
}

func (d *dataset) typeName(c *contract) string {
	if c.kind == kindVolume {
		return "volume"
	}
	return "instance"
}

func (d *dataset) source(c *contract) string {
	return d.typeName(c) + "-" + strconv.FormatInt(c.id, 10)
}

// ordered calls fn for each element of n indexes in response order.
func ordered(n int, desc bool, fn func(i int)) {
	for k := 0; k < n; k++ {
		if desc {
			fn(n - 1 - k)
		} else {
			fn(k)
		}
	}
}

// Contracts returns the ground truth of a table-format query: every contract
// matching q, in response order, with exact amounts. Paging through the
// charges endpoint with the same filters yields exactly these rows.
func (s *Server) Contracts(q Filter) []Contract {
	k := q.key(false)
	d := s.ds()
	v, win := s.view(d, k), s.windowOf(k.gte, k.lte)
	out := make([]Contract, 0, len(v.refs))
	ordered(len(v.refs), !q.OldestFirst, func(i int) {
		out = append(out, d.export(v.refs[i].ci, win))
	})
	return out
}

// Tree returns the ground truth of a tree-format query: the top-level entries
// matching q in response order, wrappers filled with their matching members.
func (s *Server) Tree(q Filter) []Node {
	k := q.key(true)
	d := s.ds()
	v, win := s.view(d, k), s.windowOf(k.gte, k.lte)
	desc := !q.OldestFirst
	contractNode := func(ci int32) Node {
		c := d.export(ci, win)
		return Node{Type: c.Type, Source: c.Source, Start: c.Start, End: c.End,
			Description: c.Description, Amount: c.Amount, EndpointID: c.EndpointID,
			WorkergroupID: c.WorkergroupID, Contract: &c}
	}
	out := make([]Node, 0, len(v.refs))
	ordered(len(v.refs), desc, func(i int) {
		r := v.refs[i]
		if r.w == nil {
			out = append(out, contractNode(r.ci))
			return
		}
		ep := d.endpoints[r.w.ep]
		n := Node{Type: "serverless", Source: "endpoint-" + strconv.FormatInt(ep.id, 10),
			Start: r.w.start, End: r.w.end, Description: d.epDesc(r.w.ep), Amount: r.w.amount,
			EndpointID: ep.id}
		ordered(len(r.w.groups), desc, func(j int) {
			g := r.w.groups[j]
			wg := d.groups[g.wg]
			gn := Node{Type: "serverless", Source: "workergroup-" + strconv.FormatInt(wg.id, 10),
				Start: g.start, End: g.end, Description: d.wgDesc(g.wg), Amount: g.amount,
				EndpointID: ep.id, WorkergroupID: wg.id}
			ordered(len(g.members), desc, func(k int) {
				gn.Children = append(gn.Children, contractNode(g.members[k]))
			})
			n.Children = append(n.Children, gn)
		})
		out = append(out, n)
	})
	return out
}
