package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/toolsel"
	"github.com/toolstream/toolstream/registry"
)

// Delegation (docs/design.md, "Plans and delegation"): a run offered
// toolstream_delegate (one below Config.DelegateDepthMax) may hand a
// sub-task to a child run. The call names a goal, the tools the child may
// use (some of the parent's: asking for another is permission_denied and
// no child starts) and a budget (rounds, tokens) carved from what the
// parent has left (asking for more is a validation_error). The child is a
// run of its own — its id events.ChildRunID(parent, call id), the same
// tenant, user and session, its parent named in both runs' views — driven
// to its answer by the same driver, and the delegate call's result is the
// child's answer and its evidence: each tool call it made, with its
// outcome and the digest of its result. The child's spec (tools, budget,
// parent) is stored with its first request, so a driver killed mid-child
// resumes the child (Resume, or the parent's next drive asking the same
// child run again), never starts a second one.

// delegateArgs are a toolstream_delegate call's arguments.
type delegateArgs struct {
	Goal   string   `json:"goal"`
	Tools  []string `json:"tools"`
	Budget struct {
		Rounds int   `json:"rounds"`
		Tokens int64 `json:"tokens"`
	} `json:"budget"`
}

// childRoundsDefault is a child's budget of rounds when the call names
// none (lowered to what the parent has left).
const childRoundsDefault = 4

// Evidence is one call a child run made, as its parent is told of it.
type Evidence struct {
	Tool    string `json:"tool"`
	CallID  string `json:"call_id"`
	Outcome string `json:"outcome"`
	// Digest is the SHA-256 of the result (hex, 128 bits); Error the
	// failure's type.
	Digest  string `json:"digest,omitempty"`
	Summary string `json:"summary,omitempty"`
	Error   string `json:"error,omitempty"`
}

// delegateResult is the delegate call's result.
type delegateResult struct {
	Run      string     `json:"run"`
	Status   Status     `json:"status"`
	Reason   string     `json:"reason,omitempty"`
	Answer   string     `json:"answer,omitempty"`
	Rounds   int        `json:"rounds"`
	Tokens   int64      `json:"tokens"`
	Evidence []Evidence `json:"evidence"`
}

// givenTools are the registry's tools a run may use: the tenant's, and
// for a child run those of them its parent gave it.
func givenTools(reg *registry.Registry, spec *Spec) []*registry.Tool {
	all := toolsel.Allowed(reg, spec.Tenant)
	if spec.Parent == "" {
		return all
	}
	var out []*registry.Tool
	for _, t := range all {
		if slices.Contains(spec.Tools, t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// delegateCall starts (or resumes) the child run a toolstream_delegate
// call asks for, drives it to its end and says what it found. An error
// is the driver's own failure (the call stays open for the next drive);
// a refusal or a child that did not answer is the call's outcome. A
// child waiting for approval is returned as waiting: no outcome yet.
func (d *Driver) delegateCall(ctx context.Context, spec *Spec, st *state, c runs.Call) (o builtinOutcome, waiting *Outcome, err error) {
	var a delegateArgs
	dec := json.NewDecoder(bytes.NewReader(c.Arguments))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return failed(events.ErrValidation, "the arguments of %s are not {goal, tools, budget}: %v; no sub-agent started", events.ToolDelegate, err), nil, nil
	}
	if strings.TrimSpace(a.Goal) == "" {
		return failed(events.ErrValidation, "%s needs a goal; no sub-agent started", events.ToolDelegate), nil, nil
	}
	if depthMax := d.set().DelegateDepthMax; spec.Depth >= depthMax {
		return failed(events.ErrPermissionDenied, "a run at depth %d may not delegate (at most %d levels of sub-agents); no sub-agent started", spec.Depth, depthMax), nil, nil
	}
	// Tools: some of the parent's, never more.
	var mine []string
	for _, t := range givenTools(d.cfg.Registry(), spec) {
		mine = append(mine, t.Name)
	}
	tools := a.Tools
	if tools == nil {
		tools = mine
	}
	for _, t := range tools {
		if !slices.Contains(mine, t) {
			return failed(events.ErrPermissionDenied, "tool %s is not one this run may use, so it cannot give it to a sub-agent (it may give: %s); no sub-agent started",
				t, strings.Join(mine, ", ")), nil, nil
		}
	}
	tools = slices.Compact(slices.Sorted(slices.Values(tools)))
	// Budget: carved from what the parent has left, keeping one round
	// for the parent's own answer.
	parentMax := d.cfg.RoundsMax
	if spec.RoundsMax > 0 {
		parentMax = spec.RoundsMax
	}
	// The sub-agents this turn already started spent some of it too: their
	// rounds and tokens come off what is left, so two delegate calls
	// cannot each be given the whole remainder.
	spentRounds, spentTokens, err := d.childrenSpent(ctx, spec, st, c.CallID)
	if err != nil {
		return builtinOutcome{}, nil, err
	}
	left := budgetRounds(parentMax, planOf(st)) - len(turnRounds(st)) - spentRounds - 1
	if left < 1 {
		return failed(events.ErrValidation, "this run has no rounds left to give a sub-agent; answer with what you have"), nil, nil
	}
	rounds := a.Budget.Rounds
	switch {
	case rounds < 0:
		return failed(events.ErrValidation, "budget.rounds must be at least 1; no sub-agent started"), nil, nil
	case rounds == 0:
		rounds = min(childRoundsDefault, left)
	case rounds > left:
		return failed(events.ErrValidation, "budget.rounds %d is more than the %d rounds this run has left to give; no sub-agent started", rounds, left), nil, nil
	}
	tokens := a.Budget.Tokens
	if spec.TokensMax > 0 {
		tleft := spec.TokensMax - st.Run.InputTokens - st.Run.OutputTokens - spentTokens
		switch {
		case tleft < 1:
			return failed(events.ErrValidation, "this run has no tokens left to give a sub-agent"), nil, nil
		case tokens == 0:
			tokens = tleft
		case tokens > tleft:
			return failed(events.ErrValidation, "budget.tokens %d is more than the %d tokens this run has left to give; no sub-agent started", tokens, tleft), nil, nil
		}
	}
	if tokens < 0 {
		return failed(events.ErrValidation, "budget.tokens must be at least 1; no sub-agent started"), nil, nil
	}
	body, err := childBody(spec, a.Goal)
	if err != nil {
		return builtinOutcome{}, nil, err
	}
	child := Spec{Tenant: spec.Tenant, User: spec.User, Session: spec.Session, Run: events.ChildRunID(spec.Run, c.CallID), Format: spec.Format,
		Upstream: spec.Upstream, Body: body, Key: spec.Key, Memory: spec.Memory, PlansOff: spec.PlansOff, DelegateOff: spec.DelegateOff,
		Parent: spec.Run, Depth: spec.Depth + 1, Tools: tools, RoundsMax: rounds, TokensMax: tokens}
	if child.Tools == nil {
		child.Tools = []string{} // a child given no tools has none, not all
	}
	d.log.Info("sub-agent", "tenant", spec.Tenant, "run", spec.Run, "child", child.Run, "rounds", rounds, "tokens", tokens, "tools", len(tools))
	out, err := d.Run(ctx, child)
	if errors.Is(err, ErrRunTaken) || errors.Is(err, ErrNotFound) { // ErrNotFound: another user's run, being driven
		return failed(events.ErrPermissionDenied, "the sub-agent's run id %s is already another run's; no sub-agent started", child.Run), nil, nil
	}
	if err != nil {
		return builtinOutcome{}, nil, fmt.Errorf("agent: the sub-agent %s: %w", child.Run, err)
	}
	if out.Status == StatusWaitingApproval {
		return builtinOutcome{}, out, nil
	}
	cst, err := d.state(ctx, spec.Tenant, child.Run, &runCache{})
	if err != nil {
		return builtinOutcome{}, nil, err
	}
	res := delegateResult{Run: child.Run, Status: out.Status, Reason: out.Reason, Answer: out.Text, Rounds: len(cst.Rounds),
		Tokens: cst.Run.InputTokens + cst.Run.OutputTokens, Evidence: evidenceOf(cst)}
	if res.Evidence == nil {
		res.Evidence = []Evidence{}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return builtinOutcome{}, nil, err
	}
	if out.Status != StatusAnswered {
		return failed(events.ErrToolError, "the sub-agent's run %s ended %s (%s): %s; what it found: %s", child.Run, out.Status, out.Reason, out.Detail, b), nil, nil
	}
	return builtinOutcome{Result: b}, nil, nil
}

// childrenSpent adds up the rounds and tokens of the sub-agents that the
// delegate calls of the run's current turn started, but for the call
// being performed (a resumed call's own child is not spent against it).
func (d *Driver) childrenSpent(ctx context.Context, spec *Spec, st *state, callID string) (rounds int, tokens int64, err error) {
	for _, r := range turnRounds(st) {
		for _, dc := range r.Calls {
			if dc.Name != events.ToolDelegate || dc.CallID == callID {
				continue
			}
			cst, err := d.state(ctx, spec.Tenant, events.ChildRunID(spec.Run, dc.CallID), &runCache{})
			if err != nil {
				return 0, 0, err
			}
			rounds += len(cst.Rounds)
			tokens += cst.Run.InputTokens + cst.Run.OutputTokens
		}
	}
	return rounds, tokens, nil
}

// evidenceOf lists the calls of a run's rounds with their outcomes.
func evidenceOf(st *state) []Evidence {
	var out []Evidence
	for _, r := range st.Rounds {
		for _, c := range r.Calls {
			e := Evidence{Tool: c.Name, CallID: c.CallID, Outcome: string(c.State), Digest: c.Digest, Summary: c.Summary}
			switch {
			case c.Error != "":
				e.Error = string(c.Error)
			case c.Reason != "":
				e.Error = string(c.Reason)
			}
			out = append(out, e)
		}
	}
	return out
}

// childInstructions tell a child run's model what it is.
const childInstructions = "You are a sub-agent of another run. Work on the goal the user message gives with the tools you have, " +
	"then answer it: say what you found and which tool results it rests on."

// childBody is a child run's first request: the parent's body (model and
// settings) with the conversation replaced by the goal.
func childBody(spec *Spec, goal string) ([]byte, error) {
	body, err := parseBody(spec.Body)
	if err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(body))
	for k, v := range body {
		out[k] = v
	}
	delete(out, "tools")
	delete(out, "tool_choice")
	set := func(k string, v any) {
		b, _ := json.Marshal(v) // strings and maps of strings
		out[k] = b
	}
	user := map[string]string{"role": "user", "content": goal}
	switch spec.Format {
	case runs.FormatResponses:
		set("instructions", childInstructions)
		set("input", []any{user})
		delete(out, "previous_response_id")
	case runs.FormatAnthropic:
		set("system", childInstructions)
		set("messages", []any{user})
	default:
		set("messages", []any{map[string]string{"role": "system", "content": childInstructions}, user})
	}
	return marshalSorted(out)
}
