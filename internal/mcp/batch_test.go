package mcp_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/mcp"
)

// TestAttackABatchIsOneRequest: acme's key holder sends one POST holding
// a JSON-RPC batch of 50 tools/call (protocol 2025-03-26, which had
// batches). A batch would be 50 calls under way behind one of the key's
// KeyRequestsMax places, each waiting CallWait and reading the runs view:
// it is refused 400 whole, nothing reaches the log and weather never
// runs; the same calls one by one are served.
func TestAttackABatchIsOneRequest(t *testing.T) {
	ts := start(t, "", func(c *mcp.Config) { c.KeyRequestsMax = 2 })
	var calls []string
	for i := range 50 {
		calls = append(calls, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Paris"},"_meta":{"%s":"b%d"}}}`, i, mcp.MetaCallKey, i))
	}
	batch := "[" + strings.Join(calls, ",") + "]"
	for _, version := range []string{"2025-03-26", "2025-11-25"} {
		code, _, got := rpc(t, ts.url, "Bearer "+keyA, batch, "Mcp-Protocol-Version", version)
		if code != http.StatusBadRequest {
			t.Errorf("a batch of 50 calls (%s): %d %.200s, want 400", version, code, got)
		}
	}
	if n := modelEvents(t, ts, "acme"); n != 0 || ts.p.Invoked["weather"].Load() != 0 {
		t.Errorf("after the batches: %d model events, weather ran %d times; want none", n, ts.p.Invoked["weather"].Load())
	}
	if code, _, got := rpc(t, ts.url, "Bearer "+keyA, calls[0]); code != http.StatusOK || !strings.Contains(got, "temperature_c") {
		t.Errorf("one call: %d %.200s", code, got)
	}
}
