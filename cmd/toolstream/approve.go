package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/node"
)

func approveCmd(g *globals) *cobra.Command { return decisionCmd(g, "approve") }
func denyCmd(g *globals) *cobra.Command    { return decisionCmd(g, "deny") }

func decisionCmd(g *globals, verb string) *cobra.Command {
	var tenant, by, reason string
	cmd := &cobra.Command{
		Use:   verb + " CALL_ID|KEY [--tenant T]",
		Short: map[string]string{"approve": "Let a call that waits for approval run", "deny": "End a call that waits for approval with approval_denied"}[verb],
		Long: `The call is named by its provider call id (looked up among the tenant's ApprovalRequested events)
or by its idempotency key tenant/run/step/call. The decision is an event in the log: it survives
restarts, and a second decision on the same call is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			if verb == "deny" && reason == "" {
				return fmt.Errorf("deny needs --reason")
			}
			b, err := g.connect(cmd.Context(), log)
			if err != nil {
				return err
			}
			defer b.Close()
			key, err := findApproval(cmd.Context(), b, tenant, args[0])
			if err != nil {
				return err
			}
			if verb == "approve" {
				err = executor.Approve(cmd.Context(), b.JS, tenant, key, by, reason)
			} else {
				err = executor.Deny(cmd.Context(), b.JS, tenant, key, by, reason)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "%sd %s\n", map[string]string{"approve": "approve", "deny": "denie"}[verb], key)
			return nil
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "default", "tenant")
	cmd.Flags().StringVar(&by, "by", "cli", "who decides (recorded)")
	cmd.Flags().StringVar(&reason, "reason", "", "why (required for deny)")
	return cmd
}

// findApproval resolves a call id or a key to the key of a waiting call.
func findApproval(ctx context.Context, b *bus.Bus, tenant, id string) (string, error) {
	if err := events.ValidTenant(tenant); err != nil {
		return "", fmt.Errorf("--tenant: %w", err)
	}
	subj, _ := events.TenantFilter("exec", tenant)
	evs, err := node.ReadAll(ctx, b, []string{subj})
	if err != nil {
		return "", err
	}
	for _, ev := range evs {
		if ar, ok := events.As[*events.ApprovalRequested](ev); ok && (ar.Key == id || ev.CallID == id) {
			return ar.Key, nil
		}
	}
	return "", fmt.Errorf("no call of tenant %s waits for approval under %q", tenant, id)
}
