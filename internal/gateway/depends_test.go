package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/runs"
)

// A model declares what a call waits for through run mode: the tools the
// gateway gives it offer $depends_on (by position), the model's second
// call — a lookup, side_effect none, which would run at once — names its
// first (a slow call) by position 1, and the lookup runs only after the
// slow call returned, without $depends_on in the arguments it is given.
func TestRunModeModelDeclaresADependency(t *testing.T) {
	rg := startRunGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := rg.post(ctx, t, "dep-1", "ordered kettle", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	select {
	case <-rg.p.SlowIn:
	case <-ctx.Done():
		t.Fatal("the slow call never ran")
	}
	// The lookup's call is decided, with its dependency, while the slow
	// call is held: it is the executor that holds it back.
	run := gateway.RunID("", "dep-1")
	var lookup runs.Call
	waitFor(t, "the lookup decided", func() bool {
		rd := rg.rounds(t, run)
		if len(rd) != 1 || len(rd[0].Calls) != 2 {
			return false
		}
		lookup = rd[0].Calls[1]
		return lookup.State != runs.CallPending
	})
	if lookup.Name != "lookup" || lookup.State != runs.CallRunning || !slices.Equal(lookup.DependsOn, []string{"call_s1"}) {
		t.Errorf("the lookup while the slow call is held: %+v, want running, depending on call_s1", lookup)
	}
	if ran := rg.p.Ran(); len(ran) != 0 {
		t.Fatalf("ran while the slow call was held: %v", ran)
	}
	close(rg.p.Slow)
	evs, _ := readAll(t, resp.Body)
	if text, meta := chatText(evs); text != answers["chat-weather-answer.jsonl"] || meta == nil {
		t.Errorf("answer %q, meta %v", text, meta)
	}
	if got, want := rg.p.Ran(), []string{"slow", `lookup {"word":"kettle"}`}; !slices.Equal(got, want) {
		t.Errorf("ran %q, want %q (the lookup after the slow call, without $depends_on)", got, want)
	}
	// The model was offered the field, on every tool, by position.
	reqs := rg.up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests upstream, want 2", len(reqs))
	}
	var body struct {
		Tools []struct {
			Function struct {
				Name       string
				Parameters struct {
					Properties map[string]struct {
						Type  string
						Items struct{ Type string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	// The run driver's built-in tools (toolstream_plan, _delegate) are
	// performed by the driver as the round comes, never ordered: they
	// offer no $depends_on.
	registered := 0
	for _, tool := range body.Tools {
		if events.IsBuiltinTool(tool.Function.Name) {
			continue
		}
		registered++
	}
	if registered != len(rg.p.Invoked) {
		t.Errorf("%d registry tools offered, want %d", registered, len(rg.p.Invoked))
	}
	for _, tool := range body.Tools {
		if events.IsBuiltinTool(tool.Function.Name) {
			continue
		}
		if p := tool.Function.Parameters.Properties["$depends_on"]; p.Type != "array" || p.Items.Type != "integer" {
			t.Errorf("tool %s offers $depends_on as %+v", tool.Function.Name, p)
		}
	}
}

// Run mode with an Anthropic upstream offers the field as ts_depends_on
// (Anthropic refuses a property name with '$', and the whole request with
// it), on every registry tool's input_schema, and no property with '$'.
func TestRunModeOffersDependsOnToAnthropic(t *testing.T) {
	rg := startRunGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	body := `{"model":"fake-1","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"weather in Paris?"}]}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rg.srv.URL+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", runKey)
	req.Header.Set(gateway.HeaderMode, "run")
	req.Header.Set(gateway.HeaderRun, "dep-anthropic")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	reqs := rg.up.Requests()
	if len(reqs) == 0 || reqs[0].Path != "/v1/messages" {
		t.Fatalf("upstream requests %d", len(reqs))
	}
	var sent struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Properties map[string]struct {
					Type  string
					Items struct{ Type string }
				}
			} `json:"input_schema"`
		}
	}
	if err := json.Unmarshal(reqs[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.Tools) == 0 {
		t.Fatalf("no tools offered: %s", reqs[0].Body)
	}
	registryTools := 0
	for _, tool := range sent.Tools {
		props := tool.InputSchema.Properties
		for name := range props {
			if strings.ContainsAny(name, "$") {
				t.Errorf("tool %s has property %q, which Anthropic refuses", tool.Name, name)
			}
		}
		if strings.HasPrefix(tool.Name, "toolstream_") {
			continue // the driver's own tools (plans, delegation), which no executor runs
		}
		registryTools++
		if p := props["ts_depends_on"]; p.Type != "array" || p.Items.Type != "integer" {
			t.Errorf("tool %s offers ts_depends_on as %+v", tool.Name, p)
		}
	}
	if registryTools != 4 {
		t.Errorf("%d of the registry's tools offered, want 4", registryTools)
	}
}
