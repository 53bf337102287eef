package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/gateway"
)

// StreamEvents is how many Chat chunks the streaming rows' upstream sends
// an answer (a role chunk, content chunks of a word or two, the finish
// chunk with usage; [DONE] is not counted): an answer of a few hundred
// tokens, as a model's usual one.
const StreamEvents = 256

// GatewayStreamingResult is one side pair of a streaming row: clients
// reading answers through the gateway and straight from the same upstream,
// concurrently, each in a closed loop, for the same time.
type GatewayStreamingResult struct {
	Streams int  // concurrent clients
	Whole   bool // non-streamed answers (one JSON body) instead of streams
	Gateway StreamingSide
	Direct  StreamingSide
	// Proxy, for whole answers only, is the like-with-like side: a plain
	// program that forwards each request to the upstream and stores the
	// answer as one JetStream message, its acknowledgement waited for,
	// before the client gets it (plainProxy).
	Proxy StreamingSide
	// ProxyStored is how many messages the plain proxy stored, warm-up
	// included; its stream is deleted once counted, so that the server's
	// streams hold the gateway's messages alone.
	ProxyStored int
	Failures    int // answers that were not 200 or could not be read
	// WarmAnswers are the answers read through the gateway before the
	// timing (warming connections and the first publishes).
	WarmAnswers int
}

// StreamingSide is what the clients of one side got.
type StreamingSide struct {
	Events  int           // events read (a whole answer counts the chunks its stream would have had)
	Answers int           // answers read to their end
	Elapsed time.Duration // the first request sent → the last answer read
	// CPU is the process's CPU time over Elapsed (every thread: the
	// clients', the upstream's, the gateway's and the embedded server's),
	// which moves far less than the wall clock on a shared machine.
	CPU       time.Duration
	FirstByte []time.Duration // request sent → the answer's first body byte, one per answer
}

// EventsPerSecond is the side's throughput.
func (s StreamingSide) EventsPerSecond() float64 { return rate(s.Events, s.Elapsed) }

// CPUPerAnswer is the process's CPU time an answer took on this side.
func (s StreamingSide) CPUPerAnswer() time.Duration {
	if s.Answers == 0 {
		return 0
	}
	return s.CPU / time.Duration(s.Answers)
}

// streamingUpstream is an in-process Chat upstream that answers every
// request with StreamEvents chunks as fast as it can write them, each
// flushed as a provider flushes its events (or the same answer whole).
type streamingUpstream struct {
	n atomic.Int64
}

// chunk is a Chat chunk of realistic size (~230 bytes: the fields OpenAI
// sends, a word or two of content).
func chatChunk(id int64, delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return fmt.Sprintf(`{"id":"chatcmpl-bench-s-%d","object":"chat.completion.chunk","created":1764950400,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`, id, delta, f)
}

var benchWords = strings.Fields("The forecast for Paris shows light rain in the morning, clearing by noon with highs near fourteen degrees and a gentle westerly breeze.")

func (u *streamingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Stream bool `json:"stream"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req) // a body that is none asks for a whole answer
	id := u.n.Add(1)
	if !req.Stream {
		var text strings.Builder
		for i := range StreamEvents - 2 {
			text.WriteString(" " + benchWords[i%len(benchWords)])
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-bench-w-%d","object":"chat.completion","created":1764950400,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":%d,"total_tokens":%d}}`,
			id, strings.TrimSpace(text.String()), StreamEvents-2, StreamEvents+10)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	bw := bufio.NewWriterSize(w, 4096)
	event := func(data string) {
		bw.WriteString("data: ")
		bw.WriteString(data)
		bw.WriteString("\n\n")
		bw.Flush()
		if fl != nil {
			fl.Flush()
		}
	}
	event(chatChunk(id, `{"role":"assistant","content":"","refusal":null}`, ""))
	for i := range StreamEvents - 2 {
		event(chatChunk(id, fmt.Sprintf(`{"content":" %s"}`, benchWords[i%len(benchWords)]), ""))
	}
	event(strings.TrimSuffix(chatChunk(id, `{}`, "stop"), "}") + fmt.Sprintf(`,"usage":{"prompt_tokens":12,"completion_tokens":%d,"total_tokens":%d}}`, StreamEvents-2, StreamEvents+10))
	event("[DONE]")
}

// GatewayStreaming measures the gateway's streaming path: streams clients
// each read answers of StreamEvents chunks in a closed loop for d, through
// a gateway on b (every frame kept sealed, every model event published, as
// in production), then straight from the same in-process upstream for as
// long. whole asks for non-streamed answers (the same content in one JSON
// body). Events/s count the chunks read (a whole answer counts its
// stream's); the first byte is the time from sending a request to reading
// the first byte of its answer's body.
func GatewayStreaming(ctx context.Context, b *bus.Bus, streams int, whole bool, d time.Duration) (GatewayStreamingResult, error) {
	res := GatewayStreamingResult{Streams: streams, Whole: whole}
	// Each part's goroutines carry a profiler label (part: upstream,
	// gateway, client), which the goroutines they start inherit (the
	// servers' connections, the gateway's upstream requests and log
	// path), so a CPU profile of the run is read part by part (go tool
	// pprof -tagfocus part=gateway); the embedded server's and the log
	// connection's goroutines carry none.
	var upURL string
	var up *http.Server
	var err error
	pprof.Do(ctx, pprof.Labels("part", "upstream"), func(context.Context) {
		upURL, up, err = serveLoopback(&streamingUpstream{})
	})
	if err != nil {
		return res, err
	}
	defer up.Close()
	kr, err := benchKeys(ctx, b)
	if err != nil {
		return res, err
	}
	g, err := benchGateway(b, kr, upURL, gateway.Key{Tenant: "bench", User: "alice"}, nil)
	if err != nil {
		return res, err
	}
	var gwURL string
	var gw *http.Server
	pprof.Do(ctx, pprof.Labels("part", "gateway"), func(context.Context) {
		gwURL, gw, err = serveLoopback(g)
	})
	if err != nil {
		return res, err
	}
	defer shutdown(gw, g.Wait)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, DisableCompression: true}, Timeout: 2 * time.Minute}
	defer client.CloseIdleConnections()
	body := fmt.Sprintf(`{"model":"gpt-4o-mini","stream":%t,"messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"What is the weather in Paris today?"}]}`, !whole)
	// one reads an answer: its events (data lines but [DONE]; a whole
	// answer counts StreamEvents) and its first body byte's time.
	// Each client goroutine reads through one reader of its own (Reset on
	// each body), on both sides: a 64 KiB reader made per answer was the
	// run's largest garbage (740 MB of 1.1 GB allocated at 64 whole
	// streams), collected on the cores both sides share.
	one := func(br *bufio.Reader, url, key string) (events int, first time.Duration, err error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
		if err != nil {
			return 0, 0, err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			io.Copy(io.Discard, resp.Body)
			return 0, 0, fmt.Errorf("status %d", resp.StatusCode)
		}
		br.Reset(resp.Body)
		defer br.Reset(nil)
		if _, err := br.Peek(1); err != nil {
			return 0, 0, err
		}
		first = time.Since(start)
		if whole {
			b, err := io.ReadAll(br)
			if err != nil {
				return 0, 0, err
			}
			if !bytes.Contains(b, []byte(`"finish_reason":"stop"`)) {
				return 0, 0, errors.New("a whole answer without its end")
			}
			return StreamEvents, first, nil
		}
		done := false
		for {
			line, err := br.ReadSlice('\n')
			if bytes.HasPrefix(line, []byte("data: ")) {
				if bytes.HasPrefix(line, []byte("data: [DONE]")) {
					done = true
				} else {
					events++
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return 0, 0, err
			}
		}
		if !done || events != StreamEvents {
			return 0, 0, fmt.Errorf("a stream of %d events, [DONE] %t", events, done)
		}
		return events, first, nil
	}
	// side runs streams clients, each sending its next request as soon as
	// it read an answer, until d passed.
	side := func(url, key string, d time.Duration) (StreamingSide, int, error) {
		var s StreamingSide
		var mu sync.Mutex
		var fails int
		var wg sync.WaitGroup
		start, cpu := time.Now(), ProcessCPU()
		stop := start.Add(d)
		for range streams {
			wg.Add(1)
			go pprof.Do(ctx, pprof.Labels("part", "client"), func(context.Context) {
				defer wg.Done()
				br := bufio.NewReaderSize(nil, 64<<10)
				for time.Now().Before(stop) && ctx.Err() == nil {
					n, first, err := one(br, url, key)
					mu.Lock()
					if err != nil {
						fails++
					} else {
						s.Events += n
						s.Answers++
						s.FirstByte = append(s.FirstByte, first)
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		s.Elapsed, s.CPU = time.Since(start), ProcessCPU()-cpu
		return s, fails, ctx.Err()
	}
	paths := [][2]string{{gwURL, gatewayBenchKey}, {upURL, "sk-up"}}
	var proxyURL string
	var px *plainProxy
	if whole {
		px, err = newPlainProxy(ctx, b, upURL)
		if err != nil {
			return res, err
		}
		var srv *http.Server
		if proxyURL, srv, err = serveLoopback(px); err != nil {
			return res, err
		}
		defer shutdown(srv)
		defer px.client.CloseIdleConnections()
		defer func() {
			if res.ProxyStored == 0 { // the run failed before the count
				px.close(context.WithoutCancel(ctx))
			}
		}()
		paths = append(paths, [2]string{proxyURL, "sk-up"})
	}
	// Warm every path (connections, the first publishes).
	for _, p := range paths {
		warm, _, err := side(p[0], p[1], min(d/4, 500*time.Millisecond))
		if err != nil {
			return res, err
		}
		if p[0] == gwURL {
			res.WarmAnswers = warm.Answers
		}
	}
	var fails int
	if res.Gateway, fails, err = side(gwURL, gatewayBenchKey, d); err != nil {
		return res, err
	}
	res.Failures += fails
	if res.Direct, fails, err = side(upURL, "sk-up", d); err != nil {
		return res, err
	}
	res.Failures += fails
	if whole {
		if res.Proxy, fails, err = side(proxyURL, "sk-up", d); err != nil {
			return res, err
		}
		res.Failures += fails
		if res.Proxy.Answers == 0 {
			return res, fmt.Errorf("gateway streaming: no answer read through the plain proxy (%d failed)", res.Failures)
		}
		if res.ProxyStored, err = px.close(ctx); err != nil {
			return res, err
		}
	}
	if res.Gateway.Answers == 0 || res.Direct.Answers == 0 {
		return res, fmt.Errorf("gateway streaming: no answer read (%d failed)", res.Failures)
	}
	return res, nil
}

// plainProxyStream is the stream plainProxy stores its answers in.
const plainProxyStream = "BENCH_PROXY"

// plainProxy is the floor a proxy pays to lose no answer it gave: it
// forwards a request's body to the upstream unchanged, reads the whole
// answer, stores it as one JetStream message (file storage and the default
// duplicate window, as the gateway's log; a message id, as the gateway
// sets one) and waits for the acknowledgement before it writes the answer
// to the client. It checks no key, seals nothing, keeps no prompt and
// publishes no model events: what the gateway does beyond it is the
// gateway's own cost.
type plainProxy struct {
	up     string
	client *http.Client
	js     jetstream.JetStream
	n      atomic.Int64
}

func newPlainProxy(ctx context.Context, b *bus.Bus, up string) (*plainProxy, error) {
	if _, err := b.JS.CreateStream(ctx, jetstream.StreamConfig{Name: plainProxyStream, Subjects: []string{"benchproxy.>"},
		Storage: jetstream.FileStorage, Retention: jetstream.LimitsPolicy}); err != nil {
		return nil, fmt.Errorf("plain proxy: %w", err)
	}
	return &plainProxy{up: up, js: b.JS,
		client: &http.Client{Transport: &http.Transport{MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, DisableCompression: true}}}, nil
}

// close counts the messages the proxy stored and deletes its stream.
func (p *plainProxy) close(ctx context.Context) (int, error) {
	st, err := p.js.Stream(ctx, plainProxyStream)
	if err != nil {
		return 0, fmt.Errorf("plain proxy: %w", err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("plain proxy: %w", err)
	}
	if err := p.js.DeleteStream(ctx, plainProxyStream); err != nil {
		return 0, fmt.Errorf("plain proxy: %w", err)
	}
	return int(info.State.Msgs), nil
}

func (p *plainProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, p.up+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.Header.Set("Content-Type", r.Header.Get("Content-Type"))
	resp, err := p.client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	id := strconv.FormatInt(p.n.Add(1), 10)
	m := &nats.Msg{Subject: "benchproxy." + id, Data: answer, Header: nats.Header{jetstream.MsgIDHeader: []string{id}}}
	if _, err := p.js.PublishMsg(r.Context(), m); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// gatewayStreaming measures the streaming rows (GatewayStreaming): streamed
// and whole answers, 1 and 64 concurrent streams, each pair on a fresh
// server; events/s and first-byte p50 and p99, each against the same
// clients reading straight from the upstream.
func (r *runner) gatewayStreaming() error {
	d := time.Duration(r.cfg.Sizes.GatewaySeconds) * time.Second
	for _, whole := range []bool{false, true} {
		for _, streams := range []int{1, 64} {
			mode := "streamed"
			if whole {
				mode = "whole"
			}
			name := fmt.Sprintf("gwstream-%s-%d", mode, streams)
			err := r.withBus(name, func(b *bus.Bus, _ string) error {
				before, err := storedMessages(r.ctx, b)
				if err != nil {
					return err
				}
				res, err := GatewayStreaming(r.ctx, b, streams, whole, d)
				if err != nil {
					return err
				}
				after, err := storedMessages(r.ctx, b)
				if err != nil {
					return err
				}
				// The warm-up's answers are stored too: per answer over both.
				perAnswer := float64(after-before) / float64(max(1, res.Gateway.Answers+res.WarmAnswers))
				at := fmt.Sprintf("%s, %d stream", mode, streams)
				if streams > 1 {
					at += "s"
				}
				gw, direct := gatewayStreamingWork(whole, perAnswer)
				note := fmt.Sprintf("%d clients in a closed loop for %s each way, answers of %d Chat chunks (~230 bytes each); %d answers through the gateway, %d direct; the process's CPU an answer %.0f µs through the gateway, %.0f µs direct (%.2f× direct's answers a CPU-second: what the wall clock's ratio reads when CPU-bound, less another load's share)",
					streams, d, StreamEvents, res.Gateway.Answers, res.Direct.Answers, micros(res.Gateway.CPUPerAnswer()), micros(res.Direct.CPUPerAnswer()),
					float64(res.Direct.CPUPerAnswer())/float64(max(1, res.Gateway.CPUPerAnswer())))
				if res.Failures > 0 {
					note += fmt.Sprintf("; %d failed", res.Failures)
				}
				r.add(Row{Section: "gateway streaming", Measured: "events/s, " + at, Value: res.Gateway.EventsPerSecond(),
					Baseline: "the same clients straight to the upstream", BaseValue: res.Direct.EventsPerSecond(),
					Unit: "events/s", Better: "higher", Target: "≥ 0.5", Note: note, Work: gw, BaseWork: direct})
				if whole {
					px := plainProxyWork()
					r.add(Row{Section: "gateway streaming", Measured: "events/s, " + at + ", like with like", Value: res.Gateway.EventsPerSecond(),
						Baseline: "the same clients through a plain proxy that stores each answer (one message, acknowledged) before answering", BaseValue: res.Proxy.EventsPerSecond(),
						Unit: "events/s", Better: "higher", Work: gw, BaseWork: px,
						Note: fmt.Sprintf("%d answers through the gateway, %d through the plain proxy; the process's CPU an answer %.0f µs through the gateway, %.0f µs through the plain proxy (%.2f× its answers a CPU-second); what the gateway does beyond durability's floor: key, seal, prompt, model events",
							res.Gateway.Answers, res.Proxy.Answers, micros(res.Gateway.CPUPerAnswer()), micros(res.Proxy.CPUPerAnswer()),
							float64(res.Proxy.CPUPerAnswer())/float64(max(1, res.Gateway.CPUPerAnswer())))})
				}
				for _, p := range []float64{50, 99} {
					g, dr := Percentile(res.Gateway.FirstByte, p), Percentile(res.Direct.FirstByte, p)
					row := Row{Section: "gateway streaming", Measured: fmt.Sprintf("first byte p%.0f, %s", p, at), Value: micros(g),
						Baseline: fmt.Sprintf("the same clients straight to the upstream, p%.0f", p), BaseValue: micros(dr),
						Unit: "µs", Better: "lower", Work: gw, BaseWork: direct,
						Note: fmt.Sprintf("adds %.2f ms; request sent → the answer's first body byte; %d samples through the gateway, %d direct",
							float64(g-dr)/float64(time.Millisecond), len(res.Gateway.FirstByte), len(res.Direct.FirstByte))}
					if p == 99 {
						row.Target = "≤ 1.2× + 2 ms"
					}
					r.add(row)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// plainProxyWork is what the plain proxy (the like-with-like side of a
// whole answer's row) does.
func plainProxyWork() Work {
	return Work{Does: "a plain program: the same HTTP request forwarded to the in-process upstream, the whole answer stored as one JetStream message (not sealed; no key, prompt or model events) before the client gets it",
		Stored: "1 message an answer", Acks: "its ack, before the client gets the answer",
		Parsed: "nothing: the request and the answer are copied as bytes"}
}

// gatewayStreamingWork is what both sides of a streaming row do.
func gatewayStreamingWork(whole bool, storedPerAnswer float64) (gw, direct Work) {
	gw = Work{Does: "the gateway: key check, pool, upstream request; each upstream event written to the client as it arrives (those of one upstream read flushed together, before the next read), then kept (a flush window's frames in one message, sealed under the user's key) and normalised into model events (sealed, published) on a path of its own",
		Stored: fmt.Sprintf("%.1f messages an answer (frames and model events, counted in the streams)", storedPerAnswer),
		Acks:   "none before the client's last event; every publish's ack before the upstream read ends (a window of asynchronous publishes)",
		Parsed: fmt.Sprintf("each upstream event (%d an answer) split and decoded by the edge's normaliser, the request body", StreamEvents+1)}
	direct = Work{Does: "the same HTTP request straight to the in-process upstream", Stored: "none", Acks: "none",
		Parsed: "the client splits the stream's lines, decodes nothing", Fsync: FsyncNone}
	if whole {
		gw.Does = "the gateway: key check, pool, upstream request; the whole answer kept as one message (its prompt, frame and end, sealed; stored on the condition that its subject is empty) and converted to its stream's model events (sealed, published) before the client gets it"
		gw.Acks = "every publish's ack, before the client gets the answer"
		gw.Parsed = "the answer decoded and converted to its stream's events, each normalised; the request body"
		direct.Parsed = "the client reads the body, decodes nothing"
	}
	return gw, direct
}
