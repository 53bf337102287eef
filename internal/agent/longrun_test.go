package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/fakeup"
)

// A run of six rounds: every request carries the question once, then each
// earlier round's call and its result once, in order, and nothing else,
// though the driver reads only what is new of the run each round (rounds
// and history from a turn) and appends it to what it kept.
func TestEveryRoundCarriesTheWholeHistory(t *testing.T) {
	p := agenttest.Start(t)
	call, err := os.ReadFile(stream("chat-weather-call.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const calls = 5
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		msgs, err := chatMessages(body)
		if err != nil {
			return fakeup.Answer{}, err
		}
		var got []string
		for i, m := range msgs {
			switch {
			case i == 0:
				if m["role"] != "user" || m["content"] != "What's the weather in San Francisco?" {
					return fakeup.Answer{}, fmt.Errorf("request %d does not begin with the question: %v", n, m)
				}
			case m["role"] == "assistant":
				tcs, _ := m["tool_calls"].([]any)
				if len(tcs) != 1 {
					return fakeup.Answer{}, fmt.Errorf("request %d: an assistant message with %d calls: %v", n, len(tcs), m)
				}
				id, _ := tcs[0].(map[string]any)["id"].(string)
				got = append(got, "call "+id)
			case m["role"] == "tool":
				id, _ := m["tool_call_id"].(string)
				got = append(got, "result "+id)
			default:
				return fakeup.Answer{}, fmt.Errorf("request %d: message %d is %v", n, i, m)
			}
		}
		var want []string
		for i := 1; i < n; i++ {
			want = append(want, fmt.Sprintf("call call_w%d", i), fmt.Sprintf("result call_w%d", i))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			return fakeup.Answer{}, fmt.Errorf("request %d carries %v, want %v", n, got, want)
		}
		if n > calls {
			return fakeup.Answer{File: stream("chat-weather-answer.jsonl")}, nil
		}
		f := filepath.Join(dir, fmt.Sprintf("call-%d.jsonl", n))
		s := strings.NewReplacer("chatcmpl-w1", fmt.Sprintf("chatcmpl-w%d", n), "call_w1", fmt.Sprintf("call_w%d", n)).Replace(string(call))
		return fakeup.Answer{File: f}, os.WriteFile(f, []byte(s), 0o600)
	})
	d := driver(t, p, "gw-1", up)
	out, err := d.Run(ctxT(t), chatSpec("long-1", "What's the weather in San Francisco?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Rounds != calls+1 {
		t.Fatalf("outcome %+v", out)
	}
	if n := p.Invoked["weather"].Load(); n != calls {
		t.Errorf("weather ran %d times, want %d", n, calls)
	}
	if n := len(up.Requests()); n != calls+1 {
		t.Errorf("%d requests upstream, want %d", n, calls+1)
	}
}

// A drive waits for nothing on a clock: with the poll set to an hour, a
// run of two rounds still gets its tool's result to the model and its
// answer verified, hearing the runs projection on the run's subject (it
// fails, lease lost, when those wake-ups are not heard: tried). The
// verdict is mostly in the log before the answered round is seen; when it
// is not, its publish on the answer's subject wakes the drive.
func TestADriveIsWokenByTheLogNotAPoll(t *testing.T) {
	p := agenttest.Start(t)
	up := weatherUpstream(t)
	prod, err := client.Connect(t.Context(), client.WithConn(p.B.Conn), client.WithKeys(p.B.Keys))
	if err != nil {
		t.Fatal(err)
	}
	d := p.Driver(t, "gw-1", &model{url: up.URL, producer: prod}, func(c *agent.Config) {
		c.Poll = time.Hour
		c.VerifyWait = time.Minute
		c.RecordWait = time.Minute
	})
	out, err := d.Run(ctxT(t), chatSpec("woken-1", "What's the weather in San Francisco?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != agent.StatusAnswered || out.Reason != "" || out.Verdict == nil || out.Rounds != 2 {
		t.Fatalf("outcome %+v (a verdict: %v)", out, out.Verdict != nil)
	}
}
