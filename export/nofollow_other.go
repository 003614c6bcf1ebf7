//go:build !unix

package export

// oNoFollow is 0 where the system has no O_NOFOLLOW; O_EXCL alone already
// refuses an existing name, a symlink included.
const oNoFollow = 0
