package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/registry"
)

// The examples run against an embedded server of their own (what
// toolstream serve runs), with the parts of the server each needs.

// sse is a provider's stream as an SSE proxy sees it: OpenAI Chat
// Completions chunks calling get_weather.
const sse = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]
`

// server is an embedded server in a directory of its own, with the data
// keys and the assembler running; stop ends it.
type server struct {
	b    *bus.Bus
	dir  string
	stop []func()
}

func startServer() *server {
	dir, err := os.MkdirTemp("", "toolstream-example-")
	if err != nil {
		panic(err)
	}
	b, err := bus.Open(context.Background(), bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Name: "example"})
	if err != nil {
		panic(err)
	}
	if b.Keys, err = keys.Open(context.Background(), keys.Config{JS: b.JS, Create: true}); err != nil {
		panic(err)
	}
	// The keys service, as serve runs it: producers ask it for their keys.
	stopKeys, err := bustest.StartKeys(b)
	if err != nil {
		panic(err)
	}
	s := &server{b: b, dir: dir, stop: []func(){stopKeys}}
	n := stack.NewNode(b, dir+"/views", nil)
	if _, err := n.Start(context.Background(), assembler.New(assembler.Config{}), nil); err != nil {
		panic(err)
	}
	s.stop = append(s.stop, func() { n.Stop() })
	return s
}

func (s *server) close() {
	for i := len(s.stop) - 1; i >= 0; i-- {
		s.stop[i]()
	}
	s.b.Close()
	os.RemoveAll(s.dir)
}

// as is a connection option of one identity of the server (what a
// .creds file from toolstream creds gives: client.WithCredsFile).
func (s *server) as(id auth.Identity) client.Option {
	opts, err := s.b.UserOptions(id)
	if err != nil {
		panic(err)
	}
	return client.WithNATSOptions(opts...)
}

// produce publishes a stream as a producer of its tenant does.
func produce(s *server, stream string, st client.Stream) {
	ctx := context.Background()
	c, err := client.Connect(ctx, client.WithURL(s.b.ClientURL()), s.as(auth.Identity{Role: auth.RoleProducer, Tenant: st.Tenant}))
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if _, err := c.Publish(ctx, strings.NewReader(stream), client.WithStream(st)); err != nil {
		panic(err)
	}
}

// Producing: a proxy passes each event of the provider's stream on as it
// goes by; the writer normalises and seals them and publishes the
// canonical events.
func ExampleWriter() {
	s := startServer()
	defer s.close()
	ctx := context.Background()

	c, err := client.Connect(ctx, client.WithURL(s.b.ClientURL()), s.as(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	w, err := c.NewWriter(ctx, client.WithStream(client.Stream{Tenant: "acme", ID: "req-1", Format: "openai-chat"}),
		client.WithUser("ann"), client.WithRun("run-1", "1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, block := range strings.Split(sse, "\n\n") {
		data, ok := strings.CutPrefix(strings.TrimSpace(block), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		if err := w.Write(ctx, []byte(data)); err != nil {
			fmt.Println(err)
			return
		}
	}
	pub, err := w.Close(ctx)
	fmt.Println(pub.Raw, "raw events published as", pub.Model, "model events", err)
	// Output: 4 raw events published as 5 model events <nil>
}

// Producing a whole stream (a file, a response body) in one call.
func ExampleClient_Publish() {
	s := startServer()
	defer s.close()
	ctx := context.Background()

	c, err := client.Connect(ctx, client.WithURL(s.b.ClientURL()), s.as(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	pub, err := c.Publish(ctx, strings.NewReader(sse), client.WithStream(client.Stream{Tenant: "acme", ID: "req-1", User: "ann"}))
	fmt.Println(pub.Raw, "raw events", err)
	// Output: 4 raw events <nil>
}

// Consuming: the calls the assembler decided, as typed values, following
// the log; a consumer stores call.Seq and resumes with client.After.
func ExampleClient_Calls() {
	s := startServer()
	defer s.close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	produce(s, sse, client.Stream{Tenant: "acme", ID: "req-1", User: "ann"})
	c, err := client.Connect(ctx, client.WithURL(s.b.ClientURL()), s.as(auth.Identity{Role: auth.RoleOperator}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for call, err := range c.Calls(ctx, "acme", client.Follow()) {
		if err != nil {
			fmt.Println(err) // a *client.MalformedError says where; the iteration goes on
			continue
		}
		fmt.Println(call.Outcome, call.Tool, string(call.Arguments), call.CallID, call.User)
		break // a consumer would go on, storing call.Seq
	}
	// Output: completed get_weather {"city":"Paris"} call_1 ann
}

// Deciding: a call to a tool that needs approval waits until someone
// approves it, or denies it with a reason the model reads.
func ExampleClient_Approve() {
	s := startServer()
	defer s.close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stop := startExampleExecutor(s.b)
	defer stop()

	wire := strings.NewReplacer("get_weather", "wire", `{\"city\":`, `{\"amount\":`, `\"Paris\"}`, `10}`).Replace(sse)
	produce(s, wire, client.Stream{Tenant: "acme", ID: "req-1", User: "ann", Run: "run-1", Step: "1"})
	c, err := client.Connect(ctx, client.WithURL(s.b.ClientURL()), s.as(auth.Identity{Role: auth.RoleOperator}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for a, err := range c.Approvals(ctx, "acme", client.Follow()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("waiting:", a.Tool, string(a.Arguments))
		break
	}
	key, err := c.Approve(ctx, "acme", "call_1", client.By("alice"), client.Because("checked the amount"))
	fmt.Println("approved", key, err)
	for r, err := range c.Results(ctx, "acme", client.Follow()) {
		fmt.Println("result:", r.OK, string(r.Result), err)
		break
	}
	// Output:
	// waiting: wire {"amount":10}
	// approved acme/run-1/1/call_1 <nil>
	// result: true {"sent":true} <nil>
}

// startExampleExecutor runs an executor of the wire tool, which needs
// approval (side_effect: irreversible).
func startExampleExecutor(b *bus.Bus) (stop func()) {
	return startToolExecutor(b, wireYAML, "wire", `{"sent":true}`)
}

// weatherYAML is a tool that runs without approval.
const weatherYAML = `
tools:
  - name: get_weather
    side_effect: none
    input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
grants:
  - tenant: acme
    permissions: [get_weather]
`

// startToolExecutor runs an executor of the tools of registry yaml, the
// tool named answering result.
func startToolExecutor(b *bus.Bus, yaml, tool, result string) (stop func()) {
	reg, err := registry.Parse([]byte(yaml))
	if err != nil {
		panic(err)
	}
	fn := executor.ToolFunc(func(context.Context, executor.Call) (json.RawMessage, error) {
		return json.RawMessage(result), nil
	})
	e, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, Registry: func() *registry.Registry { return reg },
		Tools: map[string]executor.Tool{tool: fn}, DrainTimeout: 5 * time.Second})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	return func() { cancel(); <-done }
}

// Runs: a producer's own loop keeps its plan in the run's state; a write
// carries the version it read, and a stale one is refused with the
// current version.
func ExampleClient_WritePlan() {
	s := startServer()
	defer s.close()
	stop, err := services(s.b, s.dir+"/services")
	if err != nil {
		panic(err)
	}
	s.stop = append(s.stop, stop)
	ctx := context.Background()

	c, err := client.Connect(ctx, client.WithURL(s.b.ClientURL()), s.as(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if _, err := c.Say(ctx, "acme", "run-1", "ann", "m1", "What is the weather in Paris?", "openai-chat"); err != nil {
		fmt.Println(err)
		return
	}
	run, err := c.Run(ctx, "acme", "run-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.WritePlan(ctx, "acme", "run-1", json.RawMessage(`{"goal":"answer about Paris"}`), run.Version, "loop")
	fmt.Println("plan written:", err)
	_, err = c.WritePlan(ctx, "acme", "run-1", json.RawMessage(`{"goal":"something else"}`), run.Version, "late")
	fmt.Println("stale:", errors.Is(err, client.ErrStaleVersion))
	h, err := c.History(ctx, "acme", "run-1", runs.HistoryOptions{Format: "openai-chat"})
	fmt.Println(string(h.Messages), err)
	// Output:
	// plan written: <nil>
	// stale: true
	// [{"content":"What is the weather in Paris?","role":"user"}] <nil>
}

// Memory: what a user said is remembered, recalled, and forgotten for
// good.
func ExampleClient_Recall() {
	s := startServer()
	defer s.close()
	stop, err := services(s.b, s.dir+"/services")
	if err != nil {
		panic(err)
	}
	s.stop = append(s.stop, stop)
	ctx := context.Background()

	c, err := client.Connect(ctx, client.WithURL(s.b.ClientURL()), s.as(auth.Identity{Role: auth.RoleOperator}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	_, err = c.Observe(ctx, "acme", "ann", client.Observation{ID: "car", Kind: "fact", Subject: "ann", Attribute: "car", Value: "volvo",
		Text: "Ann drives a Volvo", At: at})
	fmt.Println("observed:", err)
	out, err := c.Recall(ctx, "acme", "ann", "which car does Ann drive", client.RecallOptions{K: 1, At: at.Add(time.Hour)})
	if err == nil && len(out.Results) > 0 {
		fmt.Println("recalled:", out.Results[0].ID, out.Results[0].Text)
	}
	f, err := c.Forget(ctx, "acme", "ann", "car")
	fmt.Println("forgotten:", f.Applied, err)
	_, err = c.RecordHistory(ctx, "acme", "ann", "car")
	fmt.Println("gone:", errors.Is(err, client.ErrNotFound))
	res, err := c.EraseUser(ctx, "acme", "ann")
	fmt.Println("user erased, tombstones in", len(res.Tombstones), "streams:", err)
	// Output:
	// observed: <nil>
	// recalled: car Ann drives a Volvo
	// forgotten: true <nil>
	// gone: true
	// user erased, tombstones in 6 streams: <nil>
}
