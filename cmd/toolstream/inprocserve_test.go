package main

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// inProcServe is `toolstream serve` run in the test's process (its own
// root command), for tests that change its files while it runs and poll
// what it answers.
type inProcServe struct {
	t    *testing.T
	ctx  context.Context
	done chan error
	err  bytes.Buffer // serve's stderr
}

// startServeInProcess runs serve with args until the test ends (or ctx
// does); the test's cleanup stops it and reports an error it ended with.
func startServeInProcess(t *testing.T, ctx context.Context, args ...string) *inProcServe {
	t.Helper()
	s := &inProcServe{t: t, ctx: ctx, done: make(chan error, 1)}
	sctx, stop := context.WithCancel(ctx)
	root := newRoot(&bytes.Buffer{}, &s.err)
	root.SetArgs(append([]string{"serve"}, args...))
	go func() { s.done <- root.ExecuteContext(sctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-s.done; err != nil {
			t.Errorf("serve: %v\n%s", err, s.err.String())
		}
	})
	return s
}

// poll waits until cond holds, failing the test if serve stops first or
// the context ends.
func (s *inProcServe) poll(what string, cond func() bool) {
	s.t.Helper()
	for !cond() {
		select {
		case err := <-s.done:
			s.t.Fatalf("serve stopped: %v\n%s", err, s.err.String())
		case <-s.ctx.Done():
			s.t.Fatalf("%s: never\n%s", what, s.err.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
