// Package metrics exposes a Toolstream process to Prometheus and to health
// checks: Serve (or New + Handler + Run) serves /metrics and /healthz.
//
// What is measured, and where it comes from:
//
//   - Per projection, read from its Runner at scrape time: checkpoint,
//     consumer lag (the log's last sequence − the checkpoint), messages
//     applied and rejected, outbox rows relayed and the relay backlog,
//     whether it is running. For the assembler, the responses and calls
//     still open (assembler.OpenCalls on a snapshot of its view).
//
//   - From the log, by an ordered consumer of the call, response, execution,
//     approval, result and answer subjects that starts at the end of the log
//     when Run starts (counters count what happened since): call outcomes
//     by outcome, reason and tool; response outcomes; execution attempts,
//     results by outcome and error type; approvals; verified answers and
//     claims by verdict; and two latency histograms per tool and outcome —
//     CallCompleted → result (what a caller waits, approvals included) and
//     last ExecutionStarted → result (the invocation). The log's timestamps
//     are used, so the numbers hold for executors in other processes too.
//
//   - From an Executor of this process, if given: its counters.
//
//   - Any Sources.Collectors: serve passes the gateway's (upstream
//     attempts, retries, circuits, keys' usage and refusals), when it
//     serves one.
//
// Every name starts with toolstream_; labels are bounded by the registry
// (tool), the typed reasons and error types, and the projection names. No
// tenant label: tenants are unbounded, and the log, not a metric, is where
// a tenant's history is read (toolstream calls, toolstream trace). The
// gateway's key metrics are the exception the configuration bounds: a
// key names one tenant, so tenant and key labels are as many as the keys.
//
// /healthz answers 200 when the bus connection is up, every projection
// runner is running and no source of a shared stream is stalled (TS_IN,
// TS_MODEL copying a tenant's TS_ING_<t>: the server retries a failing
// source with a backoff of up to two minutes and tells no one; a source
// failing, or behind and silent, for longer than Sources.SourceStallMax is
// stalled), else 503; the body says which check failed, and each source's
// lag and last contact. toolstream_stream_source_lag_messages,
// _idle_seconds and _stalled show the same per source.
//
// Bounds: the observer remembers at most PendingMax calls between their
// CallCompleted and their result; past it the oldest half is forgotten
// (their latencies are not observed).
//
// Concurrency: a Metrics is safe for concurrent use; Run is called once.
package metrics
