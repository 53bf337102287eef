package events

import "strconv"

// Run events: the loop back to the model (package runs). They live on
// RunSubject(tenant, run), in TS_OUT beside the results they are made of,
// and carry the run's identities in the envelope (a response with no run
// is its own run: Run is then the response id).

const (
	// KindRunCall copies what the assembler and the executor's approvals
	// said about one call into the run's stream: the calls are decided in
	// TS_CALLS, the results land in TS_OUT, and a projection reads one
	// stream.
	KindRunCall Kind = "run.call"
	// KindRoundSettled: every call of a round has a terminal outcome (or
	// the round's response ended without calls).
	KindRoundSettled Kind = "run.round_settled"
	// KindRunDegraded: too many calls failed in a row; the next request
	// should let the model answer without tools.
	KindRunDegraded Kind = "run.degraded"
	// KindReplanSuggested: the run should change its plan (Reason says why).
	KindReplanSuggested Kind = "run.replan_suggested"
	// KindPlanWritten: a driver wrote the run's plan, against the version
	// it read.
	KindPlanWritten Kind = "run.plan_written"
	// KindRunMessage: a driver's input turn (the user's message).
	KindRunMessage Kind = "run.message"
	// KindRunEnded: the run's driver stopped driving it short of an
	// answer (failed, cancelled), and why; the run's next input turn opens
	// it again.
	KindRunEnded Kind = "run.ended"
)

// CallVerdict says what a RunCall records.
type CallVerdict string

const (
	CallVerdictCompleted  CallVerdict = "completed"  // CallCompleted: the executor takes it
	CallVerdictRejected   CallVerdict = "rejected"   // CallRejected: never runs
	CallVerdictIncomplete CallVerdict = "incomplete" // CallIncomplete: never runs
	CallVerdictApproval   CallVerdict = "approval"   // ApprovalRequested: waits for a person
	CallVerdictApproved   CallVerdict = "approved"   // ApprovalGranted: runs now
)

// RunCall is one call's decision as the round sees it. The envelope is the
// call's (Response, Item, CallID); Key is its idempotency key when the
// executor named it (approvals).
type RunCall struct {
	Verdict   CallVerdict `msgpack:"v"`
	Name      string      `msgpack:"n,omitempty"`
	Order     int         `msgpack:"o,omitempty"`
	Reason    Reason      `msgpack:"r,omitempty"`
	Detail    string      `msgpack:"d,omitempty"`
	Arguments []byte      `msgpack:"a,omitempty"`  // canonical (completed) or as received (rejected)
	Bytes     int         `msgpack:"nb,omitempty"` // argument bytes received (incomplete: where they were cut)
	DependsOn []string    `msgpack:"do,omitempty"`
	Key       string      `msgpack:"k,omitempty"`
	// ClientRuns: a completed call its client runs itself
	// (CallCompleted.ClientRuns): no result will come from an executor.
	ClientRuns bool `msgpack:"cr,omitempty"`
	// Builtin: a completed call of a built-in tool (CallCompleted.Builtin):
	// its outcome comes from the run's driver, under Key.
	Builtin bool `msgpack:"bi,omitempty"`
}

// CallOutcome is a call's terminal outcome in a settled round.
type CallOutcome string

const (
	OutcomeSucceeded  CallOutcome = "succeeded"
	OutcomeFailed     CallOutcome = "failed"
	OutcomeRejected   CallOutcome = "rejected"
	OutcomeIncomplete CallOutcome = "incomplete"
	OutcomeDenied     CallOutcome = "denied"
	OutcomeUnknown    CallOutcome = "outcome_unknown"
	OutcomeClient     CallOutcome = "run_by_client" // the client ran it (RunCall.ClientRuns)
)

// SettledCall is one call of a settled round.
type SettledCall struct {
	CallID  string      `msgpack:"c,omitempty"`
	Item    string      `msgpack:"i,omitempty"`
	Name    string      `msgpack:"n"`
	Outcome CallOutcome `msgpack:"o"`
	Error   string      `msgpack:"e,omitempty"` // the reason or error type of a call that did not succeed
}

// RoundStatus is how a round ended.
type RoundStatus string

const (
	RoundCalled   RoundStatus = "called"   // calls made, every one has its outcome: ask the model again
	RoundAnswered RoundStatus = "answered" // the model answered without calls
	RoundFailed   RoundStatus = "failed"   // the response failed or was cut without calls
)

// RoundSettled carries the tool-result messages of a round for the next
// request, in the provider's own shape (Format: openai-chat,
// openai-responses, anthropic, gemini): Messages is a JSON array of the
// messages (Chat, Anthropic), input items (Responses) or contents (Gemini)
// to append after the model's own turn.
type RoundSettled struct {
	Round    int           `msgpack:"n"`
	Status   RoundStatus   `msgpack:"s"`
	Format   string        `msgpack:"f,omitempty"`
	Messages []byte        `msgpack:"m,omitempty"`
	Calls    []SettledCall `msgpack:"cl,omitempty"`
	Version  uint64        `msgpack:"ver"` // the run's version once settled
}

// RunDegraded says FailuresInRow calls failed or were rejected in a row
// (Threshold is the policy's number).
type RunDegraded struct {
	Round         int    `msgpack:"n"`
	FailuresInRow int    `msgpack:"f"`
	Threshold     int    `msgpack:"th"`
	Detail        string `msgpack:"d,omitempty"`
}

// ReplanReason says why a replan is suggested.
type ReplanReason string

const (
	ReplanNoNewEvidence  ReplanReason = "no_new_evidence"        // rounds brought no evidence not seen before
	ReplanDependencyDown ReplanReason = "dependency_unavailable" // circuit open, tool missing
	ReplanBudgetShort    ReplanReason = "budget_short"           // one round or less left
	ReplanContradiction  ReplanReason = "contradiction"          // a result contradicts the plan's assumption
)

// ReplanSuggested suggests the driver change its plan.
type ReplanSuggested struct {
	Round  int          `msgpack:"n"`
	Reason ReplanReason `msgpack:"r"`
	Detail string       `msgpack:"d,omitempty"`
}

// PlanWritten is a driver's plan for the run (JSON), written against the
// run version Expected it read; the runs projection refuses it when the
// run is at another version.
type PlanWritten struct {
	Expected uint64 `msgpack:"x"`
	Plan     []byte `msgpack:"p"`
	By       string `msgpack:"by,omitempty"`
}

// RunMessage is an input turn of the run (Role user). Format, when the
// driver gives it, is the provider shape it speaks (openai-chat,
// openai-responses, anthropic, gemini).
type RunMessage struct {
	Role   string `msgpack:"ro"`
	Text   string `msgpack:"x"`
	Format string `msgpack:"f,omitempty"`
	// Parent is the run whose delegate call started this one (a child
	// run's first message names it).
	Parent string `msgpack:"pa,omitempty"`
}

func (*RunCall) Kind() Kind         { return KindRunCall }
func (*RoundSettled) Kind() Kind    { return KindRoundSettled }
func (*RunDegraded) Kind() Kind     { return KindRunDegraded }
func (*ReplanSuggested) Kind() Kind { return KindReplanSuggested }
func (*PlanWritten) Kind() Kind     { return KindPlanWritten }
func (*RunMessage) Kind() Kind      { return KindRunMessage }
func (*RunEnded) Kind() Kind        { return KindRunEnded }

// RunEnded says the run's driver stopped short of an answer: Status is
// "failed" (the upstream failed, a budget of rounds, tokens or replans ran
// out, the response failed) or "cancelled" (the client went away and asked
// the run to end with it); Reason and Detail say why, as the gateway told
// its client. Only the driver holding the run's lease writes it (the runs
// service checks the lease's driver and epoch).
type RunEnded struct {
	Status string `msgpack:"s"`
	Reason string `msgpack:"r,omitempty"`
	Detail string `msgpack:"d,omitempty"`
	Driver string `msgpack:"dr,omitempty"`
}

// RunSubject is where the events of one run live: ts.run.<tenant>.<run>.
func RunSubject(tenant, run string) (string, error) { return subject("run", tenant, run) }

// RunOf is the run an event belongs to: its Run, or its Response when it
// names no run (a response with no run is its own run).
func RunOf(ev *Event) string {
	if ev.Run != "" {
		return ev.Run
	}
	return ev.Response
}

// RunCallID names the copy of one decision about a call (what: the
// verdict) into its run's stream, by the call's identity (tenant,
// response, item) — or, for approvals, by its idempotency key in item.
func RunCallID(tenant, response, item string, what CallVerdict) string {
	return id("runcall", tenant, response, item, string(what))
}

// RoundSettledID names the settling of the round of response in run.
func RoundSettledID(tenant, run, response string) string {
	return id("settled", tenant, run, response)
}

// RunDegradedID names a run's degradation at round n.
func RunDegradedID(tenant, run string, n int) string {
	return id("degraded", tenant, run, strconv.Itoa(n))
}

// ReplanID names a replan suggestion for reason at round n.
func ReplanID(tenant, run string, n int, reason ReplanReason) string {
	return id("replan", tenant, run, strconv.Itoa(n), string(reason))
}

// PlanWriteID names a plan write against version expected whose content
// hashes to digest (a retried write is the same write).
func PlanWriteID(tenant, run string, expected uint64, digest string) string {
	return id("plan", tenant, run, strconv.FormatUint(expected, 10), digest)
}

// RunMessageID names a driver's message msg (its own id) in run.
func RunMessageID(tenant, run, msg string) string { return id("runmsg", tenant, run, msg) }
