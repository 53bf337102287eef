package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/runs"
)

// The recalled memory goes where each provider reads a system prompt,
// beside the client's own, which stays first.
func TestWithMemoryShapes(t *testing.T) {
	const mem = "Recalled memory of this user: - [constraint] I'm allergic to peanuts"
	cases := []struct {
		format, body, key, want string
	}{
		{runs.FormatChat, `{"messages":[{"role":"system","content":"Be brief."},{"role":"developer","content":"Use metric."},{"role":"user","content":"hi"}]}`,
			"messages", `[{"role":"system","content":"Be brief."},{"role":"developer","content":"Use metric."},{"content":"` + mem + `","role":"system"},{"role":"user","content":"hi"}]`},
		{runs.FormatChat, `{"messages":[{"role":"user","content":"hi"}]}`,
			"messages", `[{"content":"` + mem + `","role":"system"},{"role":"user","content":"hi"}]`},
		{runs.FormatResponses, `{"input":"hi","instructions":"Be brief."}`, "instructions", `"Be brief.\n\n` + mem + `"`},
		{runs.FormatResponses, `{"input":"hi"}`, "instructions", `"` + mem + `"`},
		{runs.FormatAnthropic, `{"messages":[{"role":"user","content":"hi"}],"system":"Be brief."}`, "system", `"Be brief.\n\n` + mem + `"`},
		{runs.FormatAnthropic, `{"messages":[{"role":"user","content":"hi"}],"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}]}`,
			"system", `[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}},{"text":"` + mem + `","type":"text"}]`},
	}
	for _, c := range cases {
		body, err := parseBody([]byte(c.body))
		if err != nil {
			t.Fatal(err)
		}
		conv, err := clientConversation(c.format, body)
		if err != nil {
			t.Fatal(err)
		}
		before, _ := json.Marshal(body)
		out, conv2, err := withMemory(c.format, body, conv, mem)
		if err != nil {
			t.Fatal(err)
		}
		got := string(out[c.key])
		if c.key == "messages" {
			b, _ := json.Marshal(conv2)
			got = string(b)
		}
		if got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.format, c.body, got, c.want)
		}
		if after, _ := json.Marshal(body); string(after) != string(before) {
			t.Errorf("%s: the client's body (the run's stored request) was changed: %s", c.format, after)
		}
	}
	// No memory: the body as it was.
	body, _ := parseBody([]byte(`{"input":"hi"}`))
	if out, _, _ := withMemory(runs.FormatResponses, body, nil, ""); out["instructions"] != nil {
		t.Errorf("no memory added instructions: %s", out["instructions"])
	}
}

// A message's memory id names its run and turn, and stays within
// memory's id bound for any run name.
func TestMemoryMessageID(t *testing.T) {
	id := memoryMessageID("mem-1", "0123456789abcdef0123", 2)
	if id != "run:mem-1:0123456789abcdef:2" || !strings.HasPrefix(id, memoryRunPrefix("mem-1")) {
		t.Errorf("id %q", id)
	}
	long := memoryMessageID(strings.Repeat("r", 1000), "0123456789abcdef", 0)
	if len(long) > 200 || !strings.HasPrefix(long, memoryRunPrefix(strings.Repeat("r", 1000))) || long == memoryMessageID(strings.Repeat("r", 999), "0123456789abcdef", 0) {
		t.Errorf("long run's id %q", long)
	}
}
