package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/keys"
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
	Clear, Seal time.Duration
}

// Server opens a fresh server for one half of a comparison; close releases
// it.
type Server func(name string) (b *bus.Bus, close func(), err error)

// sealPairs times clear and sealed pairs times on fresh servers from open,
// alternating which goes first, and returns the medians.
func sealPairs(ctx context.Context, open Server, dir string, pairs, n int, run func(b *bus.Bus, kr events.Keyring, dir string) (time.Duration, error)) (SealResult, error) {
	res := SealResult{Events: n, Pairs: pairs}
	var clear, sealed []time.Duration
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
		d, err := run(b, kr, filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if seal {
			sealed = append(sealed, d)
		} else {
			clear = append(clear, d)
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
	return res, nil
}

// SealedAssembler publishes CallEvents(calls, deltas, 1) of one user to
// fresh servers — in the clear, or sealed under the user's data key — and
// times the assembler (bus, Pebble, outbox, relay, the sealing of what it
// emits) over each.
func SealedAssembler(ctx context.Context, open Server, dir string, pairs, calls, deltas int) (SealResult, error) {
	evs := CallEvents(calls, deltas, 1)
	return sealPairs(ctx, open, dir, pairs, len(evs), func(b *bus.Bus, kr events.Keyring, dir string) (time.Duration, error) {
		return pathTime(ctx, b, dir, evs, kr, assembler.New(assembler.Config{}))
	})
}

// SealedMemory does as SealedAssembler for the memory projection over n
// observations of one user, each a record of its own sealed under the
// record's key.
func SealedMemory(ctx context.Context, open Server, dir string, pairs, n int) (SealResult, error) {
	return sealPairs(ctx, open, dir, pairs, n, func(b *bus.Bus, kr events.Keyring, dir string) (time.Duration, error) {
		subj, _ := events.MemorySubject("acme", "u1")
		at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
		var last jetstream.PubAckFuture
		for i := range n {
			id := fmt.Sprintf("t%d", i)
			ev := &events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "acme", User: "u1", At: at + int64(i)*int64(time.Minute),
				Body: &events.MemoryObserved{Observation: events.Observation{ID: id, Kind: "episode", Text: fmt.Sprintf("episode %d of the benchmark's user, some words", i)}}}
			var data []byte
			var err error
			if kr != nil {
				data, err = events.EncodeSealed(ev, kr, events.RecordScope("u1", id))
			} else {
				data, err = events.Encode(ev)
			}
			if err != nil {
				return 0, err
			}
			if last, err = publishAsync(ctx, b.JS, subj, data); err != nil {
				return 0, err
			}
		}
		seq, err := waitPublished(ctx, b.JS, last)
		if err != nil {
			return 0, err
		}
		return runWith(ctx, b, dir, memory.NewProjection(memory.NewEngine(memory.Config{}, nil)), kr, seq)
	})
}

// pathTime publishes evs (user u1, sealed when kr is set) to b and times a
// fresh projection over them.
func pathTime(ctx context.Context, b *bus.Bus, dir string, evs []ModelEvent, kr events.Keyring, p projector.Projection) (time.Duration, error) {
	var last jetstream.PubAckFuture
	for i, e := range evs {
		subj, err := events.ModelSubject("acme", e.Response, e.Item)
		if err != nil {
			return 0, err
		}
		ev := &events.Event{ID: fmt.Sprint("b", i), Tenant: "acme", User: "u1", Response: e.Response, Item: e.Item, At: int64(i), Body: e.Body}
		var data []byte
		if kr != nil {
			data, err = events.EncodeSealed(ev, kr, "")
		} else {
			data, err = events.Encode(ev)
		}
		if err != nil {
			return 0, err
		}
		if last, err = publishAsync(ctx, b.JS, subj, data); err != nil {
			return 0, err
		}
	}
	seq, err := waitPublished(ctx, b.JS, last)
	if err != nil {
		return 0, err
	}
	return runWith(ctx, b, dir, p, kr, seq)
}

// runWith is RunProjection with a keyring.
func runWith(ctx context.Context, b *bus.Bus, dir string, p projector.Projection, kr events.Keyring, last uint64) (time.Duration, error) {
	start := time.Now()
	r, err := projector.New(projector.Config{JS: b.JS, Dir: dir, Durable: filepath.Base(dir), Keys: kr}, p)
	if err != nil {
		return 0, err
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
	d := time.Since(start)
	cancel()
	if rerr := <-done; err == nil {
		err = rerr
	}
	return d, err
}

// sealPairsPerRun is how many clear/sealed pairs one run of the suite
// times: one pair swings by ±50% on a shared machine.
const sealPairsPerRun = 3
