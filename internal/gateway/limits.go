package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolstream/toolstream/events"
)

// What one client may hold of a gateway (a careless or
// hostile client must never take the process down).
const (
	// DefaultKeyRequestsMax bounds the requests of one key under way at
	// once, counting the work that outlives a client (an upstream read, a
	// run's drive) until it ends.
	DefaultKeyRequestsMax = 64
	// DefaultRequestsMax bounds every key's requests under way at once, so
	// upstream connections and goroutines stay bounded however many keys
	// there are.
	DefaultRequestsMax = 4096
	// DefaultBodyReadTimeout bounds the reading of a request's body, from
	// the handler's start: a body that never arrives frees its connection.
	DefaultBodyReadTimeout = 30 * time.Second
	// RetryAfter is the Retry-After (seconds) of a refused request.
	RetryAfter = 1
)

var (
	// errKeyBusy: the key has KeyRequestsMax requests under way.
	errKeyBusy = errors.New("gateway: too many requests under way for this key")
	// errBusy: the gateway has RequestsMax requests under way.
	errBusy = errors.New("gateway: too many requests under way")
	// errInternal is the answer of a request whose handling panicked.
	errInternal = errors.New("gateway: internal error")
)

// limiter counts the requests under way, per key and in all.
type limiter struct {
	keyMax, max int

	mu    sync.Mutex
	total int            // guarded by mu
	byKey map[string]int // guarded by mu; keys with none are removed
}

func newLimiter(keyMax, max int) *limiter {
	return &limiter{keyMax: keyMax, max: max, byKey: map[string]int{}}
}

// acquire takes a slot for a request of key; errKeyBusy or errBusy when
// none is free. The slot is the caller's (one reference) until released.
func (l *limiter) acquire(key string) (*slot, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byKey[key] >= l.keyMax {
		return nil, errKeyBusy
	}
	if l.total >= l.max {
		return nil, errBusy
	}
	l.byKey[key]++
	l.total++
	s := &slot{l: l, key: key}
	s.refs.Store(1)
	return s, nil
}

// slot is one request's place in the limiter, held until every reference
// to it was released: the handler's, and one per piece of work it handed
// to a goroutine that outlives it (detach).
type slot struct {
	l    *limiter
	key  string
	refs atomic.Int32
}

// detach adds a reference for work that outlives the handler and returns
// its release, which may be called more than once. A nil slot detaches
// nothing.
func (s *slot) detach() (release func()) {
	if s == nil {
		return func() {}
	}
	s.refs.Add(1)
	var once sync.Once
	return func() { once.Do(s.release) }
}

// release drops one reference; the last frees the slot.
func (s *slot) release() {
	if s == nil || s.refs.Add(-1) != 0 {
		return
	}
	s.l.mu.Lock()
	defer s.l.mu.Unlock()
	s.l.total--
	if s.l.byKey[s.key]--; s.l.byKey[s.key] <= 0 {
		delete(s.l.byKey, s.key)
	}
}

// writeBusy answers a request refused by the limiter: 429 for its key's
// bound, 503 for the gateway's, in api's shape with Retry-After.
func writeBusy(w http.ResponseWriter, api API, err error) {
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfter))
	status := http.StatusTooManyRequests
	msg := "Too many requests under way for this API key (Toolstream gateway); retry after the ones under way end."
	if errors.Is(err, errBusy) {
		status = http.StatusServiceUnavailable
		msg = "The Toolstream gateway is overloaded; retry shortly."
	}
	WriteError(w, api, status, msg)
}

// panics counts the panics recovered in the gateway's handlers and the
// goroutines they start, in this process.
var panics atomic.Int64

// Panics returns how many panics the gateway recovered in this process:
// each is a bug, logged with its stack, that ended one request and
// nothing else.
func Panics() int64 { return panics.Load() }

// recoverPanic, deferred, stops a panic of the goroutine it runs in,
// logs it with its stack (to log, else slog's default) and counts it. It
// returns nothing: a caller that must answer after a panic sets its
// answer before and clears it after the work.
func recoverPanic(log *slog.Logger, where string, attrs ...any) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler { //nolint:errorlint // the sentinel net/http panics with, compared as it does
		return // net/http's own way to abort a response: not a bug
	}
	panics.Add(1)
	if log == nil {
		log = slog.Default()
	}
	log.Error("gateway panic recovered", append(attrs, "where", where, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))...)
}

// scopedID is the name under which an id a client picks (a run) or an
// upstream gives (a response) is kept for a user of a tenant: the same id
// of two users never names one thing. For a user it is
// the user's subject token, a '.', then the id; without a user the id
// itself, or '.' and the id when it holds a '.'. The three forms never
// meet (a token is never empty and holds no '.'), so the mapping is one
// to one.
func scopedID(user, id string) string {
	if user != "" {
		return events.Token(user) + "." + id
	}
	for i := 0; i < len(id); i++ {
		if id[i] == '.' {
			return "." + id
		}
	}
	return id
}

// RunID is the run a gateway request naming run (Toolstream-Run) belongs
// to for user: the run's id in the log, the runs view and the leases. A
// key bound to a user reaches only the runs of that user; one user's run
// "trip" is not another's.
func RunID(user, run string) string { return scopedID(user, run) }
