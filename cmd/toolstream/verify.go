package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier"
)

// evidenceFile is one entry of --evidence.
type evidenceFile struct {
	CallID  string          `json:"call_id"`
	Name    string          `json:"name"`
	Version int             `json:"version"`
	Result  json.RawMessage `json:"result"`
}

// claimOut is a claim as `verify --json` prints it: evidence values as JSON.
type claimOut struct {
	Text     string        `json:"text"`
	Start    int           `json:"start"`
	End      int           `json:"end"`
	Verdict  string        `json:"verdict"`
	Evidence []evidenceOut `json:"evidence"`
	Reason   string        `json:"reason,omitempty"`
}

type evidenceOut struct {
	CallID  string          `json:"call_id"`
	Pointer string          `json:"pointer"`
	Value   json.RawMessage `json:"value"`
}

func verifyCmd(g *globals) *cobra.Command {
	var evidencePath, answerPath, now, policy string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify --evidence FILE --answer FILE [--json]",
		Short: "Check an answer claim by claim against tool results, offline, with the verifier's own code",
		Long: `verify splits the answer (a UTF-8 text file) into claims and checks each against the evidence
(a JSON array of {"call_id":…,"name":…,"result":<any JSON>}): supported (with the JSON pointers
used), contradicted (with the conflicting value), unsupported, or not_checkable. Offsets are
character (rune) offsets. Faithfulness = supported ÷ checkable claims. --now sets the answer's
time for relative dates (default: now).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			eb, err := os.ReadFile(evidencePath)
			if err != nil {
				return err
			}
			var files []evidenceFile
			if err := json.Unmarshal(eb, &files); err != nil {
				return badInput("--evidence %s: want a JSON array of {call_id, name, result}: %w", evidencePath, err)
			}
			ab, err := os.ReadFile(answerPath)
			if err != nil {
				return err
			}
			if !utf8.Valid(ab) {
				return badInput("--answer %s: not UTF-8", answerPath)
			}
			at := time.Now().UTC()
			if now != "" {
				if at, err = time.Parse(time.RFC3339, now); err != nil {
					return badInput("--now %q: want an RFC 3339 time such as 2026-12-07T18:00:00Z: %w", now, err)
				}
			}
			var evs []verifier.Evidence
			for _, f := range files {
				evs = append(evs, verifier.Evidence{CallID: f.CallID, Name: f.Name, Version: f.Version, Result: f.Result})
			}
			pol, err := verifier.ParsePolicy(policy)
			if err != nil {
				return badInput("--policy %q: want annotate, redact or block (%w)", policy, err)
			}
			r := verifier.NewChecker(verifier.CheckerConfig{}).Check(string(ab), evs, at)
			if asJSON {
				out := struct {
					Faithfulness float64    `json:"faithfulness"`
					Claims       []claimOut `json:"claims"`
					Repaired     *string    `json:"repaired,omitempty"`
					Blocked      bool       `json:"blocked,omitempty"`
				}{Faithfulness: r.Faithfulness, Claims: claimsOut(r.Claims)}
				if pol != verifier.PolicyAnnotate {
					repaired, blocked := verifier.ApplyPolicy(pol, string(ab), r)
					out.Repaired, out.Blocked = &repaired, blocked
				}
				enc := json.NewEncoder(g.stdout)
				enc.SetEscapeHTML(false)
				return enc.Encode(out)
			}
			fmt.Fprintf(g.stdout, "faithfulness %.2f (%d claims)\n", r.Faithfulness, len(r.Claims))
			for _, c := range r.Claims {
				fmt.Fprintf(g.stdout, "  %-13s %q", c.Verdict, c.Text)
				for _, e := range c.Evidence {
					fmt.Fprintf(g.stdout, " [%s %s = %s]", e.CallID, e.Pointer, e.Value)
				}
				if c.Reason != "" {
					fmt.Fprintf(g.stdout, " — %s", c.Reason)
				}
				fmt.Fprintln(g.stdout)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&evidencePath, "evidence", "", "evidence file: JSON array of {call_id, name, result}")
	cmd.Flags().StringVar(&answerPath, "answer", "", "answer file (UTF-8 text)")
	cmd.Flags().StringVar(&now, "now", "", "the answer's time, RFC 3339 (default: now)")
	cmd.Flags().StringVar(&policy, "policy", "annotate", "annotate, redact or block: with --json, print the repaired answer")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("evidence")
	cmd.MarkFlagRequired("answer")
	return cmd
}

func claimsOut(cs []events.ClaimVerdict) []claimOut {
	out := make([]claimOut, 0, len(cs))
	for _, c := range cs {
		co := claimOut{Text: c.Text, Start: c.Start, End: c.End, Verdict: string(c.Verdict), Reason: c.Reason, Evidence: []evidenceOut{}}
		for _, e := range c.Evidence {
			v := json.RawMessage(e.Value)
			if !json.Valid(v) {
				v, _ = json.Marshal(e.Value)
			}
			co.Evidence = append(co.Evidence, evidenceOut{CallID: e.CallID, Pointer: e.Pointer, Value: v})
		}
		out = append(out, co)
	}
	return out
}

// verdictRevision names which of an answer's verdicts v is: the
// verifier's first ("verified"), the one after the user's constraints were
// checked ("constraints"), or one after an external judge ("judged"), and
// the words verdicts prints after its first line for a later one. Each is
// an event of its own on the answer's subject, and verdicts printed two
// identical "answer c0 …" blocks for a run's answer, the second with the
// constraints read in (review rev14).
func verdictRevision(v client.Verdict) (rev, again string) {
	av := v.Verified
	switch {
	case strings.HasPrefix(v.ID, strings.TrimSuffix(events.JudgedID(v.Tenant, v.Response, 0), "0")):
		return "judged", " (again, after the judge's verdicts)"
	case av != nil && av.ConstraintsChecked:
		return "constraints", fmt.Sprintf(" (again, against the user's constraints in force: %d)", av.Constraints)
	}
	return "verified", ""
}

func verdictsCmd(g *globals) *cobra.Command {
	var tenant string
	var follow, asJSON bool
	cmd := &cobra.Command{
		Use:   "verdicts [--tenant T] [--follow]",
		Short: "Show the verifier's verdicts on final answers from a running server",
		Args:  cobra.NoArgs,
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
			var opts []client.ReadOption
			if follow {
				opts = append(opts, client.Follow())
			}
			for v, err := range c.Verdicts(cmd.Context(), tenant, opts...) {
				var bad *client.MalformedError
				if errors.As(err, &bad) {
					continue // not ours to judge here; the projections record it
				}
				if err != nil {
					return err
				}
				av := v.Verified
				if av == nil {
					continue
				}
				rev, again := verdictRevision(v)
				if asJSON {
					if err := json.NewEncoder(g.stdout).Encode(map[string]any{"response_id": v.Response, "revision": rev, "faithfulness": av.Faithfulness,
						"policy": av.Policy, "blocked": av.Blocked, "repaired": av.Repaired, "claims": claimsOut(av.Claims)}); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(g.stdout, "answer %s faithfulness %.2f policy %s%s\n", v.Response, av.Faithfulness, av.Policy, again)
				for _, c := range av.Claims {
					fmt.Fprintf(g.stdout, "  %-13s %q %s\n", c.Verdict, c.Text, c.Reason)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "default", "tenant")
	cmd.Flags().BoolVar(&follow, "follow", false, "keep printing new verdicts")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line")
	return cmd
}
