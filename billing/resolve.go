package billing

import (
	"context"
	"net"
	"net/netip"
)

// Resolver looks up the addresses of a host name.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// WithResolver sets how a webhook URL's host name is looked up before a
// save, to refuse a name that leads to a private or loopback address. nil
// looks up nothing: only literal addresses and the localhost names are
// checked (--demo, which uses no network, and tests). The default is the
// system's resolver.
func WithResolver(r Resolver) Option {
	return func(s *Service) {
		s.resolve = r
		s.resolveSet = true
	}
}

func systemResolver(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// Resolver is how a webhook URL's host name is looked up before a save
// (WithResolver; the system's resolver by default), nil when nothing is
// looked up.
func (s *Service) Resolver() Resolver {
	if s.resolveSet {
		return s.resolve
	}
	return systemResolver
}
