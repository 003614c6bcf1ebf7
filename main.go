// Command vastdash is a terminal dashboard for the Vast.ai billing, account
// and notification API, and a set of commands for scripts, status bars and
// monitoring. Everything it does lives in internal/cli; see ARCHITECTURE.md.
package main

import (
	"os"

	"github.com/vastdash/vastdash/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=…"; without
// it the module version from the build info, or "dev".
var version = ""

func main() {
	os.Exit(cli.Main(os.Args[1:], version))
}
