package judging_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/judging"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier"
)

// stack is an embedded log with the verifier projection running over it.
type stack struct {
	b   *bus.Bus
	r   *projector.Runner
	ctx context.Context
}

func startStack(t *testing.T) *stack {
	t.Helper()
	b := bustest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := projector.New(projector.Config{JS: b.JS, Dir: filepath.Join(t.TempDir(), "verifier"), Keys: b.Keys}, verifier.NewProjection(verifier.ProjectionConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		r.Close()
	})
	return &stack{b: b, r: r, ctx: ctx}
}

// answer publishes a stock result and an answer whose second claim the
// checker cannot decide ("It is fully waterproof.").
func (s *stack) answer(t *testing.T, resp string) {
	t.Helper()
	at := time.Date(2024, 5, 3, 9, 0, 0, 0, time.UTC).UnixNano()
	call := "c-" + resp
	subj, err := events.ResultSubject("acme", call)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.b.Publish(s.ctx, subj, &events.Event{ID: "r-" + resp, Tenant: "acme", User: "ann", Run: "run-" + resp, CallID: call, At: at,
		Body: &events.CallSucceeded{Name: "get_product", Key: "acme/run/" + call, Result: []byte(`{"name":"Trail Shoe","stock":8,"material":"mesh upper"}`)}}); err != nil {
		t.Fatal(err)
	}
	if subj, err = events.AnswerSubject("acme", resp); err != nil {
		t.Fatal(err)
	}
	if _, err := s.b.Publish(s.ctx, subj, &events.Event{ID: "a-" + resp, Tenant: "acme", User: "ann", Run: "run-" + resp, Response: resp, At: at,
		Body: &events.AnswerSubmitted{Text: "The Trail Shoe has 8 pairs in stock. It is fully waterproof."}}); err != nil {
		t.Fatal(err)
	}
}

// verified waits for the view to hold a verdict on resp that ok accepts.
func (s *stack) verified(t *testing.T, resp string, ok func(verifier.Verified) bool) verifier.Verified {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		view := s.r.View()
		v, err := verifier.Get(view, "acme", resp)
		view.Close()
		if err == nil && ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("no verdict on %s as wanted: %+v %v", resp, v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kinds returns the ids of the events of kind on resp's answer subject.
func (s *stack) ids(t *testing.T, resp string, kind events.Kind) []string {
	t.Helper()
	subj, _ := events.AnswerSubject("acme", resp)
	c, err := s.b.JS.OrderedConsumer(s.ctx, events.StreamOut, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		info, err := c.Info(s.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.NumPending == 0 {
			return out
		}
		batch, err := c.Fetch(int(info.NumPending), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			ev, err := events.DecodeWith(m.Data(), s.b.Keys)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Body.Kind() == kind {
				out = append(out, ev.ID)
			}
		}
	}
}

// runWorker runs a judge worker until the test ends or stop is called.
func (s *stack) runWorker(t *testing.T, cfg judging.Config) (stop func()) {
	t.Helper()
	cfg.JS, cfg.Keys, cfg.View = s.b.JS, s.b.Keys, s.r.View
	w, err := judging.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(stop)
	return stop
}

// settled waits until durable has been handed every answer event and has
// none waiting for an ack or a redelivery.
func (s *stack) settled(t *testing.T, durable string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err := s.b.JS.Consumer(s.ctx, events.StreamOut, durable)
		if err == nil {
			ci, err := info.Info(s.ctx)
			if err == nil && ci.NumPending == 0 && ci.NumAckPending == 0 && ci.NumRedelivered == 0 && ci.Delivered.Consumer > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer %s never settled", durable)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The judge's verdict reaches the view through the log, once: a second
// worker reading the log from its start asks nothing and publishes
// nothing, and a replay of the log gives the judged verdicts without a
// judge.
func TestJudgeVerdictsAreRecordedOnce(t *testing.T) {
	s := startStack(t)
	var asked atomic.Int32
	var got []judging.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req judging.Request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		asked.Add(1)
		got = append(got, req)
		resp := judging.Response{}
		for _, c := range req.Claims {
			resp.Verdicts = append(resp.Verdicts, judging.Verdict{Index: c.Index, Verdict: events.VerdictContradicted, Reason: "mesh is not waterproof"})
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	stop := s.runWorker(t, judging.Config{Judge: judging.NewHTTPJudge(srv.URL, srv.Client()), Durable: "judge-1"})
	s.answer(t, "resp1")
	v := s.verified(t, "resp1", func(v verifier.Verified) bool { return v.Judged > 0 })
	if cl := v.Verified.Claims; len(v.Undecided) != 0 || v.Judged != 1 || cl[0].Verdict != events.VerdictSupported ||
		cl[1].Verdict != events.VerdictContradicted || cl[1].Reason != "judge: mesh is not waterproof" || v.Verified.Faithfulness != 0.5 {
		t.Fatalf("judged verdicts: %+v", v)
	}
	s.settled(t, "judge-1")
	stop()
	if len(got) != 1 || len(got[0].Claims) != 1 || got[0].Claims[0].Index != 1 || got[0].Claims[0].Text != "It is fully waterproof." ||
		len(got[0].Evidence) != 1 || got[0].Evidence[0].Name != "get_product" {
		t.Fatalf("the judge was asked %+v", got)
	}

	// A worker reading the whole log again (a lost consumer) finds nothing
	// undecided.
	s.runWorker(t, judging.Config{Judge: judging.NewHTTPJudge(srv.URL, srv.Client()), Durable: "judge-2"})
	s.settled(t, "judge-2")
	if n := asked.Load(); n != 1 {
		t.Fatalf("the judge was asked %d times, want 1", n)
	}
	if ids := s.ids(t, "resp1", events.KindJudgeVerdict); !slices.Equal(ids, []string{events.JudgeVerdictID("acme", "resp1", 1)}) {
		t.Fatalf("judge verdicts in the log: %v", ids)
	}
	want := []string{events.VerifiedID("acme", "resp1"), events.JudgedID("acme", "resp1", 1)}
	if ids := s.ids(t, "resp1", events.KindAnswerVerified); !slices.Equal(ids, want) {
		t.Fatalf("verdicts in the log: %v, want %v", ids, want)
	}

	// Replay: the log alone gives the judged verdicts.
	last, err := s.b.LastSeq(s.ctx, events.StreamOut)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := projector.New(projector.Config{JS: s.b.JS, Dir: filepath.Join(t.TempDir(), "replay"), Keys: s.b.Keys, Mode: projector.ModeReplay, UntilSeq: last},
		verifier.NewProjection(verifier.ProjectionConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	if err := rr.Run(s.ctx); err != nil {
		t.Fatal(err)
	}
	view := rr.View()
	rv, err := verifier.Get(view, "acme", "resp1")
	view.Close()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(rv)
	b, _ := json.Marshal(v)
	if string(a) != string(b) {
		t.Fatalf("replay differs:\n%s\n%s", a, b)
	}
}

// A judge that answers too late or outside the contract is asked again
// after a backoff, Attempts times; the verdict is there all along and the
// claim stays undecided.
func TestJudgeUnavailableLeavesClaimsUndecided(t *testing.T) {
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
	}{
		{"times out", nil}, // answers when the test ends
		{"garbage", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>") }},
		{"unknown verdict", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"verdicts":[{"index":1,"verdict":"probably"}]}`)
		}},
		{"down", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startStack(t)
			var asked atomic.Int32
			ended := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				if tt.handler == nil {
					select {
					case <-r.Context().Done():
					case <-ended:
					}
					return
				}
				tt.handler(w, r)
			}))
			defer srv.Close()
			defer close(ended)
			s.answer(t, "resp1")
			before := s.verified(t, "resp1", func(verifier.Verified) bool { return true })
			if !slices.Equal(before.Undecided, []int{1}) {
				t.Fatalf("undecided before the judge: %v", before.Undecided)
			}
			const attempts = 3
			s.runWorker(t, judging.Config{Judge: judging.NewHTTPJudge(srv.URL, srv.Client()), Durable: "judge",
				Timeout: 200 * time.Millisecond, Attempts: attempts, Backoff: 10 * time.Millisecond})
			s.settled(t, "judge")
			if n := asked.Load(); n != attempts {
				t.Fatalf("the judge was asked %d times, want %d", n, attempts)
			}
			after := s.verified(t, "resp1", func(verifier.Verified) bool { return true })
			if !slices.Equal(after.Undecided, []int{1}) || after.Judged != 0 || fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("after a judge that %s: %+v", tt.name, after)
			}
			if ids := s.ids(t, "resp1", events.KindJudgeVerdict); len(ids) != 0 {
				t.Fatalf("judge verdicts in the log: %v", ids)
			}
		})
	}
}
