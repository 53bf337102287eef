package gateway

import (
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
)

// TestAStreamReadsNothingFromTheLog: a streamed answer's first byte
// waits for no read of the log (the response id's lookup, a direct get,
// was a round trip before it): relaying one stream of each API, the
// gateway asks the log for no message, while each answer is kept whole
// under the provider's id. Then one resumption's get is seen, so the
// watch sees gets. A reused id is the log's to refuse (aliceReusesTheID).
func TestAStreamReadsNothingFromTheLog(t *testing.T) {
	tg := startGateway(t, nil)
	nc := tg.bus.JS.Conn() // the gateway's own: it sees what it sends
	var gets atomic.Int64  // direct gets and message gets of the gateway's stream
	for _, subj := range []string{"$JS.API.DIRECT.GET." + events.StreamGateway, "$JS.API.DIRECT.GET." + events.StreamGateway + ".>",
		"$JS.API.STREAM.MSG.GET." + events.StreamGateway} {
		sub, err := nc.Subscribe(subj, func(*nats.Msg) { gets.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	got := map[API][]sseEvent{}
	for _, c := range passthroughCases {
		resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKey))
		got[c.api], _ = readSSE(t, resp.Body, 0)
		resp.Body.Close()
		if s := resp.Header.Get(HeaderStream); s != c.stream || len(got[c.api]) == 0 {
			t.Fatalf("%s: the stream is named %q (want the provider's %q), %d events", c.api, s, c.stream, len(got[c.api]))
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := gets.Load(); n != 0 {
		t.Fatalf("relaying %d streams asked the log for %d messages, want none", len(passthroughCases), n)
	}
	for _, c := range passthroughCases {
		eventually(t, func() bool { return endKept(t, tg, c.api, c.stream) > 0 }, "%s: the stream's end was not kept", c.api)
	}
	c := passthroughCases[0]
	sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", bearer(clientKey)), got[c.api])
	eventually(t, func() bool { return gets.Load() > 0 }, "the watch saw no resumption's get of %s", events.StreamGateway)
}

// endKept is how many messages the log holds of the tenant's stream once
// its last is the end frame; 0 before.
func endKept(t *testing.T, tg *testGateway, api API, stream string) int {
	t.Helper()
	msgs := streamMessages(t, tg, api, "", stream)
	if len(msgs) == 0 {
		return 0
	}
	ev, err := events.DecodeWith(msgs[len(msgs)-1].Data, tg.bus.Keys)
	if f, ok := events.As[*events.StreamFrame](ev); err != nil || !ok || !f.End {
		return 0
	}
	return len(msgs)
}
