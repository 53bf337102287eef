package gateway

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/logread"
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
	aliceReusesTheID(t, tg, first)
}

// TestALookupThatFailsKeepsTheGatewaysID: a response id's lookup that
// gets no answer from the log (here the reads connection is closed: the
// request fails at once, as it would after one reconnecting past the
// lookup's time) does not take the provider's id, whose subject may hold
// another answer's frames: the stream is named by the gateway's own id,
// and the client's answer comes whole and reads back whole.
func TestALookupThatFailsKeepsTheGatewaysID(t *testing.T) {
	tg := startGateway(t, func(cfg *Config) {
		nc, err := DialReads(cfg.JS.Conn())
		if err != nil {
			t.Fatal(err)
		}
		nc.Close()
		cfg.Reads = nc
	})
	c := passthroughCases[0]
	resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKey))
	all, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	stream := resp.Header.Get(HeaderStream)
	if stream == c.stream || !strings.HasPrefix(stream, "gw_") {
		t.Fatalf("a stream whose lookup failed is named %q", stream)
	}
	sameEvents(t, resumeAs(t, tg, c.api, stream, "", bearer(clientKey)), all)
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
		msgs := streamMessages(t, tg, c.api, "", c.stream)
		if len(msgs) == 0 {
			return false
		}
		ev, err := events.DecodeWith(msgs[len(msgs)-1].Data, tg.bus.Keys)
		f, ok := events.As[*events.StreamFrame](ev)
		before = len(msgs)
		return err == nil && ok && f.End
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
