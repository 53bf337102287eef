package agent_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/runs"
)

// A drive that starts while the runs view is behind the log — restarted
// after a crash that lost its last commits, still catching up — must not
// take the rounds the view lacks for rounds never asked. Round 1 called
// weather and settled, its result in the log; round 2's request failed
// upstream. Then the runs view starts over from nothing and applies the
// log only once the next drive has asked for the run. The drive waits for
// the view to catch up and asks round 2 with the result of call_w1; it
// never asks round 1 again (whose call would then come again, without the
// result of the one that ran).
func TestADriveWaitsForAViewBehindTheLog(t *testing.T) {
	p := agenttest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		msgs, err := chatMessages(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		switch n {
		case 1:
			return fakeup.Answer{File: stream("chat-weather-call.jsonl")}, nil
		case 2:
			return fakeup.Answer{Status: http.StatusServiceUnavailable, Body: `{"error":{"message":"gone"}}`}, nil
		case 3:
			res, ok := toolResult(msgs, "call_w1")
			if !ok || !strings.Contains(res, `"temperature_c":18`) {
				return fakeup.Answer{}, fmt.Errorf("the round after the restart lacks the result of call_w1: %s", body)
			}
			return fakeup.Answer{File: stream("chat-weather-answer.jsonl")}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	spec := chatSpec("trip-behind", "What's the weather in San Francisco?")
	out, err := driver(t, p, "gw-1", up).Run(ctxT(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusFailed || out.Reason != agent.ReasonUpstreamError || out.Rounds != 1 {
		t.Fatalf("first drive: %+v, want round 2 failed upstream", out)
	}
	start := p.RestartRuns(t)
	// The new view starts applying only once the drive asked about the run.
	var once sync.Once
	sub, err := p.B.Conn.Subscribe(runs.ServiceSubject("get", agenttest.Tenant), func(*nats.Msg) { once.Do(start) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	out, err = driver(t, p, "gw-2", up).Run(ctxT(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Text != "The weather in San Francisco is 18 degrees." {
		t.Fatalf("after the restart: %+v", out)
	}
	if n := p.Invoked["weather"].Load(); n != 1 {
		t.Errorf("weather ran %d times", n)
	}
	if n := len(up.Requests()); n != 3 {
		t.Errorf("%d requests upstream, want 3", n)
	}
}
