package charges

import (
	"testing"
)

// walkRows reads every contract of a windowed screen as the user does: g,
// then j to the last row; it fails when the screen holds more than a few
// pages at any step.
func walkRows(t *testing.T, m *Model) []string {
	t.Helper()
	drive(t, m, m.Update(keyMsg("g")))
	var out []string
	for {
		if m.win == nil {
			t.Fatal("the screen left its window")
		}
		if held := len(m.win.rows); held > 4*m.winPage() {
			t.Fatalf("%d rows held at row %d", held, m.winPos())
		}
		if m.winPos() != len(out) {
			t.Fatalf("at row %d after %d rows", m.winPos(), len(out))
		}
		out = append(out, m.sourceOf(m.tree.Top(m.cursor)))
		if len(out) == m.win.count {
			return out
		}
		drive(t, m, m.Update(keyMsg("j")))
	}
}
