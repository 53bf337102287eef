package events

import (
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// BenchmarkBodyCodec: the executor's per-call body work by hand against
// msgpack's reflection in the same process — decoding a typical call
// event's body (CallCompleted) and encoding a typical no-op outcome's
// (CallSucceeded). go test ./events -run '^$' -bench BodyCodec -benchmem
func BenchmarkBodyCodec(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	call := &CallCompleted{Name: "noop", Index: 0, Arguments: []byte(`{"q":"weather in Paris"}`), Order: 0,
		From: Provenance{FirstSeq: 1042, LastSeq: 1049, Deltas: 6, Bytes: 24, OpenedAt: 1_765_000_000_000_000_000}}
	callBytes, err := msgpack.Marshal(call)
	if err != nil {
		b.Fatal(err)
	}
	out := &CallSucceeded{Name: "noop", Key: "acme/run-1/step-1/call_abc123", Result: []byte(`{"ok":true}`),
		Summary: `{"ok":true}`, Attempts: 1}
	b.Run("decode/msgpack", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var c CallCompleted
			if err := msgpack.Unmarshal(callBytes, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := decodeCallCompleted(callBytes); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("decode/bounds", func(b *testing.B) { // the walk DecodeWith no longer makes before decode/hand
		for b.Loop() {
			if !checkBounds(callBytes) {
				b.Fatal("refused")
			}
		}
	})
	event, err := Encode(&Event{ID: "e1", Tenant: "acme", At: 1, Body: call})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode/event", func(b *testing.B) { // DecodeWith of the whole event, envelope and body
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeWith(event, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/msgpack", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for b.Loop() {
			enc := msgpack.GetEncoder()
			w := sliceWriter{buf[:0]}
			enc.Reset(&w)
			enc.SetSortMapKeys(true)
			if err := enc.Encode(out); err != nil {
				b.Fatal(err)
			}
			msgpack.PutEncoder(enc)
		}
	})
	b.Run("encode/hand", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for b.Loop() {
			buf = out.appendMsgpack(buf[:0])
		}
	})
}

type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
