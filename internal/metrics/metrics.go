package metrics

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/projector"
)

// PendingMax bounds the calls the observer remembers between their
// CallCompleted and their result.
const PendingMax = 100_000

// Sources are what a process has to measure.
type Sources struct {
	// Bus is the log: required.
	Bus *bus.Bus
	// Runners are this process's projections by name; may be empty.
	Runners map[string]*projector.Runner
	// Executor of this process, if any.
	Executor *executor.Executor
	// Collectors are more of this process's metrics (the gateway's:
	// gateway.Collectors), registered as they are.
	Collectors []prometheus.Collector
	// Logger; nil discards.
	Logger *slog.Logger
	// SourceStallMax is how long a source of a shared stream (a tenant's
	// TS_ING_<t> copied into TS_IN, TS_MODEL) may go without hearing from
	// its origin, while it has messages left to copy or an error, before
	// /healthz fails it; default DefaultSourceStallMax.
	SourceStallMax time.Duration
}

// DefaultSourceStallMax is Sources.SourceStallMax's default: past the
// server's two-minute ceiling on a failing source's retry backoff, so a
// retry under way is not yet a stall.
const DefaultSourceStallMax = 3 * time.Minute

// Metrics collects a process's metrics on its own registry.
type Metrics struct {
	src Sources
	log *slog.Logger
	reg *prometheus.Registry

	callOutcomes     *prometheus.CounterVec
	responseOutcomes *prometheus.CounterVec
	attempts         *prometheus.CounterVec
	results          *prometheus.CounterVec
	approvals        *prometheus.CounterVec
	answers          *prometheus.CounterVec
	claims           *prometheus.CounterVec
	callSeconds      *prometheus.HistogramVec
	execSeconds      *prometheus.HistogramVec
	observed         prometheus.Counter

	srcMu      sync.Mutex
	srcFailing map[string]time.Time // since when each source has been seen failing; guarded by srcMu

	observing atomic.Bool
	own       []prometheus.Collector // Toolstream's own collectors (not the Go runtime's)
}

// latencyBuckets span a no-op call on one machine (≈100µs) to a slow tool
// or an approval by a person (minutes).
var latencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800}

// New returns the metrics of src. It returns an error without a bus.
func New(src Sources) (*Metrics, error) {
	if src.Bus == nil {
		return nil, fmt.Errorf("metrics: Sources.Bus is required")
	}
	if src.Logger == nil {
		src.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Metrics{src: src, log: src.Logger, reg: prometheus.NewRegistry(), srcFailing: map[string]time.Time{}}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Name: name, Help: help}, labels)
		m.reg.MustRegister(c)
		m.own = append(m.own, c)
		return c
	}
	histogram := func(name, help string, labels ...string) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "toolstream", Name: name, Help: help, Buckets: latencyBuckets}, labels)
		m.reg.MustRegister(h)
		m.own = append(m.own, h)
		return h
	}
	m.callOutcomes = counter("call_outcomes_total", "Calls decided by the assembler, by outcome (completed, rejected, incomplete), typed reason and tool.", "outcome", "reason", "tool")
	m.responseOutcomes = counter("response_outcomes_total", "Responses decided by the assembler, by status and reason.", "status", "reason")
	m.attempts = counter("execution_attempts_total", "Invocations begun under a lease (ExecutionStarted), by tool.", "tool")
	m.results = counter("execution_results_total", "Call results, by outcome (succeeded, failed), error type and tool.", "outcome", "error", "tool")
	m.approvals = counter("approvals_total", "Approval events, by decision (requested, granted, denied).", "decision")
	m.answers = counter("answers_verified_total", "Final answers verified, by policy.", "policy")
	m.claims = counter("claims_total", "Claims of verified answers, by verdict.", "verdict")
	m.callSeconds = histogram("call_duration_seconds", "From a CallCompleted to its result in the log (approval waits included), by tool and outcome.", "tool", "outcome")
	m.execSeconds = histogram("execution_duration_seconds", "From a call's last ExecutionStarted to its result in the log, by tool and outcome.", "tool", "outcome")
	m.observed = prometheus.NewCounter(prometheus.CounterOpts{Namespace: "toolstream", Name: "observed_events_total", Help: "Events the metrics observer read from the log."})
	m.own = append(m.own, m.observed, &scrape{m: m})
	m.reg.MustRegister(m.own[len(m.own)-2:]...)
	for _, c := range src.Collectors {
		m.reg.MustRegister(c)
		m.own = append(m.own, c)
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "toolstream"}))
	return m, nil
}

// Describe sends the descriptions of Toolstream's own metrics (not the Go
// runtime's and the process's): every toolstream_* name /metrics can show.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.own {
		c.Describe(ch)
	}
}

// Registry is the registry the metrics are on (to add a process's own).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves /metrics (Prometheus text or protobuf) and /healthz.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorLog: slogAdapter{m.log}}))
	mux.HandleFunc("/healthz", m.healthz)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "toolstream: /metrics /healthz")
	})
	return mux
}

// Health is the result of the health checks.
type Health struct {
	OK     bool
	Checks []string // one line per check: "ok bus connected", "FAIL projection x not running"
}

// Health runs the checks: the bus connection is up and every projection
// runner is running.
func (m *Metrics) Health() Health {
	h := Health{OK: true}
	check := func(ok bool, what string) {
		if ok {
			h.Checks = append(h.Checks, "ok   "+what)
			return
		}
		h.OK = false
		h.Checks = append(h.Checks, "FAIL "+what)
	}
	connected := m.src.Bus.Conn != nil && m.src.Bus.Conn.IsConnected()
	check(connected, "bus connected")
	for _, name := range m.names() {
		check(m.src.Runners[name].Running(), "projection "+name+" running")
	}
	if connected {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		sources, err := m.src.Bus.SourceStates(ctx)
		cancel()
		if err != nil {
			check(false, "sources of the shared streams read: "+err.Error())
		}
		for _, st := range sources {
			what := fmt.Sprintf("source %s -> %s copying (%d behind, last heard %s ago)", st.Source, st.Stream, st.Lag, st.Active.Round(time.Second))
			if st.Err != "" {
				what += ": " + st.Err
			}
			check(!m.stalled(st), what)
		}
	}
	return h
}

// stalled reports whether a source has been failing (an error, or
// messages to copy and no word from its origin) for longer than
// SourceStallMax, as seen by this process's reads.
func (m *Metrics) stalled(st bus.SourceState) bool {
	max := m.src.SourceStallMax
	if max <= 0 {
		max = DefaultSourceStallMax
	}
	key := st.Source + " -> " + st.Stream
	m.srcMu.Lock()
	defer m.srcMu.Unlock()
	if st.Err == "" && (st.Lag == 0 || st.Active <= max) {
		delete(m.srcFailing, key)
		return false
	}
	since, ok := m.srcFailing[key]
	if !ok {
		since = time.Now()
		m.srcFailing[key] = since
	}
	return time.Since(since) > max || st.Active > max
}

func (m *Metrics) healthz(w http.ResponseWriter, _ *http.Request) {
	h := m.Health()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if !h.OK {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	fmt.Fprintln(w, strings.Join(h.Checks, "\n"))
}

func (m *Metrics) names() []string {
	names := make([]string, 0, len(m.src.Runners))
	for n := range m.src.Runners {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// scrape collects what is read at scrape time: the runners, the assembler's
// open calls, the executor's counters, the log's last sequence.
type scrape struct{ m *Metrics }

var (
	descConnected  = prometheus.NewDesc("toolstream_bus_connected", "1 when the connection to the log is up.", nil, nil)
	descLastSeq    = prometheus.NewDesc("toolstream_stream_last_sequence", "A stream's last sequence.", []string{"stream"}, nil)
	descCheckpoint = prometheus.NewDesc("toolstream_projection_checkpoint", "Last stream sequence a projection applied.", []string{"projection"}, nil)
	descLag        = prometheus.NewDesc("toolstream_projection_lag_messages", "Consumer lag of a projection: the log's last sequence minus its checkpoint.", []string{"projection"}, nil)
	descApplied    = prometheus.NewDesc("toolstream_projection_applied_total", "Messages a projection applied since the process started.", []string{"projection"}, nil)
	descRejected   = prometheus.NewDesc("toolstream_projection_rejected_total", "Messages a projection rejected as bad input (typed rejections) since the process started.", []string{"projection"}, nil)
	descRelayed    = prometheus.NewDesc("toolstream_projection_relayed_total", "Emitted events a projection's relay published since the process started.", []string{"projection"}, nil)
	descBacklog    = prometheus.NewDesc("toolstream_projection_outbox_backlog", "Emitted events waiting in a projection's outbox for the relay.", []string{"projection"}, nil)
	descRunning    = prometheus.NewDesc("toolstream_projection_running", "1 while a projection's runner consumes.", []string{"projection"}, nil)
	descOpenResps  = prometheus.NewDesc("toolstream_assembler_open_responses", "Responses the assembler holds open (no outcome yet).", nil, nil)
	descOpenCalls  = prometheus.NewDesc("toolstream_assembler_open_calls", "Calls the assembler holds open (no decision yet).", nil, nil)
	descExec       = prometheus.NewDesc("toolstream_executor_events_total", "This process's executor counters, by kind (invoked, succeeded, failed, duplicates, takeovers, dropped).", []string{"kind"}, nil)
	descObserving  = prometheus.NewDesc("toolstream_metrics_observer_running", "1 while the metrics observer reads the log.", nil, nil)
	descSrcLag     = prometheus.NewDesc("toolstream_stream_source_lag_messages", "Messages of a tenant's ingress stream a shared stream has not copied yet, as the server reports its source.", []string{"stream", "source"}, nil)
	descSrcIdle    = prometheus.NewDesc("toolstream_stream_source_idle_seconds", "Seconds since a shared stream's source last heard from its origin.", []string{"stream", "source"}, nil)
	descSrcStalled = prometheus.NewDesc("toolstream_stream_source_stalled", "1 when a source has messages to copy or an error and has not heard from its origin within SourceStallMax (/healthz fails it).", []string{"stream", "source"}, nil)
)

func (s *scrape) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descConnected, descLastSeq, descCheckpoint, descLag, descApplied, descRejected, descRelayed, descBacklog, descRunning, descOpenResps, descOpenCalls, descExec, descObserving, descSrcLag, descSrcIdle, descSrcStalled} {
		ch <- d
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func count(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (s *scrape) Collect(ch chan<- prometheus.Metric) {
	m := s.m
	connected := m.src.Bus.Conn != nil && m.src.Bus.Conn.IsConnected()
	gauge(ch, descConnected, b2f(connected))
	gauge(ch, descObserving, b2f(m.observing.Load()))
	// The last sequence of each stream a projection reads, for its lag.
	lasts := map[string]uint64{}
	lastOf := func(stream string) (uint64, bool) {
		if last, ok := lasts[stream]; ok {
			return last, true
		}
		if !connected {
			return 0, false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		seq, err := m.src.Bus.LastSeq(ctx, stream)
		cancel()
		if err != nil {
			m.log.Warn("metrics: stream info", "stream", stream, "err", err)
			return 0, false
		}
		lasts[stream] = seq
		gauge(ch, descLastSeq, float64(seq), stream)
		return seq, true
	}
	if connected {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		sources, err := m.src.Bus.SourceStates(ctx)
		cancel()
		if err != nil {
			m.log.Warn("metrics: sources of the shared streams", "err", err)
		}
		for _, st := range sources {
			gauge(ch, descSrcLag, float64(st.Lag), st.Stream, st.Source)
			gauge(ch, descSrcIdle, st.Active.Seconds(), st.Stream, st.Source)
			gauge(ch, descSrcStalled, b2f(m.stalled(st)), st.Stream, st.Source)
		}
	}
	for _, name := range m.names() {
		r := m.src.Runners[name]
		st := r.Stats()
		gauge(ch, descCheckpoint, float64(st.Checkpoint), name)
		if last, haveLast := lastOf(r.Stream()); haveLast {
			lag := 0.0
			if last > st.Checkpoint {
				lag = float64(last - st.Checkpoint)
			}
			gauge(ch, descLag, lag, name)
		}
		count(ch, descApplied, float64(st.Applied), name)
		count(ch, descRejected, float64(st.Rejected), name)
		count(ch, descRelayed, float64(st.Relayed), name)
		gauge(ch, descBacklog, float64(st.OutboxBacklog), name)
		gauge(ch, descRunning, b2f(r.Running()), name)
		if name == assembler.Name {
			s.openCalls(ch, r)
		}
	}
	if ex := m.src.Executor; ex != nil {
		st := ex.Stats()
		for _, kv := range []struct {
			k string
			v uint64
		}{{"invoked", st.Invoked}, {"succeeded", st.Succeeded}, {"failed", st.Failed}, {"duplicates", st.Duplicates}, {"takeovers", st.Takeovers}, {"dropped", st.Dropped}} {
			count(ch, descExec, float64(kv.v), kv.k)
		}
	}
}

func (s *scrape) openCalls(ch chan<- prometheus.Metric, r *projector.Runner) {
	defer func() {
		if p := recover(); p != nil { // the runner closed under the scrape
			s.m.log.Debug("metrics: open calls", "panic", p)
		}
	}()
	v := r.View()
	defer v.Close()
	resps, calls, err := assembler.OpenCalls(v)
	if err != nil {
		s.m.log.Warn("metrics: open calls", "err", err)
		return
	}
	gauge(ch, descOpenResps, float64(resps))
	gauge(ch, descOpenCalls, float64(calls))
}

// slogAdapter lets promhttp log through slog.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Println(v ...any) { a.l.Warn("metrics: http", "err", fmt.Sprint(v...)) }
