package bench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/projector"
)

// BatchMax is the batch size of the raw baselines: the runner's default.
const BatchMax = 512

// waitMax bounds every wait of a measurement: a stuck run fails instead of
// hanging.
const waitMax = 5 * time.Minute

// Noop is a projection that applies nothing: what the backbone alone costs
// (fetch, batch commit of the checkpoint, ack).
type Noop struct {
	// Subjects the projection reads; default ts.model.>.
	Filter []string
}

// Name implements projector.Projection.
func (Noop) Name() string { return "noop" }

// Subjects implements projector.Projection.
func (n Noop) Subjects() []string {
	if len(n.Filter) == 0 {
		return []string{"ts.model.>"}
	}
	return n.Filter
}

// Apply implements projector.Projection.
func (Noop) Apply(*projector.Tx, *projector.Msg) error { return nil }

// FillModel publishes n argument deltas of one call of tenant acme
// (asynchronously) and returns the sequence of the last.
func FillModel(ctx context.Context, js jetstream.JetStream, n int) (uint64, error) {
	var last jetstream.PubAckFuture
	for i := 0; i < n; i++ {
		data, err := events.Encode(&events.Event{ID: fmt.Sprint(i), Tenant: "acme", Response: "r", Item: "i", At: int64(i),
			Body: &events.ArgumentsDelta{Delta: `{"city":"Par`}})
		if err != nil {
			return 0, err
		}
		if last, err = publishAsync(ctx, js, "ts.model.acme.r.i", data); err != nil {
			return 0, err
		}
	}
	return waitPublished(ctx, js, last)
}

func waitPublished(ctx context.Context, js jetstream.JetStream, last jetstream.PubAckFuture) (uint64, error) {
	if last == nil {
		return 0, nil
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	select {
	case ack := <-last.Ok():
		return ack.Sequence, nil
	case err := <-last.Err():
		return 0, fmt.Errorf("bench: publish: %w", err)
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// RawConsume fetches and acknowledges every event up to last the way a
// Runner does — a durable pull consumer, AckAll on the last message of each
// batch of up to batchMax — but applies nothing: the baseline of the
// backbone. It returns how long that took, consumer creation included.
func RawConsume(ctx context.Context, js jetstream.JetStream, durable string, last uint64, batchMax int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	start := time.Now()
	cons, err := js.CreateConsumer(ctx, events.StreamModel, jetstream.ConsumerConfig{Durable: durable,
		AckPolicy: jetstream.AckAllPolicy, MaxAckPending: 8 * batchMax})
	if err != nil {
		return 0, err
	}
	ch := make(chan jetstream.Msg, 2*batchMax)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case ch <- m:
		case <-ctx.Done():
		}
	}, jetstream.PullMaxMessages(batchMax))
	if err != nil {
		return 0, err
	}
	defer cc.Stop()
	batch := make([]jetstream.Msg, 0, batchMax)
	for {
		select {
		case m := <-ch:
			batch = append(batch[:0], m)
		case <-ctx.Done():
			return 0, fmt.Errorf("bench: raw consumer: %w", ctx.Err())
		}
	drain:
		for len(batch) < batchMax {
			select {
			case m := <-ch:
				batch = append(batch, m)
			default:
				break drain
			}
		}
		lastMsg := batch[len(batch)-1]
		md, err := lastMsg.Metadata()
		if err != nil {
			return 0, err
		}
		if err := lastMsg.Ack(); err != nil {
			return 0, err
		}
		if md.Sequence.Stream >= last {
			return time.Since(start), nil
		}
	}
}

// RunProjection runs p on a durable consumer named after dir's last
// element, from sequence 1, until it has applied last, and returns how long
// that took, the opening of its Pebble view included.
func RunProjection(ctx context.Context, js jetstream.JetStream, dir string, p projector.Projection, last uint64) (time.Duration, error) {
	start := time.Now()
	r, err := projector.New(projector.Config{JS: js, Dir: dir, Durable: filepath.Base(dir)}, p)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(ctx, waitMax)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	waited := make(chan error, 1)
	go func() { waited <- r.WaitFor(ctx, last) }()
	var d time.Duration
	select {
	case err = <-waited:
		d = time.Since(start)
		cancel()
		if rerr := <-done; err == nil {
			err = rerr
		}
	case err = <-done:
		cancel()
		if err == nil {
			err = fmt.Errorf("bench: %s stopped before %d", p.Name(), last)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("bench: %s: %w", p.Name(), err)
	}
	return d, nil
}

// BackboneResult compares the no-op projection with the raw consumer over
// the same events.
type BackboneResult struct {
	Events    int
	Raw, Noop time.Duration
}

// Backbone fills b's stream with n events and times a raw durable pull
// consumer (RawConsume) and the no-op projection over them. b's stream must
// be empty.
func Backbone(ctx context.Context, b *bus.Bus, dir string, n int) (BackboneResult, error) {
	last, err := FillModel(ctx, b.JS, n)
	if err != nil {
		return BackboneResult{}, err
	}
	raw, err := RawConsume(ctx, b.JS, "bench-raw", last, BatchMax)
	if err != nil {
		return BackboneResult{}, err
	}
	noop, err := RunProjection(ctx, b.JS, filepath.Join(dir, "bench-noop"), Noop{}, last)
	if err != nil {
		return BackboneResult{}, err
	}
	return BackboneResult{Events: int(last), Raw: raw, Noop: noop}, nil
}

// publishAsync is js.PublishAsync that, when too many publishes wait for
// their acknowledgement (a loaded machine), waits for them and tries again
// instead of failing the run.
func publishAsync(ctx context.Context, js jetstream.JetStream, subject string, data []byte, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	for {
		f, err := js.PublishAsync(subject, data, opts...)
		if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
			return f, err
		}
		select {
		case <-js.PublishAsyncComplete():
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
