package runs

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

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
	// StatusFailed: the last response failed or was cut without calls.
	StatusFailed Status = "failed"
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
)

// terminal reports whether a call in state s has its outcome.
func (s CallState) terminal() bool {
	switch s {
	case CallSucceeded, CallFailed, CallRejected, CallIncomplete, CallDenied, CallUnknown:
		return true
	}
	return false
}

// failure reports whether a call in state s counts as a failure in a row.
func (s CallState) failure() bool { return s.terminal() && s != CallSucceeded }

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
	// Turns numbers the run's history entries: input messages and rounds;
	// LastInput is the turn of the last input message (0: none).
	Turns     int    `msgpack:"nt" json:"turns"`
	LastInput int    `msgpack:"li,omitempty" json:"last_input,omitempty"`
	User      string `msgpack:"u,omitempty" json:"user,omitempty"`
	Session   string `msgpack:"ss,omitempty" json:"session,omitempty"`
	FirstAt   int64  `msgpack:"fa0" json:"first_at"`
	LastAt    int64  `msgpack:"la" json:"last_at"`
	LastSeq   uint64 `msgpack:"ls" json:"last_seq"`
}

// Call is one call of a round.
type Call struct {
	Item      string           `msgpack:"i" json:"item"`
	CallID    string           `msgpack:"c,omitempty" json:"call_id,omitempty"`
	Name      string           `msgpack:"n,omitempty" json:"name"`
	Order     int              `msgpack:"o" json:"order"`
	State     CallState        `msgpack:"s" json:"state"`
	Reason    events.Reason    `msgpack:"r,omitempty" json:"reason,omitempty"`
	Detail    string           `msgpack:"d,omitempty" json:"detail,omitempty"`
	Arguments []byte           `msgpack:"a,omitempty" json:"-"`
	Bytes     int              `msgpack:"nb,omitempty" json:"bytes,omitempty"`
	DependsOn []string         `msgpack:"do,omitempty" json:"depends_on,omitempty"`
	Key       string           `msgpack:"k,omitempty" json:"key,omitempty"`
	Decided   bool             `msgpack:"dc,omitempty" json:"-"` // the assembler's decision arrived
	Result    []byte           `msgpack:"res,omitempty" json:"-"`
	Summary   string           `msgpack:"sum,omitempty" json:"summary,omitempty"`
	RawRef    string           `msgpack:"ref,omitempty" json:"raw_ref,omitempty"`
	Error     events.ErrorType `msgpack:"e,omitempty" json:"error,omitempty"`
	Message   string           `msgpack:"m,omitempty" json:"message,omitempty"`
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
}

// Input is an input turn of a run (RunMessage).
type Input struct {
	Turn int    `msgpack:"tn"`
	Role string `msgpack:"ro"`
	Text string `msgpack:"x"`
}

// PlanVerdict is the projection's decision on one plan write.
type PlanVerdict struct {
	Applied bool   `msgpack:"ap" json:"applied"`
	Reason  string `msgpack:"r,omitempty" json:"reason,omitempty"` // stale_version, invalid_plan
	Detail  string `msgpack:"d,omitempty" json:"detail,omitempty"`
	// Version is the run's version after the write, or when it was refused.
	Version uint64 `msgpack:"v" json:"version"`
}

// Reasons a plan write is refused.
const (
	RefusedStale       = "stale_version"
	RefusedInvalidPlan = "invalid_plan"
)

// Keys. Every key starts with the tenant (projector.TenantKey).
func runKey(tenant, run string) ([]byte, error) { return projector.TenantKey(tenant, "run", run) }
func runsPrefix(tenant string) ([]byte, error)  { return projector.TenantKey(tenant, "run", "") }

// turnKey orders a run's history: input messages and rounds by turn.
func turnKey(tenant, run string, turn int) ([]byte, error) {
	return projector.TenantKey(tenant, "turn", run, fmt.Sprintf("%08d", turn))
}
func turnsPrefix(tenant, run string) ([]byte, error) {
	return projector.TenantKey(tenant, "turn", run, "")
}

// roundIndexKey maps a response of a run to its turn.
func roundIndexKey(tenant, run, response string) ([]byte, error) {
	return projector.TenantKey(tenant, "resp", run, response)
}

// evidenceKey marks one piece of evidence the run has seen.
func evidenceKey(tenant, run, digest string) ([]byte, error) {
	return projector.TenantKey(tenant, "ev", run, digest)
}

// planKey is the verdict of the plan write at stream sequence seq.
func planKey(tenant, run string, seq uint64) ([]byte, error) {
	return projector.TenantKey(tenant, "plan", run, fmt.Sprintf("%020d", seq))
}

// turn is one stored history entry: a round or an input.
type turn struct {
	Round *Round `msgpack:"rd,omitempty"`
	Input *Input `msgpack:"in,omitempty"`
}

// reader is what loads need: a Tx or a View.
type reader interface {
	Get(key []byte) ([]byte, bool, error)
}

func load(r reader, key []byte, v any) (bool, error) {
	b, ok, err := r.Get(key)
	if err != nil || !ok {
		return false, err
	}
	if err := msgpack.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("runs: corrupt row %q: %w", key, err)
	}
	return true, nil
}

func store(tx *projector.Tx, key []byte, v any) error {
	b, err := msgpack.Marshal(v)
	if err != nil {
		return fmt.Errorf("runs: encode row %q: %w", key, err)
	}
	return tx.Set(key, b)
}
