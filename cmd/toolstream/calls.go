package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/logread"
)

func callsCmd(g *globals) *cobra.Command {
	var tenant string
	var follow, asJSON bool
	cmd := &cobra.Command{
		Use:   "calls [--follow] [--tenant T] [--json]",
		Short: "Show calls, their outcomes and results from a running server",
		Long: `calls prints every call outcome (completed, rejected, incomplete), response outcome and execution
result of a tenant, in log order. With --follow it keeps printing as they happen.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := g.connectTenant(cmd.Context(), tenant)
			if err != nil {
				return err
			}
			defer b.Close()
			var subjects []string
			for _, kind := range []string{"call", "resp", "exec", "result", "approval"} {
				s, _ := events.TenantFilter(kind, tenant)
				subjects = append(subjects, s)
			}
			return watch(cmd.Context(), b, subjects, follow, func(ev *events.Event) error {
				return printOutcome(g.stdout, ev, asJSON)
			})
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "default", "tenant (required: there is no all-tenants view)")
	cmd.Flags().BoolVar(&follow, "follow", false, "keep printing new outcomes")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line")
	return cmd
}

func printOutcome(w io.Writer, ev *events.Event, asJSON bool) error {
	if l, ok := assembler.LineOf(ev); ok {
		if asJSON {
			return json.NewEncoder(w).Encode(l)
		}
		switch l.Type {
		case "call":
			_, err := fmt.Fprintf(w, "call %-10s %s/%s %s %s%s\n", l.Outcome, l.Response, l.Item, deref(l.Name), l.Arguments, orReason(l.Reason))
			return err
		default:
			_, err := fmt.Fprintf(w, "response %-10s %s%s\n", l.Status, l.Response, orReason(l.Reason))
			return err
		}
	}
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"type": string(ev.Kind), "tenant": ev.Tenant, "response_id": ev.Response, "call_id": ev.CallID, "id": ev.ID, "body": ev.Body})
	}
	_, err := fmt.Fprintf(w, "%-24s %s call=%s %s\n", ev.Kind, ev.Response, ev.CallID, summary(ev))
	return err
}

func summary(ev *events.Event) string {
	switch b := ev.Body.(type) {
	case *events.CallSucceeded:
		return b.Summary
	case *events.CallFailed:
		return string(b.Error) + ": " + b.Message
	case *events.ApprovalRequested:
		return "waiting for approval of " + b.Name
	case *events.ApprovalDenied:
		return "denied: " + b.Reason
	case *events.ExecutionStarted:
		return fmt.Sprintf("%s attempt %d on %s", b.Name, b.Attempt, b.Executor)
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orReason(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}

// watch prints every event on subjects from the start of the log, stream by
// stream; with follow it then follows every stream at once (each stream's
// order holds, the streams interleave as events arrive).
func watch(ctx context.Context, b *bus.Bus, subjects []string, follow bool, fn func(*events.Event) error) error {
	return b.ReadAcross(ctx, logread.Config{Subjects: subjects, Follow: follow}, false, func(_ string, batch []*logread.Msg) error {
		for _, m := range batch {
			ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys)
			if err != nil {
				continue // not ours to judge here; the projections record it
			}
			if err := fn(ev); err != nil {
				return err
			}
		}
		return nil
	})
}
