package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/auth"
)

// client connects to the running server as identity id, the least role
// the command needs (dial: --nats-url, else --listen, else the address
// serve recorded in --data, else the default; never a server of its own).
// close ends the connection.
func (g *globals) client(ctx context.Context, log *slog.Logger, id auth.Identity) (c *client.Client, close func(), err error) {
	return g.clientOf(ctx, log, id, true)
}

// readClient is client for a command that only asks (runs, history) as
// its tenant's producer: it makes no ingress stream and records no
// tenant. A mistyped `runs --tenant acmee` made TS_ING_acmee and wrote
// acmee to --data/auth/tenants, which every later serve made again.
func (g *globals) readClient(ctx context.Context, log *slog.Logger, id auth.Identity) (c *client.Client, close func(), err error) {
	return g.clientOf(ctx, log, id, false)
}

func (g *globals) clientOf(ctx context.Context, log *slog.Logger, id auth.Identity, writes bool) (c *client.Client, close func(), err error) {
	url, nopts, err := g.dial(id)
	if err != nil {
		return nil, nil, err
	}
	if writes && id.Role == auth.RoleProducer && g.creds == "" && g.user == "" {
		// A producer credential issued here from --data's material: its
		// tenant's ingress stream, on a log with per-tenant streams.
		if _, err := g.ensureTenant(ctx, log, id.Tenant); err != nil {
			return nil, nil, fmt.Errorf("tenant %s's ingress stream: %w", id.Tenant, err)
		}
	}
	opts := []client.Option{client.WithLogger(log), client.WithName("toolstream"), client.WithNATSOptions(nopts...), client.WithURL(url)}
	if k := g.msgIDKey(); k != nil {
		opts = append(opts, client.WithMsgIDKey(k))
	}
	c, err = client.Connect(ctx, opts...)
	if err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}
