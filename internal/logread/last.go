package logread

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
)

// ErrNoMessage: no message of the stream is on the subject.
var ErrNoMessage = errors.New("logread: no message")

// Last returns the last message of stream on subject (an exact subject):
// one direct get by subject (last_by_subj), which the server answers from
// its subject index whatever the stream's size. ErrNoMessage when there is
// none.
func Last(ctx context.Context, nc *nats.Conn, stream, subject string) (*Msg, error) {
	body, _ := json.Marshal(struct {
		Last string `json:"last_by_subj"`
	}{subject})
	return directGet(ctx, nc, stream, subject, body)
}

// First returns the first message of stream on subject (an exact
// subject), by one direct get (next_by_subj from sequence 1). ErrNoMessage
// when there is none.
func First(ctx context.Context, nc *nats.Conn, stream, subject string) (*Msg, error) {
	body, _ := json.Marshal(struct {
		Seq  uint64 `json:"seq"`
		Next string `json:"next_by_subj"`
	}{1, subject})
	return directGet(ctx, nc, stream, subject, body)
}

func directGet(ctx context.Context, nc *nats.Conn, stream, subject string, body []byte) (*Msg, error) {
	if nc == nil || stream == "" || subject == "" {
		return nil, fmt.Errorf("%w: a connection, a stream and a subject are needed", ErrInvalidConfig)
	}
	m, err := nc.RequestWithContext(ctx, "$JS.API.DIRECT.GET."+stream, body)
	if err != nil {
		return nil, fmt.Errorf("logread: direct get: %w", err)
	}
	switch m.Header.Get("Status") {
	case "":
	case "404":
		return nil, fmt.Errorf("%w on %s", ErrNoMessage, subject)
	default:
		return nil, fmt.Errorf("logread: direct get: %s %s", m.Header.Get("Status"), m.Header.Get("Description"))
	}
	seq, err := strconv.ParseUint(m.Header.Get("Nats-Sequence"), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("logread: answer without a sequence: %w", err)
	}
	ts, err := time.Parse(time.RFC3339Nano, m.Header.Get("Nats-Time-Stamp"))
	if err != nil {
		return nil, fmt.Errorf("logread: answer without a timestamp: %w", err)
	}
	return &Msg{Seq: seq, Subject: m.Header.Get("Nats-Subject"), Time: ts.UnixNano(), Header: m.Header, Data: m.Data}, nil
}

// LastSeq returns the sequence of the last message of stream on any of
// subjects, which may hold wildcards: one direct get by subject each
// (last_by_subj, which the server answers from its subject index). 0 when
// none of them has a message.
func LastSeq(ctx context.Context, nc *nats.Conn, stream string, subjects []string) (uint64, error) {
	var last uint64
	for _, s := range subjects {
		m, err := Last(ctx, nc, stream, s)
		if errors.Is(err, ErrNoMessage) {
			continue
		}
		if err != nil {
			return 0, err
		}
		last = max(last, m.Seq)
	}
	return last, nil
}
