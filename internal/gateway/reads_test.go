package gateway

import (
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// TestReusedResponseIDIsFoundOnTheReadsConnection: with Config.Reads the
// lookup of a streamed answer's response id goes on that connection (its
// requests count there) and still finds a reused id: alice's second
// stream under it is named by the gateway's own id, and both read back
// whole.
func TestReusedResponseIDIsFoundOnTheReadsConnection(t *testing.T) {
	var reads *nats.Conn
	tg := startGateway(t, func(cfg *Config) {
		withAliceAndBob(cfg)
		nc, err := DialReads(cfg.JS.Conn())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		reads, cfg.Reads = nc, nc
	})
	c := passthroughCases[0]
	resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKeyAlice))
	first, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	if resp.Header.Get(HeaderStream) != c.stream {
		t.Fatalf("alice's stream is %q", resp.Header.Get(HeaderStream))
	}
	if n := reads.Stats().OutMsgs; n == 0 {
		t.Fatal("the response id's lookup did not go on the reads connection")
	}
	resp = tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKeyAlice))
	again, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	second := resp.Header.Get(HeaderStream)
	if second == c.stream || !strings.HasPrefix(second, "gw_") {
		t.Fatalf("alice's second stream of a reused id is named %q", second)
	}
	sameEvents(t, resumeAs(t, tg, c.api, second, "", bearer(clientKeyAlice)), again)
	sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", bearer(clientKeyAlice)), first)
}
