package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"

	"github.com/toolstream/toolstream/registry"
)

// Test timing: a short heartbeat so takeovers happen in a fraction of a
// second. Waits poll with a deadline; nothing sleeps to wait.
const (
	testHeartbeat = 50 * time.Millisecond
	waitMax       = 30 * time.Second
)

func parseRegistry(t testing.TB, src string) *registry.Registry {
	t.Helper()
	r, err := registry.Parse([]byte(src))
	if err != nil {
		t.Fatalf("registry: %v", err)
	}
	return r
}

// startExec runs an executor until the test ends (or stop is called).
func startExec(t testing.TB, b *bus.Bus, reg *registry.Registry, tools map[string]executor.Tool, mut func(*executor.Config)) (*executor.Executor, func()) {
	t.Helper()
	cfg := executor.Config{
		JS: b.JS, Registry: func() *registry.Registry { return reg },
		Tools: tools, Heartbeat: testHeartbeat, DrainTimeout: 5 * time.Second,
	}
	if mut != nil {
		mut(&cfg)
	}
	e, err := executor.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("executor run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return e, stop
}

// callSpec is one CallCompleted to publish.
type callSpec struct {
	tenant, tool, call string
	args               string
	run, step          string
	user               string
	response, item     string
	dependsOn          []string
	msgID              string // default: the assembler's CompletedID
}

func (c callSpec) event() *events.Event {
	if c.response == "" {
		c.response = "resp_1"
	}
	if c.item == "" {
		c.item = "item_" + c.call
	}
	if c.args == "" {
		c.args = "{}"
	}
	return &events.Event{
		ID: events.CompletedID(c.tenant, c.response, c.item), Tenant: c.tenant, User: c.user, Run: c.run, Step: c.step,
		Response: c.response, Item: c.item, CallID: c.call, At: time.Now().UnixNano(),
		Body: &events.CallCompleted{Name: c.tool, Arguments: []byte(c.args), DependsOn: c.dependsOn},
	}
}

// publishCall publishes a CallCompleted and returns the call's key.
func publishCall(t testing.TB, b *bus.Bus, c callSpec) string {
	t.Helper()
	ev := c.event()
	subj, err := events.CallSubject(c.tenant, c.tool)
	if err != nil {
		t.Fatal(err)
	}
	data, err := events.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	id := c.msgID
	if id == "" {
		id = ev.ID
	}
	if _, err := b.JS.Publish(context.Background(), subj, data, jetstream.WithMsgID(id)); err != nil {
		t.Fatal(err)
	}
	return executor.CallKey(ev)
}

// outcome is a decoded CallSucceeded / CallFailed.
type outcome struct {
	ev  *events.Event
	ok  *events.CallSucceeded
	err *events.CallFailed
}

func (o outcome) String() string {
	if o.ok != nil {
		return fmt.Sprintf("succeeded %s", o.ok.Result)
	}
	return fmt.Sprintf("failed %s: %s", o.err.Error, o.err.Message)
}

func decodeOutcome(t testing.TB, data []byte) outcome {
	t.Helper()
	ev, err := events.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{ev: ev}
	o.ok, _ = events.As[*events.CallSucceeded](ev)
	o.err, _ = events.As[*events.CallFailed](ev)
	if o.ok == nil && o.err == nil {
		t.Fatalf("result subject holds a %s", ev.Kind)
	}
	return o
}

// lastOn returns the last message on subject, or nil.
func lastOn(t testing.TB, b *bus.Bus, subject string) *jetstream.RawStreamMsg {
	t.Helper()
	m, err := b.Stream(streamOf(t, subject)).GetLastMsgForSubject(context.Background(), subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lastEvent is the last event on subject (nil when there is none).
func lastEvent(t testing.TB, b *bus.Bus, subject string) *events.Event {
	t.Helper()
	m := lastOn(t, b, subject)
	if m == nil {
		return nil
	}
	ev, err := events.Decode(m.Data)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// waitOutcome polls until the call's outcome is in the log.
func waitOutcome(t testing.TB, b *bus.Bus, tenant, key string) outcome {
	t.Helper()
	subj, _ := events.ResultSubject(tenant, key)
	deadline := time.Now().Add(waitMax)
	for time.Now().Before(deadline) {
		if m := lastOn(t, b, subj); m != nil {
			return decodeOutcome(t, m.Data)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no outcome for %s in %s", key, waitMax)
	return outcome{}
}

// waitFor polls cond until it holds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitMax)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// all returns every event on the subject filter, in stream order.
func all(t testing.TB, b *bus.Bus, filter string) []*events.Event {
	t.Helper()
	evs, err := b.ReadEvents(context.Background(), []string{filter})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// counter is a Go tool that counts its invocations per key and answers
// with fn.
type counter struct {
	mu    sync.Mutex
	calls map[string]int
	total atomic.Int64
	fn    func(ctx context.Context, c executor.Call) (json.RawMessage, error)
}

func newCounter(fn func(ctx context.Context, c executor.Call) (json.RawMessage, error)) *counter {
	if fn == nil {
		fn = func(context.Context, executor.Call) (json.RawMessage, error) {
			return json.RawMessage(`{"ok":true}`), nil
		}
	}
	return &counter{calls: map[string]int{}, fn: fn}
}

func (c *counter) Invoke(ctx context.Context, call executor.Call) (json.RawMessage, error) {
	c.mu.Lock()
	c.calls[call.Key]++
	c.mu.Unlock()
	c.total.Add(1)
	return c.fn(ctx, call)
}

func (c *counter) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[key]
}

// count returns how many messages the log holds on the subject filter.
func count(t testing.TB, b *bus.Bus, filter string) int {
	t.Helper()
	info, err := b.Stream(streamOf(t, filter)).Info(context.Background(), jetstream.WithSubjectFilter(filter))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range info.State.Subjects {
		n += int(c)
	}
	return n
}

// streamOf is the stream of the log that holds subject.
func streamOf(t testing.TB, subject string) string {
	t.Helper()
	s, err := events.StreamOf(subject)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
