package projector_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/projector"
)

// The crash tests run the projection in a child process (this test binary,
// re-executed) that SIGKILLs itself at an exact point.
func TestMain(m *testing.M) {
	if os.Getenv("TS_CRASH_CHILD") == "1" {
		os.Exit(crashChild())
	}
	os.Exit(m.Run())
}

func crashChild() int {
	url, dir, mode := os.Getenv("TS_NATS_URL"), os.Getenv("TS_DIR"), os.Getenv("TS_MODE")
	at, _ := strconv.Atoi(os.Getenv("TS_AT"))
	until, _ := strconv.ParseUint(os.Getenv("TS_UNTIL"), 10, 64)
	nc, err := nats.Connect(url, auth.CredsOptions(os.Getenv("TS_NATS_CREDS"))...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	js, _ := jetstream.New(nc)
	kill := func() { syscall.Kill(os.Getpid(), syscall.SIGKILL); select {} }
	hooks := &projector.Hooks{}
	commits, publishes := 0, 0
	switch mode {
	case "after-commit":
		hooks.AfterCommit = func(uint64) {
			if commits++; commits == at {
				kill()
			}
		}
	case "before-publish":
		hooks.BeforePublish = func(string) {
			if publishes++; publishes == at {
				kill()
			}
		}
	}
	kr, err := keys.Open(context.Background(), keys.Config{JS: js})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	r, err := projector.New(projector.Config{JS: js, Keys: kr, Dir: dir, BatchMax: 16, Hooks: hooks}, tally{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
		defer wcancel()
		if err := r.WaitFor(wctx, until); err == nil {
			r.WaitRelayed(wctx)
		}
		cancel()
	}()
	if err := r.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	r.Close()
	return 0
}

func runChild(t *testing.T, b *bus.Bus, dir, mode string, at int, until uint64) (killed bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TS_CRASH_CHILD=1", "TS_NATS_URL="+b.ClientURL(), "TS_NATS_CREDS="+bustest.Creds(t, b, bustest.Admin), "TS_DIR="+dir,
		"TS_MODE="+mode, "TS_AT="+strconv.Itoa(at), "TS_UNTIL="+strconv.FormatUint(until, 10))
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	if err == nil {
		return false
	}
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
	}
	t.Fatalf("child %s: %v", mode, err)
	return false
}

func TestCrashLosesNothingAndAppliesNothingTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, mode := range []string{"after-commit", "before-publish"} {
		t.Run(mode, func(t *testing.T) {
			b := bustest.Start(t)
			dir := filepath.Join(t.TempDir(), "view")
			const n = 200
			var last uint64
			for i := 1; i <= n; i++ {
				last = publishText(t, b, "acme", strconv.Itoa(i%7), i, "x")
			}
			kills := 0
			for _, at := range []int{1, 3, 5, 8} {
				if runChild(t, b, dir, mode, at, last) {
					kills++
				}
			}
			if kills == 0 {
				t.Fatal("no child was killed: the test did not test anything")
			}
			if runChild(t, b, dir, "", 0, last) {
				t.Fatal("clean child was killed")
			}
			r, err := projector.New(projector.Config{JS: b.JS, Dir: dir, Mode: projector.ModeHold, Keys: b.Keys}, tally{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			v := r.View()
			defer v.Close()
			if cnt, sum := tallyState(v, "acme"); cnt != n || sum != n*(n+1)/2 {
				t.Fatalf("after %d kills: %d applied, sum %d; want %d, %d", kills, cnt, sum, n, n*(n+1)/2)
			}
			ids := emitted(t, b, "ts.ctl.acme.tally")
			seen := map[string]int{}
			for _, id := range ids {
				seen[id]++
			}
			if len(ids) != n || len(seen) != n {
				t.Fatalf("consumers saw %d emitted events (%d distinct), want each of %d exactly once", len(ids), len(seen), n)
			}
		})
	}
}
