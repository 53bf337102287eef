package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
)

//go:embed assets
var assets embed.FS

// Config is what a console serves.
type Config struct {
	// Bus is the log: required.
	Bus *bus.Bus
	// Key signs sign-in tokens (LoadKey): required.
	Key []byte
	// Runners are this process's projections by name, for the health page
	// and the assembler's open calls; may be empty.
	Runners map[string]*projector.Runner
	// Executor of this process, for its counters and breakers; may be nil.
	Executor *executor.Executor
	// Registry gives the registry in force (a tool's side-effect level on
	// the approvals page); may be nil.
	Registry func() *registry.Registry
	// Forget forgets a memory record as `toolstream memory forget` does
	// (the service's forget, the data keys destroyed, the view rebuilt)
	// and returns what to show; nil: the console cannot forget.
	Forget func(ctx context.Context, tenant, user, id string) (any, error)
	// Extra serves paths the console does not (e.g. /metrics and /healthz
	// on the same listener); nil: none.
	Extra http.Handler
	// UsedFile, when set, is where redeemed sign-in tokens are remembered
	// (owner-only), so a token stays used across a restart; empty: in
	// memory only. Sessions themselves end with the process.
	UsedFile string
	// SessionTTL bounds a session; default 12h.
	SessionTTL time.Duration
	// IdleTimeout closes a kept-alive connection that sends no request for
	// that long (default 2m), so connections opened and left idle, by
	// anyone who can reach the port, do not hold the listener's places;
	// MaxHeaderBytes bounds a request's headers (default 64 KiB; more is
	// 431). Serve applies both.
	IdleTimeout    time.Duration
	MaxHeaderBytes int
	// CallsMax and AnswersMax bound the tables kept in memory; default
	// 5000 and 500.
	CallsMax, AnswersMax int
	// Logger; nil discards.
	Logger *slog.Logger
	// Now is the clock of tokens and sessions; default time.Now.
	Now func() time.Time
}

// Server is one console.
type Server struct {
	cfg      Config
	log      *slog.Logger
	sessions *sessions
	feed     *feed
	client   *client.Client // the log's services and activity, as the console's identity
	static   http.Handler
	mux      *http.ServeMux
}

// New returns a console of cfg. It returns an error wrapping
// ErrInvalidConfig without a bus or a key.
func New(cfg Config) (*Server, error) {
	if cfg.Bus == nil || len(cfg.Key) < 16 {
		return nil, fmt.Errorf("%w: a bus and a key are needed", ErrInvalidConfig)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 12 * time.Hour
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 2 * time.Minute
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = 64 << 10
	}
	if cfg.CallsMax <= 0 {
		cfg.CallsMax = 5000
	}
	if cfg.AnswersMax <= 0 {
		cfg.AnswersMax = 500
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	c, err := client.Connect(context.Background(), client.WithConn(cfg.Bus.Conn), client.WithKeys(cfg.Bus.Keys),
		client.WithLogger(cfg.Logger))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	ss := newSessions(cfg.Key, cfg.SessionTTL, cfg.Now)
	if cfg.UsedFile != "" {
		if ss.file, ss.used, err = openUsed(cfg.UsedFile, cfg.Now()); err != nil {
			return nil, err
		}
	}
	s := &Server{cfg: cfg, log: cfg.Logger, sessions: ss,
		feed: newFeed(cfg.CallsMax, cfg.AnswersMax), client: c, static: http.FileServerFS(sub)}
	s.routes()
	return s, nil
}

// ErrInvalidConfig: a Config without what it needs.
var ErrInvalidConfig = errors.New("console: invalid config")

// Handler is the console's HTTP handler.
func (s *Server) Handler() http.Handler { return s.mux }

// Run follows the log for the pages until ctx ends. It returns nil then,
// or the error that stopped the reading.
func (s *Server) Run(ctx context.Context) error { return s.feed.run(ctx, s.client) }

// Serve runs the console on ln (closing it) and follows the log, until ctx
// ends; it then shuts the server down and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: s.cfg.IdleTimeout, MaxHeaderBytes: s.cfg.MaxHeaderBytes,
		BaseContext: func(net.Listener) context.Context { return ctx }} // open event streams end with ctx
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fed := make(chan error, 1)
	go func() { fed <- s.Run(ctx) }()
	s.log.Info("console serving", "addr", ln.Addr().String())
	var err error
	select {
	case <-ctx.Done():
	case err = <-fed:
		if err == nil {
			err = ctx.Err()
		}
	case err = <-served:
		err = fmt.Errorf("console: serve: %w", err)
	}
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	srv.Shutdown(sctx)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
