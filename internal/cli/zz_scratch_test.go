package cli

import "testing"

func TestZZScratch(t *testing.T) {
	srv := auditServer(t)
	for _, args := range [][]string{{"auth", "status"}, {"credit", "--runway", "--rate"}, {"audit"}, {"statement"}, {"notifications"}} {
		res := auditRun(t, srv, "wrong-key-123", fastInstances, args...)
		t.Logf("%v: %d\n%s%s", args, res.code, res.out, res.errOut)
	}
	t.Setenv("VAST_API_KEY", "")
	res := runAgainst(t, srv, "", nil, "credit")
	t.Logf("nokey: %d %s", res.code, res.errOut)
}
