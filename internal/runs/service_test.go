package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/projector"
)

// node runs both projections and the service over a real server, as serve
// does.
type node struct {
	b      *bus.Bus
	runs   *projector.Runner
	calls  *projector.Runner
	leases *runs.Leases
	// stopRuns stops the runs view's runner (its view stays open, behind
	// the log); startRuns runs it again.
	stopRuns, startRuns func()
}

func startNode(t *testing.T, clock func() time.Time) *node {
	t.Helper()
	b := bustest.Start(t)
	n := &node{b: b}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var started []*projector.Runner
	// Cleanups run last first: the runners stop before their views close.
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		for _, r := range started {
			r.Close()
		}
	})
	for _, p := range []projector.Projection{runs.New(runs.Config{}), runs.Calls{}} {
		r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), p.Name())}, p)
		if err != nil {
			t.Fatal(err)
		}
		started = append(started, r)
		run := func() (stop func()) {
			rctx, rcancel := context.WithCancel(ctx)
			done := make(chan struct{})
			wg.Add(1)
			go func() { defer wg.Done(); defer close(done); r.Run(rctx) }()
			return func() { rcancel(); <-done }
		}
		stop := run()
		if p.Name() == runs.Name {
			n.runs = r
			n.stopRuns = func() { stop() }
			n.startRuns = func() { stop = run() }
		} else {
			n.calls = r
		}
	}
	var err error
	n.leases, err = runs.NewLeases(ctx, runs.LeaseConfig{JS: b.JS, Heartbeat: 50 * time.Millisecond, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := micro.AddService(b.Conn, micro.Config{Name: "runs-test", Version: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop() })
	s := &runs.Service{Runner: n.runs, Leases: n.leases, Publish: func(ctx context.Context, subj string, ev *events.Event) (uint64, error) {
		ack, err := b.PublishSealed(ctx, subj, ev, "")
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}}
	if err := s.AddTo(svc); err != nil {
		t.Fatal(err)
	}
	return n
}

// ask sends a request to the service; an error reply comes back as an
// error naming its code.
func ask(t *testing.T, nc *nats.Conn, verb, tenant string, req runs.Request, out any) error {
	t.Helper()
	data, _ := json.Marshal(req)
	m, err := nc.Request(runs.ServiceSubject(verb, tenant), data, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if code := m.Header.Get(micro.ErrorCodeHeader); code != "" {
		return fmt.Errorf("%s %s", code, m.Header.Get(micro.ErrorHeader))
	}
	if out != nil {
		if err := json.Unmarshal(m.Data, out); err != nil {
			t.Fatal(err)
		}
	}
	return nil
}

func publish(t *testing.T, b *bus.Bus, subj string, err error, ev *events.Event) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Publish(context.Background(), subj, ev); err != nil {
		t.Fatal(err)
	}
}

// A producer's loop against tsv.runs.*, end to end on a real server: the
// user's message, a round whose call is decided in TS_CALLS and whose
// result lands in TS_OUT, RoundSettled on the run's subject with the tool
// result in the run's shape, then the history for the next request.
func TestProducerLoopThroughTheService(t *testing.T) {
	n := startNode(t, nil)
	nc := n.b.Conn
	settled := make(chan *nats.Msg, 4)
	sub, err := nc.ChanSubscribe("ts.run.acme.>", settled)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()

	var w runs.WriteReply
	if err := ask(t, nc, "message", "acme", runs.Request{Run: "trip", ID: "m1", Text: "Weather in Paris?", HistoryOptions: runs.HistoryOptions{Format: runs.FormatAnthropic}}, &w); err != nil || !w.Applied {
		t.Fatalf("message: %+v %v", w, err)
	}
	var lr runs.LeaseReply
	if err := ask(t, nc, "lease", "acme", runs.Request{Run: "trip", Driver: "loop-1"}, &lr); err != nil {
		t.Fatal(err)
	}
	if lr.Run == nil || lr.Run.Settled != 0 {
		t.Fatalf("lease reply %+v: want the run as it is", lr)
	}
	// The model's round: one call, completed, run, its result.
	env := func(id string) *events.Event {
		return &events.Event{ID: id, Tenant: "acme", Run: "trip", Response: "msg_1", Item: "toolu_1", CallID: "toolu_1", At: time.Now().UnixNano()}
	}
	ev := env(events.CompletedID("acme", "msg_1", "toolu_1"))
	ev.Body = &events.CallCompleted{Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}
	subj, err := events.CallSubject("acme", "get_weather")
	publish(t, n.b, subj, err, ev)
	ev = env(events.ResponseOutcomeID("acme", "msg_1"))
	ev.Item, ev.CallID, ev.Body = "", "", &events.ResponseOutcome{Status: events.StatusCompleted, Calls: 1, Provider: "anthropic"}
	subj, err = events.ResponseSubject("acme", "msg_1")
	publish(t, n.b, subj, err, ev)
	key := events.IdempotencyKey("acme", "trip", "msg_1", "toolu_1")
	ev = env("result:" + key)
	ev.Body = &events.CallSucceeded{Name: "get_weather", Key: key, Result: []byte(`{"temp_c":18}`), Summary: "18°C"}
	subj, err = events.ResultSubject("acme", key)
	publish(t, n.b, subj, err, ev)

	deadline := time.After(20 * time.Second)
	for {
		var m *nats.Msg
		select {
		case m = <-settled:
		case <-deadline:
			t.Fatal("no RoundSettled")
		}
		got, err := events.DecodeWith(m.Data, n.b.Keys)
		if err != nil {
			t.Fatal(err)
		}
		rs, ok := events.As[*events.RoundSettled](got)
		if !ok {
			continue
		}
		want := `[{"content":[{"content":"{\"temp_c\":18}","tool_use_id":"toolu_1","type":"tool_result"}],"role":"user"}]`
		if rs.Format != "anthropic" || string(rs.Messages) != want {
			t.Fatalf("RoundSettled %s %s, want anthropic %s", rs.Format, rs.Messages, want)
		}
		break
	}
	var h runs.History
	if err := ask(t, nc, "history", "acme", runs.Request{Run: "trip"}, &h); err != nil {
		t.Fatal(err)
	}
	var msgs []map[string]any
	if err := json.Unmarshal(h.Messages, &msgs); err != nil || len(msgs) != 3 || msgs[1]["role"] != "assistant" {
		t.Fatalf("history %s: want user, assistant tool_use, user tool_result", h.Messages)
	}
	// Another tenant sees nothing of it.
	if err := ask(t, nc, "get", "globex", runs.Request{Run: "trip"}, nil); err == nil {
		t.Fatal("globex reads acme's run")
	}
	if err := ask(t, nc, "get", "_system", runs.Request{Run: "trip"}, nil); err == nil {
		t.Fatal("a query under the system tenant")
	}
}

// Stale plan writes through the service: a write carries the version it
// read; of two writers that read the same version exactly one wins, the
// other is refused with the current version, never merged.
func TestStalePlanWritesAreRefused(t *testing.T) {
	n := startNode(t, nil)
	nc := n.b.Conn
	var w runs.WriteReply
	if err := ask(t, nc, "message", "acme", runs.Request{Run: "p", ID: "m1", Text: "hi"}, &w); err != nil || !w.Applied {
		t.Fatalf("message: %+v %v", w, err)
	}
	var run runs.Run
	if err := ask(t, nc, "get", "acme", runs.Request{Run: "p"}, &run); err != nil {
		t.Fatal(err)
	}
	replies := make([]runs.WriteReply, 8)
	var wg sync.WaitGroup
	for i := range replies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plan := fmt.Sprintf(`{"goal":"writer %d"}`, i)
			if err := ask(t, nc, "plan", "acme", runs.Request{Run: "p", ExpectedVersion: run.Version, Plan: json.RawMessage(plan)}, &replies[i]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	won := 0
	for _, r := range replies {
		switch {
		case r.Applied:
			won++
			if r.Version != run.Version+1 {
				t.Errorf("applied at version %d, want %d", r.Version, run.Version+1)
			}
		case r.Reason != runs.RefusedStale || r.Version != run.Version+1:
			t.Errorf("refused %+v: want stale_version at version %d", r, run.Version+1)
		}
	}
	if won != 1 {
		t.Fatalf("%d writers of version %d won, want exactly 1: %+v", won, run.Version, replies)
	}
	if err := ask(t, nc, "plan", "acme", runs.Request{Run: "p", ExpectedVersion: run.Version + 1, Plan: json.RawMessage(`[1]`)}, &w); err != nil || w.Reason != runs.RefusedInvalidPlan {
		t.Fatalf("a plan that is not an object: %+v %v", w, err)
	}
}

// Two drivers race for one run: one wins, the other is told who holds it.
// When the winner stops renewing, the lease expires and the other takes
// over; the first driver's next renewal fails and it stops at once.
func TestTwoDriversRaceForOneRun(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	n := startNode(t, clock)
	ctx := context.Background()

	type got struct {
		l   *runs.Lease
		err error
	}
	results := make(chan got, 2)
	for _, d := range []string{"driver-a", "driver-b"} {
		go func() {
			l, err := n.leases.Acquire(ctx, "acme", "run-1", d)
			results <- got{l, err}
		}()
	}
	var winner *runs.Lease
	var loserErr error
	for range 2 {
		g := <-results
		if g.err == nil {
			if winner != nil {
				t.Fatalf("both drivers hold the lease: %+v and %+v", winner, g.l)
			}
			winner = g.l
		} else {
			loserErr = g.err
		}
	}
	var held *runs.HeldError
	if winner == nil || !errors.As(loserErr, &held) || held.Driver != winner.Driver {
		t.Fatalf("winner %+v, loser's error %v: want one winner and the other told who holds it", winner, loserErr)
	}
	loser := map[string]string{"driver-a": "driver-b", "driver-b": "driver-a"}[winner.Driver]
	// The winner renews; the loser still cannot take it.
	advance(100 * time.Millisecond)
	if err := n.leases.Renew(ctx, winner); err != nil {
		t.Fatal(err)
	}
	if _, err := n.leases.Acquire(ctx, "acme", "run-1", loser); !errors.Is(err, runs.ErrLeaseHeld) {
		t.Fatalf("the loser took a renewed lease: %v", err)
	}
	// Another tenant's run of the same id is another lease.
	if _, err := n.leases.Acquire(ctx, "globex", "run-1", loser); err != nil {
		t.Fatal(err)
	}
	// The winner stops renewing (it hangs); past the TTL the loser takes
	// over, and the winner's renewal fails.
	advance(time.Second)
	took, err := n.leases.Acquire(ctx, "acme", "run-1", loser)
	if err != nil || took.Epoch != winner.Epoch+1 {
		t.Fatalf("take-over: %+v %v", took, err)
	}
	stale := *winner
	stale.Expires = clock().Add(time.Hour) // even a driver whose clock says it still holds it
	if err := n.leases.Renew(ctx, &stale); !errors.Is(err, runs.ErrLeaseLost) {
		t.Fatalf("renewal after a take-over: %v, want ErrLeaseLost", err)
	}
	if err := n.leases.Renew(ctx, winner); !errors.Is(err, runs.ErrLeaseLost) {
		t.Fatalf("renewal of an expired lease: %v, want ErrLeaseLost", err)
	}
}

// A held lease is renewed by its heartbeat; when a renewal fails, Lost is
// closed and Valid is false at once, so the driver starts no new round.
func TestHeldLeaseStopsWhenRenewalFails(t *testing.T) {
	n := startNode(t, nil)
	ctx := context.Background()
	h, err := n.leases.Hold(ctx, "acme", "run-2", "driver-a")
	if err != nil {
		t.Fatal(err)
	}
	first := h.Lease().Revision
	deadline := time.Now().Add(10 * time.Second)
	for h.Lease().Revision == first {
		if time.Now().After(deadline) {
			t.Fatal("the heartbeat never renewed the lease")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !h.Valid() {
		t.Fatal("a renewed lease is not valid")
	}
	// Someone changes the record behind the holder's back (an operator, a
	// driver whose clock ran ahead): the next renewal fails.
	kv, err := n.b.JS.KeyValue(ctx, runs.LeasesBucket)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := kv.Keys(ctx)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v %v", keys, err)
	}
	if _, err := kv.Put(ctx, keys[0], []byte(`{"driver":"intruder","epoch":9,"expires":0}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the holder did not notice it lost the lease")
	}
	if h.Valid() {
		t.Fatal("a lost lease is still valid")
	}
	if _, err := runs.NewLeases(ctx, runs.LeaseConfig{JS: n.b.JS, Heartbeat: time.Second, TTL: 10 * time.Second}); !errors.Is(err, runs.ErrInvalidConfig) {
		t.Fatalf("a TTL of 10 heartbeats: %v", err)
	}
}

// slowKV is the real lease bucket whose next fail updates time out before
// reaching it, as a renewal does on a server too loaded to answer within a
// heartbeat.
type slowKV struct {
	jetstream.KeyValue
	mu   sync.Mutex
	fail int
}

func (k *slowKV) Update(ctx context.Context, key string, value []byte, last uint64) (uint64, error) {
	k.mu.Lock()
	failing := k.fail > 0
	if failing {
		k.fail--
	}
	k.mu.Unlock()
	if failing {
		return 0, fmt.Errorf("update %s: %w", key, context.DeadlineExceeded)
	}
	return k.KeyValue.Update(ctx, key, value, last)
}

// A renewal that times out loses nothing while the lease has not expired:
// the holder keeps it and the next heartbeat renews it (the gateway's
// background runs failed "lease_lost" on a loaded CI machine with one
// driver: a single slow renewal gave the run up). Two renewals time out in
// a row, within a TTL of four heartbeats: the lease stays valid, Lost stays
// open, and a later renewal moves its revision.
func TestARenewalThatTimesOutKeepsTheLease(t *testing.T) {
	n := startNode(t, nil)
	ctx := context.Background()
	kv, err := n.b.JS.KeyValue(ctx, runs.LeasesBucket)
	if err != nil {
		t.Fatal(err)
	}
	slow := &slowKV{KeyValue: kv}
	leases, err := runs.NewLeases(ctx, runs.LeaseConfig{KV: slow, Heartbeat: 100 * time.Millisecond, TTL: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h, err := leases.Hold(ctx, "acme", "run-slow", "driver-a")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release(ctx)
	first := h.Lease().Revision
	slow.mu.Lock()
	slow.fail = 2
	slow.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for h.Lease().Revision == first {
		select {
		case <-h.Lost():
			t.Fatal("a renewal that timed out gave the lease up")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the heartbeat never renewed the lease after the timeouts")
		}
		time.Sleep(10 * time.Millisecond)
	}
	slow.mu.Lock()
	left := slow.fail
	slow.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d timeouts not reached: this test would prove nothing", left)
	}
	if !h.Valid() {
		t.Fatal("the lease renewed after two timeouts is not valid")
	}
}

// A run's end is written by the driver holding its lease only: another
// driver, a stale epoch or no lease at all is a conflict and writes nothing.
// Ended, the run's status is failed (it was the last round's: settled)
// until its next input turn opens it again; an end with a status no driver
// stops with, or of a run the log does not know, is refused.
func TestRunEndIsTheLeaseHoldersAndLastsUntilTheNextTurn(t *testing.T) {
	n := startNode(t, nil)
	nc := n.b.Conn
	var reply runs.WriteReply
	if err := ask(t, nc, "message", "acme", runs.Request{Run: "r1", ID: "m1", Text: "hi", User: "u1"}, &reply); err != nil || !reply.Applied {
		t.Fatalf("message: %v %+v", err, reply)
	}
	end := runs.Request{Run: "r1", Driver: "d1", Epoch: 1, Status: runs.StatusFailed, Reason: "upstream_error", Detail: "502 from the provider"}
	if err := ask(t, nc, "end", "acme", end, &reply); err == nil || !strings.Contains(err.Error(), runs.CodeConflict) {
		t.Fatalf("end with no lease taken: %v %+v; want a conflict", err, reply)
	}
	ctx := context.Background()
	ls, err := n.leases.Acquire(ctx, "acme", "r1", "d1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		req  runs.Request
		want string
	}{
		{"another driver", runs.Request{Run: "r1", Driver: "d2", Epoch: ls.Epoch, Status: runs.StatusFailed}, runs.CodeConflict},
		{"a stale epoch", runs.Request{Run: "r1", Driver: "d1", Epoch: ls.Epoch + 1, Status: runs.StatusFailed}, runs.CodeConflict},
		{"an answered end", runs.Request{Run: "r1", Driver: "d1", Epoch: ls.Epoch, Status: runs.StatusAnswered}, runs.CodeBadRequest},
		{"an unknown run", runs.Request{Run: "r9", Driver: "d1", Epoch: ls.Epoch, Status: runs.StatusFailed}, runs.CodeConflict},
	} {
		if err := ask(t, nc, "end", "acme", c.req, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %s", c.name, err, c.want)
		}
	}
	var r runs.Run
	if err := ask(t, nc, "get", "acme", runs.Request{Run: "r1"}, &r); err != nil || r.Ended != "" {
		t.Fatalf("after refused ends: %v %+v", err, r)
	}
	end.Epoch = ls.Epoch
	if err := ask(t, nc, "end", "acme", end, &reply); err != nil || !reply.Applied {
		t.Fatalf("the holder's end: %v %+v", err, reply)
	}
	if err := ask(t, nc, "get", "acme", runs.Request{Run: "r1"}, &r); err != nil || r.Status != runs.StatusFailed || r.EndReason != "upstream_error" || r.EndDetail != "502 from the provider" {
		t.Fatalf("ended run: %v %+v", err, r)
	}
	if err := ask(t, nc, "message", "acme", runs.Request{Run: "r1", ID: "m2", Text: "again", User: "u1"}, &reply); err != nil || !reply.Applied {
		t.Fatalf("message: %v %+v", err, reply)
	}
	r = runs.Run{}
	if err := ask(t, nc, "get", "acme", runs.Request{Run: "r1"}, &r); err != nil || r.Status != runs.StatusRunning || r.Ended != "" {
		t.Fatalf("after the next turn: %v status %q ended %q; want running", err, r.Status, r.Ended)
	}
}

// TestAttackClaimedRunEndedID: a run's end was published under the plain id
// run-ended:<tenant>/<run>/<version>, a small count anyone guesses; a stolen
// verifier credential published on its own subject in TS_OUT under those
// ids first, and the lease holder's end was dropped as a duplicate not its
// own (the run still said running). Found by review (sec14). The id now
// carries the service's random part.
func TestAttackClaimedRunEndedID(t *testing.T) {
	n := startNode(t, nil)
	var reply runs.WriteReply
	if err := ask(t, n.b.Conn, "message", "acme", runs.Request{Run: "r1", ID: "m1", Text: "hi", User: "u1"}, &reply); err != nil || !reply.Applied {
		t.Fatalf("message: %v %+v", err, reply)
	}
	ctx := context.Background()
	ls, err := n.leases.Acquire(ctx, "acme", "r1", "d1")
	if err != nil {
		t.Fatal(err)
	}
	js := bustest.RoleJS(t, n.b, auth.Identity{Role: auth.RoleVerifier})
	for v := range 8 {
		if _, err := js.Publish(ctx, "ts.answer.acme.x", []byte("x"), jetstream.WithMsgID(fmt.Sprintf("run-ended:acme/r1/%d", v))); err != nil {
			t.Fatalf("the verifier's publish: %v", err)
		}
	}
	end := runs.Request{Run: "r1", Driver: "d1", Epoch: ls.Epoch, Status: runs.StatusFailed, Reason: "upstream_error", Detail: "502"}
	if err := ask(t, n.b.Conn, "end", "acme", end, &reply); err != nil || !reply.Applied {
		t.Fatalf("the lease holder's end after the verifier's claims: %v %+v", err, reply)
	}
	var r runs.Run
	if err := ask(t, n.b.Conn, "get", "acme", runs.Request{Run: "r1"}, &r); err != nil || r.Status != runs.StatusFailed {
		t.Errorf("the run after its holder ended it: %v status %q, want failed", err, r.Status)
	}
}

// TestAttackClaimedRunMessageID: a run.message's id is the one its client
// gives (a driver's is a hash of the request: the same request again is
// the same message), so others can compute it. Neither another tenant's
// producer, giving the same run and message id on its own tenant, nor
// another role's credential, publishing under the message's id first (the
// plain id and the tag its own key makes) on a subject of TS_OUT it may
// write, drops acme's message: the id names the tenant, and it is tagged
// under the runs role's key (events.OwnedMsgID). Through the real server,
// each with its own credential.
func TestAttackClaimedRunMessageID(t *testing.T) {
	n := startNode(t, nil)
	ctx := context.Background()
	globex := bustest.RoleJS(t, n.b, auth.Identity{Role: auth.RoleProducer, Tenant: "globex"}).Conn()
	var reply runs.WriteReply
	if err := ask(t, globex, "message", "globex", runs.Request{Run: "r1", ID: "m1", Text: "globex's", User: "u1"}, &reply); err != nil || !reply.Applied {
		t.Fatalf("globex's message: %v %+v", err, reply)
	}
	id, subj := events.RunMessageID("acme", "r1", "m1"), "ts.run.acme.r1"
	js := bustest.RoleJS(t, n.b, auth.Identity{Role: auth.RoleVerifier})
	for _, claim := range []string{id, events.OwnedMsgID(events.DeriveMsgIDKey([]byte("verifier")), subj, id)} {
		if _, err := js.Publish(ctx, "ts.answer.acme.x", []byte("x"), jetstream.WithMsgID(claim)); err != nil {
			t.Fatalf("the verifier's claim %s: %v", claim, err)
		}
	}
	acme := bustest.RoleJS(t, n.b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}).Conn()
	if err := ask(t, acme, "message", "acme", runs.Request{Run: "r1", ID: "m1", Text: "acme's", User: "u1"}, &reply); err != nil || !reply.Applied {
		t.Fatalf("acme's message after globex's and the verifier's claims: %v %+v", err, reply)
	}
	evs, err := n.b.ReadEvents(ctx, []string{subj})
	if err != nil || len(evs) != 1 || evs[0].ID != id {
		t.Fatalf("acme's run holds %d events (%v), want its message %s", len(evs), err, id)
	}
	if m, ok := evs[0].Body.(*events.RunMessage); !ok || m.Text != "acme's" {
		t.Errorf("acme's run holds %+v, want acme's message", evs[0].Body)
	}
}
