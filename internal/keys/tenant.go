package keys

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// A tenant's store (Config.Tenant) is what Toolstream's own producers seal
// with at the edge. A producer's identity may not reach the bucket at all
// (neither its stream info, which lists every key's name, nor a direct get,
// nor a publish): such a store asks the keys service for its tenant's user
// keys on that tenant's subject alone (ServiceSubject(VerbUser, tenant)).

// ErrOutOfScope is returned by a tenant's store for a key of another
// tenant, or a memory record's key, and for erasing; by a remote store
// for backing up or restoring: a producer's store seals its tenant's
// users' events, nothing else, and only the keys role and the admin reach
// the bucket.
var ErrOutOfScope = errors.New("keys: outside the store's scope")

func tenantToken(tenant string) string {
	return "_" + base64.RawURLEncoding.EncodeToString([]byte(tenant))
}

// inScope refuses, in a tenant's store, every key but the tenant's user
// keys.
func (s *Store) inScope(tenant, scope string) error {
	if s.cfg.Tenant == "" {
		return nil
	}
	if tenant != s.cfg.Tenant {
		return fmt.Errorf("%w: a key of tenant %s in the store of %s", ErrOutOfScope, tenant, s.cfg.Tenant)
	}
	if kind, rest, _ := strings.Cut(scope, "/"); kind != "u" || strings.Contains(rest, "/") {
		return fmt.Errorf("%w: key scope %q (a tenant's store holds user keys only)", ErrOutOfScope, scope)
	}
	return nil
}

// whole refuses what only a store of the whole bucket does.
func (s *Store) whole(what string) error {
	if s.stream == nil {
		if s.cfg.Tenant != "" {
			return fmt.Errorf("%w: %s in the store of tenant %s", ErrOutOfScope, what, s.cfg.Tenant)
		}
		return fmt.Errorf("%w: %s in a store that asks the keys service (only the keys role and the admin reach the bucket)", ErrOutOfScope, what)
	}
	return nil
}

// load returns the stored value of the key name; errKeyGone when there is
// none (never made, erased, or deleted).
func (s *Store) load(ctx context.Context, name string) ([]byte, error) {
	e, err := s.kv.Get(ctx, name)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, errKeyGone
	}
	if err != nil {
		return nil, err
	}
	return e.Value(), nil
}

// create stores v as the key name unless the bucket holds one already;
// it reports whether v was stored (when not, the caller reads back the
// one that won). A key is never overwritten.
func (s *Store) create(ctx context.Context, name string, v []byte) (bool, error) {
	_, err := s.kv.Create(ctx, name, v)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return false, nil
	}
	return err == nil, err
}
