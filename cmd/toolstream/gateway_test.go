package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/gateway"
)

// TestServeGateway runs `serve --gateway ADDR --gateway-config FILE`
// in-process in front of a fake upstream serving a recorded Responses
// stream: a client's streamed request through the gateway gets the
// recording's events, and the call in it is assembled by serve's
// assembler. The flags are refused one without the other.
func TestServeGateway(t *testing.T) {
	rec, err := os.ReadFile("../../internal/gateway/testdata/openai-responses-azure-weather.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(rec)), "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer sk-up" {
			http.Error(w, "wrong", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, l := range lines {
			fmt.Fprintf(w, "data: %s\n\n", l)
		}
	}))
	defer up.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // serve listens itself
	dir := t.TempDir()
	cfg := filepath.Join(dir, "gateway.yaml")
	yaml := "upstreams:\n  - {name: openai, kind: openai, base_url: '" + up.URL + "/v1', api_key: '${env:TS_TEST_UPSTREAM_KEY}'}\n" +
		"keys:\n  - {key_sha256: " + gateway.HashKey("client-key") + ", tenant: acme}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TS_TEST_UPSTREAM_KEY", "sk-up")

	admin := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, args := range [][]string{{"--gateway", addr}, {"--gateway-config", cfg}} {
		root := newRoot(&bytes.Buffer{}, &bytes.Buffer{})
		root.SetArgs(append([]string{"serve", "--components", "clock", "--nats-url", admin.ClientURL(), "--data", filepath.Join(dir, "bad"),
			"--log-level", "warn", "--creds", bustest.Creds(t, admin, bustest.Admin)}, args...))
		if err := root.ExecuteContext(ctx); err == nil || !strings.Contains(err.Error(), "--gateway") {
			t.Errorf("serve %v: %v, want a refusal naming the other flag", args, err)
		}
	}

	sctx, stop := context.WithCancel(ctx)
	var serveErr bytes.Buffer
	root := newRoot(&bytes.Buffer{}, &serveErr)
	root.SetArgs([]string{"serve", "--components", "ingest,assembler,responses", "--nats-url", admin.ClientURL(),
		"--data", filepath.Join(dir, "serve"), "--log-level", "warn", "--creds", bustest.Creds(t, admin, bustest.Admin),
		"--gateway", addr, "--gateway-config", cfg})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(sctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v\n%s", err, serveErr.String())
		}
	}()

	var resp *http.Response
	for resp == nil {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/v1/responses", strings.NewReader(`{"model":"gpt","stream":true,"input":"hi"}`))
		req.Header.Set("Authorization", "Bearer client-key")
		req.Header.Set("Toolstream-User", "bob")
		if resp, err = http.DefaultClient.Do(req); err != nil {
			resp = nil
			select {
			case err := <-done:
				t.Fatalf("serve stopped: %v\n%s", err, serveErr.String())
			case <-ctx.Done():
				t.Fatalf("the gateway never answered: %v", err)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	defer resp.Body.Close()
	var got []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			got = append(got, d)
		}
	}
	if resp.StatusCode != 200 || strings.Join(got, "\n") != strings.Join(lines, "\n") {
		t.Fatalf("%d: got %d events, want the recording's %d", resp.StatusCode, len(got), len(lines))
	}
	_, err = bustest.WaitEvents(ctx, admin, []string{events.AllCalls}, func(evs []*events.Event) bool {
		for _, ev := range evs {
			if _, ok := events.As[*events.CallCompleted](ev); ok && ev.CallID == "call_H5DxLSFnsGhiROnUiDHmgyc8" && ev.User == "bob" {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the call was not assembled: %v\n%s", err, serveErr.String())
	}
}
