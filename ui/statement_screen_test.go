package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/theme"
)

// The Statement screen is 4 and its year loads only once it is shown: the
// dashboard's start sends no invoices request, pressing 4 does.
func TestStatementLoadsWhenShown(t *testing.T) {
	srv, err := demoserver.Start(demoserver.Options{Contracts: 100, Threshold: -1, InvoicesThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithEndpointThreshold(api.InvoicesPath, 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	svc := billing.New(ctx, c, billing.WithLocation(time.UTC), billing.WithClock(srv.Now))
	t.Cleanup(func() { cancel(); svc.Close() })
	m := New(screentest.Context(ctx, svc, screentest.Styles(theme.New(true))),
		Options{Dark: true, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Init()
	m.Update(press("2"))
	invoices := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if strings.HasPrefix(r.Path, "/api/v1/invoices") {
				n++
			}
		}
		return n
	}
	if n := invoices(); n != 0 || m.stmt.Loading() {
		t.Fatalf("%d invoices requests before the Statement screen was shown", n)
	}
	_, cmd := m.Update(press("4"))
	if m.active != screenStatement || cmd == nil || !m.stmt.Loading() {
		t.Fatalf("active %d, loading %v", m.active, m.stmt.Loading())
	}
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	for invoices() == 0 && wctx.Err() == nil {
		if err := srv.WaitRequests(wctx, len(srv.Requests())+1); err != nil {
			t.Fatal("no invoices request after 4")
		}
	}
	if !strings.Contains(screenText(m), "[4 Statement]") || !strings.Contains(screenText(m), "loading the year") {
		t.Fatalf("screen:\n%s", screenText(m))
	}
}
