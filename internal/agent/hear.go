package agent

import (
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// A drive waits on the log by hearing a subject: the runs projection's
// events of the run, the verifier's verdict on the answer. A core
// subscriber is handed a message when the server routes it, which can be
// before the stream behind the subject has stored it (JetStream stores
// from its own queue), so the read a wake-up asks for may not find what
// woke it yet. A wake-up is therefore followed by rechecks at
// hearRecheckFirst, then each hearRecheckFactor times later, up to
// hearRecheckLast after the last message: the read that follows a
// message always comes after it is stored, whatever the poll, and a quiet
// subject costs nothing.
const (
	hearRecheckFirst  = 2 * time.Millisecond
	hearRecheckFactor = 4
	hearRecheckLast   = 600 * time.Millisecond
)

// hearing wakes C on each message on its subject (coalesced: one pending
// wake-up is as good as many) and on the rechecks that follow it.
type hearing struct {
	sub *nats.Subscription
	c   chan struct{}

	mu     sync.Mutex
	gen    uint64 // the last message's; a recheck of an older one stops
	closed bool
}

// hear subscribes to subject on nc and flushes, so the server has the
// interest before the caller's first read (which may go over another
// connection): a message stored after that read is heard. A flush that
// fails leaves the caller's poll to find it.
func hear(nc *nats.Conn, subject string, flushWait time.Duration) (*hearing, error) {
	h := &hearing{c: make(chan struct{}, 1)}
	sub, err := nc.Subscribe(subject, func(*nats.Msg) { h.heard() })
	if err != nil {
		return nil, err
	}
	h.sub = sub
	_ = nc.FlushTimeout(flushWait)
	return h, nil
}

// C is woken by a message and its rechecks.
func (h *hearing) C() <-chan struct{} { return h.c }

// Close unsubscribes and stops the rechecks.
func (h *hearing) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	_ = h.sub.Unsubscribe()
}

func (h *hearing) wake() {
	select {
	case h.c <- struct{}{}:
	default:
	}
}

func (h *hearing) heard() {
	h.mu.Lock()
	h.gen++
	g := h.gen
	h.mu.Unlock()
	h.wake()
	h.recheck(g, hearRecheckFirst)
}

// recheck wakes C after d, then again at hearRecheckFactor times d, while
// no newer message came (its own rechecks take over) and up to
// hearRecheckLast.
func (h *hearing) recheck(g uint64, d time.Duration) {
	if d > hearRecheckLast {
		return
	}
	time.AfterFunc(d, func() {
		h.mu.Lock()
		current := h.gen == g && !h.closed
		h.mu.Unlock()
		if !current {
			return
		}
		h.wake()
		h.recheck(g, d*hearRecheckFactor)
	})
}
