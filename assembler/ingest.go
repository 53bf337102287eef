package assembler

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

// ingestCacheMax bounds the adapter states kept in memory between batches.
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
	// that number their events let ingest put them in order and see what
	// went missing: a repeated position is a no-op, an event after a gap is
	// held until the missing ones arrive, and a gap that outlasts
	// IngestConfig.GapWait aborts the stream's open calls (their bytes may
	// be incomplete) before the stream goes on.
	HeaderSeq = "Ts-Seq"
)

// TaggedSuffix on the subject's format token switches tagged-text parsing
// on, e.g. ts.in.acme.openai-chat+tagged.s1 (ingest.TaggedSuffix).
const TaggedSuffix = ingest.TaggedSuffix

// Ingest is the projection from raw provider events to canonical model
// events. Its state is one adapter state per (tenant, stream), and the raw
// events held while an earlier position of their stream is missing.
//
// A stream's state is kept in memory while a batch is applied and written
// to the view once, when the batch ends (Flush): the state of a stream
// changes with every raw event, and writing it each time cost more than
// normalising. An event is applied to the state only once it is known to
// be accepted (the adapter checks a raw event whole before applying it),
// so a refused event leaves the state in memory as it was; any other error
// stops the runner, and the cache goes with the batch (Reset).
type Ingest struct {
	cfg   IngestConfig
	log   *slog.Logger
	cache map[string]*streamState // derived from the view; rebuilt lazily after a restart
	dirty map[string]*streamState // changed in this batch, written by Flush
	ids   map[uint64]int          // per Apply: model events emitted so far per raw event

	// sealed is the TS_IN sequence of the last raw event normalised from
	// its sealed copy (the view's keyRawSealed, read once: loaded), so a
	// copy relayed again is a no-op; changed by the batch when dirty.
	sealed                    uint64
	sealedLoaded, sealedDirty bool
	// deletes are the clear raw events whose sealed copies the batch
	// read, deleted when the batch ends (Flush); those whose delete failed
	// are tried again at the next batch's end (at most deletesMax kept).
	deletes []uint64
}

var (
	_ projector.Projection = (*Ingest)(nil)
	_ projector.Flusher    = (*Ingest)(nil)
)

// IngestConfig configures the ingest projection.
type IngestConfig struct {
	Logger *slog.Logger
	// GapWait is how long (event time, measured by clock ticks) events that
	// arrived after a missing position are held for it; then the missing
	// events count as lost. Default 10 s: publishes retried across a
	// JetStream leader change land within a second or two.
	GapWait time.Duration
	// HoldMax bounds the events held per stream; one more declares the
	// oldest gap lost. Default 1024.
	HoldMax int
	// SealRaw keeps no raw event in the clear (docs/design.md, "Raw
	// events at rest"): a raw event a producer published verbatim is not
	// normalised as it is read but copied, sealed under its user's data
	// key, into an events.RawSealed on ts.raw.<tenant>.<stream>; the copy
	// is normalised when it is read back, as the raw event would have been
	// (the same model events, the same ids), and the clear message is then
	// deleted (DeleteRaw). Every process that runs or replays the log's
	// ingest must agree on it: serve and replay set it (package stack).
	// Off, raw events are normalised as they come (the adapters' tests).
	// A sealed copy is normalised either way.
	SealRaw bool
	// DeleteRaw deletes, overwriting it, the clear raw event at a TS_IN
	// sequence whose sealed copy ingest has read: called when the batch
	// that read the copy ends, before it commits. A message already gone
	// must not be an error. Nil deletes nothing (a replay), and retention
	// (bus.Config.RawRetention) removes the clear messages.
	DeleteRaw func(ctx context.Context, seq uint64) error
}

// deletesMax bounds the clear raw events whose failed deletes are kept to
// be tried again; past it the oldest are left to TS_IN's retention.
const deletesMax = 100_000

// keyRawSealed is the view's row of the last raw event normalised from its
// sealed copy (Ingest.sealed).
var keyRawSealed = []byte("~raw")

// Reset implements projector.Resetter: the cache goes, and with it what
// the batch had not written yet (the batch is dropped).
func (in *Ingest) Reset() {
	clear(in.cache)
	clear(in.dirty)
	clear(in.ids)
	in.sealedLoaded, in.sealedDirty = false, false
}

// NewIngest returns the ingest projection.
func NewIngest(cfg IngestConfig) *Ingest {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.GapWait <= 0 {
		cfg.GapWait = 10 * time.Second
	}
	if cfg.HoldMax <= 0 {
		cfg.HoldMax = 1024
	}
	return &Ingest{cfg: cfg, log: cfg.Logger, cache: map[string]*streamState{}, dirty: map[string]*streamState{}, ids: map[uint64]int{}}
}

// Name implements projector.Projection.
func (*Ingest) Name() string { return IngestName }

// Subjects implements projector.Projection: raw events, their sealed
// copies, and clock ticks that end the wait for missing positions.
func (*Ingest) Subjects() []string { return []string{events.AllIn, events.AllRaw} }

// Ingest's clock ticks come on events.InClockSubject, in the stream it
// reads (TS_IN), among the raw events.

// streamState is one stream's row: the adapter state and the responses it
// opened that have not ended.
type streamState struct {
	Adapter []byte   `msgpack:"a"`
	Open    []string `msgpack:"o,omitempty"`
	Ended   bool     `msgpack:"e,omitempty"`
	Next    int64    `msgpack:"nx,omitempty"` // next expected Ts-Seq
	Held    []int64  `msgpack:"h,omitempty"`  // positions held for an earlier one, ascending
	Env     envelope `msgpack:"v"`
	s       *ingest.Stream
}

// rawEvent is a raw event as ingest applies it, now or when it was held.
type rawEvent struct {
	Seq  uint64 `msgpack:"q"`
	Time int64  `msgpack:"t"`
	End  bool   `msgpack:"e,omitempty"`
	Data []byte `msgpack:"d"`
}

// gapRow is a stream's entry in the index of streams waiting for a missing
// position: what a tick needs to find the stream again.
type gapRow struct {
	Since  int64  `msgpack:"s"` // event time the wait began
	Format string `msgpack:"f"`
	Tagged bool   `msgpack:"g,omitempty"`
}

var prefixGap = []byte("~gap/")

type rawRef struct {
	tenant, format, stream string
	tagged                 bool
	key                    []byte
}

func (ref rawRef) heldKey(pos int64) ([]byte, error) {
	return projector.TenantKey(ref.tenant, "h", ref.stream, fmt.Sprintf("%020d", pos))
}

func (ref rawRef) gapKey() []byte {
	return append(append(append(append([]byte(nil), prefixGap...), ref.tenant...), 0), ref.stream...)
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

// stream returns the stream's state; m (nil for a tick) supplies the
// envelope of a stream seen for the first time.
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
		if st.s, err = ingest.RestoreStream(cfg, st.Adapter, st.Open); err != nil {
			return nil, fmt.Errorf("ingest: stored adapter state of %q: %w", ref.stream, err)
		}
	} else {
		st.s = ingest.NewStream(cfg)
		if m != nil {
			st.Env = envelope{User: m.Header.Get(HeaderUser), Session: m.Header.Get(HeaderSession), Run: m.Header.Get(HeaderRun), Step: m.Header.Get(HeaderStep)}
		}
	}
	in.cache[cacheKey] = st
	return st, nil
}

// refusedError is the adapter's refusal of a raw event (its state is
// unchanged): the event is rejected, the stream goes on.
type refusedError struct{ err error }

func (e refusedError) Error() string { return e.err.Error() }
func (e refusedError) Unwrap() error { return e.err }

// Apply implements projector.Projection.
func (in *Ingest) Apply(tx *projector.Tx, m *projector.Msg) error {
	clear(in.ids)
	var err error
	if m.Subject == events.InClockSubject {
		var ev *events.Event
		if ev, err = m.Event(); err == nil {
			if err = events.CheckControl(m.Subject, ev); err == nil {
				err = in.tick(tx, m, ev.At)
			}
		}
	} else if strings.HasPrefix(m.Subject, rawPrefix) {
		var raw *projector.Msg
		if raw, err = in.unseal(tx, m); err == nil && raw != nil {
			var ref rawRef
			if ref, err = parseIngestSubject(raw); err == nil {
				err = in.applyIn(tx, ref, raw)
			}
		}
	} else if in.cfg.SealRaw && m.Subject != events.EraseSubjects[events.StreamIn] {
		err = in.seal(tx, m)
	} else {
		var ref rawRef
		if ref, err = parseIngestSubject(m); err == nil {
			err = in.applyIn(tx, ref, m)
		}
	}
	if err != nil && !errors.Is(err, events.ErrBadInput) {
		in.Reset() // the runner stops and drops the batch: so goes what the cache learnt
	}
	return err
}

// Flush implements projector.Flusher: the states of the streams the batch
// changed are written to the view, once each.
func (in *Ingest) Flush(ctx context.Context, tx *projector.Tx) error {
	if in.sealedDirty {
		if err := tx.Set(keyRawSealed, binary.BigEndian.AppendUint64(nil, in.sealed)); err != nil {
			return err
		}
		in.sealedDirty = false
	}
	in.deleteClear(ctx)
	for k, st := range in.dirty {
		row := &streamState{Open: st.Open, Ended: true} // later events of an ended stream are refused
		if !st.Ended {
			b, err := st.s.MarshalState()
			if err != nil {
				return err
			}
			st.Adapter, st.Open = b, st.s.Open()
			row = st
		}
		if err := store(tx, []byte(k), row); err != nil {
			return err
		}
	}
	clear(in.dirty)
	if len(in.cache) > ingestCacheMax {
		clear(in.cache) // a cache, not state: rebuilt from the view on demand
	}
	return nil
}

func (in *Ingest) applyIn(tx *projector.Tx, ref rawRef, m *projector.Msg) error {
	st, err := in.stream(tx, ref, m)
	if err != nil {
		return err
	}
	if st.Ended {
		return fmt.Errorf("%w: stream %q already ended", events.ErrBadInput, ref.stream)
	}
	if err := forgedControl(m); err != nil {
		return err // refused (Reject takes its position): it moves no clock
	}
	raw := rawEvent{Seq: m.Seq, Time: m.Time, End: m.Header.Get(HeaderEnd) == "1", Data: m.Data}
	h := m.Header.Get(HeaderSeq)
	if h == "" {
		return in.applyRaw(tx, ref, st, raw) // unnumbered: applied as it comes
	}
	pos, err := strconv.ParseInt(h, 10, 64)
	if err != nil || pos < 0 {
		return fmt.Errorf("%w: %s %q", events.ErrMalformed, HeaderSeq, h)
	}
	for {
		switch {
		case pos < st.Next:
			return nil // a repeat of an event already applied
		case slices.Contains(st.Held, pos):
			return nil // a repeat of an event already held
		case pos == st.Next:
			if err := in.applyRaw(tx, ref, st, raw); err != nil {
				return err // refused: the state is unchanged, Reject takes the position
			}
			st.Next++
			return in.drain(tx, ref, st, m.Time)
		case len(st.Held) < in.cfg.HoldMax:
			return in.hold(tx, ref, st, pos, raw)
		}
		// Too much held: the oldest gap is lost.
		if err := in.skip(tx, ref, st, m, min(pos, st.Held[0])); err != nil {
			return err
		}
	}
}

// hold keeps a raw event that arrived before an earlier position of its
// stream (a publish retried across a leader change lands late).
func (in *Ingest) hold(tx *projector.Tx, ref rawRef, st *streamState, pos int64, raw rawEvent) error {
	k, err := ref.heldKey(pos)
	if err != nil {
		return err
	}
	if err := store(tx, k, &raw); err != nil {
		return err
	}
	if len(st.Held) == 0 {
		if err := store(tx, ref.gapKey(), &gapRow{Since: raw.Time, Format: ref.format, Tagged: ref.tagged}); err != nil {
			return err
		}
	}
	i, _ := slices.BinarySearch(st.Held, pos)
	st.Held = slices.Insert(st.Held, i, pos)
	in.save(ref, st)
	return nil
}

// drain applies the held events that are next in line. A held event the
// adapter refuses is rejected on its own (InputRejected at its sequence).
func (in *Ingest) drain(tx *projector.Tx, ref rawRef, st *streamState, now int64) error {
	for len(st.Held) > 0 && st.Held[0] == st.Next && !st.Ended {
		k, err := ref.heldKey(st.Held[0])
		if err != nil {
			return err
		}
		var raw rawEvent
		if ok, err := load(tx, k, &raw); err != nil || !ok {
			return fmt.Errorf("ingest: held event %d of %q: found %v: %w", st.Held[0], ref.stream, ok, err)
		}
		if err := tx.Delete(k); err != nil {
			return err
		}
		st.Held, st.Next = st.Held[1:], st.Next+1
		err = in.applyRaw(tx, ref, st, raw)
		var refused refusedError
		if errors.As(err, &refused) {
			err = in.refuse(tx, ref, st, raw.Seq, raw.Time, refused.err)
		}
		if err != nil {
			return err
		}
	}
	if st.Ended {
		return nil // applyRaw refused what was still held and stored the end
	}
	if len(st.Held) == 0 {
		if err := tx.Delete(ref.gapKey()); err != nil {
			return err
		}
	} else if err := store(tx, ref.gapKey(), &gapRow{Since: now, Format: ref.format, Tagged: ref.tagged}); err != nil {
		return err // the next gap's wait begins now
	}
	in.save(ref, st)
	return nil
}

// skip gives up the positions before target: the stream's open calls are
// aborted (their bytes may be among the lost), and held events from target
// on are applied.
func (in *Ingest) skip(tx *projector.Tx, ref rawRef, st *streamState, m *projector.Msg, target int64) error {
	in.log.Warn("ingest: raw events lost", "tenant", ref.tenant, "stream", ref.stream, "from", st.Next, "to", target-1)
	outs := st.s.Lost(st.Next, target-1)
	if err := in.emit(tx, ref, st, m.Seq, m.Time, outs); err != nil {
		return err
	}
	st.Next = target
	return in.drain(tx, ref, st, m.Time)
}

// dropHeld refuses what is still held when the stream ended.
func (in *Ingest) dropHeld(tx *projector.Tx, ref rawRef, st *streamState) error {
	for _, pos := range st.Held {
		k, err := ref.heldKey(pos)
		if err != nil {
			return err
		}
		var raw rawEvent
		if _, err := load(tx, k, &raw); err != nil {
			return err
		}
		if err := tx.Delete(k); err != nil {
			return err
		}
		out := ingest.Out{Response: st.s.Current(), Body: &events.InputRejected{Seq: raw.Seq, Reason: events.ReasonMalformedEvent,
			Detail: fmt.Sprintf("position %d follows the stream's end", pos)}}
		if err := in.emit(tx, ref, st, raw.Seq, raw.Time, []ingest.Out{out}); err != nil {
			return err
		}
	}
	st.Held = nil
	return tx.Delete(ref.gapKey())
}

// tick ends the wait of every stream whose gap is older than GapWait.
func (in *Ingest) tick(tx *projector.Tx, m *projector.Msg, now int64) error {
	var dues []rawRef
	err := tx.Scan(prefixGap, func(k, v []byte) error {
		var g gapRow
		if err := msgpack.Unmarshal(v, &g); err != nil {
			return fmt.Errorf("ingest: corrupt gap row %q: %w", k, err)
		}
		if now-g.Since < int64(in.cfg.GapWait) {
			return nil
		}
		rest := k[len(prefixGap):]
		i := bytes.IndexByte(rest, 0)
		ref := rawRef{tenant: string(rest[:i]), stream: string(rest[i+1:]), format: g.Format, tagged: g.Tagged}
		var err error
		ref.key, err = projector.TenantKey(ref.tenant, "n", ref.stream)
		dues = append(dues, ref)
		return err
	})
	if err != nil {
		return err
	}
	for _, ref := range dues {
		st, err := in.stream(tx, ref, nil)
		if err != nil {
			return err
		}
		if len(st.Held) == 0 {
			if err := tx.Delete(ref.gapKey()); err != nil {
				return err
			}
			continue
		}
		if err := in.skip(tx, ref, st, m, st.Held[0]); err != nil {
			return err
		}
	}
	return nil
}

// applyRaw feeds one raw event to its stream's adapter and emits what it
// yields. An error leaves the adapter state unchanged.
func (in *Ingest) applyRaw(tx *projector.Tx, ref rawRef, st *streamState, raw rawEvent) error {
	if !raw.End {
		outs, err := st.s.Feed(raw.Data)
		if err != nil {
			return refusedError{err} // adapter state unchanged
		}
		if err := in.emit(tx, ref, st, raw.Seq, raw.Time, outs); err != nil {
			return err
		}
		in.save(ref, st)
		return nil
	}
	st.Ended = true
	if err := in.emit(tx, ref, st, raw.Seq, raw.Time, st.s.End()); err != nil {
		return err
	}
	if err := in.dropHeld(tx, ref, st); err != nil {
		return err
	}
	st.Open = st.s.Open()
	in.save(ref, st) // as ended: later events of the stream are refused
	return nil
}

// Reject implements projector.Rejecter: a refused raw event aborts the
// stream's open calls, because their bytes may now be missing, and says why.
// Its position counts as taken: held events after it go on.
func (in *Ingest) Reject(_ context.Context, tx *projector.Tx, m *projector.Msg, reason error) error {
	clear(in.ids)
	if strings.HasPrefix(m.Subject, rawPrefix) {
		raw, err := openCopy(m)
		if err != nil {
			return nil // not a copy ingest can read: the projector's rejection row is all there is
		}
		// Its raw event is refused, as it would have been read in the
		// clear; the copy counts as normalised (Apply's writes were
		// dropped, the in-memory mark was not).
		if in.sealedLoaded && raw.Seq > in.sealed {
			in.sealed, in.sealedDirty = raw.Seq, true
		}
		m = raw
	} else if in.cfg.SealRaw && m.Subject != events.EraseSubjects[events.StreamIn] {
		return nil // a clear raw event is refused only for its subject: no tenant to tell
	}
	ref, err := parseIngestSubject(m)
	if err != nil {
		return nil // no tenant to tell: the projector's rejection row is all there is
	}
	st, err := in.stream(tx, ref, m)
	if err != nil || st.Ended {
		if _, changed := in.dirty[string(ref.key)]; !changed {
			delete(in.cache, string(ref.key))
		}
		return nil
	}
	if err := in.refuse(tx, ref, st, m.Seq, m.Time, reason); err != nil {
		return err
	}
	if pos, err := strconv.ParseInt(m.Header.Get(HeaderSeq), 10, 64); err == nil && pos == st.Next {
		st.Next++
		return in.drain(tx, ref, st, m.Time)
	}
	in.save(ref, st)
	return nil
}

// refuse aborts the stream's open calls and emits InputRejected for the raw
// event at seq.
// An out whose subject cannot be built (an id past events.SubjectBytesMax:
// the very reason the event is refused) is left out: the projector's
// rejection row keeps the reason, and refusing never fails for it.
func (in *Ingest) refuse(tx *projector.Tx, ref rawRef, st *streamState, seq uint64, at int64, reason error) error {
	outs := st.s.Refuse(seq, reason)
	outs = slices.DeleteFunc(outs, func(o ingest.Out) bool {
		_, err := events.ModelSubject(ref.tenant, o.Response, o.Item)
		return errors.Is(err, events.ErrSubjectTooLong)
	})
	return in.emit(tx, ref, st, seq, at, outs)
}

// save marks the stream's state changed: Flush writes it when the batch
// ends.
func (in *Ingest) save(ref rawRef, st *streamState) {
	in.dirty[string(ref.key)] = st
}

// emit writes outs as model events caused by the raw event at seq; their
// ids number them per raw event.
func (in *Ingest) emit(tx *projector.Tx, ref rawRef, st *streamState, seq uint64, at int64, outs []ingest.Out) error {
	for _, o := range outs {
		subj, err := events.ModelSubject(ref.tenant, o.Response, o.Item)
		if err != nil {
			return err
		}
		n := in.ids[seq]
		in.ids[seq] = n + 1
		ev := &events.Event{
			ID: events.ModelEventID(ref.tenant, ref.stream, seq, n), Tenant: ref.tenant,
			User: st.Env.User, Session: st.Env.Session, Run: st.Env.Run, Step: st.Env.Step,
			Response: o.Response, Item: o.Item, CallID: o.CallID, At: at, Body: o.Body,
		}
		if err := tx.Emit(subj, ev); err != nil {
			return err
		}
	}
	return nil
}

// forgedControl returns events.ErrForgedControl for a raw event that is an
// encoded control event (a tick, a registry change, a tombstone): a
// producer wrote it on its tenant's ingest subject, where only provider
// events go. Ingest takes ticks from events.InClockSubject alone, so such
// an event would move no clock anyway; it is refused by its own reason
// rather than as JSON that does not parse. Provider events are JSON (a
// first byte of '{', '[' or white space), never a msgpack map, so only
// those are decoded.
func forgedControl(m *projector.Msg) error {
	if len(m.Data) == 0 || !(m.Data[0]&0xf0 == 0x80 || m.Data[0] == 0xde || m.Data[0] == 0xdf) {
		return nil
	}
	ev, err := events.Decode(m.Data)
	if err != nil || !events.IsControl(ev.Kind) {
		return nil
	}
	return events.CheckControl(m.Subject, ev)
}

// rawPrefix starts the subjects of sealed raw events (events.RawSubject).
const rawPrefix = events.SubjectPrefix + ".raw."

// seal copies a raw event a producer published in the clear into an
// events.RawSealed on its stream's ts.raw subject, sealed (by the runner's
// keyring, at Emit) under the key of the user its Ts-User header names. The
// copy is what ingest normalises, when it reads it back; nothing of the
// view changes here, so a view is the same whether it read the clear
// message (live) or found it deleted (a replay).
func (in *Ingest) seal(tx *projector.Tx, m *projector.Msg) error {
	tenant, err := events.SubjectTenant(m.Subject)
	if err != nil {
		return err
	}
	stream := ""
	if parts := strings.Split(m.Subject, "."); len(parts) == 5 {
		stream, _ = events.Untoken(parts[4]) // a bad token is refused when the copy is read
	}
	subj, err := events.RawSubject(tenant, stream)
	if err != nil {
		return err
	}
	body := &events.RawSealed{Subject: m.Subject, Seq: m.Seq, Time: m.Time, Headers: rawHeaders(m.Header), Data: m.Data}
	return tx.Emit(subj, &events.Event{ID: events.RawSealedID(tenant, m.Seq), Tenant: tenant, User: m.Header.Get(HeaderUser), At: m.Time, Body: body})
}

// rawHeaders are a raw message's Ts-* headers as sorted name, value pairs
// (events.RawSealed.Headers).
func rawHeaders(h map[string][]string) []string {
	var names []string
	for k := range h {
		if strings.HasPrefix(k, "Ts-") && len(h[k]) > 0 {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	out := make([]string, 0, 2*len(names))
	for _, k := range names {
		out = append(out, k, h[k][0])
	}
	return out
}

// openCopy reads a sealed raw event back as the raw message it copies:
// its subject, TS_IN sequence, time, headers and bytes. A copy ingest did
// not make (its id is not its raw event's, its raw subject names another
// tenant) is refused; one whose key was destroyed is events.ErrErased.
func openCopy(m *projector.Msg) (*projector.Msg, error) {
	ev, err := m.Event()
	if err != nil {
		return nil, err
	}
	body, ok := ev.Body.(*events.RawSealed)
	if !ok {
		return nil, fmt.Errorf("%w: %s on %s is no sealed raw event", events.ErrMalformed, ev.Kind, m.Subject)
	}
	if t, err := events.SubjectTenant(body.Subject); err != nil || t != ev.Tenant {
		return nil, fmt.Errorf("%w: sealed raw event %s of tenant %q copies %q", events.ErrTenantMismatch, ev.ID, ev.Tenant, body.Subject)
	}
	if ev.ID != events.RawSealedID(ev.Tenant, body.Seq) || len(body.Headers)%2 != 0 {
		return nil, fmt.Errorf("%w: sealed raw event %s does not name its raw event %d", events.ErrMalformed, ev.ID, body.Seq)
	}
	h := make(map[string][]string, len(body.Headers)/2) // a nats.Header
	for i := 0; i < len(body.Headers); i += 2 {
		h[body.Headers[i]] = []string{body.Headers[i+1]}
	}
	return &projector.Msg{Seq: body.Seq, Subject: body.Subject, Time: body.Time, Header: h, Data: body.Data}, nil
}

// unseal returns the raw message a sealed copy holds, or nil when a copy of
// it was normalised already (a relay published it again after its
// duplicate window). The clear message is due for deletion either way: its
// copy is stored.
func (in *Ingest) unseal(tx *projector.Tx, m *projector.Msg) (*projector.Msg, error) {
	raw, err := openCopy(m)
	if err != nil {
		return nil, err
	}
	if in.cfg.DeleteRaw != nil && len(in.deletes) < deletesMax {
		in.deletes = append(in.deletes, raw.Seq)
	}
	if !in.sealedLoaded {
		b, ok, err := tx.Get(keyRawSealed)
		if err != nil {
			return nil, err
		}
		in.sealed = 0
		if ok && len(b) == 8 {
			in.sealed = binary.BigEndian.Uint64(b)
		}
		in.sealedLoaded = true
	}
	if raw.Seq <= in.sealed {
		return nil, nil
	}
	in.sealed, in.sealedDirty = raw.Seq, true
	return raw, nil
}

// deleteClear deletes the clear raw events whose sealed copies were read.
// A delete that fails is tried again at the next batch's end, and the
// rest of this batch's with it; meanwhile TS_IN's retention bounds how long
// the clear message stays.
func (in *Ingest) deleteClear(ctx context.Context) {
	if in.cfg.DeleteRaw == nil || len(in.deletes) == 0 {
		return
	}
	for i, seq := range in.deletes {
		if err := in.cfg.DeleteRaw(ctx, seq); err != nil {
			in.log.Warn("ingest: clear raw events not deleted yet", "from_seq", seq, "count", len(in.deletes)-i, "err", err)
			in.deletes = append(in.deletes[:0], in.deletes[i:]...)
			return
		}
	}
	in.deletes = in.deletes[:0]
}
