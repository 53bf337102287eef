package demo

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
	"github.com/toolstream/toolstream/verifier"
)

//go:embed testdata/*.jsonl testdata/tools.yaml
var files embed.FS

const (
	tenant  = "shop"
	user    = "u42"
	session = "s1"
)

// Step is one line of the timeline.
type Step struct {
	At     time.Duration  `json:"at_ms"`
	Stage  string         `json:"stage"`
	What   string         `json:"what"`
	Detail map[string]any `json:"detail,omitempty"`
}

// MarshalJSON writes At in milliseconds.
func (s Step) MarshalJSON() ([]byte, error) {
	type plain Step
	p := plain(s)
	p.At = s.At / time.Millisecond
	return json.Marshal(p)
}

// Config configures a run.
type Config struct {
	// Out receives the timeline as it happens (nil: discard).
	Out io.Writer
	// JSON prints one JSON object per step instead of text.
	JSON bool
	// Logger; nil discards.
	Logger *slog.Logger
}

type run struct {
	cfg   Config
	start time.Time
	steps []Step
	b     *bus.Bus
	c     *client.Client // the demo's own client of the log: publishing, reading, approving
	s     *stack.Stack
	key   *registry.SigningKey // a throwaway registry key: the demo is its own operator
}

func (r *run) say(stage, what string, detail map[string]any) {
	s := Step{At: time.Since(r.start), Stage: stage, What: what, Detail: detail}
	r.steps = append(r.steps, s)
	if r.cfg.Out == nil {
		return
	}
	if r.cfg.JSON {
		b, _ := json.Marshal(s)
		fmt.Fprintf(r.cfg.Out, "%s\n", b)
		return
	}
	fmt.Fprintf(r.cfg.Out, "%6dms  %-9s %s\n", s.At.Milliseconds(), stage, what)
	keys := make([]string, 0, len(detail))
	for k := range detail {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(r.cfg.Out, "%19s%s: %v\n", "", k, detail[k])
	}
}

// Run runs the story. It returns the timeline, and an error if any step
// did not turn out as the story says.
func Run(ctx context.Context, cfg Config) ([]Step, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	r := &run{cfg: cfg, start: time.Now()}
	// Personal data goes into the log sealed, under keys that erasure
	// destroys (bus.OpenWithKeys makes them on the embedded server).
	scratch, err := stack.OpenScratch(ctx, "demo", cfg.Logger)
	if err != nil {
		return nil, err
	}
	defer scratch.Close()
	r.b = scratch.Bus
	tmp := scratch.Dir
	if r.c, err = client.Connect(ctx, client.WithConn(r.b.Conn), client.WithKeys(r.b.Keys), client.WithMsgIDKey(r.b.MsgIDKey()), client.WithLogger(cfg.Logger)); err != nil {
		return nil, err
	}
	defer r.c.Close()
	r.say("log", "embedded NATS JetStream started", map[string]any{"url": r.b.ClientURL(), "data": tmp})
	if err := r.story(ctx, tmp); err != nil {
		r.say("error", err.Error(), nil)
		return r.steps, err
	}
	return r.steps, nil
}

func (r *run) story(ctx context.Context, tmp string) error {
	log := r.cfg.Logger
	spec, _ := files.ReadFile("testdata/tools.yaml")
	reg, err := registry.Parse(spec)
	if err != nil {
		return err
	}
	if r.key, err = registry.GenerateKey(); err != nil {
		return err
	}
	if _, err := registry.Publish(ctx, registry.PublishConfig{JS: r.b.JS, Key: r.key, Source: "demo/tools.yaml", MsgIDKey: r.b.MsgIDKey()}, reg); err != nil {
		return err
	}
	r.say("registry", "tool contracts recorded in the log", map[string]any{"tools": "inventory.get, shipping.quote, orders.refund (approval required)", "digest": reg.Digest()[:12]})

	// The projections and the executor as serve runs them (package
	// stack), the executor with the demo's tools in this process.
	if r.s, err = stack.Start(ctx, stack.Config{Bus: r.b, ViewsDir: filepath.Join(tmp, "views"), Logger: log,
		Components: append(projections(), stack.Executor), Projections: stack.Projections{Trust: r.key.Trust()},
		Executor: executor.Config{Tools: tools(), Heartbeat: 250 * time.Millisecond}}); err != nil {
		return err
	}
	defer r.s.Stop()
	if err := r.s.Registry().Wait(ctx, reg.Digest()); err != nil {
		return err
	}

	// 1. Four provider streams, four formats.
	for _, f := range []struct{ file, format string }{
		{"1-anthropic-inventory.jsonl", "anthropic"},
		{"2-chat-parallel-shipping.jsonl", "openai-chat"},
		{"3-responses-refund.jsonl", "openai-responses"},
		{"4-gemini-invalid-refund.jsonl", "gemini"},
	} {
		if err := r.publish(ctx, f.file, f.format); err != nil {
			return err
		}
	}
	if err := r.settle(ctx, assembler.IngestName, assembler.Name); err != nil {
		return err
	}
	completed, rejected := 0, 0
	for call, err := range r.c.Calls(ctx, tenant) {
		if err != nil {
			return err
		}
		switch call.Outcome {
		case client.CallCompleted:
			completed++
			r.say("assemble", "CallCompleted "+call.Tool, map[string]any{"call_id": call.CallID, "arguments": string(call.Arguments), "built_from": fmt.Sprintf("%d deltas, %d bytes, seq %d–%d", call.From.Deltas, call.From.Bytes, call.From.FirstSeq, call.From.LastSeq)})
		case client.CallRejected:
			rejected++
			r.say("assemble", "CallRejected "+call.Tool+": "+string(call.Reason), map[string]any{"detail": call.Detail, "arguments": string(call.Arguments)})
		case client.CallIncomplete:
			return fmt.Errorf("demo: unexpected incomplete call %s: %s", call.Tool, call.Reason)
		}
	}
	if completed != 4 || rejected != 1 {
		return fmt.Errorf("demo: %d calls completed and %d rejected, want 4 and 1", completed, rejected)
	}

	// 2. The executor: three calls run, the refund waits for a person.
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var refund client.Approval
	for a, err := range r.c.Approvals(wctx, tenant, client.Follow()) {
		if err != nil {
			return fmt.Errorf("demo: waiting for the executor: %w", err)
		}
		refund = a
		break
	}
	if refund.Key == "" {
		return fmt.Errorf("demo: waiting for the executor: %w", wctx.Err())
	}
	r.say("execute", "ApprovalRequested "+refund.Tool+" (irreversible: waits durably for a person)", map[string]any{"key": refund.Key, "arguments": string(refund.Arguments)})
	var seen uint64
	ok := 0
	for res, err := range r.c.Results(wctx, tenant, client.Follow()) {
		if err != nil {
			return fmt.Errorf("demo: waiting for the executor: %w", err)
		}
		seen = res.Seq
		if res.OK {
			ok++
			r.say("execute", "CallSucceeded "+res.Tool, map[string]any{"summary": res.Summary})
		}
		if ok == 3 {
			break
		}
	}
	if ok < 3 {
		return fmt.Errorf("demo: waiting for the executor: %w", wctx.Err())
	}
	if _, err := r.c.Approve(ctx, tenant, refund.Key, client.By("agent@shop"), client.Because("customer verified")); err != nil {
		return err
	}
	r.say("approve", "toolstream approve: refund approved by agent@shop", nil)
	refunded := false
	for res, err := range r.c.Results(wctx, tenant, client.After(seen), client.Follow()) {
		if err != nil {
			return fmt.Errorf("demo: waiting for the refund: %w", err)
		}
		if res.OK && res.Tool == "orders.refund" {
			r.say("execute", "CallSucceeded orders.refund (once, under idempotency key "+res.Key+")", map[string]any{"summary": res.Summary})
			refunded = true
			break
		}
	}
	if !refunded {
		return fmt.Errorf("demo: waiting for the refund: %w", wctx.Err())
	}

	// 3. The final answer, verified against the evidence of the session.
	if err := r.publish(ctx, "5-anthropic-final-answer.jsonl", "anthropic"); err != nil {
		return err
	}
	if err := r.settle(ctx, assembler.IngestName, assembler.Name, verifier.Name); err != nil {
		return err
	}
	flagged := 0
	for v, err := range r.c.Verdicts(ctx, tenant) {
		if err != nil {
			return err
		}
		av := v.Verified
		if av == nil {
			continue
		}
		r.say("verify", fmt.Sprintf("AnswerVerified: faithfulness %.2f over %d claims", av.Faithfulness, len(av.Claims)), nil)
		for _, c := range av.Claims {
			d := map[string]any{"reason": c.Reason}
			if len(c.Evidence) > 0 {
				d["evidence"] = fmt.Sprintf("%s %s = %s", c.Evidence[0].CallID, c.Evidence[0].Pointer, c.Evidence[0].Value)
			}
			r.say("verify", fmt.Sprintf("%-13s %q", c.Verdict, c.Text), d)
			if c.Verdict == events.VerdictUnsupported || c.Verdict == events.VerdictContradicted {
				flagged++
			}
		}
	}
	if flagged == 0 {
		return fmt.Errorf("demo: the contradicted delivery promise was not flagged")
	}

	// 4. Memory: the spicy story.
	if err := r.memory(ctx); err != nil {
		return err
	}

	// 5. Replay: every view equals its rebuild.
	return r.replay(ctx, tmp)
}

// projections are the projections the demo runs, in data-flow order.
func projections() []string {
	return []string{assembler.IngestName, assembler.Name, responses.Name, verifier.Name, memory.Name}
}

func (r *run) publish(ctx context.Context, file, format string) error {
	f, err := files.Open("testdata/" + file)
	if err != nil {
		return err
	}
	defer f.Close()
	// Published raw: the demo shows the server's ingest normalising them.
	pub, err := r.c.Publish(ctx, f, client.WithStream(client.Stream{Tenant: tenant, Format: format, ID: strings.TrimSuffix(file, ".jsonl"),
		User: user, Session: session, Raw: true}))
	if err != nil {
		return err
	}
	r.say("publish", fmt.Sprintf("%s stream %s: %d raw events", format, file, pub.Raw), nil)
	return nil
}

func (r *run) settle(ctx context.Context, names ...string) error {
	for _, name := range names {
		rn, ok := r.s.Runner(name)
		if !ok {
			return fmt.Errorf("demo: %s not running", name)
		}
		// Until what it relayed adds nothing to the stream it reads
		// (ingest reads back the sealed copies of raw events it made).
		for prev := uint64(0); ; {
			last, err := r.b.LastSeq(ctx, rn.Stream())
			if err != nil {
				return err
			}
			if last == prev {
				break
			}
			if err := rn.WaitFor(ctx, last); err != nil {
				return err
			}
			if err := rn.WaitRelayed(ctx); err != nil {
				return err
			}
			prev = last
		}
	}
	return nil
}

func (r *run) memory(ctx context.Context) error {
	// Through the memory service, as a client: each message is answered
	// once the memory projection applied what was read from it.
	day := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i, text := range []string{"I love spicy food", "I can't eat spicy food these days"} {
		if _, err := r.c.Message(ctx, tenant, user, fmt.Sprintf("m%d", i+1), text, day.Add(time.Duration(i)*30*24*time.Hour)); err != nil {
			return err
		}
		r.say("memory", fmt.Sprintf("user message %q", text), nil)
	}
	res, err := r.c.Recall(ctx, tenant, user, "recommend a spicy dish", client.RecallOptions{K: 3})
	if err != nil {
		return err
	}
	var got []string
	for _, h := range res.Results {
		got = append(got, fmt.Sprintf("%s %s %q", h.Kind, h.Status, h.Text))
	}
	r.say("memory", "recall \"recommend a spicy dish\": the constraint first, over the old preference (two records: lifting the constraint leaves the preference)", map[string]any{"results": strings.Join(got, "; ")})
	if len(res.Results) == 0 || res.Results[0].Kind != string(memory.KindConstraint) || res.Results[0].Status != string(memory.StatusActive) {
		return fmt.Errorf("demo: recall did not put the constraint first: %v", got)
	}
	return nil
}

func (r *run) replay(ctx context.Context, tmp string) error {
	for _, name := range projections() {
		p, err := stack.New(stack.Projections{Trust: r.key.Trust()}, name) // a fresh instance, as serve's
		if err != nil {
			return err
		}
		rn, _ := r.s.Runner(name)
		last, err := r.b.LastSeq(ctx, rn.Stream())
		if err != nil {
			return err
		}
		if err := rn.WaitFor(ctx, last); err != nil {
			return err
		}
		live, err := rn.Digest()
		if err != nil {
			return err
		}
		rebuilt, err := projector.Replay(ctx, projector.Config{JS: r.b.JS, Dir: filepath.Join(tmp, "replay", p.Name()), Keys: r.b.Keys}, p, live.Seq)
		if err != nil {
			return err
		}
		if rebuilt.Sum != live.Sum {
			return fmt.Errorf("demo: %w: %s live %v, rebuilt %v", projector.ErrDigestMismatch, p.Name(), live, rebuilt)
		}
		r.say("replay", fmt.Sprintf("%-10s rebuilt from seq 1: digest equals live (%d keys, %s…)", p.Name(), live.Keys, live.Sum[:12]), nil)
	}
	return nil
}
