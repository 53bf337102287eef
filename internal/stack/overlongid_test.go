package stack

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
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
