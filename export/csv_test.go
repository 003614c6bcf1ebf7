package export

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
)

func TestCellDefusesFormulas(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"-1+2", "'-1+2"}, {"+x", "'+x"}, {"  =x", "'  =x"}, {"a=b", "a=b"}, {"", ""}, {"\x1b[31m=x", "'=x"},
	} {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// writeAndRead is what WriteCSV writes of es in UTC, read back as rows.
func writeAndRead(t *testing.T, es []api.Charge, items bool) [][]string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, es, items, time.UTC); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestWriteCSVItemsTakeTheirParentsSource: an item without a source is
// written with its contract's, right after it, and only when items is set.
func TestWriteCSVItemsTakeTheirParentsSource(t *testing.T) {
	es := []api.Charge{{
		Type: "instance", Source: "instance-5", Start: 1, End: 3601, Description: "=cmd", Amount: 1500,
		Items: []api.Charge{{Type: "gpu", Start: 1, End: 3601, Description: "1x A100", Amount: 1500}},
	}}
	for _, items := range []bool{false, true} {
		rows := writeAndRead(t, es, items)
		want := [][]string{Header, {"1970-01-01T00:00:01Z", "1970-01-01T01:00:01Z", "instance", "instance-5", "", "'=cmd", "1.500", "", "", ""}}
		if items {
			want = append(want, []string{"1970-01-01T00:00:01Z", "1970-01-01T01:00:01Z", "gpu", "instance-5", "", "1x A100", "1.500", "", "", ""})
		}
		if len(rows) != len(want) {
			t.Fatalf("items %v: rows %q", items, rows)
		}
		for i := range want {
			if len(rows[i]) != len(want[i]) {
				t.Fatalf("items %v: row %d = %q, want %q", items, i, rows[i], want[i])
			}
			for j := range want[i] {
				if rows[i][j] != want[i][j] {
					t.Fatalf("items %v: row %d = %q, want %q", items, i, rows[i], want[i])
				}
			}
		}
	}
}

// TestCreateNeverOverwrites: a taken name gets -2, -3 …; a symlink under
// the name is not followed; the file is private.
func TestCreateNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "x.csv")); err != nil {
		t.Skip("no symlinks:", err)
	}
	var paths []string
	for range 2 {
		f, p, err := Create(dir, "x.csv")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		paths = append(paths, filepath.Base(p))
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", p, fi.Mode(), err)
		}
	}
	if paths[0] != "x-2.csv" || paths[1] != "x-3.csv" {
		t.Fatalf("names %v", paths)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatal("the symlink's target was written")
	}
}

// TestWriteCSVIDs: the template, endpoint and workergroup ids follow the
// amount, each empty when unset, for entries and items alike.
func TestWriteCSVIDs(t *testing.T) {
	es := []api.Charge{
		{Type: "serverless", Source: "endpoint-7", Amount: 1,
			Meta:  api.Metadata{TemplateID: 12, EndpointID: 7, WorkergroupID: 9007199254740993},
			Items: []api.Charge{{Type: "gpu", Amount: 1, Meta: api.Metadata{WorkergroupID: 3}}}},
		{Type: "instance", Source: "instance-1", Amount: 2},
	}
	rows := writeAndRead(t, es, true)
	want := [][]string{{"12", "7", "9007199254740993"}, {"", "", "3"}, {"", "", ""}}
	if len(rows) != 1+len(want) || rows[0][6] != "amount" || rows[0][7] != "template_id" {
		t.Fatalf("rows %q", rows)
	}
	for i, w := range want {
		if got := rows[1+i][7:]; got[0] != w[0] || got[1] != w[1] || got[2] != w[2] {
			t.Errorf("row %d ids %q, want %q", i+1, got, w)
		}
	}
}
