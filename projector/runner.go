package projector

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/invariants"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/vmihailenco/msgpack/v5"
)

// Msg is one log entry handed to Apply.
type Msg struct {
	Seq     uint64      // stream sequence
	Subject string      // log subject
	Time    int64       // stream timestamp, Unix ns: deterministic on replay
	Header  nats.Header // may be nil
	Data    []byte

	keys events.Keyring // opens sealed bodies (the runner's)
	ev   *events.Event
	err  error
}

// Event decodes the message as an encoded event (once), opening a sealed
// body with the runner's keyring, and refuses one whose envelope's tenant
// is not its subject's (events.ErrTenantMismatch). Errors wrap
// events.ErrBadInput, except events.ErrErased for an event whose key was
// destroyed: the runner skips it (returning it from Apply is how a
// projection says so).
func (m *Msg) Event() (*events.Event, error) {
	if m.ev == nil && m.err == nil {
		m.ev, m.err = events.DecodeAtWith(m.Subject, m.Data, m.keys)
	}
	return m.ev, m.err
}

// Envelope is the message's event without its body (Body nil), for a
// projection that reads only ids, kind, tenant and time of some kinds: the
// body is neither opened nor decoded (events.EnvelopeWith), the tenant is
// checked against the subject as Event checks it, and an event whose key
// was destroyed returns events.ErrErased, as from Event. When Event has
// already decoded the message, that event is returned.
func (m *Msg) Envelope() (*events.Event, error) {
	if m.ev != nil || m.err != nil {
		return m.ev, m.err
	}
	ev, err := events.EnvelopeWith(m.Data, m.keys)
	if err != nil {
		return nil, err
	}
	if err := events.CheckSubject(m.Subject, ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// Projection turns log entries into a view. Apply must be deterministic: the
// same state and message give the same writes and emitted events. It returns
// an error wrapping events.ErrBadInput for input it refuses; its writes are
// then dropped and the message is recorded as rejected. A panic of Apply's
// is contained the same way (a *FaultError; fault.go); so a projection that
// keeps anything in memory between messages implements Resetter, which
// puts that memory back to the committed view.
type Projection interface {
	// Name is the projection's stable name (the consumer and directory name).
	Name() string
	// Subjects are the log subjects the projection reads.
	Subjects() []string
	// Apply applies one message.
	Apply(tx *Tx, m *Msg) error
}

// Rejecter is implemented by projections that emit a typed event for a
// message they (or the decoder) rejected. Reject runs in a fresh Tx whose
// writes and emits are kept.
type Rejecter interface {
	Reject(ctx context.Context, tx *Tx, m *Msg, reason error) error
}

// Flusher is implemented by projections that keep what a batch changes in
// memory and write it once, when the batch ends, instead of with every
// message (a state that every message changes). Flush runs after the last
// message of a batch that applied or rejected any, in a Tx of its own whose
// writes are committed with the batch; it emits nothing. An error stops
// the runner, as an Apply error that is not bad input does.
//
// The view must not depend on where batches end: what Flush writes is
// what writing after every message would have left.
type Flusher interface {
	Flush(ctx context.Context, tx *Tx) error
}

// Config configures a Runner.
type Config struct {
	// JS locates the log; Stream is the stream the projection reads, by
	// default the one that holds its Subjects (events.StreamOfAll: a
	// projection reads one stream).
	JS     jetstream.JetStream
	Stream string
	// MsgIDKey tags the message ids the relay publishes into the streams
	// a tenant may write and on the kinds several roles share a stream for
	// (events.OwnedMsgID), so that no other identity can claim them ahead; give the publishing identity's key
	// (bus.Bus.MsgIDKey), the same across restarts so a re-relay is
	// dropped as a duplicate. Nil publishes the ids as they are.
	MsgIDKey []byte
	// Dir is the projection's Pebble directory, on FS.
	Dir string
	// FS is the filesystem the view lives on; default the operating
	// system's (vfs.Default). Crash tests give a vfs.NewCrashableMem and
	// open its CrashClone: a machine that lost every write not fsynced.
	FS vfs.FS
	// Durable is the consumer name; default "ts-" + projection name. The
	// admin identity creates it (CreateConsumer); the runner only binds it.
	Durable string
	// BatchMax bounds the messages applied in one Pebble batch; default 512.
	BatchMax int
	// OutboxMax bounds unrelayed outbox rows: applying pauses above it;
	// default 100,000.
	OutboxMax int
	// Sync makes every batch commit fsync Pebble's WAL. Off by default: the
	// checkpoint, not the ack, decides where a restart resumes, so a commit
	// lost to power failure is re-applied from the log.
	Sync bool
	// Mode is how the log is read and what becomes of emitted events:
	// ModeLive (the default) relays them, ModeHold keeps them in the
	// outbox (tests), ModeReplay reads by direct gets and drops them.
	Mode Mode
	// UntilSeq stops the runner after the last message at or below it
	// (replay, tests); 0 runs until the context ends.
	UntilSeq uint64
	// PublishTimeout bounds one relay publish or batch commit; default 5 s.
	PublishTimeout time.Duration
	// Keys opens sealed event bodies and seals what the projection emits
	// (events.EncodeSealed); nil: events are read and written in the clear.
	Keys events.Keyring
	// Logger; nil discards.
	Logger *slog.Logger
	// Hooks for crash tests; nil in production.
	Hooks *Hooks
	// Progress, when set, is called with the new checkpoint after every
	// committed batch, on the runner's goroutine: it must return quickly.
	// A Replayer ignores it: its To takes a callback of its own.
	Progress func(checkpoint uint64)

	local bool // NewLocal: no bus
}

// Hooks let crash tests stop a process at exact points. Each runs on the
// runner's goroutine.
type Hooks struct {
	AfterCommit   func(lastSeq uint64) // after the Pebble commit, before the ack
	BeforePublish func(id string)      // before the relay publishes a row
	BeforeRepull  func()               // before a stalled pull is stopped to pull afresh
	// BeforeStallCheck runs before the check that compares the checkpoint
	// with the log (not before the first probe).
	BeforeStallCheck func()
}

func (c *Config) setDefaults(p Projection) error {
	if c.Stream == "" && !c.local {
		s, err := events.StreamOfAll(p.Subjects())
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalidConfig, p.Name(), err)
		}
		c.Stream = s
	}
	if c.Dir == "" || (!c.local && c.JS == nil) {
		return fmt.Errorf("%w: JS and Dir are required", ErrInvalidConfig)
	}
	if !c.Mode.valid() {
		return fmt.Errorf("%w: %v", ErrInvalidConfig, c.Mode)
	}
	if c.Durable == "" {
		c.Durable = "ts-" + p.Name()
	}
	if c.FS == nil {
		c.FS = vfs.Default
	}
	if c.BatchMax <= 0 {
		c.BatchMax = batchMaxDefault
	}
	if c.OutboxMax <= 0 {
		c.OutboxMax = 100_000
	}
	if c.PublishTimeout <= 0 {
		c.PublishTimeout = 5 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Runner runs one projection.
type Runner struct {
	cfg  Config
	p    Projection
	db   *pebble.DB
	log  *slog.Logger
	wo   *pebble.WriteOptions
	tx   Tx
	once sync.Once

	checkpoint  atomic.Uint64
	running     atomic.Bool
	backlog     atomic.Int64
	applied     atomic.Uint64
	readN       atomic.Uint64 // messages read past the checkpoint (Stats.Read)
	skipped     atomic.Uint64 // of them, not on the projection's subjects
	readRetries atomic.Uint64 // reads of the log tried again (Stats.ReadRetries)
	rejected    atomic.Uint64
	faults      atomic.Uint64              // of them, faults of the projection's (fault.go)
	lastFault   atomic.Pointer[FaultError] // the last of them
	relayed     atomic.Uint64
	delivered   atomic.Uint64 // the durable's highest delivery number that reached the handler (pullLost)
	filter      logread.Filter
	relayKick   chan struct{}
	outboxLow   []byte          // relay goroutine only: every outbox key below it is deleted
	atomic      map[string]bool // relay goroutine only: by stream written, whether it takes atomic batches (batchesTo)
	relayRoom   chan struct{}

	mu      sync.Mutex
	waiters []waiter
	closed  bool

	// faulted are the messages of the run being applied again after a
	// fault, by sequence: rejected with their fault, not applied (fault.go).
	faulted map[uint64]*faultedMsg

	// dbMu guards db against an erasure replacing it (erase.go): views
	// and the relay hold it shared, the erasure exclusively; the runner's
	// own goroutine applies without it (it is the one that erases).
	dbMu sync.RWMutex
}

type waiter struct {
	seq uint64
	ch  chan struct{}
}

// New opens the projection's Pebble directory. It returns ErrInvalidConfig
// for a missing stream, directory or JetStream context, an unknown Mode,
// and a directory a Replayer made outside ModeReplay.
func New(cfg Config, p Projection) (*Runner, error) {
	if err := cfg.setDefaults(p); err != nil {
		return nil, err
	}
	if !cfg.local {
		if err := recoverRebuild(cfg.FS, cfg.Dir); err != nil {
			return nil, fmt.Errorf("projector: recover %s: %w", cfg.Dir, err)
		}
	}
	db, err := openPebble(cfg.FS, cfg.Dir, cfg.Logger)
	if err != nil {
		return nil, err
	}
	r := &Runner{
		cfg: cfg, p: p, db: db,
		log:       cfg.Logger.With("projection", p.Name()),
		wo:        pebble.NoSync,
		relayKick: make(chan struct{}, 1),
		relayRoom: make(chan struct{}, 1),
	}
	if cfg.Sync {
		r.wo = pebble.Sync
	}
	r.tx.overlay = make(map[string]*[]byte)
	if cfg.Mode.keepsEmits() {
		// A replay drops what it emits, so it seals nothing: its identity
		// (the reader's, for toolstream replay) may open data keys, never
		// ask for one to seal with.
		r.tx.keys = cfg.Keys
	}
	r.filter = logread.NewFilter(p.Subjects())
	cp, _, err := getClone(db, keyCheckpoint)
	if err != nil {
		db.Close()
		return nil, err
	}
	if len(cp) == 8 {
		r.checkpoint.Store(binary.BigEndian.Uint64(cp))
	}
	if cfg.Mode != ModeReplay {
		// A replay dropped what it emitted: run live from its checkpoint,
		// it would never emit those events.
		if _, ok, err := getClone(db, keyReplay); err != nil || ok {
			db.Close()
			return nil, fmt.Errorf("%w: %s holds a replay, not a %v view (%v)", ErrInvalidConfig, cfg.Dir, cfg.Mode, err)
		}
	}
	if err := db.Set(keyProjection, []byte(p.Name()), pebble.NoSync); err != nil {
		db.Close()
		return nil, fmt.Errorf("projector: %w", err)
	}
	n, err := r.countOutbox()
	if err != nil {
		db.Close()
		return nil, err
	}
	r.backlog.Store(int64(n))
	return r, nil
}

// Stream is the stream of the log the runner reads.
func (r *Runner) Stream() string { return r.cfg.Stream }

// DB exposes the projection's database for read-only queries. Writing to it
// outside Apply breaks every invariant of this package.
func (r *Runner) DB() *pebble.DB { return r.db }

// Checkpoint is the last applied stream sequence.
func (r *Runner) Checkpoint() uint64 { return r.checkpoint.Load() }

// Running reports whether Run is consuming: true from the moment its
// consumer is set up until it returns (health checks).
func (r *Runner) Running() bool { return r.running.Load() }

// Stats are counters since New.
type Stats struct {
	Checkpoint, Applied, Rejected, Relayed uint64
	OutboxBacklog                          int64
	// Read counts the messages read past the checkpoint, Skipped those of
	// them on subjects the projection does not read (the stream holds
	// them): Read ÷ (Read − Skipped) is the projection's read amplification.
	Read, Skipped uint64
	// Faults counts the rejected messages the projection faulted on (a
	// panic of its own code: fault.go). Each is a bug to fix, not input
	// to refuse.
	Faults uint64
	// ReadRetries counts the direct-get reads of the log the stream did
	// not answer (a leader change, a server gone), tried again from the
	// checkpoint (readLog).
	ReadRetries uint64
}

// Stats returns the runner's counters.
func (r *Runner) Stats() Stats {
	return Stats{
		Checkpoint: r.checkpoint.Load(), Applied: r.applied.Load(), Rejected: r.rejected.Load(),
		Relayed: r.relayed.Load(), OutboxBacklog: r.backlog.Load(), Read: r.readN.Load(), Skipped: r.skipped.Load(),
		Faults: r.faults.Load(), ReadRetries: r.readRetries.Load(),
	}
}

// Close closes the Pebble database. Run must have returned.
func (r *Runner) Close() error {
	var err error
	r.once.Do(func() {
		r.mu.Lock()
		r.closed = true
		for _, w := range r.waiters {
			close(w.ch)
		}
		r.waiters = nil
		r.mu.Unlock()
		err = r.db.Close()
	})
	return err
}

// WaitFor blocks until the checkpoint reaches seq, the context ends or the
// runner closes.
func (r *Runner) WaitFor(ctx context.Context, seq uint64) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	if r.checkpoint.Load() >= seq {
		r.mu.Unlock()
		return nil
	}
	w := waiter{seq: seq, ch: make(chan struct{})}
	r.waiters = append(r.waiters, w)
	r.mu.Unlock()
	select {
	case <-w.ch:
		if r.checkpoint.Load() < seq {
			return ErrClosed
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitCurrent blocks until the view has applied every message of its
// subjects that the log held when it was called, the context ends or the
// runner closes. A reader that acts on what the view lacks reads after it:
// a restarted view resumes from its checkpoint, which may be behind what it
// showed before it stopped (its last commits never reached the disk), so
// a view read at once may miss what readers already saw. It costs one
// direct get per subject of the projection.
func (r *Runner) WaitCurrent(ctx context.Context) error {
	return r.waitLast(ctx, r.p.Subjects())
}

// WaitCurrentOf is WaitCurrent for one tenant's messages: each of the
// projection's subjects of every tenant (ts.<kind>.>) narrowed to the
// tenant's (ts.<kind>.<tenant>.>), others kept, so a view behind on one
// tenant's flood holds up no other tenant's wait. For a view whose rows of
// a tenant are made of its messages alone (invariant 7).
func (r *Runner) WaitCurrentOf(ctx context.Context, tenant string) error {
	if err := events.ValidTenant(tenant); err != nil {
		return err
	}
	subjects := slices.Clone(r.p.Subjects())
	for i, s := range subjects {
		rest, ours := strings.CutPrefix(s, events.SubjectPrefix+".")
		if kind, all := strings.CutSuffix(rest, ".>"); ours && all && kind != "" && !strings.ContainsAny(kind, ".*>") {
			subjects[i] = events.SubjectPrefix + "." + kind + "." + tenant + ".>"
		}
	}
	return r.waitLast(ctx, subjects)
}

// waitLast waits until the view applied the last message of subjects.
func (r *Runner) waitLast(ctx context.Context, subjects []string) error {
	last, err := logread.LastSeq(ctx, r.cfg.JS.Conn(), r.cfg.Stream, subjects)
	if err != nil {
		return fmt.Errorf("projector: where the log ends: %w", err)
	}
	if r.cfg.UntilSeq > 0 {
		last = min(last, r.cfg.UntilSeq)
	}
	return r.WaitFor(ctx, last)
}

// WaitRelayed blocks until the outbox is empty.
func (r *Runner) WaitRelayed(ctx context.Context) error {
	for r.backlog.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
	return nil
}

func (r *Runner) advance(seq uint64) {
	r.checkpoint.Store(seq)
	r.mu.Lock()
	keep := r.waiters[:0]
	for _, w := range r.waiters {
		if w.seq <= seq {
			close(w.ch)
		} else {
			keep = append(keep, w)
		}
	}
	r.waiters = keep
	r.mu.Unlock()
}

func seqKey(prefix []byte, seq uint64, n uint32) []byte {
	k := make([]byte, 0, len(prefix)+12)
	k = append(k, prefix...)
	k = binary.BigEndian.AppendUint64(k, seq)
	if n != ^uint32(0) {
		k = binary.BigEndian.AppendUint32(k, n)
	}
	return k
}

// Rejection is a message a projection refused, kept in the view.
type Rejection struct {
	Seq     uint64        `msgpack:"q" json:"seq"`
	Subject string        `msgpack:"s" json:"subject"`
	Code    events.Reason `msgpack:"c,omitempty" json:"code,omitempty"` // typed (events.ReasonOf)
	Reason  string        `msgpack:"r" json:"reason"`
}

// Rejections lists the rejected messages of the view, oldest first.
func (r *Runner) Rejections() ([]Rejection, error) {
	r.dbMu.RLock()
	defer r.dbMu.RUnlock()
	var out []Rejection
	it, err := r.db.NewIter(&pebble.IterOptions{LowerBound: prefixReject, UpperBound: prefixUpper(prefixReject)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		var rj Rejection
		if err := msgpack.Unmarshal(it.Value(), &rj); err != nil {
			return nil, fmt.Errorf("projector: rejection row: %w", err)
		}
		out = append(out, rj)
	}
	return out, it.Error()
}

// Run consumes and applies until ctx ends (nil error), UntilSeq is reached
// (nil error) or an infrastructure error occurs.
func (r *Runner) Run(ctx context.Context) error {
	if !r.cfg.Mode.consumes() {
		return r.read(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cur, err := r.consume(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while setting up: nothing was applied
		}
		return err
	}
	msgs := cur.msgs
	defer func() { cur.stop() }()
	r.running.Store(true)
	defer r.running.Store(false)

	relayErr := make(chan error, 1)
	if r.cfg.Mode.relays() {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); relayErr <- r.relay(ctx) }()
		defer func() { cancel(); wg.Wait() }() // Close must not race the relay
		r.kickRelay()
	}
	if r.cfg.UntilSeq > 0 && r.Checkpoint() >= r.cfg.UntilSeq {
		return nil
	}
	// A view behind what its durable had delivered (new on an old
	// durable, or its directory restored) reads that from the log first;
	// the rest the durable delivers. A log that does not answer yet is
	// asked again (catchUpRetrying), not the end of the runner.
	if err := r.catchUpRetrying(ctx, cur.handed); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	if r.cfg.UntilSeq > 0 && r.Checkpoint() >= r.cfg.UntilSeq {
		return nil
	}
	// restart pulls afresh from the bound durable (a pull consumer of
	// nats.go was seen to stop asking), binding it again if it went away,
	// with the log read to its end in between (repull); when the new pull
	// cannot be made the runner goes on reading the log by direct gets
	// and tries again at the next stall.
	restart := func(level slog.Level, why string) error {
		r.log.Log(ctx, level, why+"; pulling afresh", "checkpoint", r.Checkpoint())
		next, err := r.repull(ctx, cur)
		if errors.Is(err, errNoPull) {
			r.log.Warn("durable consumer unavailable; reading the log directly meanwhile", "durable", r.cfg.Durable, "err", err)
			return nil
		}
		if err != nil {
			return err
		}
		cur, msgs = next, next.msgs
		return nil
	}
	// A delivery lost at the tail of the log shows no gap (nothing comes
	// after it) and would wait for AckWait: an idle runner behind the log
	// reads what it lacks from the log and pulls afresh, backing off while
	// that changes nothing.
	stallWait := stallProbe
	stall := time.NewTimer(stallWait)
	defer stall.Stop()
	var stalledAt uint64
	// waited: the last check found a delivery on its way at checkpoint
	// waitedAt; if the next finds the checkpoint still there, it pulls
	// afresh whatever the durable says.
	var waited bool
	var waitedAt uint64
	var taken uint64        // the highest delivery number taken into a batch
	lastBatch := time.Now() // when the last batch was applied
	batch := make([]delivery, 0, r.cfg.BatchMax)
	for {
		batch = batch[:0]
		select {
		case <-ctx.Done():
			return nil
		case err := <-relayErr:
			return err
		case <-stall.C:
			idle := time.Since(lastBatch)
			if len(msgs) > 0 || idle < stallWait {
				// Deliveries came while a batch was applied: no stall.
				stall.Reset(stallWait - min(idle, stallWait) + time.Millisecond)
				continue
			}
			if stallWait < stallCheck {
				// The first look: is the pull lost? Else the old check
				// comes at stallCheck.
				if lost, err := r.pullLost(ctx); err != nil {
					r.log.Debug("stall probe", "err", err)
				} else if lost {
					if err := restart(slog.LevelInfo, "no pull request waiting while the consumer has messages"); err != nil && ctx.Err() == nil {
						return err
					}
				}
				// One probe per spell without deliveries: the next look
				// is the check, with its backoff.
				stallWait = stallCheck
				stall.Reset(stallWait - min(idle, stallWait) + time.Millisecond)
				continue
			}
			if h := r.cfg.Hooks; h != nil && h.BeforeStallCheck != nil {
				h.BeforeStallCheck()
			}
			deferred := waited && r.Checkpoint() == waitedAt
			waited = false
			switch v, err := r.checkStall(ctx, taken, deferred); {
			case err != nil:
				r.log.Debug("stall check", "err", err)
			case v == stallOnItsWay:
				// Looked at again at stallCheck, not after a backoff: a
				// real stall is still ended by the next check.
				waited, waitedAt = true, r.Checkpoint()
				stallWait = stallCheck
			case v == stallRepull:
				if r.Checkpoint() == stalledAt {
					stallWait = min(2*stallWait, stallCheckMax)
				}
				stalledAt = r.Checkpoint()
				if err := restart(slog.LevelWarn, "no deliveries while the log is ahead"); err != nil && ctx.Err() == nil {
					return err
				}
			default:
				stallWait = min(2*stallWait, stallCheckIdle) // caught up: ask less often
			}
			stall.Reset(stallWait)
			continue
		case m := <-msgs:
			batch = append(batch, m)
			waited = false
			stallWait = stallProbe
			stall.Reset(stallWait)
		}
	drain:
		for len(batch) < r.cfg.BatchMax {
			select {
			case m := <-msgs:
				batch = append(batch, m)
			default:
				break drain
			}
		}
		for r.cfg.Mode.relays() && r.backlog.Load() > int64(r.cfg.OutboxMax) {
			select {
			case <-ctx.Done():
				return nil
			case <-r.relayRoom:
			case <-time.After(50 * time.Millisecond):
			}
		}
		for _, d := range batch {
			if d.md != nil {
				taken = max(taken, d.md.Sequence.Consumer)
			}
		}
		done, err := r.applyBatch(ctx, batch)
		lastBatch = time.Now()
		if err != nil && ctx.Err() != nil {
			return nil // stopping: the checkpoint keeps the position
		}
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// batchMaxDefault is Config.BatchMax's default.
const batchMaxDefault = 512

// stallCheck is how long a runner waits without deliveries before it asks
// whether the log is ahead of its checkpoint; stallCheckMax bounds the wait
// while restarts change nothing (messages deleted at the tail). A pull
// consumer of nats.go 1.55 was seen here to stop asking for messages now
// and then while the log was ahead (no request waiting on the server, none
// of its own pending, every delivery acknowledged) under a steady publish:
// each such stall costs stallCheck, and a new consumer ends it. Time spent
// applying a batch is not idleness: the check counts from the end of the
// last batch. A runner that found itself caught up asks less and less
// often, up to every stallCheckIdle (each check is a stream info request).
//
// Before that, after stallProbe without deliveries, the runner asks its
// durable whether a pull of ours is waiting on the server
// (pullLost): the stalls seen in toolstream assemble were all of one
// kind, no pull request waiting on the server while the durable had
// messages to deliver, and under load (2 cores, three runs at once) one
// run in eight lost stallCheck to one. A probe that finds a pull waiting,
// or nothing to deliver, leaves it to the check at stallCheck as before.
const (
	stallProbe     = 50 * time.Millisecond
	stallCheck     = 250 * time.Millisecond
	stallCheckIdle = 2 * time.Second
	stallCheckMax  = time.Minute
)

// noteDelivered records the durable's delivery number of a message that
// reached the runner's handler (the highest seen).
func (r *Runner) noteDelivered(n uint64) {
	for {
		old := r.delivered.Load()
		if n <= old || r.delivered.CompareAndSwap(old, n) {
			return
		}
	}
}

// pullLost reports whether the runner's durable has messages to deliver,
// no pull request waiting on the server and nothing it delivered still on
// its way to the runner (every delivery the server counts has reached the
// handler): nothing more comes until a new pull. One consumer info
// request.
func (r *Runner) pullLost(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.PublishTimeout)
	defer cancel()
	c, err := r.cfg.JS.Consumer(ctx, r.cfg.Stream, r.cfg.Durable)
	if err != nil {
		return false, err
	}
	ci := c.CachedInfo()
	return ci.NumWaiting == 0 && ci.NumPending > 0 && r.delivered.Load() >= ci.Delivered.Consumer, nil
}

// behind reports whether the log holds messages after the checkpoint.
func (r *Runner) behind(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.PublishTimeout)
	defer cancel()
	s, err := r.cfg.JS.Stream(ctx, r.cfg.Stream)
	if err != nil {
		return false, err
	}
	last := s.CachedInfo().State.LastSeq
	if r.cfg.UntilSeq > 0 {
		last = min(last, r.cfg.UntilSeq)
	}
	return last > r.Checkpoint(), nil
}

// delivery is a message the durable delivered, with its metadata read
// once, when it reached the handler.
type delivery struct {
	jetstream.Msg
	md    *jetstream.MsgMetadata
	mdErr error
}

func deliveryOf(m jetstream.Msg) delivery {
	md, err := m.Metadata()
	return delivery{Msg: m, md: md, mdErr: err}
}

// pull is one Consume of the runner's durable: what it delivers comes on
// msgs until stop.
type pull struct {
	cc   jetstream.ConsumeContext
	msgs chan delivery
	// handed is the last stream sequence the durable had delivered or
	// had acknowledged when it was bound: it delivers what comes after
	// (what it handed to a process that stopped comes again only after
	// AckWait, and what was acknowledged never).
	handed uint64
	quit   chan struct{} // closed by drop: the handler hands nothing more over
	once   sync.Once
}

// drop has the pull's handler hand nothing more over.
func (p *pull) drop() { p.once.Do(func() { close(p.quit) }) }

// stop ends the pull; what it was delivered and had not handed over is
// dropped (the log still holds it).
func (p *pull) stop() {
	p.drop()
	p.cc.Stop()
}

// errNoPull is a new pull that could not be made (repull).
var errNoPull = errors.New("projector: no pull")

func (r *Runner) consume(ctx context.Context) (*pull, error) {
	cons, err := r.bind(ctx)
	if err != nil {
		return nil, err
	}
	ci := cons.CachedInfo()
	p := &pull{msgs: make(chan delivery, 2*r.cfg.BatchMax), quit: make(chan struct{}),
		handed: max(ci.Delivered.Stream, ci.AckFloor.Stream)}
	var dropped atomic.Bool // once one message is dropped, so is every later one: no gap is made
	p.cc, err = cons.Consume(func(m jetstream.Msg) {
		d := deliveryOf(m)
		if d.mdErr == nil {
			r.noteDelivered(d.md.Sequence.Consumer)
		}
		if dropped.Load() {
			return
		}
		select {
		case p.msgs <- d:
		case <-p.quit:
			dropped.Store(true)
		case <-ctx.Done():
			dropped.Store(true)
		}
	}, jetstream.PullMaxMessages(r.cfg.BatchMax), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		r.log.Debug("consume", "err", err)
	}))
	if err != nil {
		return nil, fmt.Errorf("projector: consume %s: %w", r.cfg.Durable, err)
	}
	return p, nil
}

// repull stops old and pulls afresh. The server counts what it delivered
// to old as delivered and does not deliver it again (not before AckWait),
// and until it has read old's unsubscription it may still deliver to a
// pull request of old's that waits there: all of that is dropped. So
// repull waits until old is closed and the server has read its
// unsubscription (a flush), and only then reads the log past the
// checkpoint by direct gets, before the new pull: nothing delivered to
// old is left unapplied, and what comes after goes to the new pull. (The
// log read before the stop, as restarts did, left every message
// delivered to old in between to the next stall check, 250 ms or more.)
// It returns errNoPull, with old stopped and the log read if it could
// be, when the new pull cannot be made, and any error applying what it
// read; a log it cannot reach (errLogUnreachable) is left to the new pull
// and the next stall check.
func (r *Runner) repull(ctx context.Context, old *pull) (*pull, error) {
	if h := r.cfg.Hooks; h != nil && h.BeforeRepull != nil {
		h.BeforeRepull()
	}
	old.stop()
	wctx, cancel := context.WithTimeout(ctx, r.cfg.PublishTimeout)
	defer cancel()
	select {
	case <-old.cc.Closed():
	case <-wctx.Done():
	}
	if err := r.cfg.JS.Conn().FlushWithContext(wctx); err != nil {
		r.log.Debug("repull: flush", "err", err)
	}
	if err := r.catchUp(ctx); err != nil {
		if !errors.Is(err, errLogUnreachable) {
			return nil, err
		}
		// A stall found while the stream has no leader (a node of the
		// cluster went away) is no reason to end the runner: the new
		// pull, or the next stall check, reads the log once it answers.
		r.log.Warn("repull: the log is unreachable; reading it at the next stall check", "err", err)
	}
	next, err := r.consume(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoPull, err)
	}
	return next, nil
}

// applyBatch applies, commits, then acks. done reports UntilSeq reached.
// Messages the durable does not deliver in order (delivered to a process
// that stopped, lost in flight, or acknowledged before this view existed)
// are read from the log by direct gets (fill) before those after them: the
// checkpoint, not the consumer, says what was applied.
func (r *Runner) applyBatch(ctx context.Context, batch []delivery) (done bool, err error) {
	msgs := make([]*Msg, 0, len(batch))
	var ack jetstream.Msg
	next := r.Checkpoint() + 1
	for _, jm := range batch {
		md := jm.md
		if jm.mdErr != nil {
			return false, fmt.Errorf("projector: metadata: %w", jm.mdErr)
		}
		seq := md.Sequence.Stream
		if upTo := seq - 1; seq > next {
			if r.cfg.UntilSeq > 0 {
				upTo = min(upTo, r.cfg.UntilSeq)
			}
			if upTo >= next {
				if err := r.applyMsgs(ctx, msgs); err != nil {
					return false, err
				}
				msgs = msgs[:0]
				if err := r.fill(ctx, max(next, r.Checkpoint()+1), upTo); err != nil {
					return false, err
				}
			}
		}
		next = max(next, seq+1)
		if r.cfg.UntilSeq > 0 && seq > r.cfg.UntilSeq {
			done = true
			break
		}
		ack = jm.Msg
		msgs = append(msgs, &Msg{Seq: seq, Subject: jm.Subject(), Time: md.Timestamp.UnixNano(), Header: jm.Headers(), Data: jm.Data()})
		if r.cfg.UntilSeq > 0 && seq >= r.cfg.UntilSeq {
			done = true
			break
		}
	}
	if err := r.applyMsgs(ctx, msgs); err != nil {
		return false, err
	}
	if ack != nil {
		if err := ack.Ack(); err != nil {
			r.log.Warn("ack failed; the checkpoint keeps the position", "err", err)
		}
	}
	return done, nil
}

// commitRun applies msgs and commits state, checkpoint and outbox in one
// Pebble batch. Messages at or below the checkpoint are skipped. A fault
// that left the projection's memory holding part of a message returns a
// *faultAt, nothing committed (applyRun).
func (r *Runner) commitRun(ctx context.Context, msgs []*Msg) error {
	b := r.db.NewIndexedBatch()
	defer b.Close()
	r.tx.begin(b)
	cp := r.Checkpoint()
	last := cp
	var applied, rejected, faults, rows, read, skipped uint64
	var fault *FaultError // the last of the run's
	for i, m := range msgs {
		seq := m.Seq
		if seq <= last {
			continue // redelivery of an applied message: a no-op
		}
		read++
		if !r.filter.Match(m.Subject) {
			skipped++
			last = seq // not ours: the checkpoint passes over it
			continue
		}
		r.tx.reset(m)
		m.keys = r.cfg.Keys
		var err error
		var fe *FaultError
		fm := r.faulted[seq]
		if fm != nil && fm.apply != nil {
			err = fm.apply // it faulted: rejected, not applied again (fault.go)
		} else if err, fe = r.applyContained(m); fe != nil {
			if f := r.refault(i, inApply, m, fe); f != nil {
				return f
			}
		}
		if errors.Is(err, events.ErrErased) {
			// Its key was destroyed: what it said is gone, and it changes
			// nothing (as in every replay after the erasure).
			r.tx.rollback()
			r.tx.emitted = r.tx.emitted[:0]
			last = seq
			continue
		}
		if err != nil && !errors.Is(err, events.ErrBadInput) {
			return fmt.Errorf("projector: %s apply seq %d: %w", r.p.Name(), seq, err)
		}
		if err != nil {
			rejected++
			faulted := errors.As(err, &fault)
			r.tx.rollback()
			var skip *FaultError // its Reject faulted: not run again
			if fm != nil {
				skip = fm.reject
			}
			fe, err := r.reject(ctx, b, m, err, skip)
			if err != nil {
				return err
			}
			if fe != nil {
				if f := r.refault(i, inReject, m, fe); f != nil {
					return f
				}
			}
			if fe != nil || skip != nil {
				faulted, fault = true, cmp.Or(fe, skip)
			}
			if faulted {
				faults++
			}
		} else {
			applied++
			if err := r.tx.flush(); err != nil {
				return err
			}
		}
		if !r.cfg.Mode.keepsEmits() {
			r.tx.emitted = r.tx.emitted[:0]
		}
		for i, row := range r.tx.emitted {
			v, err := msgpack.Marshal(&row)
			if err != nil {
				return fmt.Errorf("projector: outbox row: %w", err)
			}
			if err := b.Set(seqKey(prefixOutbox, seq, uint32(i)), v, nil); err != nil {
				return err
			}
			rows++
		}
		last = seq
	}
	if last == cp {
		return nil
	}
	if f, ok := r.p.(Flusher); ok && applied+rejected > 0 {
		r.tx.reset(r.tx.msg)
		err, fe := contain(func() error { return f.Flush(ctx, &r.tx) })
		if fe != nil {
			if f := r.refault(-1, inFlush, r.tx.msg, fe); f != nil {
				return f
			}
		}
		if err != nil {
			return fmt.Errorf("projector: %s flush at seq %d: %w", r.p.Name(), last, err)
		}
		if len(r.tx.emitted) > 0 {
			return fmt.Errorf("projector: %s flush at seq %d emitted %d events: a flush writes state only", r.p.Name(), last, len(r.tx.emitted))
		}
		if err := r.tx.flush(); err != nil {
			return err
		}
	}
	if err := r.tx.mergeAppends(); err != nil {
		return err
	}
	if invariants.Enabled {
		r.checkCheckpoint(cp, last)
	}
	if err := b.Set(keyCheckpoint, binary.BigEndian.AppendUint64(nil, last), nil); err != nil {
		return err
	}
	if err := b.Commit(r.wo); err != nil {
		return fmt.Errorf("projector: commit: %w", err)
	}
	r.backlog.Add(int64(rows))
	r.applied.Add(applied)
	r.readN.Add(read)
	r.skipped.Add(skipped)
	r.rejected.Add(rejected)
	if faults > 0 {
		r.faults.Add(faults)
		r.lastFault.Store(fault)
	}
	if h := r.cfg.Hooks; h != nil && h.AfterCommit != nil {
		h.AfterCommit(last)
	}
	r.tx.committed(r.cfg.Mode != ModeReplay, func(v any, stack []byte) {
		r.log.Error("projection fault after its batch committed (AfterCommit)", "to", last, "fault", v, "stack", string(stack))
	})
	r.advance(last)
	if r.cfg.Progress != nil {
		r.cfg.Progress(last)
	}
	if rows > 0 {
		r.kickRelay()
	}
	return nil
}

// reject records m as rejected and lets the projection emit its typed
// event. A panic of its Reject's is contained: what Reject wrote and
// emitted is dropped, the rejection row says so, and the fault comes back
// (refault decides whether the run must be applied again). skip is the
// fault of a Reject that faulted before, on the same message: it is not
// run again.
func (r *Runner) reject(ctx context.Context, b *pebble.Batch, m *Msg, reason error, skip *FaultError) (*FaultError, error) {
	r.log.Warn("rejected", "seq", m.Seq, "subject", m.Subject, "reason", reason)
	if fe := (*FaultError)(nil); errors.As(reason, &fe) && fe.Stack != nil {
		r.log.Error("projection fault contained", "seq", m.Seq, "subject", m.Subject, "fault", fe.Value, "stack", string(fe.Stack))
	}
	fault := skip
	r.tx.reset(m)
	if rj, ok := r.p.(Rejecter); ok && skip == nil {
		err, fe := contain(func() error { return rj.Reject(ctx, &r.tx, m, reason) })
		if fe != nil {
			r.log.Error("projection fault in Reject contained", "seq", m.Seq, "subject", m.Subject, "fault", fe.Value, "stack", string(fe.Stack))
			r.tx.rollback()
			r.tx.reset(m) // what it wrote and emitted goes
			fault = fe
		} else if err != nil {
			return nil, fmt.Errorf("projector: %s reject seq %d: %w", r.p.Name(), m.Seq, err)
		}
	}
	row := reason
	if fault != nil {
		row = fmt.Errorf("%w (and its Reject: %w)", reason, fault)
	}
	v, err := msgpack.Marshal(&Rejection{Seq: m.Seq, Subject: m.Subject, Code: events.ReasonOf(reason), Reason: row.Error()})
	if err != nil {
		return nil, err
	}
	if err := b.Set(seqKey(prefixReject, m.Seq, ^uint32(0)), v, nil); err != nil {
		return nil, err
	}
	if skip != nil {
		return nil, nil
	}
	return fault, r.tx.flush()
}

func (r *Runner) kickRelay() {
	select {
	case r.relayKick <- struct{}{}:
	default:
	}
}

// Rejection returns the rejection recorded for the message at seq, if any.
func (r *Runner) Rejection(seq uint64) (Rejection, bool, error) {
	r.dbMu.RLock()
	defer r.dbMu.RUnlock()
	v, ok, err := getClone(r.db, seqKey(prefixReject, seq, ^uint32(0)))
	if err != nil || !ok {
		return Rejection{}, false, err
	}
	var rj Rejection
	if err := msgpack.Unmarshal(v, &rj); err != nil {
		return Rejection{}, false, fmt.Errorf("projector: rejection row: %w", err)
	}
	return rj, true, nil
}
