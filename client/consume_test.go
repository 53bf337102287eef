package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
)

// publish writes ev (sealed under its user's key, as the assembler does)
// and returns its sequence.
func publish(t testing.TB, b *bus.Bus, ev *events.Event) uint64 {
	t.Helper()
	var subj string
	var err error
	switch ev.Body.(type) {
	case *events.CallCompleted, *events.CallRejected, *events.CallIncomplete:
		subj, err = events.CallSubject(ev.Tenant, "get_weather")
	case *events.CallSucceeded, *events.CallFailed:
		subj, err = events.ResultSubject(ev.Tenant, ev.CallID)
	default:
		subj, err = events.AnswerSubject(ev.Tenant, ev.Response)
	}
	if err != nil {
		t.Fatal(err)
	}
	ack, err := b.Publish(context.Background(), subj, ev)
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

func callEvent(tenant string, i int, body events.Body) *events.Event {
	return &events.Event{ID: fmt.Sprintf("test:%s/%d", tenant, i), Tenant: tenant, User: "u1", Run: "run1", Step: "1",
		Response: "resp_1", Item: fmt.Sprint("fc_", i), CallID: fmt.Sprint("call_", i), At: int64(i), Body: body}
}

// TestConsumers: calls, results and verdicts of a tenant come back typed,
// in log order, without another tenant's; garbage published on the
// tenant's subjects comes back as a *MalformedError carrying its sequence
// and the iteration goes on; After resumes; Follow waits for more; an
// erased user's event is ErrErased.
func TestConsumers(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s1 := publish(t, b, callEvent("acme", 1, &events.CallCompleted{Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`), DependsOn: []string{"call_0"}}))
	publish(t, b, callEvent("other", 1, &events.CallCompleted{Name: "get_weather", Arguments: []byte(`{}`)}))
	garbage, err := b.JS.Publish(ctx, "ts.call.acme.get_weather", []byte("not an event"))
	if err != nil {
		t.Fatal(err)
	}
	s3 := publish(t, b, callEvent("acme", 2, &events.CallRejected{Name: "get_weather", Reason: events.ReasonSchemaViolation, Detail: "/city: required", Arguments: []byte(`{}`)}))
	s4 := publish(t, b, callEvent("acme", 3, &events.CallIncomplete{Name: "get_weather", Reason: events.ReasonStreamEnded, Partial: []byte(`{"ci`)}))
	publish(t, b, callEvent("acme", 1, &events.CallSucceeded{Name: "get_weather", Key: "k", Result: []byte(`{"temp":21}`), Summary: "21°", Attempts: 1}))
	publish(t, b, callEvent("acme", 2, &events.CallFailed{Name: "get_weather", Key: "k2", Error: events.ErrorType("timeout"), Message: "slow", Attempts: 2}))
	publish(t, b, callEvent("acme", 9, &events.AnswerSubmitted{Text: "It is 21°"})) // not a verdict: skipped
	publish(t, b, callEvent("acme", 10, &events.AnswerVerified{Faithfulness: 1, Policy: "annotate"}))

	c := connect(t, b, auth.Identity{Role: auth.RoleReader})
	var got []string
	for call, err := range c.Calls(ctx, "acme") {
		var me *client.MalformedError
		switch {
		case errors.As(err, &me) && errors.Is(err, client.ErrBadInput):
			got = append(got, fmt.Sprintf("malformed %s %d %s", me.Stream, me.Seq, me.Subject))
		case err != nil:
			t.Fatal(err)
		default:
			got = append(got, fmt.Sprintf("%d %s %s %s %s %s %v user=%s run=%s", call.Seq, call.Outcome, call.Tool, call.Arguments, call.Reason, call.Detail, call.DependsOn, call.User, call.Run))
		}
	}
	want := []string{
		fmt.Sprintf(`%d completed get_weather {"city":"Paris"}   [call_0] user=u1 run=run1`, s1),
		fmt.Sprintf("malformed TS_CALLS %d ts.call.acme.get_weather", garbage.Sequence),
		fmt.Sprintf(`%d rejected get_weather {} schema_violation /city: required [] user=u1 run=run1`, s3),
		fmt.Sprintf(`%d incomplete get_weather {"ci stream_ended  [] user=u1 run=run1`, s4),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("calls\n%q\nwant\n%q", got, want)
	}
	var after []uint64
	for call, err := range c.Calls(ctx, "acme", client.After(garbage.Sequence)) {
		if err != nil {
			t.Fatal(err)
		}
		after = append(after, call.Seq)
	}
	if fmt.Sprint(after) != fmt.Sprint([]uint64{s3, s4}) {
		t.Fatalf("after %d: %v", garbage.Sequence, after)
	}
	var results []string
	for r, err := range c.Results(ctx, "acme") {
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, fmt.Sprintf("%s %v %s %s %s %s %d", r.CallID, r.OK, r.Result, r.Summary, r.Error, r.Message, r.Attempts))
	}
	if want := []string{"call_1 true {\"temp\":21} 21°   1", "call_2 false   timeout slow 2"}; fmt.Sprint(results) != fmt.Sprint(want) {
		t.Fatalf("results %q", results)
	}
	var verdicts []string
	for v, err := range c.Verdicts(ctx, "acme") {
		if err != nil || v.Verified == nil {
			t.Fatalf("%+v %v", v, err)
		}
		verdicts = append(verdicts, fmt.Sprint(v.Verified.Faithfulness, " ", v.Verified.Policy))
	}
	if fmt.Sprint(verdicts) != "[1 annotate]" {
		t.Fatalf("verdicts %v", verdicts)
	}

	// Follow: a call written after the read caught up arrives; breaking
	// out ends the read.
	fctx, fcancel := context.WithTimeout(ctx, 30*time.Second)
	defer fcancel()
	go b.Publish(ctx, "ts.call.acme.get_weather", callEvent("acme", 5, &events.CallCompleted{Name: "get_weather", Arguments: []byte(`{}`)}))
	var followed []string
	for call, err := range c.Calls(fctx, "acme", client.After(s4), client.Follow()) {
		if err != nil {
			t.Fatal(err)
		}
		followed = append(followed, call.CallID)
		if call.CallID == "call_6" {
			break
		}
		// Written after the read delivered everything there was.
		publish(t, b, callEvent("acme", 6, &events.CallCompleted{Name: "get_weather", Arguments: []byte(`{}`)}))
	}
	if fmt.Sprint(followed) != "[call_5 call_6]" {
		t.Fatalf("followed %v", followed)
	}

	// An erased user's calls: ErrErased, and the iteration goes on.
	if _, err := b.Keys.(*keys.Store).Erase(ctx, "acme", "u1"); err != nil {
		t.Fatal(err)
	}
	erased := 0
	for _, err := range connect(t, b, auth.Identity{Role: auth.RoleReader}).Calls(ctx, "acme") {
		if errors.Is(err, client.ErrErased) {
			erased++
		}
	}
	if erased != 5 {
		t.Fatalf("%d erased calls, want 5", erased)
	}
}

// TestLive: a producer's identity may not read the log (ErrPermissionDenied)
// but receives its tenant's calls live, and not another tenant's.
func TestLive(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	for _, err := range c.Calls(ctx, "acme") {
		if !errors.Is(err, client.ErrPermissionDenied) {
			t.Fatalf("reading the log: %v", err)
		}
	}
	for _, err := range c.Calls(ctx, "other", client.Live()) {
		if !errors.Is(err, client.ErrPermissionDenied) {
			t.Fatalf("another tenant live: %v", err)
		}
	}
	// The subscription starts inside the iteration: write until two came.
	stop := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			for _, tenant := range []string{"other", "acme"} {
				b.Publish(ctx, "ts.call."+tenant+".get_weather", callEvent(tenant, i, &events.CallCompleted{Name: "get_weather", Arguments: []byte(`{}`)}))
			}
		}
	}()
	defer close(stop)
	n := 0
	for call, err := range c.Calls(ctx, "acme", client.Live()) {
		if err != nil {
			t.Fatal(err)
		}
		if call.Seq != 0 || call.Tenant != "acme" || call.Outcome != client.CallCompleted {
			t.Fatalf("%+v", call)
		}
		if n++; n == 2 {
			break
		}
	}
}
