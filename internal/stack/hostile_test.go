package stack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/jstest"

	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
)

// The hostile tenant's attacks on the clock (docs/security.md), against
// serve's wiring (Start: ingest, the assembler and the clock) over a real
// embedded server, from the clients an attacker holding acme's producer
// credential has: nats.go with its creds, and the stock nats CLI.

// forger is a producer's own connection: what acme's credential reaches.
func forger(t *testing.T, b *bus.Bus, tenant string) jetstream.JetStream {
	t.Helper()
	return bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: tenant})
}

// startAssembler starts ingest and the assembler on b, with an idle
// timeout no test waits out; the test's cleanup stops them.
func startAssembler(ctx context.Context, t *testing.T, b *bus.Bus) *Stack {
	t.Helper()
	s, err := Start(ctx, Config{Bus: b, ViewsDir: t.TempDir(), Components: []string{assembler.IngestName, assembler.Name},
		Projections: Projections{IdleTimeout: 10 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func tickAt(tenant string, at int64) []byte {
	data, err := events.Encode(&events.Event{ID: fmt.Sprint("tick:", at), Tenant: tenant, At: at, Body: &events.Tick{}})
	if err != nil {
		panic(err)
	}
	return data
}

// natsPub publishes data from stdin with the stock nats CLI as the
// identity of creds, to JetStream, and returns the stored sequence.
func natsPub(t *testing.T, b *bus.Bus, id auth.Identity, subject string, data []byte, headers ...string) uint64 {
	t.Helper()
	cli := jstest.NatsCLI(t)
	args := []string{"--server", b.ClientURL(), "--creds", bustest.Creds(t, b, id), "--inbox-prefix", id.InboxPrefix(), "--timeout", "20s",
		"pub", "--jetstream", "--force-stdin"}
	for _, h := range headers {
		args = append(args, "--header", h)
	}
	cmd := exec.Command(cli, append(args, subject)...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nats pub %s: %v\n%s", subject, err, out)
	}
	m := regexp.MustCompile(`[Ss]equence:? (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("nats pub %s: no sequence in %q", subject, out)
	}
	seq, _ := strconv.ParseUint(string(m[1]), 10, 64)
	return seq
}

// rejectionCode waits until r applied seq and returns the code of its
// rejection ("" when it was not rejected).
func rejectionCode(ctx context.Context, t *testing.T, r *projector.Runner, seq uint64) events.Reason {
	t.Helper()
	if err := r.WaitFor(ctx, seq); err != nil {
		t.Fatal(err)
	}
	rj, ok, err := r.Rejection(seq)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return ""
	}
	return rj.Code
}

// TestForgedTickMovesNoClock: acme's producer publishes clock ticks dated
// an hour ahead on its own model subject (a forging nats.go client; its
// envelope says acme, or the system tenant) and on its own ingest subject
// (the stock nats CLI), and tries the system's clock subjects. Attacker:
// each tick on its subjects is refused with a typed reason
// (forged_control, tenant_mismatch), the system's subjects are refused by
// the server. Victim: globex's open call, silent for less than the idle
// timeout, is not timed out; a tick of the system's clock dated as far
// ahead then does time it out (the test can see a timeout when there is
// one).
func TestForgedTickMovesNoClock(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	s := startAssembler(ctx, t, b)
	asm, _ := s.Runner(assembler.Name)
	ing, _ := s.Runner(assembler.IngestName)
	now := time.Now().UnixNano()
	ahead := now + int64(time.Hour)

	// globex's call is open: started, not done.
	subj, _ := events.ModelSubject("globex", "r1", "i1")
	var open uint64
	for i, body := range []events.Body{&events.ResponseStarted{}, &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "lookup"}} {
		ack, err := b.Publish(ctx, subj, &events.Event{ID: fmt.Sprint("globex-r1-", i), Tenant: "globex", Response: "r1", Item: "i1", CallID: "c1", At: now, Body: body})
		if err != nil {
			t.Fatal(err)
		}
		open = ack.Sequence
	}
	if code := rejectionCode(ctx, t, asm, open); code != "" {
		t.Fatalf("globex's call refused: %s", code)
	}

	js := forger(t, b, "acme")
	acmeModel, _ := events.ModelSubject("acme", "r9", "i9")
	for _, c := range []struct {
		tenant string
		want   events.Reason
	}{{"acme", events.ReasonForgedControl}, {events.SystemTenant, events.ReasonTenantMismatch}} {
		ack, err := js.Publish(ctx, acmeModel, tickAt(c.tenant, ahead))
		if err != nil {
			t.Fatalf("acme's tick on its model subject not stored: %v", err)
		}
		if code := rejectionCode(ctx, t, asm, ack.Sequence); code != c.want {
			t.Errorf("assembler on acme's tick (tenant %s) on %s: rejection %q, want %q", c.tenant, acmeModel, code, c.want)
		}
	}
	// The stock CLI, on acme's ingest subject: ingest refuses it (when it
	// reads its sealed copy) as a forged control event, not as a tick.
	acmeIn, _ := events.IngestSubject("acme", "openai", "s1")
	seq := natsPub(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, acmeIn, tickAt("acme", ahead))
	if code := rejectionCode(ctx, t, ing, copySeq(ctx, t, b, "acme", seq)); code != events.ReasonForgedControl {
		t.Errorf("ingest on acme's tick on %s: rejection %q, want %q", acmeIn, code, events.ReasonForgedControl)
	}
	// The system's clock subjects are not acme's to write.
	for _, sys := range events.ClockSubjects {
		pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
		_, err := js.Publish(pctx, sys, tickAt(events.SystemTenant, ahead))
		pcancel()
		if err == nil {
			t.Errorf("acme's producer published a tick on %s", sys)
		}
	}

	// Victim: nothing timed out.
	if err := asm.WaitRelayed(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countOn(ctx, t, b, events.StreamOut, "ts.resp.globex.>"); n != 0 {
		t.Fatalf("globex's response was decided by acme's forged ticks (%d outcomes)", n)
	}
	if n := countOn(ctx, t, b, events.StreamCalls, "ts.call.globex.>"); n != 0 {
		t.Fatalf("globex's call was decided by acme's forged ticks (%d decisions)", n)
	}

	// The system's clock, as far ahead, does time it out.
	if _, err := b.Publish(ctx, events.ModelClockSubject, &events.Event{ID: fmt.Sprint("tick:", ahead), Tenant: events.SystemTenant, At: ahead, Body: &events.Tick{}}); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if _, err := bustest.WaitEvents(wctx, b, []string{"ts.resp.globex.>"}, func(evs []*events.Event) bool { return len(evs) > 0 }); err != nil {
		t.Fatalf("the system's tick did not time globex's call out: %v", err)
	}
}

// countOn is how many messages stream holds on filter.
func countOn(ctx context.Context, t *testing.T, b *bus.Bus, stream, filter string) uint64 {
	t.Helper()
	info, err := b.Stream(stream).Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatal(err)
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

// TestClaimedTickIDsStopNoTimeout: the clock's tick ids are the start of
// each interval (tick:<ns>), which anyone can compute. acme's producer
// publishes junk on its own model and ingest subjects under the ids of
// the next minute of ticks, plain and with a made-up tag (a
// forging nats.go client; the first with the stock nats CLI). Attacker:
// its junk is stored on its subjects and claims nothing. Victim: the
// clock's ticks are still stored in both streams and globex's silent call
// times out (idle timeout 1s) well within that minute.
func TestClaimedTickIDsStopNoTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	const every = 200 * time.Millisecond
	js := forger(t, b, "acme")
	acmeModel, _ := events.ModelSubject("acme", "junk", "i")
	acmeIn, _ := events.IngestSubject("acme", "openai", "junk")
	from := time.Now().Truncate(every)
	var ids []string
	for at := from; at.Before(from.Add(time.Minute)); at = at.Add(every) {
		id := fmt.Sprintf("tick:%d", at.UnixNano())
		ids = append(ids, id, events.MsgIDTagPrefix+id) // the id, and a made-up tag
	}
	natsPub(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, acmeModel, []byte(`{"junk":true}`), "Nats-Msg-Id:"+ids[2])
	for _, subj := range []string{acmeModel, acmeIn} {
		for _, id := range ids {
			if _, err := js.PublishAsync(subj, []byte(`{"junk":true}`), jetstream.WithMsgID(id)); err != nil {
				t.Fatal(err)
			}
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	if n := countOn(ctx, t, b, events.StreamModel, "ts.model.acme.>"); n < uint64(len(ids)) {
		t.Fatalf("acme's junk: %d stored on its model subject, %d published", n, len(ids))
	}

	s, err := Start(ctx, Config{Bus: b, ViewsDir: t.TempDir(), Components: []string{Clock, assembler.IngestName, assembler.Name},
		Tick: every, Projections: Projections{IdleTimeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	subj, _ := events.ModelSubject("globex", "r1", "i1")
	for i, body := range []events.Body{&events.ResponseStarted{}, &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "lookup"}} {
		if _, err := b.Publish(ctx, subj, &events.Event{ID: fmt.Sprint("globex-r1-", i), Tenant: "globex", Response: "r1", Item: "i1", CallID: "c1",
			At: time.Now().UnixNano(), Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second) // the claimed ids last a minute
	defer wcancel()
	evs, err := bustest.WaitEvents(wctx, b, []string{"ts.resp.globex.>"}, func(evs []*events.Event) bool { return len(evs) > 0 })
	if err != nil {
		t.Fatalf("globex's silent call never timed out (%d ticks in TS_MODEL, %d in TS_IN): %v",
			countOn(ctx, t, b, events.StreamModel, events.ModelClockSubject), countOn(ctx, t, b, events.StreamIn, events.InClockSubject), err)
	}
	if o, ok := events.As[*events.ResponseOutcome](evs[0]); !ok || o.Reason != events.ReasonTimedOut {
		t.Fatalf("globex's response: %+v, want timed out", evs[0].Body)
	}
	for _, c := range []struct{ stream, subject string }{{events.StreamModel, events.ModelClockSubject}, {events.StreamIn, events.InClockSubject}} {
		if n := countOn(ctx, t, b, c.stream, c.subject); n == 0 {
			t.Errorf("no tick stored on %s", c.subject)
		}
	}
}

// TestClaimedRegistryIDRecordsTheRegistry: a registry change's id is
// derived from the registry's digest and the last change's sequence
// (events.RegistryChangedID), which anyone who knows the tools file can compute,
// and its subject lies in TS_MODEL, which producers write. acme's producer
// publishes junk on its model subject under the id of the operator's next
// change, plain and with a made-up tag. Attacker: claims nothing. Victim:
// the operator's Publish records the change and a follower takes it.
func TestClaimedRegistryIDRecordsTheRegistry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	reg, err := registry.Parse([]byte("tools:\n  - name: lookup\n    input_schema: {type: object}\n    side_effect: none\ngrants:\n  - tenant: globex\n    permissions: [lookup]\n"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := registry.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	js := forger(t, b, "acme")
	acmeModel, _ := events.ModelSubject("acme", "junk", "i")
	id := events.RegistryChangedID(reg.Digest(), 0)
	for _, claim := range []string{id, events.MsgIDTagPrefix + "AAAAAAAAAAAAAAAAAAAAAA"} {
		if _, err := js.Publish(ctx, acmeModel, []byte(`{"junk":true}`), jetstream.WithMsgID(claim)); err != nil {
			t.Fatal(err)
		}
	}
	published, err := registry.Publish(ctx, registry.PublishConfig{JS: b.JS, Key: key, Source: "tools.yaml", MsgIDKey: b.MsgIDKey()}, reg)
	if err != nil || !published {
		t.Fatalf("the operator's registry change: published %v, %v", published, err)
	}
	f, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: key.Trust()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	if err := f.Wait(ctx, reg.Digest()); err != nil {
		t.Fatalf("the registry never took effect: %v", err)
	}
}
