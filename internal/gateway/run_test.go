package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/runs"
)

const (
	runKey      = "sk-run-test"
	runKeyAlice = "sk-run-alice" // bound to user alice
	runKeyBob   = "sk-run-bob"   // bound to user bob
	runKeyExec  = "sk-run-exec"  // execute: true (passthrough's calls run on the server)
)

// runGateway is a gateway serving run mode on the real pipeline, its
// upstream a fake serving recorded streams by flow (runScript).
type runGateway struct {
	p    *agenttest.Pipeline
	g    *gateway.Gateway
	d    *agent.Driver
	up   *fakeup.Server
	srv  *httptest.Server
	hold map[string]chan struct{} // by question: the first answer pauses mid-stream until closed
	// headersHold, by question: the first answer's status and headers wait
	// until it is closed.
	headersHold map[string]chan struct{}
}

func startRunGateway(t *testing.T) *runGateway { return startRunGatewayWith(t, nil) }

// startRunGatewayWith starts a run gateway whose configuration mut may
// change first.
func startRunGatewayWith(t *testing.T, mut func(*gateway.File)) *runGateway {
	t.Helper()
	rg := &runGateway{p: agenttest.Start(t), hold: map[string]chan struct{}{}, headersHold: map[string]chan struct{}{}}
	rg.up = fakeup.Start(t, rg.script)
	rs := &gateway.RunServer{Heartbeat: 50 * time.Millisecond}
	file := gateway.File{
		Upstreams: []gateway.Upstream{
			{Name: "openai", Kind: gateway.KindOpenAI, BaseURL: rg.up.URL + "/v1", APIKey: "up-openai"},
			{Name: "claude", Kind: gateway.KindAnthropic, BaseURL: rg.up.URL + "/v1", APIKey: "up-anthropic"},
		},
		Keys: []gateway.Key{{SHA256: gateway.HashKey(runKey), Tenant: agenttest.Tenant},
			{SHA256: gateway.HashKey(runKeyAlice), Tenant: agenttest.Tenant, User: "alice"},
			{SHA256: gateway.HashKey(runKeyBob), Tenant: agenttest.Tenant, User: "bob"},
			{SHA256: gateway.HashKey(runKeyExec), Tenant: agenttest.Tenant, Execute: true}},
	}
	if mut != nil {
		mut(&file)
	}
	g, err := gateway.New(gateway.Config{JS: rg.p.B.JS, Keys: rg.p.B.Keys, Runner: rs, File: file})
	if err != nil {
		t.Fatal(err)
	}
	rg.g = g
	rs.Driver = rg.p.Driver(t, "gw-test", gateway.Model(g))
	rg.d = rs.Driver
	rg.srv = httptest.NewServer(g)
	t.Cleanup(func() {
		rg.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		rs.Wait(ctx)
		g.Wait(ctx)
	})
	return rg
}

// flow is a conversation the fake upstream plays: the calls, each with the
// call id its result must come back under, then the answer.
type flow struct {
	calls  []string // recordings
	ids    []string // their call ids
	answer string
}

var flows = map[string]map[string]flow{ // by API path, then by the question's first word
	"/v1/chat/completions": {
		"weather": {[]string{"chat-weather-call.jsonl"}, []string{"call_w1"}, "chat-weather-answer.jsonl"},
		"refund":  {[]string{"chat-refund-call.jsonl"}, []string{"call_r1"}, "chat-refund-answer.jsonl"},
		"slow":    {[]string{"chat-slow-call.jsonl"}, []string{"call_s1"}, "chat-weather-answer.jsonl"},
		"ordered": {[]string{"chat-ordered-calls.jsonl"}, []string{"call_s1", "call_l2"}, "chat-weather-answer.jsonl"},
	},
	"/v1/messages": {
		"weather": {[]string{"anthropic-weather.jsonl"}, []string{"toolu_019Zvehfe1XQWweT1pm7okyt"}, "anthropic-text-only.jsonl"},
	},
	"/v1/responses": {
		"weather": {[]string{"openai-responses-azure-weather.jsonl"}, []string{"call_H5DxLSFnsGhiROnUiDHmgyc8"}, "openai-responses-text-only.jsonl"},
	},
}

// answers are the texts of the flows' answers, as the client must see them.
var answers = map[string]string{
	"chat-weather-answer.jsonl":        "The weather in San Francisco is 18 degrees.",
	"chat-refund-answer.jsonl":         "Order A1 was refunded.",
	"anthropic-text-only.jsonl":        "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
	"openai-responses-text-only.jsonl": "Hello",
}

// script answers a request by its flow: round k (the tool results the
// request carries) gets the k-th call, or the answer once every call's
// result came back — each under its call's id, else the request fails.
func (rg *runGateway) script(n int, path string, body []byte) (fakeup.Answer, error) {
	question, results, err := readRequest(path, body)
	if err != nil {
		return fakeup.Answer{}, err
	}
	word, _, _ := strings.Cut(question, " ")
	if word == "hang" { // an upstream that never answers
		return fakeup.Answer{File: filepath.Join("testdata", "run", "chat-weather-answer.jsonl"), HeadersHold: make(chan struct{})}, nil
	}
	if word == "overloaded" { // the upstream refuses, with what a provider sends along
		api := gateway.APIChat
		if path == "/v1/messages" {
			api = gateway.APIMessages
		}
		return fakeup.Answer{Status: http.StatusTooManyRequests, Body: string(gateway.ErrorBody(api, http.StatusTooManyRequests, "fake: rate limited")),
			Header: http.Header{"Retry-After": {"7"}, "X-Request-Id": {"req_up_1"}, "Request-Id": {"req_up_1"}}}, nil
	}
	if word == "loop" { // a model that calls a tool every round, its last too
		return fakeup.Answer{File: filepath.Join("testdata", "run", "chat-weather-call.jsonl")}, nil
	}
	f, ok := flows[path][word]
	if !ok {
		return fakeup.Answer{}, fmt.Errorf("no flow for %q at %s", question, path)
	}
	if len(results) > len(f.ids) || !slices.Equal(results, f.ids[:len(results)]) {
		return fakeup.Answer{}, fmt.Errorf("%s: tool results under %v, want the first %d of %v", word, results, len(results), f.ids)
	}
	file := f.answer
	if len(results) < len(f.calls) {
		file = f.calls[len(results)]
	}
	a := fakeup.Answer{File: filepath.Join("testdata", "run", file)}
	if len(results) == 0 {
		a.Hold = rg.hold[question]
		a.HeadersHold = rg.headersHold[question]
	}
	return a, nil
}

// readRequest reads a round's request: the user's question and the call
// ids of the tool results it carries, in the API's shape.
func readRequest(path string, body []byte) (question string, results []string, err error) {
	var req struct {
		Stream   bool              `json:"stream"`
		Messages []json.RawMessage `json:"messages"`
		Input    []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", nil, err
	}
	if !req.Stream {
		return "", nil, fmt.Errorf("a round's request must stream: %s", body)
	}
	items := append(req.Messages, req.Input...)
	for _, raw := range items {
		var m struct {
			Role       string          `json:"role"`
			Type       string          `json:"type"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			CallID     string          `json:"call_id"`
		}
		json.Unmarshal(raw, &m)
		var text string
		if question == "" && m.Role == "user" && json.Unmarshal(m.Content, &text) == nil {
			question = text
		}
		switch {
		case m.Role == "tool": // Chat
			results = append(results, m.ToolCallID)
		case m.Type == "function_call_output": // Responses
			results = append(results, m.CallID)
		case m.Role == "user": // Anthropic: tool_result blocks
			var blocks []struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
			}
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "tool_result" {
						results = append(results, b.ToolUseID)
					}
				}
			}
		}
	}
	return question, results, nil
}

// sdkResult is what sdk-run.mjs prints.
type sdkResult struct {
	Left        string           `json:"left"` // chat-leave: how the aborted request ended
	Text        string           `json:"text"`
	ContentNull bool             `json:"contentNull"`
	Final       string           `json:"final"` // responses-helper: the final response's output_text
	Meta        *gateway.RunMeta `json:"meta"`
	Run         string           `json:"run"`
	Stop        string           `json:"stop"`
	Status      string           `json:"status"` // Toolstream-Run-Status
	Usage       *struct{ Input, Output int64 }
	ToolCalls   []struct{ ID, Name, Arguments string } `json:"toolCalls"`
	Odd         []string                               `json:"odd"` // events the SDK yielded that are not the API's
	Error       *struct {
		Status     int
		Name       string
		RetryAfter string
		RequestID  string
		Message    string
	}
}

func (rg *runGateway) sdk(t *testing.T, client, run, question string, env ...string) sdkResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "run", "sdk-run.mjs"))
	out := jstest.Node(ctx, t, append([]string{"GATEWAY_URL=" + rg.srv.URL, "GATEWAY_KEY=" + runKey, "RUN=" + run, "QUESTION=" + question}, env...), script, client)
	var r sdkResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v: %s", client, err, out)
	}
	return r
}

// The official SDKs drive a run of two rounds in each API, streamed and
// not, and through the SDKs' stream helpers (which refuse an event the API
// does not have: a trailing toolstream.run event made responses.stream()
// throw "Unhandled response stream event"): the model calls
// weather, the tool runs once, the second request carries its result under
// the call's id (the fake upstream checks it), and the client gets the
// model's answer with the run's id and verdicts, and the tokens of both
// rounds as the API's usage (Chat 50+80 in, 12+9 out; Responses 45+11,
// 24+11; Anthropic 843+12, 28+30: the recordings').
func TestRunModeWithTheOfficialSDKs(t *testing.T) {
	jstest.Dir(t)
	rg := startRunGateway(t)
	type usage = struct{ Input, Output int64 }
	cases := []struct {
		client, answer string
		usage          usage
	}{
		{"chat-stream", "chat-weather-answer.jsonl", usage{130, 21}},
		{"chat-whole", "chat-weather-answer.jsonl", usage{130, 21}},
		{"chat-helper", "chat-weather-answer.jsonl", usage{}},
		{"responses-stream", "openai-responses-text-only.jsonl", usage{56, 35}},
		{"responses-whole", "openai-responses-text-only.jsonl", usage{56, 35}},
		{"responses-helper", "openai-responses-text-only.jsonl", usage{56, 35}},
		{"messages-stream", "anthropic-text-only.jsonl", usage{855, 58}},
		{"messages-whole", "anthropic-text-only.jsonl", usage{855, 58}},
	}
	for i, c := range cases {
		run := fmt.Sprintf("sdk-%d-%s", i, c.client)
		r := rg.sdk(t, c.client, run, "weather in San Francisco?")
		if r.Text != answers[c.answer] || (r.Run != run && !strings.HasSuffix(c.client, "-helper")) {
			t.Errorf("%s: text %q run %q, want %q and %q", c.client, r.Text, r.Run, answers[c.answer], run)
		}
		if c.client == "responses-helper" && r.Final != answers[c.answer] {
			t.Errorf("%s: finalResponse's output_text %q", c.client, r.Final)
		}
		if len(r.Odd) > 0 {
			t.Errorf("%s: the SDK yielded events the API does not have: %v", c.client, r.Odd)
		}
		if c.usage != (usage{}) && (r.Usage == nil || *r.Usage != c.usage) {
			t.Errorf("%s: usage %+v, want %+v", c.client, r.Usage, c.usage)
		}
		if r.Meta != nil && (r.Meta.Status != agent.StatusAnswered || r.Meta.Run != run || r.Meta.Rounds != 2 || r.Meta.Verdict == nil) {
			t.Errorf("%s: toolstream field %+v", c.client, r.Meta)
		}
		if strings.HasPrefix(c.client, "messages") && r.Stop != "end_turn" {
			t.Errorf("%s: stop_reason %q", c.client, r.Stop)
		}
		if r.Meta == nil {
			t.Errorf("%s: no toolstream field in the answer", c.client)
		}
	}
	if n, want := rg.p.Invoked["weather"].Load(), int32(len(cases)); n != want {
		t.Errorf("weather ran %d times for %d runs", n, want)
	}
	if n, want := len(rg.up.Requests()), 2*len(cases); n != want {
		t.Errorf("%d requests upstream, want %d", n, want)
	}
}

// A call that waits for approval ends the SDK's response with the run's
// status and the call's key; after the approval the client asks again
// under the same run and gets the answer; the tool ran once.
func TestRunModeApprovalWithTheSDK(t *testing.T) {
	jstest.Dir(t)
	rg := startRunGateway(t)
	r := rg.sdk(t, "chat-whole", "refund-1", "refund order A1")
	if r.Meta == nil || r.Meta.Status != agent.StatusWaitingApproval || len(r.Meta.Waiting) != 1 || r.Meta.Waiting[0].Key == "" || r.Text != "" {
		t.Fatalf("before approval: %+v %+v", r, r.Meta)
	}
	// Not an empty answer (content "", finish_reason stop, as it was): the
	// turn ended at the call waiting for a person, in Chat's terms.
	if !r.ContentNull || r.Stop != "tool_calls" || len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "refund" ||
		r.ToolCalls[0].ID != r.Meta.Waiting[0].CallID || !json.Valid([]byte(r.ToolCalls[0].Arguments)) || r.Status != string(agent.StatusWaitingApproval) {
		t.Fatalf("waiting for approval, the SDK read content null %v, finish_reason %q, tool_calls %+v, %s %q",
			r.ContentNull, r.Stop, r.ToolCalls, gateway.HeaderRunStatus, r.Status)
	}
	// The same, streamed.
	if s := rg.sdk(t, "chat-stream", "refund-1", "refund order A1"); s.Stop != "tool_calls" || len(s.ToolCalls) != 1 ||
		s.ToolCalls[0].Name != "refund" || s.Meta == nil || s.Meta.Status != agent.StatusWaitingApproval {
		t.Fatalf("waiting for approval, streamed: %+v", s)
	}
	if n := rg.p.Invoked["refund"].Load(); n != 0 {
		t.Fatalf("refund ran %d times before its approval", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := executor.Approve(ctx, rg.p.B.JS, agenttest.Tenant, r.Meta.Waiting[0].Key, "ops@acme", "checked"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the approval to reach the run", func() bool { return rg.runState(t, "refund-1").Status != runs.StatusWaitingApproval })
	r = rg.sdk(t, "chat-stream", "refund-1", "refund order A1")
	if r.Text != answers["chat-refund-answer.jsonl"] || r.Meta == nil || r.Meta.Status != agent.StatusAnswered {
		t.Fatalf("after approval: %+v %+v", r, r.Meta)
	}
	if n := rg.p.Invoked["refund"].Load(); n != 1 {
		t.Errorf("refund ran %d times", n)
	}
}

// rawEvent is one SSE event as a raw client reads it.
type rawEvent struct {
	id, name, data string
}

// post sends a run-mode request as a raw EventSource-like client and
// returns the response (the caller reads or abandons it).
func (rg *runGateway) post(ctx context.Context, t *testing.T, run, question string, header map[string]string) (*http.Response, error) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "fake-1", "stream": true, "messages": []any{map[string]string{"role": "user", "content": question}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rg.srv.URL+"/v1/chat/completions", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+runKey)
	req.Header.Set(gateway.HeaderMode, "run")
	req.Header.Set(gateway.HeaderRun, run)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return http.DefaultClient.Do(req)
}

// readAll reads a stream's events to its end; comments are counted.
func readAll(t *testing.T, r io.Reader) (evs []rawEvent, comments int) {
	t.Helper()
	sc := bufio.NewScanner(r)
	var cur rawEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" {
				evs = append(evs, cur)
			}
			cur = rawEvent{}
		case strings.HasPrefix(line, ":"):
			comments++
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data += line[6:]
		}
	}
	return evs, comments
}

// chatText is the text of a Chat stream's chunks and the run's status
// (the last chunk's toolstream field). A stream with an event that is not
// Chat's (named, or not a chunk but [DONE]) has no status.
func chatText(evs []rawEvent) (text string, meta *gateway.RunMeta) {
	for _, ev := range evs {
		if ev.name != "" {
			return text, nil
		}
		if ev.data == "[DONE]" {
			continue
		}
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
			Toolstream *gateway.RunMeta `json:"toolstream"`
		}
		if json.Unmarshal([]byte(ev.data), &c) != nil || c.Object != "chat.completion.chunk" {
			return text, nil
		}
		for _, ch := range c.Choices {
			text += ch.Delta.Content
		}
		if c.Toolstream != nil {
			meta = c.Toolstream
		}
	}
	return text, meta
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (rg *runGateway) runState(t *testing.T, run string) runs.Run {
	t.Helper()
	data, _ := json.Marshal(runs.Request{Run: run})
	m, err := rg.p.B.Conn.Request(runs.ServiceSubject("get", agenttest.Tenant), data, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var r runs.Run
	json.Unmarshal(m.Data, &r)
	return r
}

// A client that goes away at any point of a run — while the model's first
// answer streams (before any call), while a tool runs, while a call waits
// for approval — does not stop it: reconnecting under the same run gives
// the answer, every event once (Last-Event-ID resumes after the ones it
// has), and the tool ran once.
func TestDisconnectAtAnyPointTheRunFinishesOnce(t *testing.T) {
	rg := startRunGateway(t)
	rg.hold["weather in Oslo?"] = make(chan struct{})
	for _, c := range []struct {
		name, run, question, tool string
		gone                      func() bool // the point to leave at
		then                      func()      // what happens while the client is away
		answer                    string
	}{
		{"before a call", "dc-1", "weather in Oslo?", "weather",
			func() bool { return len(rg.up.Requests()) >= 1 },
			func() { close(rg.hold["weather in Oslo?"]) }, "chat-weather-answer.jsonl"},
		{"during a tool", "dc-2", "slow please", "slow",
			func() bool { return rg.p.Invoked["slow"].Load() == 1 },
			func() { <-rg.p.SlowIn; close(rg.p.Slow) }, "chat-weather-answer.jsonl"},
		{"waiting for approval", "dc-3", "refund order A1", "refund",
			func() bool { return rg.runState(t, "dc-3").Status == runs.StatusWaitingApproval },
			func() {
				rd := rg.rounds(t, "dc-3")
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if err := executor.Approve(ctx, rg.p.B.JS, agenttest.Tenant, rd[0].Calls[0].Key, "ops@acme", "ok"); err != nil {
					t.Fatal(err)
				}
			}, "chat-refund-answer.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, leave := context.WithCancel(context.Background())
			resp, err := rg.post(ctx, t, c.run, c.question, nil)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, c.name, c.gone)
			leave()
			resp.Body.Close()
			c.then()
			// Back, as often as it takes: a reconnect while the run is under
			// way waits for it; one while it waits for approval is told so.
			var evs []rawEvent
			for {
				resp, err := rg.post(context.Background(), t, c.run, c.question, nil)
				if err != nil {
					t.Fatal(err)
				}
				evs, _ = readAll(t, resp.Body)
				resp.Body.Close()
				if _, meta := chatText(evs); meta != nil && meta.Status == agent.StatusAnswered {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			text, meta := chatText(evs)
			if text != answers[c.answer] || meta.Run != c.run {
				t.Fatalf("answer %q %+v", text, meta)
			}
			for i, ev := range evs {
				if ev.id != fmt.Sprint(i) {
					t.Errorf("event %d has id %q", i, ev.id)
				}
			}
			// Resuming after the events it has gives only the rest.
			last := len(evs) - 3
			resp, err = rg.post(context.Background(), t, c.run, c.question, map[string]string{"Last-Event-ID": fmt.Sprint(last)})
			if err != nil {
				t.Fatal(err)
			}
			rest, _ := readAll(t, resp.Body)
			resp.Body.Close()
			if len(rest) != 2 || rest[0].id != fmt.Sprint(last+1) || rest[1].data != evs[len(evs)-1].data {
				t.Errorf("after Last-Event-ID %d: %+v", last, rest)
			}
			if n := rg.p.Invoked[c.tool].Load(); n != 1 {
				t.Errorf("%s ran %d times", c.tool, n)
			}
		})
	}
	if n := len(rg.up.Requests()); n != 6 {
		t.Errorf("%d requests upstream for three runs of two rounds", n)
	}
}

func (rg *runGateway) rounds(t *testing.T, run string) []runs.Round {
	t.Helper()
	data, _ := json.Marshal(runs.Request{Run: run})
	m, err := rg.p.B.Conn.Request(runs.ServiceSubject("rounds", agenttest.Tenant), data, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var rd []runs.Round
	json.Unmarshal(m.Data, &rd)
	return rd
}

// Toolstream-On-Disconnect: cancel — a client that goes away while a tool
// runs ends the run: the tool finishes, no further round is asked, and a
// later request of the run is told it was cancelled and why.
func TestCancelOnDisconnectStops(t *testing.T) {
	rg := startRunGateway(t)
	ctx, leave := context.WithCancel(context.Background())
	resp, err := rg.post(ctx, t, "cancel-1", "slow please", map[string]string{gateway.HeaderOnDisconnect: "cancel"})
	if err != nil {
		t.Fatal(err)
	}
	<-rg.p.SlowIn
	leave()
	resp.Body.Close()
	// The tool finishes only once the gateway saw the client go: a run
	// that ends before its client is gone has nothing to cancel.
	waitFor(t, "the drive to end", func() bool { return !rg.d.Driving(agenttest.Tenant, "cancel-1") })
	close(rg.p.Slow)
	waitFor(t, "the round to settle", func() bool { return rg.runState(t, "cancel-1").Settled == 1 })
	var body []byte
	waitFor(t, "the cancellation", func() bool {
		resp, err := rg.post(context.Background(), t, "cancel-1", "slow please", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ = io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusConflict
	})
	if !strings.Contains(string(body), agent.ReasonClientDisconnected) {
		t.Errorf("cancelled run's answer: %s", body)
	}
	if n := len(rg.up.Requests()); n != 1 {
		t.Errorf("%d requests upstream, want 1", n)
	}
	if n := rg.p.Invoked["slow"].Load(); n != 1 {
		t.Errorf("slow ran %d times", n)
	}
}

// Toolstream-On-Disconnect: cancel, and the client goes away while the
// model's answer is being read: the read is cut, but what was read is
// logged to its end (the writer closed after the cut), so the response
// ends incomplete at once and its round settles rather than staying open
// until the assembler's silence deadline; the call it had begun never
// runs and no further round is asked.
func TestCancelMidAnswerEndsTheResponse(t *testing.T) {
	rg := startRunGateway(t)
	rg.hold["slow please"] = make(chan struct{}) // never closed: the model pauses mid-call
	ctx, leave := context.WithCancel(context.Background())
	resp, err := rg.post(ctx, t, "cut-1", "slow please", map[string]string{gateway.HeaderOnDisconnect: "cancel"})
	if err != nil {
		t.Fatal(err)
	}
	defer leave()
	// The call's first events are in the log (the runs view shows a round
	// only once a call or the response ends).
	subj, err := events.ModelSubject(agenttest.Tenant, "chatcmpl-s1-1", "call_s1")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the answer's first half in the log", func() bool {
		info, err := rg.p.B.Stream(events.StreamModel).Info(context.Background(), jetstream.WithSubjectFilter(subj))
		return err == nil && info.State.Subjects[subj] > 0
	})
	leave()
	resp.Body.Close()
	waitFor(t, "the drive to end", func() bool { return !rg.d.Driving(agenttest.Tenant, "cut-1") })
	waitFor(t, "the cut round to settle", func() bool { return rg.runState(t, "cut-1").Settled == 1 })
	if r := rg.runState(t, "cut-1"); r.OpenRounds != 0 || r.Rounds != 1 {
		t.Errorf("run %+v", r)
	}
	if n := rg.p.Invoked["slow"].Load(); n != 0 {
		t.Errorf("slow ran %d times; its call was cut", n)
	}
	if n := len(rg.up.Requests()); n != 1 {
		t.Errorf("%d requests upstream, want 1", n)
	}
}

// While a run's tool takes its time, a streamed answer's connection gets
// SSE comments at the heartbeat interval (proxies keep it open; clients
// ignore them), then the answer.
func TestRunModeHeartbeatsWhileAToolRuns(t *testing.T) {
	rg := startRunGateway(t)
	resp, err := rg.post(context.Background(), t, "beat-1", "slow please", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	comments := make(chan struct{}, 1024)
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), ":") {
				comments <- struct{}{}
			}
			lines <- sc.Text()
		}
	}()
	<-rg.p.SlowIn
	<-comments
	<-comments // two heartbeats while the tool runs
	close(rg.p.Slow)
	var b strings.Builder
	for l := range lines {
		b.WriteString(l + "\n")
	}
	evs, _ := readAll(t, strings.NewReader(b.String()))
	if text, meta := chatText(evs); text != answers["chat-weather-answer.jsonl"] || meta == nil || meta.Status != agent.StatusAnswered {
		t.Errorf("answer %q %+v", text, meta)
	}
}

// The OpenAI SDK's program aborts its request while the run's tool runs:
// the run goes on, and the same request again gets the answer; the tool
// ran once and the model was asked twice.
func TestRunModeSDKLeavesDuringATool(t *testing.T) {
	jstest.Dir(t)
	rg := startRunGateway(t)
	leave := filepath.Join(t.TempDir(), "leave")
	left := make(chan sdkResult, 1)
	go func() { left <- rg.sdk(t, "chat-leave", "leave-1", "slow please", "LEAVE_WHEN="+leave) }()
	<-rg.p.SlowIn
	if err := os.WriteFile(leave, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := <-left; r.Left != "ended after 0 chunks" && !strings.HasSuffix(r.Left, "Error") {
		t.Fatalf("the aborted request ended with %q", r.Left)
	}
	close(rg.p.Slow)
	r := rg.sdk(t, "chat-stream", "leave-1", "slow please")
	if r.Text != answers["chat-weather-answer.jsonl"] || r.Meta == nil || r.Meta.Status != agent.StatusAnswered {
		t.Fatalf("after coming back: %+v %+v", r, r.Meta)
	}
	if n := rg.p.Invoked["slow"].Load(); n != 1 {
		t.Errorf("slow ran %d times", n)
	}
	if n := len(rg.up.Requests()); n != 2 {
		t.Errorf("%d requests upstream, want 2", n)
	}
}

// A new question under a Toolstream-Run the client reuses (the README puts
// it in defaultHeaders) continues the run: its new user message is
// recorded, the model is asked again with the whole conversation (the
// first question, the tool round, the answer, the new question), and the
// client gets the new answer — it got the old run's answer without the
// model being asked. The same request again is a retry: its
// answer, no new round. The run's history begins with the client's own
// question, so its Anthropic shape starts with user and alternates (it
// began with the assistant's tool call, which Anthropic refuses).
func TestRunModeNewQuestionContinuesTheRun(t *testing.T) {
	jstest.Dir(t)
	rg := startRunGateway(t)
	const q1 = "weather in San Francisco?"
	// Anthropic: the program sends the conversation so far and the new
	// question.
	first := rg.sdk(t, "messages-whole", "cont-1", q1)
	if first.Text != answers["anthropic-text-only.jsonl"] || len(rg.up.Requests()) != 2 {
		t.Fatalf("first question: %+v, %d requests upstream", first, len(rg.up.Requests()))
	}
	followup := []string{"PREVIOUS=" + first.Text, "FOLLOWUP=and what should I wear?"}
	second := rg.sdk(t, "messages-followup", "cont-1", q1, followup...)
	reqs := rg.up.Requests()
	if len(reqs) != 3 || second.Text != answers["anthropic-text-only.jsonl"] || second.Meta == nil || second.Meta.Rounds != 3 {
		t.Fatalf("follow-up: %+v %+v, %d requests upstream (want 3: the model asked again)", second, second.Meta, len(reqs))
	}
	roles, last := anthropicRoles(t, reqs[2].Body)
	if want := []string{"user", "assistant", "user", "assistant", "user"}; !slices.Equal(roles, want) || last != "and what should I wear?" {
		t.Errorf("the follow-up's request to the model: roles %v, last user text %q; want %v ending with the new question", roles, last, want)
	}
	if again := rg.sdk(t, "messages-followup", "cont-1", q1, followup...); again.Text != second.Text || len(rg.up.Requests()) != 3 {
		t.Errorf("the same follow-up again: %+v, %d requests upstream (want 3: a retry asks nothing)", again, len(rg.up.Requests()))
	}
	if n := rg.p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times", n)
	}
	data, _ := json.Marshal(runs.Request{Run: "cont-1", HistoryOptions: runs.HistoryOptions{Format: runs.FormatAnthropic}})
	m, err := rg.p.B.Conn.Request(runs.ServiceSubject("history", agenttest.Tenant), data, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var h runs.History
	json.Unmarshal(m.Data, &h)
	hroles, hlast := anthropicRoles(t, []byte(`{"stream":true,"messages":`+string(h.Messages)+`}`))
	if want := []string{"user", "assistant", "user", "assistant", "user", "assistant"}; !slices.Equal(hroles, want) || hlast != "and what should I wear?" {
		t.Errorf("history %s: roles %v, want %v", h.Messages, hroles, want)
	}
	var msgs []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	json.Unmarshal(h.Messages, &msgs)
	if len(msgs) == 0 || msgs[0].Content != q1 {
		t.Errorf("history begins with %+v, want the client's question", msgs)
	}

	// Chat: the program reuses the run with only the new question.
	rg.sdk(t, "chat-whole", "cont-2", q1)
	n := len(rg.up.Requests())
	if r := rg.sdk(t, "chat-whole", "cont-2", "and tomorrow?"); r.Text != answers["chat-weather-answer.jsonl"] || len(rg.up.Requests()) != n+1 {
		t.Fatalf("chat follow-up: %+v, %d requests upstream, want %d", r, len(rg.up.Requests()), n+1)
	}
	var chat struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(rg.up.Requests()[n].Body, &chat)
	var roles2 []string
	for _, m := range chat.Messages {
		roles2 = append(roles2, m.Role)
	}
	if want := []string{"user", "assistant", "tool", "assistant", "user"}; !slices.Equal(roles2, want) || chat.Messages[len(chat.Messages)-1].Content != "and tomorrow?" {
		t.Errorf("chat follow-up's request: roles %v, want %v ending with the new question", roles2, want)
	}
}

// anthropicRoles reads an Anthropic request's roles and its last user
// message's text.
func anthropicRoles(t *testing.T, body []byte) (roles []string, lastUser string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
		var s string
		if m.Role == "user" && json.Unmarshal(m.Content, &s) == nil {
			lastUser = s
		}
	}
	return roles, lastUser
}

// The upstream refuses a run's round (429): the SDK gets the provider's
// error with the upstream's Retry-After and request id, so its caller
// waits as the provider asked and the provider's support can find the
// request (run mode dropped both; passthrough kept them), in both APIs.
// The SDK does not retry it itself (TestRunModeFailedRunIsNotRetried).
func TestRunModeKeepsTheUpstreamsErrorHeaders(t *testing.T) {
	jstest.Dir(t)
	rg := startRunGateway(t)
	for _, c := range []struct{ client, name string }{{"chat-error", "RateLimitError"}, {"messages-error", "RateLimitError"}} {
		r := rg.sdk(t, c.client, "err-"+c.client, "overloaded please")
		if r.Error == nil || r.Error.Status != http.StatusTooManyRequests || r.Error.Name != c.name || r.Error.RetryAfter != "7" ||
			r.Error.RequestID != "req_up_1" || !strings.Contains(r.Error.Message, "fake: rate limited") {
			t.Errorf("%s: the SDK's error %+v, want a 429 %s with Retry-After 7 and request id req_up_1", c.client, r.Error, c.name)
		}
	}
}

// Passthrough records and assembles the calls of an answer but runs
// nothing: the client that streams a tool call runs it itself (the
// gateway ran the registry's tool as well, so a client that runs its own
// tools ran them twice). The official SDK streams a weather call
// through passthrough: the call is assembled (the runs view shows it,
// run_by_client) and the tool does not run. With Toolstream-Execute:
// server it runs, once; a key with execute: true is the same for every
// request of the key (TestPassthroughKeyExecutes). The executor takes
// calls in the log's order, so once the second call ran the first was
// seen and skipped.
func TestPassthroughRunsNoToolUnlessAsked(t *testing.T) {
	jstest.Dir(t)
	rg := startRunGateway(t)
	r := rg.sdk(t, "chat-passthrough", "pt-1", "weather in Oslo?")
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "weather" || r.Stop != "tool_calls" {
		t.Fatalf("the SDK read %+v", r)
	}
	run := gateway.RunID("", "pt-1")
	waitFor(t, "the call assembled", func() bool {
		rd := rg.rounds(t, run)
		return len(rd) == 1 && len(rd[0].Calls) == 1 && rd[0].Calls[0].State == runs.CallClient
	})
	r = rg.sdk(t, "chat-passthrough", "pt-2", "weather in Oslo?", "EXECUTE=server")
	if len(r.ToolCalls) != 1 {
		t.Fatalf("the SDK read %+v", r)
	}
	waitFor(t, "the call run on the server", func() bool { return rg.p.Invoked["weather"].Load() == 1 })
	waitFor(t, "its result in the run", func() bool {
		rd := rg.rounds(t, gateway.RunID("", "pt-2"))
		return len(rd) == 1 && len(rd[0].Calls) == 1 && rd[0].Calls[0].State == runs.CallSucceeded
	})
	if n := rg.p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times: the passthrough call the client runs itself ran on the server too", n)
	}
	if st := rg.rounds(t, run)[0].Calls[0].State; st != runs.CallClient {
		t.Errorf("the client's call is %s", st)
	}
}

// A key with execute: true has its passthrough calls run on the server
// without asking per request; Toolstream-Execute: client on a request of
// it has the client run them.
func TestPassthroughKeyExecutes(t *testing.T) {
	jstest.Dir(t)
	rg := startRunGateway(t)
	rg.sdk(t, "chat-passthrough", "pk-1", "weather in Oslo?", "GATEWAY_KEY="+runKeyExec, "EXECUTE=client")
	waitFor(t, "the client's call assembled", func() bool {
		rd := rg.rounds(t, gateway.RunID("", "pk-1"))
		return len(rd) == 1 && len(rd[0].Calls) == 1 && rd[0].Calls[0].State == runs.CallClient
	})
	rg.sdk(t, "chat-passthrough", "pk-2", "weather in Oslo?", "GATEWAY_KEY="+runKeyExec)
	waitFor(t, "the key's call run on the server", func() bool { return rg.p.Invoked["weather"].Load() == 1 })
	waitFor(t, "its result in the run", func() bool {
		rd := rg.rounds(t, gateway.RunID("", "pk-2"))
		return len(rd) == 1 && len(rd[0].Calls) == 1 && rd[0].Calls[0].State == runs.CallSucceeded
	})
	if n := rg.p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times, want once (the key's request, not the one that asked for the client)", n)
	}
}

// An upstream that never answers a run's round: the gateway's
// first_byte_timeout ends the wait and the SDK gets the provider's 504
// well within its own timeout (a hanging upstream held a run-mode client
// 40 s past its SDK's timeout, heartbeats keeping the connection open),
// whole and streamed.
func TestRunModeUpstreamTimeoutReachesTheSDK(t *testing.T) {
	jstest.Dir(t)
	zero := 0
	rg := startRunGatewayWith(t, func(f *gateway.File) {
		f.Routing.Retries = &zero
		for i := range f.Upstreams {
			f.Upstreams[i].FirstByteTimeout = 500 * time.Millisecond
		}
	})
	for _, client := range []string{"chat-error", "chat-stream-error"} {
		start := time.Now()
		r := rg.sdk(t, client, "hang-"+client, "hang forever", "SDK_TIMEOUT_MS=20000")
		took := time.Since(start)
		// A stream the heartbeats began has no status left to give: the
		// error is its error event, the provider's body.
		if r.Error == nil || client == "chat-error" && r.Error.Status != http.StatusGatewayTimeout || !strings.Contains(r.Error.Message, "did not answer in time") {
			t.Errorf("%s: the SDK's error %+v, want the provider's 504", client, r.Error)
		}
		if took > 15*time.Second {
			t.Errorf("%s: the SDK waited %v for a 500 ms first-byte timeout", client, took)
		}
	}
}

// A run's rounds count against the key of the request that drives it, as
// passthrough's answers do: the key's usage (what its budgets and rates
// read) is the tokens of both rounds, the same the answer reports and the
// runs view sums.
func TestRunModeUsageCountsAgainstTheKey(t *testing.T) {
	jstest.Dir(t)
	rg := startRunGateway(t)
	r := rg.sdk(t, "chat-whole", "use-1", "weather in San Francisco?")
	if r.Usage == nil || r.Usage.Input != 130 || r.Usage.Output != 21 {
		t.Fatalf("the answer's usage %+v", r.Usage)
	}
	if got := rg.g.Usage(gateway.HashKey(runKey)).DayTokens; got != 151 {
		t.Errorf("the key used %d tokens, want 151 (50+12 and 80+9)", got)
	}
	if st := rg.runState(t, "use-1"); st.InputTokens != 130 || st.OutputTokens != 21 {
		t.Errorf("the runs view sums %d in, %d out", st.InputTokens, st.OutputTokens)
	}
}

// TestRunModeFailedRunIsNotRetried: a run that failed (rounds_exhausted:
// the model still called a tool after its last round) answered 502, which
// the official SDKs retry twice by default: the README's run-mode script
// with the openai package started three runs of 8 rounds each (review
// rev13). A run whose upstream refused its round (a 429 the gateway's pool
// had retried already, or a 502 of its own) answered with the upstream's
// status and no X-Should-Retry, so each SDK retry started a new run that
// failed again (review rev16). Every failed run's answer now says
// X-Should-Retry: false, which both SDKs obey; its status, error and the
// upstream's headers are as before.
func TestRunModeFailedRunIsNotRetried(t *testing.T) {
	rg := startRunGateway(t)
	for _, c := range []struct {
		run, content string
		status       int
		body         string // in the answer's error
		retryAfter   string // the upstream's, kept
		reason       string // the runs view's end reason
	}{
		{"loop-1", "loop for ever", http.StatusBadGateway, "rounds_exhausted", "", "rounds_exhausted"},
		{"busy-1", "overloaded please", http.StatusTooManyRequests, "fake: rate limited", "7", "upstream_error"},
	} {
		t.Run(c.run, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			body := `{"model":"fake-1","messages":[{"role":"user","content":"` + c.content + `"}]}`
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, rg.srv.URL+"/v1/chat/completions", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+runKey)
			req.Header.Set(gateway.HeaderMode, "run")
			req.Header.Set(gateway.HeaderRun, c.run)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || !strings.Contains(string(got), c.body) {
				t.Fatalf("%q: %d %s; want %d %s", c.content, resp.StatusCode, got, c.status, c.body)
			}
			if h := resp.Header.Get(gateway.HeaderShouldRetry); h != "false" {
				t.Errorf("%s: %q; want false (an SDK retrying starts the run again)", gateway.HeaderShouldRetry, h)
			}
			if h := resp.Header.Get("Retry-After"); h != c.retryAfter {
				t.Errorf("Retry-After %q; want %q (the upstream's, kept)", h, c.retryAfter)
			}
			if h := resp.Header.Get(gateway.HeaderRunStatus); h != "failed" {
				t.Errorf("%s: %q; want failed (as on every answer that is not a stream)", gateway.HeaderRunStatus, h)
			}
			// The runs view says so too (it said settled: the last round's
			// status), once it has applied the run's end: the answer can
			// reach the client before the view (a loaded machine took 14 s).
			waitFor(t, "the runs view to apply the run's end", func() bool { return rg.runState(t, c.run).Ended != "" })
			if r := rg.runState(t, c.run); r.Status != runs.StatusFailed || r.Ended != runs.StatusFailed || r.EndReason != c.reason {
				t.Errorf("the run as the runs view has it: status %q, ended %q (%s); want failed, %s", r.Status, r.Ended, r.EndReason, c.reason)
			}
		})
	}
}
