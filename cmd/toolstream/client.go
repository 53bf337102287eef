package main

import (
	"context"
	"log/slog"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/auth"
)

// client connects to the running server as identity id, the least role
// the command needs (dial: --nats-url, else --listen, else the address
// serve recorded in --data, else the default; never a server of its own).
// close ends the connection.
func (g *globals) client(ctx context.Context, log *slog.Logger, id auth.Identity) (c *client.Client, close func(), err error) {
	url, nopts, err := g.dial(id)
	if err != nil {
		return nil, nil, err
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
