package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ErrConfig is returned by New for a configuration it cannot use.
var ErrConfig = errors.New("telemetry: bad config")

// Config configures tracing.
type Config struct {
	// Endpoint is the OTLP/HTTP receiver's base URL (http://HOST:4318, as
	// OTEL_EXPORTER_OTLP_ENDPOINT); spans go to its /v1/traces, unless the
	// URL's path already ends so. "" turns tracing off.
	Endpoint string
	// Headers go with every export (an API key of a hosted backend).
	Headers map[string]string
	// Content records what the spans are about: a call's arguments and
	// result (gen_ai.tool.call.arguments, gen_ai.tool.call.result). Off by
	// default: they may hold personal data, which the log keeps sealed.
	Content bool
	// ServiceName is the resource's service.name; default "toolstream".
	ServiceName string
	// BatchTimeout is the longest a span waits before it is exported;
	// default the SDK's (5 s).
	BatchTimeout time.Duration
}

// Telemetry is a tracer provider exporting over OTLP/HTTP, or none. A nil
// *Telemetry is valid and traces nothing (every method is a no-op), so a
// component holding one pays nothing when tracing is off. Safe for
// concurrent use.
type Telemetry struct {
	tp      *sdktrace.TracerProvider
	content bool
}

// New returns the tracing cfg asks for: nil (no error) when cfg.Endpoint
// is empty. ErrConfig for an endpoint that is not an http(s) URL.
func New(cfg Config) (*Telemetry, error) {
	if cfg.Endpoint == "" {
		return nil, nil
	}
	endpoint, err := tracesURL(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(endpoint)}
	if len(cfg.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(cfg.Headers))
	}
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	name := cfg.ServiceName
	if name == "" {
		name = "toolstream"
	}
	var bopts []sdktrace.BatchSpanProcessorOption
	if cfg.BatchTimeout > 0 {
		bopts = append(bopts, sdktrace.WithBatchTimeout(cfg.BatchTimeout))
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, bopts...),
		sdktrace.WithIDGenerator(ids{}),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName(name))),
	)
	return &Telemetry{tp: tp, content: cfg.Content}, nil
}

// tracesURL is the traces URL of an OTLP/HTTP base URL.
func tracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: OTLP endpoint %q is not an http(s) URL (http://HOST:4318)", ErrConfig, endpoint)
	}
	if !strings.HasSuffix(u.Path, "/v1/traces") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u.String(), nil
}

// Tracer returns the tracer of a component (its import path); a no-op
// tracer when t is nil.
func (t *Telemetry) Tracer(name string) trace.Tracer {
	if t == nil {
		return noop.NewTracerProvider().Tracer(name)
	}
	return t.tp.Tracer(name)
}

// Enabled reports whether spans are recorded at all.
func (t *Telemetry) Enabled() bool { return t != nil }

// Content reports whether spans may carry content (Config.Content).
func (t *Telemetry) Content() bool { return t != nil && t.content }

// Shutdown exports every span ended so far and stops the exporter; ctx
// bounds the wait. Nil: nothing to do.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.tp.Shutdown(ctx)
}

// ForceFlush exports every span ended so far.
func (t *Telemetry) ForceFlush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.tp.ForceFlush(ctx)
}

// propagator is the W3C Trace Context (traceparent, tracestate).
var propagator = propagation.TraceContext{}

// HeaderCarrier adapts a NATS message's headers to a TextMapCarrier.
// Unlike propagation.HeaderCarrier it keeps the W3C names as written
// (traceparent, lowercase): NATS headers are case-sensitive.
type HeaderCarrier nats.Header

var _ propagation.TextMapCarrier = HeaderCarrier(nil)

// Get returns key's first value.
func (c HeaderCarrier) Get(key string) string {
	if vs := c[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Set sets key to value.
func (c HeaderCarrier) Set(key, value string) { c[key] = []string{value} }

// Keys lists the keys.
func (c HeaderCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// Inject writes the span context of ctx into h (traceparent, tracestate);
// nothing when ctx carries none. h must not be nil.
func Inject(ctx context.Context, h nats.Header) {
	propagator.Inject(ctx, HeaderCarrier(h))
}

// Extract returns ctx with the remote span context h carries, if any.
func Extract(ctx context.Context, h nats.Header) context.Context {
	if h == nil {
		return ctx
	}
	return propagator.Extract(ctx, HeaderCarrier(h))
}

// ExtractHTTP returns ctx with the span context an HTTP request's headers
// carry (a client that traces itself: its traceparent).
func ExtractHTTP(ctx context.Context, h propagation.HeaderCarrier) context.Context {
	return propagator.Extract(ctx, h)
}

// TraceParent is the traceparent header value of ctx's span, "" for none.
func TraceParent(ctx context.Context) string {
	h := nats.Header{}
	Inject(ctx, h)
	return h.Get(HeaderTraceParent)
}

// HeaderTraceParent and HeaderTraceState are the W3C Trace Context headers
// carried on the log's messages.
const (
	HeaderTraceParent = "traceparent"
	HeaderTraceState  = "tracestate"
)

// The GenAI semantic conventions' names Toolstream's spans use
// (semconv v1.40.0).
var (
	OperationName    = semconv.GenAIOperationNameKey
	ProviderName     = semconv.GenAIProviderNameKey
	RequestModel     = semconv.GenAIRequestModelKey
	ResponseModel    = semconv.GenAIResponseModelKey
	ResponseID       = semconv.GenAIResponseIDKey
	InputTokens      = semconv.GenAIUsageInputTokensKey
	OutputTokens     = semconv.GenAIUsageOutputTokensKey
	ConversationID   = semconv.GenAIConversationIDKey
	ToolName         = semconv.GenAIToolNameKey
	ToolCallID       = semconv.GenAIToolCallIDKey
	ToolType         = semconv.GenAIToolTypeKey
	ToolCallArgs     = semconv.GenAIToolCallArgumentsKey
	ToolCallResult   = semconv.GenAIToolCallResultKey
	ErrorType        = semconv.ErrorTypeKey
	TimeToFirstChunk = attribute.Key("gen_ai.response.time_to_first_chunk")
)

// Operation names.
const (
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
	OpInvokeAgent = "invoke_agent"
)
