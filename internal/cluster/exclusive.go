package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/projector"
)

// ExclusiveConfig configures an Exclusive.
type ExclusiveConfig struct {
	// Bus is the log.
	Bus *bus.Bus
	// Dir holds the views, Dir/<name>.
	Dir string
	// Projections to run, by name: a fresh instance each time a runner
	// starts (after taking a lease over, or after an error).
	Projections map[string]func() projector.Projection
	// Holder names this process in the leases; default host-pid-random.
	Holder string
	// LeaseTTL is how long a dead holder keeps a lease; default 10s. It is
	// the takeover time's bound when a holder dies without releasing.
	LeaseTTL time.Duration
	// Bucket is the key-value bucket of leases; default "ts_leases". Its
	// TTL is LeaseTTL: every process sharing it must use the same.
	Bucket string
	// Logger; nil discards.
	Logger *slog.Logger
}

const (
	leaseTTLDefault    = 10 * time.Second
	leaseBucketDefault = auth.LeasesBucket
)

// Exclusive runs projections so that across every process running the same
// set (the replicas of one service) each projection has exactly one active
// runner, and a waiting process takes over when the holder dies: one lease
// per projection name (projector.Lease). With the model subjects
// partitioned (bus.Config.Partitions), AssemblerPartitions gives each
// partition's assembler its own name, so N partitions spread over the
// processes and each has one active assembler.
//
// A process that takes a projection over resumes from its own view's
// checkpoint (its own directory, which a persistent volume keeps across
// restarts); a process that never ran it rebuilds it from the log. Both
// emit, for what the previous holder already handled, the events it emitted,
// with the same ids: the log drops them within its duplicate window and
// every consumer ignores them after it (invariants 4 and 5).
//
// Its methods are safe for concurrent use.
type Exclusive struct {
	cfg ExclusiveConfig
	log *slog.Logger

	mu   sync.Mutex // guards held
	held map[string]*projector.Runner
}

// NewExclusive checks cfg. It returns bus.ErrInvalidConfig without a bus,
// directory or projection.
func NewExclusive(cfg ExclusiveConfig) (*Exclusive, error) {
	if cfg.Bus == nil || cfg.Dir == "" || len(cfg.Projections) == 0 {
		return nil, fmt.Errorf("%w: exclusive runners need a bus, a directory and projections", bus.ErrInvalidConfig)
	}
	if cfg.Holder == "" {
		host, _ := os.Hostname()
		nonce := make([]byte, 3)
		rand.Read(nonce)
		cfg.Holder = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(nonce))
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = leaseTTLDefault
	}
	if cfg.Bucket == "" {
		cfg.Bucket = leaseBucketDefault
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Exclusive{cfg: cfg, log: cfg.Logger.With("holder", cfg.Holder), held: map[string]*projector.Runner{}}, nil
}

// AssemblerPartitions are the n partition assemblers, by name, for
// ExclusiveConfig.Projections. newAssembler returns a fresh assembler.
func AssemblerPartitions(n int, newAssembler func() *assembler.Assembler) map[string]func() projector.Projection {
	out := map[string]func() projector.Projection{}
	for p := 0; p < n; p++ {
		out[assembler.PartitionName(p)] = func() projector.Projection {
			return newAssembler().Partition(p, bus.PartitionFilter(p))
		}
	}
	return out
}

// Held lists the projections this process runs now, sorted.
func (x *Exclusive) Held() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	for name := range x.held {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Runner returns the runner of a projection this process holds.
func (x *Exclusive) Runner(name string) (*projector.Runner, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	r, ok := x.held[name]
	return r, ok
}

// Run competes for every projection's lease and runs those it holds until
// ctx ends, then releases them (a waiting process takes over at once) and
// returns nil. It returns an error if the lease bucket cannot be set up
// within the bus's setup time.
func (x *Exclusive) Run(ctx context.Context) error {
	kv, err := x.bucket(ctx)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	for name, factory := range x.cfg.Projections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.compete(ctx, kv, name, factory)
		}()
	}
	wg.Wait()
	return nil
}

// bucket creates or opens the lease bucket.
func (x *Exclusive) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	return leaseBucket(ctx, x.cfg.Bus, x.cfg.Bucket, x.cfg.LeaseTTL, x.log)
}

// SetupLeases creates the default lease bucket (ts_leases, the default
// LeaseTTL) if it does not exist: what `toolstream setup` does as the admin
// identity, since the roles that use the bucket may not create it.
func SetupLeases(ctx context.Context, b *bus.Bus, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	_, err := leaseBucket(ctx, b, leaseBucketDefault, leaseTTLDefault, log)
	return err
}

// leaseBucket creates or opens a lease bucket, retrying for up to a minute
// (a role that may not create it waits for the admin to). NB: nats-server
// answers none of several concurrent creations of one replicated bucket,
// so each attempt has a short deadline and the next one finds the bucket.
func leaseBucket(ctx context.Context, b *bus.Bus, bucket string, ttl time.Duration, log *slog.Logger) (jetstream.KeyValue, error) {
	cfg := projector.LeaseBucketConfig(bucket, ttl, b.Replicas())
	deadline := time.Now().Add(time.Minute)
	for {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		kv, err := b.JS.KeyValue(actx, cfg.Bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			kv, err = b.JS.CreateKeyValue(actx, cfg)
		}
		cancel()
		if err == nil {
			return kv, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return nil, fmt.Errorf("cluster: lease bucket %s: %w", cfg.Bucket, err)
		}
		log.Info("lease bucket not ready; retrying", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// compete holds name's lease whenever it can and runs the projection while
// it holds it.
func (x *Exclusive) compete(ctx context.Context, kv jetstream.KeyValue, name string, factory func() projector.Projection) {
	for ctx.Err() == nil {
		lease, err := projector.AcquireLease(ctx, kv, name, x.cfg.Holder, x.cfg.LeaseTTL)
		if err != nil {
			return // ctx ended
		}
		x.log.Info("lease acquired; running", "projection", name)
		err = x.runHeld(ctx, lease, name, factory)
		rctx, cancel := context.WithTimeout(context.Background(), x.cfg.LeaseTTL)
		if rerr := lease.Release(rctx); rerr != nil {
			x.log.Warn("lease not released; it expires by itself", "projection", name, "err", rerr)
		}
		cancel()
		if err != nil && ctx.Err() == nil {
			x.log.Warn("projection stopped; competing again", "projection", name, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second): // do not spin on a persistent error
			}
		}
	}
}

func (x *Exclusive) runHeld(ctx context.Context, lease *projector.Lease, name string, factory func() projector.Projection) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-lease.Lost():
			x.log.Warn("lease lost; stopping", "projection", name)
			cancel()
		case <-rctx.Done():
		}
	}()
	r, err := projector.New(projector.Config{JS: x.cfg.Bus.JS, Dir: filepath.Join(x.cfg.Dir, name), Logger: x.cfg.Logger, Keys: x.cfg.Bus.Keys, MsgIDKey: x.cfg.Bus.MsgIDKey()}, factory())
	if err != nil {
		return err
	}
	defer r.Close()
	x.mu.Lock()
	x.held[name] = r
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		delete(x.held, name)
		x.mu.Unlock()
	}()
	return r.Run(rctx)
}

// RunAssemblerPartitions runs the assemblers of the log's model partitions
// (b.Partitions(), set with bus.Config.Partitions) under leases, views in
// viewsDir/assembler-p<N>, until ctx ends: what `toolstream serve` runs
// instead of the one assembler when the log is partitioned. Every process
// of the assembler service calls it; each partition runs in exactly one of
// them. It returns bus.ErrInvalidConfig when the log is not partitioned.
func RunAssemblerPartitions(ctx context.Context, b *bus.Bus, viewsDir string, newAssembler func() *assembler.Assembler, log *slog.Logger) error {
	x, err := NewAssemblerPartitions(b, viewsDir, newAssembler, log)
	if err != nil {
		return err
	}
	return x.Run(ctx)
}

// NewAssemblerPartitions is RunAssemblerPartitions before it runs: the
// caller may ask the Exclusive which partitions it holds (Runner) while it
// runs, to serve their digests.
func NewAssemblerPartitions(b *bus.Bus, viewsDir string, newAssembler func() *assembler.Assembler, log *slog.Logger) (*Exclusive, error) {
	n := b.Partitions()
	if n == 0 {
		return nil, fmt.Errorf("%w: the log's model subjects are not partitioned", bus.ErrInvalidConfig)
	}
	return NewExclusive(ExclusiveConfig{Bus: b, Dir: viewsDir, Projections: AssemblerPartitions(n, newAssembler), Logger: log})
}

// Setup creates what the processors' roles may open but not create: the
// executors' record bucket and raw-result store, the data keys (package
// keys), the run leases (package runs), run mode's requests (package
// agent, for the driver role) and the lease bucket (the
// log's stream is created by bus.Open as b's identity). It is what
// `toolstream setup` runs as the admin identity, once per cluster; serve on
// one machine creates them by itself.
func Setup(ctx context.Context, b *bus.Bus, log *slog.Logger) error {
	if _, err := executor.NewContext(ctx, executor.Config{JS: b.JS, Replicas: b.Replicas(), Logger: log}); err != nil {
		return err
	}
	if _, err := keys.Open(ctx, keys.Config{JS: b.JS, Create: true, Replicas: b.Replicas(), Logger: log}); err != nil {
		return err
	}
	if _, err := runs.NewLeases(ctx, runs.LeaseConfig{JS: b.JS, Replicas: b.Replicas()}); err != nil {
		return err
	}
	if err := agent.CreateStore(ctx, b.JS, b.Replicas()); err != nil {
		return err
	}
	return SetupLeases(ctx, b, log)
}
