package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/ingest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/verifier"
)

// The whole path, as a user sees it: a recorded provider stream
// through `toolstream assemble`, and producers' streams through a running
// server with every component on, each against the least a JetStream
// pipeline must do with the same raw events in the same run.

// WholeCalls and WholeDeltas shape the whole path's responses
// (ProviderStream): two calls of 44 argument deltas and a short answer,
// 111 raw provider events each.
const (
	WholeCalls  = 2
	WholeDeltas = 44
)

// OneShotResult compares the one-shot with the raw pipeline over one
// input.
type OneShotResult struct {
	Raw      int // raw provider events
	Outcomes int // call and response outcome lines
	OneShot  time.Duration
	Pipeline time.Duration
}

// OneShot times what `toolstream assemble` does with input — an embedded
// server in a fresh directory, its data keys, stack.Assemble (normalised
// and sealed at the edge, assembled, every outcome read back), the server
// closed — under stack.OneShotGOGC, and the least any JetStream pipeline does
// with the same raw events: an embedded server in a fresh directory, every
// line published (a window of asynchronous publishes), all of them read
// back by an ordered consumer, the server closed. pipelineFirst says which
// goes first (alternate it between runs).
func OneShot(ctx context.Context, dir string, input []byte, log *slog.Logger, pipelineFirst bool) (OneShotResult, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	res := OneShotResult{Raw: bytes.Count(input, []byte("\n"))}
	steps := []func() error{
		func() (err error) {
			res.Pipeline, err = rawPipeline(ctx, filepath.Join(dir, "pipeline"), input, log)
			return err
		},
		func() error {
			old := debug.SetGCPercent(stack.OneShotGOGC)
			defer debug.SetGCPercent(old)
			start := time.Now()
			n, err := oneShot(ctx, filepath.Join(dir, "oneshot"), input, log)
			res.OneShot, res.Outcomes = time.Since(start), n
			return err
		},
	}
	if !pipelineFirst {
		steps[0], steps[1] = steps[1], steps[0]
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// oneShot is cmd/toolstream's assembleOnce without a tools file.
func oneShot(ctx context.Context, dir string, input []byte, log *slog.Logger) (int, error) {
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Logger: log, Name: "bench-oneshot"})
	if err != nil {
		return 0, err
	}
	defer b.Close()
	kr, err := keys.Open(ctx, keys.Config{JS: b.JS, Create: true, Logger: log})
	if err != nil {
		return 0, err
	}
	b.Keys = kr
	lines, err := stack.Assemble(ctx, stack.AssembleConfig{Bus: b, Dir: filepath.Join(dir, "views"), Logger: log,
		Assembler: assembler.Config{IdleTimeout: 2 * time.Minute, Logger: log},
		Stream:    client.Stream{Tenant: "acme", Format: "openai-responses", ID: "bench"}}, bytes.NewReader(input))
	return len(lines), err
}

// rawPipeline starts an embedded server in dir, publishes every line of
// input to one subject and reads them all back.
func rawPipeline(ctx context.Context, dir string, input []byte, log *slog.Logger) (time.Duration, error) {
	start := time.Now()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Logger: log, Name: "bench-pipeline"})
	if err != nil {
		return 0, err
	}
	defer b.Close()
	n, err := publishLines(ctx, b.JS, "ts.in.acme.openai-responses.bench", input)
	if err != nil {
		return 0, err
	}
	if err := readBack(ctx, b.JS, events.StreamIn, n); err != nil {
		return 0, err
	}
	b.Close()
	return time.Since(start), nil
}

// publishLines publishes each raw event of input (ingest.ReadEvents) to
// subject, asynchronously, and waits for every acknowledgement.
func publishLines(ctx context.Context, js jetstream.JetStream, subject string, input []byte) (int, error) {
	var last jetstream.PubAckFuture
	n := 0
	err := ingest.ReadEvents(bytes.NewReader(input), func(raw []byte) error {
		var err error
		last, err = publishAsync(ctx, js, subject, bytes.Clone(raw))
		n++
		return err
	})
	if err != nil {
		return n, err
	}
	_, err = waitPublished(ctx, js, last)
	return n, err
}

// readBack reads n messages of stream with an ordered consumer.
func readBack(ctx context.Context, js jetstream.JetStream, stream string, n int) error {
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return err
	}
	got := make(chan struct{})
	var seen atomic.Int64
	cc, err := cons.Consume(func(jetstream.Msg) {
		if seen.Add(1) == int64(n) {
			close(got)
		}
	}, jetstream.PullMaxMessages(BatchMax))
	if err != nil {
		return err
	}
	defer cc.Stop()
	select {
	case <-got:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("bench: read back %d of %d: %w", seen.Load(), n, ctx.Err())
	}
}

// LiveResult compares the live path with raw publish and consume on the
// same server.
type LiveResult struct {
	Raw      int // raw provider events, all streams
	Streams  int
	Live     time.Duration
	Baseline time.Duration
	// Reads is each projection's read amplification over the whole run
	// (projector.Stats: read, and read but on subjects it does not read).
	Reads []ReadStat
}

// ReadStat is one projection's reads.
type ReadStat struct {
	Projection    string
	Read, Skipped uint64
}

// Amplification is Read ÷ the messages the projection needed.
func (s ReadStat) Amplification() float64 {
	if s.Read <= s.Skipped {
		return 0
	}
	return float64(s.Read) / float64(s.Read-s.Skipped)
}

// Live times the live path on b (a fresh server): a serve-like node with
// every component on — ingest, the assembler (with previews), responses,
// the verifier, memory, an executor with the streams' tool, the clock —
// while producers publish streams (one goroutine each, as separate
// processes would) as `toolstream publish` does (normalised and sealed at
// the edge), from the first publish until the assembler has stored the
// outcome of the last call (the last CallCompleted). The baseline, on the
// same server before the node starts: the same raw events published the
// same way to a stream of their own while one consumer reads them, from
// the first publish until the last is read. After the timed part, a
// stream of a third-party producer (raw, ingest normalises it) goes
// through too, and memory observations of the streams' users, and every
// projection's reads are counted once all settled.
func Live(ctx context.Context, b *bus.Bus, dir string, streams [][]byte, log *slog.Logger) (LiveResult, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	res := LiveResult{Streams: len(streams)}
	for _, s := range streams {
		res.Raw += bytes.Count(s, []byte("\n"))
	}
	var err error
	if res.Baseline, err = rawPublishConsume(ctx, b, streams); err != nil {
		return res, err
	}

	n := stack.NewNode(b, dir, log)
	defer n.Stop()
	nc := b.Conn
	for _, p := range []projector.Projection{
		assembler.NewIngest(assembler.IngestConfig{Logger: log}),
		assembler.New(assembler.Config{Logger: log, IdleTimeout: 2 * time.Minute, Preview: func(subject string, data []byte) { _ = nc.Publish(subject, data) }}),
		responses.Projection{},
		verifier.NewProjection(verifier.ProjectionConfig{}),
		memory.NewProjection(memory.NewEngine(memory.Config{}, nil)),
	} {
		if _, err := n.Start(ctx, p, nil); err != nil {
			return res, err
		}
	}
	reg, err := registry.Parse([]byte("tools:\n  - {name: weather, side_effect: none}\ngrants:\n  - {tenant: acme, permissions: [weather]}\n"))
	if err != nil {
		return res, err
	}
	weather := executor.ToolFunc(func(context.Context, executor.Call) (json.RawMessage, error) {
		return json.RawMessage(`{"temperature_c":18}`), nil
	})
	ex, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, ExecutorID: "bench", Logger: log,
		Registry: func() *registry.Registry { return reg }, Tools: map[string]executor.Tool{"weather": weather}})
	if err != nil {
		return res, err
	}
	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	wg.Add(2)
	go func() { defer wg.Done(); _ = ex.Run(rctx) }()
	go func() { defer wg.Done(); tickEvery(rctx, b, time.Second) }()
	for name := range n.Runners() {
		if err := n.Settle(ctx, name); err != nil {
			return res, err
		}
	}
	if err := waitConsumer(ctx, b, "ts-executor"); err != nil {
		return res, err
	}
	p, err := client.Connect(ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys))
	if err != nil {
		return res, err
	}
	defer p.Close()
	asm, _ := n.Runner(assembler.Name)
	start := time.Now()
	var (
		mu   sync.Mutex
		last uint64
		errs []error
		pub  sync.WaitGroup
	)
	for i, s := range streams {
		pub.Add(1)
		go func() {
			defer pub.Done()
			out, err := p.Publish(ctx, bytes.NewReader(s), client.WithStream(client.Stream{Tenant: "acme", Format: "openai-responses",
				ID: "s" + strconv.Itoa(i), User: "u" + strconv.Itoa(i)}))
			mu.Lock()
			defer mu.Unlock()
			last = max(last, out.Last)
			if err != nil {
				errs = append(errs, err)
			}
		}()
	}
	pub.Wait()
	if len(errs) > 0 {
		return res, errs[0]
	}
	if err := asm.WaitFor(ctx, last); err != nil {
		return res, err
	}
	if err := asm.WaitRelayed(ctx); err != nil {
		return res, err
	}
	res.Live = time.Since(start)

	// A third-party producer's stream, raw through ingest (a tenth of one
	// stream's responses), and memory; then everything settles.
	third := ProviderStream("raw", max(1, bytes.Count(streams[0], []byte("\n"))/10/(2+WholeCalls*(WholeDeltas+5)+11)), WholeCalls, WholeDeltas)
	if _, err := p.Publish(ctx, bytes.NewReader(third), client.WithStream(client.Stream{Tenant: "acme", Format: "openai-responses",
		ID: "raw", User: "u-raw", Raw: true})); err != nil {
		return res, err
	}
	// Memory written for the streams' users (as the memory service does),
	// so that memory reads something.
	for i := range streams {
		user := "u" + strconv.Itoa(i)
		subj, err := events.MemorySubject("acme", user)
		if err != nil {
			return res, err
		}
		for j := range 10 {
			id := fmt.Sprintf("m%d", j)
			ev := &events.Event{ID: events.MemoryOpID("acme", user, j), Tenant: "acme", User: user, At: time.Now().UnixNano(),
				Body: &events.MemoryObserved{Observation: events.Observation{ID: id, Kind: "episode", Text: "asked for the weather in San Francisco and Boston"}}}
			data, err := events.EncodeSealed(ev, b.Keys, events.RecordScope(user, id))
			if err != nil {
				return res, err
			}
			if _, err := b.JS.Publish(ctx, subj, data); err != nil {
				return res, err
			}
		}
	}
	for range 2 { // what one projection emits is input to another
		for _, name := range []string{assembler.IngestName, assembler.Name, responses.Name, verifier.Name, memory.Name} {
			if err := n.Settle(ctx, name); err != nil {
				return res, err
			}
		}
	}
	for name, r := range n.Runners() {
		st := r.Stats()
		res.Reads = append(res.Reads, ReadStat{Projection: name, Read: st.Read, Skipped: st.Skipped})
	}
	sort.Slice(res.Reads, func(i, j int) bool { return res.Reads[i].Projection < res.Reads[j].Projection })
	return res, nil
}

// rawPublishConsume publishes every raw event of streams (a goroutine
// each) to a stream of their own on b while one consumer reads them, and
// returns the time from the first publish to the last read; the stream is
// deleted after.
func rawPublishConsume(ctx context.Context, b *bus.Bus, streams [][]byte) (time.Duration, error) {
	const name = "BENCH_RAW"
	if _, err := b.JS.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{"bench.raw.>"}, Storage: jetstream.FileStorage}); err != nil {
		return 0, err
	}
	defer func() { _ = b.JS.DeleteStream(context.WithoutCancel(ctx), name) }()
	total := 0
	for _, s := range streams {
		total += bytes.Count(s, []byte("\n"))
	}
	cons, err := b.JS.OrderedConsumer(ctx, name, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return 0, err
	}
	got := make(chan struct{})
	var seen atomic.Int64
	cc, err := cons.Consume(func(jetstream.Msg) {
		if seen.Add(1) == int64(total) {
			close(got)
		}
	}, jetstream.PullMaxMessages(BatchMax))
	if err != nil {
		return 0, err
	}
	defer cc.Stop()
	start := time.Now()
	errs := make(chan error, len(streams))
	for i, s := range streams {
		go func() {
			_, err := publishLines(ctx, b.JS, "bench.raw.s"+strconv.Itoa(i), s)
			errs <- err
		}()
	}
	for range streams {
		if err := <-errs; err != nil {
			return 0, err
		}
	}
	select {
	case <-got:
	case <-ctx.Done():
		return 0, fmt.Errorf("bench: raw consumer read %d of %d: %w", seen.Load(), total, ctx.Err())
	}
	return time.Since(start), nil
}

// tickEvery writes clock ticks as serve's clock does.
func tickEvery(ctx context.Context, b *bus.Bus, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			at := now.Truncate(every).UnixNano()
			for _, subj := range events.ClockSubjects {
				_, _ = b.Publish(ctx, subj, &events.Event{ID: events.TickID(at), Tenant: events.SystemTenant, At: at, Body: &events.Tick{}})
			}
		}
	}
}

// wholePathStreams is how many producers publish at once in the live run.
const wholePathStreams = 4

// wholePath measures the whole path's rows: the one-shot, the live path,
// and each projection's read amplification in the live run. The
// responses are AssemblerCalls ÷ 2 (1,000 in the full run: 111,000 raw
// events).
func (r *runner) wholePath() error {
	responses := max(wholePathStreams, r.cfg.Sizes.AssemblerCalls/2)
	input := ProviderStream("oneshot", responses, WholeCalls, WholeDeltas)
	one, err := OneShot(r.ctx, filepath.Join(r.dir, "oneshot"), input, r.cfg.Logger, r.run%2 == 0)
	if err != nil {
		return fmt.Errorf("whole path, one-shot: %w", err)
	}
	r.add(Row{Section: "whole path", Measured: "one-shot assemble", Value: rate(one.Raw, one.OneShot),
		Baseline: "fresh embedded server, publish every line, read all back", BaseValue: rate(one.Raw, one.Pipeline),
		Unit: "raw events/s", Better: "higher", Target: "≥ 0.5",
		Note: fmt.Sprintf("%d raw events (%d responses × %d calls), %d outcomes; each side starts and closes its server; GOGC=%d as toolstream assemble", one.Raw, responses, WholeCalls, one.Outcomes, stack.OneShotGOGC)})
	streams := make([][]byte, wholePathStreams)
	for i := range streams {
		streams[i] = ProviderStream("live"+strconv.Itoa(i), responses/wholePathStreams, WholeCalls, WholeDeltas)
	}
	var live LiveResult
	err = r.withBus("live", func(b *bus.Bus, dir string) error {
		kr, err := keys.Open(r.ctx, keys.Config{JS: b.JS, Create: true, Logger: r.cfg.Logger})
		if err != nil {
			return err
		}
		b.Keys = kr
		live, err = Live(r.ctx, b, dir, streams, r.cfg.Logger)
		return err
	})
	if err != nil {
		return fmt.Errorf("whole path, live: %w", err)
	}
	r.add(Row{Section: "whole path", Measured: "live, every component", Value: rate(live.Raw, live.Live),
		Baseline: "raw publish + consume, same server", BaseValue: rate(live.Raw, live.Baseline),
		Unit: "raw events/s", Better: "higher", Target: "≥ 0.5",
		Note: fmt.Sprintf("%d raw events from %d producers at once, published normalised at the edge; first publish → last CallCompleted stored, with ingest, assembler, responses, verifier, memory, executor and clock running", live.Raw, live.Streams)})
	byName := map[string]ReadStat{}
	for _, s := range live.Reads {
		byName[s.Projection] = s
	}
	for _, name := range amplificationRows {
		s := byName[name]
		r.add(Row{Section: "read amplification", Measured: name, Value: float64(s.Read),
			Baseline: "messages it needs (its subjects)", BaseValue: float64(s.Read - s.Skipped),
			Unit: "messages", Better: "lower", Target: "≤ 1.5", Note: "the live run, a third-party producer's raw stream included"})
	}
	return nil
}

// amplificationRows are the projections whose reads the live run counts.
var amplificationRows = []string{assembler.IngestName, assembler.Name, responses.Name, verifier.Name, memory.Name}
