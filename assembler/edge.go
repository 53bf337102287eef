package assembler

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/ingest"
	"github.com/toolstream/toolstream/projector"
)

// Normalising at the edge. Toolstream's own producers (toolstream publish,
// toolstream assemble, the demo, and any Go program through Producer) run
// the ingest adapters in their own process and publish canonical model
// events, sealed under the user's data key, to
// ts.model.<tenant>.<response>.<item>: what the ingest projection would
// have emitted for the same raw events (ingest.Stream decides for both),
// without the raw events ever reaching the log in plaintext, and without
// the log storing, and ingest reading, every event twice. Raw events of
// third-party producers still go to ts.in (PublishRaw), where the ingest
// projection normalises them. See docs/design.md, "Normalising at the
// edge".
//
// The two paths differ in what names a model event: ingest's events are
// named by the raw event's sequence in TS_IN (events.ModelEventID), the
// edge's by the raw event's position in its stream (events.EdgeEventID),
// which is also how trace tells where a call's bytes came from.

// EdgeOptions says how EdgeEvents normalises.
type EdgeOptions struct {
	// Now gives the events their time, read once per raw event; default
	// time.Now.
	Now func() time.Time
	// Merge joins consecutive argument deltas of a call into one model
	// event (ingest.DeltaMerger): what a Producer does. Without it there
	// is one model event per event the adapter emits, as through ingest.
	Merge bool
}

// EdgeEvents reads a provider stream from r (JSON lines or raw SSE, see
// ingest.ReadEvents), normalises it as the ingest projection would, and
// calls fn with each canonical model event and its subject, in order:
// the events of each raw event, then those the stream's end implies. A raw
// event the adapter refuses aborts the open calls of its response and
// becomes an InputRejected (its Seq is the event's position), and the
// stream goes on. It returns the number of raw events read, and the
// reader's or fn's error.
func EdgeEvents(s RawStream, r io.Reader, o EdgeOptions, fn func(subject string, ev *events.Event) error) (int, error) {
	format := s.Format
	if format == "" {
		format = string(ingest.FormatAuto)
	}
	f, err := ingest.ParseFormat(format)
	if err != nil {
		return 0, err
	}
	if err := events.ValidTenant(s.Tenant); err != nil {
		return 0, err
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	st := ingest.NewStream(ingest.Config{Format: f, Stream: s.Stream, TaggedText: s.Tagged})
	env := &events.Event{Tenant: s.Tenant, User: s.User, Session: s.Session, Run: s.Run, Step: s.Step}
	put := func(p ingest.Placed) error {
		subj, ev, err := p.EdgeEvent(env, s.Stream)
		if err != nil {
			return err
		}
		return fn(subj, ev)
	}
	var merger ingest.DeltaMerger
	emit := func(pos int64, at int64, outs []ingest.Out) error {
		if o.Merge {
			return merger.Add(pos, at, outs, put)
		}
		for n, out := range outs {
			if err := put(ingest.Placed{Out: out, Pos: pos, N: n, At: at}); err != nil {
				return err
			}
		}
		return nil
	}
	var pos int64
	err = ingest.ReadEvents(r, func(raw []byte) error {
		at := now().UnixNano()
		outs, err := st.Feed(raw)
		if err != nil {
			outs = st.Refuse(uint64(pos), err)
		}
		err = emit(pos, at, outs)
		pos++
		return err
	})
	if err != nil {
		return int(pos), err
	}
	if err := emit(pos, now().UnixNano(), st.End()); err != nil {
		return int(pos), err
	}
	return int(pos), merger.Flush(put)
}

// ProducerConfig configures a Producer.
type ProducerConfig struct {
	// JS is where the events go; Keys seals them (the user's data key,
	// events.EncodeSealed). Both are required: Toolstream's own producers
	// never publish personal data in the clear.
	JS   jetstream.JetStream
	Keys events.Keyring
	// Window bounds the publishes sent and not yet acknowledged; default
	// 512. Each acknowledgement lets one more go: the server is never idle
	// waiting for the producer, nor the producer for a whole window.
	Window int
	// Ordered publishes atomic batches, each after the previous one was
	// acknowledged, instead of a window of single publishes: on a
	// replicated stream a publish retried across a leader change would land
	// after later ones (projector/batch.go). The default decides by the
	// server: ordered when it is part of a cluster.
	Ordered OrderMode
	// PublishTimeout bounds the wait for one acknowledgement; default 10s.
	PublishTimeout time.Duration
	// RetryMax bounds how long an ordered batch is retried while the stream
	// has no leader; default 1 minute.
	RetryMax time.Duration
	// Now gives the events their time; default time.Now.
	Now func() time.Time
	// PerChunk publishes one model event per event the adapter emits
	// instead of merging a call's consecutive argument deltas
	// (EdgeOptions.Merge).
	PerChunk bool
}

// OrderMode says how a Producer keeps its events in order in the log.
type OrderMode uint8

const (
	// OrderAuto orders by atomic batches on a clustered server, by a
	// pipelined window on a single server.
	OrderAuto OrderMode = iota
	// OrderWindow always pipelines.
	OrderWindow
	// OrderBatches always publishes atomic batches.
	OrderBatches
)

func (c *ProducerConfig) setDefaults() error {
	if c.JS == nil || c.Keys == nil {
		return fmt.Errorf("%w: JS and Keys are required", ErrInvalidProducer)
	}
	if c.Window <= 0 {
		c.Window = 512
	}
	if c.PublishTimeout <= 0 {
		c.PublishTimeout = 10 * time.Second
	}
	if c.RetryMax <= 0 {
		c.RetryMax = time.Minute
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Ordered == OrderAuto {
		c.Ordered = OrderWindow
		if c.JS.Conn().ConnectedClusterName() != "" {
			c.Ordered = OrderBatches
		}
	}
	return nil
}

// Producer normalises provider streams at the edge and publishes their
// canonical model events, sealed, to ts.model.<tenant>.<response>.<item>
// (EdgeEvents says which events). Each event's Nats-Msg-Id is its id, so
// publishing the same stream again is deduplicated within the log's
// duplicate window. Safe for concurrent use: each Publish has its own
// stream.
type Producer struct {
	cfg ProducerConfig
}

// NewProducer returns a producer; ErrInvalidProducer without JS or Keys.
func NewProducer(cfg ProducerConfig) (*Producer, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	return &Producer{cfg: cfg}, nil
}

// Published is what one Publish did.
type Published struct {
	Raw   int    // raw provider events read
	Model int    // canonical model events stored
	Last  uint64 // TS_MODEL sequence of the last of them
}

// Publish reads one provider stream from r and publishes its canonical
// model events, every one acknowledged when it returns. It returns the
// reader's error, ingest's for a bad format or tenant, the key store's, or
// the log's (events.ErrBadInput never comes back for a raw event: a refused
// one is published as an InputRejected).
func (p *Producer) Publish(ctx context.Context, s RawStream, r io.Reader) (Published, error) {
	out := &projector.OrderedOut{JS: p.cfg.JS, Window: p.cfg.Window, Timeout: p.cfg.PublishTimeout, RetryMax: p.cfg.RetryMax, Batches: p.cfg.Ordered == OrderBatches}
	raw, err := EdgeEvents(s, r, EdgeOptions{Now: p.cfg.Now, Merge: !p.cfg.PerChunk}, func(subject string, ev *events.Event) error {
		data, err := events.EncodeSealed(ev, p.cfg.Keys, "")
		if err != nil {
			return err
		}
		m := &nats.Msg{Subject: subject, Data: data, Header: nats.Header{jetstream.MsgIDHeader: []string{ev.ID}}}
		return out.Add(ctx, m)
	})
	if err == nil {
		err = out.Flush(ctx)
	}
	if err != nil {
		return Published{Raw: raw, Model: out.Stored(), Last: out.Last()}, fmt.Errorf("assembler: publish stream %q of %s: %w", s.Stream, s.Tenant, err)
	}
	return Published{Raw: raw, Model: out.Stored(), Last: out.Last()}, nil
}
