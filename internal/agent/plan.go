package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/runs"
)

// Plans (docs/design.md, "Plans and delegation"): the model is the
// planner. Every round that offers tools also offers the built-in tool
// toolstream_plan, whose arguments are a runs.Plan; the driver turns its
// calls into versioned plan writes (a stale write is written again on the
// version the run is at) and answers the call with the version written,
// or with what is wrong with the plan. Once the run has a plan, every
// round is given it (steps accepted by evidence marked, blockers) as a
// note in the provider's shape, beside the recalled memory. When the last
// round raised a replan trigger (ReplanSuggested other than budget_short,
// RunDegraded) the note says which and why, with the evidence, and asks
// for a revised plan; the triggers acted on are bounded by the plan's
// budget.replans (default Config.ReplansMax), and one more ends the run
// (ReasonReplansExhausted).

// planWritesMax bounds the writes of one plan call: a write refused
// stale_version is written again on the current version, as long as the
// run moves on under it (calls of the same round settling).
const planWritesMax = 8

// planNoteMax bounds the plan as the note gives it; a longer plan is cut
// (the model has the whole in its own call).
const planNoteMax = 8 << 10

var planSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"goal":{"type":"string","description":"what the run must achieve"},` +
	`"steps":{"type":"array","items":{"type":"object","properties":{` +
	`"id":{"type":"string"},"goal":{"type":"string"},` +
	`"depends_on":{"type":"array","items":{"type":"string"},"description":"ids of steps that must be accepted first"},` +
	`"accept":{"type":"object","description":"the tool result that accepts the step: a result of tool whose value at pointer exists (and equals equals, when given)",` +
	`"properties":{"tool":{"type":"string"},"pointer":{"type":"string","description":"a JSON pointer into the result, e.g. /temperature_c"},"equals":{}},"required":["tool","pointer"]}},` +
	`"required":["id","goal"]}},` +
	`"blockers":{"type":"array","items":{"type":"string"}},` +
	`"recovery":{"type":"string","description":"what to do when a step fails"},` +
	`"budget":{"type":"object","properties":{"rounds":{"type":"integer","minimum":0},"replans":{"type":"integer","minimum":0}}}},` +
	`"required":["goal","steps"]}`)

const planDescription = "Write or revise the plan of this run: its goal, its steps (each with the tool result that accepts it), " +
	"blockers and budget. Call it first for a task of more than one step, and again with a revised plan when told a replan is needed. " +
	"It runs no tool; the answer is the plan's version."

var delegateSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"goal":{"type":"string","description":"the sub-task, as a question the sub-agent answers"},` +
	`"tools":{"type":"array","items":{"type":"string"},"description":"the tools the sub-agent may call: some of yours (default: all of yours)"},` +
	`"budget":{"type":"object","properties":{"rounds":{"type":"integer","minimum":1},"tokens":{"type":"integer","minimum":1}}}},` +
	`"required":["goal"]}`)

const delegateDescription = "Hand a sub-task to a sub-agent: a child run with its own goal, tools (some of yours) and budget " +
	"(rounds, tokens: carved from yours). The answer is the child's answer and the evidence it gathered (its tool calls' outcomes)."

// builtinTools are the built-in tools' definitions in format's shape.
func builtinTools(format string, plan, delegate bool) []json.RawMessage {
	type def struct {
		name, desc string
		schema     json.RawMessage
	}
	var defs []def
	if plan {
		defs = append(defs, def{events.ToolPlan, planDescription, planSchema})
	}
	if delegate {
		defs = append(defs, def{events.ToolDelegate, delegateDescription, delegateSchema})
	}
	out := make([]json.RawMessage, 0, len(defs))
	for _, d := range defs {
		var v any
		switch format {
		case runs.FormatAnthropic:
			v = map[string]any{"name": d.name, "description": d.desc, "input_schema": d.schema}
		case runs.FormatResponses:
			v = map[string]any{"type": "function", "name": d.name, "description": d.desc, "parameters": d.schema}
		default:
			v = map[string]any{"type": "function", "function": map[string]any{"name": d.name, "description": d.desc, "parameters": d.schema}}
		}
		b, _ := json.Marshal(v) // maps of strings and valid JSON
		out = append(out, b)
	}
	return out
}

// withBuiltins appends the built-in tools offered (plan, delegate) to an
// exported tools array.
func withBuiltins(tools json.RawMessage, format string, plan, delegate bool) (json.RawMessage, error) {
	if !plan && !delegate {
		return tools, nil
	}
	var list []json.RawMessage
	if len(tools) > 0 {
		if err := json.Unmarshal(tools, &list); err != nil {
			return nil, fmt.Errorf("agent: tools are not an array: %w", err)
		}
	}
	if len(list) == 0 {
		return tools, nil // a run without tools plans nothing
	}
	return json.Marshal(append(list, builtinTools(format, plan, delegate)...))
}

// plans reports whether spec's rounds offer toolstream_plan: neither the
// gateway (Config) nor the run's key (Spec) turned it off.
func (d *Driver) plans(spec *Spec) bool { return !d.set().PlansOff && !spec.PlansOff }

// delegates reports whether spec's rounds offer toolstream_delegate.
func (d *Driver) delegates(spec *Spec) bool {
	set := d.set()
	return !set.DelegateOff && !spec.DelegateOff && spec.Depth < set.DelegateDepthMax
}

// builtinOff is the outcome of a call of a built-in tool the gateway's
// configuration or the run's key turned off: the tool is unknown, as one the registry does
// not have, and nothing is done.
func builtinOff(name string) builtinOutcome {
	return failed(events.ErrUnknownTool, "unknown tool %s: run mode's %s is turned off for this run; nothing was done", name, name)
}

// builtins performs the open round's calls of built-in tools that have no
// outcome yet, publishing each outcome as an executor would. A driver
// restarted between the act and its outcome acts again: a plan already
// written is not written twice (the run's plan is compared first), a
// child run is resumed, not started again (its id is the call's).
//
// acted holds the keys whose outcome this drive published already (the
// view shows it a moment later).
//
// A child run that waits for a person's approval has no outcome yet: the
// parent's drive ends waiting too (the Outcome returned, naming the
// child's waiting calls, whose keys `toolstream approve` takes), and the
// client's next request of the parent resumes the child.
func (d *Driver) builtins(ctx context.Context, spec *Spec, st *state, rd *runs.Round, acted map[string]bool) (*Outcome, error) {
	for _, c := range rd.Calls {
		if c.State != runs.CallRunning || c.Key == "" || !events.IsBuiltinTool(c.Name) || acted[c.Key] {
			continue
		}
		var o builtinOutcome
		switch {
		case c.Name == events.ToolPlan && !d.plans(spec), c.Name == events.ToolDelegate && (d.set().DelegateOff || spec.DelegateOff):
			o = builtinOff(c.Name)
		case c.Name == events.ToolPlan:
			o = d.planCall(ctx, spec, c.Arguments)
		case c.Name == events.ToolDelegate:
			var waiting *Outcome
			var err error
			if o, waiting, err = d.delegateCall(ctx, spec, st, c); err != nil {
				return nil, err
			}
			if waiting != nil {
				return &Outcome{Run: spec.Run, Status: StatusWaitingApproval, Response: rd.Response, Rounds: len(st.Rounds), Usage: turnUsage(st),
					Waiting: waiting.Waiting, Detail: "the sub-agent's run " + waiting.Run + " waits for approval of its calls"}, nil
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := d.publishOutcome(ctx, spec, rd, c, o); err != nil {
			return nil, err
		}
		acted[c.Key] = true
	}
	return nil, nil
}

// builtinOutcome is a built-in call's outcome: Result (JSON) or Error.
type builtinOutcome struct {
	Result  json.RawMessage
	Error   events.ErrorType
	Message string
}

func failed(et events.ErrorType, format string, a ...any) builtinOutcome {
	return builtinOutcome{Error: et, Message: fmt.Sprintf(format, a...)}
}

// planCall writes the plan a toolstream_plan call carries.
func (d *Driver) planCall(ctx context.Context, spec *Spec, args []byte) builtinOutcome {
	p, err := runs.ParsePlan(args)
	if err != nil {
		return failed(events.ErrValidation, "invalid_plan: %v; no plan was written. Call %s again with the plan fixed.", err, events.ToolPlan)
	}
	for range planWritesMax {
		run, err := d.runs.Run(ctx, spec.Tenant, spec.Run)
		if err != nil {
			return failed(events.ErrUnavailable, "the run could not be read: %v; no plan was written", err)
		}
		if len(run.Plan) > 0 && sameJSON(run.Plan, args) {
			return planWritten(run.PlanVersion, p) // written before a restart
		}
		if d.beforePlanWrite != nil {
			d.beforePlanWrite()
		}
		v, err := d.runs.WritePlan(ctx, spec.Tenant, spec.Run, json.RawMessage(args), run.Version, d.cfg.Driver)
		var stale *client.StaleError
		switch {
		case err == nil:
			d.log.Info("plan written", "tenant", spec.Tenant, "run", spec.Run, "version", v, "steps", len(p.Steps))
			return planWritten(v, p)
		case errors.As(err, &stale):
			continue // the run moved on: read it again
		case errors.Is(err, client.ErrBadInput):
			return failed(events.ErrValidation, "invalid_plan: %v; no plan was written", err)
		default:
			return failed(events.ErrUnavailable, "the plan could not be written: %v", err)
		}
	}
	return failed(events.ErrUnavailable, "the run kept changing under %d plan writes; no plan was written: call %s again", planWritesMax, events.ToolPlan)
}

func planWritten(version uint64, p *runs.Plan) builtinOutcome {
	b, _ := json.Marshal(map[string]any{"written": true, "plan_version": version, "steps": len(p.Steps)})
	return builtinOutcome{Result: b}
}

// publishOutcome publishes a built-in call's outcome on its built-in
// result subject (events.BuiltinResultSubject: the driver's role may
// publish no executor's outcome) under the id an executor's would have
// (events.ResultID of the key): published twice, the log keeps one.
func (d *Driver) publishOutcome(ctx context.Context, spec *Spec, rd *runs.Round, c runs.Call, o builtinOutcome) error {
	var body events.Body
	if o.Error != "" {
		body = &events.CallFailed{Name: c.Name, Key: c.Key, Error: o.Error, Message: o.Message, Attempts: 1}
	} else {
		body = &events.CallSucceeded{Name: c.Name, Key: c.Key, Result: o.Result, Summary: summary(o.Result), Attempts: 1}
	}
	ev := &events.Event{ID: events.ResultID(c.Key), Tenant: spec.Tenant, User: spec.User, Session: spec.Session, Run: spec.Run,
		Step: c.Step, Response: rd.Response, Item: c.Item, CallID: c.CallID, At: time.Now().UnixNano(), Body: body}
	data, err := events.EncodeSealed(ev, d.cfg.Keys, "")
	if errors.Is(err, events.ErrBadKey) {
		data, err = events.EncodeWithheld(ev, "")
	}
	if err != nil {
		return fmt.Errorf("agent: encode the outcome of %s: %w", c.Key, err)
	}
	subj, err := events.BuiltinResultSubject(spec.Tenant, c.Key)
	if err != nil {
		return err
	}
	if _, err := d.cfg.JS.Publish(ctx, subj, data, jetstream.WithMsgID(events.OwnedMsgID(d.cfg.MsgIDKey, subj, ev.ID))); err != nil {
		return fmt.Errorf("agent: publish the outcome of %s: %w", c.Key, err)
	}
	return nil
}

// summary is a result's one-line summary (bounded).
func summary(result []byte) string {
	s := string(result)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return string(ca) == string(cb)
}

// planOf is the run's plan, nil when it has none (or one the projection
// took and this driver cannot read: not acted on).
func planOf(st *state) *runs.Plan {
	if len(st.Run.Plan) == 0 {
		return nil
	}
	p, err := runs.ParsePlan(st.Run.Plan)
	if err != nil {
		return nil
	}
	return p
}

// acted reports whether a signal is a replan trigger the driver acts on:
// a replan suggested for a reason other than budget_short (the driver's
// own last round answers without tools then), or the run degraded.
func actedOn(s runs.Signal) bool {
	return s.Kind == runs.SignalDegraded || s.Kind == runs.SignalReplan && s.Reason != string(events.ReplanBudgetShort)
}

// triggers are the replan triggers the run's last settled round raised,
// when that round belongs to the current turn (a new question starts
// afresh).
func triggers(st *state) []runs.Signal {
	tr := turnRounds(st)
	if len(tr) == 0 {
		return nil
	}
	var out []runs.Signal
	for _, s := range tr[len(tr)-1].Signals {
		if actedOn(s) {
			out = append(out, s)
		}
	}
	return out
}

// replansUsed counts the rounds that raised a trigger acted on since the
// model first wrote the run's plan (all of them for a plan written
// otherwise).
func replansUsed(st *state) int {
	from := 0
	for i, r := range st.Rounds {
		if slices.ContainsFunc(r.Calls, func(c runs.Call) bool { return c.Name == events.ToolPlan && c.State == runs.CallSucceeded }) {
			from = i
			break
		}
	}
	n := 0
	for _, r := range st.Rounds[from:] {
		for _, s := range r.Signals {
			if actedOn(s) {
				n++
				break
			}
		}
	}
	return n
}

// replanBudget is how many triggers the run acts on.
func (d *Driver) replanBudget(p *runs.Plan) int {
	if p != nil && p.Budget.Replans > 0 {
		return p.Budget.Replans
	}
	return d.set().ReplansMax
}

// planNote is what the model is told of the plan: the plan with its
// accepted steps, and the triggers to act on. "" for a run without a
// plan: one that does not plan has nothing to replan (its triggers are
// in the log and the view all the same).
//
// answerOnly: the round is asked without tools (the run degraded, or its
// last round), so the model is told to answer, not to call.
func planNote(st *state, p *runs.Plan, trig []runs.Signal, used, budget int, answerOnly bool) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	if p != nil {
		fmt.Fprintf(&b, "Plan of this run (version %d, written with %s):\nGoal: %s\n", st.Run.PlanVersion, events.ToolPlan, p.Goal)
		for _, s := range p.Steps {
			mark := "open"
			if containsString(st.Run.Accepted, s.ID) {
				mark = "accepted by evidence"
			}
			fmt.Fprintf(&b, "- step %s [%s]: %s", s.ID, mark, s.Goal)
			if len(s.DependsOn) > 0 {
				fmt.Fprintf(&b, " (after %s)", strings.Join(s.DependsOn, ", "))
			}
			if a := s.Accept; a != nil {
				fmt.Fprintf(&b, "; accepted by %s %s", a.Tool, cmpOr(a.Pointer, "/"))
				if len(a.Equals) > 0 {
					fmt.Fprintf(&b, " = %s", a.Equals)
				}
			}
			b.WriteByte('\n')
		}
		if len(p.Blockers) > 0 {
			fmt.Fprintf(&b, "Blockers: %s\n", strings.Join(p.Blockers, "; "))
		}
		if b.Len() > planNoteMax {
			s := b.String()[:planNoteMax]
			b.Reset()
			b.WriteString(s + "…\n")
		}
	}
	if len(trig) > 0 {
		fmt.Fprintf(&b, "Replan needed (%d of %d replans this run may make): the last round said\n", used, budget)
		for _, s := range trig {
			if s.Kind == runs.SignalDegraded {
				fmt.Fprintf(&b, "- degraded: %s\n", s.Detail)
				continue
			}
			fmt.Fprintf(&b, "- %s: %s\n", s.Reason, s.Detail)
		}
		switch {
		case answerOnly:
			b.WriteString("Tools are not offered now: answer with what the evidence so far shows, and say what is blocked and why.")
		default:
			fmt.Fprintf(&b, "Call %s with a revised plan that takes this into account (keep the accepted steps), then go on.", events.ToolPlan)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// signalName is a signal's reason, or its kind.
func signalName(s runs.Signal) string { return cmpOr(s.Reason, s.Kind) }

// budgetRounds is a run's budget of rounds: the driver's (or the child
// run's), lowered by the plan's budget.rounds.
func budgetRounds(max int, p *runs.Plan) int {
	if p != nil && p.Budget.Rounds > 0 && p.Budget.Rounds < max {
		return p.Budget.Rounds
	}
	return max
}
