package bus

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/internal/publish"
)

// ErrInvalidConfig is returned by Open for a configuration it cannot use.
var ErrInvalidConfig = errors.New("bus: invalid config")

// ErrDuplicateNotOurs is returned by Publish when the server acknowledged
// the event as a duplicate of a stored message that is not this event:
// another subject, or another event under the same message id. The event
// was not stored.
var ErrDuplicateNotOurs = errors.New("bus: the log holds another message under this event's message id; the event was not stored")

// ErrOldLayout is returned by Open when the server holds a log of the
// single-stream layout (stream TOOLSTREAM over ts.>).
var ErrOldLayout = errors.New("bus: log of an earlier layout")

// DuplicateWindowDefault is Config.DuplicateWindow's default: how long
// the log remembers a message id, so that a publisher that sends a message
// again (a producer resuming a stream cut short) stores it once.
const DuplicateWindowDefault = 10 * time.Minute

// Config says where the log is.
type Config struct {
	// DataDir holds the embedded server's JetStream files (DataDir/nats).
	DataDir string
	// Listen is the embedded server's client address; "127.0.0.1:4222" by
	// default, port -1 or 0 picks a free port. Ignored with NATSURL.
	Listen string
	// NATSURL connects to an external server or cluster instead of starting
	// one (comma-separated URLs).
	NATSURL string
	// Sync is the embedded server's flush policy: "" (server default, every
	// 2 minutes), "always", or a duration such as "1s".
	Sync string
	// Replicas of the stream; 0 keeps an existing stream's replicas and
	// creates a new one with 1 (embedded or standalone server) or 3 (a
	// cluster, see ensureStream).
	Replicas int
	// Partitions of the model subjects (see partition.go); 0 keeps the
	// stream's mapping as it is (none on a new stream).
	Partitions int
	// PublishTimeout bounds the wait for the acknowledgement of an
	// asynchronous publish (outbox relays, producers); default 10s. Without
	// it a publish whose acknowledgement was lost when a stream leader died
	// would be waited for forever; with it, it fails and is retried under
	// the same Nats-Msg-Id.
	PublishTimeout time.Duration
	// SetupMax bounds how long Open retries while the cluster is not ready
	// (no JetStream leader yet, too few servers for the replicas); default
	// 60s.
	SetupMax time.Duration
	// RawRetention is how long raw provider events are kept in TS_IN (they
	// hold personal data in plaintext); default 24h.
	RawRetention time.Duration
	// DuplicateWindow for Nats-Msg-Id deduplication; default
	// DuplicateWindowDefault.
	DuplicateWindow time.Duration
	// KeysUserMax bounds each tenant's user keys that the keys service
	// and this bus's store of the bucket make, for producers and
	// processors alike (keys.Config.UserKeysMax); default
	// keys.DefaultUserKeysMax.
	KeysUserMax int
	// KeysRecordMax bounds each user's memory record keys, and makes a
	// record's user take a slot of KeysUserMax (keys.Config.RecordKeysMax);
	// default keys.DefaultRecordKeysMax.
	KeysRecordMax int
	// MaxPayload of the embedded server; default 8 MiB.
	MaxPayload int32
	// Name identifies the client connection.
	Name string
	// Options are extra connection options (credentials, TLS) for an
	// external server. The embedded server's own connection is in-process
	// and authenticates as Identity.
	Options []nats.Option
	// Auth is the embedded server's security material; nil loads or
	// creates it in DataDir/auth (auth.Ensure). The embedded server always
	// refuses anonymous clients.
	Auth *auth.Material
	// Identity of the bus's own connection to the embedded server; the
	// zero value is auth.RoleAdmin.
	Identity auth.Identity
	// TLSCert and TLSKey make the embedded server require TLS of its
	// clients (PEM files).
	TLSCert, TLSKey string
	// ConnectOnly connects without reading or writing the log's stream
	// (Bus.Stream stays nil): a producer's identity may publish its raw
	// events but not ask the JetStream API anything. Ignored for the
	// embedded server.
	ConnectOnly bool
	// AllowPlaintext lets the embedded server listen on a non-loopback
	// address without TLS. Without it Open refuses to (ErrInvalidConfig).
	AllowPlaintext bool
	// Logger receives the server's and the bus's logs; nil discards.
	Logger *slog.Logger
	// ViolationsEvery is the window of the embedded server's log of
	// permissions violations: at most ViolationsMax of them are written a
	// window, the next one after says how many were left out; default 10s.
	ViolationsEvery time.Duration
	// MsgIDKey tags the message ids this bus publishes into the streams a
	// tenant may write (events.MsgID), so no other identity can claim
	// them ahead. Empty: the embedded server's material's key
	// (auth.Material.MsgIDKey); on an external server the key of the nkey
	// the connection authenticated with (auth.ConnMsgIDKey: the same for
	// the same creds), else a random one, and a re-publish after a restart
	// is stored again.
	MsgIDKey []byte
	// TenantStreams takes each tenant's ingress (ts.in.<t>.>,
	// ts.model.<t>.>) into a stream of its own that TS_IN and TS_MODEL
	// source (tenant.go, EnsureTenant), instead of holding those subjects
	// in the shared streams. Open rewrites an existing log's shared
	// streams to this layout, keeping what they stored; false keeps the
	// layout the log has.
	TenantStreams bool
	// NewLogTenantStreams gives a log this Open creates (the server holds
	// no TS_MODEL yet) the per-tenant layout, as TenantStreams would; a log
	// that exists keeps the layout it has (a log of the shared layout is
	// moved by TenantStreams: toolstream setup --tenant-streams). serve
	// and setup on the embedded server set it: a new --data starts on the
	// per-tenant layout (a cluster's log only with --tenant-streams).
	NewLogTenantStreams bool
	// TenantStreamMaxBytes bounds what one tenant's ingress stream holds
	// that the shared streams have not yet copied (or that is younger than
	// the duplicate window); past it a publish is refused (DiscardNew), never
	// an older message dropped. Default 1 GiB.
	TenantStreamMaxBytes int64
}

func (c *Config) setDefaults() {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:4222"
	}
	if c.DataDir == "" {
		c.DataDir = "toolstream-data"
	}
	if c.DuplicateWindow == 0 {
		c.DuplicateWindow = DuplicateWindowDefault
	}
	if c.RawRetention == 0 {
		c.RawRetention = 24 * time.Hour
	}
	if c.MaxPayload == 0 {
		c.MaxPayload = 8 << 20
	}
	if c.Name == "" {
		c.Name = "toolstream"
	}
	if c.PublishTimeout == 0 {
		c.PublishTimeout = 10 * time.Second
	}
	if c.SetupMax == 0 {
		c.SetupMax = time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.ViolationsEvery == 0 {
		c.ViolationsEvery = 10 * time.Second
	}
	if c.TenantStreamMaxBytes == 0 {
		c.TenantStreamMaxBytes = 1 << 30
	}
}

// Bus is an open log: a connection, its JetStream context and, when
// embedded, the server.
type Bus struct {
	Conn *nats.Conn
	JS   jetstream.JetStream
	// Keys seals what Publish writes and opens what the readers on this
	// bus read (package keys); nil: the clear. Set it once, before use.
	Keys events.Keyring

	cfg      Config
	msgIDKey []byte
	server   *server.Server
	auth     *auth.Material              // the embedded server's material; nil for an external server
	streams  map[string]jetstream.Stream // by name, as Open read or wrote them
	tenantMu sync.Mutex                  // serialises EnsureTenant's read-then-rewrite of the shared streams' sources
	trim     tenantTrim                  // what TrimTenants saw of the shared streams' sourcing (tenant.go)
	// tenantLayout: the log takes tenants' ingress by per-tenant streams
	// (tenant.go); set by Open, read-only after.
	tenantLayout bool
}

// Stream is the log's stream name (events.Streams) as Open read or wrote
// it, or a tenant's ingress stream (TenantStream) looked up when asked
// for, where this identity may; nil with Config.ConnectOnly or for an
// unknown name.
func (b *Bus) Stream(name string) jetstream.Stream {
	if s, ok := b.streams[name]; ok || !strings.HasPrefix(name, TenantStreamPrefix) {
		return s
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupAttemptTimeout)
	defer cancel()
	s, err := b.JS.Stream(ctx, name)
	if err != nil {
		return nil
	}
	return s
}

// Open starts the embedded server (unless cfg.NATSURL is set), connects and
// ensures the log's stream exists with the configured limits (stream.go).
// NATSURL may list several servers of a cluster, comma-separated; the
// connection fails over between them. It returns ErrInvalidConfig for an
// unusable address, sync, replicas or partitions setting.
func Open(ctx context.Context, cfg Config) (*Bus, error) {
	cfg.setDefaults()
	if cfg.Replicas < 0 || cfg.Partitions < 0 || cfg.Partitions > PartitionsMax {
		return nil, fmt.Errorf("%w: replicas %d, partitions %d (0 to %d)", ErrInvalidConfig, cfg.Replicas, cfg.Partitions, PartitionsMax)
	}
	b := &Bus{cfg: cfg, streams: map[string]jetstream.Stream{}, msgIDKey: cfg.MsgIDKey}
	url := cfg.NATSURL
	connOpts := cfg.Options
	if url == "" {
		m := cfg.Auth
		if m == nil {
			var err error
			if m, err = auth.Ensure(filepath.Join(cfg.DataDir, "auth")); err != nil {
				return nil, fmt.Errorf("bus: %w", err)
			}
		}
		srv, err := startServer(cfg, m)
		if err != nil {
			return nil, err
		}
		b.server, b.auth = srv, m
		if len(b.msgIDKey) == 0 {
			b.msgIDKey = m.MsgIDKey()
		}
		url = srv.ClientURL()
		id := cfg.Identity
		if id.Role == "" {
			id.Role = auth.RoleAdmin
		}
		u, err := m.Issue(id, 0)
		if err != nil {
			b.shutdownServer()
			return nil, fmt.Errorf("bus: %w", err)
		}
		connOpts = append(u.Options(), nats.InProcessServer(srv))
	}
	log := cfg.Logger
	opts := append([]nats.Option{nats.Name(cfg.Name), nats.MaxReconnects(-1),
		// Asynchronous errors (a permission violation, a write to a server
		// that went away) go to the logger; nats.go would print them.
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if sub != nil {
				log.Warn("nats async error", "subject", sub.Subject, "err", err)
				return
			}
			log.Warn("nats async error", "err", err)
		})}, connOpts...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		b.shutdownServer()
		return nil, fmt.Errorf("bus: connect %s: %w", url, err)
	}
	b.Conn = nc
	if len(b.msgIDKey) == 0 {
		if key, ok := auth.ConnMsgIDKey(nc); ok {
			b.msgIDKey = key // the user's nkey: the same for the same creds
		} else {
			b.msgIDKey = make([]byte, events.MsgIDKeyBytes)
			if _, err := rand.Read(b.msgIDKey); err != nil {
				b.Close()
				return nil, fmt.Errorf("bus: message-id key: %w", err)
			}
			log.Warn("this identity has no nkey to derive a message-id key from (a user name and password?): events published again after a restart are stored twice")
		}
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(cfg.PublishTimeout))
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("bus: jetstream: %w", err)
	}
	b.JS = js
	if cfg.ConnectOnly && b.server == nil {
		return b, nil
	}
	if err := b.ensureStreams(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// MsgIDKey is the key that tags the message ids this bus publishes
// (events.MsgID): a process that publishes on the bus's connection by
// other means (a client, a projection's relay) tags with it too.
func (b *Bus) MsgIDKey() []byte { return b.msgIDKey }

// ClientURL is the URL other processes use to reach this log.
func (b *Bus) ClientURL() string {
	if b.server != nil {
		return b.server.ClientURL()
	}
	return b.cfg.NATSURL
}

// Embedded reports whether this Bus runs the server in-process.
func (b *Bus) Embedded() bool { return b.server != nil }

// Auth is the embedded server's security material (nil for an external
// server): tests and one-shot commands issue users of other roles with it.
func (b *Bus) Auth() *auth.Material { return b.auth }

// UserOptions are the connection options of a new user id of the embedded
// server (its JWT, seed and inbox prefix), to connect to ClientURL. It
// returns ErrInvalidConfig for an external server.
func (b *Bus) UserOptions(id auth.Identity) ([]nats.Option, error) {
	if b.auth == nil {
		return nil, fmt.Errorf("%w: users are issued only for the embedded server", ErrInvalidConfig)
	}
	u, err := b.auth.Issue(id, 0)
	if err != nil {
		return nil, err
	}
	opts := u.Options()
	if b.cfg.TLSCert != "" {
		opts = append(opts, nats.RootCAs(b.cfg.TLSCert))
	}
	return opts, nil
}

// Close drains the connection and shuts the embedded server down, waiting
// until it has flushed its stores.
func (b *Bus) Close() error {
	var err error
	if b.Conn != nil {
		if derr := b.Conn.Drain(); derr != nil && !errors.Is(derr, nats.ErrConnectionClosed) {
			err = derr
		}
		for i := 0; i < 200 && !b.Conn.IsClosed(); i++ {
			time.Sleep(5 * time.Millisecond)
		}
		b.Conn.Close()
	}
	b.shutdownServer()
	return err
}

func (b *Bus) shutdownServer() {
	if b.server != nil {
		b.server.Shutdown()
		b.server.WaitForShutdown()
	}
}

func startServer(cfg Config, m *auth.Material) (*server.Server, error) {
	host, portStr, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("%w: listen %q: %v", ErrInvalidConfig, cfg.Listen, err)
	}
	tlsOn := cfg.TLSCert != "" || cfg.TLSKey != ""
	if !tlsOn && !cfg.AllowPlaintext && !Loopback(host) {
		return nil, fmt.Errorf("%w: listen %s: a non-loopback address needs TLS: give --tls-cert and --tls-key "+
			"(PEM files), or --allow-plaintext to accept unencrypted connections from the network", ErrInvalidConfig, cfg.Listen)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("%w: listen port %q", ErrInvalidConfig, portStr)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	opts := &server.Options{
		ServerName: cfg.Name,
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   filepath.Join(cfg.DataDir, "nats"),
		MaxPayload: cfg.MaxPayload,
		NoSigs:     true,
	}
	if tlsOn {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey})
		if err != nil {
			return nil, fmt.Errorf("%w: tls: %v", ErrInvalidConfig, err)
		}
		opts.TLSConfig, opts.TLS, opts.TLSTimeout = tc, true, 2
	}
	ConfigureServer(opts, m)
	if err := adoptGlobalAccount(opts.StoreDir, m.AccountPublicKey()); err != nil {
		return nil, err
	}
	switch s := strings.TrimSpace(cfg.Sync); s {
	case "":
	case "always":
		opts.SyncAlways = true
	default:
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%w: sync %q: want always or a duration", ErrInvalidConfig, s)
		}
		opts.SyncInterval = d
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("bus: embedded server: %w", err)
	}
	sl := &serverLog{l: cfg.Logger, violations: lineLimit{every: cfg.ViolationsEvery}}
	srv.SetLoggerV2(sl, false, false, false)
	go srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("bus: embedded server on %s not ready in 30s", cfg.Listen)
	}
	sl.started.Store(true) // JetStream recovered its streams before it listened
	return srv, nil
}

// Publish publishes one event to the log and waits for the server's
// acknowledgement. Its Nats-Msg-Id is events.OwnedMsgID of its id under
// the bus's MsgIDKey (tagged in the streams a tenant writes and on the
// kinds several roles share a stream for), so a repeat of the same event is dropped as a duplicate and nobody else's
// message can take its place. An acknowledgement as a duplicate of a
// stored message that is not this event (another subject, another id or
// tenant), where this identity can read it, is ErrDuplicateNotOurs. With
// Keys set, a body with personal data is sealed under the event's user
// (events.EncodeSealed).
func (b *Bus) Publish(ctx context.Context, subject string, ev *events.Event) (*jetstream.PubAck, error) {
	return b.PublishSealed(ctx, subject, ev, "")
}

// PublishSealed is Publish sealing under scope (events.RecordScope for a
// memory record; "" the user's).
func (b *Bus) PublishSealed(ctx context.Context, subject string, ev *events.Event, scope string) (*jetstream.PubAck, error) {
	var data []byte
	var err error
	if b.Keys != nil {
		data, err = events.EncodeSealed(ev, b.Keys, scope)
	} else {
		data, err = events.Encode(ev)
	}
	if err != nil {
		return nil, err
	}
	ack, err := b.JS.Publish(ctx, subject, data, jetstream.WithMsgID(events.OwnedMsgID(b.msgIDKey, subject, ev.ID)))
	if err != nil {
		return nil, fmt.Errorf("bus: publish %s: %w", subject, err)
	}
	if ack.Duplicate {
		if err := b.checkDuplicate(ctx, subject, ev, data, ack); err != nil {
			return nil, err
		}
	}
	return ack, nil
}

// checkDuplicate returns ErrDuplicateNotOurs unless the stored message a
// duplicate acknowledgement names is ev (encoded as data) on subject
// (publish.SameMessage): the same subject (or it with its partition
// token) and the same bytes or an envelope of the same id and tenant (a
// sealed body is sealed anew). What this
// identity cannot read (a producer's, or a message gone since) is taken
// as ours: its message id, tagged under our key, says so.
func (b *Bus) checkDuplicate(ctx context.Context, subject string, ev *events.Event, data []byte, ack *jetstream.PubAck) error {
	s := b.Stream(ack.Stream) // a tenant's ingress stream too (tenant.go), where this identity may read it
	if s == nil {
		return nil
	}
	raw, err := s.GetMsg(ctx, ack.Sequence)
	if err != nil {
		return nil
	}
	if publish.SameMessage(subject, data, raw) {
		return nil
	}
	return fmt.Errorf("%w: %s on %s: %s seq %d holds %s", ErrDuplicateNotOurs, ev.ID, subject, ack.Stream, ack.Sequence, raw.Subject)
}

// LastSeq returns the last sequence of one of the log's streams.
func (b *Bus) LastSeq(ctx context.Context, stream string) (uint64, error) {
	s, ok := b.streams[stream]
	if !ok {
		return 0, fmt.Errorf("%w: no stream %q", ErrInvalidConfig, stream)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("bus: stream info: %w", err)
	}
	return info.State.LastSeq, nil
}

// serverLog adapts nats-server's logger to slog. The server is chatty at
// notice level; those go to debug. The lines a client makes it write at
// will, its permissions violations (every identity, a tenant's producer
// among them, can publish or subscribe where it may not, thousands of times
// a second), go through violations: a few a window, the next one written
// saying how many were left out. Once started, its warning that a
// stream's sourcing state is outdated is what adding a source to a stream
// that holds messages makes it say (EnsureTenant, a tenant's first
// credential or publish), every time: debug too; at start, when it
// recovers from its files, it stays a warning.
type serverLog struct {
	l          *slog.Logger
	violations lineLimit
	started    atomic.Bool
}

// sourceAdded starts nats-server's warning when a stream's config gains a
// source and the stream holds messages (nats-server v2.15.2, the file
// store's recoverPerMessageState in its server package): it scans the
// stream back for what the new source has copied already.
const sourceAdded = "Sourcing state is outdated; attempting to recover using backward scan"

func (s *serverLog) Noticef(format string, v ...any) {
	s.l.Debug("nats server", "text", fmt.Sprintf(format, v...))
}
func (s *serverLog) Warnf(format string, v ...any) {
	text := fmt.Sprintf(format, v...)
	if s.started.Load() && strings.Contains(text, sourceAdded) {
		s.l.Debug("nats server", "text", text)
		return
	}
	s.l.Warn("nats server", "text", text)
}
func (s *serverLog) Fatalf(format string, v ...any) {
	s.l.Error("nats server", "text", fmt.Sprintf(format, v...))
}
func (s *serverLog) Errorf(format string, v ...any) {
	text := fmt.Sprintf(format, v...)
	if strings.Contains(text, " Violation - ") {
		ok, leftOut := s.violations.allow(time.Now())
		if !ok {
			return
		}
		if leftOut > 0 {
			s.l.Error("nats server", "text", text, "violations_left_out", leftOut)
			return
		}
	}
	s.l.Error("nats server", "text", text)
}
func (s *serverLog) Debugf(format string, v ...any) {
	s.l.Debug("nats server", "text", fmt.Sprintf(format, v...))
}
func (s *serverLog) Tracef(format string, v ...any) {}

// ViolationsMax is how many permissions violations the embedded server's
// log holds a Config.ViolationsEvery.
const ViolationsMax = 10

// lineLimit lets at most ViolationsMax lines through a window of every;
// the first one let through after some were left out says how many.
type lineLimit struct {
	every time.Duration
	mu    sync.Mutex
	// start, n and left are guarded by mu.
	start   time.Time
	n, left int
}

func (ll *lineLimit) allow(now time.Time) (ok bool, leftOut int) {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	if now.Sub(ll.start) >= ll.every {
		ll.start, ll.n = now, 0
	}
	if ll.n >= ViolationsMax {
		ll.left++
		return false, 0
	}
	ll.n++
	leftOut, ll.left = ll.left, 0
	return true, leftOut
}

// ConfigureServer makes a server trust m's operator (auth.Material's
// ServerTrust): it refuses every client without a user JWT signed by one
// of its accounts.
func ConfigureServer(opts *server.Options, m *auth.Material) {
	operator, system, accounts := m.ServerTrust()
	opts.TrustedOperators = []*jwt.OperatorClaims{operator}
	opts.SystemAccount = system
	r := &server.MemAccResolver{}
	for pk, account := range accounts {
		_ = r.Store(pk, account)
	}
	opts.AccountResolver = r
	opts.NoAuthUser = ""
}

// Loopback reports whether host (of a listen address) is reachable only
// from this machine.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// adoptGlobalAccount moves the JetStream files of a data directory written
// before authentication was on (the server's global account, $G) to the log
// account's directory, so an upgraded installation keeps its log.
func adoptGlobalAccount(storeDir, account string) error {
	old := filepath.Join(storeDir, "jetstream", "$G")
	if _, err := os.Stat(old); err != nil {
		return nil
	}
	dst := filepath.Join(storeDir, "jetstream", account)
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("bus: %s and %s both hold a log; keep one", old, dst)
	}
	if err := os.Rename(old, dst); err != nil {
		return fmt.Errorf("bus: adopt the log of %s: %w", old, err)
	}
	return nil
}

// Read reads one stream of the log by direct gets (package logread): cfg's
// Conn is the bus's, its Stream the one that holds its Filter or Subjects
// unless set. A role that may only read the log reads it so. It returns
// events.ErrMalformed for subjects that lie in several streams.
func (b *Bus) Read(ctx context.Context, cfg logread.Config, fn func([]*logread.Msg) error) error {
	cfg.Conn = b.Conn
	if cfg.Stream == "" {
		subjects := cfg.Subjects
		if cfg.Filter != "" {
			subjects = []string{cfg.Filter}
		}
		stream, err := events.StreamOfAll(subjects)
		if err != nil {
			return err
		}
		cfg.Stream = stream
	}
	return logread.Read(ctx, cfg, fn)
}

// ReadAcross reads cfg.Subjects wherever they lie, one stream of the log
// at a time for each stream that holds some of them (Read's rules for
// each), calling fn with each batch and the stream it came from; fn is
// never called concurrently. Without cfg.Follow the streams are read one
// after another, in events.Streams order; with it they are followed at
// once, so batches of different streams interleave as they arrive (each
// stream's own order holds). tail starts each stream after its last
// message now (cfg.From is then ignored).
func (b *Bus) ReadAcross(ctx context.Context, cfg logread.Config, tail bool, fn func(stream string, batch []*logread.Msg) error) error {
	byStream := map[string][]string{}
	for _, s := range cfg.Subjects {
		st, err := events.StreamOf(s)
		if err != nil {
			return err
		}
		byStream[st] = append(byStream[st], s)
	}
	var mu sync.Mutex
	read := func(ctx context.Context, stream string) error {
		c := cfg
		c.Stream, c.Subjects = stream, byStream[stream]
		if tail {
			last, err := b.LastSeq(ctx, stream)
			if err != nil {
				return err
			}
			c.From = last + 1
		}
		return b.Read(ctx, c, func(batch []*logread.Msg) error {
			mu.Lock()
			defer mu.Unlock()
			return fn(stream, batch)
		})
	}
	if !cfg.Follow {
		for _, st := range events.Streams {
			if _, ok := byStream[st]; ok {
				if err := read(ctx, st); err != nil {
					return err
				}
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(byStream))
	for st := range byStream {
		go func() {
			err := read(ctx, st)
			if err != nil {
				cancel()
			}
			errs <- err
		}()
	}
	var first error
	for range byStream {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ReadEvents returns every event now on subjects, stream by stream of the
// log (events.Streams order), each in its stream's order (ReadAcross,
// without following). Messages that do not decode, or whose envelope names
// another tenant than their subject, are skipped (the projections record
// them); sealed bodies are opened with b.Keys where it holds the key.
func (b *Bus) ReadEvents(ctx context.Context, subjects []string) ([]*events.Event, error) {
	var out []*events.Event
	err := b.ReadAcross(ctx, logread.Config{Subjects: subjects}, false, func(_ string, batch []*logread.Msg) error {
		for _, m := range batch {
			if ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys); err == nil {
				out = append(out, ev)
			}
		}
		return nil
	})
	return out, err
}
