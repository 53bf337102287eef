package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/node"
	"github.com/toolstream/toolstream/projector"
)

func init() { extraCommands = append(extraCommands, memoryCmd) }

// memOp is one line of `toolstream memory run`.
type memOp struct {
	Op              string   `json:"op"`
	Tenant          string   `json:"tenant"`
	User            string   `json:"user"`
	ID              string   `json:"id"`
	Time            string   `json:"time"`
	Kind            string   `json:"kind"`
	Subject         string   `json:"subject"`
	Attribute       string   `json:"attribute"`
	Value           string   `json:"value"`
	Polarity        string   `json:"polarity"`
	Scope           string   `json:"scope"`
	Text            string   `json:"text"`
	ValidUntil      string   `json:"valid_until"`
	TTL             string   `json:"ttl"`
	Confidence      float64  `json:"confidence"`
	Permission      string   `json:"permission"`
	ExpectedVersion int      `json:"expected_version"`
	Query           string   `json:"query"`
	K               int      `json:"k"`
	AsOf            string   `json:"as_of"`
	History         bool     `json:"history"`
	Scopes          []string `json:"scopes"`
}

func parseTime(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("time %q: want RFC 3339: %w", s, err)
	}
	return t.UnixNano(), nil
}

// event turns a write op into the event it publishes. n is the op's line,
// so the event id is deterministic for the file.
func (o *memOp) event(n int) (*events.Event, error) {
	at, err := parseTime(o.Time)
	if err != nil {
		return nil, err
	}
	obs := events.Observation{ID: o.ID, Kind: o.Kind, Subject: o.Subject, Attribute: o.Attribute, Value: o.Value,
		Polarity: o.Polarity, Scope: o.Scope, Text: o.Text, Confidence: o.Confidence, Permission: o.Permission}
	if obs.ValidUntil, err = parseTime(o.ValidUntil); err != nil {
		return nil, err
	}
	if o.TTL != "" {
		d, err := time.ParseDuration(o.TTL)
		if err != nil {
			return nil, fmt.Errorf("ttl %q: want a Go duration such as 72h: %w", o.TTL, err)
		}
		obs.TTL = int64(d)
	}
	ev := &events.Event{ID: fmt.Sprintf("mem:%s/%s/%d", o.Tenant, o.User, n), Tenant: o.Tenant, User: o.User, At: at}
	switch o.Op {
	case "observe":
		ev.Body = &events.MemoryObserved{Observation: obs}
	case "message":
		ev.Body = &events.UserMessage{ID: o.ID, Text: o.Text}
	case "correct":
		ev.Body = &events.MemoryCorrected{Observation: obs, ExpectedVersion: o.ExpectedVersion}
	case "forget":
		ev.Body = &events.MemoryForgotten{ID: o.ID}
	default:
		return nil, fmt.Errorf("unknown op %q", o.Op)
	}
	return ev, nil
}

// recallOut is a recall as `memory run` prints it.
type recallOut struct {
	Op        string      `json:"op"`
	Query     string      `json:"query"`
	Results   []recallHit `json:"results"`
	Conflicts []recallHit `json:"conflicts"`
	Error     string      `json:"error,omitempty"`
}

type recallHit struct {
	ID      string  `json:"id"`
	Version int     `json:"version"`
	Kind    string  `json:"kind"`
	Status  string  `json:"status"`
	Text    string  `json:"text"`
	Score   float64 `json:"score"`
}

func hits(hs []memory.Hit) []recallHit {
	out := make([]recallHit, 0, len(hs))
	for _, h := range hs {
		out = append(out, recallHit{ID: h.Record.ID, Version: h.Record.Version, Kind: string(h.Record.Kind),
			Status: string(h.Record.Status), Text: h.Record.Text, Score: h.Score})
	}
	return out
}

func (o *memOp) query() (memory.Query, error) {
	at, err := parseTime(o.Time)
	if err != nil {
		return memory.Query{}, err
	}
	asOf, err := parseTime(o.AsOf)
	if err != nil {
		return memory.Query{}, err
	}
	return memory.Query{Tenant: o.Tenant, User: o.User, Text: o.Query, At: at, AsOf: asOf, K: o.K, History: o.History, Scopes: o.Scopes}, nil
}

func memoryCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Long-term memory: run a file of operations one-shot, or recall, list, correct and forget",
	}
	cmd.AddCommand(memoryRunCmd(g))
	return cmd
}

func memoryRunCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "run FILE|-",
		Short: "One-shot: publish a file of memory operations through the real path and print each recall",
		Long: `memory run starts an embedded server in a temporary directory and reads JSON lines:
  {"op":"observe","tenant":…,"user":…,"id":…,"time":RFC3339,"text":…, "kind","subject","attribute","value","polarity","scope","valid_until","ttl","confidence"}
  {"op":"message","tenant":…,"user":…,"id":…,"time":…,"text":…}        (the built-in extractor reads it)
  {"op":"correct", …same fields…, "expected_version":N}
  {"op":"forget","tenant":…,"user":…,"id":…,"time":…}
  {"op":"recall","tenant":…,"user":…,"query":…,"time":…,"k":…}
Writes are published as events and projected by the memory projection; each recall waits until
everything before it is applied and prints one JSON line with results and conflicts.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in io.Reader = os.Stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			return memoryRun(cmd.Context(), g, in)
		},
	}
}

func memoryRun(ctx context.Context, g *globals, in io.Reader) error {
	log, err := g.logger()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "toolstream-memory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b, err := bus.Open(ctx, bus.Config{DataDir: tmp, Listen: "127.0.0.1:-1", Logger: log, Name: "memory"})
	if err != nil {
		return err
	}
	defer b.Close()
	n := node.New(b, filepath.Join(tmp, "views"), log)
	defer n.Stop()
	engine := memory.NewEngine(memory.Config{}, nil)
	r, err := n.Start(ctx, memory.NewProjection(engine), nil)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(g.stdout)
	enc.SetEscapeHTML(false)
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 16<<20)
	var last uint64
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 || raw[0] == '#' {
			continue
		}
		var op memOp
		if err := json.Unmarshal(raw, &op); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if op.Op != "recall" {
			ev, err := op.event(line)
			if err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
			subj, err := events.MemorySubject(op.Tenant, op.User)
			if err != nil {
				// Bad input loses nothing: it still goes to the log, where the
				// projection rejects it with its reason.
				log.Warn("memory op refused", "line", line, "err", err)
				continue
			}
			ack, err := b.Publish(ctx, subj, ev)
			if err != nil {
				log.Warn("memory op refused", "line", line, "err", err)
				continue
			}
			last = ack.Sequence
			continue
		}
		out := recallOut{Op: "recall", Query: op.Query, Results: []recallHit{}, Conflicts: []recallHit{}}
		if err := r.WaitFor(ctx, last); err != nil {
			return err
		}
		q, err := op.query()
		if err == nil {
			var res memory.Result
			v := r.View()
			res, err = engine.Recall(v, q)
			v.Close()
			out.Results, out.Conflicts = hits(res.Records), hits(res.Conflicts)
		}
		if err != nil {
			out.Error = err.Error()
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return nil
}

// memoryView is a reader over a live or offline memory view.
var _ projector.Reader = (*projector.View)(nil)
