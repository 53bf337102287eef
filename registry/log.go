package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/logread"
)

// The registry in the log: a new registry taking effect is a signed
// RegistryChanged event on Subject, so the change is part of the history
// and every process (assemblers, executors on other machines) can follow it
// without a restart.
//
// The registry in force at a point of the log is the change, up to that
// point, that verifies under the reader's Trust and parses, with the latest
// IssuedAt (the earliest of equals). Read in order, that is what Accept
// keeps; a reader that starts late finds it without parsing every change
// (ledger).

// Subject is where RegistryChanged events live:
// events.ControlSubject(events.SystemTenant, "registry").
var Subject = func() string {
	s, err := events.ControlSubject(events.SystemTenant, "registry")
	if err != nil {
		panic(err) // SystemTenant is always valid
	}
	return s
}()

// SubjectStream is the stream of the log that holds Subject (TS_MODEL, so
// the assembler reads registry changes in order with the model events they
// decide): the default of every Stream field here.
var SubjectStream = func() string {
	s, err := events.StreamOf(Subject)
	if err != nil {
		panic(err) // a control subject always has a stream
	}
	return s
}()

// publishAttemptsMax bounds Publish's compare-and-set retries.
const publishAttemptsMax = 8

// PublishConfig says where Publish records a registry and with which key.
type PublishConfig struct {
	JS     jetstream.JetStream
	Stream string
	// Key signs the change. Required.
	Key *SigningKey
	// Trust decides which changes of the log count when Publish looks for
	// the registry in force; nil: Key's public key alone.
	Trust *Trust
	// Source names where the registry comes from (a file path); it is
	// signed with the change.
	Source string
	// Now is the clock of IssuedAt; nil: time.Now. A change is always
	// issued after every signed change of the log, whatever the clock says.
	Now func() time.Time
	// MsgIDKey tags the change's message id (events.MsgID): the registry's
	// subject lies in TS_MODEL, which producers write, so an untagged id
	// (derived from the digest and the last sequence) could be claimed
	// ahead and the change dropped as its duplicate. Give the publishing
	// identity's key (bus.Bus.MsgIDKey).
	MsgIDKey []byte
}

func (c *PublishConfig) trust() *Trust {
	if c.Trust == nil && c.Key != nil {
		return c.Key.Trust()
	}
	return c.Trust
}

// Publish records r as the registry in force. It writes nothing when the
// registry in force in the log (the latest change that verifies under
// cfg.Trust, not merely the last event on Subject) is r and nothing was
// appended after it; otherwise it publishes a change signed by cfg.Key,
// issued after every signed change of the log, with events.RegistryChangedID as
// Nats-Msg-Id, expecting the subject's last sequence to be the one it read
// (compare-and-set), so concurrent publishers of the same file record it
// once. A forged or replayed event after the registry in force is thus
// answered by recording r again. published reports whether a new event was
// written.
//
// It returns ErrNoSigningKey without cfg.Key.
func Publish(ctx context.Context, cfg PublishConfig, r *Registry) (published bool, err error) {
	if cfg.Stream == "" {
		cfg.Stream = SubjectStream
	}
	_, published, err = newLedger(cfg.trust()).publish(ctx, cfg, r)
	return published, err
}

// ledger is what a reader of the registry changes of the log keeps to find
// the registry in force without parsing every change: the changes whose
// signature verifies, once each (a replayed change is the same signature).
// Its size is bounded by the changes the operator signed; forgeries are not
// kept. A ledger is used by one goroutine.
type ledger struct {
	trust  *Trust
	read   uint64               // stream sequence of the last event read
	signed map[string]candidate // by signature
	newest candidate            // latest IssuedAt, earliest sequence of equals; seq 0: none
}

// candidate is a change whose signature verifies.
type candidate struct {
	seq      uint64
	issuedAt int64
	digest   string
}

func newLedger(trust *Trust) *ledger {
	return &ledger{trust: trust, signed: map[string]candidate{}}
}

// add reads the event at seq.
func (l *ledger) add(seq uint64, data []byte) {
	l.read = seq
	ev, err := events.Decode(data)
	if err != nil {
		return
	}
	rc, cerr := verify(l.trust, ev)
	if cerr != nil {
		return
	}
	if _, seen := l.signed[string(rc.Sig)]; seen {
		return
	}
	c := candidate{seq: seq, issuedAt: rc.IssuedAt, digest: rc.Digest}
	l.signed[string(rc.Sig)] = c
	if l.newest.seq == 0 || c.issuedAt > l.newest.issuedAt {
		l.newest = c
	}
}

// byPrecedence returns the candidates, the one that would be in force
// first: latest IssuedAt, then earliest sequence.
func (l *ledger) byPrecedence() []candidate {
	out := make([]candidate, 0, len(l.signed))
	for _, c := range l.signed {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].issuedAt != out[j].issuedAt {
			return out[i].issuedAt > out[j].issuedAt
		}
		return out[i].seq < out[j].seq
	})
	return out
}

// catchUp reads the events on Subject after l.read up to and including
// sequence to.
func (l *ledger) catchUp(ctx context.Context, js jetstream.JetStream, stream string, to uint64) error {
	if to <= l.read {
		return nil
	}
	return logread.Read(ctx, logread.Config{Conn: js.Conn(), Stream: stream, Filter: Subject, From: l.read + 1, UpTo: to},
		func(batch []*logread.Msg) error {
			for _, m := range batch {
				l.add(m.Seq, m.Data)
			}
			return nil
		})
}

// lastSeq returns the stream sequence of the last event on Subject, 0 when
// there is none.
func lastSeq(ctx context.Context, s jetstream.Stream) (uint64, error) {
	last, err := s.GetLastMsgForSubject(ctx, Subject)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	}
	return last.Sequence, nil
}

// publish is Publish on a ledger kept between calls; it also returns the
// sequence of the change of r in force.
func (l *ledger) publish(ctx context.Context, cfg PublishConfig, r *Registry) (seq uint64, published bool, err error) {
	if r == nil {
		return 0, false, fmt.Errorf("registry: publish: %w: nil registry", ErrInvalidRegistry)
	}
	if cfg.Key == nil {
		return 0, false, fmt.Errorf("registry: publish: %w", ErrNoSigningKey)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	s, err := cfg.JS.Stream(ctx, cfg.Stream)
	if err != nil {
		return 0, false, fmt.Errorf("registry: publish: %w", err)
	}
	for range publishAttemptsMax {
		prev, err := lastSeq(ctx, s)
		if err != nil {
			return 0, false, fmt.Errorf("registry: publish: last change: %w", err)
		}
		if err := l.catchUp(ctx, cfg.JS, cfg.Stream, prev); err != nil {
			return 0, false, fmt.Errorf("registry: publish: read the changes: %w", err)
		}
		if l.newest.seq != 0 && l.newest.seq == prev && l.newest.digest == r.Digest() {
			return prev, false, nil
		}
		rc, err := Sign(cfg.Key, r, cfg.Source, max(now().UnixNano(), l.newest.issuedAt+1))
		if err != nil {
			return 0, false, fmt.Errorf("registry: publish: %w", err)
		}
		id := events.RegistryChangedID(r.Digest(), prev)
		data, err := events.Encode(&events.Event{ID: id, Tenant: events.SystemTenant, At: rc.IssuedAt, Body: rc})
		if err != nil {
			return 0, false, fmt.Errorf("registry: publish: %w", err)
		}
		ack, err := cfg.JS.Publish(ctx, Subject, data, jetstream.WithMsgID(events.MsgID(cfg.MsgIDKey, Subject, id)), jetstream.WithExpectLastSequencePerSubject(prev))
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
			continue // someone published in between: look again
		}
		if err != nil {
			return 0, false, fmt.Errorf("registry: publish: %w", err)
		}
		if ack.Duplicate {
			// Ours only if what the log holds there is this change.
			if m, err := s.GetMsg(ctx, ack.Sequence); err != nil || m.Subject != Subject {
				return 0, false, fmt.Errorf("registry: publish: %w: the log holds another message (seq %d) under the change's message id", ErrDuplicateNotOurs, ack.Sequence)
			}
		}
		return ack.Sequence, !ack.Duplicate, nil
	}
	return 0, false, fmt.Errorf("registry: publish: the registry kept changing under %d attempts", publishAttemptsMax)
}

// FollowConfig configures Follow.
type FollowConfig struct {
	JS     jetstream.JetStream
	Stream string
	// Trust holds the keys whose changes take effect. Nil or empty trusts
	// nothing: every change is rejected and Current stays nil.
	Trust *Trust
	// Logger; nil discards.
	Logger *slog.Logger
}

// Follower keeps the registry in force in the log. Current is safe for
// concurrent use.
type Follower struct {
	log     *slog.Logger
	trust   *Trust
	current atomic.Pointer[Registry]
	stop    context.CancelFunc
	done    chan struct{} // closed when following ends

	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every change
}

// Follow finds the registry in force in the log and follows later
// changes, each decided by Accept: a change that is unsigned, signed by a
// key cfg.Trust does not hold, badly signed, stale, too large or not a
// registry is logged with its reason and skipped, and the registry in force
// stays. Current is nil until the log holds a change that verifies. Stop
// ends following.
func Follow(ctx context.Context, cfg FollowConfig) (*Follower, error) {
	if cfg.Stream == "" {
		cfg.Stream = SubjectStream
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	f := &Follower{log: cfg.Logger, trust: cfg.Trust, changed: make(chan struct{})}
	if cfg.Trust.Len() == 0 {
		f.log.Warn("no registry key is trusted: every registry change will be rejected")
	}
	s, err := cfg.JS.Stream(ctx, cfg.Stream)
	if err != nil {
		return nil, fmt.Errorf("registry: follow: %w", err)
	}
	last, err := lastSeq(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("registry: follow: %w", err)
	}
	l := newLedger(cfg.Trust)
	if err := l.catchUp(ctx, cfg.JS, cfg.Stream, last); err != nil {
		return nil, fmt.Errorf("registry: follow: %w", err)
	}
	// The change in force is the first of the candidates that parses (all
	// do, unless a newer version of Toolstream wrote one).
	for _, c := range l.byPrecedence() {
		m, err := s.GetMsg(ctx, c.seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // removed from the log meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("registry: follow: %w", err)
		}
		if f.apply(m.Data) {
			break
		}
	}
	// Later changes, read by direct gets (an executor's identity may create
	// no consumer on the log).
	fctx, stop := context.WithCancel(context.Background())
	f.stop, f.done = stop, make(chan struct{})
	go func() {
		defer close(f.done)
		err := logread.Read(fctx, logread.Config{Conn: cfg.JS.Conn(), Stream: cfg.Stream, Filter: Subject, From: last + 1, Follow: true},
			func(batch []*logread.Msg) error {
				for _, m := range batch {
					f.apply(m.Data)
				}
				return nil
			})
		if err != nil {
			f.log.Error("registry: following the log stopped; the registry in force stays", "err", err)
		}
	}()
	return f, nil
}

// apply decides one change; accepted reports a registry in force after it.
func (f *Follower) apply(data []byte) (accepted bool) {
	ev, err := events.Decode(data)
	var r *Registry
	cur := f.Current()
	if err == nil {
		r, err = Accept(f.trust, cur, ev)
	}
	if err != nil {
		id := ""
		if ev != nil {
			id = ev.ID
		}
		f.log.Warn("registry change rejected; the registry in force stays",
			"id", id, "reason", ReasonOf(err), "in_force", cur.Digest(), "err", err)
		return false
	}
	if r == cur {
		return true // the change in force, again
	}
	f.current.Store(r)
	f.mu.Lock()
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
	if r.Digest() == cur.Digest() {
		f.log.Debug("registry recorded again", "digest", r.Digest(), "key", r.KeyID(), "source", sourceOf(ev))
	} else {
		f.log.Info("registry changed", "digest", r.Digest(), "key", r.KeyID(), "source", sourceOf(ev))
	}
	return true
}

func sourceOf(ev *events.Event) string {
	if rc, ok := events.As[*events.RegistryChanged](ev); ok {
		return rc.Source
	}
	return ""
}

// Current returns the registry in force, or nil.
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

// Stop ends following and waits until it has; Current keeps the last
// registry.
func (f *Follower) Stop() { f.stop(); <-f.done }
