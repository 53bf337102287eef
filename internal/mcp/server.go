package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// Path is where the Streamable HTTP endpoint is served.
const Path = "/mcp"

// MetaCallKey is the _meta key under which a client names its call (see
// the package doc); the executor's mcp tools send their idempotency key
// under the same name (executor.MetaIdempotencyKey).
const MetaCallKey = "dev.toolstream/idempotency-key"

// HeaderUser names the user a key without one acts for, as at the gateway.
const HeaderUser = "Toolstream-User"

// Defaults of Config.
const (
	DefaultPageSize      = 100
	DefaultCallWait      = 5 * time.Minute
	DefaultProgressEvery = 5 * time.Second
	DefaultPoll          = 250 * time.Millisecond
	// NameMax is the longest tool name MCP allows (2025-11-25, SEP-986).
	NameMax = 128
	// DefaultKeyRequestsMax bounds one key's requests under way at once,
	// as the gateway's key_requests_max does.
	DefaultKeyRequestsMax = 64
	// DefaultBodyReadTimeout bounds the reading of a request's body, as the
	// gateway's body_read_timeout does.
	DefaultBodyReadTimeout = 30 * time.Second
	// BodyMax bounds a request's body (the SDK's own bound): over it, 413.
	BodyMax = sdk.DefaultMaxRequestBodyBytes
)

// ErrConfig is a Config New cannot use.
var ErrConfig = errors.New("mcp: invalid configuration")

// Key is what a client key stands for: its tenant and, when set, the only
// user it acts for; from Expires on (when set) it is refused, as at the
// gateway.
type Key struct {
	Tenant  string
	User    string
	Expires time.Time
}

// HashKey is the hex SHA-256 of a client key, as Config.Keys holds it
// (the gateway's key_sha256).
func HashKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

// Config configures a Server.
type Config struct {
	// Keys are the clients' keys by their SHA-256 (hex, lower case), until
	// Server.SetKeys replaces them.
	Keys map[string]Key
	// Registry returns the registry in force (registry.Follower.Current).
	Registry func() *registry.Registry
	// Client publishes the calls (its message-id key tags their ids) and
	// reads their outcomes: the runs service and the log.
	Client *client.Client
	// PageSize bounds the tools of one tools/list page; default 100.
	PageSize int
	// CallWait bounds how long a tools/call waits for its outcome before
	// answering that the call still waits; default 5 minutes.
	CallWait time.Duration
	// ProgressEvery is the interval of progress notifications while a call
	// waits; default 5 s.
	ProgressEvery time.Duration
	// Poll is how often the runs view is read while nothing is heard on
	// the call's run subject; default 250 ms.
	Poll time.Duration
	// KeyRequestsMax bounds the requests of one key under way at once
	// (DefaultKeyRequestsMax): over it a request gets 429 with Retry-After,
	// so one key cannot hold every connection serve's listener allows.
	KeyRequestsMax int
	// BodyReadTimeout bounds the reading of a request's body from the
	// handler's start (DefaultBodyReadTimeout): a slower body gets 408 and
	// frees its connection and its key's place.
	BodyReadTimeout time.Duration
	Logger          *slog.Logger
	// Now is the clock keys expire by; default time.Now.
	Now func() time.Time
}

// Server is the MCP endpoint: an http.Handler serving Path.
type Server struct {
	cfg     Config
	log     *slog.Logger
	sdkLog  *slog.Logger // the SDK's lines: warnings and errors only (it logs every stateless request's session)
	handler http.Handler
	keys    atomic.Pointer[map[string]Key] // the keys in force (SetKeys)

	mu      sync.Mutex
	tenants map[string]*tenantServer // guarded by mu

	busyMu sync.Mutex
	busy   map[string]int // requests under way by key hash, guarded by busyMu; keys with none are removed
}

// tenantServer is one tenant's SDK server, built from one registry.
type tenantServer struct {
	digest string
	srv    *sdk.Server
}

// New returns a Server; ErrConfig without Keys, Registry or Client.
func New(cfg Config) (*Server, error) {
	if cfg.Registry == nil || cfg.Client == nil {
		return nil, fmt.Errorf("%w: Registry and Client are required", ErrConfig)
	}
	if err := validKeys(cfg.Keys); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = DefaultPageSize
	}
	if cfg.CallWait <= 0 {
		cfg.CallWait = DefaultCallWait
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = DefaultProgressEvery
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.KeyRequestsMax <= 0 {
		cfg.KeyRequestsMax = DefaultKeyRequestsMax
	}
	if cfg.BodyReadTimeout <= 0 {
		cfg.BodyReadTimeout = DefaultBodyReadTimeout
	}
	s := &Server{cfg: cfg, log: cfg.Logger, tenants: map[string]*tenantServer{}, busy: map[string]int{}}
	s.keys.Store(&cfg.Keys)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.sdkLog = slog.New(warnings{s.log.Handler()})
	// DNS rebinding protection (a localhost arrival with another Host is
	// 403) is off: it guards servers that take anonymous requests, and
	// every request here carries a key a rebound page cannot know (nor
	// send: a browser sets Authorization cross-origin only after a CORS
	// preflight, which nothing here answers); it would refuse a reverse
	// proxy on the same host.
	streamable := sdk.NewStreamableHTTPHandler(s.serverFor, &sdk.StreamableHTTPOptions{Stateless: true, Logger: s.sdkLog, DisableLocalhostProtection: true})
	bearer := auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	mux := http.NewServeMux()
	mux.Handle(Path, s.authenticate(bearer))
	s.handler = mux
	return s, nil
}

// validKeys returns ErrConfig for keys a Server cannot take.
func validKeys(keys map[string]Key) error {
	for h, k := range keys {
		if len(h) != 64 {
			return fmt.Errorf("%w: a key's SHA-256 must be 64 hex digits", ErrConfig)
		}
		if err := events.ValidTenant(k.Tenant); err != nil || k.Tenant == events.SystemTenant {
			return fmt.Errorf("%w: tenant %q is not a tenant name", ErrConfig, k.Tenant)
		}
	}
	return nil
}

// SetKeys puts keys in force for the requests that come next, in place of
// those before (the gateway's configuration read again: a key taken out
// is refused from now on). It returns ErrConfig, and changes nothing, for
// keys New would refuse.
func (s *Server) SetKeys(keys map[string]Key) error {
	if err := validKeys(keys); err != nil {
		return err
	}
	s.keys.Store(&keys)
	return nil
}

// ServeHTTP serves Path; everything else is 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// authenticate answers 401, with WWW-Authenticate, a request without a key
// of the file, before the SDK reads anything of it; 429 a key's request
// over KeyRequestsMax; 408 a body that did not arrive within
// BodyReadTimeout, 413 one over BodyMax, 400 a JSON-RPC batch. The SDK
// reads the body read here.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := bearerToken(r)
		if _, err := s.verify(r.Context(), token, r); err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolstream", error="invalid_token"`)
			http.Error(w, "a key of the gateway's keys file is required: Authorization: Bearer KEY", http.StatusUnauthorized)
			return
		}
		hash := HashKey(token)
		if !s.enter(hash) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many requests under way for this key; retry after the ones under way end", http.StatusTooManyRequests)
			return
		}
		defer s.leave(hash)
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(s.cfg.BodyReadTimeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, BodyMax))
		// Refused, the deadline stays: what is left of the body is not
		// waited for, and the connection closes after the answer.
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			http.Error(w, fmt.Sprintf("the request body is over %d bytes", BodyMax), http.StatusRequestEntityTooLarge)
			return
		case errors.Is(err, os.ErrDeadlineExceeded):
			http.Error(w, fmt.Sprintf("the request body did not arrive within %v", s.cfg.BodyReadTimeout), http.StatusRequestTimeout)
			return
		case err != nil:
			http.Error(w, "the request body could not be read", http.StatusBadRequest)
			return
		}
		rc.SetReadDeadline(time.Time{}) // a call's answer may stream for CallWait
		// A JSON-RPC batch (protocol 2025-03-26; later ones have none)
		// would be any number of calls under way behind one place of the
		// key's KeyRequestsMax.
		if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
			http.Error(w, "JSON-RPC batches are not served: one message a request", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// enter takes a place for a request of the key hashed hash; false when
// the key has KeyRequestsMax under way.
func (s *Server) enter(hash string) bool {
	s.busyMu.Lock()
	defer s.busyMu.Unlock()
	if s.busy[hash] >= s.cfg.KeyRequestsMax {
		return false
	}
	s.busy[hash]++
	return true
}

// leave gives back the place enter took.
func (s *Server) leave(hash string) {
	s.busyMu.Lock()
	defer s.busyMu.Unlock()
	if s.busy[hash]--; s.busy[hash] <= 0 {
		delete(s.busy, hash)
	}
}

func bearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && (h[:7] == "Bearer " || h[:7] == "bearer ") {
		return h[7:]
	}
	return ""
}

// verify is the SDK's TokenVerifier: the key's tenant and user go in the
// token's Extra, which the handlers read.
func (s *Server) verify(_ context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
	if token == "" {
		return nil, auth.ErrInvalidToken
	}
	k, ok := (*s.keys.Load())[HashKey(token)]
	if !ok || !k.Expires.IsZero() && !s.cfg.Now().Before(k.Expires) {
		return nil, auth.ErrInvalidToken
	}
	user := k.User
	if user == "" {
		user = r.Header.Get(HeaderUser)
	}
	return &auth.TokenInfo{UserID: k.Tenant + "/" + user, Extra: map[string]any{"tenant": k.Tenant, "user": user}}, nil
}

// identity is the tenant and user of a request's token ("" without one).
func identity(ti *auth.TokenInfo) (tenant, user string) {
	if ti == nil {
		return "", ""
	}
	tenant, _ = ti.Extra["tenant"].(string)
	user, _ = ti.Extra["user"].(string)
	return tenant, user
}

// serverFor is the SDK's getServer: the server of the request's tenant,
// built anew when the registry changed. nil (the SDK answers 400) only for
// a request without a verified token, which authenticate stopped before.
func (s *Server) serverFor(r *http.Request) *sdk.Server {
	tenant, _ := identity(auth.TokenInfoFromContext(r.Context()))
	if tenant == "" {
		return nil
	}
	reg := s.cfg.Registry()
	s.mu.Lock()
	defer s.mu.Unlock()
	if ts := s.tenants[tenant]; ts != nil && ts.digest == reg.Digest() {
		return ts.srv
	}
	ts := &tenantServer{digest: reg.Digest(), srv: s.build(tenant, reg)}
	s.tenants[tenant] = ts
	return ts.srv
}

// build makes tenant's server: the tools of reg it is granted.
func (s *Server) build(tenant string, reg *registry.Registry) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "toolstream", Title: "Toolstream", Version: "1"},
		&sdk.ServerOptions{PageSize: s.cfg.PageSize, Logger: s.sdkLog,
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
			// A tools/list depends on the key (its tenant's grants): no
			// shared cache may keep one for another client (2026-07-28
			// cacheScope; the SDK's default is public).
			SetCacheable: func(_ context.Context, _ sdk.Request, c *sdk.Cacheable) { c.CacheScope = "private" },
		})
	seen := map[string]bool{}
	n := 0
	for _, t := range reg.Tools() {
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		latest, _ := reg.Lookup(t.Name)
		if !reg.Allowed(tenant, latest.Permission) {
			continue
		}
		tool, why := describe(latest)
		if tool == nil {
			s.log.Warn("mcp: tool left out", "tenant", tenant, "tool", latest.Name, "why", why)
			continue
		}
		srv.AddTool(tool, s.callHandler(tenant, latest))
		n++
	}
	s.log.Info("mcp: tenant's tools", "tenant", tenant, "tools", n, "registry", reg.Digest())
	return srv
}

// describe is a contract as MCP lists it, or nil and why it cannot be.
func describe(t *registry.Tool) (*sdk.Tool, string) {
	name := registry.WireName(t.Name)
	if len(name) > NameMax {
		return nil, fmt.Sprintf("its name is %d characters as MCP carries it (%s), more than %d", len(name), name, NameMax)
	}
	var in map[string]any
	if err := json.Unmarshal(t.InputSchema, &in); err != nil {
		in = map[string]any{} // true: any object
	}
	switch typ := in["type"]; typ {
	case nil:
		in["type"] = "object"
	case "object":
	default:
		return nil, fmt.Sprintf("its input schema's type is %v, and MCP wants an object", typ)
	}
	tool := &sdk.Tool{Name: name, Description: t.Description, InputSchema: in}
	if name != t.Name {
		tool.Title = t.Name
	}
	if len(t.OutputSchema) > 0 {
		var out map[string]any
		if json.Unmarshal(t.OutputSchema, &out) == nil && out["type"] == "object" {
			tool.OutputSchema = out
		}
	}
	a := &sdk.ToolAnnotations{ReadOnlyHint: t.SideEffect == registry.SideEffectNone, IdempotentHint: t.Idempotency == registry.IdempotencyRequired}
	if t.SideEffect != registry.SideEffectNone {
		destructive := t.SideEffect == registry.SideEffectIrreversible
		a.DestructiveHint = &destructive
	}
	tool.Annotations = a
	return tool, ""
}

// warnings passes on the records of h at level Warn and above.
type warnings struct{ h slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.h.Enabled(ctx, l)
}
func (w warnings) Handle(ctx context.Context, r slog.Record) error { return w.h.Handle(ctx, r) }
func (w warnings) WithAttrs(as []slog.Attr) slog.Handler           { return warnings{w.h.WithAttrs(as)} }
func (w warnings) WithGroup(g string) slog.Handler                 { return warnings{w.h.WithGroup(g)} }
