package gateway

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// heldLog is the gateway's log (the real one) with the frames of one
// stream held back: a publish on subject waits until a resume's lookup
// of subject found nothing stored, and that lookup answers only once the
// relay has stored the whole stream and dropped its live entry. It makes
// the instant a resume fell into wide: the log said "not yet", then the
// stream ended before the gateway asked whether it was live.
type heldLog struct {
	jetstream.JetStream
	subject string
	g       *Gateway      // set once the gateway is made
	open    chan struct{} // closed by the lookup that found nothing
	once    sync.Once
	misses  chan struct{} // one per lookup of subject that found nothing
}

func (l *heldLog) PublishMsgAsync(m *nats.Msg, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	if err := l.hold(m); err != nil {
		return nil, err
	}
	return l.JetStream.PublishMsgAsync(m, opts...)
}

// PublishMsg holds the stream's first message, stored on the condition
// that its subject is empty (relay.claimFirst), as the rest.
func (l *heldLog) PublishMsg(ctx context.Context, m *nats.Msg, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	if err := l.hold(m); err != nil {
		return nil, err
	}
	return l.JetStream.PublishMsg(ctx, m, opts...)
}

func (l *heldLog) hold(m *nats.Msg) error {
	if m.Subject == l.subject {
		select {
		case <-l.open:
		case <-time.After(30 * time.Second): // a bound, not a wait for the condition under test
			return errors.New("heldLog: the stream's frames were never released")
		}
	}
	return nil
}

func (l *heldLog) Stream(ctx context.Context, name string) (jetstream.Stream, error) {
	st, err := l.JetStream.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return &heldStream{Stream: st, l: l}, nil
}

type heldStream struct {
	jetstream.Stream
	l *heldLog
}

func (s *heldStream) GetLastMsgForSubject(ctx context.Context, subject string) (*jetstream.RawStreamMsg, error) {
	m, err := s.Stream.GetLastMsgForSubject(ctx, subject)
	if subject != s.l.subject || !errors.Is(err, jetstream.ErrMsgNotFound) {
		return m, err
	}
	s.l.once.Do(func() {
		close(s.l.open)
		// The answer (nothing stored) leaves only once the relay has
		// stored everything and forgotten the stream as live.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if _, live := s.l.g.liveEnv(subject); !live {
				break
			}
		}
	})
	s.l.misses <- struct{}{}
	return m, err
}

// TestAResumeAsTheStreamEndsFindsIt: a resume at any instant after the
// client saw its stream end finds the whole stream, live or stored. Here
// the instant is the worst one: the log answers that nothing is stored,
// and by the time the gateway would ask whether the stream is being
// relayed, it is stored and no longer live (heldLog). Bob's stream is
// under a response id the upstream reused (alice's, kept before), so the
// owner check is in play too: bob reads back his frames, alice hers.
func TestAResumeAsTheStreamEndsFindsIt(t *testing.T) {
	for _, c := range passthroughCases {
		t.Run(string(c.api), func(t *testing.T) {
			subj, err := events.GatewaySubject("acme", string(c.api), scopedID("bob", c.stream))
			if err != nil {
				t.Fatal(err)
			}
			l := &heldLog{subject: subj, open: make(chan struct{}), misses: make(chan struct{}, 16)}
			tg := startGateway(t, func(cfg *Config) {
				withAliceAndBob(cfg)
				l.JetStream = cfg.JS
				cfg.JS = l
			})
			l.g = tg.Gateway

			resp := tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKeyAlice))
			alice, _ := readSSE(t, resp.Body, 0)
			resp.Body.Close()
			resp = tg.request(t, "POST", c.path, streamBody(c.model), bearer(clientKeyBob))
			bob, _ := readSSE(t, resp.Body, 0)
			resp.Body.Close()
			if got := resp.Header.Get(HeaderStream); got != c.stream {
				t.Fatalf("bob's stream is %q, want the reused id %q", got, c.stream)
			}
			if len(bob) == 0 {
				t.Fatal("bob got no events")
			}
			// Bob saw his stream end; none of its frames is stored yet.
			sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", bearer(clientKeyBob)), bob)
			select {
			case <-l.misses:
			default:
				t.Fatal("the resume never found the log without the stream: the window was not opened")
			}
			sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", bearer(clientKeyAlice)), alice)
			sameEvents(t, resumeAs(t, tg, c.api, c.stream, "", bearer(clientKeyBob)), bob)
		})
	}
}
