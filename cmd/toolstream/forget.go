package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/stack"
)

func forgetCmd(g *globals) *cobra.Command {
	var tenant, user string
	var wait time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "forget --tenant T --user U",
		Short: "Erase a user: their memory, messages, model text, arguments, results and verdicts, from every store",
		Long: `forget erases one end user of a tenant from everything Toolstream stores. It destroys the
data keys that sealed the user's events in the log (so no copy of the log, backup or replay
can read them again), deletes with JetStream's overwriting delete the user's raw provider
events still kept in TS_IN, and writes a tombstone into every stream: each projection then
rebuilds its view without the user and deletes the old view's files. It waits (--wait) until
the projections of the running serve processes have done so, and says which it did not hear
from (one that is not running erases when it next catches up).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := events.ValidTenant(tenant); err != nil {
				return fmt.Errorf("--tenant: %w", err)
			}
			if user == "" {
				return fmt.Errorf("--user: give the end user to erase")
			}
			log, err := g.logger()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			c, done, err := g.client(ctx, log, asOperator)
			if err != nil {
				return err
			}
			defer done()
			res, err := c.EraseUser(ctx, tenant, user)
			if err != nil {
				return err
			}
			pending := stack.WaitErased(ctx, c.Conn(), res.Tombstones, wait)
			if !asJSON {
				fmt.Fprintf(g.stdout, "erased user %s of tenant %s: %d data key(s) destroyed, %d raw event(s) deleted, a tombstone in %d stream(s)\n",
					user, tenant, res.Keys, res.Raw, len(res.Tombstones))
				if len(pending) > 0 {
					fmt.Fprintf(g.stdout, "not yet confirmed by: %s (a projection that is not running erases when it next catches up)\n", strings.Join(pending, ", "))
				}
				return nil
			}
			out := struct {
				erasure.Result
				NotConfirmed []string `json:"not_confirmed,omitempty"`
			}{res, pending}
			enc := json.NewEncoder(g.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "tenant of the user")
	cmd.Flags().StringVar(&user, "user", "", "the end user to erase")
	cmd.Flags().DurationVar(&wait, "wait", 30*time.Second, "how long to wait for the running projections to rebuild their views")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was erased as JSON")
	return cmd
}
