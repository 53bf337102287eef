package projector_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// publishTexts publishes n text deltas over three tenants and returns the
// last sequence.
func publishTexts(t testing.TB, b *bus.Bus, n int) uint64 {
	t.Helper()
	var last uint64
	for i := range n {
		last = publishText(t, b, []string{"acme", "beta", "gamma"}[i%3], fmt.Sprint(i%7), i, fmt.Sprintf("text %d", i))
	}
	return last
}

// otherTally is tally under another name: another projection's view.
type otherTally struct{ tally }

func (otherTally) Name() string { return "other" }

// TestModes: what each mode does with the log and with emitted events,
// told by the outbox, the events on the log and the consumers on the
// server.
func TestModes(t *testing.T) {
	for _, tc := range []struct {
		mode      projector.Mode
		outbox    int  // rows left in the outbox
		relayed   int  // the tally's events on the log
		consumers bool // a durable consumer was created
	}{
		{projector.ModeLive, 0, 12, true},
		{projector.ModeHold, 12, 0, true},
		{projector.ModeReplay, 0, 0, false},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			b := bustest.Start(t)
			last := publishTexts(t, b, 12)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r, stop := startRunner(t, b, t.TempDir(), tally{}, func(c *projector.Config) { c.BatchMax, c.Mode = 5, tc.mode })
			defer stop()
			if err := r.WaitFor(ctx, last); err != nil {
				t.Fatal(err)
			}
			if tc.mode == projector.ModeLive {
				if err := r.WaitRelayed(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// before emitted reads the log with consumers of its own
			names := b.Stream(r.Stream()).ConsumerNames(ctx)
			consumers := 0
			for range names.Name() {
				consumers++
			}
			out, err := r.Outbox()
			if err != nil {
				t.Fatal(err)
			}
			relayed := 0
			for _, tenant := range []string{"acme", "beta", "gamma"} {
				relayed += len(emitted(t, b, "ts.ctl."+tenant+".tally"))
			}
			if len(out) != tc.outbox || relayed != tc.relayed || (consumers > 0) != tc.consumers {
				t.Errorf("outbox %d, relayed %d, consumers %d; want %d, %d, %v", len(out), relayed, consumers, tc.outbox, tc.relayed, tc.consumers)
			}
		})
	}
	if _, err := projector.New(projector.Config{Dir: t.TempDir(), JS: bustest.Start(t).JS, Mode: projector.Mode(7)}, tally{}); !errors.Is(err, projector.ErrInvalidConfig) {
		t.Errorf("Mode(7): %v, want ErrInvalidConfig", err)
	}
}

// TestReplayerResumes: a replay stopped halfway, by its own To or by its
// context, goes on from its checkpoint in a new Replayer on the same
// directory, applies nothing twice (the tally would count it) and reaches
// the digest of a replay from sequence 1; progress says where it resumed.
func TestReplayerResumes(t *testing.T) {
	b := bustest.Start(t)
	last := publishTexts(t, b, 60)
	ctx := context.Background()
	cfg := func(dir string) projector.Config {
		return projector.Config{JS: b.JS, Keys: b.Keys, Dir: dir, BatchMax: 4}
	}
	whole, err := projector.Replay(ctx, cfg(filepath.Join(t.TempDir(), "whole")), tally{}, last)
	if err != nil {
		t.Fatal(err)
	}
	mid, err := projector.Replay(ctx, cfg(filepath.Join(t.TempDir(), "mid")), tally{}, last/2)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("to", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "replay")
		rp, err := projector.NewReplayer(cfg(dir), tally{})
		if err != nil {
			t.Fatal(err)
		}
		d, err := rp.To(ctx, last/2, nil)
		if err != nil || d != mid {
			t.Fatalf("to %d: %v %v, want %v", last/2, d, err, mid)
		}
		if err := rp.Close(); err != nil {
			t.Fatal(err)
		}
		rp, err = projector.NewReplayer(cfg(dir), tally{})
		if err != nil {
			t.Fatal(err)
		}
		defer rp.Close()
		if rp.Checkpoint() != last/2 {
			t.Fatalf("resumed at %d, want %d", rp.Checkpoint(), last/2)
		}
		var seen []projector.ReplayProgress
		d, err = rp.To(ctx, last, func(p projector.ReplayProgress) { seen = append(seen, p) })
		if err != nil || d != whole {
			t.Fatalf("resumed to %d: %v %v, want %v", last, d, err, whole)
		}
		if len(seen) < 2 || seen[0] != (projector.ReplayProgress{From: last / 2, Seq: last / 2, Until: last}) || seen[len(seen)-1].Seq != last {
			t.Fatalf("progress %v", seen)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i].Seq <= seen[i-1].Seq || seen[i].From != last/2 || seen[i].Until != last {
				t.Fatalf("progress goes %v then %v", seen[i-1], seen[i])
			}
		}
		// Told the same sequence again: nothing to do, the same digest.
		if d, err := rp.To(ctx, last, func(projector.ReplayProgress) { t.Error("progress with nothing to replay") }); err != nil || d != whole {
			t.Fatalf("to %d again: %v %v", last, d, err)
		}
	})

	t.Run("interrupted", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "replay")
		rp, err := projector.NewReplayer(cfg(dir), tally{})
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		_, err = rp.To(cctx, last, func(p projector.ReplayProgress) {
			if p.Seq >= 3*4 {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted replay: %v, want context.Canceled", err)
		}
		stopped := rp.Checkpoint()
		if stopped == 0 || stopped >= last {
			t.Fatalf("interrupted at %d of %d", stopped, last)
		}
		rp.Close()
		rp, err = projector.NewReplayer(cfg(dir), tally{})
		if err != nil {
			t.Fatal(err)
		}
		defer rp.Close()
		var from uint64
		d, err := rp.To(ctx, last, func(p projector.ReplayProgress) { from = p.From })
		if err != nil || d != whole || from != stopped {
			t.Fatalf("resumed from %d (stopped at %d): %v %v, want %v", from, stopped, d, err, whole)
		}
	})
}

// TestReplayerRefuses: what a replay cannot do comes back as the sentinel
// a caller branches on, and leaves the directory as it was.
func TestReplayerRefuses(t *testing.T) {
	b := bustest.Start(t)
	last := publishTexts(t, b, 9)
	ctx := context.Background()
	cfg := func(dir string) projector.Config { return projector.Config{JS: b.JS, Keys: b.Keys, Dir: dir} }

	// A live view is not resumed as a replay: its outbox would be lost.
	liveDir := filepath.Join(t.TempDir(), "live")
	r, stop := startRunner(t, b, liveDir, tally{}, func(c *projector.Config) { c.Mode = projector.ModeHold })
	if err := r.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := projector.NewReplayer(cfg(liveDir), tally{}); !errors.Is(err, projector.ErrNotReplay) {
		t.Errorf("replayer on a live view: %v, want ErrNotReplay", err)
	}
	hold, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: liveDir, Mode: projector.ModeHold}, tally{})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := hold.Outbox(); err != nil || len(out) != 9 || hold.Checkpoint() != last {
		t.Errorf("the live view changed: %d outbox rows, checkpoint %d, %v", len(out), hold.Checkpoint(), err)
	}
	hold.Close()

	dir := filepath.Join(t.TempDir(), "replay")
	rp, err := projector.NewReplayer(cfg(dir), tally{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rp.To(ctx, last+1, nil); !errors.Is(err, projector.ErrPastLog) {
		t.Errorf("to past the log: %v, want ErrPastLog", err)
	}
	if _, err := rp.To(ctx, last-2, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rp.To(ctx, last-3, nil); !errors.Is(err, projector.ErrReplayAhead) {
		t.Errorf("to below the checkpoint: %v, want ErrReplayAhead", err)
	}
	rp.Close()
	// Nor is a replay a live view: what it emitted was dropped.
	for _, mode := range []projector.Mode{projector.ModeLive, projector.ModeHold} {
		if _, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: dir, Mode: mode}, tally{}); !errors.Is(err, projector.ErrInvalidConfig) {
			t.Errorf("%v runner on a replay: %v, want ErrInvalidConfig", mode, err)
		}
	}
	// Another projection's replay is not this one's.
	if _, err := projector.NewReplayer(cfg(dir), otherTally{}); !errors.Is(err, projector.ErrNotReplay) {
		t.Errorf("replayer of another projection: %v, want ErrNotReplay", err)
	}
	// Replay starts from 1: it wants an empty directory.
	if _, err := projector.Replay(ctx, cfg(dir), tally{}, last); !errors.Is(err, projector.ErrInvalidConfig) {
		t.Errorf("Replay into a used directory: %v, want ErrInvalidConfig", err)
	}
}

// TestSeqAtTime: the binary search agrees with a scan of the log's
// timestamps everywhere, deleted messages included.
func TestSeqAtTime(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	last := publishTexts(t, b, 40)
	s := b.Stream(events.StreamModel)
	for _, seq := range []uint64{1, 7, 8, 9, 20, last} {
		if err := s.DeleteMsg(ctx, seq); err != nil {
			t.Fatal(err)
		}
	}
	type stored struct {
		seq uint64
		at  time.Time
	}
	var msgs []stored
	for seq := uint64(1); seq <= last; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			continue // deleted
		}
		msgs = append(msgs, stored{m.Sequence, m.Time})
	}
	expect := func(at time.Time) uint64 {
		var seq uint64
		for _, m := range msgs {
			if !m.at.After(at) {
				seq = m.seq
			}
		}
		return seq
	}
	probes := []time.Time{msgs[0].at.Add(-time.Second), msgs[len(msgs)-1].at.Add(time.Hour)}
	for _, m := range msgs {
		probes = append(probes, m.at, m.at.Add(-time.Nanosecond), m.at.Add(time.Nanosecond))
	}
	rp, err := projector.NewReplayer(projector.Config{JS: b.JS, Keys: b.Keys, Dir: t.TempDir()}, tally{})
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	for _, at := range probes {
		got, err := rp.SeqAtTime(ctx, at)
		if err != nil {
			t.Fatal(err)
		}
		if want := expect(at); got != want {
			t.Errorf("SeqAtTime(%s) = %d, want %d", at.Format(time.RFC3339Nano), got, want)
		}
	}
}

// TestReplayerResumesAfterACrash: a replay on a crash-simulating
// filesystem, cloned as a power failure would leave it (only what was
// fsynced, or some of the rest), resumes from the checkpoint that survived
// and reaches the digest of a replay from sequence 1.
func TestReplayerResumesAfterACrash(t *testing.T) {
	b := bustest.Start(t)
	last := publishTexts(t, b, 40)
	ctx := context.Background()
	whole, err := projector.Replay(ctx, projector.Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "whole")}, tally{}, last)
	if err != nil {
		t.Fatal(err)
	}
	const dir = "/replay"
	fs := vfs.NewCrashableMem()
	rp, err := projector.NewReplayer(projector.Config{JS: b.JS, Keys: b.Keys, FS: fs, Dir: dir, BatchMax: 4}, tally{})
	if err != nil {
		t.Fatal(err)
	}
	clones := map[string]*vfs.MemFS{"before any batch": fs.CrashClone(vfs.CrashCloneCfg{})}
	if _, err := rp.To(ctx, last/2, nil); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	clones["only what was fsynced"] = fs.CrashClone(vfs.CrashCloneCfg{})
	clones["half of what was not fsynced"] = fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 50, RNG: rng})
	rp.Close()
	for what, cl := range clones {
		rp, err := projector.NewReplayer(projector.Config{JS: b.JS, Keys: b.Keys, FS: cl, Dir: dir, BatchMax: 4}, tally{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		from := rp.Checkpoint()
		d, err := rp.To(ctx, last, nil)
		rp.Close()
		if err != nil || d != whole {
			t.Errorf("%s: resumed at %d: %v %v, want %v", what, from, d, err, whole)
		}
	}
}
