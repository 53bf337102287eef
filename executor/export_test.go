package executor

import "github.com/nats-io/nats.go/jetstream"

// Record states tests name in FlakyRecordWrites.
const (
	StateRunning = stateRunning
	StateDone    = stateDone
)

// FlakyRecordWrites makes e's record bucket fail the next n writes of a
// record in state (StateRunning: taking or renewing a lease; StateDone:
// recording an outcome) with err; with applied, each failed write is
// applied first and only its answer is lost. Call it before Run. The
// returned func tells how many writes it failed so far.
func FlakyRecordWrites(e *Executor, state string, n int, err error, applied bool) func() int {
	f := &flakyKV{KeyValue: e.store.kv, err: err, applied: applied, fails: n,
		match: func(r *record) bool { return r.State == state }}
	e.store.kv = f
	e.store.writes = f.write
	return f.injected
}

var _ jetstream.KeyValue = (*flakyKV)(nil)

// FlakyDecisionWrites makes e's record bucket fail every write that
// records decision ("granted", "denied") in a call's record with err,
// before it is applied, until heal is called. Call it before Run. failed
// tells how many writes it failed so far.
func FlakyDecisionWrites(e *Executor, decision string, err error) (failed func() int, heal func()) {
	f := &flakyKV{KeyValue: e.store.kv, err: err, fails: -1,
		match: func(r *record) bool { return r.Approval == decision }}
	e.store.kv = f
	e.store.writes = f.write
	return f.injected, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.fails = 0
	}
}
