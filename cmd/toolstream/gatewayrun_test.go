package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
)

// runServe is a serve process with the gateway, restartable on the same
// data and address.
type runServe struct {
	t      *testing.T
	bin    string
	args   []string
	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	log    *os.File
}

func (s *runServe) start() {
	s.t.Helper()
	cmd := exec.Command(s.bin, s.args...)
	cmd.Env = append(os.Environ(), "TOOLSTREAM_GATEWAY_DRIVER=gateway-under-test")
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.mu.Unlock()
}

// kill sends SIGKILL and waits until the process is gone.
func (s *runServe) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.mu.Unlock()
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

func (s *runServe) stop() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.mu.Unlock()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-exited
	}
}

// waitListening waits until addr accepts connections.
func waitListening(ctx context.Context, t *testing.T, addr string) {
	t.Helper()
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never listened", addr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// runRequest is a client's run-mode request through the gateway (Chat,
// streamed); it returns the answer's text and status, or ok false when the
// gateway could not be reached or answered otherwise.
func runRequest(ctx context.Context, gw, run, question string) (text string, status string, ok bool) {
	body, _ := json.Marshal(map[string]any{"model": "fake-1", "stream": true, "messages": []any{map[string]string{"role": "user", "content": question}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+gw+"/v1/chat/completions", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer sk-client")
	req.Header.Set(gateway.HeaderMode, "run")
	req.Header.Set(gateway.HeaderRun, run)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return "", "", false
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
			Toolstream *gateway.RunMeta `json:"toolstream"`
		}
		if json.Unmarshal([]byte(data), &c) == nil {
			for _, ch := range c.Choices {
				text += ch.Delta.Content
			}
			if c.Toolstream != nil {
				status = string(c.Toolstream.Status)
			}
		}
	}
	return text, status, status != ""
}

const runToolsYAML = `tools:
  - name: weather
    description: Current weather for a location.
    input_schema: {type: object, properties: {location: {type: string}}, required: [location]}
    command: ["/bin/sh", "-c", "echo ran >> \"$INVOKED\"; echo '{\"location\":\"San Francisco\",\"temperature_c\":18}'"]
    env: {INVOKED: "%s"}
    side_effect: reversible
    idempotency: none
grants:
  - tenant: acme
    permissions: [weather, forecast]
`

const forecastYAML = `  - name: forecast
    description: The weather forecast for the coming days.
    input_schema: {type: object, properties: {location: {type: string}}}
`

// A serve process with the gateway is killed (SIGKILL) in the middle of a
// run — the model called weather, the tool ran and its result is in the
// log, the second round's request has reached the model — and started
// again on the same data: it resumes the run by itself from its last
// settled round, asks the model again with the tool's result under the
// call's id, and the client, reconnecting, gets the answer. The tool ran
// once. Then a tool added to the tools file is offered to the next run
// without a restart.
func TestGatewayRunSurvivesSIGKILL(t *testing.T) {
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
	var srv *runServe
	var mu sync.Mutex
	var sawForecast bool
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
		question, _ := req.Messages[0].Content.(string)
		if question == "forecast for Oslo?" {
			mu.Lock()
			sawForecast = strings.Contains(string(body), `"name":"forecast"`)
			mu.Unlock()
			return fakeup.Answer{File: "../../internal/agent/testdata/streams/chat-weather-answer.jsonl"}, nil
		}
		switch n {
		case 1:
			return fakeup.Answer{File: "../../internal/agent/testdata/streams/chat-weather-call.jsonl"}, nil
		case 2:
			// The second round reached the model: the gateway dies now.
			srv.kill()
			return fakeup.Answer{Status: http.StatusServiceUnavailable, Body: `{"error":{"message":"gone"}}`}, nil
		case 3:
			last := req.Messages[len(req.Messages)-1]
			if last.Role != "tool" || last.ToolCallID != "call_w1" || !strings.Contains(fmt.Sprint(last.Content), "temperature_c") {
				return fakeup.Answer{}, fmt.Errorf("the resumed round lacks the result of call_w1: %s", body)
			}
			return fakeup.Answer{File: "../../internal/agent/testdata/streams/chat-weather-answer.jsonl"}, nil
		}
		return fakeup.Answer{}, fmt.Errorf("request %d: the run should have ended", n)
	})
	gwConfig := writeGatewayConfig(t, dir, up.URL, "sk-client", "")
	gw := freeAddr(t)
	logf := serveLog(t, dir)
	srv = &runServe{t: t, bin: bin, log: logf, args: []string{"--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:-1",
		"serve", "--tools", toolsFile, "--gateway", gw, "--gateway-config", gwConfig}}
	srv.start()
	defer func() {
		srv.stop()
		if t.Failed() || testing.Verbose() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("serve's log:\n%s", tail(strings.Split(string(b), "\n"), 80))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	waitListening(ctx, t, gw)
	// The first request is cut by the kill; the client comes back until it
	// has its answer (the gateway is down for a while, then the run may
	// still be under way: a request then waits for it).
	done := make(chan struct{})
	go func() {
		runRequest(ctx, gw, "trip-9", "weather in San Francisco?")
		close(done)
	}()
	<-done // cut by the kill, or the run failed before
	if n := len(up.Requests()); n != 2 {
		t.Fatalf("the first request ended after %d requests upstream, want the kill at the second", n)
	}
	srv.start()
	var text string
	for {
		var status string
		var ok bool
		text, status, ok = runRequest(ctx, gw, "trip-9", "weather in San Francisco?")
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
	if n := len(up.Requests()); n != 3 {
		t.Errorf("%d requests upstream, want 3 (the cut second round asked again)", n)
	}

	// A tool added to the tools file reaches the next run, same process.
	f, err := os.OpenFile(toolsFile, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := io.ReadAll(f)
	updated := strings.Replace(string(spec), "grants:", forecastYAML+"grants:", 1)
	f.Truncate(0)
	f.WriteAt([]byte(updated), 0)
	f.Close()
	pid := srv.cmd.Process.Pid
	for i := 0; ; i++ {
		if _, status, ok := runRequest(ctx, gw, fmt.Sprintf("forecast-%d", i), "forecast for Oslo?"); !ok || status != "answered" {
			t.Fatalf("forecast run %d: %q", i, status)
		}
		mu.Lock()
		saw := sawForecast
		mu.Unlock()
		if saw {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the forecast tool never reached a run")
		case <-time.After(200 * time.Millisecond):
		}
	}
	if srv.cmd.Process.Pid != pid {
		t.Error("serve was restarted")
	}
}

// writeGatewayConfig writes the gateway's file into dir for the tests under
// serve: one OpenAI upstream at upURL (its key sk-up) and one client key
// for tenant acme, and for user when it is not empty; it returns the
// file's path.
func writeGatewayConfig(t *testing.T, dir, upURL, key, user string) string {
	t.Helper()
	cfg := fmt.Sprintf("upstreams:\n  - name: openai\n    kind: openai\n    base_url: %s/v1\n    api_key: sk-up\nkeys:\n  - key_sha256: %s\n    tenant: acme\n",
		upURL, gateway.HashKey(key))
	if user != "" {
		cfg += "    user: " + user + "\n"
	}
	file := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// serveLog creates dir/serve.log for a runServe's output (read back when a
// test fails), closed when the test ends.
func serveLog(t *testing.T, dir string) *os.File {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	return logf
}
