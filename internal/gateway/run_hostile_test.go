package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/runs"
)

// Run mode under the attacks of docs/security.md, through the real
// pipeline (agenttest) and the fake upstream, with raw HTTP clients.

// rawRun sends a streamed run-mode request on a connection of its own and
// returns it; the test hangs up by closing it.
func (rg *runGateway) rawRun(t *testing.T, key, run, question string) net.Conn {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "fake-1", "stream": true, "messages": []any{map[string]string{"role": "user", "content": question}}})
	c, err := net.Dial("tcp", rg.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer %s\r\n%s: run\r\n%s: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		key, gateway.HeaderMode, gateway.HeaderRun, run, len(body), body)
	return c
}

// answered asks for run again (as key) until it is answered, and returns
// the answer's text.
func (rg *runGateway) answered(t *testing.T, key, run, question string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := rg.post(context.Background(), t, run, question, map[string]string{"Authorization": "Bearer " + key})
		if err != nil {
			t.Fatal(err)
		}
		evs, _ := readAll(t, resp.Body)
		resp.Body.Close()
		if text, meta := chatText(evs); meta != nil && meta.Status == agent.StatusAnswered {
			if meta.Run != run {
				t.Errorf("the answer names run %q, want %q", meta.Run, run)
			}
			return text
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s: no answer: %+v", run, evs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunClientGoneAtAnyStageServeLives: a run-mode client that hangs up
// (a raw connection closed) before the upstream sent its headers, while a
// tool runs, or while a call waits for approval ends its request and
// nothing else: the run goes on to its answer, no panic is recovered,
// and the same gateway serves the next request. Run it with -race.
func TestRunClientGoneAtAnyStageServeLives(t *testing.T) {
	rg := startRunGateway(t)
	rg.headersHold["weather in Bergen?"] = make(chan struct{})
	before := gateway.Panics()
	for _, c := range []struct {
		name, run, question string
		gone                func() bool
		then                func()
		answer              string
	}{
		{"before the upstream's headers", "gone-1", "weather in Bergen?",
			func() bool { return len(rg.up.Requests()) >= 1 },
			func() { close(rg.headersHold["weather in Bergen?"]) }, "chat-weather-answer.jsonl"},
		{"during a tool", "gone-2", "slow please",
			func() bool { return rg.p.Invoked["slow"].Load() == 1 },
			func() { <-rg.p.SlowIn; close(rg.p.Slow) }, "chat-weather-answer.jsonl"},
		{"waiting for approval", "gone-3", "refund order A1",
			func() bool { return rg.runState(t, "gone-3").Status == runs.StatusWaitingApproval },
			func() {
				rd := rg.rounds(t, "gone-3")
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if err := executor.Approve(ctx, rg.p.B.JS, agenttest.Tenant, rd[0].Calls[0].Key, "ops@acme", "ok"); err != nil {
					t.Fatal(err)
				}
			}, "chat-refund-answer.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := rg.rawRun(t, runKey, c.run, c.question)
			waitFor(t, c.name, c.gone)
			conn.Close()
			c.then()
			if text := rg.answered(t, runKey, c.run, c.question); text != answers[c.answer] {
				t.Errorf("answer %q", text)
			}
			if n := gateway.Panics() - before; n != 0 {
				t.Fatalf("%d panics recovered", n)
			}
		})
	}
}

// TestRunsBelongToTheirUser: a key bound to bob that
// names alice's run — while it runs, and once it is answered; streamed,
// whole, and resuming with Last-Event-ID — is told no such run exists
// (404 in the provider's shape), gets nothing of alice's, and the model is
// not asked; alice's run is untouched and she gets her answer. The
// tenant's key without a user does not reach it either.
func TestRunsBelongToTheirUser(t *testing.T) {
	rg := startRunGateway(t)
	resp, err := rg.post(context.Background(), t, "trip-alice", "slow please", map[string]string{"Authorization": "Bearer " + runKeyAlice})
	if err != nil {
		t.Fatal(err)
	}
	aliceFirst := make(chan []rawEvent, 1)
	go func() {
		defer resp.Body.Close()
		evs, _ := readAll(t, resp.Body)
		aliceFirst <- evs
	}()
	<-rg.p.SlowIn // alice's run is under way, its tool running
	asked := len(rg.up.Requests())
	refused := func(when string) {
		t.Helper()
		for name, h := range map[string]map[string]string{
			"bob, streamed":          {"Authorization": "Bearer " + runKeyBob},
			"bob, Last-Event-ID":     {"Authorization": "Bearer " + runKeyBob, "Last-Event-ID": "1"},
			"the tenant's, no user":  {"Authorization": "Bearer " + runKey},
			"the tenant's, for bob":  {"Authorization": "Bearer " + runKey, gateway.HeaderUser: "bob"},
			"bob, cancel on leaving": {"Authorization": "Bearer " + runKeyBob, gateway.HeaderOnDisconnect: "cancel"},
		} {
			resp, err := rg.post(context.Background(), t, "trip-alice", "weather in Oslo?", h)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct{ Error struct{ Code string } }
			json.Unmarshal(b, &e)
			if resp.StatusCode != http.StatusNotFound || e.Error.Code != "not_found" || strings.Contains(string(b), "San Francisco") {
				t.Errorf("%s, %s: %d %s", when, name, resp.StatusCode, b)
			}
		}
		body := `{"model":"fake-1","messages":[{"role":"user","content":"weather in Oslo?"}]}`
		req, _ := http.NewRequest(http.MethodPost, rg.srv.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+runKeyBob)
		req.Header.Set(gateway.HeaderMode, "run")
		req.Header.Set(gateway.HeaderRun, "trip-alice")
		whole, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(whole.Body)
		whole.Body.Close()
		if whole.StatusCode != http.StatusNotFound {
			t.Errorf("%s, bob, whole: %d %s", when, whole.StatusCode, b)
		}
		if n := len(rg.up.Requests()); n != asked {
			t.Errorf("%s: the model was asked %d times for bob", when, n-asked)
		}
	}
	refused("while alice's tool runs")
	close(rg.p.Slow)
	evs := <-aliceFirst
	if text, meta := chatText(evs); text != answers["chat-weather-answer.jsonl"] || meta == nil || meta.Run != "trip-alice" {
		t.Fatalf("alice's answer %q %+v", text, meta)
	}
	asked = len(rg.up.Requests())
	refused("once alice's run answered")
	if text := rg.answered(t, runKeyAlice, "trip-alice", "slow please"); text != answers["chat-weather-answer.jsonl"] {
		t.Errorf("alice again: %q", text)
	}
	// In the log the run is alice's own, apart from any run of bob's.
	if r := rg.runState(t, gateway.RunID("alice", "trip-alice")); r.Rounds != 2 {
		t.Errorf("alice's run in the runs view: %+v", r)
	}
	if r := rg.runState(t, gateway.RunID("bob", "trip-alice")); r.Rounds != 0 {
		t.Errorf("a run of bob's of that name: %+v", r)
	}
	if n := rg.p.Invoked["slow"].Load(); n != 1 {
		t.Errorf("slow ran %d times", n)
	}
}
