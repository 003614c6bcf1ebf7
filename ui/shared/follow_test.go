package shared

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
)

var followNow = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

// charges are n contracts of a dollar each, ending an hour before now.
func charges(n int) []api.Charge {
	end := followNow.Add(-time.Hour).Unix()
	cs := make([]api.Charge, n)
	for i := range cs {
		cs[i] = api.Charge{Type: "instance", Source: fmt.Sprintf("instance-%d", i+1), Start: end - 3600, End: end, Amount: money.Dollar}
	}
	return cs
}

// followService is a billing layer whose charges feeds page through what
// pager makes for each query.
func followService(t *testing.T, pager func(api.ChargesQuery) *billingtest.Pager[api.Charge]) *billing.Service {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	svc := billing.New(ctx, nil,
		billing.WithPages(func(q api.ChargesQuery) billing.Source[api.Charge] { return pager(q) }),
		billing.WithClock(func() time.Time { return followNow }), billing.WithLocation(time.UTC))
	t.Cleanup(func() { cancel(); svc.Close() })
	return svc
}

func query(days int) api.ChargesQuery {
	return billing.RangeQuery(followNow.AddDate(0, 0, -days), followNow)
}

// await runs a listen's command, within seconds: a listen reports the
// feed's next change, which the test's pages make come.
func await(t *testing.T, cmd tea.Cmd) FeedMsg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no listen: the feed was to change")
	}
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	select {
	case msg := <-got:
		fm, ok := msg.(FeedMsg)
		if !ok {
			t.Fatalf("a listen reported %T", msg)
		}
		return fm
	case <-time.After(10 * time.Second):
		t.Fatal("the listen never answered")
	}
	return FeedMsg{}
}

// A follower takes every page once, in order, its counts always those of
// the pages it took; one listen at a time; none once the feed is whole.
func TestFollowerTakesEveryPageOnce(t *testing.T) {
	all := charges(250)
	svc := followService(t, func(api.ChargesQuery) *billingtest.Pager[api.Charge] { return billingtest.Paged(all, 100) })
	var fl ChargesFollower
	fl.Hold(svc.Feed(query(30)))
	defer fl.Release()
	if st := fl.State(); st.Total != -1 || fl.Entries() != 0 {
		t.Fatalf("before anything: %+v", st)
	}
	fl.WantAll()
	var got []api.Charge
	for i := 0; !fl.State().Done; i++ {
		if i > 20 {
			t.Fatal("the feed never ended")
		}
		cmd := fl.Listen(context.Background())
		if fl.Listen(context.Background()) != nil {
			t.Fatal("a second listen while one is pending")
		}
		if !fl.Heard(await(t, cmd)) {
			t.Fatal("the follower did not hear its own feed")
		}
		pages, renewed, changed := fl.Next()
		if !changed || renewed {
			t.Fatalf("changed %v, renewed %v", changed, renewed)
		}
		for _, p := range pages {
			got = append(got, p...)
		}
		if fl.Entries() != len(got) || fl.State().Entries != len(got) {
			t.Fatalf("took %d entries, counts %d, state %d", len(got), fl.Entries(), fl.State().Entries)
		}
	}
	if len(got) != len(all) || got[0].Source != all[0].Source || got[len(got)-1].Source != all[len(all)-1].Source {
		t.Fatalf("took %d entries of %d, out of order or twice", len(got), len(all))
	}
	if _, _, changed := fl.Next(); changed {
		t.Error("Next again took something of a feed that did not change")
	}
	if fl.Listen(context.Background()) != nil || fl.Loading() {
		t.Error("a whole, idle feed is still listened to")
	}
}

// News of another feed, of a feed let go, or of an earlier hold of the same
// feed does not stand for the follower's own listen; a feed let go closes
// once nobody else holds it.
func TestFollowerHearsOnlyItsHold(t *testing.T) {
	gate := make(chan struct{})
	svc := followService(t, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		p := billingtest.Paged(charges(300), 100)
		p.Gate = gate
		return p
	})
	var fl ChargesFollower
	fl.Hold(svc.Feed(query(30)))
	defer fl.Release()
	fl.Want(1)
	first := fl.Listen(context.Background()) // the page, held at the gate

	// The same feed again (another screen kept it alive): a new hold,
	// whose listen the first hold's late answer does not stand for.
	same := svc.Feed(query(30))
	fl.Hold(same)
	if fl.Feed() != same {
		t.Fatal("the hold is not of the feed given")
	}
	now := fl.Listen(context.Background())
	if now == nil {
		t.Fatal("the new hold does not listen")
	}
	go func() { gate <- struct{}{} }()
	late := await(t, first)
	if !fl.Heard(late) {
		t.Fatal("news of the held feed not heard")
	}
	if fl.Listen(context.Background()) != nil {
		t.Fatal("an earlier hold's answer was taken for the pending listen")
	}
	fl.Next()

	old := fl.Feed()
	fl.Hold(svc.Feed(query(7)))
	if fl.Heard(FeedMsg{Feed: old, Listener: late.Listener}) {
		t.Error("news of a feed let go was heard")
	}
	other := svc.Feed(query(90))
	defer other.Release()
	if fl.Heard(FeedMsg{Feed: other}) {
		t.Error("news of another feed was heard")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := old.State()
	for !st.Closed && ctx.Err() == nil {
		st = old.Wait(ctx, st.Version)
	}
	if !st.Closed {
		t.Error("the feed let go, held by nobody, is not closed")
	}
}

// A reload's fresh feed carries the old entries until the server answers;
// then they are replaced as a whole and the follower says so (renewed),
// handing the new entries from the first.
func TestFollowerRenewsWhenTheEntriesAreReplaced(t *testing.T) {
	loads := 0
	gate := make(chan struct{})
	svc := followService(t, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		loads++
		p := billingtest.Paged(charges(150), 100)
		if loads == 2 {
			p.Gate = gate // the reload's answers wait for the test
		}
		return p
	})
	var fl ChargesFollower
	fl.Hold(svc.Feed(query(30)))
	defer fl.Release()
	fl.WantAll()
	for !fl.State().Done {
		fl.Heard(await(t, fl.Listen(context.Background())))
		fl.Next()
	}
	fl.Hold(svc.FreshFeed(query(30))) // r: taken before the old is let go
	fl.WantAll()
	fl.Heard(await(t, fl.Listen(context.Background()))) // loading, its first page held
	if pages, renewed, _ := fl.Next(); renewed || len(pages) != 2 || !fl.State().Stale {
		t.Fatalf("the fresh feed's carried entries: %d pages, renewed %v, stale %v", len(pages), renewed, fl.State().Stale)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case gate <- struct{}{}:
			case <-done:
				return
			}
		}
	}()
	var renewedOnce bool
	for !fl.State().Done {
		fl.Heard(await(t, fl.Listen(context.Background())))
		_, renewed, _ := fl.Next()
		renewedOnce = renewedOnce || renewed
	}
	if !renewedOnce || fl.Entries() != 150 || loads != 2 {
		t.Fatalf("renewed %v, %d entries, %d loads", renewedOnce, fl.Entries(), loads)
	}
}

// Without a billing layer the follower holds nothing and says why, rather
// than loading forever; asking it for anything is harmless.
func TestFollowerWithoutAFeed(t *testing.T) {
	var fl ChargesFollower
	fl.Hold(nil)
	fl.Want(1)
	fl.WantAll()
	fl.Retry()
	if !errors.Is(fl.State().Err, ErrNoService) || fl.Held() || fl.Loading() || fl.Listen(context.Background()) != nil {
		t.Fatalf("state %+v, held %v", fl.State(), fl.Held())
	}
	if _, _, changed := fl.Next(); changed {
		t.Error("nothing held changed")
	}
	fl.Release()
}
