package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/internal/trace"
)

// A passthrough request's prompt is kept with its stream's frames: the
// first message on the stream's subject, sealed under the user's key (the
// log's bytes never hold its text), shown by trace (whole with --json, the
// text cut), the request's other members (stream, max_tokens) left out;
// erasing the user makes it unreadable with the frames.
func TestPassthroughKeepsThePrompt(t *testing.T) {
	tg := startGateway(t, nil)
	c := passthroughCases[1] // Chat
	const secret = "my passport number is ZX-4417"
	body := `{"model":"` + c.model + `","stream":true,"max_tokens":100,"messages":[{"role":"system","content":"You are a travel agent."},{"role":"user","content":"weather in SF? ` + secret + `"}],` +
		`"tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object"}}}]}`
	resp := tg.request(t, "POST", c.path, body, map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "eve"})
	readSSE(t, resp.Body, 0)
	resp.Body.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var tr *trace.Trace
	eventually(t, func() bool {
		var err error
		tr, err = trace.Call(ctx, tg.bus, "acme", c.call, "")
		return err == nil && tr.Served != nil
	}, "no trace with the gateway's record")
	p := tr.Served.Prompt
	if p == nil {
		t.Fatalf("trace has no prompt: %+v", tr.Served)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(p.JSON, &got); err != nil {
		t.Fatal(err)
	}
	keys_ := make([]string, 0, len(got))
	for k := range got {
		keys_ = append(keys_, k)
	}
	slices.Sort(keys_)
	if !slices.Equal(keys_, []string{"messages", "model", "tools"}) || !strings.Contains(string(got["messages"]), secret) ||
		!strings.Contains(string(got["tools"]), `"name":"weather"`) || p.Truncated || p.Bytes != len(p.JSON) {
		t.Errorf("prompt %s (%d bytes, truncated %v)", p.JSON, p.Bytes, p.Truncated)
	}
	var text strings.Builder
	tr.WriteText(&text)
	if !strings.Contains(text.String(), "prompt (gateway seq") || !strings.Contains(text.String(), secret) {
		t.Errorf("trace's text has no prompt:\n%s", text.String())
	}

	// In the log: the first message of the stream's subject, sealed.
	subj, err := events.GatewaySubject("acme", string(c.api), scopedID("eve", c.stream))
	if err != nil {
		t.Fatal(err)
	}
	first, err := logread.First(ctx, tg.bus.Conn, events.StreamGateway, subj)
	if err != nil {
		t.Fatal(err)
	}
	if first.Seq != p.Seq || strings.Contains(string(first.Data), "passport") {
		t.Errorf("first message seq %d (prompt's %d), in the clear: %v", first.Seq, p.Seq, strings.Contains(string(first.Data), "passport"))
	}
	n := 0
	err = logread.Read(ctx, logread.Config{Conn: tg.bus.Conn, Stream: events.StreamGateway, Filter: subj}, func(ms []*logread.Msg) error {
		for _, m := range ms {
			n++
			if strings.Contains(string(m.Data), "passport") || strings.Contains(string(m.Data), "travel agent") {
				t.Errorf("seq %d holds the prompt's text in the clear", m.Seq)
			}
		}
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("read %d messages of %s: %v", n, subj, err)
	}

	// Erased with the user.
	ks, ok := tg.bus.Keys.(*keys.Store)
	if !ok {
		t.Fatalf("keys %T", tg.bus.Keys)
	}
	if _, err := erasure.User(ctx, tg.bus, ks, "acme", "eve"); err != nil {
		t.Fatal(err)
	}
	if _, err := events.DecodeAtWith(first.Subject, first.Data, tg.bus.Keys); !errors.Is(err, events.ErrErased) {
		t.Errorf("the prompt after erasure: %v, want ErrErased", err)
	}
	if tr, err := trace.Call(ctx, tg.bus, "acme", c.call, ""); err == nil && tr.Served != nil && tr.Served.Prompt != nil {
		t.Errorf("trace still shows the prompt after erasure: %s", tr.Served.Prompt.JSON)
	}
}

// A prompt over the bound keeps its members whole, in order, while they
// fit, names the others, and says the whole prompt's size; a body that is
// no JSON object keeps nothing but its size.
func TestPromptIsBounded(t *testing.T) {
	big := strings.Repeat("x", 300)
	body := `{"stream":true,"tools":[{"name":"t"}],"model":"m","messages":[{"role":"user","content":"` + big + `"}],"instructions":"be brief"}`
	p := promptOf([]byte(body), 120)
	if p.Prompt != `{"model":"m","instructions":"be brief","tools":[{"name":"t"}]}` || !p.Truncated || !slices.Equal(p.Left, []string{"messages"}) {
		t.Errorf("bounded prompt %s, truncated %v, left %v", p.Prompt, p.Truncated, p.Left)
	}
	whole := promptOf([]byte(body), events.PromptBytesMax)
	if whole.Truncated || whole.Bytes != len(whole.Prompt) || p.Bytes != whole.Bytes || !json.Valid([]byte(whole.Prompt)) {
		t.Errorf("whole prompt %d bytes (%d said), bounded says %d", len(whole.Prompt), whole.Bytes, p.Bytes)
	}
	if bad := promptOf([]byte("not json"), 120); bad.Prompt != "{}" || !bad.Truncated || bad.Bytes != 8 {
		t.Errorf("no JSON: %+v", bad)
	}
}
