package ingest

import "github.com/toolstream/toolstream/events"

// MergedDeltaMax bounds the bytes one merged delta carries: far below any
// payload limit, and a large call still reaches the assembler (and its
// size checks) as it streams.
const MergedDeltaMax = 32 << 10

// Placed is an Out with where it came from in its stream: the position of
// the raw event it was normalised from (the first one, for merged deltas),
// its index among that event's outs, and the time of the last raw event
// it holds bytes of.
type Placed struct {
	Out
	Pos int64
	N   int
	At  int64
}

// DeltaMerger joins consecutive deltas of one call's arguments (or of one
// item's text) into one delta, so a whole stream normalised at the edge
// puts one model event in the log for a run of deltas instead of one per
// provider chunk — most of a stream's events (docs/design.md, "Merging
// deltas at the edge"). Only what is already read is merged, and the
// boundaries depend on the stream's content alone — a run ends at any
// other event, at a delta of another call or item, or at MergedDeltaMax
// bytes — so the same stream gives the same events, with the same ids,
// however it is read (a stream published again is deduplicated by id). The
// bytes, concatenated, are the same: what is assembled cannot change.
type DeltaMerger struct {
	held  *Placed
	bytes []byte
}

// Add takes the outs of the raw event at pos, read at at, and calls emit
// with each out that is ready, in order; a trailing delta is held for the
// next event.
func (m *DeltaMerger) Add(pos, at int64, outs []Out, emit func(Placed) error) error {
	for n, o := range outs {
		text, ok := deltaText(o.Body)
		if ok && m.held != nil && m.joins(o) && len(m.bytes)+len(text) <= MergedDeltaMax {
			m.bytes = append(m.bytes, text...)
			m.held.At = at
			continue
		}
		if err := m.Flush(emit); err != nil {
			return err
		}
		if ok {
			m.held = &Placed{Out: o, Pos: pos, N: n, At: at}
			m.bytes = append(m.bytes[:0], text...)
			continue
		}
		if err := emit(Placed{Out: o, Pos: pos, N: n, At: at}); err != nil {
			return err
		}
	}
	return nil
}

// Flush emits the delta held, if any.
func (m *DeltaMerger) Flush(emit func(Placed) error) error {
	if m.held == nil {
		return nil
	}
	p := *m.held
	m.held = nil
	switch b := p.Body.(type) {
	case *events.ArgumentsDelta:
		p.Body = &events.ArgumentsDelta{Delta: string(m.bytes)}
	case *events.TextDelta:
		p.Body = &events.TextDelta{Index: b.Index, Text: string(m.bytes)}
	}
	return emit(p)
}

// joins reports whether o continues the delta held: the same kind, call or
// item, and text index.
func (m *DeltaMerger) joins(o Out) bool {
	h := m.held
	if h.Response != o.Response || h.Item != o.Item || h.CallID != o.CallID || h.Body.Kind() != o.Body.Kind() {
		return false
	}
	if t, ok := o.Body.(*events.TextDelta); ok {
		return t.Index == h.Body.(*events.TextDelta).Index
	}
	return true
}

// deltaText is the bytes of a delta body.
func deltaText(b events.Body) (string, bool) {
	switch d := b.(type) {
	case *events.ArgumentsDelta:
		return d.Delta, true
	case *events.TextDelta:
		return d.Text, true
	}
	return "", false
}

// EdgeEvent is p as the model event a producer publishes at the edge for
// its stream: env's envelope (tenant, user, session, run, step), named by
// the raw event's position (events.EdgeEventID), on its model subject.
func (p Placed) EdgeEvent(env *events.Event, stream string) (string, *events.Event, error) {
	subj, err := events.ModelSubject(env.Tenant, p.Response, p.Item)
	if err != nil {
		return "", nil, err
	}
	return subj, &events.Event{
		ID: events.EdgeEventID(env.Tenant, stream, p.Pos, p.N), Tenant: env.Tenant,
		User: env.User, Session: env.Session, Run: env.Run, Step: env.Step,
		Response: p.Response, Item: p.Item, CallID: p.CallID, At: p.At, Body: p.Body,
	}, nil
}
