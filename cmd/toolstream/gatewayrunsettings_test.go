//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
)

// TestServeGatewayReloadsRunSettings runs `serve --gateway
// --gateway-config` with run: {plans: false, delegate: false}: a run's
// request to the model offers the registry's tool and neither built-in.
// The config is rewritten with plans: true and the change is taken
// without a restart (the file watch): the next run offers toolstream_plan,
// still not toolstream_delegate. Rewritten back to plans: false and
// reloaded by SIGHUP, the next run offers neither again.
func TestServeGatewayReloadsRunSettings(t *testing.T) {
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		return fakeup.Answer{File: filepath.Join("..", "..", "internal", "gateway", "testdata", "run", "chat-weather-answer.jsonl")}, nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	cfg, tools := filepath.Join(dir, "gateway.yaml"), filepath.Join(dir, "tools.yaml")
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	config := func(plans bool) string {
		p := "false"
		if plans {
			p = "true"
		}
		return "upstreams:\n  - {name: openai, kind: openai, base_url: '" + up.URL + "/v1', api_key: sk-up}\n" +
			"keys:\n  - {key_sha256: " + gateway.HashKey("key-run") + ", tenant: acme, name: run}\n" +
			"run: {plans: " + p + ", delegate: false}\n"
	}
	write(cfg, config(false))
	write(tools, "tools:\n  - name: weather\n    side_effect: none\n    http: {url: 'http://127.0.0.1:9/weather'}\ngrants:\n  - tenant: acme\n    permissions: [weather]\n")

	admin := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv := startServeInProcess(t, ctx, "--nats-url", admin.ClientURL(), "--data", filepath.Join(dir, "serve"), "--log-level", "warn",
		"--creds", bustest.Creds(t, admin, bustest.Admin), "--tools", tools, "--gateway", addr, "--gateway-config", cfg)
	poll := srv.poll
	// offered asks a new run and returns the tools its first request to
	// the model offered.
	offered := func(run string) []string {
		t.Helper()
		n := len(up.Requests())
		body := `{"model":"fake-1","stream":true,"messages":[{"role":"user","content":"What's the weather in Paris?"}]}`
		go func() {
			rctx, rcancel := context.WithTimeout(ctx, time.Minute)
			defer rcancel()
			req, _ := http.NewRequestWithContext(rctx, http.MethodPost, "http://"+addr+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer key-run")
			req.Header.Set(gateway.HeaderMode, "run")
			req.Header.Set(gateway.HeaderRun, run)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		poll(run+" asks the model", func() bool { return len(up.Requests()) > n })
		var req struct {
			Tools []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(up.Requests()[n].Body, &req); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range req.Tools {
			names = append(names, tl.Function.Name)
		}
		return names
	}
	check := func(run string, plan bool) bool {
		names := offered(run)
		if !slices.Contains(names, "weather") || slices.Contains(names, events.ToolDelegate) {
			t.Fatalf("%s offers %v: want weather and no %s", run, names, events.ToolDelegate)
		}
		return slices.Contains(names, events.ToolPlan) == plan
	}
	poll("the gateway serves", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	if !check("run-1", false) {
		t.Fatalf("run-1 offers %s with run: {plans: false}", events.ToolPlan)
	}
	write(cfg, config(true))
	i := 1
	poll("plans: true taken from the changed file", func() bool { i++; return check(fmt.Sprintf("run-w%d", i), true) })
	write(cfg, config(false))
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	poll("plans: false taken on SIGHUP", func() bool { i++; return check(fmt.Sprintf("run-h%d", i), false) })
}
