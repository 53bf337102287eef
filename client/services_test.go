package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
)

// startServices runs the memory and runs projections and their services
// on b, as serve does, until the test ends.
func startServices(t testing.TB, b *bus.Bus) {
	t.Helper()
	stop, err := services(b, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
}

// services runs the memory and runs projections (views in dir) and their
// services on b, as serve does, until stop.
func services(b *bus.Bus, dir string) (stop func(), err error) {
	ctx := context.Background()
	n := stack.NewNode(b, dir, nil)
	svc, err := micro.AddService(b.Conn, micro.Config{Name: "toolstream-test", Version: "0.1.0"})
	if err != nil {
		n.Stop()
		return nil, err
	}
	stop = func() { svc.Stop(); n.Stop() }
	publish := func(ctx context.Context, subj string, ev *events.Event, scope string) (uint64, error) {
		ack, err := b.PublishSealed(ctx, subj, ev, scope)
		if err != nil {
			return 0, err
		}
		return ack.Sequence, nil
	}
	engine := memory.NewEngine(memory.Config{}, nil)
	mr, err := n.Start(ctx, memory.NewProjection(engine), nil)
	if err != nil {
		stop()
		return nil, err
	}
	if err := (&memory.Service{Engine: engine, Runner: mr, Publish: publish}).AddTo(svc); err != nil {
		stop()
		return nil, err
	}
	rr, err := n.Start(ctx, runs.New(runs.Config{}), nil)
	if err != nil {
		stop()
		return nil, err
	}
	leases, err := runs.NewLeases(ctx, runs.LeaseConfig{JS: b.JS})
	if err != nil {
		stop()
		return nil, err
	}
	rs := &runs.Service{Runner: rr, Leases: leases, Publish: func(ctx context.Context, subj string, ev *events.Event) (uint64, error) {
		return publish(ctx, subj, ev, "")
	}}
	if err := rs.AddTo(svc); err != nil {
		stop()
		return nil, err
	}
	// The endpoints' subscriptions reach the server before anyone asks.
	if err := b.Conn.Flush(); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// TestRuns: a producer's loop through the runs service: a user's message
// starts a run, its state and history come back in a provider's shape, a
// plan written against the version read applies and one written against
// an older version is refused with the current version; another tenant's
// runs are refused to a producer. Leases, a driver's: they exclude a second
// driver, and a producer may take, renew and release none of them.
func TestRuns(t *testing.T) {
	b := bustest.Start(t)
	startServices(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, client.WithRequestTimeout(3*time.Second))
	v, err := c.Say(ctx, "acme", "run1", "u1", "m1", "What is the weather in Paris?", "openai-chat")
	if err != nil || v == 0 {
		t.Fatal(v, err)
	}
	run, err := c.Run(ctx, "acme", "run1")
	if err != nil || run.ID != "run1" || run.Version != v {
		t.Fatalf("%+v %v", run, err)
	}
	h, err := c.History(ctx, "acme", "run1", runs.HistoryOptions{Format: "openai-chat"})
	if err != nil || !strings.Contains(string(h.Messages), `"role":"user"`) || !strings.Contains(string(h.Messages), "Paris") {
		t.Fatalf("%+v %v", h, err)
	}
	plan := json.RawMessage(`{"goal":"answer","steps":[{"id":"s1","do":"get_weather"}]}`)
	v2, err := c.WritePlan(ctx, "acme", "run1", plan, run.Version, "loop")
	if err != nil || v2 <= run.Version {
		t.Fatal(v2, err)
	}
	var stale *client.StaleError
	if again, err := c.WritePlan(ctx, "acme", "run1", plan, run.Version, "loop"); err != nil || again != v2 {
		t.Fatalf("the same write again (a retry): %d, %v", again, err)
	}
	other := json.RawMessage(`{"goal":"answer otherwise"}`)
	if _, err := c.WritePlan(ctx, "acme", "run1", other, run.Version, "late"); !errors.As(err, &stale) || !errors.Is(err, client.ErrStaleVersion) || stale.Current != v2 {
		t.Fatalf("a stale plan: %v", err)
	}
	if _, err := c.WritePlan(ctx, "acme", "run1", json.RawMessage(`[1]`), v2, "bad"); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("a plan that is not an object: %v", err)
	}
	if _, err := c.Run(ctx, "acme", "nope"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("an unknown run: %v", err)
	}
	if _, err := c.History(ctx, "acme", "run1", runs.HistoryOptions{Format: "telepathy"}); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("an unknown format: %v", err)
	}
	if list, err := c.Runs(ctx, "acme"); err != nil || len(list) != 1 {
		t.Fatalf("%+v %v", list, err)
	}
	if _, err := c.Runs(ctx, "other"); !errors.Is(err, client.ErrPermissionDenied) {
		t.Fatalf("another tenant's runs: %v", err)
	}
	d := connect(t, b, auth.Identity{Role: auth.RoleDriver}, client.WithRequestTimeout(3*time.Second))
	l, err := d.Lease(ctx, "acme", "run1", "d1")
	if err != nil || l.Lease.Driver != "d1" || l.Run == nil {
		t.Fatalf("%+v %v", l, err)
	}
	if _, err := d.Lease(ctx, "acme", "run1", "d2"); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("a second driver: %v", err)
	}
	renewed, err := d.Renew(ctx, l.Lease)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Release(ctx, renewed); err != nil {
		t.Fatal(err)
	}
}

// TestAttackProducerTakesNoRunLease: a tenant's producer asks the runs
// service, through the real server, to take a run's lease of its own
// tenant, to renew and to release the lease its tenant's driver holds: each
// is refused ErrPermissionDenied, and the driver's lease is as it was (the
// driver renews it at the same epoch; a second driver is still refused).
// Before, the producer's tsv.runs.*.acme let it take the lease and stop
// its tenant's driver.
func TestAttackProducerTakesNoRunLease(t *testing.T) {
	b := bustest.Start(t)
	startServices(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, client.WithRequestTimeout(3*time.Second))
	d := connect(t, b, auth.Identity{Role: auth.RoleDriver}, client.WithRequestTimeout(3*time.Second))
	for _, run := range []string{"r1", "r2"} {
		if _, err := p.Say(ctx, "acme", run, "u1", "m1", "Wie wird das Wetter in Lyon?", "openai-chat"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Lease(ctx, "acme", "r2", "mallory"); !errors.Is(err, client.ErrPermissionDenied) {
		t.Fatalf("a producer's lease of a free run: %v, want ErrPermissionDenied", err)
	}
	held, err := d.Lease(ctx, "acme", "r1", "loop")
	if err != nil {
		t.Fatal(err)
	}
	for verb, try := range map[string]func() error{
		"lease":   func() error { _, err := p.Lease(ctx, "acme", "r1", "mallory"); return err },
		"renew":   func() error { _, err := p.Renew(ctx, held.Lease); return err },
		"release": func() error { return p.Release(ctx, held.Lease) },
	} {
		if err := try(); !errors.Is(err, client.ErrPermissionDenied) {
			t.Errorf("a producer's %s of its driver's lease: %v, want ErrPermissionDenied", verb, err)
		}
	}
	if _, err := d.Lease(ctx, "acme", "r1", "other"); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("a second driver after the producer's tries: %v, want ErrConflict (the lease still held)", err)
	}
	renewed, err := d.Renew(ctx, held.Lease)
	if err != nil || renewed.Epoch != held.Lease.Epoch || renewed.Driver != "loop" {
		t.Fatalf("the driver's renewal after the producer's tries: %+v %v, want epoch %d of loop", renewed, err, held.Lease.Epoch)
	}
	// r2 was never leased: the producer's refused lease left nothing.
	free, err := d.Lease(ctx, "acme", "r2", "loop")
	if err != nil || free.Lease.Epoch != 1 {
		t.Fatalf("the driver's lease of r2: %+v %v, want epoch 1", free, err)
	}
}

// TestMemory: write, read, correct, forget and erase through the memory
// service; a stale correction is ErrStaleVersion, an unknown record
// ErrNotFound; a forgotten record's text and an erased user's events are
// unreadable in the log.
func TestMemory(t *testing.T) {
	b := bustest.Start(t)
	startServices(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, b, auth.Identity{Role: auth.RoleOperator})
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rep, err := c.Observe(ctx, "acme", "ann", client.Observation{ID: "car", Kind: "fact", Subject: "ann", Attribute: "car",
		Value: "volvo", Text: "Ann drives a Volvo", At: at})
	if err != nil || !rep.Applied {
		t.Fatal(rep, err)
	}
	if _, err := c.Message(ctx, "acme", "ann", "m1", "I am vegetarian.", at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	recs, err := c.Records(ctx, "acme", "ann", false)
	if err != nil || len(recs) < 2 {
		t.Fatalf("%+v %v", recs, err)
	}
	out, err := c.Recall(ctx, "acme", "ann", "what does Ann drive", client.RecallOptions{K: 3, At: at.Add(time.Hour)})
	if err != nil || len(out.Results) == 0 || out.Results[0].ID != "car" {
		t.Fatalf("%+v %v", out, err)
	}
	// the budget is the request's, in estimated tokens: the records, best
	// first, whose texts fit, the first always
	both, err := c.Recall(ctx, "acme", "ann", "Ann drives, vegetarian", client.RecallOptions{At: at.Add(time.Hour)})
	if err != nil || len(both.Results) != 2 {
		t.Fatalf("%+v %v", both, err)
	}
	for budget, want := range map[int]int{1: 1, memory.EstimateTokens(both.Results[0].Text): 1,
		memory.EstimateTokens(both.Results[0].Text) + memory.EstimateTokens(both.Results[1].Text): 2} {
		got, err := c.Recall(ctx, "acme", "ann", "Ann drives, vegetarian", client.RecallOptions{BudgetTokens: budget, At: at.Add(time.Hour)})
		if err != nil || len(got.Results) != want || got.Results[0].ID != both.Results[0].ID {
			t.Fatalf("budget %d tokens: %+v %v, want %d records", budget, got, err, want)
		}
	}
	if _, err := c.Recall(ctx, "acme", "ann", "Ann", client.RecallOptions{BudgetTokens: -1}); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("a negative budget: %v", err)
	}
	if _, err := c.Correct(ctx, "acme", "ann", 1, client.Observation{ID: "car", Kind: "fact", Subject: "ann", Attribute: "car",
		Value: "saab", Text: "Ann drives a Saab", At: at.Add(2 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Correct(ctx, "acme", "ann", 1, client.Observation{ID: "car", Kind: "fact", Subject: "ann", Attribute: "car",
		Value: "fiat", Text: "Ann drives a Fiat", At: at.Add(3 * time.Minute)}); !errors.Is(err, client.ErrStaleVersion) {
		t.Fatalf("a stale correction: %v", err)
	}
	hist, err := c.RecordHistory(ctx, "acme", "ann", "car")
	if err != nil || len(hist) != 2 {
		t.Fatalf("%+v %v", hist, err)
	}
	if _, err := c.RecordHistory(ctx, "acme", "ann", "boat"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("an unknown record: %v", err)
	}
	f, err := c.Forget(ctx, "acme", "ann", "car")
	if err != nil || f.Keys == 0 || f.Tombstone == 0 {
		t.Fatalf("%+v %v", f, err)
	}
	if _, err := c.RecordHistory(ctx, "acme", "ann", "car"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("a forgotten record: %v", err)
	}
	res, err := c.EraseUser(ctx, "acme", "ann")
	if err != nil || len(res.Tombstones) == 0 {
		t.Fatalf("%+v %v", res, err)
	}
	// Nothing of Ann's reads back from the log.
	err = b.Read(ctx, logread.Config{Stream: events.StreamMemory}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys)
			if err == nil && ev.User == "ann" {
				t.Errorf("%s of ann reads back: %+v", ev.ID, ev.Body)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reader := connect(t, b, auth.Identity{Role: auth.RoleReader}, client.WithRequestTimeout(2*time.Second))
	if _, err := reader.Observe(ctx, "acme", "bob", client.Observation{ID: "x", Text: "x", Kind: "fact"}); !errors.Is(err, client.ErrPermissionDenied) {
		t.Fatalf("a reader writing memory: %v", err)
	}
	if _, err := c.Records(ctx, "acme", "", false); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("no user: %v", err)
	}
}

// TestWatchRunOneRun: with WatchRun, a change to another run of the
// tenant, written first, is not yielded; the watched run's is.
func TestWatchRunOneRun(t *testing.T) {
	b := bustest.Start(t)
	startServices(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	changes, err := c.WatchRuns(ctx, "acme", client.WatchRun("run1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Say(ctx, "acme", "run0", "u1", "m0", "Not the watched run", "openai-chat"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Say(ctx, "acme", "run1", "u1", "m1", "What is the weather in Paris?", "openai-chat"); err != nil {
		t.Fatal(err)
	}
	for ch, err := range changes {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Run != "run1" || ch.Kind != events.KindRunMessage {
			t.Fatalf("the first change: %+v", ch)
		}
		break
	}
	if ctx.Err() != nil {
		t.Fatal("the watched run's change was not received")
	}
}

// TestWatchRunsSeesWhatFollowsIt: WatchRuns returns once the server has
// the subscription, so a run's change written right after it returns,
// before the iteration starts, is received (an iterator that subscribed
// only when iterated would miss it), and another tenant's is not; a
// producer may watch its own tenant's runs only.
func TestWatchRunsSeesWhatFollowsIt(t *testing.T) {
	b := bustest.Start(t)
	startServices(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	globex := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "globex"})
	changes, err := c.WatchRuns(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := globex.Say(ctx, "globex", "run0", "u1", "m0", "Not acme's", "openai-chat"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Say(ctx, "acme", "run1", "u1", "m1", "What is the weather in Paris?", "openai-chat"); err != nil {
		t.Fatal(err)
	}
	for ch, err := range changes {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Run != "run1" || ch.Tenant != "acme" || ch.Kind != events.KindRunMessage {
			t.Fatalf("the first change: %+v", ch)
		}
		break
	}
	if ctx.Err() != nil {
		t.Fatal("the change written after WatchRuns returned was not received")
	}
	if _, err := c.WatchRuns(ctx, "globex"); !errors.Is(err, client.ErrPermissionDenied) {
		t.Fatalf("a producer of acme watching globex: %v", err)
	}
	if _, err := c.WatchRuns(ctx, "a.b"); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("a bad tenant: %v", err)
	}
}

// TestWatchRunsUntilCancelled: a watch whose context has no deadline,
// only a cancel (toolstream runs --follow until Ctrl-C), subscribes and
// sees a change; it failed with nats' "context requires a deadline".
func TestWatchRunsUntilCancelled(t *testing.T) {
	b := bustest.Start(t)
	startServices(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	changes, err := c.WatchRuns(ctx, "acme")
	if err != nil {
		t.Fatalf("a watch until cancelled: %v", err)
	}
	sayCtx, sayCancel := context.WithTimeout(ctx, time.Minute)
	defer sayCancel()
	if _, err := c.Say(sayCtx, "acme", "run1", "u1", "m1", "What is the weather in Paris?", "openai-chat"); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, cancel) // a change that never comes fails, not hangs
	defer timer.Stop()
	for ch, err := range changes {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Run != "run1" || ch.Kind != events.KindRunMessage {
			t.Fatalf("the first change: %+v", ch)
		}
		return
	}
	t.Fatal("the change was not received")
}

// TestWritesAtOneTimeAreEachStored: two corrections of one record stamped
// with the same time, and an observation reusing a record id with other
// content at the same time, are different requests: each is stored and
// judged (the second correction is version 3; the reused id is
// ErrBadInput), none is taken for a retry of the other and reported
// applied while the log dropped it. A true retry (the same request again)
// is still stored once.
func TestWritesAtOneTimeAreEachStored(t *testing.T) {
	b := bustest.Start(t)
	startServices(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, b, auth.Identity{Role: auth.RoleOperator})
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	obs := func(v string) client.Observation {
		return client.Observation{ID: "car", Kind: "fact", Subject: "ann", Attribute: "car", Value: v, Text: "Ann drives a " + v, At: at}
	}
	first, err := c.Observe(ctx, "acme", "ann", obs("Volvo"))
	if err != nil || !first.Applied {
		t.Fatal(first, err)
	}
	again, err := c.Observe(ctx, "acme", "ann", obs("Volvo"))
	if err != nil || again.Seq != first.Seq {
		t.Fatalf("a retried observation: %+v %v, want the first's seq %d", again, err, first.Seq)
	}
	if rep, err := c.Observe(ctx, "acme", "ann", obs("Audi")); !errors.Is(err, client.ErrBadInput) {
		t.Fatalf("a reused record id with other content at the same time: %+v %v, want ErrBadInput", rep, err)
	}
	for i, v := range []string{"Saab", "Fiat"} {
		rep, err := c.Correct(ctx, "acme", "ann", i+1, obs(v))
		if err != nil || !rep.Applied {
			t.Fatalf("correction %d (%s): %+v %v", i+1, v, rep, err)
		}
	}
	hist, err := c.RecordHistory(ctx, "acme", "ann", "car")
	if err != nil || len(hist) != 3 {
		t.Fatalf("history %+v %v, want three versions", hist, err)
	}
	recs, err := c.Records(ctx, "acme", "ann", false)
	if err != nil || len(recs) != 1 || recs[0].Value != "Fiat" {
		t.Fatalf("records %+v %v, want the Fiat", recs, err)
	}
}
