package executor_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// Executors starting at the same moment against a fresh server all create
// (or find) the record bucket and the object store: none waits for a
// creation the server leaves unanswered (nats-server 2.15 can, in a
// cluster, for one of two concurrent creations).
func TestNewConcurrent(t *testing.T) {
	const n = 4
	for range 3 {
		b := bustest.Start(t)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				_, errs[i] = executor.NewContext(ctx, executor.Config{JS: b.JS})
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("executor %d: %v", i, err)
			}
		}
	}
}

// An executor whose configuration changed updates the existing bucket, as
// CreateOrUpdate would.
func TestNewUpdatesBucket(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	if _, err := executor.New(executor.Config{JS: b.JS}); err != nil {
		t.Fatal(err)
	}
	if _, err := executor.New(executor.Config{JS: b.JS, RecordTTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	kv, err := b.JS.KeyValue(ctx, "ts_exec")
	if err != nil {
		t.Fatal(err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.TTL() != time.Hour || st.History() != 1 {
		t.Fatalf("bucket TTL %s, history %d; want 1h, 1", st.TTL(), st.History())
	}
}
