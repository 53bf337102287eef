package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/mcp"
	"github.com/toolstream/toolstream/internal/toolsel"
	"github.com/toolstream/toolstream/registry"
)

func toolsCmd(g *globals) *cobra.Command {
	var file, tenant string
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "The registry's tools as a model is given them: export in a provider's format, search as run mode picks",
		Long: `tools reads the registry in force in the log of a running server (as runs through the gateway see
it: the tools file serve --tools follows), or a tools file with --tools FILE.

  tools export --format openai|openai-responses|anthropic|gemini|mcp   the tools as a request's tools
  tools search QUERY --k N                                             the N a run would pick for QUERY
  tools import-mcp URL --prefix P                                      contracts for an MCP server's tools

With --tenant T only the tools T may call; without, every tool.`,
	}
	load := func(ctx context.Context) (*registry.Registry, error) {
		if file != "" {
			if err := toolsFileThere(file); err != nil {
				return nil, err
			}
			return registry.Load(file)
		}
		log, err := g.logger()
		if err != nil {
			return nil, err
		}
		b, err := g.connect(ctx, log, asReader)
		if err != nil {
			return nil, err
		}
		defer b.Close()
		trust, err := g.registryTrust(log, nil)
		if err != nil {
			return nil, err
		}
		f, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: trust, Logger: log})
		if err != nil {
			return nil, err
		}
		defer f.Stop()
		if f.Current() == nil {
			return nil, errors.New("tools: the log holds no registry this command trusts (give --tools FILE, or --registry-trust)")
		}
		return f.Current(), nil
	}
	var format string
	export := &cobra.Command{
		Use:   "export --format openai|openai-responses|anthropic|gemini|mcp",
		Short: "Print the registry's tools in a provider's request format (one JSON array)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := toolsel.ParseFormat(format); err != nil {
				return badInput("--format %q: want openai, openai-responses, anthropic, gemini or mcp", format)
			}
			reg, err := load(cmd.Context())
			if err != nil {
				return err
			}
			ex, err := toolsel.Export(format, toolsel.Allowed(reg, tenant))
			if err != nil {
				return err
			}
			for _, name := range ex.Skipped {
				fmt.Fprintf(g.stderr, "tools: %s left out: %s does not take this name even written as %s (at most 64 characters)\n", name, ex.Format, registry.WireName(name))
			}
			_, err = fmt.Fprintf(g.stdout, "%s\n", ex.Tools)
			return err
		},
	}
	export.Flags().StringVar(&format, "format", "openai", "openai (Chat Completions), openai-responses, anthropic, gemini or mcp")
	var k int
	var asJSON bool
	search := &cobra.Command{
		Use:   "search QUERY [--k N]",
		Short: "Show the tools run mode would give the model for QUERY, best first, with their scores",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := load(cmd.Context())
			if err != nil {
				return err
			}
			ranked := toolsel.Rank(toolsel.Allowed(reg, tenant), args[0])
			if asJSON {
				if k > 0 && len(ranked) > k {
					ranked = ranked[:k]
				}
				out := make([]map[string]any, len(ranked))
				for i, s := range ranked {
					out[i] = map[string]any{"rank": i + 1, "score": s.Score, "name": s.Tool.Name, "version": s.Tool.Version, "description": s.Tool.Description}
				}
				return json.NewEncoder(g.stdout).Encode(out)
			}
			return printRanked(g.stdout, ranked, k)
		},
	}
	search.Flags().BoolVar(&asJSON, "json", false, "print the ranking as one JSON array")
	search.Flags().IntVar(&k, "k", toolsel.ToolsMax, "how many tools to show (run mode's tools_max)")
	cmd.PersistentFlags().StringVar(&file, "tools", "", "a tools file to read instead of the running server's registry")
	cmd.PersistentFlags().StringVar(&tenant, "tenant", "", "only the tools this tenant may call")
	var prefix string
	var headers []string
	importMCP := &cobra.Command{
		Use:   "import-mcp URL --prefix P [--header 'Name: value']...",
		Short: "Print contracts for every tool of an MCP server, P.NAME, for the operator to complete and add to the tools file",
		Long: `import-mcp lists the tools of the MCP server at URL (Streamable HTTP) and prints a tools file with one
contract each, named P.NAME and implemented by mcp: {url, tool, headers}, with the server's schemas.
Each starts as the most careful contract (side_effect: irreversible, approval: required, idempotency:
none, timeout: 30s) with the server's hints in a comment, and nothing is granted: the operator
completes them and adds them to the tools file. A header value may hold ${env:NAME} or ${file:PATH}:
resolved here to connect, written into the contracts as the reference.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			hs := map[string]string{}
			for _, h := range headers {
				k, v, ok := strings.Cut(h, ":")
				if !ok || strings.TrimSpace(k) == "" {
					return badInput("--header %q: want 'Name: value'", h)
				}
				hs[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			out, err := mcp.Import(cmd.Context(), mcp.ImportConfig{URL: args[0], Prefix: prefix, Headers: hs})
			if err != nil {
				return err
			}
			_, err = g.stdout.Write(out)
			return err
		},
	}
	importMCP.Flags().StringVar(&prefix, "prefix", "", "the imported tools' names are PREFIX.NAME (required)")
	importMCP.Flags().StringArrayVar(&headers, "header", nil, "a header sent to the server and written into the contracts, 'Name: value'; secrets as ${env:NAME} or ${file:PATH}")
	cmd.AddCommand(export, search, importMCP)
	return cmd
}

func printRanked(w io.Writer, ranked []toolsel.Scored, k int) error {
	if k > 0 && len(ranked) > k {
		ranked = ranked[:k]
	}
	for i, s := range ranked {
		if _, err := fmt.Fprintf(w, "%2d  %6.3f  %s@%d  %s\n", i+1, s.Score, s.Tool.Name, s.Tool.Version, s.Tool.Description); err != nil {
			return err
		}
	}
	return nil
}

// toolsFileThere is bad input naming a --tools file that is not there
// (registry.Load said "load: open tools.yaml: no such file or directory").
func toolsFileThere(file string) error {
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return badInput("--tools %s: no such file (README, \"1. A tools file\", shows one)", file)
	}
	return nil
}
