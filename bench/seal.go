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
// the same path in the clear, over the same events, each on its own
// server.
type SealResult struct {
	Events      int
	Clear, Seal time.Duration
}

// SealedAssembler publishes CallEvents(calls, deltas, 1) of one user to two
// fresh servers — in the clear to one, sealed under the user's data key to
// the other — and times the assembler (bus, Pebble, outbox, relay, the
// sealing of what it emits) over each.
func SealedAssembler(ctx context.Context, clear, sealed *bus.Bus, dir string, calls, deltas int) (SealResult, error) {
	evs := CallEvents(calls, deltas, 1)
	res := SealResult{Events: len(evs)}
	var err error
	if res.Clear, err = pathTime(ctx, clear, filepath.Join(dir, "clear"), evs, nil, func() projector.Projection { return assembler.New(assembler.Config{}) }); err != nil {
		return res, err
	}
	kr, err := keys.Open(ctx, keys.Config{JS: sealed.JS, Create: true})
	if err != nil {
		return res, err
	}
	res.Seal, err = pathTime(ctx, sealed, filepath.Join(dir, "sealed"), evs, kr, func() projector.Projection { return assembler.New(assembler.Config{}) })
	return res, err
}

// SealedMemory does as SealedAssembler for the memory projection over n
// observations of one user, each a record of its own sealed under the
// record's key.
func SealedMemory(ctx context.Context, clear, sealed *bus.Bus, dir string, n int) (SealResult, error) {
	res := SealResult{Events: n}
	run := func(b *bus.Bus, kr events.Keyring, sub string) (time.Duration, error) {
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
		return runWith(ctx, b, filepath.Join(dir, sub), memory.NewProjection(memory.NewEngine(memory.Config{}, nil)), kr, seq)
	}
	var err error
	if res.Clear, err = run(clear, nil, "clear"); err != nil {
		return res, err
	}
	kr, err := keys.Open(ctx, keys.Config{JS: sealed.JS, Create: true})
	if err != nil {
		return res, err
	}
	res.Seal, err = run(sealed, kr, "sealed")
	return res, err
}

// pathTime publishes evs (user u1, sealed when kr is set) to b and times a
// fresh projection over them.
func pathTime(ctx context.Context, b *bus.Bus, dir string, evs []ModelEvent, kr events.Keyring, p func() projector.Projection) (time.Duration, error) {
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
	return runWith(ctx, b, dir, p(), kr, seq)
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
