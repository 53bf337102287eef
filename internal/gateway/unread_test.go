package gateway

import (
	"context"
	"testing"
	"time"
)

// TestAStreamNobodyReadsIsLoggedWhole: a client holding acme's key asks
// for a stream of about 10 MB and never reads a byte of it, its
// connection left open. The upstream read does not depend on the client:
// once a write has waited ClientStall for the client the client is
// dropped, the upstream read ends and the log holds every frame (before,
// the write waited for ever: the upstream read, its connection and the
// key's place were held as long as the client's connection, and the log
// never had the answer), and the key is served again.
func TestAStreamNobodyReadsIsLoggedWhole(t *testing.T) {
	tg := startGateway(t, func(c *Config) { c.ClientStall = 500 * time.Millisecond })
	body := `{"model":"huge-responses","stream":true,"input":"go on"}`
	conn := rawPost(t, tg, "/v1/responses", clientKey, body)
	defer conn.Close()
	waitFor(t, "the upstream to get the request", func() bool {
		tg.fake.mu.Lock()
		defer tg.fake.mu.Unlock()
		return len(tg.fake.requests) > 0
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tg.Wait(ctx); err != nil {
		t.Fatalf("the upstream read of a stream nobody reads did not end: %v", err)
	}
	if got, want := resumeAll(t, tg, APIResponses, "resp_bulk", ""), bulkOf(hugeEvents); len(got) != len(want) {
		t.Errorf("the log holds %d frames of the stream, want %d", len(got), len(want))
	}
	normalStream(t, tg)
}
