package runs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events/runsapi"
)

// LeasesBucket is the key-value bucket of run leases.
const LeasesBucket = "ts_runs"

// LeaseConfig configures Leases.
type LeaseConfig struct {
	// JS opens (or creates) the bucket; KV, when set, is used instead.
	JS jetstream.JetStream
	KV jetstream.KeyValue
	// Heartbeat is how often a held lease is renewed; default 5s.
	Heartbeat time.Duration
	// TTL is how long a lease lasts unrenewed: 3 to 5 × Heartbeat;
	// default 4 × Heartbeat.
	TTL time.Duration
	// Replicas of the bucket when it is created; default 1.
	Replicas int
	// Clock; default time.Now. Expiry is compared across drivers, so their
	// clocks must agree to well within a Heartbeat.
	Clock func() time.Time
}

// Leases hands out leases on runs: which driver may start a run's next
// round. A lease is a record per run in the bucket, changed only by
// compare-and-set on its revision: of two drivers that ask at once one
// gets it, and a driver whose renewal fails has lost it.
type Leases struct {
	kv  jetstream.KeyValue
	cfg LeaseConfig
}

// NewLeases opens the lease bucket, creating it when it is missing.
// ErrInvalidConfig for a TTL outside 3 to 5 heartbeats.
func NewLeases(ctx context.Context, cfg LeaseConfig) (*Leases, error) {
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 5 * time.Second
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 4 * cfg.Heartbeat
	}
	if cfg.TTL < 3*cfg.Heartbeat || cfg.TTL > 5*cfg.Heartbeat {
		return nil, fmt.Errorf("%w: lease TTL %v must be 3 to 5 heartbeats of %v", ErrInvalidConfig, cfg.TTL, cfg.Heartbeat)
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Replicas <= 0 {
		cfg.Replicas = 1
	}
	kv := cfg.KV
	if kv == nil {
		if cfg.JS == nil {
			return nil, fmt.Errorf("%w: JS or KV is required", ErrInvalidConfig)
		}
		var err error
		kv, err = cfg.JS.KeyValue(ctx, LeasesBucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			kv, err = cfg.JS.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: LeasesBucket, Description: "Toolstream run leases", History: 1, Replicas: cfg.Replicas})
		}
		if err != nil {
			return nil, fmt.Errorf("runs: lease bucket: %w", err)
		}
	}
	return &Leases{kv: kv, cfg: cfg}, nil
}

// Lease is one driver's hold on a run (package runsapi).
type Lease = runsapi.Lease

// record is the bucket's value.
type record struct {
	Driver  string `json:"driver"`
	Epoch   uint64 `json:"epoch"`
	Expires int64  `json:"expires"` // Unix ns
}

// leaseKey is the run's key in the bucket: the tenant, then the run id in
// base64url (a key allows few characters).
func leaseKey(tenant, run string) (string, error) {
	if err := validTenant(tenant); err != nil {
		return "", err
	}
	if run == "" {
		return "", fmt.Errorf("%w: no run", ErrInvalidRequest)
	}
	return tenant + "." + base64.RawURLEncoding.EncodeToString([]byte(run)), nil
}

// HeldError says who holds a lease a driver asked for.
type HeldError struct {
	Driver  string
	Expires time.Time
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%v: %s until %s", ErrLeaseHeld, e.Driver, e.Expires.UTC().Format(time.RFC3339Nano))
}

// Unwrap makes errors.Is(err, ErrLeaseHeld) hold.
func (e *HeldError) Unwrap() error { return ErrLeaseHeld }

// Acquire takes the lease on a run for driver: when nobody holds it, its
// holder's lease expired, or driver holds it already (a restarted driver
// of the same name takes it back). Errors: a *HeldError (ErrLeaseHeld),
// projector.ErrNoTenant, ErrInvalidRequest.
func (l *Leases) Acquire(ctx context.Context, tenant, run, driver string) (*Lease, error) {
	if driver == "" {
		return nil, fmt.Errorf("%w: no driver", ErrInvalidRequest)
	}
	key, err := leaseKey(tenant, run)
	if err != nil {
		return nil, err
	}
	now := l.cfg.Clock()
	next := record{Driver: driver, Epoch: 1, Expires: now.Add(l.cfg.TTL).UnixNano()}
	e, err := l.kv.Get(ctx, key)
	var rev uint64
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		b, _ := json.Marshal(next)
		rev, err = l.kv.Create(ctx, key, b)
		if errors.Is(err, jetstream.ErrKeyExists) {
			return nil, l.held(ctx, key)
		}
	case err != nil:
		return nil, fmt.Errorf("runs: lease %s: %w", key, err)
	default:
		var cur record
		if err := json.Unmarshal(e.Value(), &cur); err != nil {
			return nil, fmt.Errorf("runs: lease %s: corrupt record: %w", key, err)
		}
		if cur.Driver != driver && now.UnixNano() < cur.Expires {
			return nil, &HeldError{Driver: cur.Driver, Expires: time.Unix(0, cur.Expires)}
		}
		next.Epoch = cur.Epoch + 1
		b, _ := json.Marshal(next)
		rev, err = l.kv.Update(ctx, key, b, e.Revision())
		if isConflict(err) {
			return nil, l.held(ctx, key)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("runs: lease %s: %w", key, err)
	}
	return &Lease{Tenant: tenant, Run: run, Driver: driver, Epoch: next.Epoch, Expires: time.Unix(0, next.Expires), Revision: rev}, nil
}

// held reads who won a race for a lease.
func (l *Leases) held(ctx context.Context, key string) error {
	e, err := l.kv.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrLeaseHeld, err)
	}
	var cur record
	if json.Unmarshal(e.Value(), &cur) != nil {
		return ErrLeaseHeld
	}
	return &HeldError{Driver: cur.Driver, Expires: time.Unix(0, cur.Expires)}
}

func isConflict(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) ||
		errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// Holds reports whether driver holds the run's lease at epoch now:
// ErrLeaseLost when another driver holds it, it expired or was released,
// or nobody took it. What only the run's driver may write (its end) is
// written under this check.
func (l *Leases) Holds(ctx context.Context, tenant, run, driver string, epoch uint64) error {
	key, err := leaseKey(tenant, run)
	if err != nil {
		return err
	}
	e, err := l.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("%w: %s/%s has no lease", ErrLeaseLost, tenant, run)
	}
	if err != nil {
		return fmt.Errorf("runs: read lease: %w", err)
	}
	var cur record
	if err := json.Unmarshal(e.Value(), &cur); err != nil {
		return fmt.Errorf("runs: lease %s: %w", key, err)
	}
	if driver == "" || cur.Driver != driver || cur.Epoch != epoch || !l.cfg.Clock().Before(time.Unix(0, cur.Expires)) {
		return fmt.Errorf("%w: %s/%s is not held by %q at epoch %d", ErrLeaseLost, tenant, run, driver, epoch)
	}
	return nil
}

// Renew extends a lease by the TTL, by compare-and-set on the revision it
// holds, and updates it. ErrLeaseLost when the lease expired before the
// renewal or another driver changed the record (took it over): the driver
// must start no new round.
func (l *Leases) Renew(ctx context.Context, ls *Lease) error {
	key, err := leaseKey(ls.Tenant, ls.Run)
	if err != nil {
		return err
	}
	now := l.cfg.Clock()
	if !now.Before(ls.Expires) {
		return fmt.Errorf("%w: expired at %s", ErrLeaseLost, ls.Expires.UTC().Format(time.RFC3339Nano))
	}
	next := record{Driver: ls.Driver, Epoch: ls.Epoch, Expires: now.Add(l.cfg.TTL).UnixNano()}
	b, _ := json.Marshal(next)
	rev, err := l.kv.Update(ctx, key, b, ls.Revision)
	if isConflict(err) || errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("%w: %s/%s was changed by another driver", ErrLeaseLost, ls.Tenant, ls.Run)
	}
	if err != nil {
		return fmt.Errorf("runs: renew lease: %w", err)
	}
	ls.Revision, ls.Expires = rev, time.Unix(0, next.Expires)
	return nil
}

// Release gives a lease up (it expires now), if it is still held.
// ErrLeaseLost when it was not.
func (l *Leases) Release(ctx context.Context, ls *Lease) error {
	key, err := leaseKey(ls.Tenant, ls.Run)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(record{Driver: ls.Driver, Epoch: ls.Epoch, Expires: 0})
	if _, err := l.kv.Update(ctx, key, b, ls.Revision); err != nil {
		if isConflict(err) {
			return fmt.Errorf("%w: %s/%s", ErrLeaseLost, ls.Tenant, ls.Run)
		}
		return fmt.Errorf("runs: release lease: %w", err)
	}
	return nil
}

// Held is a lease kept alive by a heartbeat.
type Held struct {
	l      *Leases
	mu     sync.Mutex
	lease  Lease // guarded by mu
	lost   chan struct{}
	once   sync.Once
	cancel context.CancelFunc
	done   chan struct{}
}

// Hold acquires a run's lease and renews it every Heartbeat until Release
// or the lease is lost (a renewal says ErrLeaseLost: it expired, or another
// driver changed it); then Lost is closed and Valid is false at once. A
// renewal that fails otherwise (a timeout) is tried again at the next beat.
// Errors as Acquire.
func (l *Leases) Hold(ctx context.Context, tenant, run, driver string) (*Held, error) {
	ls, err := l.Acquire(ctx, tenant, run, driver)
	if err != nil {
		return nil, err
	}
	hctx, cancel := context.WithCancel(context.Background())
	h := &Held{l: l, lease: *ls, lost: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go h.beat(hctx)
	return h, nil
}

func (h *Held) beat(ctx context.Context) {
	defer close(h.done)
	t := time.NewTicker(h.l.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		h.mu.Lock()
		ls := h.lease
		h.mu.Unlock()
		rctx, cancel := context.WithTimeout(ctx, h.l.cfg.Heartbeat)
		err := h.l.Renew(rctx, &ls)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, ErrLeaseLost) {
			h.markLost()
			return
		}
		if err != nil {
			// A renewal that did not reach the bucket in time (a slow or
			// restarting server) lost nothing yet: the lease holds until it
			// expires, and the next beat tries again. Renew says
			// ErrLeaseLost once it expired or another driver changed it.
			continue
		}
		h.mu.Lock()
		h.lease = ls
		h.mu.Unlock()
	}
}

func (h *Held) markLost() { h.once.Do(func() { close(h.lost) }) }

// Lost is closed when the lease is lost.
func (h *Held) Lost() <-chan struct{} { return h.lost }

// Valid reports whether the driver may start a new round now: the lease
// was not lost and has not expired by the clock.
func (h *Held) Valid() bool {
	select {
	case <-h.lost:
		return false
	default:
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.l.cfg.Clock().Before(h.lease.Expires)
}

// Lease returns the lease as last renewed.
func (h *Held) Lease() Lease {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lease
}

// Release stops the heartbeat and gives the lease up.
func (h *Held) Release(ctx context.Context) error {
	h.cancel()
	<-h.done
	h.markLost()
	ls := h.Lease()
	return h.l.Release(ctx, &ls)
}
