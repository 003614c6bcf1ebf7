//go:build !unix || aix || (solaris && !illumos)

package alerting

import "context"

// stateLock: no flock(2) here; runs on one account do not overlap on such
// systems unless the user starts two.
type stateLock struct{}

func lockState(context.Context, string) (*stateLock, error) { return &stateLock{}, nil }
func (*stateLock) release()                                 {}
