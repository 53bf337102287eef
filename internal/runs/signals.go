package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// evidenceDigest names what one call brought: the tool, its arguments and
// its outcome (the result, or the error).
func evidenceDigest(c *Call) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(c.Name), c.Arguments, []byte(c.State), c.Result, []byte(c.Error), []byte(c.Reason)} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// countNewEvidence marks the round's evidence seen and counts what the run
// had not seen before.
func (a *apply) countNewEvidence() (int, error) {
	n := 0
	for i := range a.round.Calls {
		c := &a.round.Calls[i]
		if !c.Decided {
			continue
		}
		k, err := evidenceKey(a.ev.Tenant, a.run.ID, evidenceDigest(c))
		if err != nil {
			return 0, err
		}
		_, seen, err := a.tx.Get(k)
		if err != nil {
			return 0, err
		}
		if !seen {
			n++
			if err := a.tx.Set(k, []byte{1}); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// event builds an emitted event of the run, for the round's response.
func (a *apply) event(id string, body events.Body) *events.Event {
	return &events.Event{ID: id, Tenant: a.run.Tenant, User: a.run.User, Session: a.run.Session, Run: a.run.ID,
		Response: a.round.Response, At: a.ev.At, Body: body}
}

// emitSettled emits RoundSettled and the signals the round raises:
// RunDegraded and ReplanSuggested. The run row is stored already; what the
// signals change (Degraded, accepted steps) is stored again.
func (a *apply) emitSettled() error {
	rd, run := a.round, &a.run
	subj, err := events.RunSubject(run.Tenant, run.ID)
	if err != nil {
		return err
	}
	msgs, err := ToolResults(rd, rd.Format, a.p.cfg.ResultInlineMax)
	if err != nil {
		return err
	}
	body := &events.RoundSettled{Round: rd.N, Status: rd.Status, Format: rd.Format, Messages: msgs, Version: run.Version}
	for _, c := range rd.Calls {
		if !c.Decided {
			continue
		}
		sc := events.SettledCall{CallID: c.CallID, Item: c.Item, Name: c.Name, Outcome: outcomeOf(c.State)}
		switch {
		case c.Error != "":
			sc.Error = string(c.Error)
		case c.Reason != "":
			sc.Error = string(c.Reason)
		}
		body.Calls = append(body.Calls, sc)
	}
	if err := a.tx.Emit(subj, a.event(events.RoundSettledID(run.Tenant, run.ID, rd.Response), body)); err != nil {
		return err
	}
	if rd.Status != events.RoundCalled {
		return nil
	}
	dirty := false
	// Degrade after N failures in a row.
	threshold := a.p.cfg.DegradeAfter
	if t, ok := a.p.cfg.TenantDegradeAfter[run.Tenant]; ok && t > 0 {
		threshold = t
	}
	if !run.Degraded && run.FailuresInRow >= threshold {
		run.Degraded, dirty = true, true
		d := &events.RunDegraded{Round: rd.N, FailuresInRow: run.FailuresInRow, Threshold: threshold,
			Detail: fmt.Sprintf("%d calls failed or were rejected in a row; ask the model to answer without tools", run.FailuresInRow)}
		if err := a.tx.Emit(subj, a.event(events.RunDegradedID(run.Tenant, run.ID, rd.N), d)); err != nil {
			return err
		}
		rd.Signals = append(rd.Signals, Signal{Kind: SignalDegraded, Detail: d.Detail})
	}
	replan := func(reason events.ReplanReason, detail string) error {
		rd.Signals = append(rd.Signals, Signal{Kind: SignalReplan, Reason: string(reason), Detail: detail})
		return a.tx.Emit(subj, a.event(events.ReplanID(run.Tenant, run.ID, rd.N, reason), &events.ReplanSuggested{Round: rd.N, Reason: reason, Detail: detail}))
	}
	// A dependency unavailable: a circuit open, a tool missing.
	var down []string
	for _, c := range rd.Calls {
		switch {
		case c.Error == events.ErrUnavailable:
			down = append(down, c.Name+": "+c.Message)
		case c.Reason == events.ReasonUnknownTool || c.Error == events.ErrUnknownTool:
			down = append(down, c.Name+": "+cmpOr(c.Detail, c.Message, "no such tool"))
		}
	}
	if len(down) > 0 {
		if err := replan(events.ReplanDependencyDown, strings.Join(down, "; ")); err != nil {
			return err
		}
	}
	// No new evidence for two rounds.
	if run.NoNewEvidence >= 2 {
		if err := replan(events.ReplanNoNewEvidence, fmt.Sprintf("the last %d rounds made calls with results the run had seen before", run.NoNewEvidence)); err != nil {
			return err
		}
	}
	// The plan: its budget and its assumptions.
	budget := a.p.cfg.RoundsMax
	var plan *Plan
	if len(run.Plan) > 0 {
		if p, err := parsePlan(run.Plan); err == nil {
			plan = p
			if p.Budget.Rounds > 0 {
				budget = p.Budget.Rounds
			}
		}
	}
	if left := budget - run.Rounds; left <= 1 {
		if err := replan(events.ReplanBudgetShort, fmt.Sprintf("%d of %d rounds used; %d left", run.Rounds, budget, max(left, 0))); err != nil {
			return err
		}
	}
	if plan != nil {
		var contra []string
		for _, s := range plan.Steps {
			if s.Accept == nil {
				continue
			}
			for _, c := range rd.Calls {
				if c.State != CallSucceeded || c.Name != s.Accept.Tool {
					continue
				}
				v, ok := pointer(c.Result, s.Accept.Pointer)
				if !ok {
					continue
				}
				if len(s.Accept.Equals) > 0 && !sameJSON(v, s.Accept.Equals) {
					contra = append(contra, fmt.Sprintf("step %s assumed %s%s = %s; %s returned %s", s.ID, s.Accept.Tool, s.Accept.Pointer, s.Accept.Equals, c.CallID, v))
					continue
				}
				if !slices.Contains(run.Accepted, s.ID) {
					run.Accepted, dirty = append(run.Accepted, s.ID), true
				}
			}
		}
		if len(contra) > 0 {
			if err := replan(events.ReplanContradiction, strings.Join(contra, "; ")); err != nil {
				return err
			}
		}
	}
	if len(rd.Signals) > 0 {
		// The driver reads them with the round.
		if err := store(a.tx, a.roundK, &turn{Round: rd}); err != nil {
			return err
		}
	}
	if dirty {
		run.Status = statusOf(run)
		return store(a.tx, a.runK, run)
	}
	return nil
}

func outcomeOf(s CallState) events.CallOutcome {
	switch s {
	case CallSucceeded:
		return events.OutcomeSucceeded
	case CallRejected:
		return events.OutcomeRejected
	case CallIncomplete:
		return events.OutcomeIncomplete
	case CallDenied:
		return events.OutcomeDenied
	case CallUnknown:
		return events.OutcomeUnknown
	case CallClient:
		return events.OutcomeClient
	}
	return events.OutcomeFailed
}

func cmpOr(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
