//go:build !unix || aix || (solaris && !illumos)

package ledger

// fileLock: no flock(2) here. On Windows a file open in another process
// cannot be deleted or renamed anyway; elsewhere the ledger goes without.
type fileLock struct{}

func lockShared(string) (*fileLock, error) { return &fileLock{}, nil }
func lockAlone(string) (*fileLock, error)  { return &fileLock{}, nil }
func (*fileLock) alone() error             { return nil }
func (*fileLock) share()                   {}
func (*fileLock) remove() error            { return nil }
func (*fileLock) release()                 {}
