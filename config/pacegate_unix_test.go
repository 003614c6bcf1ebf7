//go:build unix && !aix && (!solaris || illumos)

package config

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// Three processes on one key — three clients, each with a gate of its own
// on the one pace file, as three processes would open it — against a
// server that refuses (429) requests of the key closer together than its
// threshold: every request is answered at the first try, where three
// clients pacing only themselves send three requests per interval.
func TestPaceGateSharesTheKeysPaceBetweenProcesses(t *testing.T) {
	const pace, calls = 80 * time.Millisecond, 6
	srv, err := demoserver.Start(demoserver.Options{Contracts: 20, InstancesThreshold: pace / 2})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "vastdash", "ledger-host-0123.pace")
	var wg sync.WaitGroup
	errs := make(chan error, 3*calls)
	for range 3 {
		gate, err := OpenPaceGate(path)
		if err != nil {
			t.Fatal(err)
		}
		defer gate.Close()
		client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithEndpointThreshold(api.InstancesPath, pace), api.WithGate(gate))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for range calls {
				if _, err := client.Instances(context.Background(), ""); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := srv.CountStatus(http.StatusTooManyRequests); n != 0 {
		t.Fatalf("%d requests refused with 429: the processes did not share the pace", n)
	}
	if n := len(srv.Requests()); n != 3*calls {
		t.Fatalf("%d requests, want %d", n, 3*calls)
	}
	info, err := os.Lstat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the pace file: %v, mode %v", err, info.Mode())
	}
}

// The pace file is private like every file of the program: never opened
// through a link, nor in a folder others may write in.
func TestPaceGateRefusesLinksAndOpenFolders(t *testing.T) {
	noUmask(t)
	dir := filepath.Join(t.TempDir(), "vastdash")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	link := filepath.Join(dir, "x.pace")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if g, err := OpenPaceGate(link); err == nil {
		g.Close()
		t.Fatal("opened through a link")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("the link's target was created")
	}
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if g, err := OpenPaceGate(filepath.Join(open, "x.pace")); err == nil {
		g.Close()
		t.Fatal("opened in a folder others may write in")
	}
}
