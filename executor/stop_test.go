package executor_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestStoppingEndsARunningToolsContext: a tool's context is not a child
// of the executor's (one shared map of children for every call in flight),
// so stopping must end it by hand. An executor whose drain runs out while a
// tool waits on its context (its contract allows it ten minutes) ends that
// context and returns from Run.
func TestStoppingEndsARunningToolsContext(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - {name: waits, side_effect: none, timeout: 10m}
grants:
  - {tenant: acme, permissions: [waits]}
`)
	entered, ended := make(chan struct{}), make(chan struct{})
	waits := executor.ToolFunc(func(ctx context.Context, _ executor.Call) (json.RawMessage, error) {
		close(entered)
		<-ctx.Done()
		close(ended)
		return nil, ctx.Err()
	})
	_, stop := startExec(t, b, reg, map[string]executor.Tool{"waits": waits}, func(c *executor.Config) {
		c.DrainTimeout = 100 * time.Millisecond
	})
	publishCall(t, b, callSpec{tenant: "acme", tool: "waits", call: "w1"})
	<-entered
	go stop() // Run returns once the drain has run out and the tool has ended
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the executor stopped, and the tool's context is still open")
	}
}
