package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/keys"
)

// GatewayResult is what a client waited for its answers at one rate,
// through the gateway and directly from the same upstream.
type GatewayResult struct {
	Rate     int             // requests a second, open loop
	Gateway  []time.Duration // request sent → whole answer read, through the gateway
	Direct   []time.Duration // the same, directly from the upstream
	Failures int             // answers that were not 200 or could not be read (not in the samples)
}

// gatewayBenchKey is the client key of the measured gateway.
const gatewayBenchKey = "ts-bench-key"

// GatewayOverhead measures what the gateway adds to a request: an open
// loop sends rate streamed Chat requests a second for seconds through a
// gateway on b (every frame kept, every model event published, as in
// production) and then as many straight to the same in-process upstream,
// which answers a 6-event stream at once; each sample is the time from
// sending a request to reading its whole answer.
func GatewayOverhead(ctx context.Context, b *bus.Bus, rate, seconds int) (GatewayResult, error) {
	res := GatewayResult{Rate: rate}
	var id atomic.Int64
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n := id.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fl, _ := w.(http.Flusher)
		for i, delta := range []string{`{"role":"assistant","content":""}`, `{"content":"It is "}`, `{"content":"sunny "}`, `{"content":"in Paris."}`} {
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-bench-%d\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", n, delta)
			if i == 0 && fl != nil {
				fl.Flush()
			}
		}
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-bench-%d\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":5,\"total_tokens\":14}}\n\n", n)
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	upURL, upSrv, err := serveLoopback(up)
	if err != nil {
		return res, err
	}
	defer upSrv.Close()
	kr, err := benchKeys(ctx, b)
	if err != nil {
		return res, err
	}
	g, err := benchGateway(b, kr, upURL, gateway.Key{Tenant: "bench"}, nil)
	if err != nil {
		return res, err
	}
	gwURL, gw, err := serveLoopback(g)
	if err != nil {
		return res, err
	}
	defer shutdown(gw, g.Wait)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	body := `{"model":"bench","stream":true,"messages":[{"role":"user","content":"weather in Paris?"}]}`
	one := func(url, key string) (time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("status %d", resp.StatusCode)
		}
		return time.Since(start), nil
	}
	// load sends n requests at rate, open loop: each at its time, whether
	// or not the ones before it were answered.
	load := func(url, key string, n int) ([]time.Duration, int, error) {
		var mu sync.Mutex
		var samples []time.Duration
		var failures int
		var wg sync.WaitGroup
		start := time.Now()
		for i := range n {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			if d := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))); d > 0 {
				time.Sleep(d)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := one(url, key)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failures++
					return
				}
				samples = append(samples, d)
			}()
		}
		wg.Wait()
		return samples, failures, nil
	}
	n := rate * seconds
	// Warm both paths (connections, the gateway's first publishes).
	for _, url := range []string{gwURL, upURL} {
		key := gatewayBenchKey
		if url == upURL {
			key = "sk-up"
		}
		if _, _, err := load(url, key, min(n, 50)); err != nil {
			return res, err
		}
	}
	var fails int
	if res.Gateway, fails, err = load(gwURL, gatewayBenchKey, n); err != nil {
		return res, err
	}
	res.Failures += fails
	if res.Direct, fails, err = load(upURL, "sk-up", n); err != nil {
		return res, err
	}
	res.Failures += fails
	if len(res.Gateway) == 0 || len(res.Direct) == 0 {
		return res, errors.New("gateway overhead: no request was answered")
	}
	return res, nil
}

// serveLoopback serves h on a loopback port of its own and returns its URL
// and the server (Close or shutdown ends it).
func serveLoopback(h http.Handler) (string, *http.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), srv, nil
}

// shutdown shuts srv down and then waits for each of waits, all within 30
// seconds.
func shutdown(srv *http.Server, waits ...func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	for _, wait := range waits {
		wait(ctx)
	}
}

// benchKeys is b's key ring, or one opened in b's log where b has none:
// the measured gateway seals as serve seals, the user's frames under
// their key.
func benchKeys(ctx context.Context, b *bus.Bus) (events.Keyring, error) {
	if b.Keys != nil {
		return b.Keys, nil
	}
	kr, err := keys.Open(ctx, keys.Config{JS: b.JS, Create: true})
	if err != nil {
		return nil, err
	}
	return kr, nil
}

// benchGateway is the measured gateway on b's log, sealing with kr: one
// OpenAI upstream at upURL (its key sk-up), the client key gatewayBenchKey
// for key's tenant and user, limits far above any load the bench makes,
// heartbeats an hour apart; runner serves run mode (nil: none).
func benchGateway(b *bus.Bus, kr events.Keyring, upURL string, key gateway.Key, runner gateway.Runner) (*gateway.Gateway, error) {
	key.SHA256 = gateway.HashKey(gatewayBenchKey)
	return gateway.New(gateway.Config{JS: b.JS, Keys: kr, Runner: runner, File: gateway.File{
		Upstreams: []gateway.Upstream{{Name: "bench", Kind: gateway.KindOpenAI, BaseURL: upURL + "/v1", APIKey: "sk-up"}},
		Keys:      []gateway.Key{key},
		Limits:    gateway.Limits{KeyRequestsMax: 100_000, RequestsMax: 100_000},
		Heartbeat: time.Hour,
	}})
}
