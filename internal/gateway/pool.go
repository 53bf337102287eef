package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolstream/toolstream/internal/lanes"
)

// The upstream pool: several upstreams serve one model, each
// with a weight; a request that fails before the client has a byte of
// its answer is retried, on another upstream when there is one; an
// upstream that keeps failing is left alone for a while (circuit
// breaking).
//
// A request's candidates are the upstreams of its API's kind that serve
// its model (Pool.Models; none listed: every model), or only the one its
// model's "upstream-name/" prefix or Call.Upstream names. The first
// attempt goes to one of them drawn by weight; a retry goes to one not
// yet tried, drawn by weight, else to the same one after a backoff. An
// attempt fails, and may be retried, when the upstream cannot be reached,
// answers 429, 408 or 5xx (not 501), says nothing within its
// first_byte_timeout (a stream: until its first event) or timeout (an
// answer that is not a stream: until its end), or ends a stream before its
// first event. Nothing of a failed attempt reaches the client: a stream's
// status and headers are handed on with its first event, so once the
// client has a byte the request is never retried; a stream that breaks
// or goes quiet (idle_timeout) afterwards ends, as it would have.
//
// A 429's Retry-After (or retry-after-ms) cools that upstream for every
// request until it passes; a retry on it waits at least that long, and
// longer than Routing.RetryAfterMax is not waited for: the 429 reaches the
// client as the upstream sent it. BreakerFailures consecutive failures
// (429 is not one) open the upstream's circuit for BreakerCooldown; then
// one request probes it (half-open): success closes it, failure opens it
// again. With every candidate open or cooling past RetryAfterMax a
// request gets 503 in its provider's shape with Retry-After, and nothing
// is sent upstream.
//
// Falling back to an upstream of another provider (converting the
// request) is not done: a pool holds upstreams of one kind.

// Pool is an upstream's place in the pools of the models it serves
// (Upstream.Models); zero values are the defaults.
type Pool struct {
	// Weight is its share of the first attempts among the upstreams
	// serving a model (default 1).
	Weight int `yaml:"weight"`
	// FirstByteTimeout bounds the wait for a stream's first event, from
	// the request (DefaultFirstByteTimeout); IdleTimeout the wait for each
	// later event (DefaultIdleTimeout); Timeout the wait for an answer
	// that is not a stream, whole (DefaultTimeout).
	FirstByteTimeout time.Duration `yaml:"first_byte_timeout"`
	IdleTimeout      time.Duration `yaml:"idle_timeout"`
	Timeout          time.Duration `yaml:"timeout"`
}

// Routing is how requests are retried and moved between upstreams; zero
// values are the defaults.
type Routing struct {
	// Retries is how many attempts may follow the first (DefaultRetries;
	// 0 is none: write it, the default applies only when it is absent).
	Retries *int `yaml:"retries"`
	// Backoff is the first retry's wait on the same upstream, doubled for
	// each later one up to BackoffMax, drawn at random below it (full
	// jitter): DefaultBackoff, DefaultBackoffMax.
	Backoff    time.Duration `yaml:"backoff"`
	BackoffMax time.Duration `yaml:"backoff_max"`
	// RetryAfterMax is the longest Retry-After a retry waits for
	// (DefaultRetryAfterMax).
	RetryAfterMax time.Duration `yaml:"retry_after_max"`
	// BreakerFailures consecutive failures open an upstream's circuit
	// (DefaultBreakerFailures) for BreakerCooldown (DefaultBreakerCooldown).
	BreakerFailures int           `yaml:"breaker_failures"`
	BreakerCooldown time.Duration `yaml:"breaker_cooldown"`
}

// Defaults of Pool and Routing.
const (
	// A reasoning model may think for minutes before a Chat stream's
	// first chunk, or between two events of a Responses stream: the
	// defaults leave it that (a retry would pay for the thinking again).
	DefaultFirstByteTimeout = 2 * time.Minute
	DefaultIdleTimeout      = 5 * time.Minute
	DefaultTimeout          = 10 * time.Minute
	DefaultRetries          = 2
	DefaultBackoff          = 250 * time.Millisecond
	DefaultBackoffMax       = 5 * time.Second
	DefaultRetryAfterMax    = 30 * time.Second
	DefaultBreakerFailures  = 5
	DefaultBreakerCooldown  = 30 * time.Second
)

// withDefaults returns r with every unset field at its default.
func (r Routing) withDefaults() Routing {
	if r.Retries == nil {
		n := DefaultRetries
		r.Retries = &n
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&r.Backoff, DefaultBackoff)
	def(&r.BackoffMax, DefaultBackoffMax)
	def(&r.RetryAfterMax, DefaultRetryAfterMax)
	def(&r.BreakerCooldown, DefaultBreakerCooldown)
	if r.BreakerFailures <= 0 {
		r.BreakerFailures = DefaultBreakerFailures
	}
	return r
}

func (p Pool) withDefaults() Pool {
	if p.Weight <= 0 {
		p.Weight = 1
	}
	if p.FirstByteTimeout <= 0 {
		p.FirstByteTimeout = DefaultFirstByteTimeout
	}
	if p.IdleTimeout <= 0 {
		p.IdleTimeout = DefaultIdleTimeout
	}
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	return p
}

// validatePool returns ErrConfig for pool or routing settings the gateway
// cannot use.
func (f *File) validatePool() error {
	for _, u := range f.Upstreams {
		p := u.Pool
		if p.Weight < 0 || p.FirstByteTimeout < 0 || p.IdleTimeout < 0 || p.Timeout < 0 {
			return fmt.Errorf("%w: upstream %q: weight and timeouts may not be negative", ErrConfig, u.Name)
		}
		for _, m := range u.Models {
			if m == "" || strings.Contains(strings.TrimSuffix(m, "*"), "*") {
				return fmt.Errorf("%w: upstream %q: model %q (a name, or a prefix ending in '*')", ErrConfig, u.Name, m)
			}
		}
	}
	r := f.Routing
	if r.Retries != nil && *r.Retries < 0 || r.Backoff < 0 || r.BackoffMax < 0 || r.RetryAfterMax < 0 ||
		r.BreakerFailures < 0 || r.BreakerCooldown < 0 {
		return fmt.Errorf("%w: routing: none may be negative", ErrConfig)
	}
	return nil
}

// serves reports whether u serves model.
func (u *Upstream) serves(model string) bool {
	if len(u.Models) == 0 {
		return true
	}
	for _, m := range u.Models {
		if m == model || strings.HasSuffix(m, "*") && strings.HasPrefix(model, strings.TrimSuffix(m, "*")) {
			return true
		}
	}
	return false
}

// target is where a call may go: its candidates and the body sent.
type target struct {
	ups   []*Upstream
	body  []byte
	model string // the model the upstream is asked for
	// members are the client's body's members (before a model's prefix
	// was taken off), decoded once here for everything that reads the
	// body after: the model, the stream flag, the prompt kept in the log.
	// A decode scans the whole conversation, tens of KiB in an agent's
	// request, and the prompt of a whole answer is read before it is
	// stored, on the client's path.
	members  map[string]json.RawMessage
	streamed bool // the body asks for a stream ("stream": true)
}

// targetOf returns the candidates of a call: the upstream name names (the
// body unchanged), or the one the model's "upstream-name/" prefix names
// (the prefix taken off), or every upstream of the API's kind serving the
// model. ErrBadRequest when there is none.
func (g *Gateway) targetOf(api API, name string, body []byte) (target, error) {
	switch api {
	case APIChat, APIResponses, APIMessages:
	default:
		return target{}, fmt.Errorf("%w: unknown API %q", ErrBadRequest, api)
	}
	up, b, fields, model, err := g.routeOf(api, name, body)
	if err != nil {
		return target{}, err
	}
	var streamed bool
	if raw, ok := fields["stream"]; ok {
		json.Unmarshal(raw, &streamed) // not a bool: not streamed, as before
	}
	if name != "" || !bytes.Equal(b, body) { // named, or picked by the model's prefix
		return target{ups: []*Upstream{up}, body: b, model: model, members: fields, streamed: streamed}, nil
	}
	var ups []*Upstream
	for i := range g.cfg.File.Upstreams {
		if u := &g.cfg.File.Upstreams[i]; u.Kind == api.Kind() && u.serves(model) {
			ups = append(ups, u)
		}
	}
	if len(ups) == 0 {
		return target{}, fmt.Errorf("%w: no %s upstream serves model %q", ErrBadRequest, api.Kind(), model)
	}
	return target{ups: ups, body: b, model: model, members: fields, streamed: streamed}, nil
}

// modelOf is a body's model, "" when it has none.
func modelOf(body []byte) string {
	var p struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &p)
	return p.Model
}

// pool is the state of a gateway's upstreams: their circuits and cooling.
type pool struct {
	routing Routing
	now     func() time.Time

	mu  sync.Mutex
	ups map[string]*upState // by upstream name; guarded by mu
}

// upState is one upstream's circuit; guarded by pool.mu.
type upState struct {
	fails     int       // consecutive failures
	openUntil time.Time // open until then; zero: closed
	probing   bool      // after openUntil: a probe is under way (half-open)
	coolUntil time.Time // a 429's Retry-After
}

func newPool(r Routing, now func() time.Time) *pool {
	return &pool{routing: r.withDefaults(), now: now, ups: map[string]*upState{}}
}

func (p *pool) stateLocked(name string) *upState {
	s := p.ups[name]
	if s == nil {
		s = &upState{}
		p.ups[name] = s
	}
	return s
}

// availableLocked returns when name may be sent a request: zero for now,
// else the time its circuit or cooling allows one (a half-open upstream
// whose probe is under way: its cooldown again from now). open reports
// that its circuit is what keeps it: that is not waited for.
func (p *pool) availableLocked(name string, now time.Time) (at time.Time, open bool) {
	s := p.stateLocked(name)
	if s.coolUntil.After(now) {
		at = s.coolUntil
	}
	if !s.openUntil.IsZero() {
		switch {
		case s.openUntil.After(now):
			at, open = latest(at, s.openUntil), true
		case s.probing:
			at, open = latest(at, now.Add(p.routing.BreakerCooldown)), true
		}
	}
	return at, open
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// next picks the upstream of an attempt among ups: one available now and
// not in tried, drawn by weight; else one available now (a retry on it
// waits backoff); else the one whose 429 cooling ends soonest, within
// RetryAfterMax, waiting until then. An open circuit is never waited
// for. ok is false when none is available; then wait is how long until
// one may be. A half-open upstream picked is its probe.
func (p *pool) next(ups []*Upstream, tried map[string]bool, backoff time.Duration) (up *Upstream, wait time.Duration, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var fresh, again []*Upstream
	var cooling *Upstream
	var coolingAt, soonest time.Time
	for _, u := range ups {
		at, open := p.availableLocked(u.Name, now)
		switch {
		case at.IsZero() && !tried[u.Name]:
			fresh = append(fresh, u)
		case at.IsZero():
			again = append(again, u)
		case !open && (cooling == nil || at.Before(coolingAt)):
			cooling, coolingAt = u, at
		}
		if !at.IsZero() && (soonest.IsZero() || at.Before(soonest)) {
			soonest = at
		}
	}
	switch {
	case len(fresh) > 0:
		up = weighted(fresh)
	case len(again) > 0:
		up, wait = weighted(again), backoff
	case cooling != nil && coolingAt.Sub(now) <= p.routing.RetryAfterMax:
		up, wait = cooling, max(coolingAt.Sub(now), backoff)
	case !soonest.IsZero():
		return nil, soonest.Sub(now), false
	default:
		return nil, 0, false
	}
	if s := p.stateLocked(up.Name); !s.openUntil.IsZero() {
		s.probing = true // half-open: this attempt is the probe
		circuitState.WithLabelValues(up.Name).Set(circuitHalfOpen)
	}
	return up, wait, true
}

// weighted draws one of ups by weight.
func weighted(ups []*Upstream) *Upstream {
	total := 0
	for _, u := range ups {
		total += u.Pool.withDefaults().Weight
	}
	n := rand.IntN(total)
	for _, u := range ups {
		if n -= u.Pool.withDefaults().Weight; n < 0 {
			return u
		}
	}
	return ups[len(ups)-1]
}

// Circuit states, as the gauge toolstream_gateway_upstream_circuit_state
// shows them.
const (
	circuitClosed   = 0
	circuitOpen     = 1
	circuitHalfOpen = 2
)

// succeeded records that name answered: its circuit closes.
func (p *pool) succeeded(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stateLocked(name)
	if !s.openUntil.IsZero() {
		circuitState.WithLabelValues(name).Set(circuitClosed)
	}
	*s = upState{coolUntil: s.coolUntil}
}

// failed records a failure of name: BreakerFailures in a row, or a failed
// probe, open its circuit.
func (p *pool) failed(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stateLocked(name)
	s.fails++
	if s.fails >= p.routing.BreakerFailures || s.probing {
		s.openUntil = p.now().Add(p.routing.BreakerCooldown)
		s.probing = false
		circuitState.WithLabelValues(name).Set(circuitOpen)
		circuitOpened.WithLabelValues(name).Inc()
	}
}

// cool records a 429 of name that asked for retryAfter: no request goes
// to it until then. A probe that got one stays half-open.
func (p *pool) cool(name string, retryAfter time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stateLocked(name)
	s.probing = false
	if until := p.now().Add(retryAfter); until.After(s.coolUntil) {
		s.coolUntil = until
	}
}

// abandon records that an attempt picked for name was not made (its
// caller went away): a probe it was is no longer under way.
func (p *pool) abandon(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stateLocked(name).probing = false
}

// backoff is the wait before the n-th retry (1, 2, …) on an upstream
// already tried: full jitter below Backoff·2^(n-1), at most BackoffMax.
func (p *pool) backoff(n int) time.Duration {
	return lanes.FullJitter(p.routing.Backoff, p.routing.BackoffMax, n)
}

// retryAfter reads an answer's Retry-After: retry-after-ms (OpenAI's),
// else Retry-After in seconds or as an HTTP date. ok is false when there
// is none.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Attempt outcomes, as toolstream_gateway_upstream_attempts_total counts
// them.
const (
	outcomeOK               = "ok"                 // a 2xx answer
	outcomeClientError      = "client_error"       // a 4xx answer but 408 and 429: the request's own fault, passed on
	outcomeRateLimited      = "rate_limited"       // 429
	outcomeServerError      = "server_error"       // 5xx (not 501), 408
	outcomeUnreachable      = "unreachable"        // no answer: connection refused, reset, DNS
	outcomeFirstByteTimeout = "first_byte_timeout" // a stream's first event did not come in time
	outcomeTimeout          = "timeout"            // an answer that is not a stream did not end in time
	outcomeBrokenStream     = "broken_stream"      // a stream ended or failed before its first event, or after it
	outcomeIdleTimeout      = "idle_timeout"       // a stream went quiet past idle_timeout after its first event
)

var (
	errFirstByteTimeout = errors.New("gateway: the upstream sent no first event within its first_byte_timeout")
	errAnswerTimeout    = errors.New("gateway: the upstream's answer did not end within its timeout")
	errIdleTimeout      = errors.New("gateway: the upstream's stream was quiet past its idle_timeout")
)

// served is the attempt whose answer the client gets: its status and
// headers, and either a stream (its first event read) or a whole body.
type served struct {
	up       *Upstream
	attempts int
	status   int
	header   http.Header
	events   *timedEvents // a stream: 200 text/event-stream
	body     []byte       // anything else, whole
	// outcome is the attempt's outcome so far; a stream's is decided at
	// its end (done).
	outcome string
	close   func()
	started time.Time
}

// timedEvents reads a stream's events, its first already read, each later
// one within the upstream's idle timeout.
type timedEvents struct {
	rd        *sseReader
	wait      *beforeWait // its body: what runs before the read waits for the upstream
	first     *[2][]byte  // the first event's name and data, until next returns it
	idle      time.Duration
	timer     *time.Timer
	cause     func() error // the attempt's context's cause
	idleFired bool
}

func (e *timedEvents) next() (string, []byte, error) {
	if f := e.first; f != nil {
		e.first = nil
		return string(f[0]), f[1], nil
	}
	e.timer.Reset(e.idle)
	ev, data, err := e.rd.next()
	e.timer.Stop()
	if err != nil && !errors.Is(err, io.EOF) && errors.Is(e.cause(), errIdleTimeout) {
		e.idleFired = true
		return "", nil, fmt.Errorf("%w: %w", ErrUpstream, errIdleTimeout)
	}
	return ev, data, err
}

// send makes the attempts of a call until one is served (its status and
// first event, or its whole answer) or none may follow; the last failed
// attempt's answer is then served as the upstream sent it, or, when no
// upstream answered, an error in the call's provider shape (502, 504, or
// 503 when every candidate is open or cooling). It returns an error only
// when ctx ends.
func (g *Gateway) send(ctx context.Context, c Call, t target, streamed bool) (*served, error) {
	p, routing := g.pool, g.pool.routing
	tried := map[string]bool{}
	var last *served // the last failed attempt's answer
	var lastErr error
	var prev *Upstream
	for n := 1; ; n++ {
		var up *Upstream
		var wait time.Duration
		ok := false
		if n <= 1+*routing.Retries {
			up, wait, ok = p.next(t.ups, tried, p.backoff(n-1))
		}
		if !ok {
			if last != nil {
				return last, nil
			}
			if lastErr != nil {
				return g.synthesize(c.API, prev, n-1, lastErr), nil
			}
			unavailable.WithLabelValues(string(c.API.Kind())).Inc()
			s := g.synthesize(c.API, nil, 0, errNoUpstream)
			s.header.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
			return s, nil
		}
		if prev != nil {
			reason := last.outcomeOr(lastErr)
			retries.WithLabelValues(prev.Name, reason).Inc()
			if up != prev {
				fallbacks.WithLabelValues(prev.Name, up.Name).Inc()
			}
			g.log.Info("gateway: retrying upstream request", "tenant", c.Env.Tenant, "from", prev.Name, "to", up.Name,
				"attempt", n, "wait", wait, "reason", reason)
		}
		if wait > 0 {
			tm := time.NewTimer(wait)
			select {
			case <-tm.C:
			case <-ctx.Done():
				tm.Stop()
				p.abandon(up.Name)
				return nil, ctx.Err()
			}
		}
		tried[up.Name] = true
		s, err := g.try(ctx, c, up, t.body, streamed)
		if ctx.Err() != nil {
			if s != nil {
				s.close()
			}
			p.abandon(up.Name)
			return nil, ctx.Err()
		}
		if s != nil {
			s.attempts = n
		}
		outcome := s.outcomeOr(err)
		if !retryable(outcome) {
			attempts.WithLabelValues(up.Name, outcome).Inc()
			// It answered (a stream: its first event came); a stream that
			// fails later counts as a failure then (done).
			p.succeeded(up.Name)
			return s, nil
		}
		attempts.WithLabelValues(up.Name, outcome).Inc()
		if outcome == outcomeRateLimited {
			d, ok := retryAfter(s.header, g.cfg.Now())
			if !ok {
				d = p.backoff(n)
			}
			p.cool(up.Name, d)
		} else {
			p.failed(up.Name)
		}
		if last != nil {
			last.close()
		}
		last, lastErr, prev = s, err, up
		if err != nil {
			g.log.Warn("gateway upstream attempt failed", "tenant", c.Env.Tenant, "upstream", up.Name, "attempt", n, "outcome", outcome, "err", err)
		}
	}
}

func (s *served) outcomeOr(err error) string {
	if s != nil {
		return s.outcome
	}
	switch {
	case errors.Is(err, errFirstByteTimeout):
		return outcomeFirstByteTimeout
	case errors.Is(err, errAnswerTimeout):
		return outcomeTimeout
	case errors.Is(err, errBrokenStream):
		return outcomeBrokenStream
	}
	return outcomeUnreachable
}

func retryable(outcome string) bool {
	return outcome != outcomeOK && outcome != outcomeClientError
}

var (
	errNoUpstream   = errors.New("no upstream is available: every one serving this model is failing or rate limited")
	errBrokenStream = errors.New("gateway: the upstream's stream ended before its first event")
)

// synthesize is the answer of a call no upstream answered: 504 after a
// timeout, 503 with none available, else 502, in api's provider shape.
func (g *Gateway) synthesize(api API, up *Upstream, n int, err error) *served {
	status := http.StatusBadGateway
	msg := "The upstream could not be reached"
	switch {
	case errors.Is(err, errNoUpstream):
		status, msg = http.StatusServiceUnavailable, "No upstream is available: every one serving this model is failing or rate limited (Toolstream gateway)."
	case errors.Is(err, errFirstByteTimeout), errors.Is(err, errAnswerTimeout):
		status, msg = http.StatusGatewayTimeout, "The upstream did not answer in time"
	}
	if up != nil {
		msg = fmt.Sprintf("%s (upstream %s, %d attempts; Toolstream gateway): %v", msg, up.Name, n, err)
	}
	h := http.Header{"Content-Type": []string{"application/json"}}
	return &served{up: up, attempts: n, status: status, header: h, body: ErrorBody(api, status, msg), outcome: outcomeUnreachable, close: func() {}}
}

// try makes one attempt on up: it sends the request and reads the
// answer's first event (a stream) or the whole answer, within up's
// timeouts. An error means no answer came (s is nil).
func (g *Gateway) try(ctx context.Context, c Call, up *Upstream, body []byte, streamed bool) (*served, error) {
	pl := up.Pool.withDefaults()
	actx, cancel := context.WithCancelCause(ctx)
	limit, cause := pl.Timeout, errAnswerTimeout
	if streamed {
		limit, cause = pl.FirstByteTimeout, errFirstByteTimeout
	}
	timer := time.AfterFunc(limit, func() { cancel(cause) })
	fail := func(err error) (*served, error) {
		timer.Stop()
		if errors.Is(context.Cause(actx), cause) {
			err = fmt.Errorf("%w: %s: %w", ErrUpstream, up.Name, cause)
		} else {
			err = fmt.Errorf("%w: %s: %w", ErrUpstream, up.Name, err)
		}
		cancel(nil)
		return nil, err
	}
	req, err := g.upstreamRequest(actx, c, up, body)
	if err != nil {
		return fail(err)
	}
	start := time.Now()
	resp, err := g.cfg.Client.Do(req)
	if err != nil {
		return fail(err)
	}
	s := &served{up: up, status: resp.StatusCode, header: resp.Header, started: start,
		close: func() { timer.Stop(); resp.Body.Close(); cancel(nil) }}
	switch st := resp.StatusCode; {
	case st >= 200 && st < 300:
		s.outcome = outcomeOK
	case st == http.StatusTooManyRequests:
		s.outcome = outcomeRateLimited
	case st == http.StatusRequestTimeout || st >= 500 && st != http.StatusNotImplemented:
		s.outcome = outcomeServerError
	default:
		s.outcome = outcomeClientError
	}
	if resp.StatusCode == http.StatusOK && isEventStream(resp.Header) {
		wait := &beforeWait{r: resp.Body}
		rd := g.sseReader(wait)
		ev, data, err := rd.next()
		if err != nil {
			resp.Body.Close()
			g.putSSEReader(rd)
			return fail(fmt.Errorf("%w: %w", errBrokenStream, err))
		}
		// The reader goes back once the stream is read: close is called
		// by the relay when the upstream read ended, and again by Stream.
		closeBody, once := s.close, sync.Once{}
		s.close = func() { closeBody(); once.Do(func() { g.putSSEReader(rd) }) }
		firstByte.WithLabelValues(up.Name).Observe(time.Since(start).Seconds())
		timer.Stop() // from here each event has its idle timeout
		timer = time.AfterFunc(pl.IdleTimeout, func() { cancel(errIdleTimeout) })
		timer.Stop()
		s.events = &timedEvents{rd: rd, wait: wait, first: &[2][]byte{[]byte(ev), data}, idle: pl.IdleTimeout, timer: timer,
			cause: func() error { return context.Cause(actx) }}
		return s, nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, responseBodyMax+1))
	if err != nil {
		resp.Body.Close()
		return fail(err)
	}
	if len(b) > responseBodyMax {
		resp.Body.Close()
		return fail(fmt.Errorf("an answer over %d bytes", responseBodyMax))
	}
	firstByte.WithLabelValues(up.Name).Observe(time.Since(start).Seconds())
	s.body = b
	s.close()
	return s, nil
}

// done records the end of a served stream: a stream that broke or went
// quiet is a failure of its upstream (its circuit) and counted.
func (g *Gateway) done(s *served, readErr error) {
	if s.events == nil || s.up == nil {
		return
	}
	switch {
	case readErr == nil || !errors.Is(readErr, ErrUpstream):
		return // ended, or the log failed: not the upstream's doing
	case s.events.idleFired:
		streamEnds.WithLabelValues(s.up.Name, outcomeIdleTimeout).Inc()
	default:
		streamEnds.WithLabelValues(s.up.Name, outcomeBrokenStream).Inc()
	}
	g.pool.failed(s.up.Name)
}

// upstreamRequest is the request of c to up.
func (g *Gateway) upstreamRequest(ctx context.Context, c Call, up *Upstream, body []byte) (*http.Request, error) {
	url := strings.TrimSuffix(up.BaseURL, "/") + c.API.path()
	if c.Query != "" {
		url += "?" + c.Query
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	copyRequestHeader(req.Header, c.Header)
	req.Header.Set("Content-Type", "application/json")
	if up.Kind == KindAnthropic {
		req.Header.Set("X-Api-Key", up.APIKey)
		if req.Header.Get("Anthropic-Version") == "" {
			req.Header.Set("Anthropic-Version", "2023-06-01")
		}
	} else if up.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+up.APIKey)
	}
	return req, nil
}

// Headers of an answer that say which upstream served it and after how
// many attempts (the first is 1).
const (
	HeaderUpstream = "Toolstream-Upstream"
	HeaderAttempts = "Toolstream-Attempts"
)
