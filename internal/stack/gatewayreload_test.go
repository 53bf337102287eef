package stack

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/logtest"
	"github.com/toolstream/toolstream/registry"
)

// TestGatewayReloadWarnsOfWhatChanged: serve put its connection cap in
// force as requests_max for a file that leaves it unset, and a reload
// compared the file read again with the gateway's own default: a key
// added, or an upstream's URL edited, warned that "upstreams, limits"
// (limits never touched) wait for a restart (review rev15). A keys-only
// change warns of nothing; an upstream edited names the upstreams alone.
func TestGatewayReloadWarnsOfWhatChanged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		return fakeup.Answer{Status: http.StatusOK, Body: chatAnswer}, nil
	})
	cfg := filepath.Join(t.TempDir(), "gateway.yaml")
	write := func(baseURL string, keys ...string) {
		t.Helper()
		yaml := fmt.Sprintf("upstreams:\n  - {name: openai, kind: openai, base_url: %q, api_key: up}\nkeys:\n", baseURL)
		for _, k := range keys {
			yaml += fmt.Sprintf("  - {key_sha256: %s, tenant: acme}\n", gateway.HashKey(k))
		}
		if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(up.URL+"/v1", "key-a")
	var logs logtest.Buffer
	addr := freeAddr(t)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	s, err := Start(sctx, Config{Bus: b, ViewsDir: t.TempDir(), Components: []string{Clock}, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Projections: Projections{Trust: registry.NewTrust()}, Gateway: Gateway{Addr: addr, ConfigFile: cfg}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	status := func(key string) int {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[]}`))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	poll := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			if ctx.Err() != nil {
				t.Fatalf("%s: never\n%s", what, logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	poll("key a served", func() bool { return status("key-a") == http.StatusOK })

	write(up.URL+"/v1", "key-a", "key-b")
	poll("key b in force", func() bool { return status("key-b") == http.StatusOK })
	if w := logs.Lines("read at start"); len(w) > 0 {
		t.Errorf("a keys-only reload warned: %q", w)
	}
	write("http://127.0.0.1:1/v1", "key-a", "key-b")
	poll("the upstream's edit warned of", func() bool { return len(logs.Lines("read at start")) > 0 })
	if w := logs.Lines("read at start"); !strings.Contains(w[0], "the file's upstreams changed;") {
		t.Errorf("warned %q; want the upstreams named alone", w)
	}
}
