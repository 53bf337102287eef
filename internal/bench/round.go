package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/gateway"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/verifier"
)

// A run's round: gateway run mode driving a run of Rounds tool
// rounds against an upstream that answers at once, a no-op tool, and the
// same loop in one process with no log. Both are timed at the upstream:
// a round's added time is from the moment the upstream finished writing
// its answer with a tool call to the moment the next request arrived
// (model answer → tool → next request sent).

const roundTenant = "acme"

// roundEnds is how many of a run's first and last rounds the growth row
// compares.
const roundEnds = 5

const roundTools = `
tools:
  - name: noop
    description: Does nothing.
    input_schema: {type: object}
grants:
  - tenant: acme
    permissions: [noop]
`

// roundUpstream is an OpenAI Chat upstream that answers each request at
// once: a call of noop while fewer than calls tool results came back,
// then a short answer. It notes when each answer was written whole and
// when each request arrived.
type roundUpstream struct {
	calls int
	n     atomic.Int64
	mu    sync.Mutex
	ends  map[string]time.Time // by conversation and round: answer written
	added map[string][]time.Duration
}

func (u *roundUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	conv, results := "", 0
	for _, m := range req.Messages {
		switch {
		case m.Role == "user" && conv == "":
			conv = fmt.Sprint(m.Content)
		case m.Role == "tool":
			results++
		}
	}
	u.mu.Lock()
	if end, ok := u.ends[fmt.Sprint(conv, "/", results-1)]; ok && results > 0 {
		u.added[conv] = append(u.added[conv], arrived.Sub(end))
	}
	u.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("chatcmpl-bench-%d", u.n.Add(1)) // unique, as a provider's
	chunk := func(delta, finish string) {
		fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", id, delta, finish)
	}
	if results < u.calls {
		chunk(fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":"noop","arguments":""}}]}`, results), "null")
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}`, "null")
		chunk(`{}`, `"tool_calls"`)
	} else {
		chunk(`{"role":"assistant","content":"Done."}`, "null")
		chunk(`{}`, `"stop"`)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	u.mu.Lock()
	u.ends[fmt.Sprint(conv, "/", results)] = time.Now()
	u.mu.Unlock()
}

// RoundResult is the time each round added, by round (index 0: the time
// between the first answer and the second request), over all runs.
type RoundResult struct {
	Rounds   int
	Runs     int
	Gateway  [][]time.Duration // [run][round]
	InProc   [][]time.Duration
	Answered int // runs that ended with the answer through the gateway
}

// Round measures runs runs of rounds tool rounds each through gateway run
// mode on b (a fresh server with its keys), one run at a time, and as
// many through the in-process loop.
func Round(ctx context.Context, b *bus.Bus, dir string, rounds, nRuns int) (RoundResult, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	res := RoundResult{Rounds: rounds, Runs: nRuns}
	up := &roundUpstream{calls: rounds, ends: map[string]time.Time{}, added: map[string][]time.Duration{}}
	upURL, upSrv, err := serveLoopback(up)
	if err != nil {
		return res, err
	}
	defer upSrv.Close()

	// The pipeline run mode drives, as serve runs it: the registry in the
	// log, the assembler, the runs projections and service, the verifier,
	// an executor with the no-op tool.
	reg, err := registry.Parse([]byte(roundTools))
	if err != nil {
		return res, err
	}
	key, err := registry.GenerateKey()
	if err != nil {
		return res, err
	}
	if _, err := registry.Publish(ctx, registry.PublishConfig{JS: b.JS, Key: key, Source: "bench"}, reg); err != nil {
		return res, err
	}
	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	n := stack.NewNode(b, dir, nil)
	defer func() { stop(); wg.Wait(); n.Stop() }()
	var runsRunner *projector.Runner
	for _, pr := range []projector.Projection{
		assembler.New(assembler.Config{AcceptRegistry: registry.Accepter[assembler.Validator](key.Trust())}),
		runs.New(runs.Config{}), runs.Calls{},
		verifier.NewProjection(verifier.ProjectionConfig{}),
	} {
		r, err := n.Start(rctx, pr, nil)
		if err != nil {
			return res, err
		}
		if pr.Name() == runs.Name {
			runsRunner = r
		}
	}
	fol, err := registry.Follow(rctx, registry.FollowConfig{JS: b.JS, Trust: key.Trust()})
	if err != nil {
		return res, err
	}
	defer fol.Stop()
	if err := fol.Wait(ctx, reg.Digest()); err != nil {
		return res, err
	}
	noop := executor.ToolFunc(func(context.Context, executor.Call) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	ex, err := executor.New(executor.Config{JS: b.JS, Keys: b.Keys, Registry: fol.Current, Tools: map[string]executor.Tool{"noop": noop}})
	if err != nil {
		return res, err
	}
	wg.Add(1)
	go func() { defer wg.Done(); _ = ex.Run(rctx) }()
	leases, err := runs.NewLeases(ctx, runs.LeaseConfig{JS: b.JS})
	if err != nil {
		return res, err
	}
	svc, err := micro.AddService(b.Conn, micro.Config{Name: "runs-bench", Version: "0.1.0"})
	if err != nil {
		return res, err
	}
	defer svc.Stop()
	rs := &runs.Service{Runner: runsRunner, Leases: leases, Publish: func(ctx context.Context, subj string, ev *events.Event) (uint64, error) {
		ack, err := b.PublishSealed(ctx, subj, ev, "")
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}}
	if err := rs.AddTo(svc); err != nil {
		return res, err
	}
	runSrv := &gateway.RunServer{Heartbeat: time.Hour}
	g, err := benchGateway(b, b.Keys, upURL, gateway.Key{Tenant: roundTenant}, runSrv)
	if err != nil {
		return res, err
	}
	d, err := agent.New(ctx, agent.Config{Model: gateway.Model(g), Conn: b.Conn, JS: b.JS, Keys: b.Keys, MsgIDKey: b.MsgIDKey(), Leases: leases,
		Registry: fol.Current, Driver: "bench", RoundsMax: rounds + 1})
	if err != nil {
		return res, err
	}
	runSrv.Driver = d
	gwURL, gw, err := serveLoopback(g)
	if err != nil {
		return res, err
	}
	defer shutdown(gw, runSrv.Wait, g.Wait)
	client := &http.Client{Timeout: waitMax}
	defer client.CloseIdleConnections()

	for i := range nRuns {
		q := fmt.Sprintf("gateway run %d: call noop", i)
		body := fmt.Sprintf(`{"model":"bench","stream":false,"messages":[{"role":"user","content":%q}]}`, q)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, gwURL+"/v1/chat/completions", strings.NewReader(body))
		if err != nil {
			return res, err
		}
		req.Header.Set("Authorization", "Bearer "+gatewayBenchKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(gateway.HeaderMode, "run")
		resp, err := client.Do(req)
		if err != nil {
			return res, err
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return res, fmt.Errorf("bench: run mode: status %d: %.300s", resp.StatusCode, out)
		}
		if bytes.Contains(out, []byte("Done.")) {
			res.Answered++
		}
		up.mu.Lock()
		res.Gateway = append(res.Gateway, up.added[q])
		up.mu.Unlock()
	}
	for i := range nRuns {
		q := fmt.Sprintf("in-process run %d: call noop", i)
		if err := inProcessLoop(ctx, client, upURL, q, rounds); err != nil {
			return res, err
		}
		up.mu.Lock()
		res.InProc = append(res.InProc, up.added[q])
		up.mu.Unlock()
	}
	return res, nil
}

// inProcessLoop is the same agent loop in one process with no log: send
// the conversation, read the streamed answer, run the no-op tool for its
// call, append both and send again, until the model answers.
func inProcessLoop(ctx context.Context, client *http.Client, upURL, question string, rounds int) error {
	type msg struct {
		Role       string           `json:"role"`
		Content    *string          `json:"content"`
		ToolCalls  []map[string]any `json:"tool_calls,omitempty"`
		ToolCallID string           `json:"tool_call_id,omitempty"`
	}
	msgs := []msg{{Role: "user", Content: &question}}
	noop := func(json.RawMessage) json.RawMessage { return json.RawMessage(`{}`) }
	for range rounds + 1 {
		body, err := json.Marshal(map[string]any{"model": "bench", "stream": true, "messages": msgs})
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, upURL+"/v1/chat/completions", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		var id, name string
		var args []byte
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
			if !ok || string(line) == "[DONE]" {
				continue
			}
			var c struct {
				Choices []struct {
					Delta struct {
						ToolCalls []struct {
							ID       string `json:"id"`
							Function struct {
								Name      string `json:"name"`
								Arguments string `json:"arguments"`
							} `json:"function"`
						} `json:"tool_calls"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if err := json.Unmarshal(line, &c); err != nil {
				resp.Body.Close()
				return err
			}
			for _, ch := range c.Choices {
				for _, tc := range ch.Delta.ToolCalls {
					if tc.ID != "" {
						id, name = tc.ID, tc.Function.Name
					}
					args = append(args, tc.Function.Arguments...)
				}
			}
		}
		resp.Body.Close()
		if err := sc.Err(); err != nil {
			return err
		}
		if id == "" {
			return nil // the answer
		}
		result := string(noop(args))
		msgs = append(msgs,
			msg{Role: "assistant", ToolCalls: []map[string]any{{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": string(args)}}}},
			msg{Role: "tool", ToolCallID: id, Content: &result})
	}
	return fmt.Errorf("bench: in-process loop: no answer after %d rounds", rounds+1)
}

// round measures the run round rows on a fresh server.
func (r *runner) round() error {
	return r.withBus("round", func(b *bus.Bus, dir string) error {
		kr, err := keys.Open(r.ctx, keys.Config{JS: b.JS, Create: true, Logger: r.cfg.Logger})
		if err != nil {
			return err
		}
		b.Keys = kr
		s := r.cfg.Sizes
		res, err := Round(r.ctx, b, dir, s.RoundRounds, s.RoundRuns)
		if err != nil {
			return err
		}
		var gw, ip []time.Duration
		for _, run := range res.Gateway {
			gw = append(gw, run...)
		}
		for _, run := range res.InProc {
			ip = append(ip, run...)
		}
		if len(gw) == 0 || len(ip) == 0 {
			return fmt.Errorf("run round: no rounds timed (%d through the gateway, %d in process)", len(gw), len(ip))
		}
		ts := Work{Does: "gateway run mode: the model's answer kept, published and assembled, the call run by the executor through the log, the runs view and service, the next request built from the log and sent",
			Stored: "the round's frames, model events, call, outcome and run events (tens a round)", Acks: "each of those publishes' acks",
			Parsed: "each upstream frame, every stored event by the projections that read it"}
		base := Work{Does: "the same loop in one process: read the streamed answer, run the no-op tool, append both to the conversation, send the next request", Stored: "none", Acks: "none",
			Parsed: "each upstream frame once", Fsync: FsyncNone}
		note := fmt.Sprintf("%d runs of %d tool rounds each way, an upstream answering at once (Chat, streamed), a no-op tool; timed at the upstream: its answer written → the next request arrived; %d of %d gateway runs ended with the answer",
			res.Runs, res.Rounds, res.Answered, res.Runs)
		p50, p99 := Percentile(gw, 50), Percentile(gw, 99)
		r.add(Row{Section: "run round", Measured: "time a round adds p50", Value: micros(p50), Baseline: "the same loop in one process, no log, p50",
			BaseValue: micros(Percentile(ip, 50)), Unit: "µs", Better: "lower", Note: note + fmt.Sprintf("; issue 32's target ≤ 5 ms: %s", metWord(p50 <= 5*time.Millisecond)), Work: ts, BaseWork: base})
		r.add(Row{Section: "run round", Measured: "time a round adds p99", Value: micros(p99), Baseline: "the same loop in one process, no log, p99",
			BaseValue: micros(Percentile(ip, 99)), Unit: "µs", Better: "lower", Note: note + fmt.Sprintf("; issue 32's target ≤ 20 ms: %s", metWord(p99 <= 20*time.Millisecond)), Work: ts, BaseWork: base})
		// The last rounds against the first, k of each per run: one round
		// of each is one sample per run, and on a shared machine one
		// preempted round decided the ratio.
		k := max(1, min(roundEnds, res.Rounds/2))
		var first, last []time.Duration
		for _, run := range res.Gateway {
			if len(run) >= 2*k {
				first, last = append(first, run[:k]...), append(last, run[len(run)-k:]...)
			}
		}
		r.add(Row{Section: "run round", Measured: "last round ÷ first round", Value: micros(Percentile(last, 50)),
			Baseline: "the first rounds' added time, same runs (median)", BaseValue: micros(Percentile(first, 50)), Unit: "µs", Better: "lower", Target: "≤ 1.5×",
			Note: fmt.Sprintf("rounds %d–%d against rounds 1–%d through the gateway, the median of those %d rounds in each of %d runs: a run's round must not cost more as the run grows", res.Rounds-k+1, res.Rounds, k, k, len(first)/k),
			Work: ts, BaseWork: ts})
		return nil
	})
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}
