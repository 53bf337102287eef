package cluster_test

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/cluster"
	"github.com/toolstream/toolstream/internal/clustertest"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/projector"
)

// The fault test runs the processor (ingest, assembler, responses: what
// `serve --components ingest,assembler,responses` runs) in a child process,
// this test binary re-executed, so it can be SIGKILLed at any instruction.
func TestMain(m *testing.M) {
	switch os.Getenv("TS_CLUSTER_CHILD") {
	case "processor":
		os.Exit(processorChild())
	case "exclusive":
		os.Exit(exclusiveChild())
	}
	code := m.Run()
	if built.Load() {
		if bin, err := toolstreamBinary(); err == nil {
			os.RemoveAll(filepath.Dir(bin))
		}
	}
	os.Exit(code)
}

// processorProjections are fresh instances of the processor's projections:
// the child runs them, the parent replays them.
func processorProjections() []projector.Projection {
	return []projector.Projection{assembler.NewIngest(assembler.IngestConfig{}), assembler.New(assembler.Config{}), responses.Projection{}, witness{}}
}

// witness is a projection of every message of TS_MODEL (the stream whose
// leader the fault test kills) that records each break in the sequence of
// what it was given: a projection that reads a whole stream must apply 1,
// 2, 3… with nothing skipped (invariant 3). Its view is the last sequence
// and one row per gap.
type witness struct{}

func (witness) Name() string       { return "witness" }
func (witness) Subjects() []string { return []string{"ts.model.>", "ts.ctl.>"} }

func (witness) Apply(tx *projector.Tx, m *projector.Msg) error {
	last, _ := projector.TenantKey(events.SystemTenant, "last")
	var prev uint64
	if b, ok, err := tx.Get(last); err != nil {
		return err
	} else if ok {
		prev = binary.BigEndian.Uint64(b)
	}
	if m.Seq != prev+1 {
		gap, _ := projector.TenantKey(events.SystemTenant, "gap", fmt.Sprintf("%020d", m.Seq))
		if err := tx.Set(gap, binary.BigEndian.AppendUint64(nil, prev)); err != nil {
			return err
		}
	}
	return tx.Set(last, binary.BigEndian.AppendUint64(nil, m.Seq))
}

// witnessGaps lists the gaps a witness view recorded as "after→seq".
func witnessGaps(v *projector.View) ([]string, error) {
	prefix, _ := projector.TenantKey(events.SystemTenant, "gap", "")
	var out []string
	err := v.Scan(prefix, func(k, val []byte) error {
		out = append(out, fmt.Sprintf("%d→%s", binary.BigEndian.Uint64(val), k[len(prefix):]))
		return nil
	})
	return out, err
}

// processorChild runs the processor's projections on TS_NATS_URL with views
// in TS_DIR/<name> until SIGTERM. A runner that stops on an infrastructure
// error (a consumer cannot be created while the cluster elects a leader) is
// started again from its checkpoint, as a supervisor would restart the
// process.
func processorChild() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	octx, cancel := context.WithTimeout(ctx, time.Minute)
	b, err := bus.Open(octx, bus.Config{NATSURL: os.Getenv("TS_NATS_URL"), Name: "processor", Options: append(clustertest.ClientOptions(), auth.CredsOptions(os.Getenv("TS_NATS_CREDS"))...),
		MsgIDKey: childMsgIDKey()})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "processor:", err)
		return 2
	}
	defer b.Close()
	dir := os.Getenv("TS_DIR")
	var wg sync.WaitGroup
	for _, p := range processorProjections() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				cfg := projector.Config{JS: b.JS, Dir: dir + "/" + p.Name()}
				if p.Name() == assembler.Name {
					cfg.Progress = func(cp uint64) { writeCheckpoint(dir, cp) }
				}
				r, err := projector.New(cfg, p)
				if err != nil {
					fmt.Fprintln(os.Stderr, "processor:", err)
					os.Exit(2)
				}
				if p.Name() == assembler.Name {
					writeCheckpoint(dir, r.Checkpoint())
				}
				if err := r.Run(ctx); err != nil && ctx.Err() == nil {
					fmt.Fprintf(os.Stderr, "processor: %s stopped (%v); restarting\n", p.Name(), err)
					select {
					case <-ctx.Done():
					case <-time.After(100 * time.Millisecond):
					}
				}
				r.Close()
			}
		}()
	}
	wg.Wait()
	return 0
}

// checkpointFile is where the processor child says how far its assembler
// has applied TS_MODEL: "<pid> <checkpoint>", when it starts and after each
// committed batch. The durable's ack floor does not say it: a restarted
// runner reads what it lacks by direct gets, and the messages delivered to
// the killed process are acknowledged only when delivered again.
func checkpointFile(dir string) string { return filepath.Join(dir, "assembler.checkpoint") }

func writeCheckpoint(dir string, cp uint64) {
	tmp := checkpointFile(dir) + ".tmp"
	if os.WriteFile(tmp, fmt.Appendf(nil, "%d %d", os.Getpid(), cp), 0o600) == nil {
		os.Rename(tmp, checkpointFile(dir))
	}
}

// readCheckpoint returns what the processor child pid wrote last.
func readCheckpoint(dir string, pid int) (uint64, bool) {
	data, err := os.ReadFile(checkpointFile(dir))
	if err != nil {
		return 0, false
	}
	var p int
	var cp uint64
	if _, err := fmt.Sscanf(string(data), "%d %d", &p, &cp); err != nil || p != pid {
		return 0, false
	}
	return cp, true
}

// partitionedProjections are ingest and the assemblers of n partitions.
func partitionedProjections(n int) map[string]func() projector.Projection {
	ps := cluster.AssemblerPartitions(n, func() *assembler.Assembler { return assembler.New(assembler.Config{}) })
	ps[assembler.IngestName] = func() projector.Projection { return assembler.NewIngest(assembler.IngestConfig{}) }
	return ps
}

// partitionLeaseTTL is the partition test's lease TTL: its takeover bound.
const partitionLeaseTTL = 2 * time.Second

// exclusiveChild competes for ingest and TS_PARTITIONS assembler
// partitions on TS_NATS_URL with views in TS_DIR, until SIGTERM.
func exclusiveChild() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	octx, cancel := context.WithTimeout(ctx, time.Minute)
	b, err := bus.Open(octx, bus.Config{NATSURL: os.Getenv("TS_NATS_URL"), Name: "exclusive", Options: append(clustertest.ClientOptions(), auth.CredsOptions(os.Getenv("TS_NATS_CREDS"))...),
		MsgIDKey: childMsgIDKey()})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "exclusive:", err)
		return 2
	}
	defer b.Close()
	n, _ := strconv.Atoi(os.Getenv("TS_PARTITIONS"))
	x, err := cluster.NewExclusive(cluster.ExclusiveConfig{Bus: b, Dir: os.Getenv("TS_DIR"), Projections: partitionedProjections(n),
		Holder: "child", LeaseTTL: partitionLeaseTTL})
	if err == nil {
		err = x.Run(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "exclusive:", err)
		return 2
	}
	return 0
}

// child is a running child process.
type child struct {
	cmd  *exec.Cmd
	done chan error
}

func startProcessor(t testing.TB, c *clustertest.Cluster, dir string) *child {
	return startChild(t, c, "processor", dir)
}

// startChild runs a child process of mode on c, as the admin.
func startChild(t testing.TB, c *clustertest.Cluster, mode, dir string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "TS_CLUSTER_CHILD="+mode, "TS_NATS_URL="+c.URLs(),
		"TS_NATS_CREDS="+c.Creds(t, bustest.Admin), "TS_DIR="+dir, "TS_MSGID_KEY="+hex.EncodeToString(c.MsgIDKey())), env...)
	cmd.Stderr = &prefixWriter{w: os.Stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := &child{cmd: cmd, done: make(chan error, 1)}
	go func() { ch.done <- cmd.Wait() }()
	t.Cleanup(func() { ch.cmd.Process.Kill(); <-ch.done })
	return ch
}

// childMsgIDKey is the message-id key the children share (TS_MSGID_KEY),
// as a role's processes share their role's creds: each child is given
// creds of its own, and a child that takes over from another, or is
// restarted, must tag a repeat of the same event alike.
func childMsgIDKey() []byte {
	k, _ := hex.DecodeString(os.Getenv("TS_MSGID_KEY"))
	return k
}

// kill SIGKILLs the processor and waits until it is gone.
func (c *child) kill(t testing.TB) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGKILL)
	err := <-c.done
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("killed processor: %v", err)
	}
	c.done <- err // for the cleanup
}

// stop SIGTERMs the processor and waits for its clean exit.
func (c *child) stop(t testing.TB) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-c.done:
		c.done <- err
		if err != nil {
			t.Fatalf("processor exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("processor did not stop in 30s")
	}
}

type prefixWriter struct {
	mu sync.Mutex
	w  *os.File
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line != "" {
			fmt.Fprint(p.w, "child: "+line)
		}
	}
	return len(b), nil
}
