package executor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// Subjects the executor consumes.
const (
	// CallFilter matches every call event: ts.call.<tenant>.<tool>.
	CallFilter = events.EachCall
	// ApprovalFilter matches every approval decision:
	// ts.approval.<tenant>.<call>.
	ApprovalFilter = events.EachApproval
)

const (
	// setupTimeout bounds New's and Run's calls to JetStream.
	setupTimeout = 30 * time.Second
	// pullBatchMax bounds the messages one pull asks for (never more than
	// the free in-flight slots). A pull is one round trip to the log
	// behind the executor's own publishes and acks on its connection: at
	// 64 a burst of no-op calls waited for pulls more than it worked (313
	// pulls of 64 took 3.5s of a 3.6s run; 127 of up to 256 took 2.3s).
	pullBatchMax = 256
	// fetchWait is how long one pull waits for messages.
	fetchWait = 5 * time.Second
	// fetchWaitMin is the first pause after a failed pull; it doubles up to 1s.
	fetchWaitMin = 10 * time.Millisecond
)

// Executor carries out completed calls. Several executors, in one process or
// many, share the work as competing consumers; see the package doc.
type Executor struct {
	cfg    Config
	log    *slog.Logger
	owner  string // ExecutorID#nonce
	store  store
	obs    jetstream.ObjectStore
	stream jetstream.Stream // holds the CallCompleted inputs
	// results holds the result subjects, where outcomes decided in the log
	// are read back (logrecord.go); resultsDirect is the subject prefix of
	// its direct gets by subject, "" where they are not allowed.
	results       jetstream.Stream
	resultsDirect string
	resultsName   string // the result stream's name, where resultsDirect is set
	streamName    string // the input stream's name, where it answers direct gets on the default API
	// shown asks the log to store outcomes and approval requests: their
	// reply subjects are seen by the subscribers of theirs (ask.go).
	shown *asker

	limiter   *limiter
	held      *held           // each tenant's inputs held (fair.go)
	immediate map[string]bool // subject tokens of the Immediate Go tools (fair.go)
	breaker   *breaker
	cmds      *commandHost
	inflight  chan struct{} // completed calls held (InFlightMax)
	decisions chan struct{} // approval decisions held (InFlightMax/8, at least 1)
	wg        sync.WaitGroup
	handlers  *workers // the goroutines inputs are handled on (invokers.go)
	invokers  *workers // the goroutines tools run on

	// soft ends when Run's context ends: waits stop and inputs are handed
	// back. hard ends DrainTimeout later: running invocations stop.
	soft, hard         context.Context
	softStop, hardStop context.CancelFunc

	window window // decisions in the log sent together (window.go)

	active *activeSet // each call handled in this process

	running atomic.Bool
	stats   counters
}

type counters struct {
	invoked, succeeded, failed, duplicates, takeovers, dropped atomic.Uint64
}

// Stats are an executor's counters since New.
type Stats struct {
	Invoked    uint64 // invocations begun
	Succeeded  uint64 // CallSucceeded recorded by this executor
	Failed     uint64 // CallFailed recorded by this executor, and key conflicts it refused
	Duplicates uint64 // inputs acknowledged as duplicates of a known call
	Takeovers  uint64 // leases taken over from another executor
	Dropped    uint64 // invocations whose result was dropped: the lease was lost, or the executor stopped
}

// New checks the configuration and creates (or opens) the record bucket and
// the result object store. It returns ErrInvalidConfig for an unusable
// configuration. It is NewContext with a context that ends after 30s.
func New(cfg Config) (*Executor, error) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	return NewContext(ctx, cfg)
}

// NewContext is New bounded by ctx. A bucket or object store that does not
// exist yet is created; executors starting at the same moment may each try
// to, and one creation may go unanswered, so every request has a short
// timeout of its own and is tried again (after a lookup) until ctx ends.
func NewContext(ctx context.Context, cfg Config) (*Executor, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	nonce := make([]byte, 4)
	rand.Read(nonce)
	e := &Executor{
		cfg:       cfg,
		owner:     cfg.ExecutorID + "#" + hex.EncodeToString(nonce),
		limiter:   newLimiter(cfg.MaxParallelPerTenant),
		held:      newHeld(cfg.InFlightMax, cfg.MaxParallelPerTenant),
		immediate: immediateTokens(cfg.Tools),
		breaker:   newBreaker(cfg.BreakerFailures, cfg.BreakerCoolDown, cfg.Clock),
		cmds:      newCommandHost(&cfg),
		inflight:  make(chan struct{}, cfg.InFlightMax),
		decisions: make(chan struct{}, max(1, cfg.InFlightMax/8)),
		active:    newActiveSet(),
	}
	e.log = cfg.Logger.With("executor", e.owner)
	kv, err := openBucket(ctx, e.log, cfg.JS, jetstream.KeyValueConfig{
		Bucket: cfg.Bucket, Description: "Toolstream call records (leases, idempotency, outcomes)",
		History: 1, Storage: jetstream.FileStorage, Replicas: cfg.Replicas, TTL: cfg.RecordTTL,
	})
	if err != nil {
		return nil, fmt.Errorf("executor: bucket %s: %w", cfg.Bucket, err)
	}
	e.store = store{kv: kv, retry: recordRetry(cfg.Heartbeat), bound: cfg.LeaseTTL,
		nc: cfg.JS.Conn(), direct: directGetPrefix(cfg.JS, cfg.Bucket), timeout: cfg.JS.Options().DefaultTimeout}
	if e.store.timeout <= 0 {
		e.store.timeout = 5 * time.Second
	}
	// Two askers: the log shows the reply subjects of outcomes' publishes
	// to every subscriber of their subjects, never the bucket's (ask.go).
	e.store.ask, e.shown = newAsker(e.store.nc, e.store.timeout), newAsker(e.store.nc, e.store.timeout)
	e.store.stream, e.store.subjects = "KV_"+cfg.Bucket, "$KV."+cfg.Bucket+"."
	e.obs, err = openObjectStore(ctx, e.log, cfg.JS, jetstream.ObjectStoreConfig{
		Bucket: cfg.ObjectBucket, Description: "Toolstream raw tool results",
		Storage: jetstream.FileStorage, Replicas: cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("executor: object store %s: %w", cfg.ObjectBucket, err)
	}
	err = retry(ctx, defaultRetry(), func(ctx context.Context) (err error) {
		e.stream, err = cfg.JS.Stream(ctx, cfg.Stream)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("executor: stream %s: %w", cfg.Stream, err)
	}
	if e.results, err = resultStream(ctx, cfg.JS, e.stream); err != nil {
		return nil, err
	}
	if info := e.results.CachedInfo(); info.Config.AllowDirect && defaultAPI(cfg.JS) {
		e.resultsDirect = "$JS.API.DIRECT.GET." + info.Config.Name + "."
		e.resultsName = info.Config.Name
	}
	if info := e.stream.CachedInfo(); info.Config.AllowDirect && defaultAPI(cfg.JS) {
		e.streamName = info.Config.Name
	}
	e.soft, e.softStop = context.WithCancel(context.Background())
	e.hard, e.hardStop = context.WithCancel(context.Background())
	context.AfterFunc(e.hard, e.store.ask.close)
	context.AfterFunc(e.hard, e.shown.close)
	e.invokers = newWorkers(cfg.InFlightMax, e.hard.Done())
	e.handlers = newWorkers(cfg.InFlightMax+max(1, cfg.InFlightMax/8), e.hard.Done())
	return e, nil
}

// resultStream returns the stream that holds the result subjects: the
// input stream when it does.
func resultStream(ctx context.Context, js jetstream.JetStream, in jetstream.Stream) (jetstream.Stream, error) {
	probe, err := events.ResultSubject(events.SystemTenant, "k")
	if err != nil {
		return nil, err
	}
	var name string
	err = retry(ctx, defaultRetry(), func(ctx context.Context) (err error) {
		name, err = js.StreamNameBySubject(ctx, probe)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("executor: the stream of %s: %w", probe, err)
	}
	if name == in.CachedInfo().Config.Name {
		return in, nil
	}
	var s jetstream.Stream
	err = retry(ctx, defaultRetry(), func(ctx context.Context) (err error) {
		s, err = js.Stream(ctx, name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("executor: stream %s: %w", name, err)
	}
	return s, nil
}

// ID is the executor's owner name in leases: ExecutorID#nonce.
func (e *Executor) ID() string { return e.owner }

// Stats returns the executor's counters.
func (e *Executor) Stats() Stats {
	return Stats{
		Invoked: e.stats.invoked.Load(), Succeeded: e.stats.succeeded.Load(), Failed: e.stats.failed.Load(),
		Duplicates: e.stats.duplicates.Load(), Takeovers: e.stats.takeovers.Load(), Dropped: e.stats.dropped.Load(),
	}
}

// Run consumes completed calls and approval decisions until ctx ends, then
// stops taking new input, hands back inputs that are still waiting, lets
// running invocations finish for up to DrainTimeout and returns nil. It
// returns an error if the consumers cannot be set up. Run may be called
// once.
func (e *Executor) Run(ctx context.Context) error {
	if !e.running.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: Run called twice", ErrInvalidConfig)
	}
	defer e.hardStop()
	sctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	calls, err := e.consumer(sctx, e.cfg.Durable, CallFilter)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting
		}
		return err
	}
	approvals, err := e.consumer(sctx, e.cfg.ApprovalDurable, ApprovalFilter)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	stopCalls, err := e.consume(calls, e.inflight, func(m jetstream.Msg) { e.fairly(m, e.handleCallMsg) })
	if err != nil {
		return err
	}
	stopApprovals, err := e.consume(approvals, e.decisions, e.handleApprovalMsg)
	if err != nil {
		e.softStop()
		stopCalls()
		e.wg.Wait()
		return err
	}
	stopKeepalive := make(chan struct{})
	keptAlive := make(chan struct{})
	go func() { defer close(keptAlive); e.keepalive(stopKeepalive) }()
	defer func() { close(stopKeepalive); <-keptAlive }()
	e.log.Info("executor running", "durable", e.cfg.Durable)
	<-ctx.Done()
	// Stop taking input, hand back what waits, let invocations finish.
	e.softStop()
	stopCalls()
	stopApprovals()
	drained := make(chan struct{})
	go func() { e.wg.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(e.cfg.DrainTimeout):
		e.log.Warn("drain timeout: stopping running invocations")
		e.hardStop()
		<-drained
	}
	e.cmds.close()
	e.log.Info("executor stopped")
	return nil
}

// consumer binds a shared durable. A missing one is created when the
// executor's identity may (the admin: serve on one machine, tests); the
// executor's role may not, and gets ErrNoConsumer naming the command that
// makes it. An existing one is never changed: only the admin reconfigures
// it (an executor's credential once deleted ts-executor and every
// executor stopped: docs/security.md).
func (e *Executor) consumer(ctx context.Context, durable, filter string) (jetstream.Consumer, error) {
	c, err := e.cfg.JS.Consumer(ctx, e.cfg.Stream, durable)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		// A role's create is refused by the server and goes unanswered: a
		// short wait tells it, not the whole setup time.
		cctx, cancel := context.WithTimeout(ctx, createTimeout)
		cerr := createConsumer(cctx, e.cfg.JS, e.cfg.Stream, e.cfg.consumerConfig(durable, filter))
		cancel()
		if cerr != nil {
			return nil, fmt.Errorf("%w: %s on %s; run `toolstream setup` as the admin identity (serve on one machine makes it): %w",
				ErrNoConsumer, durable, e.cfg.Stream, cerr)
		}
		c, err = e.cfg.JS.Consumer(ctx, e.cfg.Stream, durable)
	}
	if err != nil {
		return nil, fmt.Errorf("executor: consumer %s: %w", durable, err)
	}
	return c, nil
}

// createTimeout bounds the wait for a missing durable's creation.
const createTimeout = 5 * time.Second

// consumerConfig is the shared durable of the messages on filter.
func (c *Config) consumerConfig(durable, filter string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:        durable,
		Description:    "Toolstream executors (competing consumers)",
		FilterSubjects: []string{filter},
		AckPolicy:      jetstream.AckExplicitPolicy,
		AckWait:        c.LeaseTTL,
		MaxDeliver:     -1,
		MaxAckPending:  4 * c.InFlightMax,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	}
}

func createConsumer(ctx context.Context, js jetstream.JetStream, stream string, cfg jetstream.ConsumerConfig) error {
	_, err := js.CreateConsumer(ctx, stream, cfg)
	if errors.Is(err, jetstream.ErrConsumerExists) {
		return nil
	}
	return err
}

// CreateConsumers creates the executors' shared durables (completed calls
// and approval decisions) as cfg's defaults make them, when they do not
// exist; existing ones are left as they are. It needs the admin identity:
// `toolstream setup` and serve on one machine run it before any executor.
func CreateConsumers(ctx context.Context, cfg Config) error {
	if cfg.JS == nil {
		return fmt.Errorf("%w: JS is required", ErrInvalidConfig)
	}
	if err := cfg.setDefaults(); err != nil {
		return err
	}
	for _, c := range []jetstream.ConsumerConfig{cfg.consumerConfig(cfg.Durable, CallFilter), cfg.consumerConfig(cfg.ApprovalDurable, ApprovalFilter)} {
		if _, err := cfg.JS.Consumer(ctx, cfg.Stream, c.Durable); errors.Is(err, jetstream.ErrConsumerNotFound) {
			err = createConsumer(ctx, cfg.JS, cfg.Stream, c)
			if err != nil {
				return fmt.Errorf("executor: create consumer %s: %w", c.Durable, err)
			}
		} else if err != nil {
			return fmt.Errorf("executor: consumer %s: %w", c.Durable, err)
		}
	}
	return nil
}

// consume pulls messages only for free in-flight slots, so the client
// never holds a message it cannot work on (nor lets one's AckWait run out
// in a buffer), and hands each to handle on one of the executor's handler
// workers (kept for its life, one per slot of both kinds: a message costs
// no new goroutine, nor the growth of a new goroutine's stack). Each pull
// is one Fetch with its own expiry: no long-lived pull state to drift. The
// returned func stops pulling; Run then waits for the handlers (e.wg).
func (e *Executor) consume(c jetstream.Consumer, slots chan struct{}, handle func(jetstream.Msg)) (func(), error) {
	ctx, cancel := context.WithCancel(e.soft)
	// A message is handed out only with a slot held, and a slot is freed
	// only when its message is handled, so at most cap(slots) are handled.
	work := func(m jetstream.Msg) {
		e.wg.Add(1)
		e.handlers.run(func() {
			defer e.wg.Done()
			handle(m)
			<-slots
		})
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		backoff := fetchWaitMin
		for {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			n := 1
		more:
			for n < pullBatchMax {
				select {
				case slots <- struct{}{}:
					n++
				default:
					break more
				}
			}
			fctx, fcancel := context.WithTimeout(ctx, fetchWait)
			batch, err := c.Fetch(n, jetstream.FetchContext(fctx))
			got := 0
			if err == nil {
				for m := range batch.Messages() {
					got++
					work(m)
				}
				err = batch.Error()
			}
			fcancel()
			for range n - got {
				<-slots
			}
			switch {
			case ctx.Err() != nil:
				return
			case err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded):
				if backoff >= time.Second {
					e.log.Warn("pulling input keeps failing", "err", err)
				} else {
					e.log.Debug("fetch", "err", err)
				}
				select { // the server or the consumer is unavailable: do not spin
				case <-ctx.Done():
					return
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, time.Second)
			default:
				backoff = fetchWaitMin
			}
		}
	}()
	return cancel, nil
}

// claimActive marks key as handled in this process, carried by m; false
// if it already is. Until releaseActive, keepalive marks m in progress.
func (e *Executor) claimActive(key string, m jetstream.Msg) bool {
	return e.active.claim(key, m, time.Now())
}

// keepalive marks the carrier of every call handled in this process in
// progress every Heartbeat until stop is closed, so none is redelivered
// while this executor works on it. One ticker serves every call; a call
// handled for less than half a Heartbeat at a tick is left for the next,
// so most calls cost nothing here, and a call is marked within 1.5 ×
// Heartbeat of its start and then every Heartbeat (AckWait is LeaseTTL, at
// least 3 × Heartbeat).
func (e *Executor) keepalive(stop <-chan struct{}) {
	t := time.NewTicker(e.cfg.Heartbeat)
	defer t.Stop()
	var keys []string
	var msgs []jetstream.Msg
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		keys, msgs = keys[:0], msgs[:0]
		young := time.Now().Add(-e.cfg.Heartbeat / 2)
		keys, msgs = e.active.older(young, keys, msgs)
		h := e.cfg.Hooks
		for i, m := range msgs {
			if h != nil && h.SkipHeartbeat != nil && h.SkipHeartbeat(keys[i]) {
				continue
			}
			m.InProgress()
		}
		clear(msgs) // hold no message past its call
	}
}

func (e *Executor) releaseActive(key string) {
	e.active.release(key)
}

// handleCallMsg handles one message of the call subjects.
func (e *Executor) handleCallMsg(m jetstream.Msg) {
	md, err := deliveryOf(m)
	if err != nil {
		e.log.Warn("call message without metadata", "subject", m.Subject(), "err", err)
		m.Term()
		return
	}
	ev, err := events.DecodeAtWith(m.Subject(), m.Data(), e.cfg.Keys)
	if err != nil {
		// Bad input (a forged envelope among it: tenant_mismatch): the event
		// stays in the log, nothing runs, the rest goes on.
		reason := events.ReasonOf(err)
		e.log.Warn("call event refused", "reason", reason, "subject", m.Subject(), "seq", md.seq, "err", err)
		m.TermWithReason(string(reason))
		return
	}
	switch body := ev.Body.(type) {
	case *events.CallCompleted:
		if body.ClientRuns {
			// Its client runs it (the gateway's passthrough): recorded
			// and assembled, never run here.
			e.recordSkipped(ev)
			m.Ack()
			return
		}
		j := e.newJob(m, md.seq, ev, body, false)
		j.optimistic = md.delivered == 1 && len(body.DependsOn) == 0 && len(body.After) == 0
		j.process()
	case *events.CallRejected, *events.CallIncomplete:
		e.recordSkipped(ev)
		m.Ack()
	default:
		m.Ack()
	}
}

// recordSkipped notes a call that will never run, so calls that depend on
// it fail instead of waiting. A record that exists already is left alone.
func (e *Executor) recordSkipped(ev *events.Event) {
	key := CallKey(ev)
	_, err := e.store.put(e.hard, ev.Tenant, &record{Key: key, State: stateSkipped, Response: ev.Response, Item: ev.Item}, 0)
	if err != nil && err != errConflict {
		e.log.Warn("cannot record a skipped call", "tenant", ev.Tenant, "key", key, "err", err)
	}
}
