package gateway

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// dyingLog is the gateway's log (the real one) as a process killed
// mid-stream leaves it: the first keep messages published on subject
// reach the log, and nothing after them does (every later publish on it
// fails, as the publishes of a process that died never arrive).
type dyingLog struct {
	jetstream.JetStream
	subject string
	keep    int

	mu   sync.Mutex
	sent int
}

var errKilled = errors.New("dyingLog: the process was killed")

func (l *dyingLog) alive(m *nats.Msg) bool {
	if m.Subject != l.subject {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent++
	return l.sent <= l.keep
}

func (l *dyingLog) PublishMsgAsync(m *nats.Msg, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	if !l.alive(m) {
		return nil, errKilled
	}
	return l.JetStream.PublishMsgAsync(m, opts...)
}

func (l *dyingLog) PublishMsg(ctx context.Context, m *nats.Msg, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	if !l.alive(m) {
		return nil, errKilled
	}
	return l.JetStream.PublishMsg(ctx, m, opts...)
}

// restarted is a new gateway process on tg's log and upstream, with tg's
// configuration: what serves the client after tg's process was killed.
func restarted(t *testing.T, tg *testGateway) *testGateway {
	t.Helper()
	cfg := tg.cfg
	cfg.JS, cfg.Client = tg.bus.JS, nil
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	next := &testGateway{Gateway: g, bus: tg.bus, fake: tg.fake}
	next.serve(t)
	return next
}

// TestAResumeAfterAKillMidStream: a gateway killed in the middle of a
// stream (the log has its prompt and first flush windows, nothing after
// them: dyingLog) and started again on the same log. The client's resume
// through the new process reads every frame the log holds exactly once,
// in order, each with its position as its id, and they are the first
// frames the client read, byte for byte, from the start and from the
// middle. What the promise does not cover is pinned too: the client was
// sent frames the log never got (frames go to the client before they are
// stored, at most logQueueMax and a window behind), and those are lost
// with the process; the log holds no end, so a resume past the last
// stored frame waits for frames that will not come (the test stops
// reading there).
func TestAResumeAfterAKillMidStream(t *testing.T) {
	subj, err := events.GatewaySubject("acme", string(APIResponses), scopedID("eve", "resp_bulk"))
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []int{1, 2, 4} { // the prompt alone; the prompt and one window; three windows
		t.Run("messages kept "+strconv.Itoa(keep), func(t *testing.T) {
			var log *dyingLog
			tg := startGateway(t, func(c *Config) {
				log = &dyingLog{JetStream: c.JS, subject: subj, keep: keep}
				c.JS = log
			})
			eve := map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "eve"}
			resp := tg.request(t, "POST", "/v1/responses", streamBody("bulk-responses"), eve)
			sent, _ := readSSE(t, resp.Body, 0)
			resp.Body.Close()
			if len(sent) != bulkEvents+4 {
				t.Fatalf("the client read %d events, want %d", len(sent), bulkEvents+4)
			}
			// The killed process's publishes that reached the log are
			// acknowledged before its Stream returns; wait for it.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := tg.Wait(ctx); err != nil {
				t.Fatal(err)
			}

			// What the log holds: the prompt, then runs of frames from 0,
			// none missing or repeated, and no end.
			stored := int64(0)
			msgs := streamMessages(t, tg, APIResponses, "eve", "resp_bulk")
			for deadline := time.Now().Add(time.Minute); len(msgs) < keep && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				msgs = streamMessages(t, tg, APIResponses, "eve", "resp_bulk")
			}
			if len(msgs) != keep {
				t.Fatalf("the log holds %d messages of the stream, want the %d kept before the kill", len(msgs), keep)
			}
			for i, m := range msgs {
				ev, err := events.DecodeWith(m.Data, tg.bus.Keys)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := events.As[*events.StreamPrompt](ev); ok && i == 0 {
					continue
				}
				run, ok := events.As[*events.StreamFrames](ev)
				if !ok || run.Pos != stored {
					t.Fatalf("message %d is %s, want frames from %d", i, ev.Kind, stored)
				}
				stored += int64(len(run.Frames))
			}
			if stored >= int64(len(sent)) {
				t.Fatalf("the log holds all %d frames: the kill was not mid-stream", stored)
			}
			t.Logf("killed with %d of the %d frames the client was sent in the log", stored, len(sent))

			again := restarted(t, tg)
			if stored == 0 {
				// Only the prompt: the stream is found, and has no frame to give.
				if _, err := again.openFrames(ctx, APIResponses, Envelope{Tenant: "acme", User: "eve"}, "resp_bulk"); err != nil {
					t.Fatalf("the stream of a kill after its prompt: %v", err)
				}
				return
			}
			for _, from := range []int64{-1, stored / 2} {
				query, want := "", sent[:stored]
				if from >= 0 {
					query, want = "starting_after="+strconv.FormatInt(from, 10), sent[from+1:stored]
				}
				if len(want) == 0 {
					continue
				}
				got := resumeUpTo(t, again, APIResponses, "resp_bulk", query, eve, len(want))
				sameEvents(t, got, want)
			}
		})
	}
}
