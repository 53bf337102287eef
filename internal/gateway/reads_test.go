package gateway

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/logread"
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

// TestAttackTheReadsConnectionHasNoMoreThanTheLogConnection
// (docs/security.md): DialReads copies the log connection's options, so
// the reads connection is that identity and no other. A gateway's log
// connection as a reader (its credential, through the real server): the
// reads connection looks up a stored stream (a reader reads the log), and
// its publish of a forged frame onto that stream's subject, and of a
// stream's deletion, are permissions violations. Victim: the subject holds
// the messages it held and a resumption gives the events the client read.
func TestAttackTheReadsConnectionHasNoMoreThanTheLogConnection(t *testing.T) {
	tg := startGateway(t, nil)
	c := passthroughCases[1]
	resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKey))
	all, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	var before int
	eventually(t, func() bool {
		before = endKept(t, tg, c.api, c.stream)
		return before > 0
	}, "the stream's end frame was not kept")
	subj, err := events.GatewaySubject("acme", string(c.api), scopedID("", c.stream))
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var errs []error
	opts, err := tg.bus.UserOptions(auth.Identity{Role: auth.RoleReader})
	if err != nil {
		t.Fatal(err)
	}
	log, err := nats.Connect(tg.bus.ClientURL(), append(opts, nats.Name("gateway as reader"), nats.NoCallbacksAfterClientClose(),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			mu.Lock()
			defer mu.Unlock()
			errs = append(errs, err)
		}))...)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	reads, err := DialReads(log)
	if err != nil {
		t.Fatal(err)
	}
	defer reads.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := logread.Last(ctx, reads, events.StreamGateway, subj); err != nil {
		t.Fatalf("the reader's reads connection cannot look the stream up: %v", err)
	}
	ev := &events.Event{ID: events.StreamFrameID("acme", string(c.api), scopedID("", c.stream), 1000), Tenant: "acme", Response: c.stream, At: 1,
		Body: &events.StreamFrames{Pos: 0, Frames: []events.FrameData{{Data: `{"forged":true}`}}}}
	data, err := events.EncodeSealed(ev, tg.bus.Keys, "")
	if err != nil {
		t.Fatal(err)
	}
	tries := []*nats.Msg{
		{Subject: subj, Data: data, Header: nats.Header{jetstream.MsgIDHeader: []string{ev.ID}}},
		{Subject: "$JS.API.STREAM.DELETE." + events.StreamGateway},
	}
	for _, m := range tries {
		if err := reads.PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := reads.FlushTimeout(time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, m := range tries {
		eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			for _, err := range errs {
				if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), `Publish to "`+m.Subject+`"`) {
					return true
				}
			}
			return false
		}, "the reader's reads connection published to %s with no permissions violation", m.Subject)
	}
	if n := len(streamMessages(t, tg, c.api, "", c.stream)); n != before {
		t.Fatalf("the stream's subject holds %d messages, %d before the attack", n, before)
	}
	sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", bearer(clientKey)), all)
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
