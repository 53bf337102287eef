package stack

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// The HTTP servers of a stack (gateway, console, metrics) hold at most a
// bounded number of connections open at once, a share of the process's
// descriptor limit (20,000 connections whose bodies never
// arrived took every descriptor, and the embedded NATS server and
// JetStream's file store, which need them too, stopped accepting and
// writing until a restart). What they leave is the log's: its clients,
// its stream files, Pebble's.

// Connection caps by default, as shares of the descriptor limit (noFile):
// the gateway's connections (each may hold an upstream connection too, and
// its requests under way, which the cap also bounds, one each), the
// console's and metrics'. Together they take at most about a third.
const (
	gatewayConnsShare = 8  // 1/8 of the descriptors, and as many upstream
	consoleConnsShare = 32 // 1/32
	metricsConnsMax   = 32
	connsFloor        = 16
	gatewayConnsCeil  = 16384
	consoleConnsCeil  = 1024
)

// GatewayConnsMax is the gateway's connection cap by default for a
// process allowed noFile descriptors.
func GatewayConnsMax(noFile uint64) int {
	return capOf(noFile/gatewayConnsShare, gatewayConnsCeil)
}

// ConsoleConnsMax is the console's connection cap for a process allowed
// noFile descriptors.
func ConsoleConnsMax(noFile uint64) int {
	return capOf(noFile/consoleConnsShare, consoleConnsCeil)
}

func capOf(n uint64, ceil int) int {
	return int(min(max(n, connsFloor), uint64(ceil)))
}

// Server timeouts and bounds shared by the stack's HTTP servers. No
// ReadTimeout: net/http leaves it as a read deadline on the connection
// while the handler runs, which ends a long stream's request context; the
// gateway bounds a body's reading itself (gateway.Limits.BodyReadTimeout).
const (
	ReadHeaderTimeout = 10 * time.Second
	IdleTimeout       = 2 * time.Minute
	MaxHeaderBytes    = 64 << 10
)

// limitListener accepts connections while fewer than max are open; one
// over the cap is closed at once (after a plain 503 when busy is set, for
// a listener that speaks HTTP in the clear), so it holds a descriptor only
// for that moment. Safe for concurrent use.
type limitListener struct {
	net.Listener
	sem     chan struct{}
	busy    []byte // written to a refused connection; nil: closed only
	log     *slog.Logger
	what    string
	refused atomic.Int64
}

var busyHTTP = []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 22\r\n\r\ntoo many connections.\n")

// limitListen bounds ln to max connections open at once.
func limitListen(ln net.Listener, max int, answer bool, log *slog.Logger, what string) *limitListener {
	l := &limitListener{Listener: ln, sem: make(chan struct{}, max), log: log, what: what}
	if answer {
		l.busy = busyHTTP
	}
	return l
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.sem <- struct{}{}:
			return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.sem })}, nil
		default:
		}
		if n := l.refused.Add(1); n&(n-1) == 0 { // 1, 2, 4, 8…: the log is not flooded
			l.log.Warn("connection refused: too many open", "server", l.what, "max", cap(l.sem), "refused", n)
		}
		if l.busy != nil {
			c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
			c.Write(l.busy)
		}
		c.Close()
	}
}

// limitConn gives its place back once closed.
type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
