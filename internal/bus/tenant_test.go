package bus_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/logtest"
)

// waitMsgs polls stream until it holds n messages.
func waitMsgs(ctx context.Context, t *testing.T, s jetstream.Stream, n uint64) {
	t.Helper()
	for {
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs >= n {
			if info.State.Msgs > n {
				t.Fatalf("%s holds %d messages, want %d", info.Config.Name, info.State.Msgs, n)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s holds %d messages, want %d: %v", info.Config.Name, info.State.Msgs, n, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestTenantStreamsFeedTheSharedStreams: with tenant streams, EnsureTenant
// (twice: idempotent) makes TS_ING_acme and the sources; model events
// published on acme's subjects land in TS_MODEL in the order published,
// on their partition's subject as a publish into TS_MODEL did before, and
// raw events in TS_IN; a repeat is a duplicate in the tenant's stream, and
// a message sourced under a message id TS_MODEL already holds is stored
// all the same (a shared stream that sources keeps no duplicate window:
// one id in two tenants' streams is two events). A tenant with no stream
// gets no stream: its publish fails at the producer.
func TestTenantStreamsFeedTheSharedStreams(t *testing.T) {
	ctx := ctxT(t)
	b := open(t, bus.Config{DataDir: t.TempDir(), Partitions: 4, TenantStreams: true})
	for range 2 {
		if err := b.EnsureTenant(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.EnsureTenant(ctx, events.SystemTenant); !errors.Is(err, bus.ErrNoTenantStream) {
		t.Errorf("EnsureTenant(%s): %v, want ErrNoTenantStream", events.SystemTenant, err)
	}
	if tenants, err := b.Tenants(ctx); err != nil || !slices.Equal(tenants, []string{"acme"}) {
		t.Fatalf("tenants %v, %v", tenants, err)
	}
	model, in := b.Stream(events.StreamModel), b.Stream(events.StreamIn)
	for _, name := range []string{events.StreamModel, events.StreamIn} {
		info, err := b.Stream(name).Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Config.Sources) != 1 || info.Config.Sources[0].Name != "TS_ING_acme" ||
			slices.Contains(info.Config.Subjects, events.AllModel) || slices.Contains(info.Config.Subjects, events.AllIn) {
			t.Errorf("%s: subjects %v, sources %d", name, info.Config.Subjects, len(info.Config.Sources))
		}
	}

	const n = 20
	var want []string
	for i := range n {
		resp := fmt.Sprintf("r%d", i%3)
		subj, _ := events.ModelSubject("acme", resp, fmt.Sprintf("i%d", i))
		ack, err := b.Publish(ctx, subj, &events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "acme", Response: resp, At: int64(i + 1),
			Body: &events.TextDelta{Text: "x"}})
		if err != nil {
			t.Fatal(err)
		}
		if ack.Stream != bus.TenantStream("acme") {
			t.Fatalf("acknowledged by %s, want %s", ack.Stream, bus.TenantStream("acme"))
		}
		want = append(want, subj)
	}
	waitMsgs(ctx, t, model, n)
	partitions := map[string]int{}
	for i, subj := range want {
		m, err := model.GetMsg(ctx, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		p := partitionOf(t, b, m.Subject)
		if m.Subject != fmt.Sprintf("%s.%d", subj, p) {
			t.Errorf("seq %d: %s, want %s with its partition", i+1, m.Subject, subj)
		}
		resp := strings.Split(subj, ".")[3]
		if q, ok := partitions[resp]; ok && q != p {
			t.Errorf("response %s in partitions %d and %d", resp, q, p)
		}
		partitions[resp] = p
		if m.Header.Get(jetstream.MsgIDHeader) == "" {
			t.Errorf("seq %d: the message id was not kept", i+1)
		}
	}

	// A repeat, and a message id TS_MODEL already holds.
	subj, _ := events.ModelSubject("acme", "r0", "i0")
	ack, err := b.Publish(ctx, subj, &events.Event{ID: "e0", Tenant: "acme", Response: "r0", At: 1, Body: &events.TextDelta{Text: "x"}})
	if err != nil || !ack.Duplicate {
		t.Fatalf("the repeat: %+v, %v", ack, err)
	}
	ctl := nats.NewMsg(events.ModelClockSubject)
	ctl.Data = []byte("tick")
	ctl.Header.Set(jetstream.MsgIDHeader, "shared-id")
	if _, err := b.JS.PublishMsg(ctx, ctl); err != nil {
		t.Fatal(err)
	}
	same := nats.NewMsg(subj)
	same.Data = []byte("y")
	same.Header.Set(jetstream.MsgIDHeader, "shared-id")
	if ack, err := b.JS.PublishMsg(ctx, same); err != nil || ack.Duplicate {
		t.Fatalf("into the tenant's stream: %+v, %v", ack, err)
	}
	marker := nats.NewMsg(subj)
	marker.Data = []byte("z")
	if _, err := b.JS.PublishMsg(ctx, marker); err != nil {
		t.Fatal(err)
	}
	waitMsgs(ctx, t, model, n+3) // the tick, the message under shared-id, the marker
	if m, err := model.GetMsg(ctx, n+2); err != nil || string(m.Data) != "y" {
		t.Fatalf("seq %d: %v: the message sourced under an id TS_MODEL holds was dropped", n+2, err)
	}
	if m, err := model.GetMsg(ctx, n+3); err != nil || string(m.Data) != "z" {
		t.Fatalf("seq %d: %v", n+3, err)
	}
	for _, name := range []string{events.StreamModel, events.StreamIn} {
		if info, err := b.Stream(name).Info(ctx); err != nil || info.Config.Duplicates != 0 {
			t.Errorf("%s: duplicate window %v, %v: want none on a stream that sources", name, info.Config.Duplicates, err)
		}
	}

	raw, _ := events.IngestSubject("acme", "openai", "s1")
	rm := nats.NewMsg(raw)
	rm.Data = []byte(`{"type":"response.created"}`)
	if _, err := b.JS.PublishMsg(ctx, rm); err != nil {
		t.Fatal(err)
	}
	waitMsgs(ctx, t, in, 1)

	other, _ := events.ModelSubject("globex", "r1", "i1")
	if _, err := b.JS.Publish(ctx, other, []byte("x")); !errors.Is(err, jetstream.ErrNoStreamResponse) && !errors.Is(err, nats.ErrNoResponders) {
		t.Errorf("a publish for a tenant with no stream: %v, want no responders", err)
	}
}

// partitionOf is the partition token of a stored model subject.
func partitionOf(t *testing.T, b *bus.Bus, subject string) int {
	t.Helper()
	tokens := strings.Split(subject, ".")
	p, err := strconv.Atoi(tokens[len(tokens)-1])
	if len(tokens) != 6 || err != nil || p < 0 || p >= b.Partitions() {
		t.Fatalf("%s is in no partition of %d", subject, b.Partitions())
	}
	return p
}

// TestOpenMovesALogToTenantStreams: a log written in the shared layout,
// opened again with tenant streams, keeps everything it stored; once its
// tenant is ensured, new events land after the old ones.
func TestOpenMovesALogToTenantStreams(t *testing.T) {
	ctx := ctxT(t)
	dir := t.TempDir()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	subj, _ := events.ModelSubject("acme", "r1", "i1")
	before, err := b.Publish(ctx, subj, &events.Event{ID: "old", Tenant: "acme", Response: "r1", At: 1, Body: &events.TextDelta{Text: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureTenant(ctx, "acme"); err != nil { // the shared layout: nothing to do
		t.Fatal(err)
	}
	if b.TenantStreams() {
		t.Fatal("the shared layout reads as tenant streams")
	}
	b.Close()

	b = open(t, bus.Config{DataDir: dir, TenantStreams: true})
	if !b.TenantStreams() || b.Partitions() != 2 {
		t.Fatalf("tenant streams %v, partitions %d", b.TenantStreams(), b.Partitions())
	}
	if err := b.EnsureTenant(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	model := b.Stream(events.StreamModel)
	old, err := model.GetMsg(ctx, before.Sequence)
	if err != nil {
		t.Fatalf("the event stored before: %v", err)
	}
	if _, err := b.Publish(ctx, subj, &events.Event{ID: "new", Tenant: "acme", Response: "r1", At: 2, Body: &events.TextDelta{Text: "b"}}); err != nil {
		t.Fatal(err)
	}
	waitMsgs(ctx, t, model, before.Sequence+1)
	if m, err := model.GetMsg(ctx, before.Sequence+1); err != nil || m.Subject != old.Subject {
		t.Fatalf("the event after the move: %v; stored on another partition's subject than before (%s)", err, old.Subject)
	}
	b.Close()

	// A process that does not ask for the layout keeps it.
	b = open(t, bus.Config{DataDir: dir})
	if !b.TenantStreams() {
		t.Fatal("opened without the option, the log went back to the shared layout")
	}
	if _, err := b.Publish(ctx, subj, &events.Event{ID: "newer", Tenant: "acme", Response: "r1", At: 3, Body: &events.TextDelta{Text: "c"}}); err != nil {
		t.Fatal(err)
	}
	waitMsgs(ctx, t, b.Stream(events.StreamModel), before.Sequence+2)
}

// stopCopying makes the shared streams refuse what they source, as a
// shared stream that cannot store (no quorum, full) copies nothing: each
// gets one message of its own and a limit of one message, discarding new
// ones; the server retries the source meanwhile. resume puts the limits
// back, and each source goes on from the last origin sequence stored.
func stopCopying(ctx context.Context, t *testing.T, b *bus.Bus) (resume func()) {
	t.Helper()
	var undo []jetstream.StreamConfig
	for _, subj := range []string{events.InClockSubject, events.ModelClockSubject} {
		name, _ := events.StreamOf(subj)
		if _, err := b.JS.Publish(ctx, subj, []byte("own")); err != nil {
			t.Fatal(err)
		}
		info, err := b.Stream(name).Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		undo = append(undo, info.Config)
		cfg := info.Config
		cfg.MaxMsgs, cfg.Discard = 1, jetstream.DiscardNew
		if _, err := b.JS.UpdateStream(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for _, cfg := range undo {
			if _, err := b.JS.UpdateStream(ctx, cfg); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// subjectMsgs is how many messages stream holds on filter.
func subjectMsgs(ctx context.Context, t *testing.T, s jetstream.Stream, filter string) uint64 {
	t.Helper()
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

// TestTenantStreamKeepsWhatIsNotYetCopied: a tenant stream keeps what it
// acknowledged until the shared streams have copied it, however long that
// takes. The duplicate window is 1s here (the tenant stream's age limit
// was the window + 5 min, so 5 min of a stopped TS_MODEL lost events); the
// shared streams store nothing for four windows (stopCopying), TrimTenants
// running all the while; once they copy again each event is in TS_MODEL and TS_IN
// once, in order, and only then, a window later, does TrimTenants remove
// them from the tenant stream.
func TestTenantStreamKeepsWhatIsNotYetCopied(t *testing.T) {
	ctx := ctxT(t)
	const window = time.Second
	b := open(t, bus.Config{DataDir: t.TempDir(), TenantStreams: true, DuplicateWindow: window})
	if err := b.EnsureTenant(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	ing := b.Stream(bus.TenantStream("acme"))
	if info, err := ing.Info(ctx); err != nil || info.Config.MaxAge != 0 || info.Config.Discard != jetstream.DiscardNew || info.Config.MaxBytes <= 0 {
		t.Fatalf("tenant stream limits: %+v, %v", info.Config, err)
	}
	resume := stopCopying(ctx, t, b)
	const n = 10
	for i := range n {
		subj, _ := events.ModelSubject("acme", "r1", fmt.Sprintf("i%d", i))
		if _, err := b.Publish(ctx, subj, &events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "acme", Response: "r1", At: int64(i + 1), Body: &events.TextDelta{Text: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := events.IngestSubject("acme", "openai", "s1")
	if _, err := b.JS.Publish(ctx, raw, []byte(`{"type":"response.created"}`)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(4 * window); time.Now().Before(deadline); time.Sleep(window / 4) {
		if _, err := b.TrimTenants(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := subjectMsgs(ctx, t, ing, ">"); got != n+1 {
		t.Fatalf("after four windows uncopied the tenant stream holds %d messages, want %d", got, n+1)
	}

	resume()
	model := b.Stream(events.StreamModel)
	waitMsgs(ctx, t, model, n+1) // its own message, then acme's
	waitMsgs(ctx, t, b.Stream(events.StreamIn), 2)
	for i := range n {
		m, err := model.GetMsg(ctx, uint64(i+2))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("ts.model.acme.r1.i%d", i); m.Subject != want {
			t.Errorf("TS_MODEL seq %d: %s, want %s", i+2, m.Subject, want)
		}
	}

	for deadline := time.Now().Add(3 * window); time.Now().Before(deadline); time.Sleep(window / 4) {
		if _, err := b.TrimTenants(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := subjectMsgs(ctx, t, ing, ">"); got != 0 {
		t.Errorf("copied and a window old, %d messages are still in the tenant stream", got)
	}
	waitMsgs(ctx, t, model, n+1) // trimming the tenant stream removes nothing of the log
}

// TestTrimAddsBackADroppedSource: a source of a tenant stream that a
// concurrent update of the shared stream dropped (stream updates are not
// compare-and-set) is added back by TrimTenants, and what the tenant
// stream kept meanwhile is copied.
func TestTrimAddsBackADroppedSource(t *testing.T) {
	ctx := ctxT(t)
	b := open(t, bus.Config{DataDir: t.TempDir(), TenantStreams: true})
	for _, tenant := range []string{"acme", "globex"} {
		if err := b.EnsureTenant(ctx, tenant); err != nil {
			t.Fatal(err)
		}
	}
	info, err := b.Stream(events.StreamModel).Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg := info.Config
	cfg.Sources = slices.DeleteFunc(cfg.Sources, func(s *jetstream.StreamSource) bool { return s.Name == bus.TenantStream("acme") })
	if _, err := b.JS.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	subj, _ := events.ModelSubject("acme", "r1", "i1")
	if _, err := b.Publish(ctx, subj, &events.Event{ID: "e1", Tenant: "acme", Response: "r1", At: 1, Body: &events.TextDelta{Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.TrimTenants(ctx); err != nil {
		t.Fatal(err)
	}
	if tenants, err := b.Tenants(ctx); err != nil || !slices.Contains(tenants, "acme") {
		t.Fatalf("sources after the trim: %v, %v", tenants, err)
	}
	waitMsgs(ctx, t, b.Stream(events.StreamModel), 1)
}

// TestTenantStreamFullRefusesNew: a tenant stream whose shared streams copy
// nothing fills to its byte bound; the next publish is refused at the
// producer, nothing it acknowledged is dropped, and all of it is copied
// once the shared streams copy again.
func TestTenantStreamFullRefusesNew(t *testing.T) {
	ctx := ctxT(t)
	b := open(t, bus.Config{DataDir: t.TempDir(), TenantStreams: true, TenantStreamMaxBytes: 4 << 10})
	if err := b.EnsureTenant(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	resume := stopCopying(ctx, t, b)
	subj, _ := events.ModelSubject("acme", "r1", "i1")
	body := make([]byte, 512)
	acked := 0
	var refused error
	for i := range 100 {
		m := nats.NewMsg(subj)
		m.Data = body
		m.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("m%d", i))
		if _, err := b.JS.PublishMsg(ctx, m); err != nil {
			refused = err
			break
		}
		acked++
	}
	if refused == nil || acked == 0 {
		t.Fatalf("%d publishes acknowledged past the bound, refused: %v", acked, refused)
	}
	t.Logf("acknowledged %d, then: %v", acked, refused)
	if info, err := b.Stream(bus.TenantStream("acme")).Info(ctx); err != nil || info.State.FirstSeq != 1 || info.State.Msgs != uint64(acked) {
		t.Fatalf("the full tenant stream: %+v, %v: dropped what it acknowledged", info.State, err)
	}
	resume()
	waitMsgs(ctx, t, b.Stream(events.StreamModel), uint64(acked)+1)
}

// TestNewLogTakesTenantStreams: with Config.NewLogTenantStreams a new log
// starts on the per-tenant layout; a log of the shared layout opened with
// it keeps its layout and works as before (a tenant's publish stored in
// TS_MODEL without a stream of its own), and StoredTenants names the
// tenants its subjects hold (the system tenant's clock left out), the
// tenants whose streams a move to the layout makes.
func TestNewLogTakesTenantStreams(t *testing.T) {
	ctx := ctxT(t)
	fresh := open(t, bus.Config{DataDir: t.TempDir(), NewLogTenantStreams: true})
	if !fresh.TenantStreams() {
		t.Error("a new log opened with NewLogTenantStreams is on the shared layout")
	}

	dir := t.TempDir()
	old := open(t, bus.Config{DataDir: dir})
	for _, tenant := range []string{"globex", "acme"} {
		subj, _ := events.ModelSubject(tenant, "r1", "i1")
		if _, err := old.Publish(ctx, subj, &events.Event{ID: "e-" + tenant, Tenant: tenant, Response: "r1", At: 1, Body: &events.TextDelta{Text: "a"}}); err != nil {
			t.Fatal(err)
		}
	}
	in, _ := events.IngestSubject("initech", "openai-chat", "s1")
	if _, err := old.JS.Publish(ctx, in, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Publish(ctx, events.InClockSubject, &events.Event{ID: "tick:1", Tenant: events.SystemTenant, At: 1, Body: &events.Tick{}}); err != nil {
		t.Fatal(err)
	}
	old.Close()

	b := open(t, bus.Config{DataDir: dir, NewLogTenantStreams: true})
	if b.TenantStreams() {
		t.Fatal("a log of the shared layout moved to tenant streams by NewLogTenantStreams")
	}
	subj, _ := events.ModelSubject("acme", "r2", "i1")
	ack, err := b.Publish(ctx, subj, &events.Event{ID: "e-later", Tenant: "acme", Response: "r2", At: 2, Body: &events.TextDelta{Text: "b"}})
	if err != nil || ack.Stream != events.StreamModel {
		t.Fatalf("a publish on the shared layout reopened: %+v, %v", ack, err)
	}
	got, err := b.StoredTenants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"acme", "globex", "initech"}; !slices.Equal(got, want) {
		t.Errorf("stored tenants %v, want %v", got, want)
	}
}

// TestASourceAddedIsNoWarning: a tenant's first producer adds its stream
// as a source of TS_IN and TS_MODEL, and nats-server, finding messages
// there, warned "Sourcing state is outdated; attempting to recover using
// backward scan" in serve's log after a newcomer's first publish: it is
// what adding a source always makes it say, so it is written at debug.
// The debug line must be there: a server that words it otherwise fails
// this test rather than warn users again.
func TestASourceAddedIsNoWarning(t *testing.T) {
	ctx := ctxT(t)
	var logged logtest.Buffer
	b := open(t, bus.Config{DataDir: t.TempDir(), TenantStreams: true,
		Logger: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err := b.EnsureTenant(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	subj, _ := events.ModelSubject("acme", "r1", "i1")
	if _, err := b.Publish(ctx, subj, &events.Event{ID: "e1", Tenant: "acme", Response: "r1", At: 1, Body: &events.TextDelta{Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	waitMsgs(ctx, t, b.Stream(events.StreamModel), 1)
	if err := b.EnsureTenant(ctx, "globex"); err != nil { // TS_MODEL holds acme's event
		t.Fatal(err)
	}
	for _, l := range logged.Lines("Sourcing state") {
		if !strings.Contains(l, "level=DEBUG") {
			t.Errorf("logged %s", l)
		}
	}
	if len(logged.Lines("[TS_MODEL] Sourcing state is outdated")) == 0 {
		t.Errorf("no line of nats-server's on the source added to TS_MODEL: its words changed?\n%s", logged.String())
	}
}
