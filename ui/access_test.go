package ui

import (
	"context"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/access"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
)

// The key's access is probed once, around the first account read; when
// the sign-in has just verified it, it is taken as it is and nothing is
// sent (the scoped key's probes would otherwise meet the server's pacing).
func TestAccessProbedOnceOrTakenFromTheSignIn(t *testing.T) {
	client, err := api.New("http://127.0.0.1:9", "k", api.WithBackoff(time.Millisecond, time.Millisecond),
		api.WithEndpointThreshold(api.InvoicesPath, 0), api.WithEndpointThreshold(api.InstancesPath, 0))
	if err != nil {
		t.Fatal(err)
	}
	svc := billing.New(context.Background(), client)
	t.Cleanup(svc.Close)
	ctx := screentest.Context(context.Background(), svc)
	m := New(ctx, startOpts)
	cmd := m.checkAccess(shared.UserMsg{})
	if cmd == nil {
		t.Fatal("no probe")
	}
	if msg := cmd().(shared.AccessMsg); msg.Err != nil || msg.Access.Verdict(access.BillingRead) != access.Unsure {
		t.Fatalf("the probes of an unreachable server: %+v", msg)
	}
	if m.checkAccess(shared.UserMsg{}) != nil {
		t.Fatal("probed twice")
	}

	known := access.Access{Email: "a@b.c", Checks: []access.Check{{Permission: access.BillingRead, Verdict: access.Denied}}}
	opts := startOpts
	opts.Access = &known
	m = New(ctx, opts)
	msg := m.checkAccess(shared.UserMsg{})().(shared.AccessMsg)
	if msg.Err != nil || msg.Access.Email != "a@b.c" || len(msg.Access.Lacking()) != 1 {
		t.Fatalf("%+v", msg)
	}
}
