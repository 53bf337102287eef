package bus

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/keys"
)

// keysSetupMax is how long opening the data keys and starting the keys
// service wait for the key bucket on an external server, where `toolstream
// setup` makes it.
const keysSetupMax = 10 * time.Second

// OpenWithKeys opens the bus cfg describes (Open) and its data keys
// (package keys), which seal personal data in the log: what every
// Toolstream process that reads or writes personal data opens. The admin
// and the keys role reach the key bucket itself: an embedded server's is
// made on first use; on an external server `toolstream setup` made it
// (OpenWithKeys waits up to ten seconds for it). Every other identity
// (cfg.Identity: the embedded server's own connection's, or on an external
// server the one its credentials hold, when the caller says; unknown is
// taken as the bucket's) asks the keys service for its keys
// (keys.Config.Remote). A producer's identity (cfg.ConnectOnly) needs
// none. The caller closes the bus.
func OpenWithKeys(ctx context.Context, cfg Config) (*Bus, error) {
	keyring := cfg.Identity.Role == auth.RoleKeyring
	if keyring {
		cfg.ConnectOnly = true // it reads no stream of the log, only the key bucket
	}
	b, err := Open(ctx, cfg)
	if err != nil || cfg.ConnectOnly && !keyring {
		return b, err
	}
	kc := keys.Config{JS: b.JS, Logger: cfg.Logger, UserKeysMax: cfg.KeysUserMax, RecordKeysMax: cfg.KeysRecordMax}
	switch cfg.Identity.Role {
	case "", auth.RoleAdmin, auth.RoleKeyring:
		kc.Create, kc.Replicas, kc.SetupMax = b.Embedded(), b.Replicas(), keysSetupMax
	default:
		kc.Remote = true
	}
	kr, err := keys.Open(ctx, kc)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("%w (toolstream setup makes it on a cluster)", err)
	}
	b.Keys = kr
	return b, nil
}

// StartKeys serves the keys service (package keys), the one writer of the
// data keys, under the keys role's identity: on an embedded server a
// connection of its own as that role; on an external one b's connection,
// which must be that role's (or the admin's). Stop the service, then
// close the returned connection (nil when it is b's). The service logs to
// log.
func (b *Bus) StartKeys(ctx context.Context, log *slog.Logger) (micro.Service, *nats.Conn, error) {
	if !b.Embedded() {
		svc, err := keys.StartService(ctx, b.Conn, keys.Config{JS: b.JS, Logger: log, SetupMax: keysSetupMax, UserKeysMax: b.cfg.KeysUserMax, RecordKeysMax: b.cfg.KeysRecordMax})
		if err != nil {
			return nil, nil, fmt.Errorf("the keys service (it needs the keys role's credentials, --creds): %w", err)
		}
		return svc, nil, nil
	}
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleKeyring})
	if err != nil {
		return nil, nil, err
	}
	nc, err := nats.Connect(b.ClientURL(), append(opts, nats.Name("toolstream-keys"), nats.MaxReconnects(-1))...)
	if err != nil {
		return nil, nil, fmt.Errorf("the keys service: connect: %w", err)
	}
	svc, err := keys.StartService(ctx, nc, keys.Config{Logger: log, SetupMax: keysSetupMax, UserKeysMax: b.cfg.KeysUserMax, RecordKeysMax: b.cfg.KeysRecordMax})
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return svc, nc, nil
}
