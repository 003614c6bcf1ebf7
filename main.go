// Command vastdash is a terminal dashboard for the Vast.ai billing, account
// and notification API: credit at a glance, charges per contract down to
// their gpu/disk/bandwidth items, and the low-credit alert switches.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/sanitize"
	"github.com/vastdash/vastdash/ui"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version from the build info, or "dev".
var version = ""

// Exit codes.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

const usage = `vastdash — a terminal dashboard for your Vast.ai credit, charges and alerts

Usage:
  vastdash [flags]

Flags:
  --demo               use the embedded demo server: no account, no network
  --api-key-file PATH  read the API key from PATH
  --url URL            API base URL (default https://console.vast.ai, env VAST_URL)
  --config PATH        settings file (default $XDG_CONFIG_HOME/vastdash/config.toml)
  --version            print the version and exit
  -h, --help           show this help

The API key comes from --api-key-file, else VAST_API_KEY, else
$XDG_CONFIG_HOME/vastai/vast_api_key (~/.config/vastai/vast_api_key), else
~/.vast_api_key — the same places as the official vastai CLI.

Exit codes: 0 ok, 1 runtime error, 2 usage or configuration error.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the parsed command line.
type options struct {
	demo    bool
	version bool
	flags   config.Flags
}

func parseArgs(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("vastdash", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&o.demo, "demo", false, "")
	fs.BoolVar(&o.version, "version", false, "")
	fs.StringVar(&o.flags.APIKeyFile, "api-key-file", "", "")
	fs.StringVar(&o.flags.URL, "url", "", "")
	fs.StringVar(&o.flags.ConfigFile, "config", "", "")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "vastdash: %s (see vastdash --help)\n", sanitize.String(err.Error()))
		return exitUsage
	}
	if o.version {
		fmt.Fprintln(stdout, "vastdash", versionString())
		return exitOK
	}

	sess, code := openSession(o, stderr)
	if sess == nil {
		return code
	}
	defer sess.close()

	base, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx := &shared.Context{
		Client:       sess.client,
		Location:     sess.settings.Location,
		Now:          time.Now,
		DefaultRange: sess.settings.Range,
	}
	uiOpts := ui.Options{Host: sess.host, Demo: o.demo, Theme: sess.settings.Theme}
	switch sess.settings.Theme {
	case "light":
		uiOpts.Dark = false
	case "dark":
		uiOpts.Dark = true
	default:
		uiOpts.Dark = theme.DarkFromEnv(os.Getenv("COLORFGBG"))
	}
	if err := ui.Run(base, ctx, uiOpts, sess.events); err != nil {
		fmt.Fprintf(stderr, "vastdash: %s\n", sanitize.String(err.Error()))
		return exitRuntime
	}
	return exitOK
}

// session is what a run talks to: a client, and in demo mode the server.
type session struct {
	client   *api.Client
	events   *ui.Events
	settings config.Settings
	host     string // shown in the header when not the default
	demo     *demoserver.Server
}

func (s *session) close() {
	if s.demo != nil {
		s.demo.Close()
	}
}

// openSession resolves the configuration (or starts the demo server) and
// builds the client. On failure it has printed one line and returns the
// exit code.
func openSession(o options, stderr io.Writer) (*session, int) {
	env := config.DefaultEnv()
	s := &session{events: &ui.Events{}}
	var baseURL, key string
	if o.demo {
		settings, err := config.LoadSettings(env, o.flags.ConfigFile)
		if err != nil {
			return fail(stderr, err)
		}
		srv, err := demoserver.Start(demoserver.Options{Latency: 60 * time.Millisecond})
		if err != nil {
			fmt.Fprintf(stderr, "vastdash: cannot start the demo server: %s\n", err)
			return nil, exitRuntime
		}
		s.demo, s.settings = srv, settings
		baseURL, key = srv.URL(), demoserver.DemoKey
	} else {
		cfg, err := config.Load(env, o.flags)
		if err != nil {
			return fail(stderr, err)
		}
		for _, w := range cfg.Warnings {
			fmt.Fprintln(stderr, "vastdash:", w)
		}
		s.settings = cfg.Settings
		baseURL, key = cfg.BaseURL, cfg.Key.Reveal()
		if !config.IsDefaultURL(baseURL) {
			if u, err := url.Parse(baseURL); err == nil {
				s.host = u.Host
			}
		}
	}
	client, err := api.New(baseURL, key,
		api.WithVersion(versionString()),
		api.WithObserver(s.events.Observe))
	if err != nil {
		s.close()
		return fail(stderr, err)
	}
	s.client = client
	return s, exitOK
}

// fail prints a configuration error as one line; every such error is a
// usage or configuration problem (exit 2).
func fail(stderr io.Writer, err error) (*session, int) {
	fmt.Fprintf(stderr, "vastdash: %s\n", sanitize.String(err.Error()))
	return nil, exitUsage
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
