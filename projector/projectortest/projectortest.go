// Package projectortest is the conformance suite of the projection
// contract (package projector): one set of checks every projection's tests
// run on a recorded history of its own, so the contract is proven once, the
// same way for all (docs/design.md, invariants 3, 4 and 6).
//
// Run checks, on real Pebble views and, from the live step on, a real
// embedded NATS JetStream server:
//
//   - golden: applied to a fresh view, the recorded history reaches the
//     digest, emits the events (subject, id, kind) and rejects the messages
//     its file records, whether it is applied in one batch or one message at
//     a time. Outbox ids are deterministic: they are in the file.
//   - redelivery: applying the history again, whole or message by message,
//     changes nothing and emits nothing.
//   - live: the history published to the log and consumed by a runner gives
//     the view and the outbox of a synchronous application of the stored
//     messages (the reference), event for event.
//   - replay: projector.Replay from sequence 1 gives the live digest.
//   - restart: a runner stopped halfway and started again resumes at its
//     checkpoint and ends with the reference's view and outbox, no event
//     emitted twice or lost.
//   - crash: views on a crash-simulating filesystem (vfs.NewCrashableMem),
//     cloned as a power failure would leave them — only what was fsynced,
//     or some of the rest — after several commits: each clone, run again,
//     reaches the reference's view and emits exactly the reference's events
//     (the lost batches again, with the same ids; nothing twice). With
//     Config.Sync no commit is lost.
//   - fault: a panic of the projection's on a message, after applying it
//     in full, is that message's rejection alone: the view and outbox of
//     the log in which it was rejected unapplied, in one batch, live and in
//     a replay (projector's fault containment).
//
// The history lives in testdata/conformance/<name>.history: the log (each
// message's sequence, time, subject, headers and bytes) and the results it
// must give, so a change that alters a view or what it emits shows in the
// file's diff. `go test -update` records it again from Subject.Record.
package projectortest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/projector"
)

var update = flag.Bool("update", false, "record the conformance histories under testdata/conformance again, with their results")

// Subject is a projection under test.
type Subject struct {
	// New returns a fresh instance of the projection, configured as the
	// view is made in production. Every view the suite makes gets its own.
	New func() projector.Projection
	// Record returns the history to record with -update: messages of the
	// one stream the projection reads, built deterministically. It may be
	// nil once the history is recorded.
	Record func(t testing.TB) []Message
	// Name names the history file; default the projection's name.
	Name string
}

// Run runs the conformance suite on s.
func Run(t *testing.T, s Subject) {
	t.Helper()
	if s.New == nil {
		t.Fatal("projectortest: Subject.New is required")
	}
	name := s.Name
	if name == "" {
		name = s.New().Name()
	}
	path := filepath.Join("testdata", "conformance", name+".history")
	msgs := loadHistory(t, s, name, path)
	t.Run("golden", func(t *testing.T) { checkGolden(t, s, name, path, msgs) })
	t.Run("redelivery", func(t *testing.T) { checkRedelivery(t, s, msgs) })
	b := bustest.Start(t)
	stored := publish(t, b, s, msgs)
	ref := apply(t, s, stored, 0, false)
	mid := stored[len(stored)/2].Seq
	refMid := apply(t, s, stored[:len(stored)/2+1], 0, false)
	c := &conformance{s: s, b: b, stored: stored, ref: ref, refMid: refMid, mid: mid, last: stored[len(stored)-1].Seq}
	var live outcome
	t.Run("live", func(t *testing.T) {
		live = c.run(t, projector.Config{Dir: filepath.Join(t.TempDir(), "view")}, c.last)
		same(t, "live", live, ref)
	})
	t.Run("replay", func(t *testing.T) {
		d, err := projector.Replay(context.Background(), projector.Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "replay")}, s.New(), c.last)
		if err != nil {
			t.Fatal(err)
		}
		if d.Sum != ref.digest.Sum || d.Keys != ref.digest.Keys {
			t.Fatalf("replay from 1 differs from live:\n replay %v\n live   %v", d, live.digest)
		}
	})
	t.Run("restart", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "view")
		half := c.run(t, projector.Config{Dir: dir, UntilSeq: mid}, mid)
		same(t, "stopped halfway", half, refMid)
		same(t, "restarted", c.run(t, projector.Config{Dir: dir}, c.last), ref)
	})
	t.Run("crash", func(t *testing.T) { c.crash(t, false) })
	t.Run("crash-sync", func(t *testing.T) { c.crash(t, true) })
	t.Run("fault", func(t *testing.T) { checkFault(t, c) })
}

// loadHistory reads the recorded history or, with -update, records it.
func loadHistory(t *testing.T, s Subject, name, path string) []projector.Msg {
	t.Helper()
	if *update {
		if s.Record == nil {
			t.Fatalf("projectortest: %s: -update needs Subject.Record", name)
		}
		msgs := stamp(s.Record(t))
		if len(msgs) < 2 {
			t.Fatalf("projectortest: %s: a history of %d messages proves nothing", name, len(msgs))
		}
		o := apply(t, s, msgs, 0, false)
		if err := write(path, name, pkgDir(), t.Name(), msgs, o.text()); err != nil {
			t.Fatal(err)
		}
		return msgs
	}
	h, err := read(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("projectortest: no recorded history %s: record it with -update", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(h.msgs) < 2 {
		t.Fatalf("projectortest: %s: a history of %d messages proves nothing", path, len(h.msgs))
	}
	return h.msgs
}

// checkGolden applies the recorded history with its recorded times in one
// batch and message by message: both reach the results of the file.
func checkGolden(t *testing.T, s Subject, name, path string, msgs []projector.Msg) {
	h, err := read(path)
	if err != nil {
		t.Fatal(err)
	}
	whole := apply(t, s, msgs, 0, false)
	if got := whole.text(); got != h.results {
		t.Errorf("%s: the view or what it emits changed (review, then record again with -update):\n%s", path, diff(h.results, got))
	}
	same(t, "applied message by message", apply(t, s, msgs, 1, false), whole)
}

// checkRedelivery applies the history, then all of it again, in one batch
// and message by message: nothing changes, nothing is emitted again.
func checkRedelivery(t *testing.T, s Subject, msgs []projector.Msg) {
	l, err := projector.NewLocal(t.TempDir(), s.New())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	if _, err := l.Apply(ctx, fresh(msgs)...); err != nil {
		t.Fatal(err)
	}
	want, err := l.Runner().Digest()
	if err != nil {
		t.Fatal(err)
	}
	again := [][]*projector.Msg{fresh(msgs)}
	for _, m := range fresh(msgs) {
		again = append(again, []*projector.Msg{m})
	}
	for _, batch := range again {
		out, err := l.Apply(ctx, batch...)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 0 {
			t.Fatalf("redelivering seq %d… emitted %s %s again", batch[0].Seq, out[0].Subject, out[0].Event.ID)
		}
	}
	if got, err := l.Runner().Digest(); err != nil || got != want {
		t.Fatalf("redelivery changed the view: %v, want %v (%v)", got, want, err)
	}
}

// outcome is what a view made of a history.
type outcome struct {
	digest     projector.Digest
	emitted    []projector.Emitted
	rejections []projector.Rejection
}

// text is the golden form of an outcome.
func (o outcome) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "digest %v\n", o.digest)
	for _, e := range o.emitted {
		fmt.Fprintf(&b, "emit %s %s %s\n", e.Subject, e.Event.ID, e.Event.Kind)
	}
	for _, rj := range o.rejections {
		code := string(rj.Code)
		if code == "" {
			code = "-"
		}
		fmt.Fprintf(&b, "reject %d %s %s %s\n", rj.Seq, rj.Subject, code, strconv.Quote(rj.Reason))
	}
	return b.String()
}

// fresh copies msgs for one application (a Msg caches its decoded event).
func fresh(msgs []projector.Msg) []*projector.Msg {
	out := make([]*projector.Msg, len(msgs))
	for i, m := range msgs {
		out[i] = &projector.Msg{Seq: m.Seq, Subject: m.Subject, Time: m.Time, Header: m.Header, Data: m.Data}
	}
	return out
}

// apply applies msgs to a fresh view synchronously, batch messages at a
// time (0: all at once). A fault of the projection's fails t unless
// faults (checkFault injects them).
func apply(t testing.TB, s Subject, msgs []projector.Msg, batch int, faults bool) outcome {
	t.Helper()
	l, err := projector.NewLocal(t.TempDir(), s.New())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if batch <= 0 {
		batch = len(msgs)
	}
	var o outcome
	all := fresh(msgs)
	for i := 0; i < len(all); i += batch {
		out, err := l.Apply(context.Background(), all[i:min(i+batch, len(all))]...)
		if err != nil && !(faults && errors.Is(err, projector.ErrFault)) {
			t.Fatal(err)
		}
		o.emitted = append(o.emitted, out...)
	}
	if o.digest, err = l.Runner().Digest(); err != nil {
		t.Fatal(err)
	}
	if o.rejections, err = l.Runner().Rejections(); err != nil {
		t.Fatal(err)
	}
	return o
}

// publish stores the history in the stream the projection reads and
// returns the messages as stored (the server's sequences and times).
func publish(t *testing.T, b *bus.Bus, s Subject, msgs []projector.Msg) []projector.Msg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream, err := events.StreamOfAll(s.New().Subjects())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		nm := &nats.Msg{Subject: m.Subject, Header: m.Header, Data: m.Data}
		ack, err := b.JS.PublishMsg(ctx, nm)
		if err != nil {
			t.Fatalf("publish seq %d on %s: %v", m.Seq, m.Subject, err)
		}
		if ack.Stream != stream || ack.Sequence != m.Seq {
			t.Fatalf("seq %d on %s was stored as %s %d: a history is the log of the one stream %s, from 1", m.Seq, m.Subject, ack.Stream, ack.Sequence, stream)
		}
	}
	var stored []projector.Msg
	err = b.Read(ctx, logread.Config{Stream: stream}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			stored = append(stored, projector.Msg{Seq: m.Seq, Subject: m.Subject, Time: m.Time, Header: m.Header, Data: m.Data})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(msgs) {
		t.Fatalf("read back %d of %d messages", len(stored), len(msgs))
	}
	return stored
}

// conformance holds what the steps on the bus share.
type conformance struct {
	s      Subject
	b      *bus.Bus
	stored []projector.Msg
	ref    outcome // the whole log applied synchronously
	refMid outcome // the log up to mid
	mid    uint64
	last   uint64
	runs   int
}

// run runs a runner with cfg over the log, the relay off so the outbox
// keeps every emitted event, until its checkpoint reaches until, and
// returns its outcome. A fresh consumer serves each run.
func (c *conformance) run(t *testing.T, cfg projector.Config, until uint64) outcome {
	t.Helper()
	c.runs++
	cfg.JS, cfg.Keys, cfg.Mode = c.b.JS, c.b.Keys, projector.ModeHold
	cfg.Durable = fmt.Sprintf("ts-conformance-%d", c.runs)
	r, err := projector.New(cfg, c.s.New())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	err = r.WaitFor(wctx, until)
	wcancel()
	cancel()
	if rerr := <-done; rerr != nil {
		t.Fatalf("run: %v", rerr)
	}
	if err != nil {
		t.Fatalf("waiting for seq %d (at %d): %v", until, r.Checkpoint(), err)
	}
	var o outcome
	if o.digest, err = r.Digest(); err != nil {
		t.Fatal(err)
	}
	if o.emitted, err = r.Outbox(); err != nil {
		t.Fatal(err)
	}
	if o.rejections, err = r.Rejections(); err != nil {
		t.Fatal(err)
	}
	return o
}

// crashPoints are the commits after which the view's filesystem is cloned
// as a power failure would leave it: the 1st, 2nd, 4th, 8th….
func crashPoint(commit int) bool { return commit&(commit-1) == 0 }

// crash runs a view on a crash-simulating filesystem in small batches,
// stopped cleanly halfway (Pebble syncs its log when it closes) and
// started again, and clones the filesystem after several commits of each
// leg as a power failure would leave it. Each clone is run again to the end
// of the log.
//
// NB: Pebble keeps a commit made without Sync in the process, in its log
// writer's 32 KiB block, until the block fills or something syncs: a
// process crash loses it as a power failure does, and the clones lose
// every commit since the view was last closed (or since a block filled).
func (c *conformance) crash(t *testing.T, sync bool) {
	type clone struct {
		at   uint64 // the checkpoint committed when it was taken
		fs   *vfs.MemFS
		what string
	}
	fs := vfs.NewCrashableMem()
	rng := rand.New(rand.NewPCG(1, 2))
	var clones []clone
	commits := 0
	hooks := &projector.Hooks{AfterCommit: func(seq uint64) {
		if commits++; !crashPoint(commits) {
			return
		}
		clones = append(clones, clone{seq, fs.CrashClone(vfs.CrashCloneCfg{}), "only what was fsynced"})
		if !sync {
			clones = append(clones, clone{seq, fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 50, RNG: rng}), "half of what was not fsynced"})
		}
	}}
	const dir = "/view"
	cfg := projector.Config{FS: fs, Dir: dir, BatchMax: 4, Sync: sync, Hooks: hooks, UntilSeq: c.mid}
	same(t, "before the crash, halfway", c.run(t, cfg, c.mid), c.refMid)
	commits, cfg.UntilSeq = 0, 0
	same(t, "before the crash, at the end", c.run(t, cfg, c.last), c.ref)
	if len(clones) < 4 {
		t.Fatalf("%d crash points: the history is too short to crash in the middle", len(clones))
	}
	lost := false
	for _, cl := range clones {
		r, err := projector.New(projector.Config{JS: c.b.JS, Keys: c.b.Keys, FS: cl.fs, Dir: dir, Mode: projector.ModeHold}, c.s.New())
		if err != nil {
			t.Fatalf("reopen after a crash at seq %d (%s): %v", cl.at, cl.what, err)
		}
		back := r.Checkpoint()
		r.Close()
		if back > cl.at {
			t.Fatalf("a crash at seq %d (%s) came back at %d", cl.at, cl.what, back)
		}
		if sync && back != cl.at {
			t.Fatalf("with Sync, a crash at seq %d lost commits: back at %d", cl.at, back)
		}
		lost = lost || back < cl.at
		t.Logf("crash after the commit of seq %d, %s: back at seq %d", cl.at, cl.what, back)
		same(t, fmt.Sprintf("crashed at seq %d (%s; back at %d) and run again", cl.at, cl.what, back),
			c.run(t, projector.Config{FS: cl.fs, Dir: dir}, c.last), c.ref)
	}
	if !sync && !lost {
		t.Fatal("no crash lost a commit: the test did not test anything")
	}
}

// same fails t unless got has want's view and emitted want's events, in
// order, event for event.
func same(t *testing.T, what string, got, want outcome) {
	t.Helper()
	if got.digest.Sum != want.digest.Sum || got.digest.Keys != want.digest.Keys {
		t.Fatalf("%s: view %v, want %v", what, got.digest, want.digest)
	}
	n := min(len(got.emitted), len(want.emitted))
	for i := 0; i < n; i++ {
		g, w := got.emitted[i], want.emitted[i]
		if g.Subject != w.Subject || g.Event.ID != w.Event.ID {
			t.Fatalf("%s: emitted event %d is %s %s, want %s %s", what, i, g.Subject, g.Event.ID, w.Subject, w.Event.ID)
		}
		gb, err1 := canonical(g.Event)
		wb, err2 := canonical(w.Event)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if string(gb) != string(wb) {
			t.Fatalf("%s: emitted event %s differs:\n got  %+v %+v\n want %+v %+v", what, g.Event.ID, *g.Event, g.Event.Body, *w.Event, w.Event.Body)
		}
	}
	switch {
	case len(got.emitted) > n:
		t.Fatalf("%s: emitted %d events, want %d; the first extra is %s %s", what, len(got.emitted), len(want.emitted), got.emitted[n].Subject, got.emitted[n].Event.ID)
	case len(want.emitted) > n:
		t.Fatalf("%s: emitted %d events, want %d; the first missing is %s %s", what, len(got.emitted), len(want.emitted), want.emitted[n].Subject, want.emitted[n].Event.ID)
	}
}

// canonical is an event's encoding in the clear, however it was stored.
func canonical(ev *events.Event) ([]byte, error) {
	c := *ev
	c.Sealed = ""
	return events.Encode(&c)
}

// diff shows the lines of want missing from got and those got added.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	in := func(lines []string) map[string]int {
		m := map[string]int{}
		for _, l := range lines {
			m[l]++
		}
		return m
	}
	wm, gm := in(w), in(g)
	var b strings.Builder
	for _, l := range w {
		if gm[l] > 0 {
			gm[l]--
			continue
		}
		fmt.Fprintf(&b, "- %s\n", l)
	}
	for _, l := range g {
		if wm[l] > 0 {
			wm[l]--
			continue
		}
		fmt.Fprintf(&b, "+ %s\n", l)
	}
	return b.String()
}

// pkgDir is the test's package directory relative to the module root,
// for the file's regeneration hint.
func pkgDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return "."
			}
			return filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
