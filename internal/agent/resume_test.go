package agent_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
)

// A restarted driver resumes only the runs its process was driving when
// it ended: a run answered, or failed, removed its marker and is not
// driven again; a run still under way (its second round held at the
// model) is. The first process is not dead here, so the restarted one
// takes the lease at once (Config.Driver: a name is one live process):
// it asks the held round again with the tool's result, or finds the
// answer the first stored meanwhile; the tool never runs twice. Another driver's name resumes none of them.
func TestResumeDrivesOnlyRunsLeftUnderWay(t *testing.T) {
	p := agenttest.Start(t)
	hold := make(chan struct{})
	held := make(chan struct{}, 1)
	up := fakeup.Start(t, func(n int, _ string, body []byte) (fakeup.Answer, error) {
		msgs, err := chatMessages(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		q, _ := msgs[0]["content"].(string)
		switch q {
		case "answered?":
			if _, ok := toolResult(msgs, "call_w1"); ok {
				return fakeup.Answer{File: stream("chat-weather-answer.jsonl")}, nil
			}
			return fakeup.Answer{File: stream("chat-weather-call.jsonl")}, nil
		case "failed?":
			return fakeup.Answer{Status: http.StatusBadRequest, Body: `{"error":{"message":"bad model"}}`}, nil
		case "under way?":
			if _, ok := toolResult(msgs, "call_w1"); ok {
				held <- struct{}{}
				<-hold
				return fakeup.Answer{File: stream("chat-weather-answer.jsonl")}, nil
			}
			return fakeup.Answer{File: stream("chat-weather-call.jsonl")}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: unexpected question %q", n, q)
	})
	ctx := ctxT(t)
	d1 := driver(t, p, "gw-1", up)
	if out, err := d1.Run(ctx, chatSpec("done-1", "answered?")); err != nil || out.Status != agent.StatusAnswered {
		t.Fatalf("answered run: %+v %v", out, err)
	}
	if out, err := d1.Run(ctx, chatSpec("fail-1", "failed?")); err != nil || out.Status != agent.StatusFailed {
		t.Fatalf("failed run: %+v %v", out, err)
	}
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		if _, err := d1.Run(ctx, chatSpec("left-1", "under way?")); err != nil {
			t.Errorf("run under way: %v", err)
		}
	}()
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatal("the run under way never reached its second round")
	}
	before := len(up.Requests())

	other := driver(t, p, "gw-2", up)
	if n, err := other.Resume(ctx); err != nil || n != 0 {
		t.Errorf("another driver's name resumed %d runs (%v), want 0", n, err)
	}
	d2 := driver(t, p, "gw-1", up) // the same driver, restarted
	n, err := d2.Resume(ctx)
	if err != nil || n != 1 {
		t.Fatalf("restarted driver resumed %d runs (%v), want 1: only the run under way", n, err)
	}
	close(hold)
	<-ran
	waited := make(chan struct{})
	go func() { d2.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(90 * time.Second): // a hang detector, not a speed bound
		t.Fatal("the resumed drive never ended")
	}
	after := up.Requests()[before:]
	if len(after) > 1 {
		t.Errorf("%d requests upstream after the restart, want at most 1: the held round asked again", len(after))
	}
	for _, r := range after {
		msgs, err := chatMessages(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		if q, _ := msgs[0]["content"].(string); q != "under way?" {
			t.Errorf("the restart asked the model about %q: a run that had ended was driven again", q)
		}
		if _, ok := toolResult(msgs, "call_w1"); !ok {
			t.Error("the resumed round lacks the tool's result")
		}
	}
	if n := p.Invoked["weather"].Load(); n != 2 {
		t.Errorf("weather ran %d times, want 2 (answered-1 and left-1, once each)", n)
	}
	if n, err := d2.Resume(ctx); err != nil || n != 0 {
		t.Errorf("after every run ended, a restart resumed %d (%v), want 0", n, err)
	}
}
