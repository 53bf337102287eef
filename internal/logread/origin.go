package logread

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// HeaderStreamSource is the header nats-server adds to a message a stream
// stored from one of its sources: "<origin stream> <origin sequence>
// <filter> <destination> <original subject>" (nats-server v2.15.2's
// genSourceHeader).
const HeaderStreamSource = "Nats-Stream-Source"

// Origin returns the stream and sequence a sourced message was copied
// from, read from its header h; ok is false for a message published into
// the stream that holds it. A message sourced into a shared stream from a
// tenant's ingress stream has a second copy there, which whoever deletes it
// for good (ingest's delete of a clear raw event, erasure) deletes too.
func Origin(h nats.Header) (stream string, seq uint64, ok bool) {
	fields := strings.Fields(h.Get(HeaderStreamSource))
	if len(fields) < 2 {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil || seq == 0 {
		return "", 0, false
	}
	return fields[0], seq, true
}

// DeleteClear deletes, overwriting it, the message at seq of the log's
// stream name and, when that stream copied it from another (a tenant's
// ingress stream; its header h names the origin, Origin), the copy there
// too: a clear raw event is in both until deleted (invariant 8). streams
// looks a stream up by name (nil: not reachable). A message already gone
// from either (deleted before, past retention) is no error.
func DeleteClear(ctx context.Context, streams func(name string) jetstream.Stream, name string, seq uint64, h nats.Header) error {
	if origin, oseq, ok := Origin(h); ok {
		if err := secureDelete(ctx, streams, origin, oseq); err != nil {
			return err
		}
	}
	return secureDelete(ctx, streams, name, seq)
}

func secureDelete(ctx context.Context, streams func(string) jetstream.Stream, name string, seq uint64) error {
	st := streams(name)
	if st == nil {
		return fmt.Errorf("logread: stream %s: not reachable", name)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := st.SecureDeleteMsg(ctx, seq)
	if err == nil || errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	// A delete of a message already gone fails with the server's
	// description in its text only: ask for the message.
	if _, gerr := st.GetMsg(ctx, seq); errors.Is(gerr, jetstream.ErrMsgNotFound) {
		return nil
	}
	return fmt.Errorf("logread: delete %s seq %d: %w", name, seq, err)
}
