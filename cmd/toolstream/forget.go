package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/erasure"
	"github.com/toolstream/toolstream/events"
)

func forgetCmd(g *globals) *cobra.Command {
	var tenant, user string
	var wait time.Duration
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
			c, done, err := g.client(ctx, log)
			if err != nil {
				return err
			}
			defer done()
			res, err := c.EraseUser(ctx, tenant, user)
			if err != nil {
				return err
			}
			pending := waitErased(ctx, &bus.Bus{Conn: c.Conn()}, res.Tombstones, wait) // liveDigest asks over the connection only
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
	return cmd
}

// waitErased waits until each projection a running serve answers for has
// applied its stream's tombstone, and returns the projections it did not
// see do so.
func waitErased(ctx context.Context, b *bus.Bus, tombs map[string]uint64, wait time.Duration) []string {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var pending []string
	for _, name := range projectionNames() {
		p, err := newProjection(name, &deps{})
		if err != nil {
			continue
		}
		stream, err := events.StreamOfAll(p.Subjects())
		if err != nil {
			continue
		}
		seq := tombs[stream]
		for {
			dg, err := liveDigest(ctx, b, name)
			if err == nil && dg.Seq >= seq {
				break
			}
			if ctx.Err() != nil {
				pending = append(pending, name)
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return pending
}
