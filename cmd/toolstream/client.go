package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/client"
)

// clientOptions are the flags' connection options as package client
// takes them: --creds, else --nats-user/--nats-password, else the operator
// of the material in --data/auth when there is one; and --tls-ca.
func (g *globals) clientOptions(log *slog.Logger) ([]client.Option, error) {
	nopts, err := g.natsOptions()
	if err != nil {
		return nil, err
	}
	return []client.Option{client.WithLogger(log), client.WithName("toolstream"), client.WithNATSOptions(nopts...)}, nil
}

// client connects to a running server as connect does: --nats-url, else
// the embedded server of a running serve at --listen, as the identity the
// flags name; if none answers, it starts the embedded server on --data
// itself (offline) and the client works over its connection. close ends
// both.
func (g *globals) client(ctx context.Context, log *slog.Logger) (c *client.Client, close func(), err error) {
	opts, err := g.clientOptions(log)
	if err != nil {
		return nil, nil, err
	}
	url := g.natsURL
	if url == "" {
		url = "nats://" + g.listen
		if g.tlsCA != "" {
			url = "tls://" + g.listen
		}
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		c, err = client.Connect(pctx, append(opts, client.WithURL(url), client.WithNATSOptions(nats.MaxReconnects(0)))...)
		cancel()
		switch {
		case errors.Is(err, client.ErrPermissionDenied):
			return nil, nil, fmt.Errorf("the server at %s refused this command's identity (%w): run it with the --data of that serve, "+
				"or give --creds (toolstream creds ROLE --out FILE)", g.listen, err)
		case err != nil: // no server: work offline
			b, err := g.openEmbedded(ctx, log, g.data, "127.0.0.1:-1")
			if err != nil {
				return nil, nil, err
			}
			c, err := client.Connect(ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys), client.WithLogger(log))
			if err != nil {
				b.Close()
				return nil, nil, err
			}
			return c, func() { c.Close(); b.Close() }, nil
		}
		c.Close()
	}
	c, err = client.Connect(ctx, append(opts, client.WithURL(url))...)
	if err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}
