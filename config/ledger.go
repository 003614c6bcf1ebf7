package config

import "path/filepath"

// LedgerDir returns the folder of the ledgers (package ledger), one SQLite
// file per account and API host: $XDG_DATA_HOME/vastdash (default
// ~/.local/share/vastdash), or "" when there is no home to put it in. Per
// the XDG spec a relative XDG_DATA_HOME is ignored.
func LedgerDir(env Env) string {
	if x := env.getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "vastdash")
	}
	if env.HomeDir == "" {
		return ""
	}
	return filepath.Join(env.HomeDir, ".local", "share", "vastdash")
}
