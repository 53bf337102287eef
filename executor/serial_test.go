package executor_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// publishAfter publishes a CallCompleted of response resp_s that runs
// after the calls after names (as the assembler writes it for calls with
// side effects) and returns its key.
func publishAfter(t *testing.T, b *bus.Bus, tool, call string, after ...string) string {
	t.Helper()
	ev := &events.Event{ID: events.CompletedID("acme", "resp_s", "item_"+call), Tenant: "acme", Response: "resp_s", Item: "item_" + call,
		CallID: call, At: time.Now().UnixNano(), Body: &events.CallCompleted{Name: tool, Arguments: []byte(`{}`), After: after}}
	subj, err := events.CallSubject("acme", tool)
	if err != nil {
		t.Fatal(err)
	}
	data, err := events.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.JS.Publish(context.Background(), subj, data, jetstream.WithMsgID(ev.ID)); err != nil {
		t.Fatal(err)
	}
	return executor.CallKey(ev)
}

// Calls of one round without declared dependencies:
// read-only ones (side_effect none) run in parallel, and those with side
// effects one after another in the order the model gave them — each after
// the one before it (CallCompleted.After), whatever that one's outcome.
// w2 is published before the read-only pair and w1 is held until the pair
// has run side by side; w2 starts only once w1 has ended, though w1 failed.
func TestSideEffectsRunOneAfterAnotherReadsInParallel(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: write
    idempotency: required
  - name: read
    side_effect: none
grants:
  - tenant: acme
    permissions: [write, read]
`)
	var mu sync.Mutex
	var log []string // "start w1", "end w1", …
	active, overlapped := 0, false
	release, w1Started := make(chan struct{}), make(chan struct{})
	write := newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		mu.Lock()
		active++
		overlapped = overlapped || active > 1
		log = append(log, "start "+c.CallID)
		mu.Unlock()
		if c.CallID == "w1" {
			close(w1Started)
			<-release
		}
		mu.Lock()
		active--
		log = append(log, "end "+c.CallID)
		mu.Unlock()
		if c.CallID == "w1" {
			return nil, executor.Errorf(events.ErrBusinessRejected, "w1 refused")
		}
		return json.RawMessage(`{}`), nil
	})
	var readers sync.WaitGroup
	readers.Add(2)
	read := newCounter(func(ctx context.Context, _ executor.Call) (json.RawMessage, error) {
		readers.Done()
		readers.Wait() // returns only when both reads run at once
		return json.RawMessage(`{}`), nil
	})
	startExec(t, b, reg, map[string]executor.Tool{"write": write, "read": read}, nil)

	k1 := publishAfter(t, b, "write", "w1")
	k2 := publishAfter(t, b, "write", "w2", "w1")
	r1 := publishAfter(t, b, "read", "r1")
	r2 := publishAfter(t, b, "read", "r2")
	for _, k := range []string{r1, r2} {
		if o := waitOutcome(t, b, "acme", k); o.ok == nil {
			t.Fatalf("read %s: %v", k, o)
		}
	}
	select { // w1 may start after both reads ended on a loaded machine
	case <-w1Started:
	case <-time.After(time.Minute):
		t.Fatal("w1 never started")
	}
	mu.Lock()
	started := len(log)
	mu.Unlock()
	if write.count(k2) != 0 || started != 1 {
		t.Fatalf("w2 started while w1 ran: %v", log)
	}
	close(release)
	if o := waitOutcome(t, b, "acme", k1); o.err == nil || o.err.Error != events.ErrBusinessRejected {
		t.Fatalf("w1: %v", o)
	}
	if o := waitOutcome(t, b, "acme", k2); o.ok == nil {
		t.Fatalf("w2 after a failed w1: %v, want it run", o)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"start w1", "end w1", "start w2", "end w2"}
	if overlapped || len(log) != len(want) {
		t.Fatalf("writes %v (overlapped %v), want %v", log, overlapped, want)
	}
	for i := range want {
		if log[i] != want[i] {
			t.Fatalf("writes %v, want %v", log, want)
		}
	}
}
