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

// ErrInvalidConfig is returned for a Config Read cannot use.
var ErrInvalidConfig = errors.New("logread: invalid config")

// ErrUnavailable is a read the stream did not answer: no answer within
// Timeout (the server that had the request went away, no replica current
// enough to answer during a leader change) or no responders (no server
// serves the stream's direct gets at the moment). Nothing of the failed
// answer was handed to fn; the same read may succeed a moment later.
var ErrUnavailable = errors.New("logread: stream unavailable")

// Msg is one message of the stream.
type Msg struct {
	Seq     uint64
	Subject string
	Time    int64 // the stream's timestamp, Unix ns
	Header  nats.Header
	Data    []byte
}

// Config says what Read delivers.
type Config struct {
	// Conn and Stream locate the stream.
	Conn   *nats.Conn
	Stream string
	// From is the first sequence; 0 means 1.
	From uint64
	// UpTo is the last sequence delivered; 0 means no bound.
	UpTo uint64
	// Filter delivers only messages on matching subjects; "" all. The
	// server skips the others.
	Filter string
	// Subjects delivers only messages matching one of these patterns,
	// skipped here rather than by the server (a read of several kinds of
	// subject); none delivers all.
	Subjects []string
	// BatchMax bounds the messages of one request; default 256.
	BatchMax int
	// Follow keeps reading as the stream grows, until the context ends.
	Follow bool
	// PollMax bounds the wait between polls of a caught-up Follow; default
	// 250ms (the first poll comes after 5ms).
	PollMax time.Duration
	// Timeout bounds the wait for each message of an answer; default 5s.
	Timeout time.Duration
}

func (c *Config) setDefaults() error {
	if c.Conn == nil || c.Stream == "" {
		return fmt.Errorf("%w: a connection and a stream are needed", ErrInvalidConfig)
	}
	if c.From == 0 {
		c.From = 1
	}
	if c.BatchMax <= 0 {
		c.BatchMax = 256
	}
	if c.PollMax <= 0 {
		c.PollMax = 250 * time.Millisecond
	}
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	return nil
}

// request is the direct get's body (nats-server's JSApiMsgGetRequest).
type request struct {
	Seq     uint64 `json:"seq"`
	NextFor string `json:"next_by_subj,omitempty"`
	Batch   int    `json:"batch"`
}

// Read calls fn with each batch of messages, in sequence order, until
// nothing more matches (or UpTo is passed), or with Follow until ctx ends
// (then it returns nil). The batch and its messages are fn's to keep. An
// error of fn ends the read and is returned as it is.
func Read(ctx context.Context, cfg Config, fn func([]*Msg) error) error {
	if err := cfg.setDefaults(); err != nil {
		return err
	}
	inbox := cfg.Conn.NewInbox()
	ch := make(chan *nats.Msg, cfg.BatchMax+1)
	sub, err := cfg.Conn.ChanSubscribe(inbox, ch)
	if err != nil {
		return fmt.Errorf("logread: subscribe: %w", err)
	}
	defer sub.Unsubscribe()
	subject := "$JS.API.DIRECT.GET." + cfg.Stream
	next := cfg.From
	wait := 5 * time.Millisecond
	keep := NewFilter(cfg.Subjects)
	for {
		if cfg.UpTo > 0 && next > cfg.UpTo {
			return nil
		}
		n := cfg.BatchMax
		if cfg.UpTo > 0 && cfg.Filter == "" {
			n = int(min(uint64(n), cfg.UpTo-next+1))
		}
		body, _ := json.Marshal(request{Seq: next, NextFor: cfg.Filter, Batch: n})
		if err := cfg.Conn.PublishRequest(subject, inbox, body); err != nil {
			return fmt.Errorf("logread: request: %w", err)
		}
		batch, pending, err := receive(ctx, ch, cfg.Timeout, cfg.BatchMax)
		if err != nil {
			if ctx.Err() != nil && cfg.Follow {
				return nil
			}
			return err
		}
		if len(batch) > 0 {
			next = batch[len(batch)-1].Seq + 1
			if cfg.UpTo > 0 && next > cfg.UpTo+1 {
				// The server bounds only multi-last gets by up_to_seq.
				pending = 0
				for len(batch) > 0 && batch[len(batch)-1].Seq > cfg.UpTo {
					batch = batch[:len(batch)-1]
				}
			}
		}
		if keep != nil {
			kept := batch[:0]
			for _, m := range batch {
				if keep.Match(m.Subject) {
					kept = append(kept, m)
				}
			}
			batch = kept
		}
		if len(batch) > 0 {
			if err := fn(batch); err != nil {
				return err
			}
			wait = 5 * time.Millisecond
		}
		if pending > 0 {
			continue
		}
		if !cfg.Follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, cfg.PollMax)
	}
}

// receive reads one answer: the messages, then the end of the batch (or a
// 404 when nothing matched). pending is how many more messages match.
func receive(ctx context.Context, ch <-chan *nats.Msg, timeout time.Duration, max int) (batch []*Msg, pending uint64, err error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	batch = make([]*Msg, 0, max)
	for {
		var m *nats.Msg
		select {
		case m = <-ch:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		case <-timer.C:
			return nil, 0, fmt.Errorf("%w: no answer in %s: %w", ErrUnavailable, timeout, nats.ErrTimeout)
		}
		timer.Reset(timeout)
		switch m.Header.Get("Status") {
		case "":
		case "404":
			return batch, 0, nil
		case "204": // end of batch
			pending, _ = strconv.ParseUint(m.Header.Get("Nats-Num-Pending"), 10, 64)
			return batch, pending, nil
		case "503": // no responders
			return nil, 0, fmt.Errorf("%w: direct get: %w", ErrUnavailable, nats.ErrNoResponders)
		default:
			return nil, 0, fmt.Errorf("logread: direct get: %s %s", m.Header.Get("Status"), m.Header.Get("Description"))
		}
		seq, err := strconv.ParseUint(m.Header.Get("Nats-Sequence"), 10, 64)
		if err != nil {
			return nil, 0, fmt.Errorf("logread: answer without a sequence: %w", err)
		}
		ts, err := time.Parse(time.RFC3339Nano, m.Header.Get("Nats-Time-Stamp"))
		if err != nil {
			return nil, 0, fmt.Errorf("logread: answer without a timestamp: %w", err)
		}
		batch = append(batch, &Msg{Seq: seq, Subject: m.Header.Get("Nats-Subject"), Time: ts.UnixNano(), Header: m.Header, Data: m.Data})
	}
}
