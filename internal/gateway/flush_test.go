package gateway

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/logread"
)

// streamMessages reads every message of one stream's subject in TS_GW.
func streamMessages(t *testing.T, tg *testGateway, api API, user, stream string) []*logread.Msg {
	t.Helper()
	subj, err := events.GatewaySubject("acme", string(api), scopedID(user, stream))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []*logread.Msg
	if err := logread.Read(ctx, logread.Config{Conn: tg.bus.JS.Conn(), Stream: events.StreamGateway, Filter: subj}, func(ms []*logread.Msg) error {
		out = append(out, ms...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFramesKeptPerFlushWindow: a stream of 5,004 events is kept as runs
// of frames after the request's prompt (gw.prompt, then gw.frames, each sealed under the user's key, positions
// consecutive from 0 with none missing or repeated) and the end frame,
// never more messages than frames; resuming it from the start and from
// the middle gives exactly what the client read; after the user is
// erased no message of it can be read (ErrErased).
func TestFramesKeptPerFlushWindow(t *testing.T) {
	tg := startGateway(t, nil)
	eve := map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "eve"}
	resp := tg.request(t, "POST", "/v1/responses", streamBody("bulk-responses"), eve)
	all, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	if len(all) != bulkEvents+4 {
		t.Fatalf("%d events read, want %d", len(all), bulkEvents+4)
	}
	// The client's answer ends before the log has it all: wait for the end frame.
	var msgs []*logread.Msg
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		msgs = streamMessages(t, tg, APIResponses, "eve", "resp_bulk")
		if len(msgs) > 0 {
			ev, err := events.DecodeWith(msgs[len(msgs)-1].Data, tg.bus.Keys)
			if f, ok := events.As[*events.StreamFrame](ev); err == nil && ok && f.End {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream's end frame was not kept within a minute (%d messages)", len(msgs))
		}
	}
	if len(msgs) < 3 || len(msgs) > len(all)+2 { // the prompt, the frames, the end
		t.Fatalf("%d messages for %d frames", len(msgs), len(all))
	}
	next := int64(0)
	for i, m := range msgs {
		ev, err := events.DecodeWith(m.Data, tg.bus.Keys)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Sealed == "" || ev.User != "eve" {
			t.Fatalf("message %d is not sealed for eve: %+v", i, ev)
		}
		if _, ok := events.As[*events.StreamPrompt](ev); ok && i == 0 { // the passthrough request's prompt goes first
			continue
		}
		if i == len(msgs)-1 {
			if f, ok := events.As[*events.StreamFrame](ev); !ok || !f.End || f.Pos != int64(len(all)) {
				t.Fatalf("the last message is %s, want the end frame at %d", ev.Kind, len(all))
			}
			continue
		}
		run, ok := events.As[*events.StreamFrames](ev)
		if !ok || run.Pos != next || len(run.Frames) == 0 {
			t.Fatalf("message %d is %s, want frames from %d", i, ev.Kind, next)
		}
		bytes := 0
		for _, f := range run.Frames {
			bytes += len(f.Data)
		}
		if len(run.Frames) > 1 && bytes > frameBatchBytes { // a window is one frame or fits the bound
			t.Fatalf("message %d keeps %d frames of %d bytes, over %d", i, len(run.Frames), bytes, frameBatchBytes)
		}
		for k, f := range run.Frames {
			if w := all[next+int64(k)]; f.Event != w.Event || f.Data != w.Data {
				t.Fatalf("frame %d is %.80s, the client read %.80s", next+int64(k), f.Data, w.Data)
			}
		}
		next += int64(len(run.Frames))
	}
	if next != int64(len(all)) {
		t.Fatalf("%d frames kept, %d read", next, len(all))
	}
	t.Logf("%d frames kept in %d messages", len(all), len(msgs))
	sameEvents(t, resumeAs(t, tg, APIResponses, "resp_bulk", "", eve), all)
	sameEvents(t, resumeAs(t, tg, APIResponses, "resp_bulk", "starting_after=2500", eve), all[2501:])

	ks, ok := tg.bus.Keys.(*keys.Store)
	if !ok {
		t.Fatalf("keys %T", tg.bus.Keys)
	}
	if _, err := erasure.User(context.Background(), tg.bus, ks, "acme", "eve"); err != nil {
		t.Fatal(err)
	}
	for i, m := range streamMessages(t, tg, APIResponses, "eve", "resp_bulk") {
		if _, err := events.DecodeWith(m.Data, tg.bus.Keys); !errors.Is(err, events.ErrErased) {
			t.Fatalf("message %d after the erasure: %v, want ErrErased", i, err)
		}
	}
}

// TestResumeReadsOneFrameMessages: a stream kept one message a frame (as
// a gateway before flush windows kept them: gw.frame) is still resumed
// whole and from the middle.
func TestResumeReadsOneFrameMessages(t *testing.T) {
	tg := startGateway(t, nil)
	const stream = "chatcmpl-old"
	subj, err := events.GatewaySubject("acme", string(APIChat), scopedID("", stream))
	if err != nil {
		t.Fatal(err)
	}
	var want []sseEvent
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for pos := int64(0); pos <= 5; pos++ {
		f := &events.StreamFrame{Pos: pos, End: pos == 5}
		if !f.End {
			f.Data = `{"id":"chatcmpl-old","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"w` + strconv.FormatInt(pos, 10) + `"}}]}`
			want = append(want, sseEvent{ID: strconv.FormatInt(pos, 10), Data: f.Data})
		}
		ev := &events.Event{ID: events.StreamFrameID("acme", string(APIChat), stream, pos), Tenant: "acme", Response: stream, At: 1, Body: f}
		msg, err := events.EncodeSealed(ev, tg.bus.Keys, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tg.bus.JS.PublishMsg(ctx, &nats.Msg{Subject: subj, Data: msg, Header: nats.Header{jetstream.MsgIDHeader: []string{ev.ID}}}); err != nil {
			t.Fatal(err)
		}
	}
	sameEvents(t, resumeAll(t, tg, APIChat, stream, ""), want)
	sameEvents(t, resumeAll(t, tg, APIChat, stream, "starting_after=2"), want[3:])
}
