package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
)

// Under serve, as one process runs it (the driver on a connection of its
// own as the driver role): a user's answer is checked against the
// constraint she stated in an earlier run, the claim violates_constraint
// naming her record, and the tenant's policy (block) withholds it; her
// answer after she lifted the constraint goes through.
func TestGatewayRunChecksConstraintsUnderServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := toolstreamBinary(t)
	answers := map[string]string{"Set up my call with Dana.": "I'll book the 7pm call with Dana."}
	scratch := t.TempDir()
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			return fakeup.Answer{}, fmt.Errorf("not a chat request: %v", err)
		}
		text, ok := answers[req.Messages[len(req.Messages)-1].Content]
		if !ok {
			text = "Noted."
		}
		var b bytes.Buffer
		for _, c := range []map[string]any{{"content": text}, {}} {
			finish := any(nil)
			if len(c) == 0 {
				finish = "stop"
			}
			line, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chatcmpl-s%d", n), "object": "chat.completion.chunk", "created": 1764664568,
				"model": "fake-1", "choices": []any{map[string]any{"index": 0, "delta": c, "finish_reason": finish}}})
			b.Write(append(line, '\n'))
		}
		file := filepath.Join(scratch, fmt.Sprintf("a%d.jsonl", n))
		return fakeup.Answer{File: file}, os.WriteFile(file, b.Bytes(), 0o600)
	})
	gwConfig := writeGatewayConfig(t, dir, up.URL, "sk-alice", "alice")
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte("default: block\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gw := freeAddr(t)
	logf := serveLog(t, dir)
	srv := &runServe{t: t, bin: bin, log: logf, args: []string{"--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:-1",
		"serve", "--gateway", gw, "--gateway-config", gwConfig, "--verify-policy", policy}}
	srv.start()
	defer func() {
		srv.stop()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("serve's log:\n%s", tail(strings.Split(string(b), "\n"), 80))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	waitListening(ctx, t, gw)
	ask := func(run, question string) gateway.RunMeta {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"model": "fake-1", "messages": []any{map[string]string{"role": "user", "content": question}}})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+gw+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer sk-alice")
		req.Header.Set(gateway.HeaderMode, "run")
		req.Header.Set(gateway.HeaderRun, run)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ans struct {
			Toolstream gateway.RunMeta `json:"toolstream"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", run, resp.StatusCode, err)
		}
		return ans.Toolstream
	}
	violations := func(m gateway.RunMeta) (out []string) {
		if m.Verdict != nil {
			for _, c := range m.Verdict.Claims {
				if c.Verdict == events.VerdictViolatesConstraint && c.Constraint != nil {
					out = append(out, c.Constraint.Record)
				}
			}
		}
		return out
	}
	ask("s-1", "Don't call me after 6pm.")
	m := ask("s-2", "Set up my call with Dana.")
	if v := violations(m); len(v) != 1 || !strings.Contains(v[0], "s-1") || !m.Blocked || m.Verdict.Constraints != 1 {
		t.Errorf("the 7pm call: violations %v, blocked %v, verdict %+v; want one naming run s-1's record, withheld", v, m.Blocked, m.Verdict)
	}
	ask("s-3", "Feel free to call me after 6pm again.")
	if m := ask("s-4", "Set up my call with Dana."); len(violations(m)) != 0 || m.Blocked {
		t.Errorf("the 7pm call after the lift: %+v", m)
	}
}
