package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// frameReader reads one stream's frames from the log, in order, and
// follows it live (an ordered consumer filtered to the stream's one
// subject: the cheap case of a filter, docs/design.md "The stream
// layout").
type frameReader struct {
	g       *Gateway
	env     Envelope
	it      jetstream.MessagesContext
	stop    func()  // call once, when done
	pending []Frame // the rest of a message of several frames
	ended   bool    // the stream ends after pending (a whole answer's message)
}

// openFrames opens the frames of stream for env's tenant and user,
// followed until ctx ends or stop is called; ErrNotFound when the log
// holds none of this user's (a tenant's key names the user with
// Toolstream-User), or they were erased.
func (g *Gateway) openFrames(ctx context.Context, api API, env Envelope, stream string) (*frameReader, error) {
	subj, err := g.findStream(ctx, api, env, stream)
	if err != nil {
		return nil, err
	}
	c, err := g.cfg.JS.OrderedConsumer(ctx, events.StreamGateway, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
	if err != nil {
		return nil, fmt.Errorf("gateway: follow %s: %w", stream, err)
	}
	it, err := c.Messages()
	if err != nil {
		return nil, fmt.Errorf("gateway: follow %s: %w", stream, err)
	}
	done := make(chan struct{})
	go func() { // a client that goes away unblocks Next
		select {
		case <-ctx.Done():
		case <-done:
		}
		it.Stop()
	}()
	return &frameReader{g: g, env: env, it: it, stop: func() { close(done) }}, nil
}

// findStream returns the subject of stream for env's tenant and user: one
// this gateway is relaying to the user, or one the log holds a message of
// the user's on; ErrNotFound otherwise (another user's or tenant's, never
// seen, or erased).
func (g *Gateway) findStream(ctx context.Context, api API, env Envelope, stream string) (string, error) {
	// A user's streams are kept under their own name for the stream
	// (scopedID): another user's of the same id is not even looked at.
	subj, err := events.GatewaySubject(env.Tenant, string(api), scopedID(env.User, stream))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	// NB: the live entry is looked up before the log, never after. The
	// relay drops it only once the whole stream is stored (relay.stream),
	// so a stream that is not live when asked is all in the log when the
	// log is asked next. Asked the other way round, a stream whose frames
	// were stored and whose entry was dropped between the log's answer
	// (nothing yet) and the live lookup was found in neither: a resume
	// right after the client saw the end answered 404.
	live, isLive := g.liveEnv(subj)
	st, err := g.cfg.JS.Stream(ctx, events.StreamGateway)
	if err != nil {
		return "", fmt.Errorf("gateway: stream %s: %w", events.StreamGateway, err)
	}
	last, err := st.GetLastMsgForSubject(ctx, subj)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		// Not in the log yet, or not at all: a stream this gateway was
		// relaying when asked is followed from the start.
		if !isLive || live.User != env.User {
			return "", fmt.Errorf("%w: %s", ErrNotFound, stream)
		}
	case err != nil:
		return "", fmt.Errorf("gateway: read %s: %w", stream, err)
	default:
		if err := g.mayRead(env, last.Data); err != nil {
			return "", err
		}
	}
	return subj, nil
}

// mayRead checks that a key of one user reads that user's stream, and
// that the stream was not erased.
func (g *Gateway) mayRead(env Envelope, data []byte) error {
	ev, err := events.DecodeWith(data, g.cfg.Keys)
	if errors.Is(err, events.ErrErased) {
		return fmt.Errorf("%w: erased", ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("gateway: read frame: %w", err)
	}
	if ev.User != env.User {
		return fmt.Errorf("%w: not this user's", ErrNotFound)
	}
	return nil
}

// next returns the next frame, or end at the stream's end; ctx's error
// once the reader's context ended.
func (fr *frameReader) next(ctx context.Context) (f Frame, end bool, err error) {
	for {
		if len(fr.pending) > 0 {
			f, fr.pending = fr.pending[0], fr.pending[1:]
			return f, false, nil
		}
		if fr.ended {
			return Frame{}, true, nil
		}
		m, err := fr.it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return Frame{}, false, ctx.Err()
			}
			return Frame{}, false, fmt.Errorf("gateway: follow: %w", err)
		}
		ev, err := events.DecodeWith(m.Data(), fr.g.cfg.Keys)
		if err != nil {
			return Frame{}, false, fmt.Errorf("gateway: read frame: %w", err)
		}
		if ev.User != fr.env.User {
			// The subject is the user's (scopedID), so this cannot be;
			// never hand another user's frame on if it were.
			return Frame{}, false, fmt.Errorf("%w: a frame of another user", ErrNotFound)
		}
		if run, ok := events.As[*events.StreamFrames](ev); ok { // a flush window's frames
			for i, d := range run.Frames {
				fr.pending = append(fr.pending, Frame{Stream: ev.Response, Pos: run.Pos + int64(i), Event: d.Event, Data: []byte(d.Data)})
			}
			continue
		}
		if a, ok := events.As[*events.StreamAnswer](ev); ok { // a whole answer: its frame and its end
			fr.pending = append(fr.pending, Frame{Stream: ev.Response, Pos: 0, Data: []byte(a.Data)})
			fr.ended = true
			continue
		}
		b, ok := events.As[*events.StreamFrame](ev) // one frame, as a gateway before flush windows kept them; the end
		if !ok {
			continue // the request's prompt (events.StreamPrompt) is no frame; an erasure tombstone is not on a stream's subject
		}
		if b.End {
			return Frame{}, true, nil
		}
		return Frame{Stream: ev.Response, Pos: b.Pos, Event: b.Event, Data: []byte(b.Data)}, false, nil
	}
}
