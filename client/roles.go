package client

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events/runsapi"
	"github.com/toolstream/toolstream/memory/memapi"
)

// The roles a program plays against Toolstream, each a small interface
// that *Client implements: a program (or a part of it, or a test's fake)
// takes the role it needs instead of the whole Client, as nats.go's
// jetstream builds JetStream from Publisher, StreamManager and the rest.
// Toolstream is all of them. Each method's documentation is on *Client.

// Producer publishes a provider's streaming events (produce.go).
type Producer interface {
	// NewWriter starts a stream to write event by event.
	NewWriter(ctx context.Context, opts ...StreamOption) (*Writer, error)
	// Publish publishes a whole stream read from r.
	Publish(ctx context.Context, r io.Reader, opts ...StreamOption) (Published, error)
}

// Consumer reads what became of a tenant's streams, in log order, as typed
// values: the calls the assembler decided, their results, the verdicts on
// answers, and all of their lives at once (consume.go, activity.go).
type Consumer interface {
	Calls(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Call, error]
	Results(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Result, error]
	Verdicts(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Verdict, error]
	Activity(ctx context.Context, tenant string, kinds []Kind, opts ...ReadOption) iter.Seq2[Activity, error]
}

// Latest reads the latest word on one response or call by one direct get,
// for a caller that polls one thing (last.go).
type Latest interface {
	Closed(ctx context.Context, tenant, response string) (Response, error)
	LastVerdict(ctx context.Context, tenant, response string) (Verdict, error)
	CallResult(ctx context.Context, tenant, key, tool string) (Result, error)
}

// Decider decides the calls that wait for approval: it reads them,
// approves or denies them, and reads a decision back (decide.go,
// last.go).
type Decider interface {
	Approvals(ctx context.Context, tenant string, opts ...ReadOption) iter.Seq2[Approval, error]
	Approve(ctx context.Context, tenant, call string, opts ...DecideOption) (key string, err error)
	Deny(ctx context.Context, tenant, call, reason string, opts ...DecideOption) (key string, err error)
	Decided(ctx context.Context, tenant, key string) (Decision, error)
}

// RunReader reads a tenant's runs from the runs service, and watches them
// change (runs.go).
type RunReader interface {
	Run(ctx context.Context, tenant, run string) (runsapi.Run, error)
	RunCurrent(ctx context.Context, tenant, run string) (runsapi.Run, error)
	Runs(ctx context.Context, tenant string) ([]runsapi.Run, error)
	Rounds(ctx context.Context, tenant, run string) ([]runsapi.Round, error)
	RoundsFrom(ctx context.Context, tenant, run string, from int) ([]runsapi.Round, error)
	History(ctx context.Context, tenant, run string, opts runsapi.HistoryOptions) (runsapi.History, error)
	HistoryFrom(ctx context.Context, tenant, run string, from int, opts runsapi.HistoryOptions) (runsapi.History, error)
	WatchRuns(ctx context.Context, tenant string, opts ...WatchOption) (iter.Seq2[RunChange, error], error)
}

// RunDriver is what drives a run: its lease, its plan and the user's
// messages into it (runs.go).
type RunDriver interface {
	Lease(ctx context.Context, tenant, run, driver string) (runsapi.LeaseReply, error)
	Renew(ctx context.Context, l runsapi.Lease) (runsapi.Lease, error)
	Release(ctx context.Context, l runsapi.Lease) error
	WritePlan(ctx context.Context, tenant, run string, plan json.RawMessage, expected uint64, by string) (uint64, error)
	Say(ctx context.Context, tenant, run, user, id, text, format string) (uint64, error)
}

// Memory writes, reads and forgets a user's long-term memory through the
// memory service (memory.go).
type Memory interface {
	Message(ctx context.Context, tenant, user, id, text string, at time.Time, opts ...MessageOption) (memapi.WriteReply, error)
	Observe(ctx context.Context, tenant, user string, o Observation) (memapi.WriteReply, error)
	Correct(ctx context.Context, tenant, user string, expected int, o Observation) (memapi.WriteReply, error)
	Recall(ctx context.Context, tenant, user, query string, opts RecallOptions) (memapi.RecallOut, error)
	Records(ctx context.Context, tenant, user string, inactive bool) ([]memapi.Record, error)
	RecordHistory(ctx context.Context, tenant, user, id string) ([]memapi.Record, error)
	Constraints(ctx context.Context, tenant, user string, asOf time.Time) ([]memapi.Record, error)
	Forget(ctx context.Context, tenant, user, id string) (Forgotten, error)
	MemoryRequest(ctx context.Context, verb string, op memapi.Op) (json.RawMessage, error)
}

// Eraser erases a user from everything Toolstream stores (memory.go).
type Eraser interface {
	EraseUser(ctx context.Context, tenant, user string) (Erasure, error)
	EraseUserIfSeen(ctx context.Context, tenant, user string) (Erasure, error)
	EraseUserLess(ctx context.Context, tenant, confirm string) (Erasure, error)
}

// Toolstream is every role, and the connection they share: what *Client
// is.
type Toolstream interface {
	Producer
	Consumer
	Latest
	Decider
	RunReader
	RunDriver
	Memory
	Eraser
	// Conn is the connection; Close ends it unless it was given.
	Conn() *nats.Conn
	Close() error
}

var _ Toolstream = (*Client)(nil)
