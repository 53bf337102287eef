package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/ingest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
)

// SealResult compares a path with personal data sealed (package keys) and
// the same path in the clear, over the same events: the median of Pairs
// timings of each, every one on a fresh server, the two orders alternating
// (a server left running by the first half, or a warmed heap, must not
// decide the ratio).
type SealResult struct {
	Events      int
	Pairs       int
	Clear, Seal time.Duration // wall clock
	// ClearCPU and SealCPU are the process CPU time each half used
	// (ProcessCPU; 0 where it is not measured): the ratio is made on them.
	ClearCPU, SealCPU time.Duration
}

// Server opens a fresh server for one half of a comparison; close releases
// it.
type Server func(name string) (b *bus.Bus, close func(), err error)

// sealPairs times clear and sealed pairs times on fresh servers from open,
// alternating which goes first, and returns the medians.
func sealPairs(ctx context.Context, open Server, dir string, pairs, n int, run func(b *bus.Bus, kr events.Keyring, dir string) (timing, error)) (SealResult, error) {
	res := SealResult{Events: n, Pairs: pairs}
	var clear, sealed, clearCPU, sealedCPU []time.Duration
	half := func(i int, seal bool) error {
		name := fmt.Sprintf("clear-%d", i)
		if seal {
			name = fmt.Sprintf("sealed-%d", i)
		}
		b, closeBus, err := open(name)
		if err != nil {
			return err
		}
		defer closeBus()
		var kr events.Keyring
		if seal {
			if kr, err = keys.Open(ctx, keys.Config{JS: b.JS, Create: true}); err != nil {
				return err
			}
		}
		t, err := run(b, kr, filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if seal {
			sealed, sealedCPU = append(sealed, t.wall), append(sealedCPU, t.cpu)
		} else {
			clear, clearCPU = append(clear, t.wall), append(clearCPU, t.cpu)
		}
		return nil
	}
	for i := range pairs {
		first := i%2 == 1 // sealed first in every other pair
		if err := half(i, first); err != nil {
			return res, err
		}
		if err := half(i, !first); err != nil {
			return res, err
		}
	}
	res.Clear, res.Seal = Percentile(clear, 50), Percentile(sealed, 50)
	res.ClearCPU, res.SealCPU = Percentile(clearCPU, 50), Percentile(sealedCPU, 50)
	return res, nil
}

// SealedAssembler publishes CallEvents(calls, deltas, 1) of one user to
// fresh servers — in the clear, or sealed under the user's data key — and
// times the assembler (bus, Pebble, outbox, relay, the sealing of what it
// emits) over each. With merged, each call's consecutive deltas are one
// event, as Toolstream's own producers publish them (ingest.DeltaMerger);
// without, one event per chunk, as ingest normalises a third party's raw
// stream.
func SealedAssembler(ctx context.Context, open Server, dir string, pairs, calls, deltas int, merged bool) (SealResult, error) {
	evs := CallEvents(calls, deltas, 1)
	if merged {
		evs = MergeDeltas(evs)
	}
	return sealPairs(ctx, open, dir, pairs, len(evs), func(b *bus.Bus, kr events.Keyring, dir string) (timing, error) {
		return pathTime(ctx, b, dir, len(evs), kr, assembler.New(assembler.Config{}), func(i int) (string, *events.Event, string, error) {
			e := evs[i]
			subj, err := events.ModelSubject("acme", e.Response, e.Item)
			return subj, &events.Event{ID: fmt.Sprint("b", i), Tenant: "acme", User: "u1", Response: e.Response, Item: e.Item, At: int64(i), Body: e.Body}, "", err
		})
	})
}

// MergeDeltas is evs with each run of one call's consecutive deltas made
// one event, as the edge merges them.
func MergeDeltas(evs []ModelEvent) []ModelEvent {
	var m ingest.DeltaMerger
	var out []ModelEvent
	emit := func(p ingest.Placed) error {
		out = append(out, ModelEvent{p.Response, p.Item, p.Body})
		return nil
	}
	for i, e := range evs {
		_ = m.Add(int64(i), int64(i), []ingest.Out{{Response: e.Response, Item: e.Item, Body: e.Body}}, emit)
	}
	_ = m.Flush(emit)
	return out
}

// SealedMemory does as SealedAssembler for the memory projection over n
// observations of one user, each a record of its own sealed under the
// record's key.
func SealedMemory(ctx context.Context, open Server, dir string, pairs, n int) (SealResult, error) {
	return sealPairs(ctx, open, dir, pairs, n, func(b *bus.Bus, kr events.Keyring, dir string) (timing, error) {
		subj, err := events.MemorySubject("acme", "u1")
		at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
		return pathTime(ctx, b, dir, n, kr, memory.NewProjection(memory.NewEngine(memory.Config{}, nil)), func(i int) (string, *events.Event, string, error) {
			id := fmt.Sprintf("t%d", i)
			return subj, &events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "acme", User: "u1", At: at + int64(i)*int64(time.Minute),
				Body: &events.MemoryObserved{Observation: events.Observation{ID: id, Kind: "episode", Text: fmt.Sprintf("episode %d of the benchmark's user, some words", i)}}}, events.RecordScope("u1", id), err
		})
	})
}

// pathTime publishes the n events next makes (subject, event, sealing
// scope: "" for the event's user's) to b, sealed when kr is set, and times
// a fresh p over them.
func pathTime(ctx context.Context, b *bus.Bus, dir string, n int, kr events.Keyring, p projector.Projection,
	next func(i int) (subject string, ev *events.Event, scope string, err error)) (timing, error) {
	var last jetstream.PubAckFuture
	for i := range n {
		subj, ev, scope, err := next(i)
		if err != nil {
			return timing{}, err
		}
		var data []byte
		if kr != nil {
			data, err = events.EncodeSealed(ev, kr, scope)
		} else {
			data, err = events.Encode(ev)
		}
		if err != nil {
			return timing{}, err
		}
		if last, err = publishAsync(ctx, b.JS, subj, data); err != nil {
			return timing{}, err
		}
	}
	seq, err := waitPublished(ctx, b.JS, last)
	if err != nil {
		return timing{}, err
	}
	return runWith(ctx, b, dir, p, kr, seq)
}

// timing is a measured stretch: its wall clock and the process CPU time
// it used.
type timing struct{ wall, cpu time.Duration }

// runWith is RunProjection with a keyring, timed on the wall clock and in
// process CPU time.
func runWith(ctx context.Context, b *bus.Bus, dir string, p projector.Projection, kr events.Keyring, last uint64) (timing, error) {
	start, c0 := time.Now(), ProcessCPU()
	r, err := projector.New(projector.Config{JS: b.JS, Dir: dir, Durable: filepath.Base(dir), Keys: kr}, p)
	if err != nil {
		return timing{}, err
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	err = r.WaitFor(ctx, last)
	if err == nil {
		err = r.WaitRelayed(ctx)
	}
	t := timing{wall: time.Since(start), cpu: ProcessCPU() - c0}
	cancel()
	if rerr := <-done; err == nil {
		err = rerr
	}
	return t, err
}

// sealRow is an erasure row: events per second of process CPU time, sealed
// and in the clear (wall clock where CPU time is not measured), with the
// wall-clock figures in the note.
func sealRow(measured, baseline string, res SealResult, note string) Row {
	seal, clear, unit := res.SealCPU, res.ClearCPU, "events/CPU-s"
	if seal <= 0 || clear <= 0 {
		seal, clear, unit = res.Seal, res.Clear, "events/s"
	}
	return Row{Section: "erasure", Measured: measured, Value: rate(res.Events, seal),
		Baseline: baseline, BaseValue: rate(res.Events, clear), Unit: unit, Better: "higher", Target: "≥ 0.9",
		Note: fmt.Sprintf("%s; median of %d alternating pairs, each on a fresh server; wall clock %.0f ÷ %.0f events/s",
			note, res.Pairs, rate(res.Events, res.Seal), rate(res.Events, res.Clear)),
		Work: Work{Does: "the projection over events sealed under the user's (or record's) key: each opened, what it emits sealed", Stored: "what the projection emits, sealed",
			Acks: "its relay's publishes, AckAll per batch", Parsed: fmt.Sprintf("%d events opened (AES-GCM) and decoded", res.Events)},
		BaseWork: Work{Does: "the same projection over the same events in the clear", Stored: "what the projection emits, in the clear",
			Acks: "its relay's publishes, AckAll per batch", Parsed: fmt.Sprintf("%d events decoded", res.Events)}}
}

// sealPairsPerRun is how many clear/sealed pairs one run of the suite
// times: one pair swings by ±50% on a shared machine.
const sealPairsPerRun = 5
