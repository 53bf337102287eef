package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
)

func callsCmd(g *globals) *cobra.Command {
	var tenant string
	var follow, asJSON bool
	cmd := &cobra.Command{
		Use:   "calls [--follow] [--tenant T] [--json]",
		Short: "Show calls, their outcomes and results from a running server",
		Long: `calls prints every call outcome (completed, rejected, incomplete), response outcome, approval
request and decision, execution start and result of a tenant, in log order (one stream of the log
after another). With --follow it keeps printing as they happen.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := events.ValidTenant(tenant); err != nil {
				return fmt.Errorf("--tenant: %w", err)
			}
			log, err := g.logger()
			if err != nil {
				return err
			}
			c, done, err := g.client(cmd.Context(), log, asReader)
			if err != nil {
				return err
			}
			g.tenantOnLog(cmd.Context(), log, c.Conn(), tenant, follow)
			defer done()
			return printCalls(cmd.Context(), g.stdout, c, tenant, follow, asJSON)
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "default", "tenant (required: there is no all-tenants view)")
	cmd.Flags().BoolVar(&follow, "follow", false, "keep printing new outcomes")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line")
	return cmd
}

// callsKinds are what calls prints: never answers and their verdicts
// (toolstream verdicts).
var callsKinds = []client.Kind{client.KindCalls, client.KindResponses, client.KindExecutions, client.KindDecisions, client.KindResults}

// printCalls prints tenant's activity (client.Activity) in the order the
// log stored it across its streams (a read of the whole log is sorted by
// store time; a followed one is printed as it arrives); an event that
// does not decode is skipped (the projections record it).
func printCalls(ctx context.Context, w io.Writer, c *client.Client, tenant string, follow, asJSON bool) error {
	var opts []client.ReadOption
	if follow {
		opts = append(opts, client.Follow())
	}
	var all []client.Activity
	for a, err := range c.Activity(ctx, tenant, callsKinds, opts...) {
		var me *client.MalformedError
		if errors.As(err, &me) {
			continue
		}
		if err != nil {
			return err
		}
		if !follow {
			all = append(all, a)
			continue
		}
		if err := printActivity(w, a, asJSON); err != nil {
			return err
		}
	}
	slices.SortStableFunc(all, func(a, b client.Activity) int { return a.Meta().Stored.Compare(b.Meta().Stored) })
	for _, a := range all {
		if err := printActivity(w, a, asJSON); err != nil {
			return err
		}
	}
	return nil
}

// printActivity prints one activity: as JSON a call's or a response's
// outcome as a line of `toolstream assemble` (assembler.Line), other
// events by kind; as text one line each, the same columns for all: the
// event's kind, the response, the call id (the one approve, deny and
// trace take; the item for a call without one), what happened.
func printActivity(w io.Writer, a client.Activity, asJSON bool) error {
	m := a.Meta()
	who := "call=" + m.CallID
	if m.CallID == "" {
		who = "item=" + m.Item
	}
	var kind string
	var detail []string
	switch {
	case a.Call != nil:
		l := assembler.Line{Type: "call", Outcome: string(a.Call.Outcome), Tenant: m.Tenant, Response: m.Response, Item: m.Item,
			Name: &a.Call.Tool, Reason: string(a.Call.Reason), Detail: a.Call.Detail}
		if m.CallID != "" {
			l.CallID = &m.CallID
		}
		if a.Call.Outcome == client.CallCompleted {
			l.Arguments = a.Call.Arguments
		}
		if asJSON {
			return json.NewEncoder(w).Encode(l)
		}
		kind, detail = string(m.Kind), []string{a.Call.Tool}
		if len(l.Arguments) > 0 {
			detail = append(detail, string(l.Arguments))
		}
		if l.Reason != "" {
			detail = append(detail, "("+l.Reason+")")
		}
	case a.Response != nil:
		r := a.Response
		if asJSON {
			return json.NewEncoder(w).Encode(assembler.Line{Type: "response", Tenant: m.Tenant, Response: m.Response, Status: string(r.Status),
				Reason: string(r.Reason), Error: r.Error, Calls: &r.Calls})
		}
		kind, who = "response."+string(r.Status), fmt.Sprintf("calls=%d", r.Calls)
		if r.Reason != "" {
			detail = append(detail, "("+string(r.Reason)+")")
		}
	default:
		if asJSON {
			return json.NewEncoder(w).Encode(map[string]any{"type": string(m.Kind), "tenant": m.Tenant, "response_id": m.Response,
				"call_id": m.CallID, "id": m.ID, "body": activityBody(a)})
		}
		kind = string(m.Kind)
		if s := summary(a); s != "" {
			detail = append(detail, s)
		}
	}
	_, err := fmt.Fprintf(w, "%-24s %s %s%s\n", kind, m.Response, who, prefixed(strings.Join(detail, " ")))
	return err
}

// prefixed is s after a space, or nothing.
func prefixed(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

// activityBody is what calls --json prints of an event that is not an
// outcome.
func activityBody(a client.Activity) map[string]any {
	switch {
	case a.Approval != nil:
		return map[string]any{"name": a.Approval.Tool, "arguments": a.Approval.Arguments, "key": a.Approval.Key}
	case a.Decision != nil:
		return map[string]any{"approved": a.Decision.Approved, "by": a.Decision.By, "reason": a.Decision.Reason}
	case a.Execution != nil:
		return map[string]any{"name": a.Execution.Tool, "attempt": a.Execution.Attempt, "executor": a.Execution.Executor, "key": a.Execution.Key}
	case a.Result != nil:
		r := a.Result
		if r.OK {
			return map[string]any{"name": r.Tool, "ok": true, "result": r.Result, "summary": r.Summary, "raw_ref": r.RawRef, "attempts": r.Attempts, "key": r.Key}
		}
		return map[string]any{"name": r.Tool, "ok": false, "error": r.Error, "message": r.Message, "attempts": r.Attempts, "key": r.Key}
	}
	return nil
}

func summary(a client.Activity) string {
	switch {
	case a.Result != nil && a.Result.OK:
		return a.Result.Summary
	case a.Result != nil:
		return string(a.Result.Error) + ": " + a.Result.Message
	case a.Approval != nil:
		return "waiting for approval of " + a.Approval.Tool + ": toolstream approve " + a.Approval.Key
	case a.Decision != nil && !a.Decision.Approved:
		return "denied: " + a.Decision.Reason
	case a.Execution != nil:
		return fmt.Sprintf("%s attempt %d on %s", a.Execution.Tool, a.Execution.Attempt, a.Execution.Executor)
	}
	return ""
}
