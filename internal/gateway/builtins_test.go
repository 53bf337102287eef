package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
)

// A key's plans: false (delegate: false) leaves toolstream_plan
// (toolstream_delegate) out of every request its runs make, through the
// real gateway: the key's setting reaches the driver (agent.Spec), and
// the other built-in and the registry's tools are offered as before. A
// key without them offers both.
func TestKeyTurnsBuiltinsOff(t *testing.T) {
	p := agenttest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		return fakeup.Answer{File: filepath.Join("testdata", "run", "chat-weather-answer.jsonl")}, nil
	})
	const keyNoPlans, keyNoDelegate = "sk-run-noplans", "sk-run-nodelegate"
	off := false
	rs := &gateway.RunServer{Heartbeat: 50 * time.Millisecond}
	g, err := gateway.New(gateway.Config{JS: p.B.JS, Keys: p.B.Keys, Runner: rs, File: gateway.File{
		Upstreams: []gateway.Upstream{{Name: "openai", Kind: gateway.KindOpenAI, BaseURL: up.URL + "/v1", APIKey: "up-openai"}},
		Keys: []gateway.Key{{SHA256: gateway.HashKey(runKey), Tenant: agenttest.Tenant},
			{SHA256: gateway.HashKey(keyNoPlans), Tenant: agenttest.Tenant, Plans: &off},
			{SHA256: gateway.HashKey(keyNoDelegate), Tenant: agenttest.Tenant, Delegate: &off}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rs.Driver = p.Driver(t, "gw-builtins-test", gateway.Model(g))
	mg := &memGateway{p: p, up: up, srv: httptest.NewServer(g)}
	t.Cleanup(func() {
		mg.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		rs.Wait(ctx)
		g.Wait(ctx)
	})
	for _, tc := range []struct {
		key, run       string
		plan, delegate bool
	}{
		{runKey, "bi-1", true, true},
		{keyNoPlans, "bi-2", false, true},
		{keyNoDelegate, "bi-3", true, false},
	} {
		if st, body := mg.ask(t, tc.key, "/v1/chat/completions", tc.run, chatBody("What's the weather in San Francisco?"), nil); st != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.run, st, body)
		}
		var req struct {
			Tools []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		if err := json.Unmarshal([]byte(mg.lastRequest(t)), &req); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range req.Tools {
			names = append(names, tl.Function.Name)
		}
		if slices.Contains(names, events.ToolPlan) != tc.plan || slices.Contains(names, events.ToolDelegate) != tc.delegate || !slices.Contains(names, "weather") {
			t.Errorf("%s: the request offers %v, want plan %v, delegate %v and weather", tc.run, names, tc.plan, tc.delegate)
		}
	}
}
