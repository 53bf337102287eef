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

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/node"
)

func init() { extraCommands = append(extraCommands, memoryCmd) }

func memoryCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Long-term memory: run a file of operations one-shot, or recall, list, correct and forget",
	}
	cmd.AddCommand(memoryRunCmd(g))
	for _, verb := range []string{"recall", "list", "history", "correct", "forget"} {
		cmd.AddCommand(memoryRequestCmd(g, verb))
	}
	return cmd
}

// memoryRequestCmd asks a running serve's memory service.
func memoryRequestCmd(g *globals, verb string) *cobra.Command {
	var op memory.Op
	short := map[string]string{
		"recall":  "Recall a user's memories for a query (hard filters first, then ranking)",
		"list":    "List a user's records (--history: superseded, expired and cold too)",
		"history": "Every version of one record",
		"correct": "Correct a record: a new version that supersedes the one you read (--expected-version)",
		"forget":  "Forget a record: a tombstone that every derived view drops; replay does not bring it back",
	}[verb]
	cmd := &cobra.Command{
		Use:   verb,
		Short: short,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				op.ID = args[0]
			}
			op.Op = verb
			b, err := g.connect(cmd.Context(), log)
			if err != nil {
				return err
			}
			defer b.Close()
			req, _ := json.Marshal(&op)
			msg, err := b.Conn.RequestWithContext(cmd.Context(), memory.ServicePrefix+"."+verb, req)
			if err != nil {
				return fmt.Errorf("memory service (is toolstream serve running?): %w", err)
			}
			if e := msg.Header.Get("Nats-Service-Error"); e != "" {
				return fmt.Errorf("memory %s: %s", verb, e)
			}
			_, err = fmt.Fprintf(g.stdout, "%s\n", msg.Data)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&op.Tenant, "tenant", "default", "tenant")
	f.StringVar(&op.User, "user", "", "user")
	f.StringVar(&op.Time, "time", "", "event or query time, RFC 3339 (default: now)")
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
		f.StringVar(&op.Kind, "kind", "", "preference, constraint, fact")
		f.StringVar(&op.Subject, "subject", "", "slot subject")
		f.StringVar(&op.Attribute, "attribute", "", "slot attribute")
		f.StringVar(&op.Value, "value", "", "slot value")
		f.StringVar(&op.Polarity, "polarity", "", "positive or negative")
	}
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
			ev, err := op.Event(line)
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
