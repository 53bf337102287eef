package assembler

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/ingest"
	"github.com/toolstream/toolstream/projector"
)

// ingestCacheMax bounds the adapter states kept in memory between events.
const ingestCacheMax = 10_000

// IngestName is the ingest projection's name.
const IngestName = "ingest"

// Headers a producer may set on a raw event published to
// ts.in.<tenant>.<format>.<stream>. The subject names tenant, format and
// stream; headers add the envelope context and control the stream.
const (
	HeaderFormat  = "Ts-Format"  // overrides the subject's format token
	HeaderTagged  = "Ts-Tagged"  // "1": scan text for <tool_call> tags
	HeaderEnd     = "Ts-End"     // "1": the stream ended (empty body)
	HeaderUser    = "Ts-User"    // envelope user
	HeaderSession = "Ts-Session" // envelope session
	HeaderRun     = "Ts-Run"     // envelope run
	HeaderStep    = "Ts-Step"    // envelope step
	// HeaderSeq is the event's position in its stream (0, 1, 2…). Producers
	// that number their events let ingest see what went missing: a repeated
	// position is a no-op, and a gap aborts the stream's open calls (their
	// bytes may be incomplete) before the stream goes on.
	HeaderSeq = "Ts-Seq"
)

// TaggedSuffix on the subject's format token switches tagged-text parsing
// on, e.g. ts.in.acme.openai-chat+tagged.s1.
const TaggedSuffix = "+tagged"

// Ingest is the projection from raw provider events to canonical model
// events. Its state is one adapter state per (tenant, stream).
type Ingest struct {
	log   *slog.Logger
	cache map[string]*streamState // derived from the view; rebuilt lazily after a restart
}

var _ projector.Projection = (*Ingest)(nil)

// NewIngest returns the ingest projection.
func NewIngest(log *slog.Logger) *Ingest {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Ingest{log: log, cache: map[string]*streamState{}}
}

// Name implements projector.Projection.
func (*Ingest) Name() string { return IngestName }

// Subjects implements projector.Projection.
func (*Ingest) Subjects() []string { return []string{"ts.in.>"} }

// streamState is one stream's row: the adapter state and the responses it
// opened that have not ended.
type streamState struct {
	Adapter []byte   `msgpack:"a"`
	Open    []string `msgpack:"o,omitempty"`
	Ended   bool     `msgpack:"e,omitempty"`
	Next    int64    `msgpack:"nx,omitempty"` // next expected Ts-Seq`
	env     envelope
	n       *ingest.Normalizer
}

type rawRef struct {
	tenant, format, stream string
	tagged                 bool
	key                    []byte
}

func parseIngestSubject(m *projector.Msg) (rawRef, error) {
	parts := strings.Split(m.Subject, ".")
	if len(parts) != 5 || parts[0] != events.SubjectPrefix || parts[1] != "in" {
		return rawRef{}, fmt.Errorf("%w: ingest subject %q is not ts.in.<tenant>.<format>.<stream>", events.ErrMalformed, m.Subject)
	}
	if err := events.ValidTenant(parts[2]); err != nil {
		return rawRef{}, err
	}
	stream, err := events.Untoken(parts[4])
	if err != nil {
		return rawRef{}, err
	}
	ref := rawRef{tenant: parts[2], format: parts[3], stream: stream}
	if h := m.Header.Get(HeaderFormat); h != "" {
		ref.format = h
	}
	if f, ok := strings.CutSuffix(ref.format, TaggedSuffix); ok {
		ref.format, ref.tagged = f, true
	}
	if m.Header.Get(HeaderTagged) == "1" {
		ref.tagged = true
	}
	ref.key, err = projector.TenantKey(ref.tenant, "n", stream)
	return ref, err
}

func (in *Ingest) stream(tx *projector.Tx, ref rawRef, m *projector.Msg) (*streamState, error) {
	cacheKey := string(ref.key)
	if st := in.cache[cacheKey]; st != nil {
		return st, nil
	}
	format, err := ingest.ParseFormat(ref.format)
	if err != nil {
		return nil, err
	}
	cfg := ingest.Config{Format: format, Stream: ref.stream, TaggedText: ref.tagged}
	st := &streamState{}
	found, err := load(tx, ref.key, st)
	if err != nil {
		return nil, err
	}
	if found && st.Ended {
		return st, nil
	}
	if found {
		if st.n, err = ingest.Restore(cfg, st.Adapter); err != nil {
			return nil, fmt.Errorf("ingest: stored adapter state of %q: %w", ref.stream, err)
		}
	} else {
		st.n = ingest.New(cfg)
	}
	if len(in.cache) >= ingestCacheMax {
		clear(in.cache) // a cache, not state: rebuilt from the view on demand
	}
	st.env = envelope{User: m.Header.Get(HeaderUser), Session: m.Header.Get(HeaderSession), Run: m.Header.Get(HeaderRun), Step: m.Header.Get(HeaderStep)}
	in.cache[cacheKey] = st
	return st, nil
}

// Apply implements projector.Projection.
func (in *Ingest) Apply(_ context.Context, tx *projector.Tx, m *projector.Msg) error {
	ref, err := parseIngestSubject(m)
	if err != nil {
		return err
	}
	st, err := in.stream(tx, ref, m)
	if err != nil {
		return err
	}
	if st.Ended {
		return fmt.Errorf("%w: stream %q already ended", events.ErrBadInput, ref.stream)
	}
	var outs []ingest.Out
	if h := m.Header.Get(HeaderSeq); h != "" {
		pos, err := strconv.ParseInt(h, 10, 64)
		if err != nil || pos < 0 {
			return fmt.Errorf("%w: %s %q", events.ErrMalformed, HeaderSeq, h)
		}
		switch {
		case pos < st.Next:
			return nil // a repeat of an event already applied
		case pos > st.Next:
			outs = st.n.AbortOpen(events.ReasonStreamFailed, fmt.Sprintf("events %d to %d of the stream are missing", st.Next, pos-1))
		}
		st.Next = pos + 1
	}
	if m.Header.Get(HeaderEnd) == "1" {
		outs = append(outs, st.n.Flush()...)
		st.Ended = true
	} else {
		more, err := st.n.Feed(m.Data)
		if err != nil {
			delete(in.cache, string(ref.key)) // Next may have moved; reload from the view
			return err                        // adapter state unchanged: the projector records the rejection
		}
		outs = append(outs, more...)
	}
	if err := in.emit(tx, ref, st, m, outs, 0); err != nil {
		delete(in.cache, string(ref.key))
		return err
	}
	if st.Ended {
		var ends []ingest.Out
		for _, r := range st.Open {
			ends = append(ends, ingest.Out{Response: r, Body: &events.ResponseIncomplete{Reason: events.ReasonStreamEnded}})
		}
		if err := in.emit(tx, ref, st, m, ends, len(outs)); err != nil {
			return err
		}
		delete(in.cache, string(ref.key))
		return store(tx, ref.key, &streamState{Open: st.Open, Ended: true}) // later events of the stream are refused
	}
	return in.save(tx, ref, st)
}

// Reject implements projector.Rejecter: a refused raw event aborts the
// stream's open calls, because their bytes may now be missing, and says why.
func (in *Ingest) Reject(_ context.Context, tx *projector.Tx, m *projector.Msg, reason error) error {
	ref, err := parseIngestSubject(m)
	if err != nil {
		return nil // no tenant to tell: the projector's rejection row is all there is
	}
	st, err := in.stream(tx, ref, m)
	if err != nil || st.Ended {
		delete(in.cache, string(ref.key))
		return nil
	}
	outs := st.n.AbortOpen(events.ReasonStreamFailed, "a raw event of the stream was rejected: "+reason.Error())
	resp := ref.stream
	if len(st.Open) > 0 {
		resp = st.Open[len(st.Open)-1]
	}
	outs = append(outs, ingest.Out{Response: resp, Body: &events.InputRejected{Seq: m.Seq, Reason: events.ReasonMalformedEvent, Detail: reason.Error()}})
	if err := in.emit(tx, ref, st, m, outs, 0); err != nil {
		return err
	}
	return in.save(tx, ref, st)
}

func (in *Ingest) save(tx *projector.Tx, ref rawRef, st *streamState) error {
	b, err := st.n.MarshalState()
	if err != nil {
		return err
	}
	st.Adapter = b
	return store(tx, ref.key, st)
}

func (in *Ingest) emit(tx *projector.Tx, ref rawRef, st *streamState, m *projector.Msg, outs []ingest.Out, first int) error {
	for i, o := range outs {
		switch o.Body.(type) {
		case *events.ResponseStarted:
			if !slices.Contains(st.Open, o.Response) {
				st.Open = append(st.Open, o.Response)
			}
		case *events.ResponseCompleted, *events.ResponseIncomplete, *events.ResponseFailed:
			st.Open = slices.DeleteFunc(st.Open, func(r string) bool { return r == o.Response })
		}
		subj, err := events.ModelSubject(ref.tenant, o.Response, o.Item)
		if err != nil {
			return err
		}
		ev := &events.Event{
			ID: events.ModelEventID(ref.tenant, ref.stream, m.Seq, first+i), Tenant: ref.tenant,
			User: st.env.User, Session: st.env.Session, Run: st.env.Run, Step: st.env.Step,
			Response: o.Response, Item: o.Item, CallID: o.CallID, At: m.Time, Body: o.Body,
		}
		if err := tx.Emit(subj, ev); err != nil {
			return err
		}
	}
	return nil
}
