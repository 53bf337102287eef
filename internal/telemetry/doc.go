// Package telemetry is Toolstream's OpenTelemetry tracing: a tracer
// provider that exports spans over OTLP/HTTP (serve --otlp-endpoint), the
// GenAI semantic conventions' names the spans use, and the W3C Trace
// Context carried in the log's NATS message headers, so a call's trace
// crosses processes: the gateway's model request (gen_ai.operation.name
// chat) is the parent of the execute_tool spans of the calls it produced,
// whichever executor runs them.
//
// Off by default: without an endpoint New returns a nil *Telemetry, whose
// tracers are no-ops, and nothing is exported or allocated per span.
//
// Only the live edges emit spans: the gateway as it relays a model
// request and an executor as it makes an attempt. Projections (the
// assembler, the verifier, memory) never do; they carry the trace context
// of the message they apply to the events they emit (projector.Tx.Emit),
// so replaying them emits nothing and changes no view. Content (a call's
// arguments and result) is recorded only when Config.Content says so.
//
// Safe for concurrent use.
package telemetry
