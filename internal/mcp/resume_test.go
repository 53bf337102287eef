package mcp_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolstream/toolstream/internal/mcp"
)

// TestCallOutlivesItsRequest: a call belongs to the log, not to its HTTP
// request. A call of the slow tool that outlasts CallWait is answered
// isError saying it still waits and naming the key it was given (the
// client named none); a call whose client goes away goes on. Once the
// tool returns, calling again with either key and the same arguments
// (written otherwise) answers the outcome of the same call: the slow
// tool ran twice for the two calls, never again. A key sent with other
// arguments is another call, which runs.
func TestCallOutlivesItsRequest(t *testing.T) {
	ts := start(t, "", func(c *mcp.Config) { c.CallWait = 500 * time.Millisecond })
	cs := connect(t, ts.url, keyA, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"n": 1}})
	if err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile(`mcp-[0-9a-f]{32}`).FindString(text(res))
	if !res.IsError || !strings.Contains(text(res), "still waiting") || key == "" {
		t.Fatalf("a call past CallWait: isError %v, %q; want it said to be waiting, with a key", res.IsError, text(res))
	}

	// A client that goes away while the call runs.
	gone, leave := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(gone, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"n": 2}, Meta: sdk.Meta{mcp.MetaCallKey: "k2"}})
		errc <- err
	}()
	for range 2 { // both calls have started the tool
		select {
		case <-ts.p.SlowIn:
		case <-ctx.Done():
			t.Fatal("the slow tool never started")
		}
	}
	leave()
	if err := <-errc; err == nil {
		t.Fatal("the call whose client went away answered")
	}

	close(ts.p.Slow)
	for _, c := range []struct {
		k    string
		args any
	}{{key, map[string]any{"n": 1}}, {"k2", json.RawMessage(`{ "n" : 2 }`)}} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "slow", Arguments: c.args, Meta: sdk.Meta{mcp.MetaCallKey: c.k}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || text(res) != `{"done":true}` {
			t.Errorf("calling again with %s: isError %v, %q; want the call's outcome", c.k, res.IsError, text(res))
		}
	}
	if n := ts.p.Invoked["slow"].Load(); n != 2 {
		t.Errorf("slow ran %d times for two calls, want 2", n)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"n": 3}, Meta: sdk.Meta{mcp.MetaCallKey: "k2"}})
	if err != nil || res.IsError || ts.p.Invoked["slow"].Load() != 3 {
		t.Errorf("k2 with other arguments: %v, %+v; slow ran %d times, want a third call", err, res, ts.p.Invoked["slow"].Load())
	}
}
