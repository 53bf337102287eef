// Package agenttest runs the real path a run mode drives, for tests: an
// embedded server, the registry in the log (weather, a refund that waits
// for approval, a slow tool the test releases), the assembler, the runs
// projections and service, the verifier and an executor with the tools
// as Go functions. Only tests import it.
package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/verifier"
)

// Tenant is the tenant the registry grants the tools to.
const Tenant = "acme"

// ToolsYAML is the registry of the tests: weather, a refund that waits
// for a person, a slow tool a test holds, and lookup (side_effect none: a
// call of it waits for no other unless it says so in $depends_on).
const ToolsYAML = `
tools:
  - name: weather
    description: Current weather for a location.
    input_schema: {type: object, properties: {location: {type: string}}, required: [location], additionalProperties: false}
  - name: refund
    description: Refund an order.
    input_schema: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    idempotency: required
    side_effect: irreversible
    approval: required
  - name: slow
    description: A tool that takes its time.
    input_schema: {type: object, properties: {n: {type: integer}}}
  - name: lookup
    description: Look a word up.
    input_schema: {type: object, properties: {word: {type: string}}, required: [word], additionalProperties: false}
    side_effect: none
grants:
  - tenant: acme
    permissions: [weather, refund, slow, lookup]
`

// Pipeline is the real path on an embedded server, as serve runs it: the
// assembler, the runs projections and service, the verifier, an executor
// with the tests' tools, and the registry in the log.
type Pipeline struct {
	B        *bus.Bus
	Follower *registry.Follower
	Key      *registry.SigningKey
	Leases   *runs.Leases
	Invoked  map[string]*atomic.Int32 // by tool: how many times it ran
	// Verifier is the verifier projection's runner (its checkpoint and
	// rejections: what it made of a message).
	Verifier *projector.Runner
	Slow     chan struct{} // the slow tool returns when it is closed
	SlowIn   chan struct{} // the slow tool signals here when it starts

	mu  sync.Mutex
	ran []string // guarded by mu: "slow" when the slow tool returned, "lookup <args>" when lookup ran

	svc     micro.Service // serves the runs (and memory) service
	publish func(ctx context.Context, subj string, ev *events.Event) (uint64, error)
	memory  bool
}

// Ran lists, in order, each return of the slow tool ("slow") and each run
// of lookup ("lookup " and the arguments it was given).
func (p *Pipeline) Ran() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.ran)
}

func (p *Pipeline) record(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ran = append(p.ran, s)
}

// Start starts the pipeline; it stops when the test ends.
func Start(t testing.TB) *Pipeline { return StartWith(t, Options{}) }

// Options change the pipeline.
type Options struct {
	// Policy is the tenant's verifier policy; default annotate.
	Policy verifier.Policy
	// Memory runs the memory projection and serves the memory service
	// (tsv.memory.*), as serve does.
	Memory bool
}

// StartWith starts the pipeline with opts.
func StartWith(t testing.TB, opts Options) *Pipeline {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b := bustest.Start(t)
	p := &Pipeline{B: b, Invoked: map[string]*atomic.Int32{"weather": {}, "refund": {}, "slow": {}, "lookup": {}}, Slow: make(chan struct{}), SlowIn: make(chan struct{}, 4)}
	reg, err := registry.Parse([]byte(ToolsYAML))
	if err != nil {
		t.Fatal(err)
	}
	if p.Key, err = registry.GenerateKey(); err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Publish(ctx, registry.PublishConfig{JS: b.JS, Key: p.Key, Source: "agent_test"}, reg); err != nil {
		t.Fatal(err)
	}
	n := stack.NewNode(b, t.TempDir(), nil)
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		n.Stop()
	})
	var runsRunner, memRunner *projector.Runner
	prs := []projector.Projection{
		assembler.New(assembler.Config{AcceptRegistry: registry.Accepter[assembler.Validator](p.Key.Trust())}),
		runs.New(runs.Config{}), runs.Calls{},
		verifier.NewProjection(verifier.ProjectionConfig{DefaultPolicy: opts.Policy}),
	}
	if opts.Memory {
		prs = append(prs, memory.NewProjection(memory.NewEngine(memory.Config{}, nil)))
	}
	for _, pr := range prs {
		r, err := n.Start(ctx, pr, nil)
		if err != nil {
			t.Fatal(err)
		}
		switch pr.Name() {
		case runs.Name:
			runsRunner = r
		case memory.Name:
			memRunner = r
		case verifier.Name:
			p.Verifier = r
		}
	}
	if p.Follower, err = registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: p.Key.Trust()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Follower.Stop)
	if err := p.Follower.Wait(ctx, reg.Digest()); err != nil {
		t.Fatal(err)
	}
	tools := map[string]executor.Tool{
		"weather": executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			p.Invoked["weather"].Add(1)
			var a struct{ Location string }
			json.Unmarshal(c.Args, &a)
			return json.RawMessage(fmt.Sprintf(`{"location":%q,"temperature_c":18}`, a.Location)), nil
		}),
		"refund": executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			p.Invoked["refund"].Add(1)
			return json.RawMessage(`{"order_id":"A1","status":"refunded"}`), nil
		}),
		"slow": executor.ToolFunc(func(ctx context.Context, c executor.Call) (json.RawMessage, error) {
			p.Invoked["slow"].Add(1)
			p.SlowIn <- struct{}{}
			select {
			case <-p.Slow:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			p.record("slow")
			return json.RawMessage(`{"done":true}`), nil
		}),
		"lookup": executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			p.Invoked["lookup"].Add(1)
			p.record("lookup " + string(c.Args))
			return json.RawMessage(`{"found":true}`), nil
		}),
	}
	ex, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, MsgIDKey: b.MsgIDKey(), Registry: p.Follower.Current, Tools: tools, Heartbeat: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() { defer wg.Done(); ex.Run(ctx) }()
	if p.Leases, err = runs.NewLeases(ctx, runs.LeaseConfig{JS: b.JS, Heartbeat: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	svc, err := micro.AddService(b.Conn, micro.Config{Name: "runs-agent-test", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	p.svc, p.memory = svc, opts.Memory
	p.publish = func(ctx context.Context, subj string, ev *events.Event) (uint64, error) {
		ack, err := b.PublishSealed(ctx, subj, ev, "")
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}
	s := &runs.Service{Runner: runsRunner, Leases: p.Leases, Publish: p.publish}
	if err := s.AddTo(svc); err != nil {
		t.Fatal(err)
	}
	if memRunner != nil {
		ms := &memory.Service{Engine: memory.NewEngine(memory.Config{}, nil), Runner: memRunner,
			Publish: func(ctx context.Context, subj string, ev *events.Event, scope string) (uint64, error) {
				ack, err := b.PublishSealed(ctx, subj, ev, scope)
				if err != nil {
					return 0, err
				}
				return ack.Sequence, nil
			}}
		if err := ms.AddTo(svc); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// RestartRuns has the runs service answer from a new runs view, as after
// a crash of the process that kept it whose commits never reached the
// disk: on an empty directory, its checkpoint behind all the log holds.
// The new view applies nothing until start is called (a restarted view
// still catching up); the one the service answered from until now goes on
// applying and answers nobody. Not with Options.Memory (one service
// serves both).
func (p *Pipeline) RestartRuns(t testing.TB) (start func()) {
	t.Helper()
	if p.memory {
		t.Fatal("agenttest: RestartRuns with the memory service")
	}
	p.svc.Stop()
	r, err := projector.New(projector.Config{JS: p.B.JS, Dir: t.TempDir(), Keys: p.B.Keys, MsgIDKey: p.B.MsgIDKey(), Durable: "ts-runs-restarted"},
		runs.New(runs.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := micro.AddService(p.B.Conn, micro.Config{Name: "runs-agent-test", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	p.svc = svc
	if err := (&runs.Service{Runner: r, Leases: p.Leases, Publish: p.publish}).AddTo(svc); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	done := make(chan struct{})
	t.Cleanup(func() {
		svc.Stop()
		cancel()
		once.Do(func() { close(done) })
		<-done
		r.Close()
	})
	return func() {
		once.Do(func() {
			go func() { defer close(done); r.Run(ctx) }()
		})
	}
}

// Driver returns a driver named name whose rounds go through m, with a
// short poll; mut, when given, changes its config first.
func (p *Pipeline) Driver(t testing.TB, name string, m agent.Model, mut ...func(*agent.Config)) *agent.Driver {
	t.Helper()
	cfg := agent.Config{
		Model: m, Conn: p.B.Conn, JS: p.B.JS, Keys: p.B.Keys, MsgIDKey: p.B.MsgIDKey(), Leases: p.Leases,
		Registry: p.Follower.Current, Driver: name, Poll: 50 * time.Millisecond,
	}
	for _, f := range mut {
		f(&cfg)
	}
	d, err := agent.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
