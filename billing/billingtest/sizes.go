package billingtest

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// BenchSizes are the numbers of contracts the benchmarks of large
// histories run at: 10,000, or the sizes VASTDASH_BENCH_SIZES lists
// ("10000,100000,1000000"), so that CI's one pass stays short and each
// table of docs/performance.md is one command.
func BenchSizes(tb testing.TB) []int {
	v := os.Getenv("VASTDASH_BENCH_SIZES")
	if v == "" {
		return []int{10_000}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			tb.Fatalf("VASTDASH_BENCH_SIZES: %q is not a size", f)
		}
		out = append(out, n)
	}
	return out
}
