package executor

import "github.com/nats-io/nats.go/jetstream"

// FlakyOutcomeWrites makes e's record bucket fail the next n writes that
// record an outcome (state done) with err; with applied, each failed
// write is applied first and only its answer is lost. Call it before Run.
// The returned func tells how many writes it failed so far.
func FlakyOutcomeWrites(e *Executor, n int, err error, applied bool) func() int {
	f := &flakyKV{KeyValue: e.store.kv, err: err, applied: applied, fails: n,
		match: func(r *record) bool { return r.State == stateDone }}
	e.store.kv = f
	return f.injected
}

var _ jetstream.KeyValue = (*flakyKV)(nil)
