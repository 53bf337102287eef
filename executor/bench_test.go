package executor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

type noopProjection struct{}

func (noopProjection) Name() string                              { return "noop-calls" }
func (noopProjection) Subjects() []string                        { return []string{"ts.call.>"} }
func (noopProjection) Apply(*projector.Tx, *projector.Msg) error { return nil }

const benchTenants = 8

func benchCall(tool, phase string, i int) callSpec {
	return callSpec{tenant: fmt.Sprint("t", i%benchTenants), tool: tool, call: fmt.Sprint("c", i), response: phase, args: `{}`}
}

// publishBurst publishes n calls asynchronously and returns when the log
// acknowledged them all, with the sequence of the last.
func publishBurst(b testing.TB, bs *bus.Bus, tool, phase string, n int) uint64 {
	var last jetstream.PubAckFuture
	for i := range n {
		c := benchCall(tool, phase, i)
		ev := c.event()
		data, _ := events.Encode(ev)
		subj, _ := events.CallSubject(c.tenant, c.tool)
		f, err := bs.JS.PublishAsync(subj, data, jetstream.WithMsgID(ev.ID))
		if errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
			// A loaded server acknowledges slower than the burst is
			// written: wait for the acknowledgements, then go on.
			<-bs.JS.PublishAsyncComplete()
			f, err = bs.JS.PublishAsync(subj, data, jetstream.WithMsgID(ev.ID))
		}
		if err != nil {
			b.Fatal(err)
		}
		last = f
	}
	<-bs.JS.PublishAsyncComplete()
	return (<-last.Ok()).Sequence
}

// resultWatch counts outcomes as they are published (a core subscription:
// the moment JetStream stores them) and remembers when each arrived.
type resultWatch struct {
	mu   sync.Mutex
	at   map[string]time.Time
	cond chan struct{}
	sub  *nats.Subscription
}

func watchResults(b testing.TB, bs *bus.Bus) *resultWatch {
	w := &resultWatch{at: map[string]time.Time{}, cond: make(chan struct{}, 1)}
	sub, err := bs.Conn.Subscribe("ts.result.>", func(m *nats.Msg) {
		now := time.Now()
		w.mu.Lock()
		if _, ok := w.at[m.Header.Get(jetstream.MsgIDHeader)]; !ok {
			w.at[m.Header.Get(jetstream.MsgIDHeader)] = now
		}
		w.mu.Unlock()
		select {
		case w.cond <- struct{}{}:
		default:
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	w.sub = sub
	return w
}

func (w *resultWatch) waitCount(b testing.TB, n int) time.Time {
	deadline := time.After(5 * time.Minute)
	for {
		w.mu.Lock()
		if len(w.at) >= n {
			var last time.Time
			for _, t := range w.at {
				if t.After(last) {
					last = t
				}
			}
			w.mu.Unlock()
			return last
		}
		w.mu.Unlock()
		select {
		case <-w.cond:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			b.Fatalf("only %d of %d outcomes", len(w.at), n)
		}
	}
}

func (w *resultWatch) reset() {
	w.mu.Lock()
	w.at = map[string]time.Time{}
	w.mu.Unlock()
}

func waitPulling(b testing.TB, bs *bus.Bus, durable string, n int) {
	deadline := time.Now().Add(waitMax)
	for time.Now().Before(deadline) {
		if c, err := bs.JS.Consumer(context.Background(), events.StreamCalls, durable); err == nil {
			if info, err := c.Info(context.Background()); err == nil && info.NumWaiting >= n {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatalf("%d executors not pulling from %s", n, durable)
}

// BenchmarkExecutor reports no-op tool calls per second end to end (a burst
// of CallCompleted published → every CallSucceeded observed) with one and
// with two executor processes, each as a ratio to a no-op projector.Runner
// consuming the same number of call events the same way in the same run,
// and the latency one executor adds per call (calls one at a time; the
// log's own publish → observe round trip is subtracted). "noop" has
// side_effect: none (no lease, one record write); "noop.leased" is a
// side-effecting idempotent tool (lease write, outcome write). Run it with
// -benchtime=1x: one iteration is a whole measurement.
func BenchmarkExecutor(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	const n = 10000
	bs := bustest.Start(b)
	dir := b.TempDir()
	toolsFile := filepath.Join(dir, "tools.yaml")
	grants := ""
	for i := range benchTenants {
		grants += fmt.Sprintf("  - {tenant: t%d, permissions: [noop]}\n", i)
	}
	os.WriteFile(toolsFile, []byte("tools:\n  - {name: noop, side_effect: none}\n  - {name: noop.leased, idempotency: required}\ngrants:\n"+
		strings.ReplaceAll(grants, "[noop]", "[noop, noop.leased]")), 0o644)
	w := watchResults(b, bs)
	defer w.sub.Unsubscribe()
	var projRate, rate1, rate2, leased1, leased2 float64
	var lat, base []time.Duration
	b.ResetTimer()
	for it := range b.N {
		// Baseline: a no-op projection over the same number of call events.
		r, err := projector.New(projector.Config{JS: bs.JS, Dir: filepath.Join(dir, fmt.Sprint("noop", it)),
			Durable: fmt.Sprint("bench-noop-", it)}, noopProjection{})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx) }()
		start := time.Now()
		lastSeq := publishBurst(b, bs, "noop", fmt.Sprintf("p%d", it), n)
		if err := r.WaitFor(ctx, lastSeq); err != nil {
			b.Fatal(err)
		}
		projRate = n / time.Since(start).Seconds()
		cancel()
		<-done
		r.Close()
		// The projection's burst went to the executors' consumer too: clear it.
		rate := func(children int, tool, phase string) float64 {
			var cs []*child
			for i := range children {
				cs = append(cs, startChild(b, bs, toolsFile, fmt.Sprintf("bench%d", i), 1000, 64))
			}
			defer func() {
				for _, c := range cs {
					c.stop(b)
				}
			}()
			waitPulling(b, bs, "ts-executor", children)
			w.reset()
			start := time.Now()
			publishBurst(b, bs, tool, phase, n)
			end := w.waitCount(b, n)
			return n / end.Sub(start).Seconds()
		}
		// Drain the baseline's calls first (they are executed too).
		w.reset()
		func() {
			c := startChild(b, bs, toolsFile, "drain", 1000, 64)
			defer c.stop(b)
			w.waitCount(b, n)
		}()
		rate1 = rate(1, "noop", fmt.Sprintf("one%d", it))
		rate2 = rate(2, "noop", fmt.Sprintf("two%d", it))
		leased1 = rate(1, "noop.leased", fmt.Sprintf("lone%d", it))
		leased2 = rate(2, "noop.leased", fmt.Sprintf("ltwo%d", it))

		// Latency: one call at a time through one executor, against the
		// log's own round trip for an event nobody processes.
		func() {
			c := startChild(b, bs, toolsFile, "lat", 1000, 64)
			defer c.stop(b)
			waitPulling(b, bs, "ts-executor", 1)
			echo := make(chan struct{}, 1)
			sub, _ := bs.Conn.Subscribe("ts.ctl.t0.echo", func(*nats.Msg) { echo <- struct{}{} })
			defer sub.Unsubscribe()
			for i := range 300 {
				c := benchCall("noop", fmt.Sprintf("lat%d", it), i)
				c.tenant = "t0"
				w.reset()
				t0 := time.Now()
				publishCall(b, bs, c)
				w.waitCount(b, 1)
				lat = append(lat, time.Since(t0))
				t0 = time.Now()
				data, _ := events.Encode(&events.Event{ID: fmt.Sprint("echo", it, i), Tenant: "t0", Body: &events.Tick{}})
				if _, err := bs.JS.Publish(context.Background(), "ts.ctl.t0.echo", data); err != nil {
					b.Fatal(err)
				}
				<-echo
				base = append(base, time.Since(t0))
			}
		}()
	}
	b.StopTimer()
	slices.Sort(lat)
	slices.Sort(base)
	pct := func(d []time.Duration, p float64) time.Duration { return d[int(float64(len(d)-1)*p)] }
	b.ReportMetric(projRate, "noop-projection-events/s")
	b.ReportMetric(rate1, "calls/s-1exec")
	b.ReportMetric(rate2, "calls/s-2exec")
	b.ReportMetric(rate1/projRate, "ratio-1exec")
	b.ReportMetric(rate2/projRate, "ratio-2exec")
	b.ReportMetric(leased1, "leased-calls/s-1exec")
	b.ReportMetric(leased2, "leased-calls/s-2exec")
	b.ReportMetric(leased1/projRate, "leased-ratio-1exec")
	b.ReportMetric(leased2/projRate, "leased-ratio-2exec")
	b.ReportMetric(float64((pct(lat, 0.5) - pct(base, 0.5)).Microseconds()), "added-p50-µs")
	b.ReportMetric(float64((pct(lat, 0.99) - pct(base, 0.5)).Microseconds()), "added-p99-µs")
	b.ReportMetric(float64(pct(base, 0.5).Microseconds()), "log-roundtrip-p50-µs")
}
