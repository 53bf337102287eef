package stack

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// On the tenant layout TS_IN keeps no duplicate window (finding D,
// docs/security.md), and it takes ingest's sealed raw copies directly: a
// relay that publishes a copy again because the acknowledgement was lost
// has it stored twice. Ingest must apply it once, by the raw event's
// sequence the copy names (assembler.Ingest.unseal).

// sealedCopies are the sealed raw copies TS_IN holds on tenant's stream,
// oldest first.
func sealedCopies(ctx context.Context, t *testing.T, b *bus.Bus, tenant, stream string) []*jetstream.RawStreamMsg {
	t.Helper()
	subj, err := events.RawSubject(tenant, stream)
	if err != nil {
		t.Fatal(err)
	}
	var out []*jetstream.RawStreamMsg
	for _, m := range scan(ctx, t, b.Stream(events.StreamIn)) {
		if m.Subject == subj {
			out = append(out, m)
		}
	}
	return out
}

// republish stores each message again as it was (subject, headers with
// its Nats-Msg-Id, data), as a relay retrying a publish whose
// acknowledgement it lost does, and returns the last sequence stored. Each
// must be stored anew: TS_IN keeps no duplicate window on this layout.
func republish(ctx context.Context, t *testing.T, b *bus.Bus, msgs []*jetstream.RawStreamMsg) uint64 {
	t.Helper()
	var last uint64
	for _, m := range msgs {
		again := nats.NewMsg(m.Subject)
		again.Data = m.Data
		for k, v := range m.Header {
			if !strings.HasPrefix(k, "Nats-Stream-Source") {
				again.Header[k] = v
			}
		}
		ack, err := b.JS.PublishMsg(ctx, again)
		if err != nil {
			t.Fatal(err)
		}
		if ack.Duplicate || ack.Stream != events.StreamIn {
			t.Fatalf("retried copy %s: %+v; want it stored again in %s (no duplicate window)", m.Header.Get(jetstream.MsgIDHeader), ack, events.StreamIn)
		}
		last = ack.Sequence
	}
	return last
}

// streamCounts is how many messages each stream of the log holds.
func streamCounts(ctx context.Context, t *testing.T, b *bus.Bus, names ...string) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	for _, name := range names {
		info, err := b.Stream(name).Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = info.State.Msgs
	}
	return out
}

// settled waits until ingest has read all of TS_IN, the assembler all of
// TS_MODEL, both relayed what they emitted, and the streams' counts held
// still for half a second (sources copy asynchronously), and returns them.
func settled(ctx context.Context, t *testing.T, b *bus.Bus, s *Stack, names ...string) map[string]uint64 {
	t.Helper()
	last := streamCounts(ctx, t, b, names...)
	for stable := time.Now(); time.Since(stable) < 500*time.Millisecond; time.Sleep(50 * time.Millisecond) {
		for name, stream := range map[string]string{assembler.IngestName: events.StreamIn, assembler.Name: events.StreamModel} {
			r, _ := s.Runner(name)
			seq, err := b.LastSeq(ctx, stream)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.WaitFor(ctx, seq); err != nil {
				t.Fatal(err)
			}
			if err := r.WaitRelayed(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if now := streamCounts(ctx, t, b, names...); fmt.Sprint(now) != fmt.Sprint(last) {
			last, stable = now, time.Now()
		}
	}
	return last
}

// TestRetriedSealedCopyAppliedOnce: acme's producer publishes a clean raw
// Responses stream r2, then the same shape of stream r1 whose sealed
// copies are stored a second time: the first three while r1 is open, then
// all of them once it ended, each retry later than the tenant stream's
// duplicate window (as a relay restarted after it would retry). r1's call
// is decided once with the arguments sent once, ingest rejects nothing,
// TS_MODEL holds no event twice, and r1 with its retries adds to TS_MODEL,
// TS_CALLS and TS_OUT exactly what the clean r2 added.
func TestRetriedSealedCopyAppliedOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A duplicate window of a second, waited out before each retry: the
	// tenant stream's window does not drop what a copy applied twice
	// emits again.
	const window = time.Second
	b := bustest.StartTenantsWith(t, bus.Config{DuplicateWindow: window}, "acme")
	s := startAssembler(ctx, t, b)
	ing, ok := s.Runner(assembler.IngestName)
	if !ok {
		t.Fatal("no ingest runner")
	}
	acme := forger(t, b, "acme")
	// TS_IN aside: ingest deletes the clear raw events there as it goes.
	shared := []string{events.StreamModel, events.StreamCalls, events.StreamOut}
	before := streamCounts(ctx, t, b, shared...)
	publishRaw(ctx, t, acme, "r2", rawResponse("resp_r2", "clean-0b4c"))
	if _, err := bustest.WaitEvents(ctx, b, []string{"ts.call.acme.>"}, func(evs []*events.Event) bool { return len(evs) == 1 }); err != nil {
		t.Fatalf("r2's call was not decided: %v", err)
	}
	clean := settled(ctx, t, b, s, shared...)

	lines := rawResponse("resp_r1", "retry-7f3a")
	publishRaw(ctx, t, acme, "r1", lines[:3])
	for deadline := time.Now().Add(time.Minute); len(sealedCopies(ctx, t, b, "acme", "r1")) < 3; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("r1's first three raw events were not sealed")
		}
	}
	time.Sleep(window + 200*time.Millisecond)
	if err := ing.WaitFor(ctx, republish(ctx, t, b, sealedCopies(ctx, t, b, "acme", "r1"))); err != nil {
		t.Fatal(err)
	}
	publishRaw(ctx, t, acme, "r1", lines[3:])
	calls, err := bustest.WaitEvents(ctx, b, []string{"ts.call.acme.>"}, func(evs []*events.Event) bool { return len(evs) == 2 })
	if err != nil {
		t.Fatalf("r1's call was not decided: %v", err)
	}
	settled(ctx, t, b, s, shared...)
	copies := sealedCopies(ctx, t, b, "acme", "r1")
	if len(copies) != len(lines)+3 {
		t.Fatalf("TS_IN holds %d sealed copies of r1, want %d (each raw event once, the first three twice)", len(copies), len(lines)+3)
	}
	time.Sleep(window + 200*time.Millisecond)
	if err := ing.WaitFor(ctx, republish(ctx, t, b, copies)); err != nil {
		t.Fatal(err)
	}
	after := settled(ctx, t, b, s, shared...)

	for _, name := range shared {
		if r2, r1 := clean[name]-before[name], after[name]-clean[name]; r1 != r2 {
			t.Errorf("%s: r1 with its retried copies added %d messages, the clean r2 %d", name, r1, r2)
		}
	}
	ids := map[string]int{}
	for _, m := range scan(ctx, t, b.Stream(events.StreamModel)) {
		if ids[m.Header.Get(jetstream.MsgIDHeader)]++; ids[m.Header.Get(jetstream.MsgIDHeader)] == 2 {
			t.Errorf("TS_MODEL holds %s (%s) twice", m.Header.Get(jetstream.MsgIDHeader), m.Subject)
		}
	}
	if calls, err = b.ReadEvents(ctx, []string{"ts.call.acme.>"}); err != nil {
		t.Fatal(err)
	}
	var r1 []*events.Event
	for _, ev := range calls {
		if done, ok := ev.Body.(*events.CallCompleted); ok && strings.Contains(string(done.Arguments), "retry-7f3a") {
			r1 = append(r1, ev)
			if string(done.Arguments) != `{"q":"retry-7f3a"}` {
				t.Errorf("r1's call's arguments: %s; want them sent once", done.Arguments)
			}
		}
	}
	if len(r1) != 1 || len(calls) != 2 {
		t.Errorf("%d call events, %d of r1's call: want one CallCompleted each for r1 and r2", len(calls), len(r1))
	}
	if rj, err := ing.Rejections(); err != nil || len(rj) != 0 {
		t.Errorf("ingest rejected %+v (%v); a retried copy is no error, it is applied once", rj, err)
	}
}
