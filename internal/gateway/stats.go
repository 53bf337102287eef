package gateway

import "github.com/prometheus/client_golang/prometheus"

// The gateway's metrics, for the process (a process serves one gateway;
// tests tell theirs apart by upstream and key names). Labels are bounded
// by the configuration: upstream names, key names, the tenants and users
// the keys file names, the models the prices and pools name or clients
// ask for on keys limited to a list. A tenant-wide key's users are not a
// label (they are unbounded; the log and `toolstream runs` have them).
var (
	attempts = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "upstream_attempts_total",
		Help: "Requests sent to an upstream, by upstream and outcome (ok, client_error, rate_limited, server_error, unreachable, first_byte_timeout, timeout, broken_stream)."},
		[]string{"upstream", "outcome"})
	retries = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "upstream_retries_total",
		Help: "Attempts that failed and were retried, by the upstream that failed and the failure's outcome."},
		[]string{"upstream", "reason"})
	fallbacks = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "upstream_fallbacks_total",
		Help: "Retries that went to another upstream than the one that failed, by from and to."},
		[]string{"from", "to"})
	streamEnds = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "upstream_stream_failures_total",
		Help: "Streams that failed after their first event reached the client (never retried), by upstream and outcome (idle_timeout, broken_stream)."},
		[]string{"upstream", "outcome"})
	circuitState = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "upstream_circuit_state",
		Help: "An upstream's circuit: 0 closed, 1 open (no request until its cooldown ends), 2 half-open (one probe under way)."},
		[]string{"upstream"})
	circuitOpened = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "upstream_circuit_opened_total",
		Help: "Times an upstream's circuit opened (breaker_failures failures in a row, or a failed probe)."},
		[]string{"upstream"})
	unavailable = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "no_upstream_total",
		Help: "Requests answered 503 because every upstream serving them was open or cooling, by provider kind."},
		[]string{"kind"})
	firstByte = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name:    "upstream_first_byte_seconds",
		Help:    "From sending a request upstream to its first event (a stream) or its whole answer, by upstream.",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 600}},
		[]string{"upstream"})
	keyRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "key_requests_total",
		Help: "Requests a key made that went upstream, by tenant, key, the key's user (\"\" for a tenant-wide key) and model."},
		[]string{"tenant", "key", "user", "model"})
	keyTokens = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "key_tokens_total",
		Help: "Tokens the upstreams reported for a key's requests, by tenant, key, user, model and kind (input, output)."},
		[]string{"tenant", "key", "user", "model", "kind"})
	keyCost = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "key_cost_usd_total",
		Help: "Cost in USD of a key's requests by the prices table, by tenant, key, user and model."},
		[]string{"tenant", "key", "user", "model"})
	keyRefused = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "key_refused_total",
		Help: "Requests refused by their key's policy before anything went upstream, by tenant, key and reason (expired, model_not_allowed, budget_tokens, budget_usd, rpm, tpm)."},
		[]string{"tenant", "key", "reason"})
	keySpend = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "key_spend",
		Help: "What a key used in the current budget window, by tenant, key, window (day, month; UTC) and unit (tokens, usd)."},
		[]string{"tenant", "key", "window", "unit"})
	reloads = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "toolstream", Subsystem: "gateway",
		Name: "config_reloads_total",
		Help: "Reloads of the gateway's keys and prices, by result (ok, error: the old ones stay)."},
		[]string{"result"})
)

// Collectors are the gateway's metrics, to register on a process's
// registry (metrics.Sources.Collectors).
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{attempts, retries, fallbacks, streamEnds, circuitState, circuitOpened, unavailable, firstByte,
		keyRequests, keyTokens, keyCost, keyRefused, keySpend, reloads, operationDuration, tokenUsage}
}
