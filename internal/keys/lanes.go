package keys

import "sync"

// The service's requests are answered in lanes, one per verb and tenant
// (the tenant is the subject's last token): a lane answers its requests in
// the order they came, one at a time, as each endpoint did before, and
// lanes run side by side. A micro endpoint is one subscription whose
// handler nats.go calls for one message at a time, so when every tenant's
// requests shared it, a producer asking for keys as fast as it could (each
// answer a round trip to the bucket) put every other tenant's requests
// behind its own: globex's producer waited for acme's thousands of keys.
// Now a tenant's flood fills its own lane; one past LaneMax waiting is
// refused at once (CodeBusy), and past QueuedMax waiting in all lanes
// together, so a flood holds a bounded amount of memory.
const (
	// LaneMax bounds the requests waiting in one lane.
	LaneMax = 256
	// QueuedMax bounds the requests waiting in all lanes together.
	QueuedMax = 8192
)

// lanes runs each lane's work in order, on a goroutine of its own while
// the lane has any.
type lanes struct {
	mu     sync.Mutex
	queued int
	lane   map[string][]func()
}

func newLanes() *lanes { return &lanes{lane: map[string][]func(){}} }

// submit queues f on the lane named key and reports whether it was taken
// (false: the lane or the service is full, f never runs).
func (l *lanes) submit(key string, f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	q, running := l.lane[key]
	if len(q) >= LaneMax || l.queued >= QueuedMax {
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
func (l *lanes) run(key string) {
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
