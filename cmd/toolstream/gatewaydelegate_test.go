package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/fakeup"
)

// chatAnswerFile writes one Chat stream answering text, or calling one
// tool, under a response id of its own.
func chatAnswerFile(t *testing.T, dir, id, text, callID, tool, args string) string {
	t.Helper()
	chunk := func(delta any, finish any) string {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1764664568, "model": "fake-1",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		return string(b) + "\n"
	}
	s := chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if tool != "" {
		s += chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": callID, "type": "function",
			"function": map[string]any{"name": tool, "arguments": args}}}}, nil)
		s += chunk(map[string]any{}, "tool_calls")
	} else {
		s += chunk(map[string]any{"content": text}, nil) + chunk(map[string]any{}, "stop")
	}
	f := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// A serve process with the gateway is killed (SIGKILL) while a sub-agent
// works: the parent run delegated the weather to a child run, the child
// called weather (it ran, its result is in the log) and the child's
// second round reached the model. Started again on the same data, the
// gateway resumes the child from its last settled round — its first
// round is not asked again, no second child starts, weather ran once —
// the delegate call gets the child's answer and evidence, and the parent
// answers the client. `runs` shows the child with its parent, `trace` of
// the delegate call the child run.
func TestGatewayDelegateSurvivesSIGKILLMidChild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve twice")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := toolstreamBinary(t)
	invoked := filepath.Join(dir, "invoked")
	toolsFile := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(toolsFile, []byte(fmt.Sprintf(runToolsYAML, invoked)), 0o600); err != nil {
		t.Fatal(err)
	}
	delegate := chatAnswerFile(t, dir, "chatcmpl-p1", "", "call_d1", events.ToolDelegate, `{"goal":"the weather in San Francisco","tools":["weather"]}`)
	childCall := chatAnswerFile(t, dir, "chatcmpl-c1", "", "call_cw", "weather", `{"location":"San Francisco"}`)
	childAnswer := chatAnswerFile(t, dir, "chatcmpl-c2", "San Francisco: 18 degrees.", "", "", "")
	parentAnswer := chatAnswerFile(t, dir, "chatcmpl-p2", "The weather in San Francisco is 18 degrees.", "", "", "")
	var srv *runServe
	var mu sync.Mutex
	childRounds := map[int]int{} // the child's requests by round (messages after the question)
	killed := false
	var delegateResult string
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		var req struct {
			Messages []struct {
				Role       string `json:"role"`
				Content    any    `json:"content"`
				ToolCallID string `json:"tool_call_id"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return fakeup.Answer{}, err
		}
		first, _ := req.Messages[0].Content.(string)
		mu.Lock()
		defer mu.Unlock()
		if strings.HasPrefix(first, "You are a sub-agent") {
			round := 1
			if len(req.Messages) > 2 {
				round = 2
			}
			childRounds[round]++
			if round == 1 {
				return fakeup.Answer{File: childCall}, nil
			}
			if !killed {
				// The child's second round reached the model: the
				// gateway dies now.
				killed = true
				srv.kill()
				return fakeup.Answer{Status: http.StatusServiceUnavailable, Body: `{"error":{"message":"gone"}}`}, nil
			}
			return fakeup.Answer{File: childAnswer}, nil
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" && last.ToolCallID == "call_d1" {
			delegateResult = fmt.Sprint(last.Content)
			return fakeup.Answer{File: parentAnswer}, nil
		}
		return fakeup.Answer{File: delegate}, nil
	})
	gwConfig := writeGatewayConfig(t, dir, up.URL, "sk-client", "")
	gw := freeAddr(t)
	logf := serveLog(t, dir)
	data := filepath.Join(dir, "data")
	srv = &runServe{t: t, bin: bin, log: logf, args: []string{"--data", data, "--listen", "127.0.0.1:-1",
		"serve", "--tools", toolsFile, "--gateway", gw, "--gateway-config", gwConfig}}
	srv.start()
	defer func() {
		srv.stop()
		if t.Failed() || testing.Verbose() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("serve's log:\n%s", tail(strings.Split(string(b), "\n"), 80))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	waitListening(ctx, t, gw)
	runRequest(ctx, gw, "trip-d", "weather in San Francisco?") // cut by the kill
	mu.Lock()
	if !killed {
		mu.Unlock()
		t.Fatal("the first request ended before the child's second round")
	}
	mu.Unlock()
	srv.start()
	var text string
	for {
		var status string
		var ok bool
		text, status, ok = runRequest(ctx, gw, "trip-d", "weather in San Francisco?")
		if ok && status == "answered" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no answer after the restart (last status %q)", status)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if text != "The weather in San Francisco is 18 degrees." {
		t.Errorf("answer %q", text)
	}
	ran, _ := os.ReadFile(invoked)
	if n := strings.Count(string(ran), "ran"); n != 1 {
		t.Errorf("weather ran %d times", n)
	}
	mu.Lock()
	if childRounds[1] != 1 || childRounds[2] != 2 {
		t.Errorf("the child's requests by round %v, want round 1 once (not started twice) and round 2 twice (cut, asked again)", childRounds)
	}
	if !strings.Contains(delegateResult, `"status":"answered"`) || !strings.Contains(delegateResult, `"answer":"San Francisco: 18 degrees."`) ||
		!strings.Contains(delegateResult, `"tool":"weather"`) || !strings.Contains(delegateResult, `"digest":"`) {
		t.Errorf("the delegate call's result %q", delegateResult)
	}
	mu.Unlock()
	out, err := exec.CommandContext(ctx, bin, "--data", data, "runs", "--tenant", "acme").CombinedOutput()
	if err != nil {
		t.Fatalf("runs: %v\n%s", err, out)
	}
	child := events.ChildRunID("trip-d", "call_d1")
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		found = found || len(f) > 2 && f[0] == child && f[len(f)-2] == "trip-d"
	}
	if !found {
		t.Errorf("runs does not show %s with its parent trip-d:\n%s", child, out)
	}
	// trace of the delegate call names the child run.
	out, err = exec.CommandContext(ctx, bin, "--data", data, "trace", "call_d1", "--tenant", "acme").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "delegates: run trip-d starts child run "+child) {
		t.Errorf("trace call_d1: %v\n%s", err, out)
	}
}
