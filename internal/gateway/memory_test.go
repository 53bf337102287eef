package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/jstest"
)

// memGateway is a run gateway on the real pipeline with the memory
// projection and service, its upstream a fake that answers every round
// with a text (no call) and records what it was asked.
type memGateway struct {
	p   *agenttest.Pipeline
	up  *fakeup.Server
	srv *httptest.Server
	mem *client.Client
}

const runKeyAliceNoMemory = "sk-run-alice-nomem" // alice's, memory: false

func startMemGateway(t *testing.T) *memGateway {
	t.Helper()
	mg := &memGateway{p: agenttest.StartWith(t, agenttest.Options{Memory: true})}
	mg.up = fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		file := map[string]string{"/v1/chat/completions": "chat-weather-answer.jsonl", "/v1/messages": "anthropic-text-only.jsonl",
			"/v1/responses": "openai-responses-text-only.jsonl"}[path]
		return fakeup.Answer{File: filepath.Join("testdata", "run", file)}, nil
	})
	rs := &gateway.RunServer{Heartbeat: 50 * time.Millisecond}
	off := false
	g, err := gateway.New(gateway.Config{JS: mg.p.B.JS, Keys: mg.p.B.Keys, Runner: rs, File: gateway.File{
		Upstreams: []gateway.Upstream{
			{Name: "openai", Kind: gateway.KindOpenAI, BaseURL: mg.up.URL + "/v1", APIKey: "up-openai"},
			{Name: "claude", Kind: gateway.KindAnthropic, BaseURL: mg.up.URL + "/v1", APIKey: "up-anthropic"},
		},
		Keys: []gateway.Key{{SHA256: gateway.HashKey(runKey), Tenant: agenttest.Tenant},
			{SHA256: gateway.HashKey(runKeyAlice), Tenant: agenttest.Tenant, User: "alice"},
			{SHA256: gateway.HashKey(runKeyBob), Tenant: agenttest.Tenant, User: "bob"},
			{SHA256: gateway.HashKey(runKeyAliceNoMemory), Tenant: agenttest.Tenant, User: "alice", Memory: &off}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rs.Driver = mg.p.Driver(t, "gw-mem-test", gateway.Model(g), func(c *agent.Config) { c.Memory.RecallBudgetTokens = 300 })
	mg.srv = httptest.NewServer(g)
	t.Cleanup(func() {
		mg.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		rs.Wait(ctx)
		g.Wait(ctx)
	})
	if mg.mem, err = client.Connect(context.Background(), client.WithConn(mg.p.B.Conn), client.WithKeys(mg.p.B.Keys)); err != nil {
		t.Fatal(err)
	}
	return mg
}

// ask sends a whole (not streamed) run-mode request and returns the
// answer's status and body.
func (mg *memGateway) ask(t *testing.T, key, path, run, body string, header map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, mg.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("x-api-key", key)
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set(gateway.HeaderMode, "run")
	req.Header.Set(gateway.HeaderRun, run)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func chatBody(question string) string {
	b, _ := json.Marshal(map[string]any{"model": "fake-1", "messages": []any{map[string]string{"role": "user", "content": question}}})
	return string(b)
}

// lastRequest is the body of the latest request the upstream got.
func (mg *memGateway) lastRequest(t *testing.T) string {
	t.Helper()
	reqs := mg.up.Requests()
	if len(reqs) == 0 {
		t.Fatal("the upstream got no request")
	}
	return string(reqs[len(reqs)-1].Body)
}

// versions counts every version of every record of a user's memory.
func (mg *memGateway) versions(t *testing.T, user string) int {
	t.Helper()
	recs, err := mg.mem.Records(context.Background(), agenttest.Tenant, user, true)
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

// A user's messages in run mode are written to the user's memory, and
// each round of a later run is given the user's recalled memory in the
// provider's own shape: a Chat system message, the Responses
// instructions, the Anthropic system prompt, beside the client's own. A
// retry of the request writes nothing twice; another user's run, a key
// with memory: false and a request with Toolstream-Memory: off are given
// nothing of it.
func TestRunModeMemoryInTheLoop(t *testing.T) {
	mg := startMemGateway(t)
	ctx := context.Background()

	// Run 1: alice says she is allergic to peanuts.
	said := chatBody("I'm allergic to peanuts. What is the weather like?")
	if st, body := mg.ask(t, runKeyAlice, "/v1/chat/completions", "mem-1", said, nil); st != http.StatusOK {
		t.Fatalf("run 1: %d %s", st, body)
	}
	recs, err := mg.mem.Records(ctx, agenttest.Tenant, "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	var constraint string
	for _, r := range recs {
		if r.Kind == "constraint" && strings.Contains(strings.ToLower(r.Text), "peanut") {
			constraint = r.ID
		}
	}
	if constraint == "" {
		t.Fatalf("alice's memory after run 1 has no peanut constraint: %+v", recs)
	}
	if !strings.HasPrefix(constraint, "run:") || !strings.Contains(constraint, "mem-1") {
		t.Errorf("the record %q does not name the run its message came from", constraint)
	}
	n, asked := mg.versions(t, "alice"), len(mg.up.Requests())
	// The same request again (a retry) asks nothing and writes nothing.
	if st, body := mg.ask(t, runKeyAlice, "/v1/chat/completions", "mem-1", said, nil); st != http.StatusOK {
		t.Fatalf("run 1 again: %d %s", st, body)
	}
	if got := mg.versions(t, "alice"); got != n || len(mg.up.Requests()) != asked {
		t.Errorf("the retry: %d record versions (want %d), %d upstream requests (want %d)", got, n, len(mg.up.Requests()), asked)
	}

	// Run 2 (Chat): the round is given the constraint as a system message
	// before the user's question.
	st, body := mg.ask(t, runKeyAlice, "/v1/chat/completions", "mem-2", chatBody("What should I cook tonight?"), nil)
	if st != http.StatusOK {
		t.Fatalf("run 2: %d %s", st, body)
	}
	var chat struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(mg.lastRequest(t)), &chat); err != nil {
		t.Fatal(err)
	}
	if len(chat.Messages) != 2 || chat.Messages[0].Role != "system" || chat.Messages[1].Role != "user" {
		t.Fatalf("run 2's request: %+v, want the recalled memory as a system message, then the question", chat.Messages)
	}
	sys, _ := chat.Messages[0].Content.(string)
	if _, first, _ := strings.Cut(sys, "\n- "); !strings.HasPrefix(sys, "Recalled memory") || !strings.HasPrefix(first, "[constraint]") || !strings.Contains(strings.ToLower(first), "peanut") {
		t.Errorf("run 2's system message: %q, want the recalled peanut constraint first", sys)
	}
	var ans struct {
		Toolstream gateway.RunMeta `json:"toolstream"`
	}
	json.Unmarshal([]byte(body), &ans)
	found := false
	for _, r := range ans.Toolstream.Recalled {
		found = found || r.ID == constraint && r.Kind == "constraint"
	}
	if !found {
		t.Errorf("run 2's answer says it recalled %+v, want %s", ans.Toolstream.Recalled, constraint)
	}

	// Anthropic: beside the client's system prompt.
	anth := `{"model":"claude-fake","max_tokens":100,"system":"You are a cook.","messages":[{"role":"user","content":"What should I cook tonight?"}]}`
	if st, body := mg.ask(t, runKeyAlice, "/v1/messages", "mem-3", anth, nil); st != http.StatusOK {
		t.Fatalf("run 3: %d %s", st, body)
	}
	var am struct {
		System string `json:"system"`
	}
	json.Unmarshal([]byte(mg.lastRequest(t)), &am)
	if !strings.HasPrefix(am.System, "You are a cook.\n\nRecalled memory") || !strings.Contains(strings.ToLower(am.System), "peanut") {
		t.Errorf("run 3's system: %q, want the client's, then the recalled constraint", am.System)
	}
	// Responses: in the instructions.
	resp := `{"model":"fake-1","input":"What should I cook tonight?"}`
	if st, body := mg.ask(t, runKeyAlice, "/v1/responses", "mem-4", resp, nil); st != http.StatusOK {
		t.Fatalf("run 4: %d %s", st, body)
	}
	var rm struct {
		Instructions string `json:"instructions"`
	}
	json.Unmarshal([]byte(mg.lastRequest(t)), &rm)
	if !strings.HasPrefix(rm.Instructions, "Recalled memory") || !strings.Contains(strings.ToLower(rm.Instructions), "peanut") {
		t.Errorf("run 4's instructions: %q, want the recalled constraint", rm.Instructions)
	}

	// Bob asks the same: nothing of alice's memory reaches his run.
	if st, body := mg.ask(t, runKeyBob, "/v1/chat/completions", "mem-5", chatBody("What should I cook tonight?"), nil); st != http.StatusOK {
		t.Fatalf("bob's run: %d %s", st, body)
	}
	if b := mg.lastRequest(t); strings.Contains(b, "Recalled memory") || strings.Contains(b, "peanut") {
		t.Errorf("bob's request was given alice's memory: %s", b)
	}
	// Nor to a key without a user (no memory of anyone is read).
	if st, body := mg.ask(t, runKey, "/v1/chat/completions", "mem-6", chatBody("What should I cook tonight?"), nil); st != http.StatusOK {
		t.Fatalf("a run without a user: %d %s", st, body)
	}
	if b := mg.lastRequest(t); strings.Contains(b, "Recalled memory") {
		t.Errorf("a run without a user was given memory: %s", b)
	}

	// Off: a key with memory: false, and a request with Toolstream-Memory:
	// off, neither recall nor write.
	n = mg.versions(t, "alice")
	if st, body := mg.ask(t, runKeyAliceNoMemory, "/v1/chat/completions", "mem-7", chatBody("I live in Lisbon. What should I cook tonight?"), nil); st != http.StatusOK {
		t.Fatalf("memory: false: %d %s", st, body)
	}
	if b := mg.lastRequest(t); strings.Contains(b, "Recalled memory") {
		t.Errorf("a key with memory: false was given memory: %s", b)
	}
	if st, body := mg.ask(t, runKeyAlice, "/v1/chat/completions", "mem-8", chatBody("I live in Porto. What should I cook tonight?"),
		map[string]string{gateway.HeaderMemory: "off"}); st != http.StatusOK {
		t.Fatalf("Toolstream-Memory: off: %d %s", st, body)
	}
	if b := mg.lastRequest(t); strings.Contains(b, "Recalled memory") {
		t.Errorf("a request with Toolstream-Memory: off was given memory: %s", b)
	}
	if got := mg.versions(t, "alice"); got != n {
		t.Errorf("memory off wrote %d record versions", got-n)
	}
	if bobs := mg.versions(t, "bob"); bobs == 0 {
		t.Errorf("bob's own message was not written to his memory")
	}
	// A message memory will not take (over its 64 KiB) is not
	// remembered, and the run goes on.
	n = mg.versions(t, "alice")
	if st, body := mg.ask(t, runKeyAlice, "/v1/chat/completions", "mem-10", chatBody(strings.Repeat("peanut butter ", 6000)), nil); st != http.StatusOK {
		t.Errorf("a message too long for memory: %d %s, want the run's answer", st, body)
	}
	if got := mg.versions(t, "alice"); got != n {
		t.Errorf("a message too long for memory wrote %d record versions", got-n)
	}
	asked = len(mg.up.Requests())
	if st, body := mg.ask(t, runKeyAlice, "/v1/chat/completions", "mem-9", chatBody("hi"), map[string]string{gateway.HeaderMemory: "maybe"}); st != http.StatusBadRequest ||
		len(mg.up.Requests()) != asked {
		t.Errorf("Toolstream-Memory: maybe: %d %s, %d upstream requests; want 400 and none", st, body, len(mg.up.Requests())-asked)
	}
}

// The official OpenAI SDK, under alice's key: what she said in one run
// (streamed) is recalled into the next (whole), and the answer's
// toolstream field names the record given.
func TestRunModeMemoryWithTheSDK(t *testing.T) {
	jstest.Dir(t)
	mg := startMemGateway(t)
	sdk := func(client, run, question string) sdkResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		script, _ := filepath.Abs(filepath.Join("testdata", "run", "sdk-run.mjs"))
		out := jstest.Node(ctx, t, []string{"GATEWAY_URL=" + mg.srv.URL, "GATEWAY_KEY=" + runKeyAlice, "RUN=" + run, "QUESTION=" + question}, script, client)
		var r sdkResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s: %v: %s", client, err, out)
		}
		return r
	}
	if r := sdk("chat-stream", "sdk-mem-1", "I'm allergic to peanuts."); r.Text != answers["chat-weather-answer.jsonl"] {
		t.Fatalf("run 1: %+v", r)
	}
	r := sdk("chat-whole", "sdk-mem-2", "What should I cook tonight?")
	if r.Text != answers["chat-weather-answer.jsonl"] || r.Meta == nil || len(r.Meta.Recalled) == 0 || r.Meta.Recalled[0].Kind != "constraint" ||
		!strings.Contains(r.Meta.Recalled[0].ID, "sdk-mem-1") {
		t.Fatalf("run 2: %+v %+v, want the constraint from run sdk-mem-1 recalled", r, r.Meta)
	}
	if b := mg.lastRequest(t); !strings.Contains(b, `"role":"system"`) || !strings.Contains(strings.ToLower(b), "peanut") {
		t.Errorf("run 2's request upstream: %s, want the recalled constraint", b)
	}
}

// The gateway file's memory section and a key's memory: false are read.
func TestMemoryConfigReads(t *testing.T) {
	f, err := gateway.ParseFile([]byte(`
upstreams:
  - {name: openai, kind: openai, base_url: http://127.0.0.1:1/v1}
memory: {off: true, recall_budget_tokens: 120}
keys:
  - {key_sha256: `+gateway.HashKey("a")+`, tenant: acme, memory: false}
  - {key_sha256: `+gateway.HashKey("b")+`, tenant: acme}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Memory.Off || f.Memory.RecallBudgetTokens != 120 {
		t.Errorf("memory section: %+v", f.Memory)
	}
	if k := f.Keys[0]; k.Memory == nil || *k.Memory {
		t.Errorf("key with memory: false: %v", k.Memory)
	}
	if k := f.Keys[1]; k.Memory != nil {
		t.Errorf("key without memory: %v, want nil (the gateway's setting)", *k.Memory)
	}
}
