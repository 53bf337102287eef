package stack

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/fakeup"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/registry"
)

const chatAnswer = `{"id":"chatcmpl-cap","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Sunny."},"finish_reason":"stop"}]}`

// TestGatewayConnectionsAreBounded: a client opening
// many connections that never finish their headers (a few hundred here,
// on loopback, ten times the cap) holds at most the gateway's conns_max
// of them; each one over is answered 503 and closed at once, so the
// process's descriptors stay the log's: a JetStream publish is
// acknowledged while the gateway is full. Once the slow connections go
// (the client hangs up; the server would cut them at ReadHeaderTimeout),
// the same gateway serves a request again, with no restart.
func TestGatewayConnectionsAreBounded(t *testing.T) {
	const connsMax, attack = 20, 200
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	up := fakeup.Start(t, func(n int, path string, body []byte) (fakeup.Answer, error) {
		return fakeup.Answer{Status: http.StatusOK, Body: chatAnswer}, nil
	})
	cfg := filepath.Join(t.TempDir(), "gateway.yaml")
	yaml := fmt.Sprintf("upstreams:\n  - {name: openai, kind: openai, base_url: %q, api_key: up}\nkeys:\n  - {key_sha256: %s, tenant: acme}\nlimits:\n  conns_max: %d\n",
		up.URL+"/v1", gateway.HashKey("client-key"), connsMax)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	s, err := Start(sctx, Config{Bus: b, ViewsDir: t.TempDir(), Components: []string{Clock},
		Projections: Projections{Trust: registry.NewTrust()}, Gateway: Gateway{Addr: addr, ConfigFile: cfg}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ask := func() (int, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[]}`))
		req.Header.Set("Authorization", "Bearer client-key")
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	for {
		if code, err := ask(); err == nil && code == http.StatusOK {
			break
		} else if ctx.Err() != nil {
			t.Fatalf("the gateway never answered: %d %v", code, err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// The attack: connections whose headers never end.
	conns := make([]net.Conn, 0, attack)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range attack {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprint(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\n")
	}
	var mu sync.Mutex
	held, refused := 0, 0
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			c.SetReadDeadline(time.Now().Add(3 * time.Second))
			line, err := bufio.NewReader(c).ReadString('\n')
			mu.Lock()
			defer mu.Unlock()
			switch {
			case strings.HasPrefix(line, "HTTP/1.1 503"):
				refused++
			case err != nil && os.IsTimeout(err):
				held++ // the server waits for the headers
			}
		})
	}
	wg.Wait()
	if held > connsMax || refused < attack-connsMax {
		t.Errorf("%d connections held open and %d refused, want at most %d held and the rest refused", held, refused, connsMax)
	}
	// The log is not starved: a publish is acknowledged while the gateway
	// is full, and a request to it is refused at once, not left hanging.
	subj, _ := events.IngestSubject("acme", "openai-chat", "cap-1")
	if _, err := b.JS.Publish(ctx, subj, []byte(chatAnswer)); err != nil {
		t.Errorf("a publish while the gateway is full: %v", err)
	}
	if code, err := ask(); err == nil && code != http.StatusServiceUnavailable {
		t.Errorf("a request while the gateway is full: %d, want 503 (or the connection closed)", code)
	}

	for _, c := range conns {
		c.Close()
	}
	conns = nil
	for {
		code, err := ask()
		if err == nil && code == http.StatusOK {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the gateway did not serve again after the attack: %d %v", code, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConnsCapsAreAShareOfTheDescriptors: the default caps leave most
// descriptors to the log, within a floor and a ceiling.
func TestConnsCapsAreAShareOfTheDescriptors(t *testing.T) {
	for _, c := range []struct {
		noFile           uint64
		gateway, console int
	}{{256, 32, 16}, {1024, 128, 32}, {20000, 2500, 625}, {1 << 20, 16384, 1024}} {
		if g, k := GatewayConnsMax(c.noFile), ConsoleConnsMax(c.noFile); g != c.gateway || k != c.console {
			t.Errorf("%d descriptors: gateway %d, console %d; want %d, %d", c.noFile, g, k, c.gateway, c.console)
		}
		if uint64(2*GatewayConnsMax(c.noFile)+ConsoleConnsMax(c.noFile)+metricsConnsMax) > c.noFile/2 && c.noFile >= 1024 {
			t.Errorf("%d descriptors: the HTTP servers may take over half", c.noFile)
		}
	}
}
