package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"

	"go.opentelemetry.io/otel/trace"
)

// traceIDKey is the context key of a trace id a root span takes (WithTraceOf).
type traceIDKey struct{}

// WithTraceOf returns ctx whose next root span (one without a parent)
// takes a trace id derived from parts, the same for the same parts in
// every process: a run's requests (its first, a new turn, a resume after
// an approval) are one trace. A span with a parent keeps its parent's.
func WithTraceOf(ctx context.Context, parts ...string) context.Context {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var id trace.TraceID
	copy(id[:], h.Sum(nil))
	return context.WithValue(ctx, traceIDKey{}, id)
}

// ids is the provider's IDGenerator: random ids (as the SDK's default),
// but a root span's trace id is the one WithTraceOf put in its context.
type ids struct{}

func (ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	tid, ok := ctx.Value(traceIDKey{}).(trace.TraceID)
	for !ok || !tid.IsValid() {
		binary.NativeEndian.PutUint64(tid[:8], rand.Uint64())
		binary.NativeEndian.PutUint64(tid[8:], rand.Uint64())
		ok = true
	}
	return tid, newSpanID()
}

func (ids) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return newSpanID() }

func newSpanID() trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		binary.NativeEndian.PutUint64(sid[:], rand.Uint64())
	}
	return sid
}
