package bustest

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

// Flood is n requests a client sent at once, each with a reply subject of
// its own under one of its inboxes, and the answers heard so far.
type Flood struct {
	n        int
	mu       sync.Mutex
	answered map[string]int // by the reply's micro error code, "" for none
	all      chan struct{}
}

// SendFlood publishes n requests on subject from nc, the i-th with body(i),
// without waiting for any answer, and returns once the server has them all.
func SendFlood(t testing.TB, nc *nats.Conn, subject string, n int, body func(i int) []byte) *Flood {
	t.Helper()
	f := &Flood{n: n, answered: map[string]int{}, all: make(chan struct{})}
	inbox := nc.NewInbox()
	sub, err := nc.Subscribe(inbox+".*", func(m *nats.Msg) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.answered[m.Header.Get(micro.ErrorCodeHeader)]++
		sum := 0
		for _, c := range f.answered {
			sum += c
		}
		if sum == f.n {
			close(f.all)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := nc.PublishRequest(subject, fmt.Sprintf("%s.%d", inbox, i), body(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return f
}

// Answered is how many of the requests were answered so far.
func (f *Flood) Answered() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	sum := 0
	for _, c := range f.answered {
		sum += c
	}
	return sum
}

// Wait waits until every request was answered and returns the answers by
// error code ("" for an answer that is not an error).
func (f *Flood) Wait(ctx context.Context, t testing.TB) map[string]int {
	t.Helper()
	select {
	case <-f.all:
	case <-ctx.Done():
		f.mu.Lock()
		defer f.mu.Unlock()
		t.Fatalf("bustest: a flood of %d requests: answered %v", f.n, f.answered)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.answered)
}

// CountRequests counts the requests the server carries on subject from
// now until t ends (a plain subscription of nc, which must be allowed to subscribe
// to it, sees each one: a request asked again is counted again).
func CountRequests(t testing.TB, nc *nats.Conn, subject string) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	sub, err := nc.Subscribe(subject, func(*nats.Msg) { n.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return &n
}
