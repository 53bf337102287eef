package console_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/console"
)

// TestAttackIdleConnectionsAndHugeHeadersAreBounded (atk13's finding):
// whoever reaches the console's port, with no token at all, may open
// connections, send one request each and leave them idle; without an idle
// bound they hold the listener's places (stack.ConsoleConnsMax) for ever.
// Through Serve on a real listener: a kept-alive connection idle past
// IdleTimeout is closed by the server, and headers past MaxHeaderBytes are
// 431, not read.
func TestAttackIdleConnectionsAndHugeHeadersAreBounded(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := console.New(console.Config{Bus: b, Key: testKey, IdleTimeout: 300 * time.Millisecond, MaxHeaderBytes: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- c.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()

	ask := func(t *testing.T, extra string) (net.Conn, *http.Response) {
		t.Helper()
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		if _, err := io.WriteString(conn, "GET /signin HTTP/1.1\r\nHost: console\r\n"+extra+"\r\n"); err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return conn, res
	}

	t.Run("idle", func(t *testing.T) {
		conn, res := ask(t, "")
		if res.Close {
			t.Fatalf("the server closed a plain request's connection (%s): nothing to bound", res.Status)
		}
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := conn.Read(make([]byte, 1))
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("a connection idle 5 s past IdleTimeout (300 ms) is still open")
		}
		if err == nil || n > 0 {
			t.Fatalf("read %d bytes on an idle connection, err %v; want it closed", n, err)
		}
	})
	t.Run("headers", func(t *testing.T) {
		_, res := ask(t, "X-Pad: "+strings.Repeat("a", 64<<10)+"\r\n")
		if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("64 KiB of headers against MaxHeaderBytes 8 KiB: %s, want 431", res.Status)
		}
	})
}
