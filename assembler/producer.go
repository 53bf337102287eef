package assembler

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/ingest"
)

// RawStream names where a producer's raw provider events go.
type RawStream struct {
	Tenant  string
	Format  string // an ingest format name or alias; "" = auto
	Stream  string // the producer's stream id (a request id); response ids come from the provider
	Tagged  bool   // scan display text for <tool_call> tags
	User    string
	Session string
	Run     string
	Step    string
}

func (s RawStream) subject() (string, error) {
	format := s.Format
	if format == "" {
		format = string(ingest.FormatAuto)
	}
	if _, err := ingest.ParseFormat(format); err != nil {
		return "", err
	}
	return events.IngestSubject(s.Tenant, format, s.Stream)
}

func (s RawStream) header() nats.Header {
	h := nats.Header{}
	set := func(k, v string) {
		if v != "" {
			h.Set(k, v)
		}
	}
	set(HeaderUser, s.User)
	set(HeaderSession, s.Session)
	set(HeaderRun, s.Run)
	set(HeaderStep, s.Step)
	if s.Tagged {
		h.Set(HeaderTagged, "1")
	}
	return h
}

// PublishRaw publishes every provider event read from r (JSON lines or raw
// SSE, see ingest.ReadEvents) verbatim to the stream's ingest subject, then
// the end-of-stream marker. Each message's Nats-Msg-Id is derived from the
// stream and position, so publishing the same file twice is deduplicated.
// It returns the number of events and the log sequence of the end marker.
func PublishRaw(ctx context.Context, js jetstream.JetStream, s RawStream, r io.Reader) (int, uint64, error) {
	subj, err := s.subject()
	if err != nil {
		return 0, 0, err
	}
	n := 0
	var futs []jetstream.PubAckFuture
	wait := func() error {
		for _, f := range futs {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				return fmt.Errorf("publish: %w", err)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		futs = futs[:0]
		return nil
	}
	err = ingest.ReadEvents(r, func(raw []byte) error {
		msg := &nats.Msg{Subject: subj, Data: append([]byte(nil), raw...), Header: s.header()}
		msg.Header.Set(jetstream.MsgIDHeader, "raw:"+s.Tenant+"/"+s.Stream+"/"+strconv.Itoa(n))
		msg.Header.Set(HeaderSeq, strconv.Itoa(n))
		f, err := js.PublishMsgAsync(msg)
		if err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		futs = append(futs, f)
		n++
		if len(futs) >= 256 {
			return wait()
		}
		return nil
	})
	if err != nil {
		return n, 0, err
	}
	if err := wait(); err != nil {
		return n, 0, err
	}
	end := &nats.Msg{Subject: subj, Header: s.header()}
	end.Header.Set(HeaderEnd, "1")
	end.Header.Set(HeaderSeq, strconv.Itoa(n))
	end.Header.Set(jetstream.MsgIDHeader, "raw:"+s.Tenant+"/"+s.Stream+"/end")
	ack, err := js.PublishMsg(ctx, end)
	if err != nil {
		return n, 0, fmt.Errorf("publish end of stream: %w", err)
	}
	return n, ack.Sequence, nil
}
