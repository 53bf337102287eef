// Package erasure carries out an erasure across everything Toolstream
// stores (docs/design.md, invariant 8 and "Erasure"): it destroys
// the data keys that sealed a user's (or one memory record's) data in the
// log (package keys), deletes with JetStream's erasing delete the user's raw
// provider events still in the clear in TS_IN (those ingest has not sealed
// yet: it copies each under its user's key and deletes the clear message),
// and writes an events.Erased tombstone
// into every stream, from which each projection rebuilds its view without
// what was erased (package projector).
//
// The order matters: keys first, so no view rebuilt after a tombstone can
// open what it erases; raw events next; tombstones last. An erasure is
// idempotent: run again, it destroys nothing more and its tombstones are
// dropped by the streams' duplicate windows (same ids).
//
// Raw events are the user's when their Ts-User header names the user; one
// published without it is sealed under the tenant's user-less scope (user
// ""), which UserLess erases.
package erasure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/logread"
)

// HeaderUser is the raw event header that names its end user (the
// producers' Ts-User).
const HeaderUser = "Ts-User"

// Log is the log as an erasure reaches it, as one identity: *bus.Bus is
// one, and package client makes one of its connection.
type Log interface {
	// Read reads one stream of the log by direct gets (cfg.Stream names
	// it).
	Read(ctx context.Context, cfg logread.Config, fn func([]*logread.Msg) error) error
	// Stream is one stream of the log, to delete messages from; nil when
	// it cannot be had.
	Stream(name string) jetstream.Stream
	// Publish writes one event under its message id and waits for the
	// log's acknowledgement.
	Publish(ctx context.Context, subject string, ev *events.Event) (*jetstream.PubAck, error)
}

// Result says what an erasure did.
type Result struct {
	Keys       int               `json:"keys_destroyed"`
	Raw        int               `json:"raw_events_erased"`
	Tombstones map[string]uint64 `json:"tombstones"` // by stream: the tombstone's sequence
}

// User erases a user of a tenant: every key of the user (the user's and
// each memory record's), the user's raw events in TS_IN, and every view.
func User(ctx context.Context, b Log, ks *keys.Store, tenant, user string) (Result, error) {
	return eraseUser(ctx, b, ks, tenant, user, false)
}

// ErrNothingToErase is UserIfSeen's error for a user of whom the key store
// holds no key and TS_IN no raw event: nothing of theirs can be read in
// the log (a user never seen, or erased before), and no tombstone was
// written.
var ErrNothingToErase = errors.New("erasure: nothing to erase")

// UserIfSeen is User for a user the installation holds something of: where
// it destroys no key and deletes no raw event it writes no tombstone (each
// would make every projection rebuild its view) and returns
// ErrNothingToErase. An erasure cut short after its keys, before its
// tombstones, is finished by User.
func UserIfSeen(ctx context.Context, b Log, ks *keys.Store, tenant, user string) (Result, error) {
	return eraseUser(ctx, b, ks, tenant, user, true)
}

func eraseUser(ctx context.Context, b Log, ks *keys.Store, tenant, user string, ifSeen bool) (Result, error) {
	if err := events.ValidTenant(tenant); err != nil || tenant == events.SystemTenant {
		return Result{}, fmt.Errorf("erasure: %w: %q", events.ErrInvalidTenant, tenant)
	}
	var res Result
	var err error
	if res.Keys, err = ks.Erase(ctx, tenant, user); err != nil {
		return res, fmt.Errorf("erasure: keys: %w", err)
	}
	if res.Raw, err = eraseRaw(ctx, b, tenant, user); err != nil {
		return res, fmt.Errorf("erasure: raw events: %w", err)
	}
	if ifSeen && res.Keys == 0 && res.Raw == 0 {
		return res, fmt.Errorf("%w: no key and no raw event of user %q of tenant %s", ErrNothingToErase, user, tenant)
	}
	res.Tombstones, err = tombstones(ctx, b, &events.Erased{Tenant: tenant, User: user}, events.Streams)
	return res, err
}

// UserLess erases what a tenant's producers published without a user
// (no Ts-User header): the key of the tenant's user-less scope, under
// which ingest sealed the raw copies and the events normalised from them
// (model events, calls, results, verdicts of those streams), the raw
// events still in the clear in TS_IN without a Ts-User header, and every
// view. No user's key or raw event is touched.
func UserLess(ctx context.Context, b Log, ks *keys.Store, tenant string) (Result, error) {
	if err := events.ValidTenant(tenant); err != nil || tenant == events.SystemTenant {
		return Result{}, fmt.Errorf("erasure: %w: %q", events.ErrInvalidTenant, tenant)
	}
	var res Result
	var err error
	if res.Keys, err = ks.EraseUserLess(ctx, tenant); err != nil {
		return res, fmt.Errorf("erasure: keys: %w", err)
	}
	if res.Raw, err = eraseRaw(ctx, b, tenant, ""); err != nil {
		return res, fmt.Errorf("erasure: raw events: %w", err)
	}
	res.Tombstones, err = tombstones(ctx, b, &events.Erased{Tenant: tenant}, events.Streams)
	return res, err
}

// Record erases one memory record of a user: its key, and the memory view
// (records live in TS_MEM only).
func Record(ctx context.Context, b Log, ks *keys.Store, tenant, user, record string) (Result, error) {
	if err := events.ValidTenant(tenant); err != nil || tenant == events.SystemTenant {
		return Result{}, fmt.Errorf("erasure: %w: %q", events.ErrInvalidTenant, tenant)
	}
	var res Result
	var err error
	if res.Keys, err = ks.EraseRecord(ctx, tenant, user, record); err != nil {
		return res, fmt.Errorf("erasure: keys: %w", err)
	}
	res.Tombstones, err = tombstones(ctx, b, &events.Erased{Tenant: tenant, User: user, Record: record}, []string{events.StreamMemory})
	return res, err
}

// eraseRaw deletes, overwriting them, the raw events of tenant whose
// Ts-User header is user.
func eraseRaw(ctx context.Context, b Log, tenant, user string) (int, error) {
	filter, err := events.TenantFilter("in", tenant)
	if err != nil {
		return 0, err
	}
	var msgs []*logread.Msg
	err = b.Read(ctx, logread.Config{Stream: events.StreamIn, Filter: filter}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			if m.Header.Get(HeaderUser) == user {
				msgs = append(msgs, m)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range msgs {
		if err := logread.DeleteClear(ctx, b.Stream, events.StreamIn, m.Seq, m.Header); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// tombstones writes the erasure's tombstone into each stream.
func tombstones(ctx context.Context, b Log, er *events.Erased, streams []string) (map[string]uint64, error) {
	out := map[string]uint64{}
	at := time.Now().UnixNano()
	for _, s := range streams {
		ack, err := b.Publish(ctx, events.EraseSubjects[s], &events.Event{ID: events.ErasedID(er.Tenant, er.User, er.Record, at),
			Tenant: events.SystemTenant, At: at, Body: er})
		if err != nil {
			return out, fmt.Errorf("erasure: tombstone in %s: %w", s, err)
		}
		out[s] = ack.Sequence
	}
	return out, nil
}
