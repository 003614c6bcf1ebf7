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

// Issue 27 item 8: a record with "credit": null, or with no credit field,
// holds no credit figure. It used to decode as $0.00, an empty account;
// it is marked missing, and a credit of 0 is a credit of 0.
func TestCurrentUserWithoutACredit(t *testing.T) {
	for _, c := range []struct {
		body    string
		credit  int64
		missing bool
	}{
		{`{"id":5,"credit":null,"email":"a@b"}`, 0, true},
		{`{"id":5,"email":"a@b"}`, 0, true},
		{`{"id":5,"credit":0,"email":"a@b"}`, 0, false},
		{`{"id":5,"credit":-1.5,"email":"a@b"}`, -1500, false},
	} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, c.body) })
		u, err := f.client(t).CurrentUser(context.Background())
		if err != nil || int64(u.Credit) != c.credit || u.CreditMissing != c.missing || u.Email != "a@b" {
			t.Errorf("%s: user %+v, err %v", c.body, u, err)
		}
	}
}
