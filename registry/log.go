package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// The registry in the log: a new registry taking effect is a
// RegistryChanged event on Subject, so the change is part of the history
// and every process (assemblers, executors on other machines) can follow it
// without a restart.

// Subject is where RegistryChanged events live:
// events.ControlSubject(events.SystemTenant, "registry").
var Subject = func() string {
	s, err := events.ControlSubject(events.SystemTenant, "registry")
	if err != nil {
		panic(err) // SystemTenant is always valid
	}
	return s
}()

// publishAttemptsMax bounds Publish's compare-and-set retries.
const publishAttemptsMax = 8

// ChangedID is the event id of the registry with digest taking effect after
// the registry change at stream sequence prev (0: the first). It is derived
// from the cause, so two processes that publish the same change are
// deduplicated by Nats-Msg-Id, and a return to an earlier registry
// (A → B → A) is still recorded.
func ChangedID(digest string, prev uint64) string {
	return fmt.Sprintf("registry:%s/%d", digest, prev)
}

// FromEvent rebuilds the registry a RegistryChanged event carries. It
// returns an error wrapping ErrInvalidRegistry for an event whose spec does
// not parse or does not match its digest, and events.ErrBadInput for
// another kind of event.
func FromEvent(ev *events.Event) (*Registry, error) {
	rc, ok := events.As[*events.RegistryChanged](ev)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a registry change", events.ErrBadInput, ev.Kind)
	}
	r, err := Parse(rc.Spec)
	if err != nil {
		return nil, err
	}
	if r.Digest() != rc.Digest {
		return nil, &FieldError{Msg: fmt.Sprintf("registry change %s: spec digest %s differs from the event's %s", ev.ID, r.Digest(), rc.Digest)}
	}
	return r, nil
}

// Publish records r as the registry in effect: unless the last
// RegistryChanged on Subject already carries r's digest, it publishes one
// with ChangedID as Nats-Msg-Id, expecting the subject's last sequence to be
// the one it read (compare-and-set), so concurrent publishers of the same
// file record it once. published reports whether a new event was written.
func Publish(ctx context.Context, js jetstream.JetStream, stream string, r *Registry, source string) (published bool, err error) {
	if r == nil {
		return false, fmt.Errorf("registry: publish: %w: nil registry", ErrInvalidRegistry)
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return false, fmt.Errorf("registry: publish: %w", err)
	}
	for range publishAttemptsMax {
		var prev uint64
		last, err := s.GetLastMsgForSubject(ctx, Subject)
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
		case err != nil:
			return false, fmt.Errorf("registry: publish: last change: %w", err)
		default:
			prev = last.Sequence
			if ev, derr := events.Decode(last.Data); derr == nil {
				if rc, ok := events.As[*events.RegistryChanged](ev); ok && rc.Digest == r.Digest() {
					return false, nil
				}
			}
		}
		data, err := events.Encode(&events.Event{
			ID: ChangedID(r.Digest(), prev), Tenant: events.SystemTenant, At: time.Now().UnixNano(),
			Body: &events.RegistryChanged{Digest: r.Digest(), Source: source, Spec: r.Spec()},
		})
		if err != nil {
			return false, fmt.Errorf("registry: publish: %w", err)
		}
		ack, err := js.Publish(ctx, Subject, data, jetstream.WithMsgID(ChangedID(r.Digest(), prev)),
			jetstream.WithExpectLastSequencePerSubject(prev))
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
			continue // someone published in between: look again
		}
		if err != nil {
			return false, fmt.Errorf("registry: publish: %w", err)
		}
		return !ack.Duplicate, nil
	}
	return false, fmt.Errorf("registry: publish: the registry kept changing under %d attempts", publishAttemptsMax)
}

// Follower keeps the latest registry recorded in the log. Current is safe
// for concurrent use.
type Follower struct {
	log     *slog.Logger
	current atomic.Pointer[Registry]
	cc      jetstream.ConsumeContext

	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every change
}

// Follow reads the latest RegistryChanged of the log and follows later ones.
// Current is nil until the log holds a registry. A change that does not
// parse is logged and skipped: the previous registry stays in effect. Stop
// ends following.
func Follow(ctx context.Context, js jetstream.JetStream, stream string, logger *slog.Logger) (*Follower, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	f := &Follower{log: logger, changed: make(chan struct{})}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("registry: follow: %w", err)
	}
	var start uint64 = 1
	last, err := s.GetLastMsgForSubject(ctx, Subject)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
	case err != nil:
		return nil, fmt.Errorf("registry: follow: %w", err)
	default:
		f.apply(last.Data)
		start = last.Sequence + 1
	}
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{Subject}, DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: start,
	})
	if err != nil {
		return nil, fmt.Errorf("registry: follow: %w", err)
	}
	f.cc, err = cons.Consume(func(m jetstream.Msg) { f.apply(m.Data()) })
	if err != nil {
		return nil, fmt.Errorf("registry: follow: %w", err)
	}
	return f, nil
}

func (f *Follower) apply(data []byte) {
	ev, err := events.Decode(data)
	var r *Registry
	if err == nil {
		r, err = FromEvent(ev)
	}
	if err != nil {
		f.log.Warn("registry change rejected; the previous registry stays in effect", "err", err)
		return
	}
	f.current.Store(r)
	f.mu.Lock()
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
	f.log.Info("registry changed", "digest", r.Digest(), "source", sourceOf(ev))
}

func sourceOf(ev *events.Event) string {
	if rc, ok := events.As[*events.RegistryChanged](ev); ok {
		return rc.Source
	}
	return ""
}

// Current returns the latest registry of the log, or nil.
func (f *Follower) Current() *Registry { return f.current.Load() }

// Wait blocks until the registry with digest is current or ctx ends (then
// it returns ctx's error, or ErrNoRegistry when the log holds none).
func (f *Follower) Wait(ctx context.Context, digest string) error {
	for {
		f.mu.Lock()
		ch := f.changed
		f.mu.Unlock()
		cur := f.Current()
		if cur != nil && cur.Digest() == digest {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if cur == nil {
				return fmt.Errorf("%w: %w", ErrNoRegistry, ctx.Err())
			}
			return ctx.Err()
		}
	}
}

// Stop ends following; Current keeps the last registry.
func (f *Follower) Stop() { f.cc.Stop() }
