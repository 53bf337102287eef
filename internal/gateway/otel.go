package gateway

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolstream/toolstream/internal/telemetry"
)

// modelSpan is the span of one model request (Stream), following the
// GenAI semantic conventions: "chat {model}", with the provider, the
// model, the response id, the usage and the time to the first chunk. A
// no-op without Config.Telemetry.
type modelSpan struct {
	span  trace.Span
	start time.Time
	first bool // the first chunk was seen
}

// startModelSpan starts the span of c's request to model, a child of the
// span ctx carries (a run's, or the client's own traceparent).
func (g *Gateway) startModelSpan(ctx context.Context, c Call, model string) (context.Context, *modelSpan) {
	if !g.cfg.Telemetry.Enabled() {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{
		telemetry.OperationName.String(telemetry.OpChat),
		telemetry.ProviderName.String(string(c.API.Kind())),
		telemetry.RequestModel.String(model),
		attribute.String("toolstream.tenant", c.Env.Tenant),
		attribute.String("toolstream.api", string(c.API)),
	}
	if c.Env.Run != "" {
		attrs = append(attrs, attribute.String("toolstream.run", c.Env.Run))
	}
	if c.Env.Session != "" {
		attrs = append(attrs, telemetry.ConversationID.String(c.Env.Session))
	}
	name := telemetry.OpChat
	if model != "" {
		name += " " + model
	}
	ctx, sp := g.cfg.Telemetry.Tracer("github.com/toolstream/toolstream/internal/gateway").Start(ctx, name,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, &modelSpan{span: sp, start: time.Now()}
}

// firstChunk records the time to the first chunk of a streamed answer:
// an event and an attribute (seconds).
func (s *modelSpan) firstChunk() {
	if s == nil || s.first {
		return
	}
	s.first = true
	d := time.Since(s.start)
	s.span.AddEvent("gen_ai.first_chunk")
	s.span.SetAttributes(telemetry.TimeToFirstChunk.Float64(d.Seconds()))
}

// end ends the span with what the request came to: res (nil when it
// never had an answer) and err.
func (s *modelSpan) end(res *Result, err error) {
	if s == nil {
		return
	}
	defer s.span.End()
	if res != nil {
		if res.Status == http.StatusOK && res.Stream != "" {
			s.span.SetAttributes(telemetry.ResponseID.String(res.Stream))
		}
		if res.Usage.Input > 0 || res.Usage.Output > 0 {
			s.span.SetAttributes(telemetry.InputTokens.Int64(res.Usage.Input), telemetry.OutputTokens.Int64(res.Usage.Output))
		}
		if res.Upstream != "" {
			s.span.SetAttributes(attribute.String("toolstream.upstream", res.Upstream), attribute.Int("toolstream.attempts", res.Attempts))
		}
		if res.Status != 0 {
			s.span.SetAttributes(attribute.Int("http.response.status_code", res.Status))
		}
	}
	if et := operationError(res, err); et != "" {
		s.span.SetAttributes(telemetry.ErrorType.String(et))
		msg := et
		if err != nil {
			msg = err.Error()
		} else if res != nil {
			msg = http.StatusText(res.Status)
		}
		s.span.SetStatus(codes.Error, msg)
	}
}

// operationError is the error.type of a model request: "" when it
// succeeded, else the upstream's status (an answer that is an error), or
// timeout, bad_request, upstream_error for one without an answer.
func operationError(res *Result, err error) string {
	if res != nil && res.Status != 0 && res.Status != http.StatusOK {
		return strconv.Itoa(res.Status)
	}
	if err != nil {
		return spanErrorType(err)
	}
	return ""
}

// operationDuration and tokenUsage are the GenAI semantic conventions'
// client metrics, gen_ai.client.operation.duration and
// gen_ai.client.token.usage, as Prometheus names them (dots to
// underscores, the unit's suffix), beside the gateway's own. Buckets are
// the conventions' advice. The model label is modelLabel's (bounded).
var (
	operationDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gen_ai_client_operation_duration_seconds",
		Help:    "GenAI operation duration (gen_ai.client.operation.duration): a model request through the gateway, from its routing to the end of its answer, by operation, provider, request model and error type (\"\" when it succeeded).",
		Buckets: []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}},
		[]string{"gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "error_type"})
	tokenUsage = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gen_ai_client_token_usage",
		Help:    "Tokens used by a model request (gen_ai.client.token.usage) as the answer reported them, by operation, provider, request model and token type (input, output).",
		Buckets: []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}},
		[]string{"gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "gen_ai_token_type"})
)

// observeOperation records a model request's duration and usage.
func (g *Gateway) observeOperation(c Call, model string, d time.Duration, res *Result, err error) {
	provider, label := string(c.API.Kind()), g.modelLabel(model)
	operationDuration.WithLabelValues(telemetry.OpChat, provider, label, operationError(res, err)).Observe(d.Seconds())
	if res != nil && (res.Usage.Input > 0 || res.Usage.Output > 0) {
		tokenUsage.WithLabelValues(telemetry.OpChat, provider, label, "input").Observe(float64(res.Usage.Input))
		tokenUsage.WithLabelValues(telemetry.OpChat, provider, label, "output").Observe(float64(res.Usage.Output))
	}
}

// spanErrorType is the error.type of a request that failed without an
// answer's status: a timeout, an upstream that could not be reached or
// read, a request the gateway could not route.
func spanErrorType(err error) string {
	switch {
	case isTimeout(err):
		return "timeout"
	case errors.Is(err, ErrBadRequest):
		return "bad_request"
	case errors.Is(err, ErrUpstream):
		return "upstream_error"
	}
	return "_OTHER"
}

// traced returns r with the span context its headers carry (a client that
// traces itself sends its traceparent), so the gateway's spans join the
// client's trace; r itself when tracing is off.
func (g *Gateway) traced(r *http.Request) *http.Request {
	if !g.cfg.Telemetry.Enabled() || r.Header.Get("Traceparent") == "" {
		return r
	}
	return r.WithContext(telemetry.ExtractHTTP(r.Context(), propagation.HeaderCarrier(r.Header)))
}

// startRunSpan starts the span of a run-mode request, "invoke_agent"
// (the GenAI semantic conventions): its rounds' model requests and
// their calls' executions are its descendants. Its trace id is the run's
// (telemetry.WithTraceOf), so all the requests of one run are one trace.
// end ends it.
func (g *Gateway) startRunSpan(ctx context.Context, env Envelope, model string) (context.Context, func()) {
	if !g.cfg.Telemetry.Enabled() {
		return ctx, func() {}
	}
	attrs := []attribute.KeyValue{
		telemetry.OperationName.String(telemetry.OpInvokeAgent),
		telemetry.RequestModel.String(model),
		attribute.String("toolstream.tenant", env.Tenant),
	}
	if env.Run != "" {
		attrs = append(attrs, attribute.String("toolstream.run", env.Run))
	}
	if env.Session != "" {
		attrs = append(attrs, telemetry.ConversationID.String(env.Session))
	}
	if env.Run != "" {
		// Every request of the run (its first, a new turn, a resume after
		// an approval) is one trace, unless the client's own trace holds it.
		ctx = telemetry.WithTraceOf(ctx, "run", env.Tenant, env.Run)
	}
	ctx, sp := g.cfg.Telemetry.Tracer("github.com/toolstream/toolstream/internal/gateway").Start(ctx, telemetry.OpInvokeAgent,
		trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return ctx, func() { sp.End() }
}
