// Package lanes answers a service's requests in lanes: a lane answers its
// requests in the order they came, one at a time, and lanes run side by
// side. A micro endpoint is one subscription whose handler nats.go calls
// for one message at a time, so a service whose endpoint serves every
// tenant puts each tenant's requests behind every other's: one tenant asking
// as fast as it can (each answer a round trip to the server) held up the
// rest. A service that names a lane per tenant (and verb) keeps a flood in
// the tenant's own lane; past a lane's bound, or the service's, a request is
// refused at once, so a flood holds a bounded amount of memory.
package lanes

import "sync"

// Lanes runs each lane's work in order, on a goroutine of its own while the
// lane has any. The zero value is not usable: make one with New.
type Lanes struct {
	laneMax, queuedMax int

	mu     sync.Mutex
	queued int
	lane   map[string][]func()
}

// New returns lanes of at most laneMax requests waiting in one lane and
// queuedMax in all together.
func New(laneMax, queuedMax int) *Lanes {
	return &Lanes{laneMax: laneMax, queuedMax: queuedMax, lane: map[string][]func(){}}
}

// Submit queues f on the lane named key and reports whether it was taken
// (false: the lane or the whole is full, and f never runs).
func (l *Lanes) Submit(key string, f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	q, running := l.lane[key]
	if len(q) >= l.laneMax || l.queued >= l.queuedMax {
		return false
	}
	l.lane[key] = append(q, f)
	l.queued++
	if !running {
		go l.run(key)
	}
	return true
}

// run answers the lane's work until it is empty, then drops the lane.
func (l *Lanes) run(key string) {
	for {
		l.mu.Lock()
		q := l.lane[key]
		if len(q) == 0 {
			delete(l.lane, key)
			l.mu.Unlock()
			return
		}
		f := q[0]
		q[0] = nil
		l.lane[key] = q[1:]
		l.mu.Unlock()
		f()
		l.mu.Lock()
		l.queued--
		l.mu.Unlock()
	}
}
