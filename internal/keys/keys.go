package keys

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/logread"
)

// Bucket is the key-value bucket of the data keys.
const Bucket = "ts_keys"

var (
	// ErrInvalidConfig is returned by Open for a configuration it cannot use.
	ErrInvalidConfig = errors.New("keys: invalid config")
	// ErrUnavailable: the key store did not answer in time.
	ErrUnavailable = errors.New("keys: store unavailable")
	// ErrTooManyKeys: a new user's key of a tenant that holds
	// Config.UserKeysMax user keys already was refused, by the keys
	// service (CodeTooMany) or by a store of the bucket. It wraps
	// events.ErrKeyQuota (bad input), so a projection that needed the key
	// records its event as rejected (events.ReasonQuotaExceeded).
	ErrTooManyKeys = fmt.Errorf("keys: %w", events.ErrKeyQuota)
	// ErrBadKey: the bucket holds a value for the key that is not a key
	// (the wrong length: corrupted, or written by what should never have
	// written it). Nothing of its scope can be sealed or opened until an
	// operator erases it; it is never overwritten. It wraps
	// events.ErrBadKey (bad input), so a projection records that user's
	// events as rejected (events.ReasonBadKey) and goes on.
	ErrBadKey = fmt.Errorf("keys: a stored value that is not a data key: %w", events.ErrBadKey)
)

// Config configures a Store.
type Config struct {
	// JS locates the bucket.
	JS jetstream.JetStream
	// Bucket; default Bucket.
	Bucket string
	// Replicas of a bucket Open creates; default 1.
	Replicas int
	// Create makes Open create the bucket when it does not exist (the admin
	// identity's setup); otherwise Open waits for it up to SetupMax.
	Create bool
	// SetupMax bounds Open's wait for the bucket; default 1 minute.
	SetupMax time.Duration
	// CacheTTL is how long a key read from the bucket is used without
	// asking again: another process's erasure takes effect here within it
	// (or at once with Forget). Default 30s.
	CacheTTL time.Duration
	// Timeout bounds one request to the bucket; default 5s.
	Timeout time.Duration
	// Remote makes the store ask the keys service (Service, on
	// ServicePrefix) for its keys instead of reading the bucket: the store
	// of every identity but the keys role's and the admin's, which may not
	// reach the bucket. It erases through the service too (the operator's
	// identity may) and cannot back up or restore. Open then does not wait
	// for the bucket.
	Remote bool
	// Tenant, when set, makes the store a producer's (Toolstream's own
	// producers seal at the edge): it is Remote, and seals and opens that
	// tenant's user keys only, asking for them on the service's subject of
	// its tenant alone (VerbUser: what a producer's identity may ask), and
	// cannot erase, back up or restore.
	Tenant string
	// UserKeysMax bounds the user keys (scope u/<user>, the user-less
	// scope aside) of one tenant that a store of the bucket makes, for a
	// producer (VerbUser), for a processor (VerbSeal) or for itself (the
	// admin's, which serve's embedded processors seal with): past it a
	// new user's key is refused (ErrTooManyKeys), so a producer inventing
	// user names, itself or in the Ts-User of raw events a processor
	// seals, cannot fill the disk; an erasure frees the user's slot.
	// Default DefaultUserKeysMax. A remote store does not read it.
	UserKeysMax int
	// RecordKeysMax bounds the memory record keys (scope
	// r/<user>/<record>) of one user that a store of the bucket makes:
	// past it a new record's key is refused (ErrTooManyKeys), and a
	// record's user takes a slot of UserKeysMax (bound.go). Default
	// DefaultRecordKeysMax. A remote store does not read it.
	RecordKeysMax int
	// Logger; nil discards.
	Logger *slog.Logger
}

// DefaultUserKeysMax is Config.UserKeysMax's default: a tenant's 100,000
// users' keys are some 20 MB of the bucket.
const DefaultUserKeysMax = 100_000

// DefaultRecordKeysMax is Config.RecordKeysMax's default: four times
// memory's default quota of a user's active records (memory
// QuotaPerUserDefault, 5,000), since cold and superseded records keep
// their keys.
const DefaultRecordKeysMax = 20_000

func (c *Config) setDefaults() error {
	if c.JS == nil {
		return fmt.Errorf("%w: JS is required", ErrInvalidConfig)
	}
	if c.Bucket == "" {
		c.Bucket = Bucket
	}
	if c.Replicas <= 0 {
		c.Replicas = 1
	}
	if c.SetupMax <= 0 {
		c.SetupMax = time.Minute
	}
	if c.CacheTTL <= 0 {
		c.CacheTTL = 30 * time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	if c.UserKeysMax <= 0 {
		c.UserKeysMax = DefaultUserKeysMax
	}
	if c.RecordKeysMax <= 0 {
		c.RecordKeysMax = DefaultRecordKeysMax
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Store is the data-key store: an events.Keyring over a JetStream
// key-value bucket. Safe for concurrent use.
type Store struct {
	cfg    Config
	kv     jetstream.KeyValue
	stream jetstream.Stream

	mu    sync.Mutex
	cache map[string]*cached  // by key name
	names map[scopeKey]string // name's results: it runs once per scope, not once per event
	// userKeys counts each tenant's user keys (bound.go), read from the
	// bucket on first need, after an erasure, and again at the bound.
	userKeys map[string]userCount
	// recordKeys counts each user's memory record keys, by the user's
	// bucket name (bound.go), as userKeys does.
	recordKeys map[string]userCount
}

type scopeKey struct{ tenant, scope string }

// nameOf is name, remembered.
func (s *Store) nameOf(tenant, scope string) (string, error) {
	if err := s.inScope(tenant, scope); err != nil {
		return "", err
	}
	k := scopeKey{tenant, scope}
	s.mu.Lock()
	n, ok := s.names[k]
	s.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := name(tenant, scope)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.names[k] = n
	s.mu.Unlock()
	return n, nil
}

type cached struct {
	id   string
	aead cipher.AEAD
	at   time.Time
}

var _ events.Keyring = (*Store)(nil)

// Open opens the key store. With Create it creates the bucket when it is
// missing; otherwise a missing bucket is waited for (another identity sets
// it up). It returns ErrInvalidConfig or ErrUnavailable.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if cfg.Tenant != "" {
		if err := events.ValidTenant(cfg.Tenant); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
		cfg.Remote = true
	}
	if cfg.Remote {
		if cfg.Create {
			return nil, fmt.Errorf("%w: a remote store creates no bucket", ErrInvalidConfig)
		}
		return &Store{cfg: cfg, cache: map[string]*cached{}, names: map[scopeKey]string{}}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.SetupMax)
	defer cancel()
	for {
		actx, acancel := context.WithTimeout(ctx, cfg.Timeout)
		kv, err := cfg.JS.KeyValue(actx, cfg.Bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) && cfg.Create {
			if err = createBucket(actx, cfg); err == nil {
				kv, err = cfg.JS.KeyValue(actx, cfg.Bucket)
			}
		}
		var st jetstream.Stream
		if err == nil {
			st, err = cfg.JS.Stream(actx, "KV_"+cfg.Bucket)
		}
		if err == nil && cfg.Create && st.CachedInfo().Config.AllowRollup {
			// A bucket made before rollups were refused: refuse them now.
			sc := st.CachedInfo().Config
			sc.AllowRollup = false
			if _, err = cfg.JS.UpdateStream(actx, sc); err == nil {
				cfg.Logger.Info("key bucket refuses rollups now", "bucket", cfg.Bucket)
				st, err = cfg.JS.Stream(actx, "KV_"+cfg.Bucket)
			}
		}
		acancel()
		if err == nil {
			return &Store{cfg: cfg, kv: kv, stream: st, cache: map[string]*cached{}, names: map[scopeKey]string{}, userKeys: map[string]userCount{}, recordKeys: map[string]userCount{}}, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: bucket %s: %w", ErrUnavailable, cfg.Bucket, err)
		}
		cfg.Logger.Info("key store not ready; retrying", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// createBucket makes the bucket's stream as a key-value bucket's (one
// value per key, direct gets), except that it allows deleting a message (a
// bucket made by CreateKeyValue refuses it for good, and erasure is exactly
// that) and refuses rollups: nothing here purges a key, and a
// Nats-Rollup: all header on any key subject would purge every key of
// every tenant (a bucket made before keeps its setting; only the keys role
// and the admin may publish to it at all).
func createBucket(ctx context.Context, cfg Config) error {
	_, err := cfg.JS.CreateStream(ctx, jetstream.StreamConfig{
		Name: "KV_" + cfg.Bucket, Description: "Toolstream data keys: erasing one makes what it sealed unreadable",
		Subjects: []string{"$KV." + cfg.Bucket + ".>"}, MaxMsgsPerSubject: 1, Discard: jetstream.DiscardNew,
		Storage: jetstream.FileStorage, Replicas: cfg.Replicas, AllowRollup: false, AllowDirect: true,
		DenyDelete: false, MaxMsgSize: -1, MaxBytes: -1, MaxAge: 0, Duplicates: 2 * time.Minute,
	})
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return nil
	}
	return err
}

// name is the bucket key of a scope: k.<tenant>.u.<user>[.r.<record>],
// each part base64url (bucket keys allow [-_=.A-Za-z0-9]). A user's record
// keys lie under the user's name, so erasing the user finds them.
func name(tenant, scope string) (string, error) {
	parts := strings.Split(scope, "/")
	enc := func(tok string) (string, error) {
		// A part goes into the bucket's subjects, which the server reads
		// in one control line of at most 4 KiB: a longer one closed the
		// keys service's connection.
		if len(tok) > events.IDBytesMax {
			return "", fmt.Errorf("%w: key scope part of %d bytes (at most %d)", events.ErrMalformed, len(tok), events.IDBytesMax)
		}
		s, err := events.Untoken(tok)
		if err != nil {
			return "", err
		}
		return "_" + base64.RawURLEncoding.EncodeToString([]byte(s)), nil
	}
	t := tenantToken(tenant)
	switch {
	case len(parts) == 2 && parts[0] == "u":
		u, err := enc(parts[1])
		if err != nil {
			return "", err
		}
		return "k." + t + ".u." + u, nil
	case len(parts) == 3 && parts[0] == "r":
		u, err := enc(parts[1])
		if err != nil {
			return "", err
		}
		r, err := enc(parts[2])
		if err != nil {
			return "", err
		}
		return "k." + t + ".u." + u + ".r." + r, nil
	}
	return "", fmt.Errorf("%w: key scope %q", events.ErrMalformed, scope)
}

// idLen is how much of a stored key's 16-byte id names it in a sealed
// event: 9 random bytes (12 characters) tell a key from the few that can
// ever replace it after erasures, and every sealed event carries them.
const idLen = 9

// keyBytes is the length of a key as stored: a 16-byte id and a 32-byte
// AES key.
const keyBytes = 48

// parse reads a key as stored; ErrBadKey for a value that is not one.
func parse(v []byte) (id string, aead cipher.AEAD, err error) {
	if len(v) != keyBytes {
		return "", nil, fmt.Errorf("%w (%d bytes, want %d)", ErrBadKey, len(v), keyBytes)
	}
	block, err := aes.NewCipher(v[16:])
	if err != nil {
		return "", nil, err
	}
	aead, err = cipher.NewGCM(block)
	return base64.RawURLEncoding.EncodeToString(v[:idLen]), aead, err
}

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.cfg.Timeout)
}

// ref is a key wanted: its bucket name and its scope.
type ref struct {
	name          string
	tenant, scope string
}

// get returns the stored key r, from the cache while it is fresh;
// errKeyGone when the bucket holds none. A remote store with make asks the
// service for the key made on first use (then never errKeyGone).
func (s *Store) get(r ref, fresh, make bool) (*cached, error) {
	s.mu.Lock()
	c := s.cache[r.name]
	s.mu.Unlock()
	if c != nil && !fresh && time.Since(c.at) < s.cfg.CacheTTL {
		return c, nil
	}
	ctx, cancel := s.ctx()
	defer cancel()
	var v []byte
	var err error
	if s.cfg.Remote {
		v, err = s.askKey(ctx, r, make)
	} else {
		v, err = s.load(ctx, r.name)
	}
	if errors.Is(err, errKeyGone) {
		s.drop(r.name)
		return nil, err
	}
	if errors.Is(err, ErrBadKey) || errors.Is(err, ErrRefused) || errors.Is(err, ErrOutOfScope) || errors.Is(err, ErrTooManyKeys) {
		s.drop(r.name)
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return s.keep(r, v)
}

// keep parses v, the stored value of key r, and caches it.
func (s *Store) keep(r ref, v []byte) (*cached, error) {
	id, aead, err := parse(v)
	if err != nil {
		s.drop(r.name)
		return nil, fmt.Errorf("keys: %s of tenant %s: %w", r.scope, r.tenant, err)
	}
	c := &cached{id: id, aead: aead, at: time.Now()}
	s.mu.Lock()
	s.cache[r.name] = c
	s.mu.Unlock()
	return c, nil
}

var errKeyGone = errors.New("keys: no key")

func (s *Store) drop(name string) {
	s.mu.Lock()
	delete(s.cache, name)
	s.mu.Unlock()
}

// SealKey implements events.Keyring: the key of (tenant, scope), made on
// first use. It returns ErrBadKey when the stored key is not one (it is
// never replaced), ErrOutOfScope or ErrRefused for a scope the store or
// the service will not give, ErrUnavailable when the store does not
// answer.
func (s *Store) SealKey(tenant, scope string) (string, cipher.AEAD, error) {
	n, err := s.nameOf(tenant, scope)
	if err != nil {
		return "", nil, err
	}
	r := ref{n, tenant, scope}
	c, err := s.get(r, false, true)
	if err == nil {
		return c.id, c.aead, nil
	}
	if !errors.Is(err, errKeyGone) {
		return "", nil, err
	}
	if s.cfg.Remote {
		// The service makes a key asked for with make; a remote store has
		// no bucket to make one in.
		return "", nil, fmt.Errorf("%w: the keys service gave no key for %s of tenant %s", ErrUnavailable, scope, tenant)
	}
	ctx, cancel := s.ctx()
	v, err := s.makeScoped(ctx, tenant, scope, n)
	cancel()
	if err != nil {
		return "", nil, err
	}
	c, err = s.keep(r, v)
	if err != nil {
		return "", nil, err
	}
	return c.id, c.aead, nil
}

// make stores a new random key as name unless the bucket holds one, and
// returns the key the bucket holds: ours when the bucket took it, else
// the one another process made at the same moment. A replicated bucket's
// direct reads may come from a replica that has not yet applied the
// write that refused ours, so a miss is read again (or, when the key was
// erased meanwhile, made again) until the context ends.
func (s *Store) make(ctx context.Context, name string) ([]byte, error) {
	v := make([]byte, keyBytes)
	if _, err := rand.Read(v); err != nil {
		return nil, err
	}
	for {
		won, err := s.create(ctx, name, v)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		if won {
			return v, nil
		}
		b, err := s.load(ctx, name)
		if !errors.Is(err, errKeyGone) {
			return b, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: key %s exists but was not read: %w", ErrUnavailable, name, ctx.Err())
		case <-time.After(makeRetry):
		}
	}
}

// OpenKey implements events.Keyring: the key id of (tenant, scope), or
// events.ErrErased when it was destroyed (or replaced after an erasure);
// ErrBadKey when the stored key is not one.
func (s *Store) OpenKey(tenant, scope, id string) (cipher.AEAD, error) {
	n, err := s.nameOf(tenant, scope)
	if err != nil {
		return nil, err
	}
	r := ref{n, tenant, scope}
	// A producer's store asks for its users' keys one way (VerbUser,
	// made on first use); other remote stores ask for an existing key.
	c, err := s.get(r, false, false)
	if err == nil && c.id != id {
		c, err = s.get(r, true, false) // rotated since it was cached?
	}
	switch {
	case errors.Is(err, errKeyGone):
		return nil, events.ErrErased
	case err != nil:
		return nil, err
	case c.id != id:
		return nil, events.ErrErased
	}
	return c.aead, nil
}

// Erase destroys the keys of a user of tenant — the user's key and every
// memory record key of the user — with JetStream's erasing delete (the
// stored bytes are overwritten), and returns how many it destroyed. What
// they sealed can no longer be read by anyone.
func (s *Store) Erase(ctx context.Context, tenant, user string) (int, error) {
	if s.cfg.Remote && s.cfg.Tenant == "" {
		return s.askErase(ctx, tenant, user, "")
	}
	if err := s.whole("erasing"); err != nil {
		return 0, err
	}
	n, err := name(tenant, events.UserScope(user))
	if err != nil {
		return 0, err
	}
	erased, err := s.erase(ctx, n, n+".>")
	if erased > 0 {
		s.recount(tenant) // the user's slot is free
		s.recountRecords(n)
	}
	return erased, err
}

// EraseUserLess destroys the key of the tenant's user-less scope: what
// its producers published without a user (Ts-User), raw copies and the
// model events, calls, results and verdicts sealed with them. No user's
// key is touched.
func (s *Store) EraseUserLess(ctx context.Context, tenant string) (int, error) {
	if s.cfg.Remote && s.cfg.Tenant == "" {
		return s.askEraseReq(ctx, tenant, Request{UserLess: true})
	}
	if err := s.whole("erasing"); err != nil {
		return 0, err
	}
	n, err := name(tenant, events.UserScope(""))
	if err != nil {
		return 0, err
	}
	return s.erase(ctx, n)
}

// EraseRecord destroys the key of one memory record of a user.
func (s *Store) EraseRecord(ctx context.Context, tenant, user, record string) (int, error) {
	if s.cfg.Remote && s.cfg.Tenant == "" {
		return s.askErase(ctx, tenant, user, record)
	}
	if err := s.whole("erasing"); err != nil {
		return 0, err
	}
	n, err := name(tenant, events.RecordScope(user, record))
	if err != nil {
		return 0, err
	}
	erased, err := s.erase(ctx, n)
	if erased > 0 {
		if owner, ok := recordOwner(n); ok {
			s.recountRecords(owner) // the record's slot is free
		}
	}
	return erased, err
}

func (s *Store) erase(ctx context.Context, names ...string) (int, error) {
	// Read the keys' messages by direct gets (an operator may create no
	// consumer): a subject per key, one message each.
	prefix := "$KV." + s.cfg.Bucket + "."
	type found struct {
		name string
		seq  uint64
	}
	var keys []found
	for _, n := range names {
		err := logread.Read(ctx, logread.Config{Conn: s.cfg.JS.Conn(), Stream: s.stream.CachedInfo().Config.Name, Filter: prefix + n},
			func(batch []*logread.Msg) error {
				for _, m := range batch {
					if len(m.Data) > 0 { // a delete or purge marker holds nothing
						keys = append(keys, found{strings.TrimPrefix(m.Subject, prefix), m.Seq})
					}
				}
				return nil
			})
		if err != nil {
			return 0, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
	}
	erased := 0
	for _, k := range keys {
		if err := s.stream.SecureDeleteMsg(ctx, k.seq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
			return erased, fmt.Errorf("keys: erase %s: %w", k.name, err)
		}
		s.drop(k.name)
		erased++
	}
	return erased, nil
}

// Forget drops a user's keys from this process's cache, so the next use
// asks the bucket (after an erasure another process made).
func (s *Store) Forget(tenant, user string) {
	n, err := name(tenant, events.UserScope(user))
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.cache {
		if k == n || strings.HasPrefix(k, n+".") {
			delete(s.cache, k)
		}
	}
}
