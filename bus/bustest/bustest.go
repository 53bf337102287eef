// Package bustest starts a real embedded nats-server with JetStream for
// tests: file storage in a temporary directory, a free loopback port, so
// child processes can connect too.
package bustest

import (
	"context"
	"testing"

	"github.com/toolstream/toolstream/bus"
)

// Start opens a Bus on an embedded server and closes it when t ends.
func Start(t testing.TB) *bus.Bus {
	t.Helper()
	return StartIn(t, t.TempDir())
}

// StartIn is Start with a chosen data directory.
func StartIn(t testing.TB, dir string) *bus.Bus {
	t.Helper()
	b, err := bus.Open(context.Background(), bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Name: "test"})
	if err != nil {
		t.Fatalf("bustest: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
