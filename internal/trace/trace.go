package trace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/logread"
)

// ErrNotFound is returned by Call when no call of the tenant has the id.
var ErrNotFound = errors.New("trace: no such call")

// ErrAmbiguous is returned by Call (as an *AmbiguousError) when the id
// names calls of several responses and no response was given to pick one.
var ErrAmbiguous = errors.New("trace: ambiguous call id")

// AmbiguousError names the calls an id matched.
type AmbiguousError struct {
	ID     string
	Tenant string
	Calls  []string // response/item of each call, in log order
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("trace: %q names %d calls of tenant %s (%s): pick one with --response", e.ID, len(e.Calls), e.Tenant, strings.Join(e.Calls, ", "))
}

// Is reports whether target is ErrAmbiguous.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// logEntry is one message of the log with where and when it was stored.
type logEntry struct {
	Seq     uint64
	Stored  time.Time
	Subject string
	Ev      *events.Event
}

// readEntries returns every event now on subjects, in log order, with
// sequences and stream timestamps. Messages that do not decode are skipped.
func readEntries(ctx context.Context, b *bus.Bus, subjects []string) ([]logEntry, error) {
	var out []logEntry
	for _, subj := range subjects { // each a filter the server applies
		err := b.Read(ctx, logread.Config{Filter: subj}, func(batch []*logread.Msg) error {
			for _, m := range batch {
				if ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys); err == nil {
					out = append(out, logEntry{Seq: m.Seq, Stored: time.Unix(0, m.Time).UTC(), Subject: m.Subject, Ev: ev})
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("trace: read %s: %w", subj, err)
		}
	}
	// The subjects may lie in several streams: their stream timestamps
	// order them (one stream's sequence order is its timestamps' order).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Stored.Before(out[j].Stored) })
	return out, nil
}

// Step is one event of a call's lineage.
type Step struct {
	Seq    uint64    `json:"seq"`
	Stored time.Time `json:"stored"` // stream timestamp
	At     time.Time `json:"at"`     // event time
	Stage  string    `json:"stage"`  // model, call, exec, approval, result, verdict
	Kind   string    `json:"kind"`
	What   string    `json:"what"`
	Bytes  int       `json:"bytes,omitempty"`   // argument or text bytes of a delta
	Raw    uint64    `json:"raw_seq,omitempty"` // the raw event's TS_IN sequence (normalised by ingest)
	// RawPos is the raw event's position in its producer's stream, for an
	// event the producer normalised at the edge (the raw event never
	// reached the log), events.EdgeEnd for one its stream's end implied;
	// RawStream names that stream.
	RawPos    *int64 `json:"raw_pos,omitempty"`
	RawStream string `json:"raw_stream,omitempty"`
}

// Built is where the call's arguments came from.
type Built struct {
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
	Deltas   int    `json:"deltas"`
	Bytes    int    `json:"bytes"`
	RawFirst uint64 `json:"raw_first_seq,omitempty"` // the raw provider events they came from (TS_IN)
	RawLast  uint64 `json:"raw_last_seq,omitempty"`
	// Normalised at the edge: the positions of the raw events in the
	// producer's stream.
	RawStream   string `json:"raw_stream,omitempty"`
	RawPosFirst *int64 `json:"raw_first_pos,omitempty"`
	RawPosLast  *int64 `json:"raw_last_pos,omitempty"`
}

// Attempt is one ExecutionStarted: who held the lease for which try.
type Attempt struct {
	Attempt  int       `json:"attempt"`
	Executor string    `json:"executor"`
	Seq      uint64    `json:"seq"`
	Stored   time.Time `json:"stored"`
}

// Verdict is one claim that used the call's result as evidence.
type Verdict struct {
	Response string `json:"response_id"`
	Seq      uint64 `json:"seq"`
	Claim    string `json:"claim"`
	Verdict  string `json:"verdict"`
	Pointer  string `json:"pointer"`
	Value    string `json:"value"`
}

// Timing is the time between two steps.
type Timing struct {
	From   string        `json:"from"`
	To     string        `json:"to"`
	Stream time.Duration `json:"stream_ns"` // between stream timestamps
	Event  time.Duration `json:"event_ns"`  // between event times
}

// Trace is the lineage of one call.
type Trace struct {
	Tenant   string           `json:"tenant"`
	Response string           `json:"response_id"`
	Item     string           `json:"item_id"`
	CallID   string           `json:"call_id,omitempty"`
	Tool     string           `json:"tool,omitempty"`
	Key      string           `json:"key,omitempty"`    // the executor's idempotency key
	Outcome  string           `json:"outcome"`          // open, completed, rejected, incomplete
	Reason   string           `json:"reason,omitempty"` // of a rejection or incompleteness
	Result   string           `json:"result,omitempty"` // succeeded, failed, awaiting_approval…
	Built    *Built           `json:"built,omitempty"`  // from the CallCompleted/Rejected/Incomplete provenance
	Record   *executor.Status `json:"record,omitempty"` // the executor's record, when there is one
	Steps    []Step           `json:"steps"`
	Attempts []Attempt        `json:"attempts,omitempty"`
	Verdicts []Verdict        `json:"verdicts,omitempty"`
	Timings  []Timing         `json:"timings,omitempty"`
	// Served says which upstream the gateway sent the response's request
	// to, for a response that came through the gateway.
	Served *Served `json:"served,omitempty"`
	// Run and ChildRun: a toolstream_delegate call's run, and the child
	// run the call starts (events.ChildRunID).
	Run      string `json:"run,omitempty"`
	ChildRun string `json:"child_run,omitempty"`
}

// promptTextMax bounds the prompt WriteText prints.
const promptTextMax = 2000

// Served is the gateway's record of a response's request: its API, the
// upstream that answered and the attempts it took (the first is 1; more
// are retries, on the same upstream or another).
type Served struct {
	API      string `json:"api"`
	Upstream string `json:"upstream,omitempty"`
	Attempts int    `json:"attempts,omitempty"`
	Seq      uint64 `json:"seq"`
	// Prompt is the prompt the request sent (a passthrough request's:
	// events.StreamPrompt), nil when the gateway kept none or it was
	// erased.
	Prompt *Prompt `json:"prompt,omitempty"`
}

// Prompt is a request's prompt as the gateway kept it: the request body's
// prompt members (model, instructions, system, messages, input, tools,
// tool_choice) as one JSON object, bounded (events.PromptBytesMax): Bytes
// is the whole prompt's size, Left the members a truncated one leaves out.
type Prompt struct {
	JSON      json.RawMessage `json:"json"`
	Bytes     int             `json:"bytes"`
	Truncated bool            `json:"truncated,omitempty"`
	Left      []string        `json:"left,omitempty"`
	Seq       uint64          `json:"seq"`
}

// servedBy reads the gateway's end frame of response (a whole answer's one
// message, events.StreamAnswer, holds it and the prompt), relayed for user:
// nil when the gateway relayed no such stream (a producer's own, or the
// frames are gone). The frames' stream is named as the gateway names it
// (its scopedID: the user's token, '.', the id; without a user the id,
// or '.' and the id when it holds a '.').
func servedBy(ctx context.Context, b *bus.Bus, tenant, user, response string) *Served {
	id := response
	switch {
	case user != "":
		id = events.Token(user) + "." + response
	case strings.Contains(response, "."):
		id = "." + response
	}
	for _, api := range []string{"chat", "responses", "messages"} {
		subj, err := events.GatewaySubject(tenant, api, id)
		if err != nil {
			return nil
		}
		m, err := logread.Last(ctx, b.Conn, events.StreamGateway, subj)
		if err != nil {
			continue
		}
		ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys)
		if err != nil {
			continue
		}
		if a, ok := events.As[*events.StreamAnswer](ev); ok { // a whole answer: its prompt and end in one message
			sv := &Served{API: api, Upstream: a.Upstream, Attempts: a.Attempts, Seq: m.Seq}
			if p := a.Prompt; p != nil && json.Valid([]byte(p.Prompt)) {
				sv.Prompt = &Prompt{JSON: json.RawMessage(p.Prompt), Bytes: p.Bytes, Truncated: p.Truncated, Left: p.Left, Seq: m.Seq}
			}
			return sv
		}
		if f, ok := events.As[*events.StreamFrame](ev); ok && f.End {
			sv := &Served{API: api, Upstream: f.Upstream, Attempts: f.Attempts, Seq: m.Seq}
			if m, err := logread.First(ctx, b.Conn, events.StreamGateway, subj); err == nil {
				if ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys); err == nil {
					if p, ok := events.As[*events.StreamPrompt](ev); ok && json.Valid([]byte(p.Prompt)) {
						sv.Prompt = &Prompt{JSON: json.RawMessage(p.Prompt), Bytes: p.Bytes, Truncated: p.Truncated, Left: p.Left, Seq: m.Seq}
					}
				}
			}
			return sv
		}
	}
	return nil
}

// Call assembles the lineage of the call named id (provider call id or
// item id) of tenant from the log. response, when set, picks among calls
// of several responses. It returns an error wrapping ErrNotFound when no
// call has id, and an *AmbiguousError (ErrAmbiguous) when id names calls
// of several responses and response does not pick one.
func Call(ctx context.Context, b *bus.Bus, tenant, id, response string) (*Trace, error) {
	callSubj, err := events.TenantFilter("call", tenant)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	calls, err := readEntries(ctx, b, []string{callSubj})
	if err != nil {
		return nil, err
	}
	type ident struct{ resp, item string }
	var found []ident
	var decision *logEntry
	seen := map[ident]bool{}
	pick := func(e logEntry) bool {
		ev := e.Ev
		return (ev.CallID == id || ev.Item == id) && (response == "" || ev.Response == response)
	}
	for i, e := range calls {
		switch e.Ev.Body.(type) {
		case *events.CallCompleted, *events.CallRejected, *events.CallIncomplete:
		default:
			continue
		}
		if !pick(e) {
			continue
		}
		k := ident{e.Ev.Response, e.Ev.Item}
		if !seen[k] {
			seen[k] = true
			found = append(found, k)
		}
		if decision == nil {
			decision = &calls[i]
		}
	}
	var model []logEntry
	if len(found) == 0 {
		// Not decided yet: look for the call among the model events.
		modelSubj, _ := events.TenantFilter("model", tenant)
		all, err := readEntries(ctx, b, []string{modelSubj})
		if err != nil {
			return nil, err
		}
		for _, e := range all {
			if a, ok := events.As[*events.OutputItemAdded](e.Ev); ok && a.Type == events.ItemFunctionCall && pick(e) {
				k := ident{e.Ev.Response, e.Ev.Item}
				if !seen[k] {
					seen[k] = true
					found = append(found, k)
				}
			}
		}
	}
	switch {
	case len(found) == 0:
		return nil, fmt.Errorf("%w: tenant %s has no call or item %q", ErrNotFound, tenant, id)
	case len(found) > 1:
		var names []string
		for _, f := range found {
			names = append(names, f.resp+"/"+f.item)
		}
		return nil, &AmbiguousError{ID: id, Tenant: tenant, Calls: names}
	}
	tr := &Trace{Tenant: tenant, Response: found[0].resp, Item: found[0].item, Outcome: "open"}

	// The model events of the call's response: the item's own, and the
	// response-level ones (item "").
	respSubj, err := events.ModelResponseFilter(tenant, tr.Response)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if model, err = readEntries(ctx, b, []string{respSubj}); err != nil {
		return nil, err
	}
	var steps []Step
	looked := false // for the gateway's record, once
	for _, e := range model {
		if !looked && e.Ev.Response == tr.Response {
			looked = true
			tr.Served = servedBy(ctx, b, tenant, e.Ev.User, tr.Response)
		}
		if e.Ev.Item != tr.Item && e.Ev.Item != "" {
			continue
		}
		if e.Ev.Item == tr.Item && tr.CallID == "" {
			tr.CallID = e.Ev.CallID
		}
		steps = append(steps, modelStep(e))
	}

	if decision != nil {
		ev := decision.Ev
		if tr.CallID == "" {
			tr.CallID = ev.CallID
		}
		st := Step{Seq: decision.Seq, Stored: decision.Stored, At: ev.Time(), Stage: "call", Kind: string(ev.Kind)}
		var from events.Provenance
		switch body := ev.Body.(type) {
		case *events.CallCompleted:
			tr.Outcome, tr.Tool, from = "completed", body.Name, body.From
			st.What = fmt.Sprintf("completed %s: validated; arguments %s", body.Name, clip(string(body.Arguments), 200))
			if len(body.Coerced) > 0 {
				st.What += "; coerced " + strings.Join(body.Coerced, ", ")
			}
			if len(body.DependsOn) > 0 {
				st.What += "; depends on " + strings.Join(body.DependsOn, ", ")
			}
			tr.Key = executor.CallKey(ev)
			if body.Builtin {
				st.What += "; a built-in tool: the run's driver performs it"
			}
			if body.Builtin && body.Name == events.ToolDelegate && ev.Run != "" {
				// The child run it starts: runs and trace of its calls
				// go on there.
				tr.Run, tr.ChildRun = ev.Run, events.ChildRunID(ev.Run, ev.CallID)
			}
		case *events.CallRejected:
			tr.Outcome, tr.Tool, tr.Reason, from = "rejected", body.Name, string(body.Reason), body.From
			st.What = fmt.Sprintf("rejected %s: %s", body.Name, body.Reason)
			if body.Detail != "" {
				st.What += " (" + body.Detail + ")"
			}
		case *events.CallIncomplete:
			tr.Outcome, tr.Tool, tr.Reason, from = "incomplete", body.Name, string(body.Reason), body.From
			st.What = fmt.Sprintf("incomplete %s: %s, %d partial bytes kept, never executed", body.Name, body.Reason, len(body.Partial))
		}
		tr.Built = &Built{FirstSeq: from.FirstSeq, LastSeq: from.LastSeq, Deltas: from.Deltas, Bytes: from.Bytes}
		for _, s := range steps {
			if s.Seq < from.FirstSeq || s.Seq > from.LastSeq {
				continue
			}
			if s.Raw != 0 {
				if tr.Built.RawFirst == 0 || s.Raw < tr.Built.RawFirst {
					tr.Built.RawFirst = s.Raw
				}
				tr.Built.RawLast = max(tr.Built.RawLast, s.Raw)
			}
			if p := s.RawPos; p != nil && *p != events.EdgeEnd {
				tr.Built.RawStream = s.RawStream
				if tr.Built.RawPosFirst == nil || *p < *tr.Built.RawPosFirst {
					tr.Built.RawPosFirst = p
				}
				if tr.Built.RawPosLast == nil || *p > *tr.Built.RawPosLast {
					tr.Built.RawPosLast = p
				}
			}
		}
		st.What += fmt.Sprintf("; built from %d deltas, %d bytes, model seq %d–%d", from.Deltas, from.Bytes, from.FirstSeq, from.LastSeq)
		for i := range steps {
			if steps[i].Stored.After(decision.Stored) && steps[i].Stage == "model" {
				steps[i].What += " (after the decision: changes nothing)"
			}
		}
		steps = append(steps, st)
	}

	if tr.Key != "" {
		var subjects []string
		for _, f := range []func(string, string) (string, error){events.ExecSubject, events.ApprovalSubject, events.ResultSubject, events.BuiltinResultSubject} {
			s, err := f(tenant, tr.Key)
			if err != nil {
				return nil, err
			}
			subjects = append(subjects, s)
		}
		exec, err := readEntries(ctx, b, subjects)
		if err != nil {
			return nil, err
		}
		var result *logEntry
		for i, e := range exec {
			st := Step{Seq: e.Seq, Stored: e.Stored, At: e.Ev.Time(), Kind: string(e.Ev.Kind)}
			switch body := e.Ev.Body.(type) {
			case *events.ExecutionStarted:
				st.Stage, st.What = "exec", fmt.Sprintf("attempt %d of %s v%d under a lease held by %s", body.Attempt, body.Name, body.Version, body.Executor)
				tr.Attempts = append(tr.Attempts, Attempt{Attempt: body.Attempt, Executor: body.Executor, Seq: e.Seq, Stored: e.Stored})
			case *events.ApprovalRequested:
				st.Stage, st.What = "exec", "approval requested: "+body.Name+" waits for a person"
				tr.Result = "awaiting_approval"
			case *events.ApprovalGranted:
				st.Stage, st.What = "approval", "approved"+byWhom(body.By, body.Reason)
			case *events.ApprovalDenied:
				st.Stage, st.What = "approval", "denied"+byWhom(body.By, body.Reason)
			case *events.CallSucceeded:
				st.Stage, st.What = "result", fmt.Sprintf("succeeded after %d attempt(s): %s", body.Attempts, clip(body.Summary, 200))
				if body.RawRef != "" {
					st.What += " (raw result: " + body.RawRef + ")"
				}
				tr.Result, result = "succeeded", &exec[i]
			case *events.CallFailed:
				st.Stage, st.What = "result", fmt.Sprintf("failed after %d attempt(s): %s: %s", body.Attempts, body.Error, clip(body.Message, 200))
				tr.Result, result = "failed", &exec[i]
			default:
				continue
			}
			steps = append(steps, st)
		}
		if s, err := executor.CallStatus(ctx, b.JS, "", tenant, tr.Key); err == nil && s != nil {
			tr.Record = s
		}
		if result != nil {
			if _, ok := result.Ev.Body.(*events.CallSucceeded); ok && tr.CallID != "" {
				vs, err := findVerdicts(ctx, b, tenant, result.Ev, result.Seq)
				if err != nil {
					return nil, err
				}
				for _, v := range vs {
					tr.Verdicts = append(tr.Verdicts, v.verdicts...)
					steps = append(steps, v.step)
				}
			}
		}
	}
	// Steps come from several streams of the log: their stream timestamps
	// order them.
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Stored.Before(steps[j].Stored) })
	tr.Steps = steps
	tr.Timings = measureTimings(steps)
	return tr, nil
}

func byWhom(by, reason string) string {
	s := ""
	if by != "" {
		s += " by " + by
	}
	if reason != "" {
		s += ": " + reason
	}
	return s
}

// modelStep describes one model event of the call's item or response.
func modelStep(e logEntry) Step {
	ev := e.Ev
	st := Step{Seq: e.Seq, Stored: e.Stored, At: ev.Time(), Stage: "model", Kind: string(ev.Kind), Raw: rawSeqOf(ev.ID)}
	if _, stream, pos, _, ok := events.SplitEdgeEventID(ev.ID); ok {
		st.RawPos, st.RawStream = &pos, stream
	}
	switch b := ev.Body.(type) {
	case *events.ResponseStarted:
		st.What = "response started"
		if who := strings.TrimSpace(b.Provider + " " + b.Model); who != "" {
			st.What += " (" + who + ")"
		}
	case *events.OutputItemAdded:
		st.What = fmt.Sprintf("item opened: %s %s, provider index %d", b.Type, b.Name, b.Index)
		if b.HasArguments {
			st.Bytes = len(b.Arguments)
			st.What += fmt.Sprintf(", with %d argument bytes", st.Bytes)
		}
	case *events.ArgumentsDelta:
		st.Bytes = len(b.Delta)
		st.What = fmt.Sprintf("argument delta, %d bytes", st.Bytes)
	case *events.ArgumentsDone:
		st.What = "arguments done: the protocol's completion signal"
		if b.HasArguments {
			st.What += fmt.Sprintf(" (full arguments, %d bytes)", len(b.Arguments))
		}
	case *events.OutputItemDone:
		st.What = "item done"
		if b.Status != "" {
			st.What += ": " + b.Status
		}
	case *events.ItemAborted:
		st.What = "item aborted: " + string(b.Reason)
	case *events.TextDelta:
		st.Bytes = len(b.Text)
		st.What = fmt.Sprintf("text delta, %d bytes", st.Bytes)
	case *events.ResponseCompleted:
		st.What = "response completed"
		if b.StopReason != "" {
			st.What += ": " + b.StopReason
		}
	case *events.ResponseIncomplete:
		st.What = "response incomplete: " + string(b.Reason)
	case *events.ResponseFailed:
		st.What = "response failed: " + b.Code + " " + b.Message
	default:
		st.What = string(ev.Kind)
	}
	return st
}

// rawSeqOf returns the raw event's sequence in an ingest-made model event
// id (events.ModelEventID), else 0.
func rawSeqOf(id string) uint64 {
	_, _, seq, _, ok := events.SplitModelEventID(id)
	if !ok {
		return 0
	}
	return seq
}

type verdictStep struct {
	step     Step
	verdicts []Verdict
}

// findVerdicts finds the AnswerVerified events after the result whose
// claims cite the result's call as evidence, in the result's scope (the
// verifier's: same run, else same session, else the tenant's unscoped).
func findVerdicts(ctx context.Context, b *bus.Bus, tenant string, result *events.Event, after uint64) ([]verdictStep, error) {
	subj, _ := events.TenantFilter("answer", tenant)
	answers, err := readEntries(ctx, b, []string{subj})
	if err != nil {
		return nil, err
	}
	var out []verdictStep
	for _, e := range answers {
		av, ok := events.As[*events.AnswerVerified](e.Ev)
		if !ok || e.Seq < after || !sameScope(result, e.Ev) {
			continue
		}
		var vs []Verdict
		count := map[events.Verdict]int{}
		for _, c := range av.Claims {
			for _, ref := range c.Evidence {
				if ref.CallID != result.CallID {
					continue
				}
				vs = append(vs, Verdict{Response: e.Ev.Response, Seq: e.Seq, Claim: c.Text, Verdict: string(c.Verdict), Pointer: ref.Pointer, Value: ref.Value})
				count[c.Verdict]++
				break
			}
		}
		if len(vs) == 0 {
			continue
		}
		var parts []string
		for _, v := range []events.Verdict{events.VerdictSupported, events.VerdictContradicted, events.VerdictUnsupported, events.VerdictNotCheckable} {
			if count[v] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", count[v], v))
			}
		}
		what := fmt.Sprintf("answer of %s: %d claim(s) cite this result (%s); faithfulness %.2f", e.Ev.Response, len(vs), strings.Join(parts, ", "), av.Faithfulness)
		for _, v := range vs {
			what += fmt.Sprintf("\n%s %q ← %s = %s", v.Verdict, clip(v.Claim, 80), v.Pointer, clip(v.Value, 40))
		}
		out = append(out, verdictStep{step: Step{Seq: e.Seq, Stored: e.Stored, At: e.Ev.Time(), Stage: "verdict", Kind: string(e.Ev.Kind), What: what}, verdicts: vs})
	}
	return out, nil
}

func sameScope(result, answer *events.Event) bool {
	switch {
	case result.Run != "":
		return answer.Run == result.Run
	case result.Session != "":
		return answer.Run == "" && answer.Session == result.Session
	}
	return answer.Run == "" && answer.Session == ""
}

// measureTimings measures the path between the milestones present: the item
// opened, the completion signal, the decision, the first attempt, the
// approval, the result, the first verdict.
func measureTimings(steps []Step) []Timing {
	type mark struct {
		name string
		st   Step
	}
	var marks []mark
	have := map[string]bool{}
	add := func(name string, st Step) {
		if !have[name] {
			have[name] = true
			marks = append(marks, mark{name, st})
		}
	}
	for _, st := range steps {
		switch events.Kind(st.Kind) {
		case events.KindOutputItemAdded:
			add("item opened", st)
		case events.KindArgumentsDone, events.KindOutputItemDone:
			add("completion signal", st)
		case events.KindCallCompleted, events.KindCallRejected, events.KindCallIncomplete:
			add("decided", st)
		case events.KindApprovalRequested:
			add("approval requested", st)
		case events.KindApprovalGranted, events.KindApprovalDenied:
			add("approval decided", st)
		case events.KindExecutionStarted:
			add("first attempt", st)
		case events.KindCallSucceeded, events.KindCallFailed:
			add("result", st)
		case events.KindAnswerVerified:
			add("verified", st)
		}
	}
	var out []Timing
	for i := 1; i < len(marks); i++ {
		a, b := marks[i-1], marks[i]
		out = append(out, Timing{From: a.name, To: b.name, Stream: b.st.Stored.Sub(a.st.Stored), Event: b.st.At.Sub(a.st.At)})
	}
	if len(marks) > 2 {
		a, b := marks[0], marks[len(marks)-1]
		out = append(out, Timing{From: a.name, To: b.name, Stream: b.st.Stored.Sub(a.st.Stored), Event: b.st.At.Sub(a.st.At)})
	}
	return out
}

// WriteText prints the trace for people: a header, the steps (runs of
// argument deltas folded into one line), the timings.
func (tr *Trace) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "call %s (tenant %s)\n", orDash(tr.CallID), tr.Tenant)
	fmt.Fprintf(w, "  response %s, item %s, tool %s\n", tr.Response, tr.Item, orDash(tr.Tool))
	outcome := tr.Outcome
	if tr.Reason != "" {
		outcome += " (" + tr.Reason + ")"
	}
	if tr.Result != "" {
		outcome += " → " + tr.Result
	}
	fmt.Fprintf(w, "  outcome: %s\n", outcome)
	if tr.Built != nil {
		fmt.Fprintf(w, "  built from %d argument deltas, %d bytes, model seq %d–%d", tr.Built.Deltas, tr.Built.Bytes, tr.Built.FirstSeq, tr.Built.LastSeq)
		if tr.Built.RawFirst != 0 {
			fmt.Fprintf(w, ", normalised from raw provider events seq %d–%d", tr.Built.RawFirst, tr.Built.RawLast)
		}
		if tr.Built.RawPosFirst != nil {
			fmt.Fprintf(w, ", normalised by the producer from raw events %d–%d of its stream %s", *tr.Built.RawPosFirst, *tr.Built.RawPosLast, tr.Built.RawStream)
		}
		fmt.Fprintln(w)
	}
	if sv := tr.Served; sv != nil && sv.Upstream != "" {
		fmt.Fprintf(w, "  through the gateway (%s): served by upstream %s, attempt %d\n", sv.API, sv.Upstream, sv.Attempts)
	}
	if sv := tr.Served; sv != nil && sv.Prompt != nil {
		p := sv.Prompt
		text := string(p.JSON)
		if len(text) > promptTextMax {
			text = strings.ToValidUTF8(text[:promptTextMax], "") + "… (--json has it whole)"
		}
		note := ""
		if p.Truncated {
			note = ", kept without " + strings.Join(p.Left, ", ")
		}
		fmt.Fprintf(w, "  prompt (gateway seq %d, %d bytes%s): %s\n", p.Seq, p.Bytes, note, text)
	}
	if tr.Key != "" {
		fmt.Fprintf(w, "  idempotency key %s\n", tr.Key)
	}
	if tr.ChildRun != "" {
		fmt.Fprintf(w, "  delegates: run %s starts child run %s\n", tr.Run, tr.ChildRun)
	}
	if len(tr.Attempts) > 0 {
		var hs []string
		for _, a := range tr.Attempts {
			hs = append(hs, fmt.Sprintf("#%d %s", a.Attempt, a.Executor))
		}
		fmt.Fprintf(w, "  attempts and lease holders: %s\n", strings.Join(hs, ", "))
	}
	if r := tr.Record; r != nil {
		fmt.Fprintf(w, "  executor record: %s, %d attempt(s), %d takeover(s)", r.State, r.Attempts, r.Takeovers)
		if r.Owner != "" {
			fmt.Fprintf(w, ", lease held by %s", r.Owner)
		}
		fmt.Fprintln(w)
	}
	if len(tr.Verdicts) > 0 {
		fmt.Fprintf(w, "  used as evidence by %d claim(s)\n", len(tr.Verdicts))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "seq\tstored (UTC)\t+prev\tstage\tevent")
	var prev time.Time
	line := func(seq string, stored time.Time, stage, what string) {
		d := "—"
		if !prev.IsZero() {
			d = "+" + fmtDur(stored.Sub(prev))
		}
		prev = stored
		lines := strings.Split(what, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", seq, stored.Format("15:04:05.000000"), d, stage, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(tw, "\t\t\t\t  %s\n", l)
		}
	}
	for i := 0; i < len(tr.Steps); i++ {
		st := tr.Steps[i]
		if events.Kind(st.Kind) == events.KindArgumentsDelta {
			j, bytes := i, 0
			for ; j < len(tr.Steps) && events.Kind(tr.Steps[j].Kind) == events.KindArgumentsDelta; j++ {
				bytes += tr.Steps[j].Bytes
			}
			if n := j - i; n > 1 {
				last := tr.Steps[j-1]
				what := fmt.Sprintf("%d argument deltas, %d bytes", n, bytes)
				if strings.HasSuffix(last.What, ")") && strings.Contains(last.What, "after the decision") {
					what += " (after the decision: changes nothing)"
				}
				line(fmt.Sprintf("%d–%d", st.Seq, last.Seq), last.Stored, st.Stage, what)
				i = j - 1
				continue
			}
		}
		what := st.What
		if st.Raw != 0 {
			what += fmt.Sprintf(" [raw seq %d]", st.Raw)
		}
		switch {
		case st.RawPos != nil && *st.RawPos == events.EdgeEnd:
			what += fmt.Sprintf(" [implied by the end of %s, after its last raw event]", st.RawStream)
		case st.RawPos != nil:
			what += fmt.Sprintf(" [raw event %d of %s]", *st.RawPos, st.RawStream)
		}
		line(strconv.FormatUint(st.Seq, 10), st.Stored, st.Stage, what)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(tr.Timings) > 0 {
		fmt.Fprintln(w, "\ntimings                                       stream time   event time")
		for _, t := range tr.Timings {
			fmt.Fprintf(w, "  %-42s  %11s  %11s\n", t.From+" → "+t.To, fmtDur(t.Stream), fmtDur(t.Event))
		}
	}
	return nil
}

func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + fmtDur(-d)
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return d.Round(time.Millisecond).String()
}

func clip(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
