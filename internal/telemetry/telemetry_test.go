package telemetry

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/trace"
)

// The endpoint is a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT: spans go to
// its /v1/traces; anything but an http(s) URL is ErrConfig.
func TestEndpointIsABaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:4318":             "http://127.0.0.1:4318/v1/traces",
		"http://collector:4318/":            "http://collector:4318/v1/traces",
		"https://otlp.example.com/otlp":     "https://otlp.example.com/otlp/v1/traces",
		"http://127.0.0.1:4318/v1/traces":   "http://127.0.0.1:4318/v1/traces",
		"https://tempo:4318/tenant-1/":      "https://tempo:4318/tenant-1/v1/traces",
		"http://[::1]:4318":                 "http://[::1]:4318/v1/traces",
		"http://localhost:4318/v1/traces/x": "http://localhost:4318/v1/traces/x/v1/traces",
	} {
		got, err := tracesURL(in)
		if err != nil || got != want {
			t.Errorf("tracesURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"127.0.0.1:4318", "grpc://collector:4317", "http://", "://x"} {
		if _, err := New(Config{Endpoint: bad}); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%q): %v, want ErrConfig", bad, err)
		}
	}
}

// Off by default: no endpoint, no provider; the nil Telemetry's tracers
// record nothing and nothing is carried.
func TestOffIsNil(t *testing.T) {
	tel, err := New(Config{})
	if err != nil || tel != nil {
		t.Fatalf("New without an endpoint: %v, %v; want nil, nil", tel, err)
	}
	if tel.Enabled() || tel.Content() {
		t.Error("a nil Telemetry is enabled")
	}
	ctx, sp := tel.Tracer("x").Start(context.Background(), "chat m")
	if sp.IsRecording() || sp.SpanContext().IsValid() {
		t.Error("a nil Telemetry's span records")
	}
	sp.End()
	if tp := TraceParent(ctx); tp != "" {
		t.Errorf("traceparent %q from an unrecorded span", tp)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}

// The trace context goes into a NATS message's headers as the W3C
// lowercase traceparent, and comes back out of them.
func TestHeadersCarryTheTraceContext(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}, TraceFlags: trace.FlagsSampled})
	h := nats.Header{}
	Inject(trace.ContextWithSpanContext(context.Background(), sc), h)
	if got := h["traceparent"]; len(got) != 1 || got[0] != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Fatalf("headers %v", h)
	}
	back := trace.SpanContextFromContext(Extract(context.Background(), h))
	if back.TraceID() != sc.TraceID() || back.SpanID() != sc.SpanID() || !back.IsRemote() {
		t.Errorf("extracted %v, want %v (remote)", back, sc)
	}
	if got := trace.SpanContextFromContext(Extract(context.Background(), nil)); got.IsValid() {
		t.Errorf("nil headers gave %v", got)
	}
}
