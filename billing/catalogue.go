package billing

import (
	"context"
	"sync"

	"github.com/vastdash/vastdash/api"
)

// catalogueCache holds the catalogue a service read: it names things that
// do not change within a session, so it is read once (and again only when
// the user reloads).
type catalogueCache struct {
	mu   sync.Mutex
	done bool
	cat  api.NotificationCatalogue
	err  error
}

// Catalogue returns the notification catalogue: the copy read before in
// this session, or a fresh read when there is none or refresh is set. A
// failed read is kept too (a server without the endpoint is asked once),
// until the next refresh.
func (s *Service) Catalogue(ctx context.Context, refresh bool) (api.NotificationCatalogue, error) {
	if s.client == nil {
		return api.NotificationCatalogue{}, ErrNoClient
	}
	s.cat.mu.Lock()
	defer s.cat.mu.Unlock()
	if s.cat.done && !refresh {
		return s.cat.cat, s.cat.err
	}
	cat, err := s.client.NotificationTypes(ctx)
	if ctx.Err() != nil {
		// Cancelled: says nothing about the server; ask again next time.
		return cat, err
	}
	s.cat.done, s.cat.cat, s.cat.err = true, cat, err
	return cat, err
}
