package ledger

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkReadYear reads 20,000 contracts with four lines each back.
func BenchmarkReadYear(b *testing.B) {
	l, _, err := Open(Path(filepath.Join(b.TempDir(), "d"), me), me)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for p := range 40 {
		var cs []ChargeRow
		for k := range 500 {
			c := contract(itoa(int64(p*1000+k)), 1000+int64(p*1000+k), 90000+int64(p*1000+k), 5)
			c.Items = append(c.Items, c.Items[0], c.Items[0], c.Items[0])
			cs = append(cs, ChargeRow{Charge: c, Days: []Day{{Day: 0, Mills: 2}, {Day: 86400, Mills: 3}}})
		}
		if _, err := l.WriteCharges(context.Background(), ChargesPage{Window: Window{Lo: 0, Hi: 200000, Started: 5}, Rows: cs}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, err := l.Charges(context.Background(), 0, 200000)
		if err != nil || len(rows) != 20000 {
			b.Fatal(err, len(rows))
		}
	}
}
