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
	"github.com/toolstream/toolstream/erasure"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/keys"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/node"
	"github.com/toolstream/toolstream/projector"
)

func memoryCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Long-term memory: run a file of operations one-shot, or write, recall, list, correct and forget",
	}
	cmd.AddCommand(memoryRunCmd(g))
	for _, verb := range []string{"message", "observe", "recall", "list", "history", "correct", "forget"} {
		cmd.AddCommand(memoryRequestCmd(g, verb))
	}
	return cmd
}

// memoryService is serve's memory service over the runner of the memory
// projection: writes are sealed under their data keys (memory.SealScope).
func memoryService(b *bus.Bus, r *projector.Runner) *memory.Service {
	return &memory.Service{Engine: memory.NewEngine(memory.Config{}, nil), Runner: r,
		Publish: func(ctx context.Context, subj string, ev *events.Event, scope string) (uint64, error) {
			ack, err := b.PublishSealed(ctx, subj, ev, scope)
			if err != nil {
				return 0, err
			}
			return ack.Sequence, nil
		}}
}

// memoryRequestCmd asks a running serve's memory service.
func memoryRequestCmd(g *globals, verb string) *cobra.Command {
	var op memory.Op
	var wait time.Duration
	short := map[string]string{
		"message": "Write a user's message: the extractor reads its statements, each a record under a key of its own",
		"observe": "Write a typed record (--id, --kind, --subject, --attribute, --value) saying TEXT",
		"recall":  "Recall a user's memories for a query (hard filters first, then ranking)",
		"list":    "List a user's records (--history: superseded, expired and cold too)",
		"history": "Every version of one record",
		"correct": "Correct a record: a new version that supersedes the one you read (--expected-version)",
		"forget":  "Forget a record: every version of it is erased from the views and made unreadable in the log",
	}[verb]
	use, args := verb, cobra.MaximumNArgs(1)
	switch verb {
	case "message", "observe":
		use, args = verb+" TEXT", cobra.ExactArgs(1)
	case "history":
		use, args = verb+" ID", cobra.ExactArgs(1)
	case "forget":
		use, args = verb+" ID", cobra.ExactArgs(1)
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  args,
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				if verb == "message" || verb == "observe" {
					op.Text = args[0]
				} else {
					op.ID = args[0]
				}
			}
			op.Op = verb
			ctx := cmd.Context()
			b, err := g.connect(ctx, log)
			if err != nil {
				return err
			}
			defer b.Close()
			data, err := memoryRequest(ctx, b, verb, &op)
			if err != nil {
				return err
			}
			if verb == "forget" {
				return memoryForget(ctx, g, b, &op, data, wait)
			}
			_, err = fmt.Fprintf(g.stdout, "%s\n", data)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&op.Tenant, "tenant", "default", "tenant")
	f.StringVar(&op.User, "user", "", "user")
	f.StringVar(&op.Time, "time", "", "event or query time, RFC 3339 (default: now)")
	switch verb {
	case "message":
		f.StringVar(&op.ID, "id", "", "the message's id: its records are ID, ID#2, … (default: made from the time; give one to retry safely)")
	case "observe":
		f.StringVar(&op.ID, "id", "", "the record's id")
		f.StringVar(&op.Scope, "scope", "", "the slot's scope (e.g. work)")
		f.StringVar(&op.TTL, "ttl", "", "how long it holds, a Go duration (72h)")
		cmd.MarkFlagRequired("id")
	case "forget":
		f.DurationVar(&wait, "wait", 30*time.Second, "how long to wait for the memory projection to rebuild its view without the record")
	}
	if verb == "observe" || verb == "correct" {
		f.StringVar(&op.Kind, "kind", "", "preference, constraint, fact or episode")
		f.StringVar(&op.Subject, "subject", "", "slot subject")
		f.StringVar(&op.Attribute, "attribute", "", "slot attribute")
		f.StringVar(&op.Value, "value", "", "slot value")
		f.StringVar(&op.Polarity, "polarity", "", "positive (default) or negative")
	}
	switch verb {
	case "recall":
		f.StringVar(&op.Query, "query", "", "what the memories should be about")
		f.IntVar(&op.K, "k", 0, "results at most")
		f.StringVar(&op.AsOf, "as-of", "", "what held then, as known then (RFC 3339)")
		f.BoolVar(&op.History, "history", false, "include superseded and expired records")
	case "list":
		f.BoolVar(&op.History, "history", false, "include inactive records")
	case "correct":
		f.StringVar(&op.Text, "text", "", "the corrected statement")
		f.IntVar(&op.ExpectedVersion, "expected-version", 0, "the version you read (a stale one is refused)")
	}
	return cmd
}

// memoryRequest sends op to the memory service's endpoint verb and returns
// its answer.
func memoryRequest(ctx context.Context, b *bus.Bus, verb string, op *memory.Op) ([]byte, error) {
	req, _ := json.Marshal(op)
	msg, err := b.Conn.RequestWithContext(ctx, memory.ServicePrefix+"."+verb, req)
	if err != nil {
		return nil, fmt.Errorf("memory service (is toolstream serve running?): %w", err)
	}
	if e := msg.Header.Get("Nats-Service-Error"); e != "" {
		return nil, fmt.Errorf("memory %s: %s", verb, e)
	}
	return msg.Data, nil
}

// memoryForget finishes a forget the service applied: it destroys the data
// keys of every id the forgetting tombstoned (the record, every version of
// it, what shared its text) and writes the erasure tombstone into TS_MEM,
// from which the memory projection rebuilds its view without them and
// deletes the old view's files; it waits for that rebuild.
func memoryForget(ctx context.Context, g *globals, b *bus.Bus, op *memory.Op, data []byte, wait time.Duration) error {
	out, err := forgetRecord(ctx, b, op, data, wait)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(g.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// forgotten is what a forget did: the service's reply, the data keys
// destroyed, the tombstone's sequence and whether the rebuild was seen.
type forgotten struct {
	memory.WriteReply
	Keys         int    `json:"keys_destroyed"`
	Tombstone    uint64 `json:"tombstone,omitempty"`
	NotConfirmed bool   `json:"not_confirmed,omitempty"`
}

// forgetRecord is memoryForget without the printing (the console's forget
// button goes through it too).
func forgetRecord(ctx context.Context, b *bus.Bus, op *memory.Op, data []byte, wait time.Duration) (*forgotten, error) {
	var rep memory.WriteReply
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("memory forget: the service answered %q: %w", data, err)
	}
	if !rep.Applied {
		return nil, fmt.Errorf("memory forget %s: refused: %s", op.ID, rep.Rejected)
	}
	out := &forgotten{WriteReply: rep}
	if len(rep.Erase) > 0 {
		ks, ok := b.Keys.(*keys.Store)
		if !ok {
			return nil, fmt.Errorf("memory forget: no key store")
		}
		// Every key but the record's own first; erasure.Record destroys
		// that one and writes the tombstone, after which the view rebuilds.
		for _, id := range rep.Erase {
			if id == op.ID {
				continue
			}
			n, err := ks.EraseRecord(ctx, op.Tenant, op.User, id)
			if err != nil {
				return nil, fmt.Errorf("memory forget %s: erase %s: %w", op.ID, id, err)
			}
			out.Keys += n
		}
		res, err := erasure.Record(ctx, b, ks, op.Tenant, op.User, op.ID)
		if err != nil {
			return nil, fmt.Errorf("memory forget %s: %w", op.ID, err)
		}
		out.Keys += res.Keys
		out.Tombstone = res.Tombstones[events.StreamMemory]
		out.NotConfirmed = !waitRebuilt(ctx, b, memory.Name, out.Tombstone, wait)
	}
	return out, nil
}

// waitRebuilt waits until the running projection name has applied seq of
// its stream (an erasure tombstone: its view is rebuilt) and reports
// whether it saw it do so within wait.
func waitRebuilt(ctx context.Context, b *bus.Bus, name string, seq uint64, wait time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		if dg, err := liveDigest(ctx, b, name); err == nil && dg.Seq >= seq {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func memoryRunCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "run FILE|-",
		Short: "One-shot: publish a file of memory operations through the real path and print each recall",
		Long: `memory run starts an embedded server in a temporary directory and reads JSON lines:
  {"op":"observe","tenant":…,"user":…,"id":…,"time":RFC3339,"text":…, "kind","subject","attribute","value","polarity","scope","valid_until","ttl","confidence"}
  {"op":"message","tenant":…,"user":…,"id":…,"time":…,"text":…}        (a record per statement the extractor reads)
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
	b, err := openWithKeys(ctx, bus.Config{DataDir: tmp, Listen: "127.0.0.1:-1", Logger: log, Name: "memory"})
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
		var op memory.Op
		if err := json.Unmarshal(raw, &op); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if op.Op != "recall" {
			evs, err := memoryRunEvents(engine, &op, line)
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
			for _, ev := range evs {
				ack, err := b.PublishSealed(ctx, subj, ev, memory.SealScope(ev))
				if err != nil {
					log.Warn("memory op refused", "line", line, "err", err)
					continue
				}
				last = ack.Sequence
			}
			continue
		}
		if err := r.WaitFor(ctx, last); err != nil {
			return err
		}
		v := r.View()
		out := engine.Answer(v, &op)
		v.Close()
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return nil
}

// memoryRunEvents are the events of a write op of `memory run`: a message
// is written as the service writes it (Engine.MessageEvents), an
// observation, correction or forgetting as one event (Op.Event).
func memoryRunEvents(e *memory.Engine, op *memory.Op, line int) ([]*events.Event, error) {
	if op.Op != "message" {
		ev, err := op.Event(line)
		return []*events.Event{ev}, err
	}
	at, err := time.Parse(time.RFC3339Nano, op.Time)
	if op.Time == "" {
		at, err = time.Unix(0, 0).UTC(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("time %q: want RFC 3339: %w", op.Time, err)
	}
	return e.MessageEvents(op.Tenant, op.User, op.ID, op.Text, at.UnixNano())
}
