package ui

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/access"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/ui/internal/hang"
	"github.com/vastdash/vastdash/ui/signin"
)

// signInRig is the sign-in screen in a real program, verifying against a
// demo server with the canary key and saving into a temporary home, with
// every frame it drew.
type signInRig struct {
	t    *testing.T
	srv  *demoserver.Server
	env  config.Env
	m    *signin.Model
	prog *tea.Program
	done chan error

	mu     sync.Mutex
	frames []string
	seen   chan struct{}
}

// siProbe records each frame of the sign-in screen.
type siProbe struct {
	*signin.Model
	r *signInRig
}

func (p siProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.Model.Update(msg)
	f := ansi.Strip(p.Model.View().Content)
	p.r.mu.Lock()
	p.r.frames = append(p.r.frames, f)
	p.r.mu.Unlock()
	select {
	case p.r.seen <- struct{}{}:
	default:
	}
	return p, cmd
}

// startSignIn runs the screen on a fresh demo server (setup adds faults);
// held reports the requests a Hang fault holds, which the client gives up
// on at once (see package hang).
func startSignIn(t *testing.T, setup func(*demoserver.Server), held func(*http.Request) bool) *signInRig {
	t.Helper()
	srv, err := demoserver.Start(demoserver.Options{Contracts: 20, InstancesThreshold: -1, InvoicesThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddKey(canaryKey, "canary", nil)
	if setup != nil {
		setup(srv)
	}
	home := t.TempDir()
	r := &signInRig{t: t, srv: srv, seen: make(chan struct{}, 1), done: make(chan error, 1),
		env: config.Env{Getenv: func(string) string { return "" }, HomeDir: home}}
	tr := &http.Transport{}
	base, cancel := context.WithCancel(context.Background())
	var last *billing.Service
	open := func(key string) (*api.Client, error) {
		return api.New(srv.URL(), key, api.WithHTTPClient(&http.Client{Transport: &hang.Transport{Base: tr, Held: held}}), api.WithTimeout(5*time.Second),
			api.WithBackoff(time.Millisecond, 2*time.Millisecond), api.WithEndpointThreshold(api.InvoicesPath, 0),
			api.WithEndpointThreshold(api.InstancesPath, 0), api.WithEndpointThreshold(api.APIKeysPath, 0))
	}
	var verified access.Access
	funcs := signin.Funcs{
		Verify: func(ctx context.Context, k config.Secret) (access.Access, error) {
			c, err := open(k.Reveal())
			if err != nil {
				return access.Access{}, err
			}
			svc := billing.New(base, c)
			a, err := access.Probe(ctx, svc)
			if err != nil {
				svc.Close()
				return access.Access{}, errors.New(svc.Explain(err))
			}
			if last != nil {
				last.Close()
			}
			last, verified = svc, a
			return a, nil
		},
		Scope: func(ctx context.Context, write bool) access.Scoped {
			return access.MakeScopedKey(ctx, last, verified, "vastdash test", access.ScopedPermissions(verified, write), open)
		},
		Check:   func() error { return config.CheckKeyTarget(r.env) },
		Save:    func(k config.Secret, replace bool) (string, error) { return config.SaveKey(r.env, k, replace) },
		Discard: func(ctx context.Context, id int64) error { return access.DeleteKey(ctx, last, id) },
	}
	r.m = signin.New(base, signin.Options{Funcs: funcs, Path: "~/.config/vastai/vast_api_key"})
	r.prog = newProgram(base, siProbe{Model: r.m, r: r}, nil,
		tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24), tea.WithoutSignalHandler())
	go func() { _, err := r.prog.Run(); r.done <- err }()
	t.Cleanup(func() {
		cancel()
		<-r.done
		if last != nil {
			last.Close()
		}
		srv.Close()
		tr.CloseIdleConnections()
		made := srv.CreatedKeys()
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, f := range r.frames {
			if strings.Contains(strings.ToLower(f), "canary") || strings.Contains(f, "5f2a") {
				t.Fatalf("a frame showed the key:\n%s", f)
			}
			for _, k := range made {
				if strings.Contains(f, k.Key) {
					t.Fatalf("a frame showed the key made:\n%s", f)
				}
			}
		}
	})
	return r
}

// waitFor blocks until the last frame satisfies cond.
func (r *signInRig) waitFor(what string, cond func(string) bool) string {
	r.t.Helper()
	deadline := time.After(time.Minute)
	for {
		r.mu.Lock()
		f := ""
		if len(r.frames) > 0 {
			f = r.frames[len(r.frames)-1]
		}
		r.mu.Unlock()
		if cond(strings.Join(strings.Fields(f), " ")) {
			return f
		}
		select {
		case <-r.seen:
		case <-deadline:
			r.t.Fatalf("timed out waiting for %s; screen:\n%s", what, f)
		}
	}
}

func (r *signInRig) has(what string) string {
	r.t.Helper()
	return r.waitFor(what, func(s string) bool { return strings.Contains(s, what) })
}

func (r *signInRig) enter() { r.prog.Send(tea.KeyPressMsg{Code: tea.KeyEnter}) }

// saved is the key file's content.
func (r *signInRig) saved() string {
	b, _ := os.ReadFile(filepath.Join(r.env.HomeDir, ".config", "vastai", "vast_api_key"))
	return string(b)
}

// The sign-in through faults, with the canary key: a server that echoes
// the key in an error, one that hangs, a wrong key; none shows the key,
// none writes anything, and the field is kept for the next try.
func TestSignInFaults(t *testing.T) {
	var accountReads atomic.Int32
	r := startSignIn(t, func(srv *demoserver.Server) {
		// The first try: every probe fails (the account, billing,
		// instances, endpoints), the account's echoing the key.
		srv.AddFault(demoserver.Fault{Times: 4, Status: 500, Body: `{"msg":"bad key ` + canaryKey + ` \u001b[2J"}`})
		// The second: the account hangs, the other probes fail.
		srv.AddFault(demoserver.Fault{Path: "/api/v0/users/current", Times: 1, Hang: true})
		srv.AddFault(demoserver.Fault{Path: "/api/v1/invoices", Times: 1, Status: 500, Body: "down"})
		srv.AddFault(demoserver.Fault{Path: "/api/v1/instances", Times: 1, Status: 500, Body: "down"})
		srv.AddFault(demoserver.Fault{Path: "/api/v0/endptjobs", Times: 1, Status: 500, Body: "down"})
	}, func(req *http.Request) bool {
		// The second account read is the one the server holds.
		return strings.HasPrefix(req.URL.Path, "/api/v0/users/current") && accountReads.Add(1) == 2
	})
	r.prog.Send(tea.PasteMsg{Content: canaryKey + "\n"})
	r.has("(15 characters)")
	r.enter()
	r.has("server error")
	r.enter()
	r.has("did not answer")
	r.prog.Send(tea.PasteMsg{Content: "x"}) // now a wrong key
	r.enter()
	r.has("rejected")
	r.prog.Send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	r.enter()
	r.has("demo@vastdash.example")
	if r.saved() != "" {
		t.Fatal("written before confirming")
	}
	// The least-privilege key: made, verified, saved instead.
	r.prog.Send(tea.KeyPressMsg{Code: 's', Text: "s"})
	r.has("Saved a key for vastdash alone")
	r.enter()
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
	r.done <- nil // for the cleanup
	made := r.srv.CreatedKeys()
	if len(made) != 1 || made[0].Deleted || r.saved() != made[0].Key+"\n" || !r.m.Result().Saved {
		t.Fatalf("made %+v, saved %q", made, r.saved())
	}
}

// A new key failing one probe is deleted, the reason shown, and the pasted
// key saved on enter.
func TestSignInScopedKeyDeleted(t *testing.T) {
	var next string
	r := startSignIn(t, func(srv *demoserver.Server) {
		next = srv.NextKeyName()
		srv.AddFault(demoserver.Fault{Path: "/api/v1/invoices", KeyName: next, Status: 403, Body: `{"msg":"permission denied"}`})
	}, nil)
	r.prog.Send(tea.PasteMsg{Content: canaryKey})
	r.enter()
	r.has("demo@vastdash.example")
	r.prog.Send(tea.KeyPressMsg{Code: 'w', Text: "w"})
	r.has("keeping the pasted key")
	if made := r.srv.CreatedKeys(); len(made) != 1 || !made[0].Deleted {
		t.Fatalf("not deleted: %+v", made)
	}
	r.enter()
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
	r.done <- nil
	if r.saved() != canaryKey+"\n" {
		t.Fatalf("saved %q", r.saved())
	}
}
