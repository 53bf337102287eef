package hear

import (
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// A core subscriber is handed a message when the server routes it, which
// can be before the stream behind the subject has stored it (JetStream
// stores from its own queue), so the read a wake-up asks for may not find
// what woke it yet. A wake-up is therefore followed by rechecks
// RecheckFirst after the message, then each RecheckFactor times the
// previous delay later while that delay is at most RecheckLast (2, 8, 32,
// 128 and 512 ms: the last about 0.7 s after the message). A store that
// takes longer than that is left to the caller's poll.
const (
	RecheckFirst  = 2 * time.Millisecond
	RecheckFactor = 4
	RecheckLast   = 600 * time.Millisecond
)

// Hearing wakes C on each message on its subject (coalesced: one pending
// wake-up is as good as many) and on the rechecks that follow it.
type Hearing struct {
	sub *nats.Subscription
	c   chan struct{}

	mu     sync.Mutex
	gen    uint64 // the last message's; a recheck of an older one stops
	closed bool
}

// Subject subscribes to subject on nc and flushes, so the server has the
// interest before the caller's first read (which may go over another
// connection): a message stored after that read is heard. A flush that
// fails leaves the caller's poll to find it.
func Subject(nc *nats.Conn, subject string, flushWait time.Duration) (*Hearing, error) {
	h := &Hearing{c: make(chan struct{}, 1)}
	sub, err := nc.Subscribe(subject, func(*nats.Msg) { h.heard() })
	if err != nil {
		return nil, err
	}
	h.sub = sub
	_ = nc.FlushTimeout(flushWait)
	return h, nil
}

// C is woken by a message and its rechecks.
func (h *Hearing) C() <-chan struct{} { return h.c }

// Close unsubscribes and stops the rechecks.
func (h *Hearing) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	_ = h.sub.Unsubscribe()
}

func (h *Hearing) wake() {
	select {
	case h.c <- struct{}{}:
	default:
	}
}

func (h *Hearing) heard() {
	h.mu.Lock()
	h.gen++
	g := h.gen
	h.mu.Unlock()
	h.wake()
	h.recheck(g, RecheckFirst)
}

// recheck wakes C after d, then again at RecheckFactor times d, while
// no newer message came (its own rechecks take over) and up to
// RecheckLast.
func (h *Hearing) recheck(g uint64, d time.Duration) {
	if d > RecheckLast {
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
		h.recheck(g, d*RecheckFactor)
	})
}
