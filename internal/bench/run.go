package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/internal/bus"
)

// Sizes are how much work each measurement does.
type Sizes struct {
	BackboneEvents int // events through the no-op projection and the raw consumer
	AssemblerCalls int // calls of the assembler's throughput run (also what replay rebuilds)
	DeltasPerCall  int // argument deltas per call
	LatencySamples int // completion latency samples
	ExecutorCalls  int // no-op calls through the executor
	VerifierRounds int // checks of the verifier's answer
	MemoryRecords  int // records of the recalled user
	MemorySamples  int // recall latency samples
	GatewaySeconds int // seconds of load at each rate, through the gateway and direct
	RoundRounds    int // tool rounds of each run of the round row (50: a long run)
	RoundRuns      int // runs of the round row, each way
}

// DefaultSizes are the full run's sizes (the numbers of the issue: 100k
// events, 100k memory records…).
func DefaultSizes() Sizes {
	return Sizes{BackboneEvents: 100_000, AssemblerCalls: 2000, DeltasPerCall: 40, LatencySamples: 300,
		ExecutorCalls: 10_000, VerifierRounds: 100, MemoryRecords: 100_000, MemorySamples: 500, GatewaySeconds: 10,
		RoundRounds: 50, RoundRuns: 10}
}

// QuickSizes finish in well under twenty seconds on a laptop.
func QuickSizes() Sizes {
	return Sizes{BackboneEvents: 100_000, AssemblerCalls: 1000, DeltasPerCall: 40, LatencySamples: 200,
		ExecutorCalls: 5000, VerifierRounds: 50, MemoryRecords: 30_000, MemorySamples: 300, GatewaySeconds: 3,
		RoundRounds: 50, RoundRuns: 3}
}

// Scale multiplies every size by f (at least 1 each): tests run tiny
// suites with it.
func (s Sizes) Scale(f float64) Sizes {
	m := func(n int) int { return max(1, int(math.Round(float64(n)*f))) }
	return Sizes{m(s.BackboneEvents), m(s.AssemblerCalls), m(s.DeltasPerCall), m(s.LatencySamples),
		m(s.ExecutorCalls), m(s.VerifierRounds), m(s.MemoryRecords), m(s.MemorySamples), m(s.GatewaySeconds),
		max(2, m(s.RoundRounds)), m(s.RoundRuns)}
}

// Config configures Run.
type Config struct {
	Sizes Sizes
	// Runs is how many times the suite runs; every row reports the same
	// run, the median run (MedianRun). Default 1.
	Runs int
	// Dir is the scratch directory (servers, views); default a temporary
	// one, removed after.
	Dir string
	// Progress receives one line per measurement as it starts; nil: none.
	Progress io.Writer
	// Logger for the embedded servers; nil discards.
	Logger *slog.Logger
	// Only, when set, runs only the measurements whose progress name holds
	// one of its words ("executor", "sealing"): a row being worked on is
	// measured many times without the rest of the suite.
	Only []string
	// TenantStreams runs the live servers (every measurement on withBus:
	// the live whole path among them) in the layout with per-tenant
	// ingress streams (bus.Config.TenantStreams), acme's ensured: what the
	// layout costs is this run's rows against a run without it.
	TenantStreams bool
}

// wanted reports whether the measurement named what runs under cfg.Only.
func (cfg Config) wanted(what string) bool {
	if len(cfg.Only) == 0 {
		return true
	}
	for _, w := range cfg.Only {
		if strings.Contains(what, w) {
			return true
		}
	}
	return false
}

// Row is one line of the table: a measured value, the raw-JetStream (or
// simplest) baseline of the same work in the same run, and their ratio.
type Row struct {
	Section   string  `json:"section"`
	Measured  string  `json:"measured"`
	Value     float64 `json:"value"`
	Baseline  string  `json:"baseline"`
	BaseValue float64 `json:"baseline_value"`
	Unit      string  `json:"unit"`
	Ratio     float64 `json:"ratio"`  // Value / BaseValue
	Better    string  `json:"better"` // which way the ratio should go: "higher" or "lower"
	Target    string  `json:"target,omitempty"`
	Missed    bool    `json:"missed,omitempty"` // the ratio does not meet Target (Row.Meets)
	Note      string  `json:"note,omitempty"`
	// Work is what the measured side does, BaseWork what the baseline
	// does: a reader judges from them whether the comparison is fair.
	Work     Work `json:"work"`
	BaseWork Work `json:"baseline_work"`
	// Run is the run (1-based) the row's value, baseline and ratio come
	// from: the same run for every row of a report (Report.Run).
	Run int `json:"run"`
	// AllRatios are this row's ratios in every run, in run order, for the
	// spread; they are not what the row reports.
	AllRatios []float64 `json:"ratios_all_runs,omitempty"`
}

// Work is what one side of a row does.
type Work struct {
	Does   string `json:"does"`            // in words
	Stored string `json:"messages_stored"` // messages stored in JetStream ("none" for none)
	Acks   string `json:"acks_waited"`     // acknowledgements waited for
	Parsed string `json:"bytes_parsed"`    // bytes decoded (JSON or binary)
	Fsync  string `json:"fsync"`           // the server's flush policy, or that nothing is stored
	GOGC   int    `json:"gogc"`            // the collector's target while the side ran
}

// Complete reports whether every field of w is filled.
func (w Work) Complete() bool {
	return w.Does != "" && w.Stored != "" && w.Acks != "" && w.Parsed != "" && w.Fsync != "" && w.GOGC != 0
}

// FsyncDefault is the flush policy of every embedded server of the suite
// (bus.Config.Sync left empty): nats-server's default, data written to the
// file store at once and flushed to disk every 2 minutes, not per message.
const FsyncDefault = "server default: written at once, fsync every 2 min (not per message)"

// FsyncNone is the policy of a side that stores nothing.
const FsyncNone = "none: nothing stored"

// gogc is the collector's target now (debug.SetGCPercent's current value).
func gogc() int {
	old := debug.SetGCPercent(100)
	debug.SetGCPercent(old)
	return old
}

// Meets reports whether the row's ratio meets its target ("≥ 0.7",
// "≤ 3×"), and known false for a row without a target or a ratio.
func (r Row) Meets() (met, known bool) {
	t := strings.TrimSuffix(strings.TrimSpace(r.Target), "×")
	var bound float64
	var cmp string
	switch {
	case strings.HasPrefix(t, "≥"):
		cmp, t = "≥", strings.TrimPrefix(t, "≥")
	case strings.HasPrefix(t, "≤"):
		cmp, t = "≤", strings.TrimPrefix(t, "≤")
	default:
		return false, false
	}
	// "≤ 1.2× + 2 ms": a ratio and an allowance in the row's unit (µs).
	var allowMs float64
	if f, allow, ok := strings.Cut(t, "+"); ok && cmp == "≤" && r.Unit == "µs" {
		if _, err := fmt.Sscanf(strings.TrimSpace(allow), "%g ms", &allowMs); err != nil {
			return false, false
		}
		t = strings.TrimSuffix(strings.TrimSpace(f), "×")
	}
	if _, err := fmt.Sscan(strings.TrimSpace(t), &bound); err != nil || r.Ratio == 0 || math.IsNaN(r.Ratio) || math.IsInf(r.Ratio, 0) {
		return false, false
	}
	if allowMs > 0 {
		return r.Value <= bound*r.BaseValue+allowMs*1000, true
	}
	if cmp == "≥" {
		return r.Ratio >= bound, true
	}
	return r.Ratio <= bound, true
}

// Report is the result of Run.
type Report struct {
	Machine Machine `json:"machine"`
	Sizes   Sizes   `json:"sizes"`
	Runs    int     `json:"runs"`
	// Run is the run (1-based) every row comes from (MedianRun).
	Run     int           `json:"run"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Rows    []Row         `json:"rows"`
}

// RowNames are the sections and measurements every report has, in order.
var RowNames = [][2]string{
	{"whole path", "one-shot assemble vs a plain program that merges at the edge"},
	{"whole path", "one-shot assemble vs storing every chunk"},
	{"whole path", "live, every component vs a plain program that merges at the edge"},
	{"whole path", "live, every component vs storing every chunk"},
	{"backbone", "no-op projection"},
	{"assembler", "argument deltas"},
	{"assembler", "completion latency p50"},
	{"executor", "no-op tool calls"},
	{"verifier", "warm check (evidence indexes kept)"},
	{"verifier", "cold check (toolstream verify: indexing included)"},
	{"verifier", "index building"},
	{"erasure", "assembler path, sealed"},
	{"erasure", "assembler path, sealed, one event per chunk"},
	{"erasure", "memory path, sealed"},
	{"memory", "recall p50"},
	{"memory", "recall p99"},
	{"fairness", "another tenant's completion p50 during a flood"},
	{"run round", "time a round adds p50"},
	{"run round", "time a round adds p99"},
	{"run round", "last round ÷ first round"},
	{"gateway", "request p50 at 100 req/s"},
	{"gateway", "request p99 at 100 req/s"},
	{"gateway", "request p50 at 1,000 req/s"},
	{"gateway", "request p99 at 1,000 req/s"},
	{"gateway streaming", "events/s, streamed, 1 stream"},
	{"gateway streaming", "first byte p50, streamed, 1 stream"},
	{"gateway streaming", "first byte p99, streamed, 1 stream"},
	{"gateway streaming", "events/s, streamed, 64 streams"},
	{"gateway streaming", "first byte p50, streamed, 64 streams"},
	{"gateway streaming", "first byte p99, streamed, 64 streams"},
	{"gateway streaming", "events/s, whole, 1 stream"},
	{"gateway streaming", "events/s, whole, 1 stream, like with like"},
	{"gateway streaming", "first byte p50, whole, 1 stream"},
	{"gateway streaming", "first byte p99, whole, 1 stream"},
	{"gateway streaming", "events/s, whole, 64 streams"},
	{"gateway streaming", "events/s, whole, 64 streams, like with like"},
	{"gateway streaming", "first byte p50, whole, 64 streams"},
	{"gateway streaming", "first byte p99, whole, 64 streams"},
	{"replay", "rebuild assembler view"},
}

// Run runs the suite cfg.Runs times and reports every row from one run,
// the median run (MedianRun), with each row's ratios in all runs beside
// it. Each measurement gets a fresh embedded server; the
// memory fixture is built once and measured in every run.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	start := time.Now()
	if cfg.Runs <= 0 {
		cfg.Runs = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Dir == "" {
		tmp, err := os.MkdirTemp("", "toolstream-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		cfg.Dir = tmp
	}
	var runs [][]Row
	sh := &shared{}
	defer sh.close()
	for i := range cfg.Runs {
		rows, err := runOnce(ctx, cfg, i, sh)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rows)
	}
	pick := MedianRun(runs)
	rows := slices.Clone(runs[pick])
	for i := range rows {
		rows[i].Run = pick + 1
		for _, run := range runs {
			rows[i].AllRatios = append(rows[i].AllRatios, run[i].Ratio)
		}
		met, known := rows[i].Meets()
		rows[i].Missed = known && !met
	}
	return &Report{Machine: DescribeMachine(), Sizes: cfg.Sizes, Runs: cfg.Runs, Run: pick + 1, Elapsed: time.Since(start), Rows: rows}, nil
}

type runner struct {
	ctx  context.Context
	cfg  Config
	dir  string
	run  int
	rows []Row
	// deferred rows go last (replay is measured with the assembler's events)
	deferred []Row
}

func (r *runner) progress(what string) {
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, "bench: run %d/%d: %s\n", r.run+1, r.cfg.Runs, what)
	}
}

// withBus runs fn on a fresh embedded server in its own directory.
func (r *runner) withBus(name string, fn func(b *bus.Bus, dir string) error) error {
	dir := filepath.Join(r.dir, name)
	b, err := bus.Open(r.ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Logger: r.cfg.Logger, Name: "bench-" + name, TenantStreams: r.cfg.TenantStreams})
	if err != nil {
		return err
	}
	defer b.Close()
	if err := b.EnsureTenant(r.ctx, "acme"); err != nil { // nothing to do in the shared layout
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := fn(b, filepath.Join(dir, "views")); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (r *runner) add(row Row) { r.rows = append(r.rows, withRatio(row)) }

// withRatio sets the ratio, and the fsync policy and GOGC of a side that
// does not name them: the suite's embedded servers' policy and the
// process's collector target now (both sides of a row run in this process
// under the same one unless the row sets both).
func withRatio(row Row) Row {
	if row.BaseValue != 0 {
		row.Ratio = row.Value / row.BaseValue
	}
	for _, w := range []*Work{&row.Work, &row.BaseWork} {
		if w.Fsync == "" {
			w.Fsync = FsyncDefault
		}
		if w.GOGC == 0 {
			w.GOGC = gogc()
		}
	}
	return row
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Percentile returns the p-th percentile (nearest rank) of ds.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(float64(len(s))*p/100)) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// shared is what the runs of one Run share: the memory fixture, whose
// building is not what is measured.
type shared struct {
	memory *MemoryFixture
}

func (sh *shared) close() {
	if sh.memory != nil {
		sh.memory.Close()
	}
}

func runOnce(ctx context.Context, cfg Config, run int, sh *shared) ([]Row, error) {
	r := &runner{ctx: ctx, cfg: cfg, dir: filepath.Join(cfg.Dir, fmt.Sprint("run", run+1)), run: run}
	s := cfg.Sizes
	steps := []struct {
		what string
		fn   func() error
	}{
		{"whole path", r.wholePath},
		{"backbone", func() error {
			return r.withBus("backbone", func(b *bus.Bus, dir string) error {
				res, err := Backbone(ctx, b, dir, s.BackboneEvents)
				if err != nil {
					return err
				}
				r.add(Row{Section: "backbone", Measured: "no-op projection", Value: rate(res.Events, res.Noop),
					Baseline: "raw durable pull consumer, AckAll per batch", BaseValue: rate(res.Events, res.Raw),
					Unit: "events/s", Better: "higher", Target: "≥ 0.7", Note: fmt.Sprintf("%d events", res.Events),
					Work: Work{Does: "projector.Runner with a projection whose Apply does nothing: durable pull consumer, fetch, Pebble batch commit of the checkpoint, AckAll per batch",
						Stored: "none (the events were stored before timing)", Acks: "one AckAll per batch (not waited for), one Pebble commit per batch",
						Parsed: "what the runner reads of each message before Apply", Fsync: FsyncDefault + "; Pebble without fsync per batch"},
					BaseWork: Work{Does: "durable pull consumer, fetch, AckAll on each batch's last message, nothing applied, no Pebble",
						Stored: "none", Acks: "one AckAll per batch (not waited for)", Parsed: "none"}})
				return nil
			})
		}},
		{"assembler throughput and replay", func() error {
			return r.withBus("assembler", func(b *bus.Bus, dir string) error {
				res, err := AssemblerThroughput(ctx, b, dir, s.AssemblerCalls, s.DeltasPerCall, 1)
				if err != nil {
					return err
				}
				r.add(Row{Section: "assembler", Measured: "argument deltas", Value: rate(res.Deltas, res.Assembler),
					Baseline: "Toolstream's own no-op projection (projector.Runner, Apply does nothing), same events", BaseValue: rate(res.Deltas, res.Noop),
					Unit: "deltas/s", Better: "higher", Target: "≥ 0.8", Note: fmt.Sprintf("%d calls × %d deltas, one call at a time; the baseline is Toolstream's own machinery, not raw JetStream (the backbone row compares that)", s.AssemblerCalls, s.DeltasPerCall+2),
					Work: Work{Does: "the assembler projection: each event decoded, calls assembled, Pebble writes, CallCompleted per call through the outbox and relay",
						Stored: fmt.Sprintf("%d CallCompleted (one a call)", s.AssemblerCalls), Acks: "its relay's publishes; AckAll per batch",
						Parsed: fmt.Sprintf("%d model events decoded", res.Events)},
					BaseWork: Work{Does: "projector.Runner with a no-op Apply over the same stored events",
						Stored: "none", Acks: "AckAll per batch", Parsed: "what the runner reads of each message before Apply"}})
				r.progress("replay")
				rp, err := Replay(ctx, b, filepath.Join(dir, "replay"), assembler.New(assembler.Config{}), res.Last)
				if err != nil {
					return err
				}
				replayRow := Row{Section: "replay", Measured: "rebuild assembler view", Value: rate(rp.Events, rp.Replay),
					Baseline: "direct-get batch reads of the same sequences, nothing done with them", BaseValue: rate(rp.Events, rp.Raw),
					Unit: "events/s", Better: "higher", Note: fmt.Sprintf("%d events; the baseline reads the way replay reads (direct gets in batches of %d), it is not an ordered consumer", rp.Events, BatchMax),
					Work: Work{Does: "projector.Replay of the assembler into an empty directory: direct-get batches, every event decoded and applied, Pebble writes, relay off, digest at the end",
						Stored: "none (relay off)", Acks: "none", Parsed: fmt.Sprintf("%d events decoded", rp.Events), Fsync: "none on the log; Pebble view written"},
					BaseWork: Work{Does: "the same direct-get batches, messages dropped",
						Stored: "none", Acks: "none", Parsed: "none", Fsync: FsyncNone}}
				r.deferred = append(r.deferred, withRatio(replayRow))
				return nil
			})
		}},
		{"completion latency", func() error {
			return r.withBus("latency", func(b *bus.Bus, dir string) error {
				lat, err := CompletionLatency(ctx, b, dir, s.LatencySamples)
				if err != nil {
					return err
				}
				r.add(Row{Section: "assembler", Measured: "completion latency p50", Value: micros(Percentile(lat.Measured, 50)),
					Baseline: "raw publish → pull consume round trip p50", BaseValue: micros(Percentile(lat.Raw, 50)),
					Unit: "µs", Better: "lower", Target: "≤ 3×", Note: fmt.Sprintf("%d samples; p99 %.0f µs", len(lat.Measured), micros(Percentile(lat.Measured, 99))),
					Work: Work{Does: "a completion event published (ack waited for), the assembler assembles the call and relays CallCompleted, a core subscriber sees it",
						Stored: "2 a sample (the event, the CallCompleted)", Acks: "the publish's ack, the relay's ack", Parsed: "the event decoded, CallCompleted encoded"},
					BaseWork: Work{Does: "one event published (ack waited for) and pulled by a consumer that does nothing",
						Stored: "1 a sample", Acks: "the publish's ack", Parsed: "none"}})
				return nil
			})
		}},
		{"executor", func() error {
			return r.withBus("executor", func(b *bus.Bus, dir string) error {
				base, d, err := ExecutorRatio(ctx, b, dir, s.ExecutorCalls, true)
				if err != nil {
					return err
				}
				r.add(Row{Section: "executor", Measured: "no-op tool calls", Value: rate(s.ExecutorCalls, d),
					Baseline: "no-op projection, the same stored call events, same server", BaseValue: rate(s.ExecutorCalls, base),
					Unit: "calls/s", Better: "higher", Target: "≥ 0.5×",
					Note: fmt.Sprintf("like with like: %d call events published once to one server, then each side in turn (the no-op projection first) reads them all from the start, timed from its start until its last output was stored: the projection's checkpoint at the last call event, the executor's %d-th CallSucceeded acknowledged by the log; 1 in-process executor", s.ExecutorCalls, s.ExecutorCalls),
					Work: Work{Does: "the executor: durable consumer on call events, grant check, the noop tool run (a Go function marked executor.Immediate: on its call's handler, its timeout checked when it returns), its outcome published (the log is the call's record: a side-effect-free tool)",
						Stored: fmt.Sprintf("%d CallSucceeded (one message a call, each with its id and the compare-and-set on its empty result subject; no bucket write, no lease)", s.ExecutorCalls),
						Acks:   "each outcome's publish ack, waited for once per window of up to 256 decisions, after one look at the bucket per window; a consumer ack per call, not waited for (sent by the window's leader once the outcome's ack came)",
						Parsed: fmt.Sprintf("%d call events decoded", s.ExecutorCalls)},
					BaseWork: Work{Does: "projector.Runner with a no-op Apply on the same call events, its checkpoint committed to Pebble per batch",
						Stored: "none in the log; its checkpoint in Pebble, one write per batch", Acks: "AckAll per batch", Parsed: "what the runner reads of each message before Apply"}})
				return nil
			})
		}},
		{"verifier", func() error {
			res, err := Verifier(s.VerifierRounds)
			if err != nil {
				return err
			}
			decode := Work{Does: "one encoding/json decode of the answer's evidence into any", Stored: "none", Acks: "none",
				Parsed: fmt.Sprintf("%d bytes of evidence JSON", res.EvidenceBytes), Fsync: FsyncNone}
			note := fmt.Sprintf("%d KiB evidence, a %d-claim answer; medians of %d rounds", res.EvidenceBytes>>10, res.Claims, res.Rounds)
			r.add(Row{Section: "verifier", Measured: "warm check (evidence indexes kept)", Value: micros(res.Check),
				Baseline: "one JSON decode of its evidence", BaseValue: micros(res.Decode), Unit: "µs", Better: "lower", Target: "≤ 5×", Note: note,
				Work: Work{Does: "the verifier projection's check: the kept evidence indexes read back (unmarshalled) and every claim checked", Stored: "none", Acks: "none",
					Parsed: fmt.Sprintf("%d bytes of kept index (binary), the answer's text", res.IndexBytes), Fsync: FsyncNone}, BaseWork: decode})
			r.add(Row{Section: "verifier", Measured: "cold check (toolstream verify: indexing included)", Value: micros(res.Cold),
				Baseline: "one JSON decode of its evidence", BaseValue: micros(res.Decode), Unit: "µs", Better: "lower", Target: "≤ 5×", Note: note,
				Work: Work{Does: "Checker.Check as toolstream verify runs it: the evidence indexed, then every claim checked", Stored: "none", Acks: "none",
					Parsed: fmt.Sprintf("%d bytes of evidence JSON, the answer's text", res.EvidenceBytes), Fsync: FsyncNone}, BaseWork: decode})
			r.add(Row{Section: "verifier", Measured: "index building", Value: micros(res.Index),
				Baseline: "one JSON decode of its evidence", BaseValue: micros(res.Decode), Unit: "µs", Better: "lower", Note: note + "; paid once when each result arrives",
				Work: Work{Does: "verifier.IndexEvidence of each result of the evidence", Stored: "none", Acks: "none",
					Parsed: fmt.Sprintf("%d bytes of evidence JSON", res.EvidenceBytes), Fsync: FsyncNone}, BaseWork: decode})
			return nil
		}},
		{"sealing (erasure's cost)", func() error {
			dir := filepath.Join(r.dir, "seal")
			open := func(name string) (*bus.Bus, func(), error) {
				b, err := bus.Open(r.ctx, bus.Config{DataDir: filepath.Join(dir, name), Listen: "127.0.0.1:-1", Logger: r.cfg.Logger, Name: "bench-seal-" + name})
				if err != nil {
					return nil, nil, err
				}
				return b, func() { _ = b.Close() }, nil
			}
			a, err := SealedAssembler(ctx, open, filepath.Join(dir, "asm"), sealPairsPerRun, s.AssemblerCalls, s.DeltasPerCall, true)
			if err != nil {
				return fmt.Errorf("sealing: %w", err)
			}
			r.add(sealRow("assembler path, sealed", "the same events in the clear", a,
				"deltas merged as the edge publishes them; model events opened, calls and outcomes sealed under the user's key"))
			a, err = SealedAssembler(ctx, open, filepath.Join(dir, "asm-chunks"), sealPairsPerRun, s.AssemblerCalls, s.DeltasPerCall, false)
			if err != nil {
				return fmt.Errorf("sealing: %w", err)
			}
			r.add(sealRow("assembler path, sealed, one event per chunk", "the same events in the clear", a,
				"one model event per provider chunk, as ingest normalises a third party's raw stream"))
			m, err := SealedMemory(ctx, open, filepath.Join(dir, "mem"), sealPairsPerRun, max(1000, s.MemoryRecords/10))
			if err != nil {
				return fmt.Errorf("sealing: %w", err)
			}
			r.add(sealRow("memory path, sealed", "the same observations in the clear", m,
				"each record under a key of its own"))
			return nil
		}},
		{"memory", func() error {
			if sh.memory == nil {
				f, err := NewMemoryFixture(ctx, filepath.Join(cfg.Dir, "memory"), s.MemoryRecords)
				if err != nil {
					return err
				}
				sh.memory = f
			}
			res, err := sh.memory.Measure(ctx, s.MemorySamples)
			if err != nil {
				return err
			}
			note := fmt.Sprintf("%d records, built once in %s", res.Records, res.Build.Round(time.Millisecond))
			recall := Work{Does: "memory.Engine recall of one question over one user's records (Pebble view, index lookups, scoring)", Stored: "none", Acks: "none",
				Parsed: "the index entries and records it looks up", Fsync: FsyncNone}
			scan := Work{Does: "read and decode every record of the user from the same Pebble view", Stored: "none", Acks: "none",
				Parsed: fmt.Sprintf("all %d records", res.Records), Fsync: FsyncNone}
			r.add(Row{Section: "memory", Measured: "recall p50", Value: micros(Percentile(res.Recall, 50)),
				Baseline: "full scan p50 (read + decode every record)", BaseValue: micros(Percentile(res.Scan, 50)),
				Unit: "µs", Better: "lower", Note: note, Work: recall, BaseWork: scan})
			r.add(Row{Section: "memory", Measured: "recall p99", Value: micros(Percentile(res.Recall, 99)),
				Baseline: "full scan p99", BaseValue: micros(Percentile(res.Scan, 99)),
				Unit: "µs", Better: "lower", Note: fmt.Sprintf("%d recall, %d scan samples", len(res.Recall), len(res.Scan)), Work: recall, BaseWork: scan})
			return nil
		}},
		{"fairness", r.fairness},
		{"run round", r.round},
		{"gateway overhead", r.gateway},
		{"gateway streaming", r.gatewayStreaming},
	}
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !cfg.wanted(st.what) {
			continue
		}
		r.progress(st.what)
		if err := st.fn(); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
	}
	r.rows = append(r.rows, r.deferred...)
	return r.rows, nil
}

// MedianRun picks the run a report prints, whole: for each row the runs
// are ranked by ratio (0 the lowest), and the run whose ranks are in total
// nearest the middle rank — Σ|rank − (runs−1)/2| the least — is the median
// run; a tie goes to the earlier run. Every row printed then comes from that
// one run (rows each picked from a different run mixed machines'
// moments).
func MedianRun(runs [][]Row) int {
	if len(runs) <= 1 {
		return 0
	}
	mid := float64(len(runs)-1) / 2
	dist := make([]float64, len(runs))
	for i := range runs[0] {
		order := make([]int, len(runs))
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(runs[a][i].Ratio, runs[b][i].Ratio) })
		for rank, k := range order {
			dist[k] += math.Abs(float64(rank) - mid)
		}
	}
	best := 0
	for k := range dist {
		if dist[k] < dist[best] {
			best = k
		}
	}
	return best
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// WriteJSON writes the report as one JSON document.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteTable writes the report as a text table (Markdown-compatible).
func (rep *Report) WriteTable(w io.Writer) error {
	runs := "1 run"
	if rep.Runs > 1 {
		runs = fmt.Sprintf("median of %d runs: every row from run %d, the median run (the run whose ratios rank nearest the middle over all rows); each row's ratios in all runs are listed below", rep.Runs, rep.Run)
	}
	fmt.Fprintf(w, "toolstream bench: %s; %s in %s\n\n", rep.Machine, runs, rep.Elapsed.Round(time.Second))
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "| section\t measured\t value\t baseline (same run)\t baseline value\t ratio\t better\t target\t")
	fmt.Fprintln(tw, "|---\t---\t---:\t---\t---:\t---:\t---\t---\t")
	var missed []string
	for _, r := range rep.Rows {
		target := r.Target
		if target == "" {
			target = "—"
		}
		if met, known := r.Meets(); known && !met {
			target += " MISSED"
			missed = append(missed, r.Section+" / "+r.Measured)
		}
		fmt.Fprintf(tw, "| %s\t %s\t %s\t %s\t %s\t %s\t %s\t %s\t\n", r.Section, r.Measured, quantity(r.Value, r.Unit),
			r.Baseline, quantity(r.BaseValue, r.Unit), ratio(r.Ratio), r.Better, target)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if len(missed) > 0 {
		fmt.Fprintf(w, "targets missed (%d): %s\n\n", len(missed), strings.Join(missed, "; "))
	}
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "  %s / %s (%s is better)", r.Section, r.Measured, r.Better)
		if len(r.AllRatios) > 1 {
			all := make([]string, len(r.AllRatios))
			for i, q := range r.AllRatios {
				all[i] = ratio(q)
			}
			fmt.Fprintf(w, "; ratios of all runs: %s", strings.Join(all, ", "))
		}
		fmt.Fprintln(w)
		if r.Note != "" {
			fmt.Fprintf(w, "    %s\n", r.Note)
		}
		fmt.Fprintf(w, "    measured: %s\n    baseline: %s\n", r.Work, r.BaseWork)
	}
	return nil
}

// String is the work in one line: what, stored, acks, parsed, fsync, GOGC.
func (w Work) String() string {
	return fmt.Sprintf("%s; stores %s; waits for %s; parses %s; fsync %s; GOGC=%d", w.Does, w.Stored, w.Acks, w.Parsed, w.Fsync, w.GOGC)
}

func ratio(q float64) string {
	if q == 0 || math.IsNaN(q) || math.IsInf(q, 0) {
		return "—"
	}
	switch {
	case q >= 10:
		return fmt.Sprintf("%.0f×", q)
	case q < 0.1:
		return fmt.Sprintf("%.3f×", q)
	}
	return fmt.Sprintf("%.2f×", q)
}

// quantity prints v with its unit, with thousands separators.
func quantity(v float64, unit string) string {
	var s string
	switch {
	case v >= 100:
		s = group(fmt.Sprintf("%.0f", v))
	case v >= 10:
		s = fmt.Sprintf("%.1f", v)
	default:
		s = fmt.Sprintf("%.2f", v)
	}
	return s + " " + unit
}

func group(digits string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// gateway measures the gateway's overhead per request at 100 and 1,000
// requests a second (GatewayOverhead), each rate on a fresh server.
func (r *runner) gateway() error {
	for _, rate := range []int{100, 1000} {
		err := r.withBus(fmt.Sprint("gateway-", rate), func(b *bus.Bus, _ string) error {
			res, err := GatewayOverhead(r.ctx, b, rate, r.cfg.Sizes.GatewaySeconds)
			if err != nil {
				return err
			}
			at := fmt.Sprintf("%d req/s", rate)
			if rate == 1000 {
				at = "1,000 req/s"
			}
			for _, p := range []float64{50, 99} {
				g, d := Percentile(res.Gateway, p), Percentile(res.Direct, p)
				note := fmt.Sprintf("adds %.2f ms; %d requests each way, open loop, a 6-event Chat stream read whole; every frame kept and model event published",
					float64(g-d)/float64(time.Millisecond), len(res.Gateway))
				if res.Failures > 0 {
					note += fmt.Sprintf("; %d failed", res.Failures)
				}
				r.add(Row{Section: "gateway", Measured: fmt.Sprintf("request p%.0f at %s", p, at), Value: micros(g),
					Baseline: fmt.Sprintf("the same requests straight to the upstream, p%.0f", p), BaseValue: micros(d),
					Unit: "µs", Better: "lower", Note: note,
					Work: Work{Does: "the gateway: key check, pool, upstream request, every frame kept sealed, model events published, the answer streamed back",
						Stored: "about 10 messages a request (frames and model events)", Acks: "each of those publishes' acks", Parsed: "each upstream frame (6 a request), the request body"},
					BaseWork: Work{Does: "the same HTTP request straight to the in-process upstream", Stored: "none", Acks: "none",
						Parsed: "the client reads the answer, decodes nothing", Fsync: FsyncNone}})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
