//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/gateway"
)

// TestServeGatewayReloadsKeys runs `serve --gateway --gateway-config
// --metrics`: a key added to the config's keys_file is accepted without a
// restart and a key taken out is refused; SIGHUP reads the files again;
// /metrics shows the gateway's upstream attempts and the reloads.
func TestServeGatewayReloadsKeys(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
	}))
	defer up.Close()
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	addr, metricsAddr := free(), free()
	dir := t.TempDir()
	cfg, keysFile := filepath.Join(dir, "gateway.yaml"), filepath.Join(dir, "keys.yaml")
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cfg, "upstreams:\n  - {name: openai, kind: openai, base_url: '"+up.URL+"/v1', api_key: sk-up}\nkeys_file: keys.yaml\n")
	write(keysFile, "- {key_sha256: "+gateway.HashKey("key-a")+", tenant: acme, name: a}\n")

	admin := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := startServeInProcess(t, ctx, "--components", "clock", "--nats-url", admin.ClientURL(),
		"--data", filepath.Join(dir, "serve"), "--log-level", "warn", "--creds", bustest.Creds(t, admin, bustest.Admin),
		"--gateway", addr, "--gateway-config", cfg, "--metrics", metricsAddr)
	status := func(key string) int {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/v1/chat/completions", strings.NewReader(`{"model":"gpt","messages":[]}`))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Toolstream-User", "bob")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	poll := srv.poll
	poll("key a served", func() bool { return status("key-a") == 200 })
	if st := status("key-b"); st != 401 {
		t.Fatalf("key b before it is added: %d", st)
	}
	write(keysFile, "- {key_sha256: "+gateway.HashKey("key-b")+", tenant: acme, name: b}\n")
	poll("key b accepted after the keys file changed", func() bool { return status("key-b") == 200 })
	if st := status("key-a"); st != 401 {
		t.Fatalf("key a after it was taken out: %d", st)
	}
	metric := func(name string) (float64, bool) {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err != nil {
			return 0, false
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
				f, err := strconv.ParseFloat(v, 64)
				return f, err == nil
			}
		}
		return 0, false
	}
	poll("the gateway's attempts on /metrics", func() bool {
		n, ok := metric(`toolstream_gateway_upstream_attempts_total{outcome="ok",upstream="openai"}`)
		return ok && n >= 2
	})
	before, _ := metric(`toolstream_gateway_config_reloads_total{result="ok"}`)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	poll("SIGHUP reloads", func() bool {
		n, ok := metric(`toolstream_gateway_config_reloads_total{result="ok"}`)
		return ok && n > before
	})
}
