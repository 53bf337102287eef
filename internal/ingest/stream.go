package ingest

import (
	"errors"
	"fmt"
	"slices"

	"github.com/toolstream/toolstream/events"
)

// Stream is one producer stream as Toolstream normalises it: its
// Normalizer, and the responses it opened that have not ended. What a
// stream's end, a refused raw event and lost raw events imply is decided
// here, once, for the two places that normalise: the ingest projection
// (raw events a third-party producer published to ts.in) and Toolstream's
// own producers, which normalise at the edge and publish the canonical
// events themselves (client.Writer). Both therefore emit the same
// canonical events for the same raw events.
//
// A Stream is not safe for concurrent use.
type Stream struct {
	n    *Normalizer
	id   string
	open []string
}

// NewStream returns a Stream for one producer stream.
func NewStream(cfg Config) *Stream {
	n := New(cfg)
	return &Stream{n: n, id: n.cfg.Stream}
}

// RestoreStream returns a Stream that continues from an adapter state
// written by MarshalState and the responses Open returned with it. It
// returns ErrBadState as Restore does.
func RestoreStream(cfg Config, state []byte, open []string) (*Stream, error) {
	n, err := Restore(cfg, state)
	if err != nil {
		return nil, err
	}
	return &Stream{n: n, id: n.cfg.Stream, open: open}, nil
}

// MarshalState returns the adapter state (Normalizer.MarshalState).
func (s *Stream) MarshalState() ([]byte, error) { return s.n.MarshalState() }

// Open returns the responses the stream started that have not ended, in
// the order they started. The slice is the Stream's: do not change it.
func (s *Stream) Open() []string { return s.open }

// Current is the response stream-level events are told under: the latest
// open response, or the stream id when none is open.
func (s *Stream) Current() string {
	if len(s.open) > 0 {
		return s.open[len(s.open)-1]
	}
	return s.id
}

// Feed takes one raw provider event (Normalizer.Feed). A refused event
// returns an error wrapping events.ErrBadInput and changes nothing; the
// caller then calls Refuse.
func (s *Stream) Feed(raw []byte) ([]Out, error) {
	outs, err := s.n.Feed(raw)
	if err != nil {
		return nil, err
	}
	s.track(outs)
	return outs, nil
}

// End returns what the end of the stream implies: text held back is
// released (Normalizer.Flush), then every response still open ends
// ResponseIncomplete{stream_ended}. Nothing may be fed after it.
func (s *Stream) End() []Out {
	outs := s.n.Flush()
	s.track(outs)
	for _, r := range s.open {
		outs = append(outs, Out{Response: r, Body: &events.ResponseIncomplete{Reason: events.ReasonStreamEnded}})
	}
	s.open = s.open[:0] // every one ended
	return outs
}

// Refuse returns what refusing the raw event at seq implies (seq is where
// the raw event is: its stream sequence in ts.in, or its position in its
// stream when normalised at the edge): the calls of the current response
// still open are aborted, because their bytes may now be missing, and an
// InputRejected says why.
func (s *Stream) Refuse(seq uint64, reason error) []Out {
	outs := s.n.AbortOpen(events.ReasonStreamFailed, "a raw event of the stream was rejected: "+reason.Error())
	s.track(outs)
	code := events.ReasonMalformedEvent
	if errors.Is(reason, events.ErrForgedControl) {
		code = events.ReasonForgedControl
	}
	return append(outs, Out{Response: s.Current(), Body: &events.InputRejected{Seq: seq, Reason: code, Detail: reason.Error()}})
}

// Lost returns what losing the raw events at positions from to to of the
// stream implies: the calls of the current response still open are
// aborted, because their bytes may be among the lost.
func (s *Stream) Lost(from, to int64) []Out {
	outs := s.n.AbortOpen(events.ReasonStreamFailed, fmt.Sprintf("events %d to %d of the stream are missing", from, to))
	s.track(outs)
	return outs
}

// track keeps the open responses up to date with outs.
func (s *Stream) track(outs []Out) {
	for _, o := range outs {
		switch o.Body.(type) {
		case *events.ResponseStarted:
			if !slices.Contains(s.open, o.Response) {
				s.open = append(s.open, o.Response)
			}
		case *events.ResponseCompleted, *events.ResponseIncomplete, *events.ResponseFailed:
			s.open = slices.DeleteFunc(s.open, func(r string) bool { return r == o.Response })
		}
	}
}

// FeedWhole takes event i of a whole answer (DecodeWhole) as Feed takes a
// raw event, with the same result as Feed of that event's JSON
// (WholeAnswer.Events): a decoded answer's chunk is applied as it is on a
// stream of its format, and fed as JSON on any other.
func (s *Stream) FeedWhole(a *WholeAnswer, i int) ([]Out, error) {
	if a.chat == nil || s.n.st.Format != a.format {
		evs, err := a.Events()
		if err != nil {
			return nil, err
		}
		return s.Feed(evs[i])
	}
	outs, err := s.n.feedChat(a.chat[i])
	if err != nil {
		return nil, err
	}
	s.track(outs)
	return outs, nil
}
