package keys

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// A tenant's store (Config.Tenant) is what Toolstream's own producers seal
// with at the edge. A producer's identity may not ask for the bucket's
// stream info (it could list every key's name, and so every tenant's
// users), so such a store reads a key by a direct get of its subject and
// makes one by a publish that expects no earlier message on it: exactly
// the subjects UserKeySubjects names.

// ErrOutOfScope is returned by a tenant's store for a key of another
// tenant, or a memory record's key, and for erasing, backing up or
// restoring: a producer's store seals its tenant's users' events, nothing
// else.
var ErrOutOfScope = errors.New("keys: outside the store's scope")

// UserKeySubjects returns the bucket's subjects of tenant's user keys (one
// subject wildcard, "$KV.ts_keys.k.<tenant>.u.*"), and the direct get of
// them ("$JS.API.DIRECT.GET.KV_ts_keys.<that subject>"): what a tenant's
// store publishes to. A memory record's key (one token more) matches
// neither.
func UserKeySubjects(tenant string) (put, get string, err error) {
	if err := events.ValidTenant(tenant); err != nil {
		return "", "", err
	}
	put = "$KV." + Bucket + ".k." + tenantToken(tenant) + ".u.*"
	return put, "$JS.API.DIRECT.GET.KV_" + Bucket + "." + put, nil
}

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
		return fmt.Errorf("%w: %s in the store of tenant %s", ErrOutOfScope, what, s.cfg.Tenant)
	}
	return nil
}

// load returns the stored value of the key name; errKeyGone when there is
// none (never made, erased, or deleted).
func (s *Store) load(ctx context.Context, name string) ([]byte, error) {
	if s.kv != nil {
		e, err := s.kv.Get(ctx, name)
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			return nil, errKeyGone
		}
		if err != nil {
			return nil, err
		}
		return e.Value(), nil
	}
	subject := "$JS.API.DIRECT.GET.KV_" + s.cfg.Bucket + ".$KV." + s.cfg.Bucket + "." + name
	m, err := s.cfg.JS.Conn().RequestWithContext(ctx, subject, nil)
	if err != nil {
		return nil, fmt.Errorf("direct get %s: %w", name, err)
	}
	switch status := m.Header.Get("Status"); status {
	case "":
	case "404":
		return nil, errKeyGone
	default:
		return nil, fmt.Errorf("direct get %s: status %s %s", name, status, m.Header.Get("Description"))
	}
	if op := m.Header.Get("KV-Operation"); op == "DEL" || op == "PURGE" {
		return nil, errKeyGone
	}
	return m.Data, nil
}

// create stores v as the key name unless the bucket holds one already
// (then it returns nil: the caller reads back whichever won).
func (s *Store) create(ctx context.Context, name string, v []byte) error {
	var err error
	if s.kv != nil {
		_, err = s.kv.Create(ctx, name, v)
	} else {
		m := nats.NewMsg("$KV." + s.cfg.Bucket + "." + name)
		m.Data = v
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, "0")
		_, err = s.cfg.JS.PublishMsg(ctx, m)
	}
	var apiErr *jetstream.APIError
	if errors.Is(err, jetstream.ErrKeyExists) || errors.As(err, &apiErr) &&
		(apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return nil
	}
	return err
}
