package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
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
	Bytes    int // bytes of provider JSON
	Outcomes int // call and response outcome lines
	Stored   int // messages the one-shot's server held at the end (all streams)
	OneShot  time.Duration
	Pipeline time.Duration // every line stored, none decoded
	Plain    PlainResult   // the plain program, merging at the edge
	PlainAll time.Duration // the plain program with its server's start and close
	GOGC     int           // the collector's target of all three sides
}

// OneShot times what `toolstream assemble` does with input — an embedded
// server in a fresh directory, its data keys, stack.Assemble (normalised
// and sealed at the edge, assembled, every outcome read back), the server
// closed — under stack.OneShotGOGC, and the least any JetStream pipeline does
// with the same raw events: an embedded server in a fresh directory, every
// line published (a window of asynchronous publishes), all of them read
// back by an ordered consumer, the server closed. pipelineFirst says which
// goes first (alternate it between runs).
//
// The plain program (plainRun) is timed the same way, on a fresh server
// of its own. All three run under stack.OneShotGOGC (the same collector
// target on every side); the order rotates with run.
func OneShot(ctx context.Context, dir string, input []byte, log *slog.Logger, run int) (OneShotResult, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	res := OneShotResult{Raw: bytes.Count(input, []byte("\n")), Bytes: len(input), GOGC: stack.OneShotGOGC}
	old := debug.SetGCPercent(stack.OneShotGOGC)
	defer debug.SetGCPercent(old)
	steps := []func() error{
		func() (err error) {
			res.Pipeline, err = rawPipeline(ctx, filepath.Join(dir, "pipeline"), input, log)
			return err
		},
		func() error {
			start := time.Now()
			n, stored, err := oneShot(ctx, filepath.Join(dir, "oneshot"), input, log)
			res.OneShot, res.Outcomes, res.Stored = time.Since(start), n, stored
			return err
		},
		func() (err error) {
			start := time.Now()
			if res.Plain, err = plainOnce(ctx, dir, input, log); err != nil {
				return err
			}
			res.PlainAll = time.Since(start)
			return nil
		},
	}
	k := run % len(steps)
	steps = append(steps[k:], steps[:k]...)
	for _, step := range steps {
		if err := step(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// plainOnce runs the plain program on its own server in dir/plain, closed
// as toolstream assemble closes its scratch server (stack.Scratch.Close):
// its stream deleted (plainRun), the connection closed without a drain,
// the server shut down. It returns plainRun's result.
func plainOnce(ctx context.Context, dir string, input []byte, log *slog.Logger) (PlainResult, error) {
	b, err := bus.Open(ctx, bus.Config{DataDir: filepath.Join(dir, "plain"), Listen: "127.0.0.1:-1", Logger: log, Name: "bench-plain"})
	if err != nil {
		return PlainResult{}, err
	}
	defer b.Close()
	out, err := plainRun(ctx, b, [][]byte{input})
	if err != nil {
		return PlainResult{}, err
	}
	b.Conn.Close()
	b.Close()
	return out, nil
}

// oneShot is cmd/toolstream's assembleOnce without a tools file. It
// returns the outcome lines and the messages the server holds at the end
// (counted after the work, before the close: the count is not timed work
// of a plain program, a few stream infos).
func oneShot(ctx context.Context, dir string, input []byte, log *slog.Logger) (int, int, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, 0, err
	}
	s, err := stack.OpenScratchIn(ctx, dir, "bench-oneshot", log)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	b := s.Bus
	lines, err := stack.Assemble(ctx, stack.AssembleConfig{Bus: b, Dir: filepath.Join(dir, "views"), Logger: log,
		Assembler: assembler.Config{IdleTimeout: 2 * time.Minute, Logger: log},
		Stream:    client.Stream{Tenant: "acme", Format: "openai-responses", ID: "bench"}}, bytes.NewReader(input))
	if err != nil {
		return len(lines), 0, err
	}
	stored, err := storedMessages(ctx, b)
	return len(lines), stored, err
}

// storedMessages counts the messages of every stream of b.
func storedMessages(ctx context.Context, b *bus.Bus) (int, error) {
	n := 0
	l := b.JS.ListStreams(ctx)
	for info := range l.Info() {
		n += int(info.State.Msgs)
	}
	return n, l.Err()
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
	Bytes    int // bytes of provider JSON, all streams
	Streams  int
	Live     time.Duration
	Baseline time.Duration // every line stored and read, none decoded
	Plain    PlainResult   // the plain program, merging at the edge
	Stored   int           // messages the server gained during the timed live part
	// Relayed is when the assembler had relayed the last CallCompleted
	// (where the live row used to stop), Executed when the
	// executor's last outcome was stored; Live goes on until every
	// projection settled.
	Relayed, Executed time.Duration
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
// the verifier, memory, an executor with the streams' tool (a Go function
// that answers at once, marked executor.Immediate), the clock —
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
		res.Bytes += len(s)
	}
	var err error
	if res.Baseline, err = rawPublishConsume(ctx, b, streams); err != nil {
		return res, err
	}
	if res.Plain, err = plainRun(ctx, b, streams); err != nil {
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
	weather := executor.ImmediateFunc(func(context.Context, executor.Call) (json.RawMessage, error) {
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
	before, err := storedMessages(ctx, b)
	if err != nil {
		return res, err
	}
	calls := res.Raw / (2 + WholeCalls*(WholeDeltas+5) + 11) * WholeCalls
	// The executor's outputs, seen by a core subscription the moment
	// JetStream stores them (one subject per call's outcome).
	var (
		resMu   sync.Mutex
		results = map[string]bool{}
		ran     = make(chan struct{})
	)
	sub, err := b.Conn.Subscribe("ts.result.>", func(m *nats.Msg) {
		resMu.Lock()
		defer resMu.Unlock()
		if !results[m.Subject] {
			results[m.Subject] = true
			if len(results) == calls {
				close(ran)
			}
		}
	})
	if err != nil {
		return res, err
	}
	defer sub.Unsubscribe()
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
	res.Relayed = time.Since(start)
	// To the last component's output: the executor has stored every
	// call's outcome and every
	// projection has read its stream to the end and relayed what it emits,
	// twice (what one emits is input to another).
	select {
	case <-ran:
	case <-ctx.Done():
		resMu.Lock()
		defer resMu.Unlock()
		return res, fmt.Errorf("bench: live: the executor stored %d of %d outcomes: %w", len(results), calls, ctx.Err())
	}
	res.Executed = time.Since(start)
	for range 2 {
		for _, name := range []string{assembler.IngestName, assembler.Name, responses.Name, verifier.Name, memory.Name} {
			if err := n.Settle(ctx, name); err != nil {
				return res, err
			}
		}
	}
	res.Live = time.Since(start)
	after, err := storedMessages(ctx, b)
	if err != nil {
		return res, err
	}
	res.Stored = after - before

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

// wholePath measures the whole path's rows: the one-shot and the live
// path, each against the plain program that merges at the edge too
// (like with like) and against storing every chunk undecoded (the per-chunk
// comparison). The responses are AssemblerCalls ÷ 2 (1,000 in the full
// run: 111,000 raw events).
//
// The read amplification rows are gone: read ÷ (read −
// skipped) is 1.00 by construction on streams that hold only what the
// reader subscribes to, and what a projection reads but does not need
// (responses reads every delta) is not counted as skipped.
func (r *runner) wholePath() error {
	responses := max(wholePathStreams, r.cfg.Sizes.AssemblerCalls/2)
	input := ProviderStream("oneshot", responses, WholeCalls, WholeDeltas)
	one, err := OneShot(r.ctx, filepath.Join(r.dir, "oneshot"), input, r.cfg.Logger, r.run)
	if err != nil {
		return fmt.Errorf("whole path, one-shot: %w", err)
	}
	note := fmt.Sprintf("%d raw events (%d responses × %d calls), %d outcomes; each side starts and closes its own embedded server, all three sides under GOGC=%d (toolstream assemble's)",
		one.Raw, responses, WholeCalls, one.Outcomes, one.GOGC)
	ts := Work{Does: "toolstream assemble: each chunk parsed and normalised at the edge (a call's consecutive deltas merged), sealed (AES-GCM), published without message ids (its private server is written once), assembled (Pebble view), outcomes stored and read back",
		Stored: fmt.Sprintf("%d messages (the server's streams at the end: model events, outcomes, keys)", one.Stored), Acks: "one per stored message (asynchronous windows)",
		Parsed: fmt.Sprintf("%d bytes of provider JSON, every chunk; every stored event decoded again by the assembler", one.Bytes), GOGC: one.GOGC}
	plain := Work{Does: "a plain JetStream program: each chunk decoded once (encoding/json, the fields it needs), a call's or text's consecutive deltas merged, one message per run of deltas and per needed event, read back by an ordered consumer, arguments assembled and checked, an outcome stored per call and response; no sealing, no message ids, no view",
		Stored: fmt.Sprintf("%d messages + %d outcomes", one.Plain.Stored, one.Plain.Outcomes), Acks: "one per stored message (asynchronous windows)",
		Parsed: fmt.Sprintf("%d bytes of provider JSON, every chunk; every stored message decoded again", one.Bytes), GOGC: one.GOGC}
	r.add(Row{Section: "whole path", Measured: RowNames[0][1], Value: rate(one.Raw, one.OneShot),
		Baseline: "plain JetStream program: parse each chunk, merge deltas at the edge, store one message per run, read back, assemble", BaseValue: rate(one.Raw, one.PlainAll),
		Unit: "raw events/s", Better: "higher", Target: "≥ 0.9", Note: note + "; like with like", Work: ts, BaseWork: plain})
	r.add(Row{Section: "whole path", Measured: RowNames[1][1], Value: rate(one.Raw, one.OneShot),
		Baseline: "fresh embedded server, publish every line undecoded, read all back", BaseValue: rate(one.Raw, one.Pipeline),
		Unit: "raw events/s", Better: "higher", Note: note + "; not like with like: the baseline stores every chunk and decodes none, Toolstream stores merged events and decodes all",
		Work: ts, BaseWork: Work{Does: "every line published as it is and read back by an ordered consumer; nothing decoded or assembled",
			Stored: fmt.Sprintf("%d messages (every line)", one.Raw), Acks: "one per line (asynchronous windows)", Parsed: "none (lines split only)", GOGC: one.GOGC}})
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
	lnote := fmt.Sprintf("%d raw events from %d producers at once, all sides on the same server, one after another; of Toolstream's %s, the assembler had relayed the last call at %s and the executor stored its last outcome at %s",
		live.Raw, live.Streams, live.Live.Round(time.Millisecond), live.Relayed.Round(time.Millisecond), live.Executed.Round(time.Millisecond))
	lts := Work{Does: "producers publish normalised and sealed at the edge (deltas merged) while ingest, assembler, responses, verifier, memory, an executor with the tool and the clock run; first publish → the last component's output (every call run by the executor, every projection at its stream's end and relayed, twice)",
		Stored: fmt.Sprintf("%d messages (what the server gained while timed)", live.Stored), Acks: "one per stored message (asynchronous windows), consumers' AckAll per batch",
		Parsed: fmt.Sprintf("%d bytes of provider JSON at the edge; each projection decodes what it reads", live.Bytes)}
	r.add(Row{Section: "whole path", Measured: RowNames[2][1], Value: rate(live.Raw, live.Live),
		Baseline: "the plain program, a producer goroutine each and one consumer assembling, same server", BaseValue: rate(live.Raw, live.Plain.Elapsed),
		Unit: "raw events/s", Better: "higher", Target: "≥ 0.8", Note: lnote + "; like with like for the edge and assembly, Toolstream's side also runs responses, verifier, memory and executor",
		Work: lts, BaseWork: Work{Does: "the plain program (as in the one-shot row) with a producer goroutine per stream; first publish → last outcome's ack",
			Stored: fmt.Sprintf("%d messages + %d outcomes", live.Plain.Stored, live.Plain.Outcomes), Acks: "one per stored message (asynchronous windows)",
			Parsed: fmt.Sprintf("%d bytes of provider JSON, every chunk; every stored message decoded again", live.Bytes)}})
	r.add(Row{Section: "whole path", Measured: RowNames[3][1], Value: rate(live.Raw, live.Live),
		Baseline: "raw publish + consume of every line, same server", BaseValue: rate(live.Raw, live.Baseline),
		Unit: "raw events/s", Better: "higher", Note: lnote + "; not like with like: the baseline stores every chunk and decodes none",
		Work: lts, BaseWork: Work{Does: "every line published as it is, a goroutine per stream, one ordered consumer reading; first publish → last read",
			Stored: fmt.Sprintf("%d messages (every line)", live.Raw), Acks: "one per line (asynchronous windows)", Parsed: "none (lines split only)"}})
	return nil
}
