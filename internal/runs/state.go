package runs

import (
	"fmt"

	"github.com/toolstream/toolstream/events/runsapi"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

// The runs service's types (package runsapi): a run's status, where one
// of its calls is, the run and its rounds as the view stores them and the
// service answers them.
type (
	Status    = runsapi.Status
	CallState = runsapi.CallState
	Run       = runsapi.Run
	Call      = runsapi.Call
	Round     = runsapi.Round
	Signal    = runsapi.Signal
)

const (
	StatusRunning         = runsapi.StatusRunning
	StatusWaitingApproval = runsapi.StatusWaitingApproval
	StatusSettled         = runsapi.StatusSettled
	StatusAnswered        = runsapi.StatusAnswered
	StatusDegraded        = runsapi.StatusDegraded
	StatusFailed          = runsapi.StatusFailed
	StatusCancelled       = runsapi.StatusCancelled

	CallPending    = runsapi.CallPending
	CallRunning    = runsapi.CallRunning
	CallWaiting    = runsapi.CallWaiting
	CallSucceeded  = runsapi.CallSucceeded
	CallFailed     = runsapi.CallFailed
	CallRejected   = runsapi.CallRejected
	CallIncomplete = runsapi.CallIncomplete
	CallDenied     = runsapi.CallDenied
	CallUnknown    = runsapi.CallUnknown
	CallClient     = runsapi.CallClient
)

// terminal reports whether a call in state s has its outcome.
func terminal(s CallState) bool {
	switch s {
	case CallSucceeded, CallFailed, CallRejected, CallIncomplete, CallDenied, CallUnknown, CallClient:
		return true
	}
	return false
}

// failure reports whether a call in state s counts as a failure in a row.
func failure(s CallState) bool { return terminal(s) && s != CallSucceeded && s != CallClient }

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
	SignalReplan       = runsapi.SignalReplan
	SignalDegraded     = runsapi.SignalDegraded
	RefusedStale       = runsapi.RefusedStale
	RefusedInvalidPlan = runsapi.RefusedInvalidPlan
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
