package jstest

import (
	"context"
	"strings"
	"testing"
)

// TestClientsLoad proves the installed packages import under this node: a
// version that needs a newer node fails here rather than in every test.
func TestClientsLoad(t *testing.T) {
	script := `Promise.all(["openai","@anthropic-ai/sdk","nats","@msgpack/msgpack","puppeteer-core","@modelcontextprotocol/sdk/client/index.js","@modelcontextprotocol/sdk/server/mcp.js"].map(m => import(m))).then(ms => console.log(ms.length))`
	got := strings.TrimSpace(string(Node(context.Background(), t, nil, "--input-type=module", "-e", script)))
	if got != "7" {
		t.Fatalf("imported %q modules, want 7", got)
	}
}
