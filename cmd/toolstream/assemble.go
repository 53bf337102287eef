package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/ingest"

	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/registry"
)

// assembleOptions are the inputs of one `toolstream assemble` run.
type assembleOptions struct {
	provider string
	tools    string
	tenant   string
	tagged   bool
	idle     time.Duration
}

func assembleCmd(g *globals) *cobra.Command {
	var o assembleOptions
	cmd := &cobra.Command{
		Use:   "assemble [--provider P] [--tools FILE] [--tenant T] FILE|-",
		Short: "One-shot: assemble the calls of a recorded provider stream and print one JSON line per outcome",
		Long: `assemble starts an embedded server in a temporary directory, normalises FILE (JSON lines or raw SSE;
"-" reads stdin) and publishes its model events as toolstream publish does, runs the same assembler
projection until everything is processed, and prints one JSON object per line:

  {"type":"call","outcome":"completed","response_id":…,"item_id":…,"call_id":…,"name":…,"arguments":{…}}
  {"type":"call","outcome":"rejected"|"incomplete",…,"reason":…}
  {"type":"response","response_id":…,"status":"completed"|"incomplete"|"failed","reason":…}

Call lines come in the order the calls were opened. Without --tools any tool name is accepted and only
the JSON-object rule applies. Calls still open when the file ends are incomplete (stream_ended).
--provider names the format (openai-responses, openai-chat, anthropic, gemini; default auto-detect);
--tagged (or --provider tagged) also reads <tool_call>{…}</tool_call> blocks in the text.
Exit 0 when the input was read, whatever the outcomes.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := g.logger(); err != nil {
				return err
			}
			var in io.Reader = os.Stdin
			name := "stdin"
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				in, name = f, filepath.Base(args[0])
			}
			o.provider, o.tagged = ingest.Provider(o.provider, o.tagged)
			if _, err := ingest.ParseFormat(o.provider); err != nil {
				return err
			}
			if os.Getenv("GOGC") == "" {
				debug.SetGCPercent(stack.OneShotGOGC)
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				debug.SetMemoryLimit(stack.OneShotMemoryLimit)
			}
			ctx := cmd.Context()
			lines, err := assembleOnce(ctx, g, o, name, in)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(g.stdout)
			for _, l := range lines {
				l.Tenant = ""
				if err := enc.Encode(l); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&o.provider, "provider", "auto", "provider format: auto, openai-responses, openai-chat, anthropic, gemini, tagged")
	cmd.Flags().StringVar(&o.tools, "tools", "", "tool registry file (YAML or JSON): validate calls against it")
	cmd.Flags().StringVar(&o.tenant, "tenant", "default", "tenant the stream belongs to")
	cmd.Flags().BoolVar(&o.tagged, "tagged", false, "read <tool_call>{…}</tool_call> blocks in the text stream")
	cmd.Flags().DurationVar(&o.idle, "idle-timeout", 2*time.Minute, "event-time deadline for silent calls")
	return cmd
}

// assembleOnce runs the one-shot (stack.Assemble) on an embedded server in a
// temporary directory over one input.
func assembleOnce(ctx context.Context, g *globals, o assembleOptions, name string, in io.Reader) ([]assembler.Line, error) {
	log, _ := g.logger()
	s, err := stack.OpenScratch(ctx, "assemble", log)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	b := s.Bus
	key, err := registry.GenerateKey() // a throwaway registry: this run is its own operator
	if err != nil {
		return nil, err
	}
	if o.tools != "" {
		reg, err := registry.Load(o.tools)
		if err != nil {
			return nil, err
		}
		if _, err := registry.Publish(ctx, registry.PublishConfig{JS: b.JS, Key: key, Source: o.tools, MsgIDKey: b.MsgIDKey()}, reg); err != nil {
			return nil, err
		}
	}
	return stack.Assemble(ctx, stack.AssembleConfig{
		Bus: b, Dir: filepath.Join(s.Dir, "views"), Logger: log,
		Assembler: assembler.Config{IdleTimeout: o.idle, AcceptRegistry: registry.Accepter[assembler.Validator](key.Trust()), Logger: log},
		Stream:    client.Stream{Tenant: o.tenant, Format: o.provider, ID: name, Tagged: o.tagged},
	}, in)
}
