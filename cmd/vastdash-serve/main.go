// Command vastdash-serve is vastdash with the Prometheus exporter linked
// in: `vastdash serve` runs it with the same arguments. It is a program of
// its own so that client_golang's package inits and size stay out of the
// start of every other command (see internal/cli/serve.go); any other
// command works here too.
package main

import (
	"log/slog"
	"os"

	"github.com/vastdash/vastdash/exporter"
	"github.com/vastdash/vastdash/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=…", as
// vastdash's.
var version = ""

func main() {
	os.Exit(cli.MainServe(os.Args[1:], version, backend))
}

// backend is the exporter of one serve run.
func backend(log *slog.Logger, version string) cli.ServeBackend {
	return exporter.New(exporter.Options{Log: log, Version: version})
}
