package gateway

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/internal/trace"
	"github.com/toolstream/toolstream/projector/projectortest"
)

// postWhole sends a non-streamed Chat request with header and returns the
// answer's body and its Toolstream-Stream.
func postWhole(t *testing.T, tg *testGateway, body string, header map[string]string) (answer, stream string) {
	t.Helper()
	c := passthroughCases[1] // Chat
	resp := tg.request(t, "POST", c.path, body, header)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != wholeAnswer(c.api, c.model) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	return string(b), resp.Header.Get(HeaderStream)
}

// subjectMessages reads every message on a stream's subject.
func subjectMessages(ctx context.Context, t *testing.T, tg *testGateway, subj string) []*logread.Msg {
	t.Helper()
	var out []*logread.Msg
	err := logread.Read(ctx, logread.Config{Conn: tg.bus.Conn, Stream: events.StreamGateway, Filter: subj}, func(ms []*logread.Msg) error {
		out = append(out, ms...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWholeAnswerIsOneMessage: a non-streamed answer is stored before the
// client has it as one message on its stream's subject (events.StreamAnswer:
// the answer, the request's prompt, the upstream that served it), sealed
// under the user's key (neither the answer's nor the prompt's text is in
// the log's bytes); a resumption reads it as the one frame it was, trace
// shows its prompt and upstream, and erasing the user makes it unreadable
// and unresumable.
func TestWholeAnswerIsOneMessage(t *testing.T) {
	tg := startGateway(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := passthroughCases[1] // Chat
	const secret = "my passport number is ZX-4417"
	body := `{"model":"` + c.model + `","max_tokens":100,"messages":[{"role":"user","content":"weather in SF? ` + secret + `"}]}`
	eve := map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "eve"}
	answer, stream := postWhole(t, tg, body, eve)
	if stream != "chatcmpl-whole" {
		t.Fatalf("the answer's stream is %q, want the provider's id", stream)
	}

	subj, err := events.GatewaySubject("acme", string(c.api), scopedID("eve", stream))
	if err != nil {
		t.Fatal(err)
	}
	msgs := subjectMessages(ctx, t, tg, subj) // stored before the client had the answer: no wait
	if len(msgs) != 1 {
		t.Fatalf("%d messages on %s, want 1", len(msgs), subj)
	}
	for _, clear := range []string{"passport", "Sunny", "call_whole_chat"} {
		if strings.Contains(string(msgs[0].Data), clear) {
			t.Errorf("the log's bytes hold %q in the clear", clear)
		}
	}
	ev, err := events.DecodeAtWith(msgs[0].Subject, msgs[0].Data, tg.bus.Keys)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := events.As[*events.StreamAnswer](ev)
	if !ok || a.Data != answer || a.Prompt == nil || !strings.Contains(a.Prompt.Prompt, secret) || a.Upstream != "openai" || a.Attempts != 1 ||
		ev.ID != events.StreamFrameID("acme", string(c.api), scopedID("eve", stream), 0) || ev.User != "eve" {
		t.Fatalf("stored %s %+v", ev.Kind, ev.Body)
	}
	if got := resumeAs(t, tg, c.api, stream, "", eve); len(got) != 1 || got[0].Data != answer || got[0].ID != "0" {
		t.Errorf("resumed %+v", got)
	}

	var tr *trace.Trace
	eventually(t, func() bool {
		tr, err = trace.Call(ctx, tg.bus, "acme", wholeCall(c.api), "")
		return err == nil && tr.Served != nil
	}, "no trace with the gateway's record")
	if sv := tr.Served; sv.API != string(c.api) || sv.Upstream != "openai" || sv.Attempts != 1 || sv.Prompt == nil ||
		!strings.Contains(string(sv.Prompt.JSON), secret) || sv.Prompt.Seq != msgs[0].Seq {
		t.Errorf("trace's record %+v", sv)
	}

	ks, ok := tg.bus.Keys.(*keys.Store)
	if !ok {
		t.Fatalf("keys %T", tg.bus.Keys)
	}
	if _, err := erasure.User(ctx, tg.bus, ks, "acme", "eve"); err != nil {
		t.Fatal(err)
	}
	if _, err := events.DecodeAtWith(msgs[0].Subject, msgs[0].Data, tg.bus.Keys); !errors.Is(err, events.ErrErased) {
		t.Errorf("the answer after erasure: %v, want ErrErased", err)
	}
	r := tg.request(t, "GET", "/toolstream/v1/chat/completions/"+stream, "", eve)
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusNotFound {
		t.Errorf("resumed after erasure: %d, want 404", r.StatusCode)
	}
}

// TestWholeAnswerReusedIDKeepsTheGatewaysID: the fake upstream gives every
// non-streamed Chat answer one id. The first of alice's is kept under it;
// eight more of hers sent at once each find it taken (the log refuses a
// store on a subject that holds a message, whichever request comes
// first) and are kept, whole, under ids of the gateway's own, all
// different; bob's first is his under the provider's id. Each resumes to
// its one answer.
func TestWholeAnswerReusedIDKeepsTheGatewaysID(t *testing.T) {
	tg := startGateway(t, withAliceAndBob)
	c := passthroughCases[1] // Chat
	body := `{"model":"` + c.model + `","max_tokens":100}`
	answer, first := postWhole(t, tg, body, bearer(clientKeyAlice))
	if first != "chatcmpl-whole" {
		t.Fatalf("alice's first answer is %q", first)
	}
	var mu sync.Mutex
	seen := map[string]bool{first: true}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, id := postWhole(t, tg, body, bearer(clientKeyAlice))
			mu.Lock()
			defer mu.Unlock()
			if seen[id] || !strings.HasPrefix(id, "gw_") {
				t.Errorf("alice's answer of a reused id is named %q", id)
			}
			seen[id] = true
		}()
	}
	wg.Wait()
	if _, bob := postWhole(t, tg, body, bearer(clientKeyBob)); bob != "chatcmpl-whole" {
		t.Errorf("bob's answer is %q, want the provider's id (his own subject)", bob)
	}
	for id := range seen {
		if got := resumeAs(t, tg, c.api, id, "", bearer(clientKeyAlice)); len(got) != 1 || got[0].Data != answer {
			t.Errorf("%s resumed %+v", id, got)
		}
	}
	if got := resumeAs(t, tg, c.api, first, "", bearer(clientKeyBob)); len(got) != 1 || got[0].Data != answer {
		t.Errorf("bob's resumed %+v", got)
	}
}

// TestWholeAnswerOfAnOlderGatewayReads: a non-streamed answer kept as a
// gateway before events.StreamAnswer kept it (the prompt, the frame at 0
// and the end, three messages) still resumes to its one frame.
func TestWholeAnswerOfAnOlderGatewayReads(t *testing.T) {
	tg := startGateway(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := passthroughCases[1] // Chat
	const id = "chatcmpl-older"
	stream := scopedID("eve", id)
	subj, err := events.GatewaySubject("acme", string(c.api), stream)
	if err != nil {
		t.Fatal(err)
	}
	answer := wholeAnswer(c.api, c.model)
	for _, ev := range []*events.Event{
		{ID: events.StreamPromptID("acme", string(c.api), stream), Body: &events.StreamPrompt{Prompt: `{"model":"m"}`, Bytes: 13}},
		{ID: events.StreamFrameID("acme", string(c.api), stream, 0), Body: &events.StreamFrame{Pos: 0, Data: answer}},
		{ID: events.StreamFrameID("acme", string(c.api), stream, 1), Body: &events.StreamFrame{Pos: 1, End: true, Upstream: "openai", Attempts: 1}},
	} {
		ev.Tenant, ev.User, ev.Response, ev.At = "acme", "eve", id, 1
		data, err := events.EncodeSealed(ev, tg.bus.Keys, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tg.bus.JS.PublishMsg(ctx, &nats.Msg{Subject: subj, Data: data, Header: nats.Header{jetstream.MsgIDHeader: []string{ev.ID}}}); err != nil {
			t.Fatal(err)
		}
	}
	got := resumeAs(t, tg, c.api, id, "", map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "eve"})
	if len(got) != 1 || got[0].Data != answer || got[0].ID != "0" {
		t.Errorf("resumed %+v", got)
	}
}

// TestMalformedFrameIsRefusedNotSkipped: an upstream stream with one
// frame that is not the JSON object it should be (a tool call's argument
// delta cut short) reaches the client unchanged, frame for frame, and is
// kept; the model events refuse it as the edge refuses a producer's
// (InputRejected, malformed_event), and the call it was part of is not
// completed from the other deltas (it ends incomplete). The log path
// skipped such a frame silently before, and the call was assembled
// without it.
func TestMalformedFrameIsRefusedNotSkipped(t *testing.T) {
	data, err := os.ReadFile(recordings["weather-chat"])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	cut := -1
	for i, l := range lines {
		if strings.Contains(l, `"arguments":"location"`) {
			cut = i
			lines[i] = l[:len(l)/2]
			break
		}
	}
	if cut < 0 {
		t.Fatal("no argument delta to cut in the recording")
	}
	path := filepath.Join(t.TempDir(), "malformed.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const model = "weather-chat-malformed"
	recordings[model] = path
	t.Cleanup(func() { delete(recordings, model) })

	tg := startGateway(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	projectortest.Start(ctx, t, tg.bus, assembler.New(assembler.Config{}))
	c := passthroughCases[1] // Chat
	resp := tg.request(t, "POST", c.path, streamBody(model), bearer(clientKey))
	got, _ := readSSE(t, resp.Body, 0)
	resp.Body.Close()
	want := frames(t, c.api, model)
	for i := range want {
		want[i].ID = strconv.Itoa(i)
	}
	sameEvents(t, got, want)
	sameEvents(t, resumeAll(t, tg, c.api, c.stream, ""), want)

	evs, err := bustest.WaitEvents(ctx, tg.bus, []string{events.AllModel, events.AllCalls}, func(evs []*events.Event) bool {
		rejected, decided := false, false
		for _, ev := range evs {
			if r, ok := events.As[*events.InputRejected](ev); ok && r.Reason == events.ReasonMalformedEvent {
				rejected = true
			}
			if ev.CallID == c.call && (isKind[*events.CallCompleted](ev) || isKind[*events.CallIncomplete](ev)) {
				decided = true
			}
		}
		return rejected && decided
	})
	if err != nil {
		t.Fatalf("no refusal and decision of the call: %v", err)
	}
	for _, ev := range evs {
		if ev.CallID == c.call && isKind[*events.CallCompleted](ev) {
			t.Errorf("the call was completed without its cut delta: %+v", ev.Body)
		}
	}
}

// isKind reports whether ev's body is a T.
func isKind[T events.Body](ev *events.Event) bool {
	_, ok := events.As[T](ev)
	return ok
}

// TestWholeAnswerOfAClientThatHungUp: a client asks for a non-streamed
// answer and hangs up while the upstream is still thinking. The gateway
// keeps running and serves the next client, and the answer the upstream
// gives after the hang-up is kept, once, sealed as the hung-up user's, as
// a streamed answer's rest is (TestClientDisconnectMidStreamLosesNothing).
func TestWholeAnswerOfAClientThatHungUp(t *testing.T) {
	release := make(chan struct{})
	asked := make(chan struct{}, 1)
	tg := startGateway(t, nil)
	var first sync.Once
	tg.fake.wholeGate = func(string) {
		first.Do(func() { // the hung-up client's request
			asked <- struct{}{}
			<-release
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := passthroughCases[1] // Chat
	eve := map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "eve"}

	rctx, hangUp := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(rctx, "POST", tg.srv.URL+c.path,
		strings.NewReader(`{"model":"`+c.model+`","messages":[{"role":"user","content":"weather in SF?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range eve {
		req.Header.Set(k, v)
	}
	gone := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		gone <- err
	}()
	<-asked
	hangUp()
	if err := <-gone; err == nil {
		t.Fatal("the hung-up request got an answer")
	}
	close(release)

	// the gateway is still up and answers the next client whole
	body := `{"model":"` + c.model + `","messages":[{"role":"user","content":"weather in SF?"}]}`
	if _, stream := postWhole(t, tg, body, map[string]string{"Authorization": "Bearer " + clientKey, HeaderUser: "bob"}); stream != "chatcmpl-whole" {
		t.Fatalf("the next client's answer's stream is %q", stream)
	}
	subj, err := events.GatewaySubject("acme", string(c.api), scopedID("eve", "chatcmpl-whole"))
	if err != nil {
		t.Fatal(err)
	}
	// the upstream's answer is kept though its client went away: once
	var msgs []*logread.Msg
	eventually(t, func() bool {
		msgs = subjectMessages(ctx, t, tg, subj)
		return len(msgs) >= 1
	}, "the hung-up client's answer was not kept")
	if len(msgs) != 1 {
		t.Fatalf("%d messages for the hung-up client's answer, want 1", len(msgs))
	}
	ev, err := events.DecodeAtWith(msgs[0].Subject, msgs[0].Data, tg.bus.Keys)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := events.As[*events.StreamAnswer](ev); !ok || a.Data != wholeAnswer(c.api, c.model) || ev.User != "eve" {
		t.Fatalf("stored %s %+v, want eve's whole answer", ev.Kind, ev.Body)
	}
}
