package shared

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
)

// ErrNoService is the state of a feed a screen could not take because it
// was built without a billing layer (a misconfigured test): the screen
// says so rather than "loading" forever.
var ErrNoService = errors.New("no API client configured")

// Feed is what a Follower needs of a feed: billing's charges feed
// (*billing.Feed) and its payments feed (*billing.PaymentsFeed) are both
// one, over their kind of entry E.
type Feed[E any] interface {
	comparable
	State() billing.State
	Wait(ctx context.Context, after uint64) billing.State
	Pages(from int) [][]E
	Want(n int)
	WantAll()
	Retry()
	Release()
}

// Follower is a screen's hold on one feed and how far it has followed it:
// the one piece of feed bookkeeping every screen showing a feed embeds. It
// holds the feed (and lets it go when another replaces it), its state as
// last taken, the version and generation taken (so a message of a feed let
// go, or one already taken, changes nothing), the pages taken, and whether
// a listen of its own is pending (so there is one at a time).
//
// A screen's loop with it: Hold a feed, ask it for pages (Want, WantAll),
// Listen; on a FeedMsg the follower Heard, take what came with Next, fold
// the pages, and Listen again. Only Update calls these: the command Listen
// returns only waits and reports.
type Follower[F Feed[E], E any] struct {
	feed      F
	held      bool
	listener  int  // the number its listens carry: new with each hold
	listening bool // a listen of this hold is pending
	seen      uint64
	gen       uint64 // the State.Generation whose pages are taken
	pages     int    // pages taken
	entries   int    // top-level entries in them
	st        billing.State
}

// ChargesFollower follows a charges feed.
type ChargesFollower = Follower[*billing.Feed, api.Charge]

// PaymentsFollower follows a payments feed.
type PaymentsFollower = Follower[*billing.PaymentsFeed, api.Invoice]

// Hold follows f from its beginning and lets go of the feed held before:
// take f first (a fresh feed carries the old one's entries until the
// server answers, billing.Service.FreshFeed). A nil f (no billing layer)
// is held as a feed stopped on ErrNoService.
func (fl *Follower[F, E]) Hold(f F) {
	fl.Release()
	var none F
	*fl = Follower[F, E]{feed: f, held: f != none, listener: NewListener(), st: billing.State{Total: -1}}
	if !fl.held {
		fl.st.Err = ErrNoService
	}
}

// Release lets go of the held feed (its loader stops unless another screen
// holds it too); its messages no longer concern the follower. The state
// last taken stays.
func (fl *Follower[F, E]) Release() {
	if fl.held {
		fl.feed.Release()
	}
	var none F
	fl.feed, fl.held, fl.listening = none, false, false
}

// Feed is the feed held; nil when none is.
func (fl *Follower[F, E]) Feed() F { return fl.feed }

// Held reports that a feed is held.
func (fl *Follower[F, E]) Held() bool { return fl.held }

// State is the feed's state as last taken (Next): what the pages taken
// add up to, and what the screen shows.
func (fl *Follower[F, E]) State() billing.State { return fl.st }

// Entries counts the top-level entries of the pages taken.
func (fl *Follower[F, E]) Entries() int { return fl.entries }

// Loading asks the feed itself whether it loads (a request in flight or a
// rate-limit wait), so the header's spinner starts the moment a screen
// asks for a page and stops the moment the feed is idle.
func (fl *Follower[F, E]) Loading() bool { return fl.held && fl.feed.State().Loading }

// Want asks the feed for at least n top-level entries.
func (fl *Follower[F, E]) Want(n int) {
	if fl.held {
		fl.feed.Want(n)
	}
}

// WantAll asks the feed for every page.
func (fl *Follower[F, E]) WantAll() {
	if fl.held {
		fl.feed.WantAll()
	}
}

// Retry asks a feed stopped on an error for the failed page again.
func (fl *Follower[F, E]) Retry() {
	if fl.held {
		fl.feed.Retry()
	}
}

// Heard reports that msg is news of the held feed, which the screen then
// takes with Next, and notes that the follower's own listen answered, so
// that Listen waits again. News of another feed, or of a feed let go, is
// not the follower's. A screen sharing the feed may have sent it: every
// holder takes what any listen reports.
func (fl *Follower[F, E]) Heard(msg FeedMsg) bool {
	if !fl.held || msg.Feed != any(fl.feed) {
		return false
	}
	if msg.Listener == fl.listener {
		fl.listening = false
	}
	return true
}

// Unlisten forgets the pending listen, as if it had answered: for a caller
// that dropped its command unrun (a test).
func (fl *Follower[F, E]) Unlisten() { fl.listening = false }

// Next takes what the feed added since the last call: its state now, and
// the pages added up to exactly that state (a page stored after the state
// was read comes with the next change), so counts and pages always agree.
// renewed reports that the feed's entries were replaced as a whole
// (State.Generation: the ledger's rows read again, a reload's first page)
// after some were taken: the caller drops what it folded, and pages holds
// the new entries from the first. changed is false when the feed has not
// moved since the last call.
func (fl *Follower[F, E]) Next() (pages [][]E, renewed, changed bool) {
	if !fl.held {
		return nil, false, false
	}
	st := fl.feed.State()
	if st.Version <= fl.seen {
		return nil, false, false
	}
	if st.Generation != fl.gen {
		fl.gen = st.Generation
		renewed = fl.entries > 0
		fl.pages, fl.entries = 0, 0
	}
	if st.Entries > fl.entries {
		for _, p := range fl.feed.Pages(fl.pages) {
			if fl.entries+len(p) > st.Entries {
				break // stored after st was read: the next change brings it
			}
			pages = append(pages, p)
			fl.pages++
			fl.entries += len(p)
		}
	}
	fl.seen, fl.st = st.Version, st
	return pages, renewed, true
}

// Listen returns a command that waits for the held feed's next change past
// the version taken (or ctx's end; a nil ctx never ends) and reports it as
// a FeedMsg. It returns nil when a listen of its own is pending, or when no
// change will come: the feed is closed, or idle with nothing untaken until
// someone asks it for more. So call it after every FeedMsg the follower
// Heard and after Want, WantAll or Retry; no goroutine waits on a feed that
// will not change.
func (fl *Follower[F, E]) Listen(ctx context.Context) tea.Cmd {
	if fl.listening || !fl.held {
		return nil
	}
	st := fl.feed.State()
	if st.Closed || (st.Version <= fl.seen && !st.Loading) {
		return nil
	}
	fl.listening = true
	f, listener := fl.feed, fl.listener
	return wait(ctx, f, fl.seen, func(st billing.State) tea.Msg { return FeedMsg{Feed: f, State: st, Listener: listener} })
}
