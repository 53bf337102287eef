package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/runs"
)

func historyCmd(g *globals) *cobra.Command {
	var tenant string
	var req runs.Request
	cmd := &cobra.Command{
		Use:   "history --tenant T --run R [--format F] [--budget-tokens N]",
		Short: "Print a run's conversation as one provider's messages, within a token budget",
		Long: `history prints one JSON array: the request's messages (openai-chat, anthropic), input
(openai-responses) or contents (gemini) — the user's messages, the model's calls and the tool
results of every settled round. Within --budget-tokens (estimated as bytes ÷ 4) the last --keep
rounds stay verbatim and older ones are compacted deterministically: results as their summaries,
then each round as one line, then left out, oldest first. Large results are referenced.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A negative bound was taken for none: the whole run printed.
			if req.BudgetTokens < 0 || req.Keep < 0 {
				return badInput("--budget-tokens %d, --keep %d: want 0 or more", req.BudgetTokens, req.Keep)
			}
			ctx := cmd.Context()
			if err := g.checkTenant(ctx, tenant, false); err != nil {
				return err
			}
			c, done, log, err := g.runsClient(ctx, tenant)
			if err != nil {
				return err
			}
			defer done()
			h, err := c.History(ctx, tenant, req.Run, req.HistoryOptions)
			if errors.Is(err, client.ErrNotFound) {
				return usersRun(ctx, c, tenant, req.Run, err)
			}
			if err != nil {
				return err
			}
			if !h.Fits {
				log.Warn("history exceeds the budget", "tokens", h.Tokens, "budget", req.BudgetTokens)
			}
			_, err = fmt.Fprintf(g.stdout, "%s\n", h.Messages)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&tenant, "tenant", "default", "tenant")
	f.StringVar(&req.Run, "run", "", "run id (a response with no run is its own run: its response id)")
	f.StringVar(&req.Format, "format", "", "openai-chat, openai-responses, anthropic or gemini (default: the run's)")
	f.IntVar(&req.BudgetTokens, "budget-tokens", 0, "bound on the history's estimated tokens (0: none)")
	f.IntVar(&req.Keep, "keep", 2, "last rounds always verbatim")
	cmd.MarkFlagRequired("run")
	return cmd
}

// usersRun is the error of history for a run the tenant has not under
// that name: err, and where the tenant has a gateway user's run of that
// name (kept as the user's token, '.', then the name the client gave in
// Toolstream-Run and was told back) the names to give --run. A run-mode
// request with Toolstream-Run: r-bad for user ada is the run ada.r-bad
// in the log and in toolstream runs, and history --run r-bad said only
// "not found" (review rev14).
func usersRun(ctx context.Context, c *client.Client, tenant, run string, err error) error {
	all, lerr := c.Runs(ctx, tenant)
	if lerr != nil {
		return err
	}
	var names []string
	for _, r := range all {
		if strings.HasSuffix(r.ID, "."+run) {
			names = append(names, r.ID)
		}
	}
	if len(names) == 0 {
		return err
	}
	return fmt.Errorf("%w; a gateway run is kept under its user's name: --run %s", err, strings.Join(names, " or --run "))
}

func runsCmd(g *globals) *cobra.Command {
	var tenant string
	var follow, asJSON bool
	cmd := &cobra.Command{
		Use:   "runs [--tenant T] [--follow] [--json]",
		Short: "List a tenant's runs and their state (--follow: again whenever one changes)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			// Before the producer's client: on the per-tenant layout it
			// makes a mistyped tenant's ingress stream.
			if err := g.checkTenant(ctx, tenant, follow); err != nil {
				return err
			}
			c, done, _, err := g.runsClient(ctx, tenant)
			if err != nil {
				return err
			}
			defer done()
			list := func() error {
				rs, err := c.Runs(ctx, tenant)
				if err != nil {
					return err
				}
				if asJSON { // one listing a line
					if rs == nil {
						rs = []runs.Run{}
					}
					return json.NewEncoder(g.stdout).Encode(rs)
				}
				return printRuns(g.stdout, rs)
			}
			if !follow {
				return list()
			}
			// The subscription exists when WatchRuns returns: no change
			// between the first listing and the follow is missed.
			ctx, stop := context.WithCancel(ctx)
			defer stop() // ends the watch
			watch, err := c.WatchRuns(ctx, tenant)
			if err != nil {
				return err
			}
			if err := list(); err != nil {
				return err
			}
			changed := make(chan struct{}, 1)
			go func() {
				defer close(changed)
				for range watch { // a change, or one that did not decode: list again
					select {
					case changed <- struct{}{}:
					default: // a listing is due already
					}
				}
			}()
			for {
				select {
				case <-ctx.Done():
					return nil
				case _, ok := <-changed:
					if !ok {
						return nil
					}
				}
				// A burst of changes is one listing.
				for drained := false; !drained; {
					select {
					case _, ok := <-changed:
						drained = !ok
					case <-time.After(100 * time.Millisecond):
						drained = true
					}
				}
				if !asJSON {
					fmt.Fprintln(g.stdout)
				}
				if err := list(); err != nil {
					return err
				}
			}
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "default", "tenant")
	cmd.Flags().BoolVar(&follow, "follow", false, "list again whenever a run changes, until interrupted")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each listing as one JSON array on a line (times in Unix nanoseconds)")
	return cmd
}

func printRuns(w io.Writer, rs []runs.Run) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATUS\tVERSION\tROUNDS\tSETTLED\tCALLS\tFAILURES IN A ROW\tTOKENS IN\tTOKENS OUT\tFORMAT\tPARENT\tLAST")
	for _, r := range rs {
		// PARENT: the run whose delegate call started this one.
		parent := r.Parent
		if parent == "" {
			parent = "-"
		}
		// STATUS: with why, where the driver stopped the run short of an answer.
		status := string(r.Status)
		if r.Ended != "" && r.Status == r.Ended && r.EndReason != "" {
			status += " (" + r.EndReason + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", r.ID, status, r.Version, r.Rounds, r.Settled, r.Calls, r.FailuresInRow,
			r.InputTokens, r.OutputTokens, r.Format, parent, time.Unix(0, r.LastAt).UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}

// runsClient connects the client for the runs service's requests as
// tenant's producer (a producer may ask about, and watch, its own tenant's
// runs).
func (g *globals) runsClient(ctx context.Context, tenant string) (*client.Client, func(), *slog.Logger, error) {
	log, err := g.logger()
	if err != nil {
		return nil, nil, nil, err
	}
	c, done, err := g.readClient(ctx, log, asProducer(tenant))
	return c, done, log, err
}
