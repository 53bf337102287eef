package client

import (
	"context"
	"iter"

	"github.com/toolstream/toolstream/events"
)

// AllTenants, as the tenant of Activity, reads every tenant's events:
// what an identity that reads the whole log (the operator, the admin)
// may do, as the console does.
const AllTenants = "*"

// Response is how the assembler closed a model response (ts.resp).
type Response struct {
	Meta
	Status events.ResponseStatus
	// Reason: why it did not complete; for a failed response, the
	// provider's error code (stream_failed when it gave none).
	Reason events.Reason
	// Error is the provider's message of a failed response.
	Error string
	Calls int // the calls it made
	// Text is its display text: the final answer (completed without
	// calls), or what the model wrote before its calls.
	Text     string
	Provider string // the format it was normalised from, when known
	Usage    events.Usage
}

// Execution is an executor starting an attempt at a call (ts.exec).
type Execution struct {
	Meta
	Tool     string
	Attempt  int
	Executor string
	Key      string // the call's idempotency key
}

// Decision is a call's approval decided: approved, or denied with a
// reason (ts.approval).
type Decision struct {
	Meta
	Approved bool
	By       string
	Reason   string
}

// Answer is a final answer submitted for verification (ts.answer).
type Answer struct {
	Meta
	Text string
}

// Activity is one event of the lives of a tenant's calls and answers:
// exactly one of its fields is set.
type Activity struct {
	Call      *Call      // the assembler decided a call
	Response  *Response  // the assembler closed a response
	Approval  *Approval  // a call asks for approval
	Decision  *Decision  // a call's approval was decided
	Execution *Execution // an executor started an attempt
	Result    *Result    // a call's execution ended
	Answer    *Answer    // an answer was submitted for verification
	Verdict   *Verdict   // the verifier or a judge spoke of an answer
}

// Meta is where the activity's event is in the log and its envelope.
func (a Activity) Meta() Meta {
	switch {
	case a.Call != nil:
		return a.Call.Meta
	case a.Response != nil:
		return a.Response.Meta
	case a.Approval != nil:
		return a.Approval.Meta
	case a.Decision != nil:
		return a.Decision.Meta
	case a.Execution != nil:
		return a.Execution.Meta
	case a.Result != nil:
		return a.Result.Meta
	case a.Answer != nil:
		return a.Answer.Meta
	case a.Verdict != nil:
		return a.Verdict.Meta
	}
	return Meta{}
}

// Kind is a family of the log's subjects Activity reads.
type Kind string

// The kinds of Activity.
const (
	KindCalls      Kind = "call"     // Call
	KindResponses  Kind = "resp"     // Response
	KindExecutions Kind = "exec"     // Approval, Execution
	KindDecisions  Kind = "approval" // Decision
	KindResults    Kind = "result"   // Result
	KindAnswers    Kind = "answer"   // Answer, Verdict
)

// AllKinds are every kind of Activity.
var AllKinds = []Kind{KindCalls, KindResponses, KindExecutions, KindDecisions, KindResults, KindAnswers}

// Activity iterates over the events of tenant's calls and answers of the
// kinds asked (none: AllKinds) as typed values: tenant may be AllTenants.
// The kinds lie in several streams of the log; each is read with its own
// position (Meta.Stream and Meta.Seq; resume with one AfterIn per stream,
// After is refused for more than one). Without Follow the streams are
// read one after another, in the log's order; with it they are followed
// at once and their events interleave as they arrive (each stream's order
// holds). Acknowledgement and errors as Calls.
func (c *Client) Activity(ctx context.Context, tenant string, kinds []Kind, opts ...ReadOption) iter.Seq2[Activity, error] {
	if len(kinds) == 0 {
		kinds = AllKinds
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return readKinds(ctx, c, names, tenant, opts, activityOf)
}

// activityOf is the typed value of an event of Activity's kinds.
func activityOf(ev *events.Event, m Meta) (Activity, bool) {
	switch b := ev.Body.(type) {
	case *events.CallCompleted, *events.CallRejected, *events.CallIncomplete:
		call, ok := callOf(ev, m)
		return Activity{Call: &call}, ok
	case *events.CallSucceeded, *events.CallFailed:
		r, ok := resultOf(ev, m)
		return Activity{Result: &r}, ok
	case *events.AnswerVerified, *events.JudgeVerdict:
		v, ok := verdictOf(ev, m)
		return Activity{Verdict: &v}, ok
	case *events.ResponseOutcome:
		r := Response{Meta: m, Status: b.Status, Reason: b.Reason, Calls: b.Calls, Text: b.Text, Provider: b.Provider, Usage: b.Usage}
		if b.Status == events.StatusFailed {
			r.Reason, r.Error = events.Reason(b.ErrorCode), b.ErrorMessage
			if r.Reason == "" {
				r.Reason = events.ReasonStreamFailed
			}
		}
		return Activity{Response: &r}, true
	case *events.ApprovalRequested:
		return Activity{Approval: &Approval{Meta: m, Tool: b.Name, Arguments: b.Arguments, Key: b.Key}}, true
	case *events.ApprovalGranted:
		return Activity{Decision: &Decision{Meta: m, Approved: true, By: b.By, Reason: b.Reason}}, true
	case *events.ApprovalDenied:
		return Activity{Decision: &Decision{Meta: m, By: b.By, Reason: b.Reason}}, true
	case *events.ExecutionStarted:
		return Activity{Execution: &Execution{Meta: m, Tool: b.Name, Attempt: b.Attempt, Executor: b.Executor, Key: b.Key}}, true
	case *events.AnswerSubmitted:
		return Activity{Answer: &Answer{Meta: m, Text: b.Text}}, true
	}
	return Activity{}, false
}
