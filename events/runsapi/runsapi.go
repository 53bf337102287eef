// Package runsapi holds the messages of the runs service
// (tsv.runs.<verb>.<tenant>, served by the runs projection): the requests
// a client sends and what it gets back, a run, its rounds and calls, its
// history in a provider's shape and a driver's lease, as plain structs
// with their JSON names (and, for what the runs view stores, its msgpack
// names). A program that asks about runs through a running server
// (package client) links this and package events, not the projection or
// its storage; the runs package declares its names for these types from
// here, so the service and its clients speak one definition.
package runsapi

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/toolstream/toolstream/events"
)

// ServicePrefix is the subject prefix of the runs service's endpoints:
// tsv.runs.<verb>.<tenant>, verb one of get, list, rounds, history, plan,
// message, lease, renew, release, end. The tenant is the subject's last token,
// never the request's, so a producer allowed tsv.runs.*.<its tenant> asks
// about its own runs only. Requests and replies are JSON (Request).
const ServicePrefix = "tsv.runs"

// Verbs are the service's endpoints.
var Verbs = []string{"get", "list", "rounds", "history", "plan", "message", "lease", "renew", "release", "end"}

// LeaseVerbs are the endpoints of a run's lease, of Verbs: whoever drives a
// run takes, renews and releases it, and records that it stopped driving
// it short of an answer (end, under the lease it holds) — the runs and
// driver roles, never a tenant's producer (docs/security.md).
var LeaseVerbs = []string{"lease", "renew", "release", "end"}

// ServiceSubject is the subject of verb for tenant.
func ServiceSubject(verb, tenant string) string { return ServicePrefix + "." + verb + "." + tenant }

// Request is a request to the runs service; each verb reads the fields it
// needs.
type Request struct {
	Run string `json:"run,omitempty"`
	// rounds and history: only the run's entries at turn From and after
	// (0: all). A history from a turn is every entry verbatim (a budget is
	// refused: compaction needs the whole run); its Through says where the
	// next one begins. A driver that keeps what it read asks from there, so
	// a round costs the same at the run's 50th round as at its first.
	From int `json:"from,omitempty"`
	// get, list, rounds and history: answer once the view has applied
	// every message of the tenant's on its subjects that the log held when
	// the request came (another tenant's backlog is not waited for). For a reader that acts on what the view lacks (a driver that
	// would ask the model for a round the view does not show): a view
	// restarted from its checkpoint may be behind what it answered before,
	// its last commits lost with its process.
	Current bool `json:"current,omitempty"`
	// history
	HistoryOptions
	// plan: the plan (a JSON object) and the run version it was made from.
	Plan            json.RawMessage `json:"plan,omitempty"`
	ExpectedVersion uint64          `json:"expected_version,omitempty"`
	By              string          `json:"by,omitempty"`
	// message: the user's text, its id (a retry gives the same) and format.
	ID   string `json:"id,omitempty"`
	Text string `json:"text,omitempty"`
	// lease, renew, release
	Driver   string `json:"driver,omitempty"`
	Epoch    uint64 `json:"epoch,omitempty"`
	Revision uint64 `json:"revision,omitempty"`
	User     string `json:"user,omitempty"`
	// message: the run whose delegate call started this one (its first
	// message names it; the view links both runs).
	Parent string `json:"parent,omitempty"`
	// end: how the driver stopped (failed or cancelled) and why; Driver
	// and Epoch name the lease it holds.
	Status Status `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// WriteReply answers plan and message.
type WriteReply struct {
	Seq     uint64 `json:"seq"`
	Applied bool   `json:"applied"`
	// Reason is why a plan write was refused: stale_version (Version is
	// the run's current version: read it again), invalid_plan.
	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Version uint64 `json:"version"`
}

// LeaseReply answers lease and renew: the lease and, for lease, the run
// as the new driver takes it over (its last settled round).
type LeaseReply struct {
	Lease Lease `json:"lease"`
	Run   *Run  `json:"run,omitempty"`
}

// Status is a run's state as its driver acts on it.
type Status string

const (
	// StatusRunning: a round is open (the model is streaming, or calls
	// run), or the run has input and no round yet.
	StatusRunning Status = "running"
	// StatusWaitingApproval: the open round waits for a person's approval
	// of one of its calls; the round stays open until it is decided.
	StatusWaitingApproval Status = "waiting_approval"
	// StatusSettled: every call of the last round has its outcome; ask the
	// model again with the round's tool results.
	StatusSettled Status = "settled"
	// StatusAnswered: the model answered without calls.
	StatusAnswered Status = "answered"
	// StatusDegraded: settled, but too many calls failed in a row: the next
	// request should let the model answer without tools.
	StatusDegraded Status = "degraded"
	// StatusFailed: the last response failed or was cut without calls, or
	// the driver stopped the run short of an answer (Ended says why).
	StatusFailed Status = "failed"
	// StatusCancelled: the driver ended the run at its client's request
	// (the client went away with Toolstream-On-Disconnect: cancel).
	StatusCancelled Status = "cancelled"
)

// CallState is where one call of a round is.
type CallState string

const (
	CallPending    CallState = "pending"          // a result came before the call's decision
	CallRunning    CallState = "running"          // completed by the assembler; the executor has it
	CallWaiting    CallState = "waiting_approval" // waits for a person
	CallSucceeded  CallState = "succeeded"
	CallFailed     CallState = "failed"
	CallRejected   CallState = "rejected"
	CallIncomplete CallState = "incomplete"
	CallDenied     CallState = "denied"
	CallUnknown    CallState = "outcome_unknown"
	// CallClient: the client runs it itself (the gateway's passthrough);
	// its result is the client's, not in the log.
	CallClient CallState = "run_by_client"
)

// Run is one run of a tenant: its state, version and counters.
type Run struct {
	Tenant  string `msgpack:"t" json:"tenant"`
	ID      string `msgpack:"id" json:"run"`
	Status  Status `msgpack:"s" json:"status"`
	Version uint64 `msgpack:"v" json:"version"`
	// Format is the provider shape of the run's messages (openai-chat,
	// openai-responses, anthropic, gemini): the last response's provider,
	// else what the driver said, else openai-chat.
	Format string `msgpack:"f,omitempty" json:"format,omitempty"`
	// Rounds is the rounds seen; Settled those that ended.
	Rounds  int `msgpack:"nr" json:"rounds"`
	Settled int `msgpack:"ns" json:"settled"`
	// OpenRounds counts rounds not settled yet; Last is how the last
	// settled round ended.
	OpenRounds int                `msgpack:"o,omitempty" json:"open_rounds,omitempty"`
	Last       events.RoundStatus `msgpack:"lr,omitempty" json:"last_round,omitempty"`
	Calls      int                `msgpack:"nc" json:"calls"`
	// FailuresInRow counts calls that failed or were rejected since the
	// last success, in call order; Failures all of them.
	FailuresInRow int `msgpack:"fr" json:"failures_in_row"`
	Failures      int `msgpack:"fa" json:"failures"`
	// NoNewEvidence counts settled rounds in a row whose calls and results
	// were all seen before in the run.
	NoNewEvidence int `msgpack:"ne" json:"rounds_without_new_evidence"`
	// InputTokens and OutputTokens add up the tokens the provider reported
	// for the run's responses (ResponseOutcome.Usage); a response whose
	// provider reported none adds nothing.
	InputTokens  int64 `msgpack:"ti,omitempty" json:"input_tokens,omitempty"`
	OutputTokens int64 `msgpack:"to,omitempty" json:"output_tokens,omitempty"`
	// Waiting counts calls of the open round waiting for approval.
	Waiting  int  `msgpack:"w,omitempty" json:"waiting_approval,omitempty"`
	Degraded bool `msgpack:"dg,omitempty" json:"degraded,omitempty"`
	// Plan is the driver's plan (JSON), PlanVersion the run version that
	// wrote it.
	Plan        json.RawMessage `msgpack:"pl,omitempty" json:"plan,omitempty"`
	PlanVersion uint64          `msgpack:"pv,omitempty" json:"plan_version,omitempty"`
	// Accepted are the plan's steps whose evidence arrived.
	Accepted []string `msgpack:"acc,omitempty" json:"accepted_steps,omitempty"`
	// Parent is the run whose delegate call started this one; Children
	// the runs this one's delegate calls started, in order.
	Parent   string   `msgpack:"pa,omitempty" json:"parent,omitempty"`
	Children []string `msgpack:"ch,omitempty" json:"children,omitempty"`
	// Turns numbers the run's history entries: input messages and rounds;
	// LastInput is the turn of the last input message (0: none).
	Turns     int    `msgpack:"nt" json:"turns"`
	LastInput int    `msgpack:"li,omitempty" json:"last_input,omitempty"`
	User      string `msgpack:"u,omitempty" json:"user,omitempty"`
	Session   string `msgpack:"ss,omitempty" json:"session,omitempty"`
	FirstAt   int64  `msgpack:"fa0" json:"first_at"`
	LastAt    int64  `msgpack:"la" json:"last_at"`
	LastSeq   uint64 `msgpack:"ls" json:"last_seq"`
	// Ended is how the driver stopped the run short of an answer (failed,
	// cancelled; run.ended), EndReason and EndDetail why; the run's next
	// input turn clears them.
	Ended     Status `msgpack:"en,omitempty" json:"ended,omitempty"`
	EndReason string `msgpack:"er,omitempty" json:"end_reason,omitempty"`
	EndDetail string `msgpack:"ed,omitempty" json:"end_detail,omitempty"`
}

// Call is one call of a round.
type Call struct {
	Item      string        `msgpack:"i" json:"item"`
	CallID    string        `msgpack:"c,omitempty" json:"call_id,omitempty"`
	Name      string        `msgpack:"n,omitempty" json:"name"`
	Order     int           `msgpack:"o" json:"order"`
	State     CallState     `msgpack:"s" json:"state"`
	Reason    events.Reason `msgpack:"r,omitempty" json:"reason,omitempty"`
	Detail    string        `msgpack:"d,omitempty" json:"detail,omitempty"`
	Arguments []byte        `msgpack:"a,omitempty" json:"-"`
	Bytes     int           `msgpack:"nb,omitempty" json:"bytes,omitempty"`
	DependsOn []string      `msgpack:"do,omitempty" json:"depends_on,omitempty"`
	Key       string        `msgpack:"k,omitempty" json:"key,omitempty"`
	// Step is the envelope's step of a built-in tool's call (its driver
	// publishes the outcome under it).
	Step    string `msgpack:"sp,omitempty" json:"step,omitempty"`
	Decided bool   `msgpack:"dc,omitempty" json:"-"` // the assembler's decision arrived
	Result  []byte `msgpack:"res,omitempty" json:"-"`
	Summary string `msgpack:"sum,omitempty" json:"summary,omitempty"`
	// Digest is the SHA-256 of Result (hex, 128 bits): what the call
	// brought, named without its content.
	Digest  string           `msgpack:"dg,omitempty" json:"digest,omitempty"`
	RawRef  string           `msgpack:"ref,omitempty" json:"raw_ref,omitempty"`
	Error   events.ErrorType `msgpack:"e,omitempty" json:"error,omitempty"`
	Message string           `msgpack:"m,omitempty" json:"message,omitempty"`
}

// callJSON is Call's JSON: its fields, with the arguments as the JSON they
// are when they are a JSON object (a client reading a round sees what the
// model called with, e.g. the calls waiting for approval).
type callJSON struct {
	callAlias
	Args json.RawMessage `json:"arguments,omitempty"`
}

type callAlias Call

// MarshalJSON writes the call with its arguments when they are JSON.
func (c Call) MarshalJSON() ([]byte, error) {
	out := callJSON{callAlias: callAlias(c)}
	if t := bytes.TrimSpace(c.Arguments); len(t) > 0 && json.Valid(t) {
		out.Args = t
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (c *Call) UnmarshalJSON(b []byte) error {
	var in callJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*c = Call(in.callAlias)
	c.Arguments = []byte(in.Args)
	return nil
}

// Round is one model response of a run and the calls it made.
type Round struct {
	N        int    `msgpack:"n" json:"round"`
	Turn     int    `msgpack:"tn" json:"turn"`
	Response string `msgpack:"r" json:"response"`
	// Expected is the calls the response made (its ResponseOutcome), -1
	// until the outcome is read.
	Expected  int                   `msgpack:"x" json:"expected_calls"`
	Ended     events.ResponseStatus `msgpack:"es,omitempty" json:"response_status,omitempty"`
	EndReason events.Reason         `msgpack:"er,omitempty" json:"response_reason,omitempty"`
	EndError  string                `msgpack:"ee,omitempty" json:"response_error,omitempty"`
	Text      string                `msgpack:"tx,omitempty" json:"-"`
	Format    string                `msgpack:"f,omitempty" json:"format,omitempty"`
	Status    events.RoundStatus    `msgpack:"st,omitempty" json:"status,omitempty"` // "" while open
	Calls     []Call                `msgpack:"cl,omitempty" json:"calls"`
	// NewEvidence counts the round's calls (tool, arguments, result) the
	// run had not seen before; set when it settles.
	NewEvidence int `msgpack:"nn,omitempty" json:"new_evidence,omitempty"`
	// Usage is the tokens the provider reported for the round's response.
	Usage events.Usage `msgpack:"us,omitempty" json:"usage,omitzero"`
	// Signals are what the round raised when it settled (RunDegraded,
	// ReplanSuggested), in the order emitted: the driver acts on them in
	// the next request.
	Signals []Signal `msgpack:"sg,omitempty" json:"signals,omitempty"`
}

// Signal is one signal a settled round raised.
type Signal struct {
	// Kind is SignalReplan or SignalDegraded.
	Kind string `msgpack:"k" json:"kind"`
	// Reason is a replan's reason (events.ReplanReason).
	Reason string `msgpack:"r,omitempty" json:"reason,omitempty"`
	Detail string `msgpack:"d,omitempty" json:"detail,omitempty"`
}

// Kinds of Signal.
const (
	SignalReplan   = "replan_suggested"
	SignalDegraded = "degraded"
)

// Reasons a plan write is refused.
const (
	RefusedStale       = "stale_version"
	RefusedInvalidPlan = "invalid_plan"
)

// HistoryOptions say how a run's history is written.
type HistoryOptions struct {
	// Format is the provider shape; default the run's.
	Format string `json:"format,omitempty"`
	// BudgetTokens bounds the history's estimated tokens (bytes of its JSON
	// ÷ 4, rounded up); 0: no bound.
	BudgetTokens int `json:"budget_tokens,omitempty"`
	// Keep is the number of last rounds always written verbatim; default 2.
	Keep int `json:"keep,omitempty"`
	// InlineMax bounds a result written verbatim; default 16 KiB. A larger
	// one is referenced: its summary and where the whole is stored.
	InlineMax int `json:"inline_max,omitempty"`
}

// History is a run's conversation as one provider's messages.
type History struct {
	Format string `json:"format"`
	// Messages is a JSON array: the request's messages (Chat, Anthropic),
	// input (Responses) or contents (Gemini).
	Messages  json.RawMessage `json:"messages"`
	Tokens    int             `json:"tokens"`
	Rounds    int             `json:"rounds"`
	Verbatim  int             `json:"verbatim"`
	Compacted int             `json:"compacted"` // results as summaries
	Noted     int             `json:"noted"`     // rounds as one line of a note
	Omitted   int             `json:"omitted"`   // rounds left out
	Fits      bool            `json:"fits"`      // within the budget
	// Through is the last turn whose entries the messages hold with every
	// entry before it (the turn before the first round still open, else
	// the run's last turn): a history asked From Through+1 goes on from it.
	Through int `json:"through,omitempty"`
}

// Lease is one driver's hold on a run.
type Lease struct {
	Tenant   string    `json:"tenant"`
	Run      string    `json:"run"`
	Driver   string    `json:"driver"`
	Epoch    uint64    `json:"epoch"` // raised by every acquisition
	Expires  time.Time `json:"expires"`
	Revision uint64    `json:"revision"` // the record's revision: a renewal's compare-and-set
}
