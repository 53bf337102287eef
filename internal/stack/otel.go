package stack

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolstream/toolstream/internal/telemetry"
	"github.com/toolstream/toolstream/memory"
)

// memoryTrace is memory.Service.Trace over the stack's tracing: a recall
// is a search_memory span, a forget a delete_memory span, a message,
// observe or correct an update_memory span (the names of the GenAI
// conventions' memory operations); list and history are not traced. The
// span is a child of the traceparent the request's headers carry. Nil
// when tracing is off.
func memoryTrace(t *telemetry.Telemetry) func(context.Context, string, micro.Headers, *memory.Op) (context.Context, func(any, error)) {
	if !t.Enabled() {
		return nil
	}
	tracer := t.Tracer("github.com/toolstream/toolstream/memory")
	return func(ctx context.Context, verb string, h micro.Headers, op *memory.Op) (context.Context, func(any, error)) {
		var name string
		switch verb {
		case "recall":
			name = "search_memory"
		case "forget":
			name = "delete_memory"
		case "message", "observe", "correct":
			name = "update_memory"
		default:
			return ctx, func(any, error) {}
		}
		ctx = telemetry.Extract(ctx, nats.Header(h))
		attrs := []attribute.KeyValue{telemetry.OperationName.String(name), attribute.String("toolstream.tenant", op.Tenant)}
		if op.ID != "" {
			attrs = append(attrs, attribute.String("toolstream.memory.id", op.ID))
		}
		if verb == "recall" && op.K > 0 {
			attrs = append(attrs, attribute.Int("toolstream.memory.k", op.K))
		}
		ctx, sp := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		return ctx, func(out any, err error) {
			defer sp.End()
			if r, ok := out.(memory.RecallOut); ok {
				sp.SetAttributes(attribute.Int("toolstream.memory.results", len(r.Results)))
			}
			if w, ok := out.(memory.WriteReply); ok && w.Rejected != "" && err == nil {
				sp.SetAttributes(telemetry.ErrorType.String(w.Rejected)) // the projection's typed rejection
				sp.SetStatus(codes.Error, w.Rejected)
			}
			if err != nil {
				sp.SetAttributes(telemetry.ErrorType.String(memoryErrorType(err)))
				sp.SetStatus(codes.Error, err.Error())
			}
		}
	}
}

// memoryErrorType is a refused memory request's error.type.
func memoryErrorType(err error) string {
	switch {
	case errors.Is(err, memory.ErrNotFound):
		return "not_found"
	case errors.Is(err, memory.ErrVersionConflict):
		return "version_conflict"
	}
	return "bad_request"
}
