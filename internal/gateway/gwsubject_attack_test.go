package gateway

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
)

// TestAttackNoRoleForgesAStreamsPromptOrFrames (docs/security.md): the
// gateway keeps a passthrough stream's prompt (gw.prompt) and its frames
// per flush window (gw.frames) on ts.gw.…, which a resumption hands to the
// client as the provider's words. Every role but the admin (the gateway's
// own identity), each with its own credentials through the real server,
// publishes a forged prompt and a forged run of frames, sealed under the
// victim's key, onto the victim's stream subject; the producer also tries
// to read TS_GW through the JetStream API. Attacker: each publish (and
// the producer's read) is a permissions violation. Victim: the subject
// holds exactly the messages it held, and a resumption gives exactly the
// events the victim read.
func TestAttackNoRoleForgesAStreamsPromptOrFrames(t *testing.T) {
	tg := startGateway(t, nil)
	c := passthroughCases[1] // Chat
	eve := map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "eve"}
	resp := tg.request(t, "POST", c.path, streamBody(c.model), eve)
	all, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	var before int
	eventually(t, func() bool { // the client's answer ends before the log has it all
		msgs := streamMessages(t, tg, c.api, "eve", c.stream)
		if len(msgs) == 0 {
			return false
		}
		ev, err := events.DecodeWith(msgs[len(msgs)-1].Data, tg.bus.Keys)
		f, ok := events.As[*events.StreamFrame](ev)
		before = len(msgs)
		return err == nil && ok && f.End
	}, "the stream's end frame was not kept")

	stream := scopedID("eve", c.stream)
	subj, err := events.GatewaySubject("acme", string(c.api), stream)
	if err != nil {
		t.Fatal(err)
	}
	forged := func(id string, body events.Body) *nats.Msg {
		ev := &events.Event{ID: id, Tenant: "acme", User: "eve", Response: c.stream, At: 1, Body: body}
		data, err := events.EncodeSealed(ev, tg.bus.Keys, "")
		if err != nil {
			t.Fatal(err)
		}
		return &nats.Msg{Subject: subj, Data: data, Header: nats.Header{jetstream.MsgIDHeader: []string{ev.ID}}}
	}
	msgs := []*nats.Msg{
		forged(events.StreamPromptID("acme", string(c.api), stream)+"x", &events.StreamPrompt{Prompt: `{"messages":"forged"}`, Bytes: 21}),
		forged(events.StreamFrameID("acme", string(c.api), stream, 1000), &events.StreamFrames{Pos: 0, Frames: []events.FrameData{{Data: `{"forged":true}`}}}),
	}
	for _, r := range auth.Roles {
		if r == auth.RoleAdmin || r == auth.RoleSys { // the gateway's own identity; sys is another account
			continue
		}
		t.Run(string(r), func(t *testing.T) {
			id := auth.Identity{Role: r}
			if r == auth.RoleProducer {
				id.Tenant = "acme"
			}
			var mu sync.Mutex
			var errs []error
			opts, err := tg.bus.UserOptions(id)
			if err != nil {
				t.Fatal(err)
			}
			nc, err := nats.Connect(tg.bus.ClientURL(), append(opts, nats.NoCallbacksAfterClientClose(),
				nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
					mu.Lock()
					defer mu.Unlock()
					errs = append(errs, err)
				}))...)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			tries := append([]*nats.Msg(nil), msgs...)
			if r == auth.RoleProducer {
				tries = append(tries, &nats.Msg{Subject: "$JS.API.STREAM.MSG.GET." + events.StreamGateway, Data: []byte(`{"last_by_subj":"` + subj + `"}`)})
			}
			for _, m := range tries {
				if err := nc.PublishMsg(m); err != nil {
					t.Fatal(err)
				}
			}
			// The violations arrive before the flush's pong; the handler
			// runs a little later.
			if err := nc.FlushTimeout(time.Minute); err != nil {
				t.Fatal(err)
			}
			refused := func(subject string) bool {
				mu.Lock()
				defer mu.Unlock()
				for _, err := range errs {
					if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), `Publish to "`+subject+`"`) {
						return true
					}
				}
				return false
			}
			for _, m := range tries {
				eventually(t, func() bool { return refused(m.Subject) }, "%s published to %s with no permissions violation", r, m.Subject)
			}
		})
	}
	if n := len(streamMessages(t, tg, c.api, "eve", c.stream)); n != before {
		t.Fatalf("the victim's subject holds %d messages, %d before the attacks", n, before)
	}
	sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", eve), all)
}
