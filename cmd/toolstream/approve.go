package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
)

func approveCmd(g *globals) *cobra.Command { return decisionCmd(g, "approve") }
func denyCmd(g *globals) *cobra.Command    { return decisionCmd(g, "deny") }

func decisionCmd(g *globals, verb string) *cobra.Command {
	var tenant, by, reason string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   verb + " CALL_ID|KEY [--tenant T]",
		Short: map[string]string{"approve": "Let a call that waits for approval run", "deny": "End a call that waits for approval with approval_denied"}[verb],
		Long: `The call is named by its provider call id (looked up among the tenant's ApprovalRequested events)
or by its idempotency key tenant/run/step/call (toolstream calls prints it on the call's approval
request), whose tenant is the call's: --tenant is then not needed. The decision is an event in the log: it survives
restarts, and a second decision on the same call is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			if verb == "deny" && reason == "" {
				return badInput("deny needs --reason \"…\": the decision is kept in the log with why it was made")
			}
			// A key (tenant/run/step/call) names its tenant.
			t, _, isKey := strings.Cut(args[0], "/")
			if isKey && !cmd.Flags().Changed("tenant") {
				tenant = t
			}
			if err := events.ValidTenant(tenant); err != nil {
				return fmt.Errorf("--tenant: %w", err)
			}
			c, done, err := g.client(cmd.Context(), log, asOperator)
			if err != nil {
				return err
			}
			defer done()
			var key string
			if verb == "approve" {
				key, err = c.Approve(cmd.Context(), tenant, args[0], client.By(by), client.Because(reason))
			} else {
				key, err = c.Deny(cmd.Context(), tenant, args[0], reason, client.By(by))
			}
			if errors.Is(err, client.ErrNotFound) && !isKey && !cmd.Flags().Changed("tenant") {
				// A call id alone is looked for in tenant default: say how
				// to name the call's tenant (it said only "not found").
				return fmt.Errorf("%w; give its tenant (--tenant T) or its key (tenant/run/step/call, as calls prints it)", err)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(g.stdout).Encode(map[string]string{"decision": map[string]string{"approve": "approved", "deny": "denied"}[verb], "key": key})
			}
			fmt.Fprintf(g.stdout, "%sd %s\n", map[string]string{"approve": "approve", "deny": "denie"}[verb], key)
			return nil
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "default", "tenant (a KEY names its own)")
	cmd.Flags().StringVar(&by, "by", "cli", "who decides (recorded)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the decision as JSON")
	cmd.Flags().StringVar(&reason, "reason", "", "why (required for deny)")
	return cmd
}
