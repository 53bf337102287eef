//go:build unix

package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/gateway"
)

// TestAttackMCPTakesNoKeyTheGatewayRefuses runs `serve --mcp
// --gateway-config` (no --gateway): the MCP endpoint takes the gateway's
// keys, so it refuses what the gateway refuses. A key whose `expires:` has
// passed gets 401 with WWW-Authenticate, as at the gateway; a key taken
// out of the keys file gets 401 once the file is read again (on change,
// as the gateway does), while the key left in is still served. Before,
// /mcp kept every key of the file it read at start, expired or revoked:
// a holder of a revoked acme key listed and called acme's tools.
func TestAttackMCPTakesNoKeyTheGatewayRefuses(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	cfg, keysFile := filepath.Join(dir, "gateway.yaml"), filepath.Join(dir, "keys.yaml")
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	key := func(k, extra string) string {
		return "- {key_sha256: " + gateway.HashKey(k) + ", tenant: acme, name: " + k + extra + "}\n"
	}
	write(cfg, "upstreams:\n  - {name: openai, kind: openai, base_url: 'http://127.0.0.1:1/v1', api_key: sk-up}\nkeys_file: keys.yaml\n")
	write(keysFile, key("key-kept", "")+key("key-revoked", "")+key("key-expired", ", expires: 2020-01-01T00:00:00Z"))

	admin := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := startServeInProcess(t, ctx, "--components", "clock", "--nats-url", admin.ClientURL(),
		"--data", filepath.Join(dir, "serve"), "--log-level", "warn", "--creds", bustest.Creds(t, admin, bustest.Admin),
		"--mcp", addr, "--gateway-config", cfg)
	// status is a raw client's tools/list with key k: the answer's status.
	status := func(k string) int {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Authorization", "Bearer "+k)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			return -1
		}
		return resp.StatusCode
	}
	poll := srv.poll
	poll("the kept key served", func() bool { return status("key-kept") == http.StatusOK })
	if st := status("key-revoked"); st != http.StatusOK {
		t.Fatalf("the key to be revoked, before: %d, want 200", st)
	}
	if st := status("key-expired"); st != http.StatusUnauthorized {
		t.Errorf("a key expired in 2020: %d, want 401 with WWW-Authenticate: Bearer", st)
	}
	write(keysFile, key("key-kept", "")+key("key-expired", ", expires: 2020-01-01T00:00:00Z"))
	deadline := time.Now().Add(20 * time.Second)
	for status("key-revoked") != http.StatusUnauthorized && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if st := status("key-revoked"); st != http.StatusUnauthorized {
		t.Errorf("a key taken out of the keys file, 20 s later: %d, want 401 with WWW-Authenticate: Bearer", st)
	}
	if st := status("key-kept"); st != http.StatusOK {
		t.Errorf("the key left in the file: %d, want 200", st)
	}
}
