package executor

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolstream/toolstream/internal/telemetry"
	"github.com/toolstream/toolstream/registry"
)

// startAttempt starts the span of one attempt, "execute_tool {name}"
// (the GenAI semantic conventions), a child of the model request that
// produced the call: the trace context its CallCompleted carries in its
// headers (traceparent, relayed by the assembler from the model events
// the gateway published). A call resumed by an approval has the approval's
// context, usually none: its span starts a trace. nil without
// Config.Telemetry.
func (j *job) startAttempt(tool *registry.Tool, args []byte, attempt int) trace.Span {
	if !j.e.cfg.Telemetry.Enabled() {
		return nil
	}
	return j.startSpan(tool, args, attempt)
}

// startSpan is startAttempt with telemetry on. It is a function of its own
// so that the attributes' large frame is not every untraced attempt's: a
// worker's stack, shrunk by the collector, grew again on every call
// (runtime.newstack was 4% of the executor bench's CPU).
//
//go:noinline
func (j *job) startSpan(tool *registry.Tool, args []byte, attempt int) trace.Span {
	t := j.e.cfg.Telemetry
	ctx := telemetry.Extract(context.Background(), j.carrier.Headers())
	attrs := []attribute.KeyValue{
		telemetry.OperationName.String(telemetry.OpExecuteTool),
		telemetry.ToolName.String(tool.Name),
		telemetry.ToolType.String("function"),
		attribute.String("toolstream.tenant", j.tenant),
		attribute.Int("toolstream.tool.version", tool.Version),
		attribute.String("toolstream.idempotency_key", j.key),
		attribute.Int("toolstream.attempt", attempt),
	}
	if j.ev.CallID != "" {
		attrs = append(attrs, telemetry.ToolCallID.String(j.ev.CallID))
	}
	if j.ev.Run != "" {
		attrs = append(attrs, attribute.String("toolstream.run", j.ev.Run))
	}
	if j.ev.Response != "" {
		attrs = append(attrs, telemetry.ResponseID.String(j.ev.Response))
	}
	if t.Content() {
		attrs = append(attrs, telemetry.ToolCallArgs.String(string(args)))
	}
	_, sp := t.Tracer("github.com/toolstream/toolstream/executor").Start(ctx, telemetry.OpExecuteTool+" "+tool.Name,
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return sp
}

// endAttempt ends an attempt's span with its result, or its typed error
// (error.type), or abandoned (the lease was lost or the executor is
// stopping).
func (j *job) endAttempt(sp trace.Span, result json.RawMessage, terr *ToolError, abandoned bool) {
	if sp == nil {
		return
	}
	defer sp.End()
	switch {
	case abandoned:
		sp.SetAttributes(telemetry.ErrorType.String("abandoned"))
		sp.SetStatus(codes.Error, "abandoned: the lease was lost or the executor is stopping")
	case terr != nil:
		sp.SetAttributes(telemetry.ErrorType.String(string(terr.Type)))
		sp.SetStatus(codes.Error, terr.Message)
	case j.e.cfg.Telemetry.Content():
		sp.SetAttributes(telemetry.ToolCallResult.String(string(result)))
	}
}
