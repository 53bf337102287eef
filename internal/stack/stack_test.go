package stack

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/registry"
)

// freeAddr is a loopback address nothing listens on (the stack listens
// itself).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestStackServesMetrics runs every component over a real embedded server
// with MetricsAddr (serve --metrics), reads /healthz and /metrics over HTTP,
// and sees a second stack on the same address stop with the error, while
// the first stops with none when asked.
func TestStackServesMetrics(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	addr := freeAddr(t)
	sctx, stop := context.WithCancel(ctx)
	s, err := Start(sctx, Config{Bus: b, ViewsDir: t.TempDir(), MetricsAddr: addr, Tick: time.Second,
		Projections: Projections{Trust: registry.NewTrust()}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	for _, name := range Names() {
		if _, ok := s.Runner(name); !ok {
			t.Errorf("%s is not running", name)
		}
	}
	if s.Executor() == nil {
		t.Error("no executor")
	}

	fetch := func(path string) (int, string, error) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	for {
		code, body, err := fetch("/healthz")
		if err == nil && code == http.StatusOK {
			if _, m, err := fetch("/metrics"); err == nil && strings.Contains(m, "toolstream_metrics_observer_running 1") {
				break
			}
		}
		select {
		case err := <-done:
			t.Fatalf("the stack stopped: %v", err)
		case <-ctx.Done():
			t.Fatalf("healthz: %d %q %v", code, body, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	_, body, err := fetch("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		for _, series := range []string{"toolstream_projection_lag_messages", "toolstream_projection_checkpoint", "toolstream_projection_outbox_backlog", "toolstream_projection_rejected_total"} {
			if !strings.Contains(body, series+`{projection="`+name+`"}`) {
				t.Errorf("/metrics lacks %s of %s", series, name)
			}
		}
	}
	for _, s := range []string{"toolstream_assembler_open_calls 0", "toolstream_bus_connected 1", "toolstream_metrics_observer_running 1", "toolstream_executor_"} {
		if !strings.Contains(body, s) {
			t.Errorf("/metrics lacks %q", s)
		}
	}

	// A second stack on the same address: its error stops it.
	s2, err := Start(ctx, Config{Bus: b, ViewsDir: t.TempDir(), MetricsAddr: addr, Components: []string{Clock}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Wait(); err == nil || !strings.Contains(err.Error(), "--metrics") {
		t.Errorf("a busy address: %v, want the --metrics error", err)
	}

	stop()
	if err := <-done; err != nil {
		t.Errorf("a stack asked to stop: %v, want nil", err)
	}
}

func TestStartRefusesAnUnknownComponent(t *testing.T) {
	b := bustest.Start(t)
	for _, c := range [][]string{{"nope"}, {Clock, "assembler-p0"}} {
		if _, err := Start(context.Background(), Config{Bus: b, ViewsDir: t.TempDir(), Components: c}); !errors.Is(err, ErrUnknownComponent) {
			t.Errorf("Start(%v): %v, want ErrUnknownComponent", c, err)
		}
	}
}

// TestWaitApplied: a running stack answers its views' digests, so a
// command knows when a projection has applied a sequence (the tombstone of
// a forget), and says so when it has not within the wait; WaitErased names
// the projections that did not reach their stream's tombstone.
func TestWaitApplied(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	s, err := Start(ctx, Config{Bus: b, ViewsDir: t.TempDir(), Components: Names()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	subj, err := events.MemorySubject("acme", "ann")
	if err != nil {
		t.Fatal(err)
	}
	ack, err := b.Publish(ctx, subj, &events.Event{ID: "m1", Tenant: "acme", User: "ann", At: 1, Body: &events.UserMessage{ID: "m1", Text: "I love tea"}})
	if err != nil {
		t.Fatal(err)
	}
	if !WaitApplied(ctx, b.Conn, memory.Name, ack.Sequence, 30*time.Second) {
		t.Errorf("memory never applied seq %d", ack.Sequence)
	}
	if WaitApplied(ctx, b.Conn, memory.Name, ack.Sequence+1, 300*time.Millisecond) {
		t.Errorf("memory applied seq %d, which is not in the log", ack.Sequence+1)
	}
	if pending := WaitErased(ctx, b.Conn, map[string]uint64{events.StreamMemory: ack.Sequence}, 30*time.Second); len(pending) > 0 {
		t.Errorf("WaitErased: %v pending, want none", pending)
	}
	// The wait is spent on memory: it and those after it are pending.
	if pending := WaitErased(ctx, b.Conn, map[string]uint64{events.StreamMemory: ack.Sequence + 1}, time.Second); len(pending) == 0 || pending[0] != memory.Name {
		t.Errorf("WaitErased past memory's log: %v pending, want %s first", pending, memory.Name)
	}
}

// TestOpenMakesTheKeysOfAnEmbeddedServer: Open gives an embedded server's
// bus its data keys, made on first use, so what the stack publishes is
// sealed.
func TestOpenMakesTheKeysOfAnEmbeddedServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := bus.OpenWithKeys(ctx, bus.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1", Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Keys == nil {
		t.Fatal("an embedded server's bus has no data keys")
	}
}
