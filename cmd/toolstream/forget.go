package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/stack"
)

func forgetCmd(g *globals) *cobra.Command {
	var tenant, user, confirm string
	var noUser, force bool
	var wait time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "forget --tenant T (--user U [--force] | --no-user --confirm T)",
		Short: "Erase a user: their memory, messages, model text, arguments, results and verdicts, from every store",
		Long: `forget erases one end user of a tenant from everything Toolstream stores. It destroys the
data keys that sealed the user's events in the log (so no copy of the log, backup or replay
can read them again), deletes with JetStream's overwriting delete the user's raw provider
events still kept in TS_IN, and writes a tombstone into every stream: each projection then
rebuilds its view without the user and deletes the old view's files. It waits (--wait) until
the projections of the running serve processes have done so, and says which it did not hear
from (one that is not running erases when it next catches up). A user of whom nothing is
left (no data key, no raw event: never seen, a mistyped name, or forgotten before) is not
found (exit 3) and nothing is written; --force writes the tombstones anyway, to finish a
forget that was cut short after its keys.

With --no-user instead of --user it erases what the tenant's producers published without a
user (no Ts-User header): the key ingest sealed their raw copies under, and with it the model
events, calls, results and verdicts of those streams, and the raw events without a user still
in TS_IN; no user's data is touched. As that reaches every user-less stream of the tenant,
it asks for the tenant's name again: --confirm T.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := events.ValidTenant(tenant); err != nil {
				return fmt.Errorf("--tenant: %w", err)
			}
			switch {
			case noUser && user != "":
				return badInput("--no-user: give either --user or --no-user")
			case noUser && confirm != tenant:
				return fmt.Errorf("--no-user erases everything tenant %s published without a user (raw copies, model events, calls, results, verdicts); give --confirm %s to go on: %w",
					tenant, tenant, client.ErrNotConfirmed)
			case !noUser && user == "":
				return badInput("--user: give the end user to erase (or --no-user for what the tenant published without one)")
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
			var res client.Erasure
			if noUser {
				res, err = c.EraseUserLess(ctx, tenant, confirm)
			} else if force {
				res, err = c.EraseUser(ctx, tenant, user)
			} else {
				res, err = c.EraseUserIfSeen(ctx, tenant, user)
			}
			if errors.Is(err, erasure.ErrNothingToErase) {
				// A mistyped or never-seen user wrote a tombstone into every
				// stream (each view rebuilt) and said it erased them.
				return &exitError{exitNotFound, fmt.Errorf("nothing to forget: tenant %s holds no data key and no raw event of user %q (never seen, or forgotten before); nothing was written "+
					"(--force writes the tombstones anyway, to finish a forget cut short)", tenant, user)}
			}
			if err != nil {
				return err
			}
			pending := stack.WaitErased(ctx, c.Conn(), res.Tombstones, wait)
			if !asJSON {
				what := "user " + user
				if noUser {
					what = "what was published without a user"
				}
				fmt.Fprintf(g.stdout, "erased %s of tenant %s: %d data key(s) destroyed, %d raw event(s) deleted, a tombstone in %d stream(s)\n",
					what, tenant, res.Keys, res.Raw, len(res.Tombstones))
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
	cmd.Flags().BoolVar(&noUser, "no-user", false, "erase what the tenant's producers published without a user (needs --confirm)")
	cmd.Flags().BoolVar(&force, "force", false, "with --user: write the tombstones even when no key or raw event of the user is left (a forget cut short before them)")
	cmd.Flags().StringVar(&confirm, "confirm", "", "with --no-user: the tenant's name again")
	cmd.Flags().DurationVar(&wait, "wait", 30*time.Second, "how long to wait for the running projections to rebuild their views")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was erased as JSON")
	return cmd
}
