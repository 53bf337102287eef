package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats.go"
)

// ProducerConnsMax bounds the connections a tenant's producer holds at
// once, all its creds together: NATS has no connection limit per user
// (only per account, and every role shares the log's account; the
// server's max_connections is global, so a tenant that reached it would
// lock every role out). ConnGuard holds it: it disconnects a producer's
// connection past it. A producer program needs a few; 64 leave room for
// a pool per process of several processes.
const ProducerConnsMax = 64

// Connection events and the kick request of nats-server's system account.
const (
	connectEvent    = "$SYS.ACCOUNT.%s.CONNECT"
	disconnectEvent = "$SYS.ACCOUNT.%s.DISCONNECT"
	kickRequest     = "$SYS.REQ.SERVER.%s.KICK"
	kickWaitMax     = 2 * time.Second // a server's answer to a kick
)

// connEvent is what ConnGuard reads of a connect or disconnect event.
type connEvent struct {
	Server struct {
		ID string `json:"id"`
	} `json:"server"`
	Client struct {
		ID  uint64 `json:"id"`
		JWT string `json:"jwt"` // the user's, as the server verified it
	} `json:"client"`
}

// connRef names one client connection of a cluster.
type connRef struct {
	server string
	cid    uint64
}

// ConnGuard bounds the connections each tenant's producer holds at once
// (ProducerConnsMax) by the server's own events: it hears every
// connection of the log's account come and go on sys, a connection of
// the system account (RoleSys), and asks the server that took a
// producer's connection past the bound to close it (the newest goes, the
// ones in use stay). It runs until ctx ends. A producer's connections
// open when it starts are not counted (the bound holds from its start).
type ConnGuard struct {
	nc      *nats.Conn
	account string
	max     int
	log     *slog.Logger

	mu    sync.Mutex
	conns map[string]map[connRef]struct{} // by identity name (the user JWT's)
	kicks int
}

// NewConnGuard returns a guard over the connections of account (the log's
// account's public key) heard on sys; max 0 is ProducerConnsMax.
func NewConnGuard(sys *nats.Conn, account string, max int, log *slog.Logger) *ConnGuard {
	if max <= 0 {
		max = ProducerConnsMax
	}
	if log == nil {
		log = slog.Default()
	}
	return &ConnGuard{nc: sys, account: account, max: max, log: log, conns: map[string]map[connRef]struct{}{}}
}

// Run subscribes to the account's connection events and holds the bound
// until ctx ends.
func (g *ConnGuard) Run(ctx context.Context) error {
	msgs := make(chan *nats.Msg, 1024)
	for _, f := range []string{connectEvent, disconnectEvent} {
		sub, err := g.nc.ChanSubscribe(fmt.Sprintf(f, g.account), msgs)
		if err != nil {
			return fmt.Errorf("auth: connection guard: %w", err)
		}
		defer sub.Unsubscribe()
	}
	if err := g.nc.Flush(); err != nil {
		return fmt.Errorf("auth: connection guard: %w", err)
	}
	connect := fmt.Sprintf(connectEvent, g.account)
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-msgs:
			g.apply(ctx, m.Subject == connect, m.Data)
		}
	}
}

// apply counts one event, and closes a producer's connection past the bound.
func (g *ConnGuard) apply(ctx context.Context, connected bool, data []byte) {
	var ev connEvent
	if err := json.Unmarshal(data, &ev); err != nil || ev.Client.JWT == "" {
		return
	}
	uc, err := jwt.DecodeUserClaims(ev.Client.JWT)
	if err != nil {
		return
	}
	id, err := parseIdentity(uc.Name)
	if err != nil || id.Role != RoleProducer {
		return
	}
	name := id.String()
	ref := connRef{ev.Server.ID, ev.Client.ID}
	g.mu.Lock()
	set := g.conns[name]
	if !connected {
		delete(set, ref)
		if len(set) == 0 {
			delete(g.conns, name)
		}
		g.mu.Unlock()
		return
	}
	if set == nil {
		set = map[connRef]struct{}{}
		g.conns[name] = set
	}
	over := len(set) >= g.max
	if !over {
		set[ref] = struct{}{}
	} else {
		g.kicks++
	}
	g.mu.Unlock()
	if !over {
		return
	}
	g.log.Warn("a producer's connection past its bound is closed", "identity", name, "max", g.max, "server", ref.server, "cid", ref.cid)
	req, _ := json.Marshal(map[string]uint64{"cid": ref.cid})
	kctx, cancel := context.WithTimeout(ctx, kickWaitMax)
	defer cancel()
	if _, err := g.nc.RequestWithContext(kctx, fmt.Sprintf(kickRequest, ref.server), req); err != nil {
		g.log.Warn("connection guard: kick", "identity", name, "cid", ref.cid, "err", err)
	}
}

// Kicks is how many connections the guard has closed.
func (g *ConnGuard) Kicks() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.kicks
}
