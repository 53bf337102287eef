package stack

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/registry"
)

// TestAnOverlongIDStopsNoProjection: a producer's raw Chat Completions
// event whose tool call id is 5,000 bytes made ingest emit a model event on
// a subject longer than the NATS server's 4 KiB control line; the server
// closed the connection the processors share, and serve stopped (every
// restart stopped again on the same event). The subject is now refused where
// it is built (events.ErrSubjectTooLong): acme's raw event is rejected,
// typed, and globex's stream after it is still assembled.
func TestAnOverlongIDStopsNoProjection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	startAssembler(ctx, t, b)
	calls := make(chan *nats.Msg, 16)
	sub, err := b.Conn.ChanSubscribe("ts.call.globex.>", calls)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()

	acme, globex := forger(t, b, "acme"), forger(t, b, "globex")
	long := "call_" + strings.Repeat("x", 5000)
	for i, ev := range []map[string]any{
		{"id": "chatcmpl-long", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant",
			"tool_calls": []any{map[string]any{"index": 0, "id": long, "type": "function", "function": map[string]any{"name": "weather", "arguments": ""}}}}}}},
		{"id": "chatcmpl-long", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{
			"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": `{"location": "X"}`}}}}}}},
		{"id": "chatcmpl-long", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "tool_calls"}}},
	} {
		data, _ := json.Marshal(ev)
		subj, _ := events.IngestSubject("acme", "openai-chat", "long")
		if _, err := acme.Publish(ctx, subj, data); err != nil {
			t.Fatalf("acme's event %d: %v", i, err)
		}
	}

	f, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", "openai-chat-deepseek-weather.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	subj, _ := events.IngestSubject("globex", "openai-chat", "ok")
	sc := bufio.NewScanner(bytes.NewReader(f))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if _, err := globex.Publish(ctx, subj, bytes.Clone(sc.Bytes())); err != nil {
			t.Fatalf("globex's stream: %v", err)
		}
	}
	select {
	case m := <-calls: // sealed under globex's keys: the subject says enough
		if m.Subject != "ts.call.globex.weather" {
			t.Errorf("globex's call's outcome on %s", m.Subject)
		}
	case <-ctx.Done():
		t.Fatalf("globex's call has no outcome after acme's overlong id: %v (connection %v)", ctx.Err(), b.Conn.Status())
	}
}

const overlongTools = `
tools:
  - name: weather
    description: Current weather for a location.
    input_schema: {type: object, properties: {location: {type: string}}, required: [location], additionalProperties: false}
    side_effect: irreversible
    approval: required
grants:
  - tenant: acme
    permissions: [weather]
  - tenant: globex
    permissions: [weather]
`

// TestAnOverlongRunStopsNoExecutor: a producer's Ts-Run header of 3,500
// bytes reaches no subject, so the subject bound does not see it; ingest
// put it in the envelope of the model events, the assembler completed the
// call, and the executor built its idempotency key (tenant/run/step/call)
// and from it the subjects of the call's approval request and record:
// past a bound, the executor stopped and serve with it (review rev12,
// through serve with README's refund stream, a tool waiting for approval,
// and the stock nats CLI). Every reader now refuses an event with an
// envelope id past events.IDBytesMax as malformed input (events.CheckIDs,
// in CheckSubject): acme's call ends typed, rejected or incomplete (without
// the bound it was completed on ts.call.acme.weather), and globex's call after it is asked
// for approval by an executor still running. In this process the executor
// outlived acme's call even without the bound (its subject builders refuse
// the key since 3bc2b7f); the refusal at read is what keeps every id that
// reaches a key or a request inside the control line.
func TestAnOverlongRunStopsNoExecutor(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	dir := t.TempDir()
	toolsFile := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(toolsFile, []byte(overlongTools), 0o600); err != nil {
		t.Fatal(err)
	}
	key, err := registry.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int32 // approval is never given: weather never runs
	weather := executor.ToolFunc(func(context.Context, executor.Call) (json.RawMessage, error) {
		ran.Add(1)
		return json.RawMessage(`{"temperature_c":18}`), nil
	})
	s, err := Start(ctx, Config{Bus: b, ViewsDir: filepath.Join(dir, "views"), ToolsFile: toolsFile, SigningKey: key,
		Projections: Projections{Trust: key.Trust(), IdleTimeout: 10 * time.Minute},
		Executor:    executor.Config{Tools: map[string]executor.Tool{"weather": weather}, Heartbeat: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	results := make(chan *nats.Msg, 16)
	for _, subj := range []string{"ts.call.>", "ts.exec.>"} {
		sub, err := b.Conn.ChanSubscribe(subj, results)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
	}

	f, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", "openai-chat-deepseek-weather.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	publish := func(tenant string, js interface {
		PublishMsg(context.Context, *nats.Msg, ...jetstream.PublishOpt) (*jetstream.PubAck, error)
	}, run string) {
		subj, _ := events.IngestSubject(tenant, "openai-chat", "weather")
		sc := bufio.NewScanner(bytes.NewReader(f))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			m := nats.NewMsg(subj)
			m.Data = bytes.Clone(sc.Bytes())
			m.Header.Set("Ts-Run", run)
			if _, err := js.PublishMsg(ctx, m); err != nil {
				t.Fatalf("%s's stream: %v", tenant, err)
			}
		}
	}
	publish("acme", forger(t, b, "acme"), strings.Repeat("r", 3500))
	publish("globex", forger(t, b, "globex"), "run-ok")
	acmeRejected := false
	for {
		select {
		case m := <-results:
			if strings.HasPrefix(m.Subject, "ts.exec.acme.") {
				t.Fatalf("acme's call with a 3,500-byte run reached the executor: %s", m.Subject)
			}
			if strings.HasPrefix(m.Subject, "ts.call.acme.") {
				ev, err := events.EnvelopeWith(m.Data, b.Keys)
				if err != nil || (ev.Kind != events.KindCallRejected && ev.Kind != events.KindCallIncomplete) {
					t.Fatalf("acme's call with a 3,500-byte run on %s: %v %v, want it rejected or incomplete", m.Subject, ev, err)
				}
				acmeRejected = true
			}
			if strings.HasPrefix(m.Subject, "ts.exec.globex.") {
				if !acmeRejected {
					t.Errorf("globex's call was decided before acme's earlier one was rejected")
				}
				if n := ran.Load(); n != 0 {
					t.Errorf("weather ran %d times before an approval", n)
				}
				if st := b.Conn.Status(); st != nats.CONNECTED {
					t.Errorf("the processors' connection is %v", st)
				}
				return
			}
		case <-ctx.Done():
			t.Fatalf("globex's call was not asked for approval after acme's overlong run: %v (connection %v)", ctx.Err(), b.Conn.Status())
		}
	}
}
