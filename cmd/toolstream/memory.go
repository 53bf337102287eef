package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/memory/embed/local"
	"github.com/toolstream/toolstream/memory/embed/use"
	"github.com/toolstream/toolstream/memory/memapi"
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

// embedFlags are serve's embeddings service for memory's semantic recall.
type embedFlags struct {
	url, model, keyEnv string
	local, sentences   bool
	// sentencesSet: --embed-sentences was given, not defaulted (with
	// --embed-url the default gives way, a flag given is refused)
	sentencesSet bool
}

func embedFlag(cmd *cobra.Command, e *embedFlags) {
	f := cmd.Flags()
	f.StringVar(&e.url, "embed-url", "", "an OpenAI-compatible embeddings service (POST /v1/embeddings) for memory's hybrid recall (without it, see --embed-local)")
	f.StringVar(&e.model, "embed-model", "", "the embeddings model to ask for (with --embed-url)")
	f.StringVar(&e.keyEnv, "embed-key-env", "", "the environment variable holding the embeddings service's API key (sent as a bearer token)")
	f.BoolVar(&e.local, "embed-local", true, "without --embed-url, rank memory's recall also by the English word vectors shipped in the binary (memory/embed/local); false: lexical only")
	f.BoolVar(&e.sentences, "embed-sentences", true, "without --embed-url, record each memory record's vector by the sentence encoder shipped in the binary (memory/embed/use, Universal Sentence Encoder Lite) as it is written, and rank recall also by it (about 3 ms a record or query); false: the word vectors alone")
}

// embedder is the embeddings client the flags name and the matcher that
// scores records' texts at the query beside it: without --embed-url the
// shipped word vectors (--embed-local) and, with --embed-sentences (the
// default), the shipped sentence encoder; either may be nil. With
// --embed-url the sentence encoder is off unless --embed-sentences was
// given, which is refused: two embedders.
func (e embedFlags) embedder() (embed.Embedder, memory.Matcher, error) {
	if e.url == "" {
		if e.model != "" || e.keyEnv != "" {
			return nil, nil, fmt.Errorf("--embed-model and --embed-key-env need --embed-url")
		}
		var m memory.Matcher
		if e.local {
			w, err := local.New()
			if err != nil {
				return nil, nil, err
			}
			m = w
		}
		if e.sentences {
			enc, err := use.New()
			if err != nil {
				return nil, nil, err
			}
			return enc, m, nil
		}
		if m != nil {
			return m.(embed.Embedder), nil, nil
		}
		return nil, nil, nil
	}
	if e.sentences && e.sentencesSet {
		return nil, nil, fmt.Errorf("--embed-sentences and --embed-url name two embedders: choose one")
	}
	cfg := embed.Config{URL: e.url, Model: e.model}
	if e.keyEnv != "" {
		if cfg.APIKey = os.Getenv(e.keyEnv); cfg.APIKey == "" {
			return nil, nil, fmt.Errorf("--embed-key-env: %s is empty", e.keyEnv)
		}
	}
	h, err := embed.NewHTTP(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("--embed-url: %w", err)
	}
	return h, nil, nil
}

// memoryRequestCmd asks a running serve's memory service.
func memoryRequestCmd(g *globals, verb string) *cobra.Command {
	var op memapi.Op
	var wait time.Duration
	var asJSON bool
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
	case "recall":
		use = verb + " [QUERY]"
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
				switch {
				case verb == "message" || verb == "observe":
					op.Text = args[0]
				case verb == "recall" && op.Query != "":
					return fmt.Errorf("recall: the query is given twice (QUERY and --query): give it once")
				case verb == "recall":
					op.Query = args[0]
				default:
					op.ID = args[0]
				}
			}
			op.Op = verb
			if op.User == "" { // said by the client once connected: "memory belongs to a user: none given"
				return badInput("--user: give the end user whose memory it is")
			}
			if verb == "recall" {
				// The service answers a recall it cannot run with an error
				// in its body (exit 1), and takes a negative --k for none.
				if _, err := (*memory.Op)(&op).ToQuery(); err != nil {
					return badInput("%w", err)
				}
				if op.K < 0 {
					return badInput("--k %d: want 0 or more", op.K)
				}
			}
			ctx := cmd.Context()
			c, done, err := g.client(ctx, log, asOperator)
			if err != nil {
				return err
			}
			defer done()
			if verb == "forget" {
				out, err := stack.Forget(ctx, c, op.Tenant, op.User, op.ID, wait)
				if errors.Is(err, client.ErrErased) {
					return &exitError{exitConflict, fmt.Errorf("%s of user %s in tenant %s is already forgotten: nothing was written", op.ID, op.User, op.Tenant)}
				}
				if err != nil {
					return err
				}
				if !asJSON {
					return printForgotten(g.stdout, op.ID, out)
				}
				enc := json.NewEncoder(g.stdout)
				enc.SetEscapeHTML(false)
				return enc.Encode(out)
			}
			data, err := c.MemoryRequest(ctx, verb, op)
			if err != nil {
				return err
			}
			if !asJSON {
				return printMemory(g.stdout, verb, op.ID, data)
			}
			_, err = fmt.Fprintf(g.stdout, "%s\n", data)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&op.Tenant, "tenant", "default", "tenant")
	f.StringVar(&op.User, "user", "", "user")
	f.StringVar(&op.Time, "time", "", "event or query time, RFC 3339 (default: now)")
	f.BoolVar(&asJSON, "json", false, "print the memory service's answer as JSON (times in Unix nanoseconds, scores unrounded)")
	switch verb {
	case "message":
		f.StringVar(&op.ID, "id", "", "the message's id: its records are ID, ID#2, … (default: made from the time; give one to retry safely)")
		f.StringVar(&op.ReplyTo, "reply-to", "", "the text of the turn the message answers: its questions are kept as its records' context")
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
		f.IntVar(&op.K, "k", 0, "messages whose records to return at most (their other statements do not count)")
		f.IntVar(&op.BudgetTokens, "budget-tokens", 0, "the records' texts fit in this many tokens (estimated), best first; the first is always returned (default: the server's byte budget)")
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

func memoryRunCmd(g *globals) *cobra.Command {
	var m memoryFlags
	cmd := &cobra.Command{
		Use:   "run FILE|-",
		Short: "One-shot: publish a file of memory operations through the real path and print each recall",
		Long: `memory run starts an embedded server in a temporary directory and reads JSON lines:
  {"op":"observe","tenant":…,"user":…,"id":…,"time":RFC3339,"text":…, "kind","subject","attribute","value","polarity","scope","valid_until","ttl","confidence"}
  {"op":"message","tenant":…,"user":…,"id":…,"time":…,"text":…, "reply_to"}  (a record per statement the extractor reads;
      reply_to: the turn it answers, whose questions are kept as context of its records)
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
			cfg, err := m.config()
			if err != nil {
				return err
			}
			return memoryRun(cmd.Context(), g, in, cfg)
		},
	}
	memoryFlag(cmd, &m, false)
	return cmd
}

func memoryRun(ctx context.Context, g *globals, in io.Reader, cfg memory.Config) error {
	log, err := g.logger()
	if err != nil {
		return err
	}
	s, err := stack.OpenScratch(ctx, "memory", log)
	if err != nil {
		return err
	}
	defer s.Close()
	return stack.MemoryRun(ctx, stack.MemoryRunConfig{Bus: s.Bus, Dir: filepath.Join(s.Dir, "views"), Logger: log, Memory: cfg}, in, g.stdout)
}
