package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/trace"
)

func traceCmd(g *globals) *cobra.Command {
	var tenant, response string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "trace CALL_ID [--tenant T] [--response R] [--json]",
		Short: "Show the whole lineage of one call from the log, with timings between steps",
		Long: `trace reads the log and prints everything that happened to one call, in log order: the model
events of its item (the argument deltas it was built from: sequences, count, bytes, and the raw
provider events they were normalised from), the completion signal, the assembler's decision
(completed with its provenance, or rejected / incomplete with the typed reason), the executor's
attempts and lease holders (ExecutionStarted), approvals, the result, and the verdicts that used
the result as evidence. Each step shows its stream sequence and stream timestamp; the timings
between the steps are given in stream time and in event time.

CALL_ID is the provider's call id or the output item id. When it names calls of several
responses, --response picks one.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			if err := events.ValidTenant(tenant); err != nil {
				return fmt.Errorf("--tenant: %w", err)
			}
			b, err := g.connect(cmd.Context(), log, asReader)
			if err != nil {
				return err
			}
			defer b.Close()
			g.tenantOnLog(cmd.Context(), log, b.Conn, tenant, false)
			tr, err := trace.Call(cmd.Context(), b, tenant, args[0], response)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(tr)
			}
			return tr.WriteText(g.stdout)
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "default", "tenant (required: there is no all-tenants view)")
	cmd.Flags().StringVar(&response, "response", "", "response id, when the call id names calls of several responses")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the trace as one JSON document")
	return cmd
}
