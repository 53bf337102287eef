package keys

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// A tenant's user keys are bounded (Config.UserKeysMax) wherever one is
// made: by the keys service for a producer (VerbUser) and for a processor
// (VerbSeal), and by a store of the bucket sealing for itself (the admin's,
// which serve's embedded processors use). Each store of the bucket counts
// a tenant's user keys in the bucket on first need, after an erasure of
// one of its users and, while the tenant is at its bound, at most once per
// Config.CacheTTL, so keys another writer made are counted too; two
// writers counting side by side may each make up to the bound's rest, so
// the bucket holds at most the bound times the writers of one tenant's
// keys (serve has two: the keys service and the embedded processors).

// boundedScope reports whether a key of scope counts towards its tenant's
// bound: a user's, not the tenant's user-less scope (one a tenant) nor a
// memory record's.
func boundedScope(scope string) bool {
	return strings.HasPrefix(scope, "u/") && scope != events.UserScope("")
}

// A user's memory record keys (scope r/<user>/<record>) are bounded
// too, per user (Config.RecordKeysMax), and their user holds a slot of the
// tenant's user keys: the first record key of a user makes the user's key
// (within Config.UserKeysMax) if it has none. So a memory writer naming new
// records, or new users, without end is refused (ErrTooManyKeys) past
// UserKeysMax times RecordKeysMax keys of its tenant, and no other
// tenant's keys are refused for it. A record's erasure frees its slot, a
// user's erasure all of the user's.

// makeScoped makes the key n of (tenant, scope) unless the bucket holds
// one (make), within the tenant's bound for a user's scope and the user's
// bound for a record's: ErrTooManyKeys past it.
func (s *Store) makeScoped(ctx context.Context, tenant, scope, n string) ([]byte, error) {
	bounded := boundedScope(scope)
	owner, record := recordOwner(n)
	switch {
	case bounded:
		if err := s.reserve(ctx, tenant); err != nil {
			return nil, err
		}
	case record:
		if err := s.ownerSlot(ctx, tenant, scope, owner); err != nil {
			return nil, err
		}
		if err := s.reserveRecord(ctx, tenant, owner); err != nil {
			return nil, err
		}
	}
	b, err := s.make(ctx, n)
	if err != nil && bounded {
		s.recount(tenant)
	}
	if err != nil && record {
		s.recountRecords(owner)
	}
	return b, err
}

// recordOwner is the bucket name of the user whose record key n is
// (k.<tenant>.u.<user>.r.<record>), and whether n is a record's.
func recordOwner(n string) (string, bool) {
	owner, _, ok := strings.Cut(n, ".r.")
	return owner, ok && strings.HasPrefix(n, "k.")
}

// ownerSlot makes sure the user of a record scope holds a key, within the
// tenant's user bound: a record key's user counts as a user.
func (s *Store) ownerSlot(ctx context.Context, tenant, scope, owner string) error {
	parts := strings.Split(scope, "/")
	if len(parts) != 3 {
		return fmt.Errorf("%w: key scope %q", events.ErrMalformed, scope)
	}
	_, err := s.load(ctx, owner)
	if errors.Is(err, errKeyGone) {
		_, err = s.makeScoped(ctx, tenant, "u/"+parts[1], owner)
	}
	return err
}

// reserveRecord counts a new record key of the user owner (its bucket
// name), or refuses it (ErrTooManyKeys) when the user holds
// Config.RecordKeysMax already, counted as reserve counts.
func (s *Store) reserveRecord(ctx context.Context, tenant, owner string) error {
	bound := s.cfg.RecordKeysMax
	n, full, err := s.take(ctx, s.recordKeys, owner, bound, func(ctx context.Context) (int, error) {
		filter := "$KV." + s.cfg.Bucket + "." + owner + ".r.*"
		info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(filter))
		if err != nil {
			return 0, fmt.Errorf("%w: counting the record keys of a user of %s: %w", ErrUnavailable, tenant, err)
		}
		return len(info.State.Subjects), nil
	})
	if err != nil {
		return err
	}
	if full {
		return fmt.Errorf("%w: a user of tenant %s holds %d memory record keys (at most %d; forgetting a record frees one)", ErrTooManyKeys, tenant, n, bound)
	}
	return nil
}

// recountRecords drops the count of owner's record keys.
func (s *Store) recountRecords(owner string) {
	s.mu.Lock()
	delete(s.recordKeys, owner)
	s.mu.Unlock()
}

// reserve counts a new user key of tenant, or refuses it (ErrTooManyKeys)
// when the tenant holds Config.UserKeysMax already, counted in the bucket
// (at most once per Config.CacheTTL while the tenant is at its bound, so
// a flood past it costs no count each).
func (s *Store) reserve(ctx context.Context, tenant string) error {
	bound := s.cfg.UserKeysMax
	n, full, err := s.take(ctx, s.userKeys, tenant, bound, func(ctx context.Context) (int, error) { return s.countUserKeys(ctx, tenant) })
	if err != nil {
		return err
	}
	if full {
		return fmt.Errorf("%w: tenant %s holds %d (at most %d; an erasure frees one)", ErrTooManyKeys, tenant, n, bound)
	}
	return nil
}

// take counts one key more under name in counts (a tenant's user keys, a
// user's record keys; guarded by s.mu), or says full, with the count,
// when name holds bound already. The count is read with count when none
// is kept, and again at most once per Config.CacheTTL while at the bound.
func (s *Store) take(ctx context.Context, counts map[string]userCount, name string, bound int, count func(context.Context) (int, error)) (n int, full bool, err error) {
	s.mu.Lock()
	c, ok := counts[name]
	s.mu.Unlock()
	if !ok || c.n >= bound && time.Since(c.at) >= s.cfg.CacheTTL {
		n, err := count(ctx)
		if err != nil {
			return 0, false, err
		}
		c = userCount{n, time.Now()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.n >= bound {
		counts[name] = c
		return c.n, true, nil
	}
	c.n++
	counts[name] = c
	return c.n, false, nil
}

// userCount is a tenant's user keys as counted at, plus those made since.
type userCount struct {
	n  int
	at time.Time
}

// recount drops tenant's count: the next new user key counts the bucket.
func (s *Store) recount(tenant string) {
	s.mu.Lock()
	delete(s.userKeys, tenant)
	s.mu.Unlock()
}

// countUserKeys counts tenant's user keys in the bucket: the subjects
// holding one (an erased key's message is gone; a record key's subject has
// more tokens than the filter).
func (s *Store) countUserKeys(ctx context.Context, tenant string) (int, error) {
	filter := "$KV." + s.cfg.Bucket + ".k." + tenantToken(tenant) + ".u.*"
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return 0, fmt.Errorf("%w: counting the user keys of %s: %w", ErrUnavailable, tenant, err)
	}
	return len(info.State.Subjects), nil
}
