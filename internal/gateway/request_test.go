package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// agentBody is a Chat request of an agent some rounds in: a conversation
// of about size bytes.
func agentBody(size int, stream bool) []byte {
	var msgs []string
	for n := 0; n < size; {
		m := fmt.Sprintf(`{"role":"user","content":%q}`, strings.Repeat("The forecast for Paris shows light rain in the morning. ", 8))
		msgs = append(msgs, m)
		n += len(m) + 1
	}
	return fmt.Appendf(nil, `{"model":"up/gpt-4o-mini","stream":%t,"messages":[%s],"tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object"}}}]}`,
		stream, strings.Join(msgs, ","))
}

// The body is decoded once where the call is routed: the target's members
// are the client's (its model with the upstream's prefix, which the prompt
// keeps), the body sent has the prefix taken off, the stream flag is read
// from them (a stream that is no bool is not streamed, as before), and the
// prompt read from the members is the one read from the body.
func TestTargetDecodesTheBodyOnce(t *testing.T) {
	g := &Gateway{cfg: Config{File: File{Upstreams: []Upstream{{Name: "up", Kind: KindOpenAI}}}}}
	for _, c := range []struct {
		body     string
		streamed bool
	}{
		{string(agentBody(4<<10, true)), true},
		{string(agentBody(4<<10, false)), false},
		{`{"model":"up/m","stream":"yes","messages":[]}`, false},
		{`{"model":"m","messages":[]}`, false},
	} {
		tg, err := g.targetOf(APIChat, "", []byte(c.body))
		if err != nil {
			t.Fatalf("%.40s: %v", c.body, err)
		}
		if tg.streamed != c.streamed {
			t.Errorf("%.40s: streamed %t, want %t", c.body, tg.streamed, c.streamed)
		}
		var sent struct{ Model string }
		if err := json.Unmarshal(tg.body, &sent); err != nil || sent.Model != "m" && sent.Model != "gpt-4o-mini" || sent.Model != tg.model {
			t.Errorf("%.40s: sent model %q (%v), target model %q", c.body, sent.Model, err, tg.model)
		}
		want := promptOf([]byte(c.body), events.PromptBytesMax)
		got := promptOfMembers(tg.members, len(c.body), events.PromptBytesMax)
		if got.Prompt != want.Prompt || got.Bytes != want.Bytes || got.Truncated != want.Truncated {
			t.Errorf("%.40s: prompt from the members %+v, from the body %+v", c.body, got, want)
		}
	}
}

// BenchmarkRequestDecode: what reading a request's body costs before it
// goes upstream and for its prompt (routing, the model, the stream flag,
// the prompt kept), against one decode of the same body into its members,
// for an agent's request of 32 KiB.
//
//	go test ./internal/gateway -run '^$' -bench RequestDecode -count 5
func BenchmarkRequestDecode(b *testing.B) {
	body := agentBody(32<<10, false)
	g := &Gateway{cfg: Config{File: File{Upstreams: []Upstream{{Name: "up", Kind: KindOpenAI}}}}}
	b.Run("one-decode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gateway", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			tg, err := g.targetOf(APIChat, "", body)
			if err != nil {
				b.Fatal(err)
			}
			_ = promptOfMembers(tg.members, len(body), events.PromptBytesMax)
		}
	})
}
