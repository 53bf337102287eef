package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestServeExitsZeroWhenAsked builds the binary and stops serve with
// SIGTERM at moments spread over its start (streams, registry, projections
// being set up) and once it runs: asked to stop, it exits 0 every time
// (it exited 1 with "registry: follow: context canceled" when stopped
// during its first second).
func TestServeExitsZeroWhenAsked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts serve several times")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := toolstreamBinary(t)
	for i, after := range []time.Duration{0, 30 * time.Millisecond,
		100 * time.Millisecond, 300 * time.Millisecond, 2 * time.Second} {
		cmd := exec.Command(bin, "--data", filepath.Join(dir, "data", time.Duration(i).String()), "--listen", "127.0.0.1:-1", "serve")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The first log line is written after main has taken the signals:
		// a signal before it meets the runtime's default, not serve.
		sc := bufio.NewScanner(stderr)
		var lines []string
		if sc.Scan() {
			lines = append(lines, sc.Text())
		}
		time.Sleep(after)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("SIGTERM %v after the first log line: %v; the last lines:\n%s", after, err, tail(lines, 3))
		}
	}
}

func tail(lines []string, n int) string {
	var s string
	for _, l := range lines[max(0, len(lines)-n):] {
		s += l + "\n"
	}
	return s
}

func TestStoppedAsAsked(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	serve, publish := &cobra.Command{Use: "serve"}, &cobra.Command{Use: "publish"}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		cmd  *cobra.Command
		err  error
		want bool
	}{
		{"serve cut short by the signal", cancelled, serve, errors.Join(errors.New("registry: follow"), context.Canceled), true},
		{"serve failing on its own", cancelled, serve, errors.New("bus: no space"), false},
		{"serve cancelled without a signal", context.Background(), serve, context.Canceled, false},
		{"a client command interrupted", cancelled, publish, context.Canceled, false},
	} {
		if got := stoppedAsAsked(tc.ctx, tc.cmd, tc.err); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestEndUserFlagIsNotTheNATSUser: --user names the end user of the
// commands that act on one (publish, forget, memory); the NATS user is
// --nats-user, so neither hides the other.
func TestEndUserFlagIsNotTheNATSUser(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	if f := root.PersistentFlags().Lookup("user"); f != nil {
		t.Errorf("a global --user (%q) hides the end user's", f.Usage)
	}
	for _, path := range [][]string{{"publish"}, {"forget"}, {"memory", "message"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		if f := cmd.Flags().Lookup("user"); f == nil || strings.Contains(f.Usage, "NATS") {
			t.Errorf("%v --user: %v", path, f)
		}
		if cmd.Flags().Lookup("nats-user") == nil || cmd.Flags().Lookup("nats-password") == nil {
			t.Errorf("%v: no --nats-user / --nats-password", path)
		}
	}
}
