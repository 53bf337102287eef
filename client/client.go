package client

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/keys"
)

// Option configures Connect.
type Option func(*options) error

type options struct {
	url            string
	conn           *nats.Conn
	nats           []nats.Option
	keys           events.Keyring
	log            *slog.Logger
	name           string
	requestTimeout time.Duration
	publishTimeout time.Duration
	now            func() time.Time
	window         int
	batches        *bool
	perChunk       bool
	noMsgIDs       bool
	msgIDKey       []byte
}

// WithURL is the server or cluster to connect to: one URL or several,
// comma-separated (as the CLI's --nats-url). Default nats://127.0.0.1:4222.
func WithURL(urls string) Option {
	return func(o *options) error {
		if strings.TrimSpace(urls) == "" {
			return fmt.Errorf("%w: empty URL", ErrInvalidOption)
		}
		o.url = urls
		return nil
	}
}

// WithCredsFile authenticates with a NATS .creds file (toolstream creds
// ROLE), and takes the identity's reply inbox prefix from it, as the CLI's
// --creds does.
func WithCredsFile(path string) Option {
	return func(o *options) error {
		if path == "" {
			return fmt.Errorf("%w: empty creds file", ErrInvalidOption)
		}
		o.nats = append(o.nats, auth.CredsOptions(path)...)
		return nil
	}
}

// WithMsgIDKey tags the message ids this client publishes into the
// streams a tenant writes (events.MsgID) with key: a secret of the
// publishing identity, the same after a restart, so that a stream
// written again is stored once and no other identity can claim its ids
// ahead. By default the key is derived from the nkey the connection
// authenticated with (auth.ConnMsgIDKey: a creds file, a JWT and seed),
// the same for every client of the same creds; a process that holds a
// bus passes the bus's (bus.Bus.MsgIDKey). A connection without an nkey
// (a user name and password) gets a random key: its ids cannot be
// claimed, but a stream written again by another Client is stored twice.
func WithMsgIDKey(key []byte) Option {
	return func(o *options) error {
		if len(key) < 16 {
			return fmt.Errorf("%w: a message-id key of %d bytes (16 at least)", ErrInvalidOption, len(key))
		}
		o.msgIDKey = key
		return nil
	}
}

// WithUserPassword authenticates with a user name and password (the CLI's
// --nats-user and --nats-password).
func WithUserPassword(user, password string) Option {
	return func(o *options) error {
		o.nats = append(o.nats, nats.UserInfo(user, password))
		return nil
	}
}

// WithTLSCA trusts the CA certificate (PEM) that signed the server's TLS
// certificate (the CLI's --tls-ca).
func WithTLSCA(path string) Option {
	return func(o *options) error {
		if path == "" {
			return fmt.Errorf("%w: empty CA file", ErrInvalidOption)
		}
		o.nats = append(o.nats, nats.RootCAs(path))
		return nil
	}
}

// WithNATSOptions adds connection options of nats.go (an identity issued
// in-process, a reconnect policy).
func WithNATSOptions(opts ...nats.Option) Option {
	return func(o *options) error {
		o.nats = append(o.nats, opts...)
		return nil
	}
}

// WithConn uses a connection the caller made and keeps: Close does not
// close it. It excludes the other connection options.
func WithConn(nc *nats.Conn) Option {
	return func(o *options) error {
		if nc == nil {
			return fmt.Errorf("%w: nil connection", ErrInvalidOption)
		}
		o.conn = nc
		return nil
	}
}

// WithKeys seals and opens personal data with kr instead of the server's
// key store as this identity reaches it (package keys, one store per
// tenant opened on first use). A process that already holds the keys (the
// server's own one-shot commands) passes them.
func WithKeys(kr events.Keyring) Option {
	return func(o *options) error {
		o.keys = kr
		return nil
	}
}

// WithLogger receives the connection's asynchronous errors; nil discards.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		o.log = l
		return nil
	}
}

// WithName names the connection (what the server's monitoring shows).
func WithName(name string) Option {
	return func(o *options) error {
		o.name = name
		return nil
	}
}

// WithRequestTimeout bounds one request to a service (approve, runs,
// memory) when the context has no earlier deadline; default 10s.
func WithRequestTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("%w: request timeout %v", ErrInvalidOption, d)
		}
		o.requestTimeout = d
		return nil
	}
}

// WithPublishTimeout bounds the wait for one publish's acknowledgement;
// default 10s.
func WithPublishTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("%w: publish timeout %v", ErrInvalidOption, d)
		}
		o.publishTimeout = d
		return nil
	}
}

// WithClock gives the events a producer publishes their time; default
// time.Now. Examples and tests fix it.
func WithClock(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return fmt.Errorf("%w: nil clock", ErrInvalidOption)
		}
		o.now = now
		return nil
	}
}

// WithPublishWindow bounds a Writer's publishes sent and not yet
// acknowledged; default 512. Each acknowledgement lets one more go: the
// server is never idle waiting for the producer, nor the producer for a
// whole window.
func WithPublishWindow(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%w: publish window %d", ErrInvalidOption, n)
		}
		o.window = n
		return nil
	}
}

// WithAtomicBatches says whether a Writer publishes atomic batches, each
// after the previous one was stored, instead of a window of single
// publishes: on a replicated stream a single publish retried across a
// leader change would land after later ones. By default a Writer decides
// by the server: batches when it is part of a cluster.
func WithAtomicBatches(on bool) Option {
	return func(o *options) error {
		o.batches = &on
		return nil
	}
}

// WithPerChunk makes a Writer publish one model event per event the
// provider's adapter emits instead of merging a call's consecutive
// argument deltas (what the server's ingest does for raw events).
func WithPerChunk() Option {
	return func(o *options) error {
		o.perChunk = true
		return nil
	}
}

// WithoutMsgIDs makes a Writer publish its model events without a
// Nats-Msg-Id, for a log no message can reach twice: one written by this
// writer alone, once, on a single server (toolstream assemble's private
// scratch server). There a publish is never retried (a window publish is
// sent once, and its failure ends the writer), so the duplicate window
// would only cost the server an entry per message and the producer an
// HMAC and a header each. Atomic batches, which are retried with their
// ids while a stream has no leader, keep them; so do raw streams (WithRaw),
// whose ids ingest relies on.
func WithoutMsgIDs() Option {
	return func(o *options) error {
		o.noMsgIDs = true
		return nil
	}
}

// Client is a connection to Toolstream's log and services as one
// identity. Safe for concurrent use; Close it when done.
type Client struct {
	nc    *nats.Conn
	js    jetstream.JetStream
	owned bool // Close closes nc
	o     options

	mu      sync.Mutex
	tenants map[string]*keys.Store // by tenant, opened on first use (o.keys nil)
	// eraseKeys destroys keys (Forget, EraseUser) and opens every tenant's
	// data (Activity of AllTenants): the whole store, as the operator
	// reaches it, opened on first use.
	eraseKeys *keys.Store
}

// Connect connects to the server the options name. It returns
// ErrInvalidOption, or nats.go's connection error (wrapped; a refused
// identity is also ErrPermissionDenied).
func Connect(ctx context.Context, opts ...Option) (*Client, error) {
	o := options{url: nats.DefaultURL, name: "toolstream-client", requestTimeout: 10 * time.Second,
		publishTimeout: 10 * time.Second, now: time.Now, window: 512}
	urlGiven := false
	for _, opt := range opts {
		before := o.url
		if err := opt(&o); err != nil {
			return nil, err
		}
		urlGiven = urlGiven || o.url != before
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	c := &Client{o: o, tenants: map[string]*keys.Store{}}
	if o.conn != nil {
		if urlGiven || len(o.nats) > 0 {
			return nil, fmt.Errorf("%w: WithConn excludes the other connection options", ErrInvalidOption)
		}
		c.nc = o.conn
	} else {
		log := o.log
		nopts := append([]nats.Option{nats.Name(o.name), nats.MaxReconnects(-1),
			nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
				if sub != nil {
					log.Warn("nats async error", "subject", sub.Subject, "err", err)
					return
				}
				log.Warn("nats async error", "err", err)
			})}, o.nats...)
		if d, ok := ctx.Deadline(); ok {
			nopts = append(nopts, nats.Timeout(time.Until(d)))
		}
		nc, err := nats.Connect(o.url, nopts...)
		if err != nil {
			return nil, fmt.Errorf("client: connect %s: %w", o.url, classify(err))
		}
		c.nc, c.owned = nc, true
	}
	if c.o.msgIDKey == nil {
		if key, ok := auth.ConnMsgIDKey(c.nc); ok {
			c.o.msgIDKey = key // the user's nkey: the same for the same creds
		} else {
			c.o.msgIDKey = make([]byte, events.MsgIDKeyBytes)
			if _, err := rand.Read(c.o.msgIDKey); err != nil {
				c.Close()
				return nil, fmt.Errorf("client: message-id key: %w", err)
			}
		}
	}
	js, err := jetstream.New(c.nc, jetstream.WithPublishAsyncTimeout(o.publishTimeout))
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("client: jetstream: %w", err)
	}
	c.js = js
	return c, nil
}

// Conn is the client's connection.
func (c *Client) Conn() *nats.Conn { return c.nc }

// Close drains and closes the connection unless it was given (WithConn).
func (c *Client) Close() error {
	if !c.owned || c.nc == nil {
		return nil
	}
	err := c.nc.Drain()
	if errors.Is(err, nats.ErrConnectionClosed) {
		err = nil
	}
	for i := 0; i < 200 && !c.nc.IsClosed(); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	c.nc.Close()
	return err
}

// keyring is what seals and opens tenant's personal data: the keys
// WithKeys gave; for tenant's producer (its inbox prefix says so) a
// tenant's store, which asks the keys service for its users' keys on its
// own tenant's subject; for any other identity the store of every tenant,
// which asks the service as that identity's role may.
func (c *Client) keyring(ctx context.Context, tenant string) (events.Keyring, error) {
	if c.o.keys != nil {
		return c.o.keys, nil
	}
	if p := (auth.Identity{Role: auth.RoleProducer, Tenant: tenant}).InboxPrefix(); c.nc.Opts.InboxPrefix != p {
		return c.wholeStore(ctx)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.tenants[tenant]; ok {
		return s, nil
	}
	s, err := keys.Open(ctx, keys.Config{JS: c.js, Tenant: tenant, Logger: c.o.log})
	if err != nil {
		return nil, fmt.Errorf("client: keys of %s: %w", tenant, err)
	}
	c.tenants[tenant] = s
	return s, nil
}

// mark is where the connection's errors stand before an operation: the
// server answers a publish or subscription it refuses with an
// asynchronous error, and the operation itself only times out.
func (c *Client) mark() error { return c.nc.LastError() }

// refused is err, as ErrPermissionDenied when the server reported a
// permission violation since mark (the operation timed out because the
// server refused it what it asked), else classified.
func (c *Client) refused(mark, err error) error {
	if err == nil {
		return nil
	}
	if last := c.nc.LastError(); last != mark && errors.Is(last, nats.ErrPermissionViolation) && !errors.Is(err, ErrPermissionDenied) {
		return fmt.Errorf("%w: %w (%w)", ErrPermissionDenied, last, err)
	}
	return classify(err)
}

// classify adds the sentinel a NATS error stands for.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired), errors.Is(err, nats.ErrAuthRevoked),
		errors.Is(err, nats.ErrPermissionViolation), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
		return fmt.Errorf("%w: %w", ErrPermissionDenied, err)
	case errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	var api *jetstream.APIError
	if errors.As(err, &api) && (api.Code == 403 || strings.Contains(strings.ToLower(api.Description), "permission")) {
		return fmt.Errorf("%w: %w", ErrPermissionDenied, err)
	}
	if strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
		return fmt.Errorf("%w: %w", ErrPermissionDenied, err)
	}
	return err
}
