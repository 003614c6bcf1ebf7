package api

import (
	"context"
	"net/http"
	"testing"
)

// A balance_threshold no Amount holds used to fail the whole record: the
// credit vanished with it. It costs only the threshold now, and says so.
func TestCurrentUserUnholdableThreshold(t *testing.T) {
	for _, raw := range []string{`1e308`, `"50"`, `-1e30`, `[]`} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			reply(w, 200, `{"id":5,"credit":12.5,"balance_threshold":`+raw+`,"balance_threshold_enabled":true}`)
		})
		u, err := f.client(t).CurrentUser(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if u.Credit != 12500 || u.BalanceThreshold != nil || !u.BalanceThresholdBad {
			t.Errorf("%s: user = %+v", raw, u)
		}
	}
}
