package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/agent"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/bus/bustest"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/node"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/runs"
	"github.com/toolstream/toolstream/verifier"
)

const tenant = "acme"

// toolsYAML is the registry of the tests: weather (no side effect), a
// refund that waits for a person, and a slow tool a test holds.
const toolsYAML = `
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
grants:
  - tenant: acme
    permissions: [weather, refund, slow]
`

// pipeline is the real path on an embedded server, as serve runs it: the
// assembler, the runs projections and service, the verifier, an executor
// with the tests' tools, and the registry in the log.
type pipeline struct {
	b        *bus.Bus
	follower *registry.Follower
	key      *registry.SigningKey
	leases   *runs.Leases
	invoked  map[string]*atomic.Int32 // by tool
	slow     chan struct{}            // the slow tool returns when it is closed
	slowIn   chan struct{}            // the slow tool signals here when it starts
}

func startPipeline(t *testing.T) *pipeline {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b := bustest.Start(t)
	p := &pipeline{b: b, invoked: map[string]*atomic.Int32{"weather": {}, "refund": {}, "slow": {}}, slow: make(chan struct{}), slowIn: make(chan struct{}, 4)}
	reg, err := registry.Parse([]byte(toolsYAML))
	if err != nil {
		t.Fatal(err)
	}
	if p.key, err = registry.GenerateKey(); err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Publish(ctx, registry.PublishConfig{JS: b.JS, Key: p.key, Source: "agent_test"}, reg); err != nil {
		t.Fatal(err)
	}
	n := node.New(b, t.TempDir(), nil)
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		n.Stop()
	})
	var runsRunner *projector.Runner
	for _, pr := range []projector.Projection{
		assembler.New(assembler.Config{AcceptRegistry: registry.Accepter[assembler.Validator](p.key.Trust())}),
		runs.New(runs.Config{}), runs.Calls{},
		verifier.NewProjection(verifier.ProjectionConfig{}),
	} {
		r, err := n.Start(ctx, pr, nil)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Name() == runs.Name {
			runsRunner = r
		}
	}
	if p.follower, err = registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: p.key.Trust()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.follower.Stop)
	if err := p.follower.Wait(ctx, reg.Digest()); err != nil {
		t.Fatal(err)
	}
	tools := map[string]executor.Tool{
		"weather": executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			p.invoked["weather"].Add(1)
			var a struct{ Location string }
			json.Unmarshal(c.Args, &a)
			return json.RawMessage(fmt.Sprintf(`{"location":%q,"temperature_c":18}`, a.Location)), nil
		}),
		"refund": executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			p.invoked["refund"].Add(1)
			return json.RawMessage(`{"order_id":"A1","status":"refunded"}`), nil
		}),
		"slow": executor.ToolFunc(func(ctx context.Context, c executor.Call) (json.RawMessage, error) {
			p.invoked["slow"].Add(1)
			p.slowIn <- struct{}{}
			select {
			case <-p.slow:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return json.RawMessage(`{"done":true}`), nil
		}),
	}
	ex, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, Registry: p.follower.Current, Tools: tools, Heartbeat: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() { defer wg.Done(); ex.Run(ctx) }()
	if p.leases, err = runs.NewLeases(ctx, runs.LeaseConfig{JS: b.JS, Heartbeat: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	svc, err := micro.AddService(b.Conn, micro.Config{Name: "runs-agent-test", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	s := &runs.Service{Runner: runsRunner, Leases: p.leases, Publish: func(ctx context.Context, subj string, ev *events.Event) (uint64, error) {
		ack, err := b.PublishSealed(ctx, subj, ev, "")
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}}
	if err := s.AddTo(svc); err != nil {
		t.Fatal(err)
	}
	return p
}

// driver returns a driver whose rounds go to up through model.
func (p *pipeline) driver(t *testing.T, name string, up *fakeup.Server) *agent.Driver {
	t.Helper()
	prod, err := assembler.NewProducer(assembler.ProducerConfig{JS: p.b.JS, Keys: p.b.Keys})
	if err != nil {
		t.Fatal(err)
	}
	d, err := agent.New(context.Background(), agent.Config{
		Model: &model{url: up.URL, producer: prod}, Conn: p.b.Conn, JS: p.b.JS, Keys: p.b.Keys, Leases: p.leases,
		Registry: p.follower.Current, Driver: name, Poll: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// model is what the gateway does for a round, without HTTP towards the
// client: the request goes to the (fake) upstream and its stream is
// published at the edge as a producer does.
type model struct {
	url      string
	producer *assembler.Producer
	n        atomic.Int32
}

var paths = map[string]string{runs.FormatChat: "/v1/chat/completions", runs.FormatResponses: "/v1/responses", runs.FormatAnthropic: "/v1/messages"}

func (m *model) Round(ctx context.Context, r agent.Round) (*agent.RoundResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url+paths[r.Spec.Format], bytes.NewReader(r.Body))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return &agent.RoundResult{Status: resp.StatusCode, Body: body}, nil
	}
	var seen bytes.Buffer
	s := assembler.RawStream{Tenant: r.Spec.Tenant, Format: r.Spec.Format, Stream: fmt.Sprintf("%s-%d", r.Spec.Run, m.n.Add(1)),
		User: r.Spec.User, Session: r.Spec.Session, Run: r.Spec.Run, Step: r.Step}
	if _, err := m.producer.Publish(ctx, s, io.TeeReader(resp.Body, &seen)); err != nil {
		return nil, err
	}
	return &agent.RoundResult{Status: http.StatusOK, Response: responseID(seen.Bytes())}, nil
}

// responseID finds the response id in an SSE stream's first data line.
func responseID(sse []byte) string {
	for _, line := range strings.Split(string(sse), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			ID       string              `json:"id"`
			Message  struct{ ID string } `json:"message"`
			Response struct{ ID string } `json:"response"`
		}
		if json.Unmarshal([]byte(data), &ev) == nil {
			for _, id := range []string{ev.Message.ID, ev.Response.ID, ev.ID} {
				if id != "" {
					return id
				}
			}
		}
	}
	return ""
}

func stream(name string) string { return filepath.Join("testdata", "streams", name) }

func recorded(name string) string { return filepath.Join("..", "testdata", "streams", name) }

// chatSpec is a run's first request in Chat Completions.
func chatSpec(run, question string) agent.Spec {
	body, _ := json.Marshal(map[string]any{"model": "fake-1", "messages": []any{map[string]string{"role": "user", "content": question}}})
	return agent.Spec{Tenant: tenant, User: "u1", Run: run, Format: runs.FormatChat, Body: body}
}
