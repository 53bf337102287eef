package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/cluster"
	"github.com/toolstream/toolstream/internal/judging"

	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/telemetry"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/verifier"
)

// The components besides the projections.
const (
	Clock    = "clock"    // ticks written into the log (Config.Tick)
	Executor = "executor" // the executor, following the registry in force
	Keys     = "keys"     // the keys service, the one writer of the data keys (bus.StartKeys)
	All      = "all"      // every projection, the clock, the executor and the keys service
)

// ErrUnknownComponent is a component name that is neither a projection nor
// Clock, Executor, Keys or All.
var ErrUnknownComponent = errors.New("unknown component")

// Config is one stack over a bus: what serve's flags set.
type Config struct {
	// Bus is the log. The caller opens it and closes it after the stack
	// stopped.
	Bus *bus.Bus
	// ViewsDir holds the views, ViewsDir/<name> each (the partition
	// assemblers' too).
	ViewsDir string
	// Logger; nil discards.
	Logger *slog.Logger
	// Components to run: All, Clock, Executor, Keys or projection names
	// (Names); none is All.
	Components []string
	// Tick is the interval of the clock's ticks (0: none).
	Tick time.Duration
	// Projections configures the projections. Its Logger defaults to
	// Logger and its Preview to core NATS publishes on Bus; its Trust is
	// also what the executor, the console and the gateway's run mode
	// accept registry changes from.
	Projections Projections
	// ToolsFile, when set, is the tool registry file recorded into the log
	// signed by SigningKey, and followed: each change is recorded too.
	ToolsFile  string
	SigningKey *registry.SigningKey
	// Executor is the executor's base configuration (its Tools, Heartbeat…);
	// the stack sets its log, keys, registry, logger and replicas.
	Executor executor.Config
	// Embedder gives memory's recall its embeddings (nil: lexical).
	Embedder embed.Embedder
	// Matcher scores memory's records at each recall beside the
	// Embedder's vectors (memory.Service.Matcher).
	Matcher memory.Matcher
	// HitsEvery is how often memory's recall hits are recorded (0: every
	// ten seconds); they are recorded at shutdown too. HitBatch is
	// memory.Service.HitBatch.
	HitsEvery time.Duration
	HitBatch  int
	// DumpPageRows bounds a page of the view dumps (0: viewdump.PageRows).
	DumpPageRows int
	// MetricsAddr, when set, serves /metrics and /healthz.
	MetricsAddr string
	// Console, when its Addr is set, serves the web console.
	Console Console
	// Gateway, when its Addr is set, serves the HTTP gateway.
	Gateway Gateway
	// MCP, when its Addr is set, serves the MCP endpoint (with the keys of
	// Gateway.ConfigFile).
	MCP MCP
	// Judge, when its Judge is set, puts the claims the verifier leaves
	// undecided to that judge (package judging); the stack sets its log,
	// keys, view and logger. It needs the verifier in this process.
	Judge judging.Config
	// Tracing, when its Endpoint is set, exports OpenTelemetry spans over
	// OTLP/HTTP (serve --otlp-endpoint): the gateway's model requests and
	// the executor's attempts. Flushed when the stack stops.
	Tracing telemetry.Config
}

// TracingShutdownMax bounds the export of the last spans when a stack
// stops.
const TracingShutdownMax = 10 * time.Second

// Stack is a running stack. Its methods are safe for concurrent use.
type Stack struct {
	cfg        Config
	log        *slog.Logger
	node       *Node
	partitions *cluster.Exclusive // the partition assemblers this process may hold; nil on an unpartitioned log
	executor   *executor.Executor
	registry   *registry.Follower // the executor's
	consoleURL string
	telemetry  *telemetry.Telemetry // nil: not traced

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	errc    chan error
	mu      sync.Mutex
	closers []func() // what stops after the goroutines, before the projections
	stop    sync.Once
}

// Run starts the stack and runs it until ctx ends (nil) or a component
// fails (its error); either way everything it started is stopped.
func Run(ctx context.Context, cfg Config) error {
	s, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	return s.Wait()
}

// Start starts the components cfg names over cfg.Bus, in data-flow order,
// and the services over them. Wait or Stop must follow. On an error what
// was started is stopped.
func Start(ctx context.Context, cfg Config) (*Stack, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Projections.Logger == nil {
		cfg.Projections.Logger = cfg.Logger
	}
	if cfg.Projections.DeleteRaw == nil {
		cfg.Projections.DeleteRaw = DeleteRaw(cfg.Bus)
	}
	if cfg.Projections.Preview == nil {
		nc := cfg.Bus.Conn
		cfg.Projections.Preview = func(subject string, data []byte) { nc.Publish(subject, data) }
	}
	want, err := Components(cfg.Components)
	if err != nil {
		return nil, err
	}
	tel, err := telemetry.New(cfg.Tracing)
	if err != nil {
		return nil, err
	}
	s := &Stack{cfg: cfg, log: cfg.Logger, errc: make(chan error, len(want)+4), telemetry: tel}
	s.ctx, s.cancel = context.WithCancel(ctx)
	if err := s.start(want); err != nil {
		s.Stop()
		return nil, err
	}
	s.log.Info("serving", "url", cfg.Bus.ClientURL(), "views", cfg.ViewsDir, "projections", len(s.node.Runners()))
	return s, nil
}

// Components reads component names: the set they name, or
// ErrUnknownComponent.
func Components(names []string) (map[string]bool, error) {
	if len(names) == 0 {
		names = []string{All}
	}
	want := map[string]bool{}
	for _, c := range names {
		switch {
		case c == All:
			for _, n := range Names() {
				want[n] = true
			}
			want[Clock], want[Executor], want[Keys] = true, true, true
		case c == Clock || c == Executor || c == Keys || slices.Contains(Names(), c):
			want[c] = true
		default:
			return nil, fmt.Errorf("%w %q", ErrUnknownComponent, c)
		}
	}
	return want, nil
}

func (s *Stack) start(want map[string]bool) error {
	cfg, b, ctx, log := s.cfg, s.cfg.Bus, s.ctx, s.log
	if want[Keys] || b.Embedded() {
		// First: the projections ask it for the keys they seal with. An
		// embedded server's stack always serves it: no other process can.
		svc, nc, err := b.StartKeys(ctx, log)
		if err != nil {
			return err
		}
		s.onStop(func() {
			svc.Stop()
			if nc != nil {
				nc.Close()
			}
		})
	}
	if b.Embedded() && b.Auth() != nil {
		if err := s.guardConnections(); err != nil {
			return err
		}
	}
	if cfg.ToolsFile != "" {
		if err := FollowTools(s.ctx, b, log, cfg.ToolsFile, cfg.SigningKey, cfg.Projections.Trust); err != nil {
			return err
		}
	}
	s.node = NewNode(b, cfg.ViewsDir, log)
	for _, name := range Names() {
		if !want[name] {
			continue
		}
		if n := b.Partitions(); name == assembler.Name && n > 0 {
			// A partitioned log: the partitions' assemblers, each active in
			// exactly one process of the assembler service (a lease each).
			log.Info("assembler partitions", "partitions", n)
			x, err := cluster.NewAssemblerPartitions(b, cfg.ViewsDir, cfg.Projections.Assembler, log)
			if err != nil {
				return err
			}
			s.partitions = x
			s.goRun("assembler partitions", x.Run)
			continue
		}
		p, err := New(cfg.Projections, name)
		if err != nil {
			return err
		}
		if _, err := s.node.Start(ctx, p, nil); err != nil {
			return err
		}
	}
	if want[Executor] {
		follower, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: cfg.Projections.Trust, Logger: log})
		if err != nil {
			return err
		}
		s.onStop(follower.Stop)
		s.registry = follower
		ec := cfg.Executor
		ec.JS, ec.Keys, ec.Registry, ec.Logger, ec.Replicas = b.JS, b.Keys, follower.Current, log, b.Replicas()
		ec.MsgIDKey = b.MsgIDKey()
		ec.Telemetry = s.telemetry
		if s.executor, err = executor.New(ec); err != nil {
			return err
		}
		s.goRun("executor", s.executor.Run)
	}
	if cfg.Judge.Judge != nil {
		if err := s.startJudge(); err != nil {
			return err
		}
	}
	if want[Clock] {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); runClock(ctx, b, log, cfg.Tick) }()
	}
	if b.Embedded() && b.TenantStreams() {
		// A tenant stream keeps what the shared streams have not copied;
		// the embedded server's bus is the admin, which purges what they
		// have (bus.TrimTenants).
		s.wg.Add(1)
		go func() { defer s.wg.Done(); b.RunTenantTrim(ctx, 0) }()
	}
	return s.services()
}

// startJudge runs the judge worker over the verifier's view.
func (s *Stack) startJudge() error {
	r, ok := s.node.Runner(verifier.Name)
	if !ok {
		return ErrJudgeWithoutVerifier
	}
	jc := s.cfg.Judge
	jc.JS, jc.Keys, jc.MsgIDKey, jc.View, jc.Logger = s.cfg.Bus.JS, s.cfg.Bus.Keys, s.cfg.Bus.MsgIDKey(), r.View, s.log
	w, err := judging.New(jc)
	if err != nil {
		return err
	}
	s.goRun("judge", w.Run)
	return nil
}

// services starts what reads the views: their digests and dumps, the
// metrics, the console, memory's and runs' services, the gateway.
func (s *Stack) services() error {
	cfg, b, log := s.cfg, s.cfg.Bus, s.log
	runners := s.node.Runners()
	var svc micro.Service
	// No view here (the executor alone, the keys service alone): the views'
	// service would answer for none, and the keys role may not answer it.
	if len(runners) > 0 || s.partitions != nil {
		var err error
		if svc, err = micro.AddService(b.Conn, micro.Config{Name: "toolstream", Version: "0.1.0", Description: "Toolstream views"}); err != nil {
			return fmt.Errorf("service: %w", err)
		}
		s.onStop(func() { svc.Stop() })
		// Each view on its own subjects, so a role's credential answers
		// only the views that role runs (auth, viewapi).
		var views viewdump.Views
		for name := range runners {
			views.Names = append(views.Names, name)
		}
		slices.Sort(views.Names)
		if s.partitions != nil {
			views.Partitioned = []string{assembler.Name}
		}
		dumps, err := viewdump.AddEndpoints(svc, s.Runner, views, cfg.DumpPageRows)
		if err != nil {
			return fmt.Errorf("service: %w", err)
		}
		s.onStop(dumps.Close) // before the runners close
	}
	metricsAddr := cfg.MetricsAddr
	var err error
	if metricsAddr, err = s.startConsole(runners, metricsAddr); err != nil {
		return err
	}
	s.serveMetrics(metricsAddr, runners)
	if r, ok := runners[memory.Name]; ok {
		ms := memoryService(b, r, cfg.Projections.Memory)
		ms.Embedder, ms.Matcher, ms.HitBatch = cfg.Embedder, cfg.Matcher, cfg.HitBatch
		ms.Trace = memoryTrace(s.telemetry)
		if err := ms.AddTo(svc); err != nil {
			return err
		}
		every := cfg.HitsEvery
		if every <= 0 {
			every = 10 * time.Second
		}
		s.wg.Add(1)
		go func() { // recall hits: recorded every so often, and at shutdown
			defer s.wg.Done()
			if err := ms.RunHits(s.ctx, every); err != nil {
				log.Warn("memory: recall hits not recorded", "err", err)
			}
		}()
	}
	if r, ok := runners[runs.Name]; ok {
		if err := addRunsService(s.ctx, b, r, svc); err != nil {
			return err
		}
	}
	if err := s.startGateway(); err != nil {
		return err
	}
	return s.startMCP()
}

// goRun runs f in the background until the stack stops; its error stops
// the stack.
func (s *Stack) goRun(what string, f func(context.Context) error) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := f(s.ctx); err != nil {
			s.fail(fmt.Errorf("%s: %w", what, err))
		}
	}()
}

// fail reports a component's error, unless the stack is stopping.
func (s *Stack) fail(err error) {
	select {
	case s.errc <- err:
	case <-s.ctx.Done():
	}
}

func (s *Stack) onStop(f func()) {
	s.mu.Lock()
	s.closers = append(s.closers, f)
	s.mu.Unlock()
}

// Wait runs the stack until its context ends (nil) or a component fails
// (its error), then stops it.
func (s *Stack) Wait() error {
	var err error
	select {
	case <-s.ctx.Done():
	case err = <-s.errc:
	case err = <-s.node.Errors():
	}
	s.Stop()
	s.log.Info("stopped")
	return err
}

// Stop stops everything the stack started, once: the background
// components, then the services, then the projections (each lets its
// in-flight batch commit). It leaves the bus open.
func (s *Stack) Stop() {
	s.stop.Do(func() {
		s.cancel()
		s.wg.Wait()
		s.mu.Lock()
		closers := s.closers
		s.closers = nil
		s.mu.Unlock()
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		if s.node != nil {
			if err := s.node.Stop(); err != nil {
				s.log.Warn("projections closed with an error", "err", err)
			}
		}
		// Last: every span ended by now goes out.
		ctx, cancel := context.WithTimeout(context.Background(), TracingShutdownMax)
		defer cancel()
		if err := s.telemetry.Shutdown(ctx); err != nil {
			s.log.Warn("tracing: the last spans were not exported", "err", err)
		}
	})
}

// Runner returns the runner of a projection this process runs now: one of
// the node's, or a partition assembler it holds at the moment.
func (s *Stack) Runner(name string) (*projector.Runner, bool) {
	if r, ok := s.node.Runner(name); ok {
		return r, true
	}
	if s.partitions != nil {
		return s.partitions.Runner(name)
	}
	return nil, false
}

// Node is the node running the projections (not the partition assemblers).
func (s *Stack) Node() *Node { return s.node }

// Executor is the stack's executor, nil when it runs none.
func (s *Stack) Executor() *executor.Executor { return s.executor }

// Registry follows the registry in force for the executor, nil when the
// stack runs none: Wait on it before a call must find its tool.
func (s *Stack) Registry() *registry.Follower { return s.registry }

// ConsoleURL is the console's address, "" when it serves none.
func (s *Stack) ConsoleURL() string { return s.consoleURL }

// FollowTools records the tools file at path, signed by key, as the
// registry in force (an event in the log) and keeps following the file
// until ctx ends: each change is recorded too, and so is the file again
// whenever the registry in force in the log differs (a forged or replayed
// change, a change that aged out); every assembler and executor picks it
// up from the log without a restart.
func FollowTools(ctx context.Context, b *bus.Bus, log *slog.Logger, path string, key *registry.SigningKey, trust *registry.Trust) error {
	w, err := registry.NewWatcher(registry.WatcherConfig{Path: path, Logger: log, JS: b.JS, Key: key, Trust: trust, MsgIDKey: b.MsgIDKey()})
	if err != nil {
		return err
	}
	if _, err := w.Record(ctx); err != nil {
		return err
	}
	go func() {
		if err := w.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("tools file watcher stopped", "err", err)
		}
	}()
	return nil
}

// runClock writes a Tick into the log every interval, so deadlines (idle
// calls, TTLs) are decided by event time and replay identically. Tick ids are
// the interval's start, so two servers' ticks deduplicate.
func runClock(ctx context.Context, b *bus.Bus, log *slog.Logger, every time.Duration) {
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			at := now.Truncate(every).UnixNano()
			for _, subj := range events.ClockSubjects { // one tick in each stream that decides by time
				_, err := b.Publish(ctx, subj, &events.Event{ID: events.TickID(at), Tenant: events.SystemTenant, At: at, Body: &events.Tick{}})
				if err != nil && !errors.Is(err, context.Canceled) {
					log.Warn("tick not published", "subject", subj, "err", err)
				}
			}
		}
	}
}

// memoryService is the memory service over the runner of the memory
// projection: writes are sealed under their data keys (memory.SealScope).
func memoryService(b *bus.Bus, r *projector.Runner, cfg memory.Config) *memory.Service {
	return &memory.Service{Engine: memory.NewEngine(cfg, nil), Runner: r,
		Publish: func(ctx context.Context, subj string, ev *events.Event, scope string) (uint64, error) {
			ack, err := b.PublishSealed(ctx, subj, ev, scope)
			if err != nil {
				return 0, err
			}
			return ack.Sequence, nil
		}}
}

// addRunsService serves tsv.runs.* over the runner of the runs projection:
// writes are sealed under the event's user's key; leases live in the
// bucket ts_runs.
func addRunsService(ctx context.Context, b *bus.Bus, r *projector.Runner, svc micro.Service) error {
	leases, err := runs.NewLeases(ctx, runs.LeaseConfig{JS: b.JS, Replicas: b.Replicas()})
	if err != nil {
		return err
	}
	s := &runs.Service{Runner: r, Leases: leases, Publish: func(ctx context.Context, subj string, ev *events.Event) (uint64, error) {
		ack, err := b.PublishSealed(ctx, subj, ev, "")
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}}
	return s.AddTo(svc)
}
