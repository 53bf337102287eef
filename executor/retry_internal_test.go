package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/vmihailenco/msgpack/v5"
)

// fastRetry paces tests' tries.
var fastRetry = retryPolicy{Try: time.Second, Min: time.Millisecond, Max: 4 * time.Millisecond}

func apiError(code jetstream.ErrorCode, status int) error {
	return fmt.Errorf("publish: %w", &jetstream.APIError{Code: status, ErrorCode: code, Description: "test"})
}

// An operation that fails transiently k times, then succeeds, is tried
// k+1 times and succeeds.
func TestRetryTransient(t *testing.T) {
	for _, terr := range []error{
		nats.ErrTimeout, nats.ErrNoResponders, jetstream.ErrNoStreamResponse, context.DeadlineExceeded,
		jetstream.ErrJetStreamNotEnabled, nats.ErrConnectionReconnecting,
		apiError(codeClusterNotAvail, 503), apiError(codeExpectedLastSeqNotYet, 503), apiError(codeClusterNotLeader, 500),
		fmt.Errorf("executor: write record k: %w", nats.ErrTimeout),
	} {
		t.Run(terr.Error(), func(t *testing.T) {
			const k = 3
			tries := 0
			err := retry(context.Background(), fastRetry, func(ctx context.Context) error {
				if _, ok := ctx.Deadline(); !ok {
					t.Error("a try without a deadline of its own")
				}
				if tries++; tries <= k {
					return terr
				}
				return nil
			})
			if err != nil || tries != k+1 {
				t.Fatalf("err %v after %d tries, want nil after %d", err, tries, k+1)
			}
		})
	}
}

// A lost compare-and-set is an answer, not a failure: it is not tried
// again, and keeps its meaning. Neither is any other error that is not
// transient.
func TestRetryNotTransient(t *testing.T) {
	for _, perm := range []error{
		errConflict, jetstream.ErrKeyExists, apiError(jetstream.JSErrCodeStreamWrongLastSequence, 400),
		jetstream.ErrKeyRevisionMismatch, jetstream.ErrBucketNotFound, context.Canceled, errors.New("bad request"),
	} {
		tries := 0
		err := retry(context.Background(), fastRetry, func(context.Context) error { tries++; return perm })
		if !errors.Is(err, perm) || tries != 1 {
			t.Errorf("%v: err %v after %d tries, want it after 1", perm, err, tries)
		}
	}
}

// Tries end with the caller's context; the last error is returned.
func TestRetryEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	tries := 0
	start := time.Now()
	err := retry(ctx, fastRetry, func(context.Context) error { tries++; return nats.ErrNoResponders })
	if !errors.Is(err, nats.ErrNoResponders) || tries < 2 {
		t.Fatalf("err %v after %d tries, want no responders after several", err, tries)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("retry returned %s after its context ended", d)
	}
}

// A try that outlives its own timeout is cut short and tried again.
func TestRetryTryTimeout(t *testing.T) {
	tries := 0
	p := retryPolicy{Try: 20 * time.Millisecond, Min: time.Millisecond, Max: time.Millisecond}
	err := retry(context.Background(), p, func(ctx context.Context) error {
		if tries++; tries == 1 {
			<-ctx.Done() // a request the server never answers
			return ctx.Err()
		}
		return nil
	})
	if err != nil || tries != 2 {
		t.Fatalf("err %v after %d tries, want nil after 2", err, tries)
	}
}

// flakyKV fails the writes that match: fails of them fail with err, each
// after being applied when applied is set (only the answer is lost),
// instead of it otherwise.
type flakyKV struct {
	jetstream.KeyValue
	match   func(r *record) bool
	err     error
	applied bool

	mu      sync.Mutex
	fails   int // failures left to inject
	failed  int // failures injected
	updates int // calls of Update
}

func (f *flakyKV) inject(v []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	var r record
	if f.fails == 0 || msgpack.Unmarshal(v, &r) != nil || (f.match != nil && !f.match(&r)) {
		return false
	}
	f.fails--
	f.failed++
	return true
}

func (f *flakyKV) injected() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *flakyKV) Create(ctx context.Context, key string, v []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	return f.write(v, func() (uint64, error) { return f.KeyValue.Create(ctx, key, v, opts...) })
}

func (f *flakyKV) Update(ctx context.Context, key string, v []byte, rev uint64) (uint64, error) {
	f.mu.Lock()
	f.updates++
	f.mu.Unlock()
	return f.write(v, func() (uint64, error) { return f.KeyValue.Update(ctx, key, v, rev) })
}

// write runs the real write w, or fails instead of it; with applied, it
// fails only a write that was applied, after it.
func (f *flakyKV) write(v []byte, w func() (uint64, error)) (uint64, error) {
	if !f.applied {
		if f.inject(v) {
			return 0, f.err
		}
		return w()
	}
	rev, err := w()
	if err == nil && f.inject(v) {
		return 0, f.err
	}
	return rev, err
}

func testStore(t *testing.T) (*store, *flakyKV) {
	t.Helper()
	b := bustest.Start(t)
	kv, err := b.JS.CreateKeyValue(context.Background(), jetstream.KeyValueConfig{Bucket: "records", History: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := &flakyKV{KeyValue: kv}
	return &store{kv: f, retry: fastRetry, bound: 10 * time.Second}, f
}

// A write whose answers are lost is tried again; one that was applied
// (its answer lost) is recognised when the next try loses the
// compare-and-set to it. A real conflict is reported at once.
func TestStorePut(t *testing.T) {
	ctx := context.Background()
	s, f := testStore(t)
	f.err, f.fails = nats.ErrTimeout, 2
	r := &record{Key: "acme/-/s/c1", State: stateRunning, Owner: "x#1"}
	rev, err := s.put(ctx, "acme", r, 0)
	if err != nil || rev == 0 || f.injected() != 2 {
		t.Fatalf("create: rev %d, err %v, %d failures", rev, err, f.injected())
	}

	f.err, f.fails, f.applied = jetstream.ErrNoStreamResponse, 1, true
	r.State = stateDone
	rev2, err := s.put(ctx, "acme", r, rev)
	if err != nil || rev2 <= rev {
		t.Fatalf("update applied, answer lost: rev %d, err %v", rev2, err)
	}
	got, grev, err := s.get(ctx, "acme", r.Key)
	if err != nil || grev != rev2 || got.State != stateDone {
		t.Fatalf("get: %+v at %d (want %d), err %v", got, grev, rev2, err)
	}

	// A write over a stale revision is a conflict, tried once.
	f.updates = 0
	r.Owner = "y#2"
	if _, err := s.put(ctx, "acme", r, rev); !errors.Is(err, errConflict) || f.updates != 1 {
		t.Fatalf("stale write: err %v after %d updates, want errConflict after 1", err, f.updates)
	}
	// Also after a transient failure: the record holds another write.
	f.updates, f.fails, f.applied, f.err = 0, 1, false, nats.ErrTimeout
	if _, err := s.put(ctx, "acme", r, rev); !errors.Is(err, errConflict) || f.updates != 2 {
		t.Fatalf("stale write after a timeout: err %v after %d updates, want errConflict after 2", err, f.updates)
	}
}

// Tries end with the store's bound when the bucket stays unavailable.
func TestStorePutBound(t *testing.T) {
	s, f := testStore(t)
	s.bound = 100 * time.Millisecond
	f.err, f.fails = nats.ErrNoResponders, 1<<30
	_, err := s.put(context.Background(), "acme", &record{Key: "acme/-/s/c1", State: stateRunning}, 0)
	if !errors.Is(err, nats.ErrNoResponders) || f.injected() < 2 {
		t.Fatalf("err %v after %d tries, want no responders after several", err, f.injected())
	}
}

// retryUntil stops at its deadline as if the context ended then: every
// try's context ends by the deadline, and the last error is returned.
func TestRetryUntilDeadline(t *testing.T) {
	p := retryPolicy{Try: time.Second, Min: 5 * time.Millisecond, Max: 20 * time.Millisecond}
	deadline := time.Now().Add(150 * time.Millisecond)
	tries := 0
	err := retryUntil(context.Background(), p, deadline, func(ctx context.Context) error {
		tries++
		if d, ok := ctx.Deadline(); !ok || d.After(deadline) {
			t.Errorf("try %d: context deadline %v after %v", tries, d, deadline)
		}
		return nats.ErrTimeout
	})
	if !errors.Is(err, nats.ErrTimeout) {
		t.Fatalf("err %v, want the last try's", err)
	}
	if late := time.Since(deadline); late > 100*time.Millisecond {
		t.Fatalf("returned %s after the deadline", late)
	}
	if tries < 3 {
		t.Fatalf("%d tries in 150ms with pauses of 5-20ms", tries)
	}
}
