package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
)

// tenantKinds are the kinds of subject whose tenants the error of a
// tenant with nothing on the log names: the tenants' ingress (requests,
// provider streams and their sealed copies), model events and memory.
var tenantKinds = []string{"in", "raw", "model", "mem"}

// tenantHas reports whether a stream of the log holds any subject of
// tenant (ts.<kind>.<tenant>.…): one message lookup a stream, however
// large the log.
func tenantHas(ctx context.Context, js jetstream.JetStream, tenant string) (bool, error) {
	for _, name := range events.Streams {
		s, err := js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		_, err = s.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(events.SubjectPrefix+".*."+tenant+".>"))
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, jetstream.ErrMsgNotFound) {
			return false, err
		}
	}
	return false, nil
}

// tenantOnLog checks, before a command lists what tenant has, that the log
// holds anything of tenant's: `calls --tenant acmee` listed nothing and
// exited 0, silently (review rev14). When the log holds other tenants'
// events and none of tenant's, it says so on stderr, naming the tenants
// that have some, and the command goes on (an empty listing, exit 0 as
// before: a tenant given credentials but nothing yet is no mistake, and
// scripts that poll a listing keep working). An empty log says nothing.
// When conn's identity may not list the log's tenants (a producer's
// --creds: the server keeps other tenants from it) or the listing fails,
// nothing is said either. conn is the command's own connection.
func (g *globals) tenantOnLog(ctx context.Context, log *slog.Logger, conn *nats.Conn, tenant string, follow bool) {
	js, err := jetstream.New(conn)
	if err != nil {
		return
	}
	if ok, err := tenantHas(ctx, js, tenant); ok || err != nil {
		if err != nil {
			log.Debug("the log not asked for the tenant", "err", err)
		}
		return
	}
	have, err := bus.TenantsOf(ctx, js, tenantKinds...)
	if err != nil || len(have) == 0 {
		if err != nil {
			log.Debug("the log's tenants not listed", "err", err)
		}
		return
	}
	then := ""
	if follow {
		then = "; following what comes"
	}
	fmt.Fprintf(g.stderr, "tenant %s has nothing on the log (tenants on the log: %s)%s\n", tenant, strings.Join(have, ", "), then)
}

// checkTenant is tenantOnLog for a command whose own connection is a
// tenant's producer (runs, history), which may not list the log's
// tenants: asked as a reader (neither connection makes a mistyped
// tenant's ingress stream: readClient).
func (g *globals) checkTenant(ctx context.Context, tenant string, follow bool) error {
	log, err := g.logger()
	if err != nil {
		return err
	}
	c, done, err := g.client(ctx, log, asReader)
	if err != nil {
		log.Debug("the log's tenants not listed", "err", err)
		return nil
	}
	defer done()
	g.tenantOnLog(ctx, log, c.Conn(), tenant, follow)
	return nil
}
