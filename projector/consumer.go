package projector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/internal/logread"
)

// ConsumerConfig is the durable consumer a live runner reads through: the
// whole stream, acknowledged up to a position (AckAll). Only the admin
// identity creates it (CreateConsumer: serve on one machine, `toolstream
// setup` on a cluster); the processors' roles may only look it up, pull and
// acknowledge (package auth), so no processor can delete or reconfigure
// another's (docs/security.md, "No processor role can delete or
// reconfigure a durable consumer").
func ConsumerConfig(durable string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       durable,
		Description:   "Toolstream projection (its view's checkpoint decides what is applied)",
		AckPolicy:     jetstream.AckAllPolicy,
		AckWait:       30 * time.Second,
		MaxAckPending: 8 * batchMaxDefault,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	}
}

// CreateConsumer creates the durable consumer of a projection on stream
// when it does not exist (ConsumerConfig); an existing one is left as it
// is. It needs the admin identity.
func CreateConsumer(ctx context.Context, js jetstream.JetStream, stream, durable string) error {
	if _, err := js.Consumer(ctx, stream, durable); err == nil {
		return nil
	} else if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("projector: consumer %s on %s: %w", durable, stream, err)
	}
	_, err := js.CreateConsumer(ctx, stream, ConsumerConfig(durable))
	if err != nil && !errors.Is(err, jetstream.ErrConsumerExists) {
		return fmt.Errorf("projector: create consumer %s on %s: %w", durable, stream, err)
	}
	return nil
}

// bind looks the runner's durable consumer up. A missing one is created
// when the runner's identity may (the admin: serve on one machine, tests);
// a processor's role may not, and gets ErrNoConsumer naming the command
// that makes it. An existing consumer is never changed.
func (r *Runner) bind(ctx context.Context) (jetstream.Consumer, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.PublishTimeout)
	defer cancel()
	cons, err := r.cfg.JS.Consumer(ctx, r.cfg.Stream, r.cfg.Durable)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		if cerr := CreateConsumer(ctx, r.cfg.JS, r.cfg.Stream, r.cfg.Durable); cerr != nil {
			return nil, &NoConsumerError{Stream: r.cfg.Stream, Durable: r.cfg.Durable, Err: cerr}
		}
		cons, err = r.cfg.JS.Consumer(ctx, r.cfg.Stream, r.cfg.Durable)
	}
	if err != nil {
		return nil, fmt.Errorf("projector: consumer %s: %w", r.cfg.Durable, err)
	}
	return cons, nil
}

// NoConsumerError is a runner whose durable consumer does not exist and
// cannot be made by its identity. It matches ErrNoConsumer.
type NoConsumerError struct {
	Stream, Durable string
	Err             error // why it could not be made
}

func (e *NoConsumerError) Error() string {
	return fmt.Sprintf("projector: durable consumer %s on %s is missing; run `toolstream setup` as the admin identity (serve on one machine makes it): %v",
		e.Durable, e.Stream, e.Err)
}

// Is makes errors.Is(err, ErrNoConsumer) true.
func (e *NoConsumerError) Is(target error) bool { return target == ErrNoConsumer }

// Unwrap returns why the consumer could not be made.
func (e *NoConsumerError) Unwrap() error { return e.Err }

// errLogUnreachable is catchUp's failure to learn where the log ends: no
// stream leader during an election, the server out of reach. Nothing was
// applied; the same read may succeed a moment later.
var errLogUnreachable = errors.New("projector: log unreachable")

// catchUp applies what the log holds past the checkpoint, read by direct
// gets: deliveries lost at the tail (repull).
func (r *Runner) catchUp(ctx context.Context) error {
	return r.catchUpTo(ctx, ^uint64(0))
}

// catchUpTo applies what the log holds past the checkpoint up to upTo (and
// the log's end), read by direct gets. Run gives it what the durable had
// delivered when it was bound: a view behind that (new on an old durable,
// or its directory restored) would not get it again from the durable, while
// what the durable has not delivered yet it delivers in order — a fresh
// view on a fresh durable reads nothing here, and the log once, not twice.
func (r *Runner) catchUpTo(ctx context.Context, upTo uint64) error {
	if upTo <= r.Checkpoint() {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, r.cfg.PublishTimeout)
	s, err := r.cfg.JS.Stream(sctx, r.cfg.Stream)
	cancel()
	if err != nil {
		return fmt.Errorf("%w: stream %s: %w", errLogUnreachable, r.cfg.Stream, err)
	}
	last := min(s.CachedInfo().State.LastSeq, upTo)
	if r.cfg.UntilSeq > 0 {
		last = min(last, r.cfg.UntilSeq)
	}
	if from := r.Checkpoint() + 1; last >= from {
		return r.fill(ctx, from, last)
	}
	return nil
}

// fill applies the log's messages with sequences in [from, upTo], read by
// direct gets (package logread, which a processor's role may use).
func (r *Runner) fill(ctx context.Context, from, upTo uint64) error {
	err := r.readLog(ctx, logread.Config{Conn: r.cfg.JS.Conn(), Stream: r.cfg.Stream, From: from, UpTo: upTo, BatchMax: r.cfg.BatchMax}, nil)
	if err != nil {
		return fmt.Errorf("projector: read %s %d-%d: %w", r.cfg.Stream, from, upTo, err)
	}
	return nil
}

// Backoff of readLog between reads the stream did not answer.
const (
	readRetryMin = 50 * time.Millisecond
	readRetryMax = 2 * time.Second
)

// readLog applies what cfg reads, in order, from past the checkpoint (and
// cfg.From), calling after (if not nil) with each batch applied. A read the
// stream did not answer (logread.ErrUnavailable: a leader change, the
// server that had the request gone, no server serving direct gets yet) is
// tried again from the checkpoint, with a backoff, until it is answered or
// ctx ends: nothing of a failed answer was applied, so no message is
// skipped, none applied twice and none out of order. An error applying, or
// of after, ends it and is returned as it is.
func (r *Runner) readLog(ctx context.Context, cfg logread.Config, after func() error) error {
	var stop error // fn's own error: never retried
	fn := func(batch []*logread.Msg) error {
		msgs := make([]*Msg, len(batch))
		for i, m := range batch {
			msgs[i] = &Msg{Seq: m.Seq, Subject: m.Subject, Time: m.Time, Header: m.Header, Data: m.Data}
		}
		if stop = r.applyMsgs(ctx, msgs); stop != nil {
			return stop
		}
		if after != nil {
			stop = after()
		}
		return stop
	}
	wait := readRetryMin
	for {
		cfg.From = max(cfg.From, r.Checkpoint()+1)
		if cfg.UpTo > 0 && cfg.From > cfg.UpTo {
			return nil
		}
		err := logread.Read(ctx, cfg, fn)
		if err == nil || stop != nil || !errors.Is(err, logread.ErrUnavailable) || ctx.Err() != nil {
			return err
		}
		r.log.Warn("reading the log: no answer; trying again from the checkpoint", "stream", cfg.Stream,
			"checkpoint", r.Checkpoint(), "wait", wait, "err", err)
		if err := r.waitRetry(ctx, &wait, err); err != nil {
			return err
		}
	}
}

// catchUpRetrying is catchUpTo, asked again with readLog's backoff while
// the log is unreachable (errLogUnreachable: the stream's info unanswered
// during a leader election, the server out of reach), until it is reached
// or ctx ends: Run's first catch-up meets what any read of the log may.
// Nothing is applied before the log's end is known, so a try again skips
// nothing.
func (r *Runner) catchUpRetrying(ctx context.Context, upTo uint64) error {
	wait := readRetryMin
	for {
		err := r.catchUpTo(ctx, upTo)
		if !errors.Is(err, errLogUnreachable) || ctx.Err() != nil {
			return err
		}
		r.log.Warn("catching up: the log did not answer; trying again", "stream", r.cfg.Stream,
			"checkpoint", r.Checkpoint(), "wait", wait, "err", err)
		if err := r.waitRetry(ctx, &wait, err); err != nil {
			return err
		}
	}
}

// waitRetry counts a read of the log the stream did not answer (err) and
// waits *wait before it is tried again, doubling *wait up to readRetryMax;
// ctx's error (with err) when ctx ends first.
func (r *Runner) waitRetry(ctx context.Context, wait *time.Duration, err error) error {
	r.readRetries.Add(1)
	select {
	case <-ctx.Done():
		return fmt.Errorf("%w (%w)", ctx.Err(), err)
	case <-time.After(*wait):
	}
	*wait = min(2**wait, readRetryMax)
	return nil
}
