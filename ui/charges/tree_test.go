package charges

import (
	"math/rand/v2"
	"testing"

	"github.com/vastdash/vastdash/api"
)

// TestRowListMatchesFlatSlice drives the chunked list and a plain slice with
// the same random inserts, deletes and appends, across chunk boundaries, and
// checks they always hold the same rows in the same order.
func TestRowListMatchesFlatSlice(t *testing.T) {
	nodes := make([]api.Charge, 1)
	r := rand.New(rand.NewPCG(1, 2))
	var l rowList
	var ref []row
	next := int32(0)
	mk := func(n int) []row {
		rs := make([]row, n)
		for i := range rs {
			rs[i] = row{node: &nodes[0], depth: next}
			next++
		}
		return rs
	}
	for step := 0; step < 3000; step++ {
		switch op := r.IntN(10); {
		case op < 3:
			rs := mk(r.IntN(700) + 1) // sometimes more than a chunk
			l.Append(rs...)
			ref = append(ref, rs...)
		case op < 7:
			rs := mk(r.IntN(40) + 1)
			if r.IntN(20) == 0 {
				rs = mk(r.IntN(1500) + 1)
			}
			at := r.IntN(len(ref) + 1)
			l.Insert(at, rs)
			ref = append(ref[:at], append(append([]row(nil), rs...), ref[at:]...)...)
		default:
			if len(ref) == 0 {
				continue
			}
			at := r.IntN(len(ref))
			k := r.IntN(min(len(ref)-at, 900)) + 1
			l.Delete(at, k)
			ref = append(ref[:at], ref[at+k:]...)
		}
		if l.Len() != len(ref) {
			t.Fatalf("step %d: Len %d, want %d", step, l.Len(), len(ref))
		}
		if step%50 == 0 || len(ref) < 5 {
			for i := range ref {
				if l.At(i).depth != ref[i].depth {
					t.Fatalf("step %d: row %d holds %d, want %d", step, i, l.At(i).depth, ref[i].depth)
				}
			}
			from := r.IntN(len(ref) + 1)
			to := from + r.IntN(100)
			want := from
			l.Each(from, to, func(i int, rw *row) bool {
				if i != want || rw.depth != ref[i].depth {
					t.Fatalf("step %d: Each gave row %d (%d), want row %d (%d)", step, i, rw.depth, want, ref[want].depth)
				}
				want++
				return true
			})
			if want != min(to, len(ref)) {
				t.Fatalf("step %d: Each stopped at %d, want %d", step, want, min(to, len(ref)))
			}
			back := min(from, len(ref)-1)
			stop := back - r.IntN(600)
			l.EachBack(from, func(i int, rw *row) bool {
				if i != back || rw.depth != ref[i].depth {
					t.Fatalf("step %d: EachBack gave row %d (%d), want row %d", step, i, rw.depth, back)
				}
				back--
				return i > stop
			})
			// The last row visited is stop (f said no there), or row 0.
			if want := max(stop, 0) - 1; back != want {
				t.Fatalf("step %d: EachBack stopped before %d, want before %d", step, back+1, want+1)
			}
		}
		for _, c := range l.chunks {
			if len(c) == 0 || len(c) > chunkMax {
				t.Fatalf("step %d: chunk of %d rows", step, len(c))
			}
		}
	}
}

// depthsAndSources lists the visible rows as "depth:source-or-type".
func rowsOf(tr *tree) []string {
	var out []string
	tr.rows.Each(0, tr.Len(), func(_ int, r *row) bool {
		name := r.node.Source
		if name == "" {
			name = r.node.Type
		}
		out = append(out, string(rune('0'+r.depth))+":"+name)
		return true
	})
	return out
}

func TestTreeExpandRemembersOpenDescendants(t *testing.T) {
	top := []api.Charge{serverlessEndpoint(7, 2, 2), contract(1, 0)}
	tr := newTree()
	tr.AppendTop(top)
	tr.Expand(0)                        // endpoint → 2 workergroups
	tr.Expand(1)                        // first workergroup → 2 contracts
	tr.Expand(2)                        // first contract → items
	assertRows(t, rowsOf(tr), []string{ // the whole open path, in order
		"0:endpoint-7",
		"1:workergroup-70",
		"2:serverless-700",
		"3:gpu", "3:disk", "3:bwd", "3:bwu",
		"2:serverless-701",
		"1:workergroup-71",
		"0:instance-1",
	})
	if p := tr.Parent(4); p != 2 {
		t.Errorf("parent of an item = row %d, want 2 (its contract)", p)
	}
	if p := tr.Parent(8); p != 0 {
		t.Errorf("parent of the second workergroup = row %d, want 0", p)
	}
	tr.Collapse(0)
	assertRows(t, rowsOf(tr), []string{"0:endpoint-7", "0:instance-1"})
	tr.Expand(0) // the workergroup and contract opened before open again
	if got := tr.Len(); got != 10 {
		t.Fatalf("after re-expanding, %d rows, want 10: %v", got, rowsOf(tr))
	}
	if !tr.At(1).expanded || !tr.At(2).expanded || tr.At(7).expanded {
		t.Errorf("open flags not restored: %v", rowsOf(tr))
	}
	if tr.Expand(3) || tr.Collapse(3) {
		t.Error("a leaf item expanded or collapsed")
	}
}

func assertRows(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("rows\n got %v\nwant %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: got %q, want %q\n got %v\nwant %v", i, got[i], want[i], got, want)
		}
	}
}
