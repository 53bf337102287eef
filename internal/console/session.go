package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/memory"
)

// Errors callers branch on.
var (
	// ErrInvalidToken: a sign-in token that is malformed, not signed by
	// the console's key, expired or already used.
	ErrInvalidToken = errors.New("console: invalid sign-in token")
	// ErrInvalidGrant: a role the console does not sign in, or a tenant
	// that is not one.
	ErrInvalidGrant = errors.New("console: invalid grant")
	// ErrNoKey: the console's key file is missing (serve --console makes it).
	ErrNoKey = errors.New("console: no sign-in key")
)

// KeySize is the length of the key that signs sign-in tokens.
const KeySize = 32

// Grant is what a session may see and do: a role of package auth and, for
// a per-tenant viewer, its one tenant ("" is every tenant).
type Grant struct {
	Role   auth.Role `json:"role"`
	Tenant string    `json:"tenant,omitempty"`
}

// Validate refuses roles other than operator and reader, and an invalid
// tenant.
func (g Grant) Validate() error {
	if g.Role != auth.RoleOperator && g.Role != auth.RoleReader {
		return fmt.Errorf("%w: role %q (the console signs in %s or %s)", ErrInvalidGrant, g.Role, auth.RoleOperator, auth.RoleReader)
	}
	if g.Tenant != "" {
		if err := events.ValidTenant(g.Tenant); err != nil || g.Tenant == events.SystemTenant {
			return fmt.Errorf("%w: tenant %q", ErrInvalidGrant, g.Tenant)
		}
	}
	return nil
}

// Sees reports whether the grant may see tenant's data.
func (g Grant) Sees(tenant string) bool { return g.Tenant == "" || g.Tenant == tenant }

func (g Grant) identity() auth.Identity { return auth.Identity{Role: g.Role} }

// MayDecide reports whether the grant may approve or deny the call key of
// tenant: its role may publish the decision's subject, and it sees tenant.
func (g Grant) MayDecide(tenant, key string) bool {
	subj, err := events.ApprovalSubject(tenant, key)
	return err == nil && g.Sees(tenant) && g.identity().MayPublish(subj)
}

// MayWriteMemory reports whether the grant may correct and forget memory:
// its role may ask the memory service's forget.
func (g Grant) MayWriteMemory() bool {
	return g.identity().MayPublish(memory.ServicePrefix + ".forget")
}

// MayDecideAny is MayDecide for some call (what the page shows buttons by).
func (g Grant) MayDecideAny() bool {
	t := g.Tenant
	if t == "" {
		t = "t"
	}
	return g.MayDecide(t, events.IdempotencyKey(t, "", "s", "c"))
}

// LoadKey reads the key that signs sign-in tokens from path; with create
// it makes one (readable by its owner only) when the file is missing.
func LoadKey(path string, create bool) ([]byte, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && create:
		key := make([]byte, KeySize)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("console: %w", err)
		}
		if err := auth.WritePrivate(path, []byte(hex.EncodeToString(key)+"\n")); err != nil {
			return nil, err
		}
		return key, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s (serve --console makes it)", ErrNoKey, path)
	case err != nil:
		return nil, fmt.Errorf("console: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %o; run chmod 600 %s", auth.ErrInsecure, path, fi.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) != KeySize {
		return nil, fmt.Errorf("console: %s is not a key of %d bytes in hex", path, KeySize)
	}
	return key, nil
}

// token is what a sign-in token carries.
type token struct {
	Grant
	Expires int64  `json:"exp"` // Unix seconds
	Nonce   string `json:"n"`
}

// Mint returns a sign-in token for g, valid until expires and once, signed
// with key.
func Mint(key []byte, g Grant, expires time.Time) (string, error) {
	if err := g.Validate(); err != nil {
		return "", err
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("console: %w", err)
	}
	payload, err := json.Marshal(token{Grant: g, Expires: expires.Unix(), Nonce: hex.EncodeToString(nonce)})
	if err != nil {
		return "", err
	}
	p := base64.RawURLEncoding.EncodeToString(payload)
	return p + "." + base64.RawURLEncoding.EncodeToString(sign(key, p)), nil
}

func sign(key []byte, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// parse checks tok's signature and expiry and returns what it carries.
func parse(key []byte, tok string, now time.Time) (token, error) {
	p, s, ok := strings.Cut(tok, ".")
	sig, err := base64.RawURLEncoding.DecodeString(s)
	if !ok || err != nil || !hmac.Equal(sig, sign(key, p)) {
		return token{}, fmt.Errorf("%w: not signed by this console's key", ErrInvalidToken)
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return token{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	var t token
	if err := json.Unmarshal(payload, &t); err != nil {
		return token{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if now.Unix() >= t.Expires {
		return token{}, fmt.Errorf("%w: expired", ErrInvalidToken)
	}
	if err := t.Grant.Validate(); err != nil {
		return token{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	return t, nil
}

// session is one signed-in browser. Its cookie is the session itself,
// signed with the console's key (sessionCookie): nothing of it lives only
// in this process, so a session survives a restart of serve, and one the
// browser signed out of stays ended across restarts (its id is kept with
// the used sign-in tokens).
type session struct {
	grant   Grant
	id      string
	csrf    string
	expires time.Time
}

// sessionCookie is what a session's cookie carries, signed.
type sessionCookie struct {
	Grant
	ID      string `json:"sid"`
	Expires int64  `json:"exp"` // Unix seconds
}

// sessionDomain keeps the two signed things apart: a sign-in token is never
// a session cookie, nor a cookie a token.
const sessionDomain = "session."

// sessions holds the redeemed nonces and the ended sessions of one server.
type sessions struct {
	key []byte
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	used  map[string]time.Time // nonce, or endedPrefix+session id → when it may be forgotten
	file  *usedFile            // where used is kept across restarts; nil: memory only
	count int                  // redemptions since the last sweep
}

// endedPrefix marks a signed-out session's id among the used nonces
// (nonces are hex, so they never start with it).
const endedPrefix = "ended:"

func newSessions(key []byte, ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{key: key, ttl: ttl, now: now, used: map[string]time.Time{}}
}

func randomID() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("console: crypto/rand: %v", err)) // the platform has no randomness: nothing is safe
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// redeem turns a sign-in token into a new session, once, and returns its
// cookie's value.
func (s *sessions) redeem(tok string) (string, *session, error) {
	now := s.now()
	t, err := parse(s.key, tok, now)
	if err != nil {
		return "", nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(now)
	if _, ok := s.used[t.Nonce]; ok {
		return "", nil, fmt.Errorf("%w: already used", ErrInvalidToken)
	}
	if err := s.remember(t.Nonce, time.Unix(t.Expires, 0)); err != nil {
		return "", nil, err
	}
	ss := &session{grant: t.Grant, id: randomID(), expires: now.Add(s.ttl).Truncate(time.Second)}
	ss.csrf = s.csrf(ss.id)
	payload, err := json.Marshal(sessionCookie{Grant: ss.grant, ID: ss.id, Expires: ss.expires.Unix()})
	if err != nil {
		return "", nil, err
	}
	p := base64.RawURLEncoding.EncodeToString(payload)
	return p + "." + base64.RawURLEncoding.EncodeToString(sign(s.key, sessionDomain+p)), ss, nil
}

// remember keeps name used until exp: on disk before anything relies on
// it, so a crash after this leaves it used.
func (s *sessions) remember(name string, exp time.Time) error {
	if s.file != nil {
		if err := s.file.add(name, exp); err != nil {
			return err
		}
	}
	s.used[name] = exp
	return nil
}

// csrf is a session's CSRF token: derived from its id with the key, so it
// is the same after a restart and is not in the cookie.
func (s *sessions) csrf(id string) string {
	return base64.RawURLEncoding.EncodeToString(sign(s.key, "csrf."+id))
}

// lookup returns the live session a cookie's value is: signed by this
// console's key as a session, not expired, not signed out.
func (s *sessions) lookup(cookie string) (*session, bool) {
	p, sig64, ok := strings.Cut(cookie, ".")
	sig, err := base64.RawURLEncoding.DecodeString(sig64)
	if !ok || err != nil || !hmac.Equal(sig, sign(s.key, sessionDomain+p)) {
		return nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return nil, false
	}
	var c sessionCookie
	if err := json.Unmarshal(payload, &c); err != nil || c.ID == "" || c.Grant.Validate() != nil {
		return nil, false
	}
	if s.now().Unix() >= c.Expires {
		return nil, false
	}
	s.mu.Lock()
	_, ended := s.used[endedPrefix+c.ID]
	s.mu.Unlock()
	if ended {
		return nil, false
	}
	return &session{grant: c.Grant, id: c.ID, csrf: s.csrf(c.ID), expires: time.Unix(c.Expires, 0)}, true
}

// end signs a session out for good: its id is kept as used until the
// session would have expired.
func (s *sessions) end(ss *session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.remember(endedPrefix+ss.id, ss.expires)
}

// sweep forgets expired nonces and ended sessions every 64 redemptions.
func (s *sessions) sweep(now time.Time) {
	if s.count++; s.count < 64 {
		return
	}
	s.count = 0
	for n, exp := range s.used {
		if !now.Before(exp) {
			delete(s.used, n)
		}
	}
	if s.file != nil {
		// Compact what is kept on disk; on failure the file keeps growing
		// by appends and the next sweep tries again.
		s.file.rewrite(s.used)
	}
}
