package bench_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/toolstream/toolstream/internal/bench"
	"github.com/toolstream/toolstream/internal/ingest"
)

// BenchmarkEdge is the edge alone on the whole path's input: read the
// lines, normalise each chunk, merge a call's consecutive deltas. Run with
// -cpuprofile to see where the edge's time goes (docs/speed.md).
func BenchmarkEdge(b *testing.B) {
	input := bench.ProviderStream("edge", 100, bench.WholeCalls, bench.WholeDeltas)
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		st := ingest.NewStream(ingest.Config{Format: ingest.FormatOpenAIResponses, Stream: "bench"})
		var m ingest.DeltaMerger
		var pos int64
		emit := func(ingest.Placed) error { return nil }
		err := ingest.ReadEvents(bytes.NewReader(input), func(raw []byte) error {
			outs, err := st.Feed(raw)
			if err != nil {
				return err
			}
			pos++
			return m.Add(pos, 0, outs, emit)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlainEdge is the plain program's edge on the same input: its
// one json.Unmarshal of each chunk and its merge.
func BenchmarkPlainEdge(b *testing.B) {
	input := bench.ProviderStream("edge", 100, bench.WholeCalls, bench.WholeDeltas)
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := bench.PlainOffline(input); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOneShot is the whole one-shot row (toolstream assemble, the
// plain program and the undecoded pipeline, each on its own embedded
// server) for a CPU profile of the whole path.
func BenchmarkOneShot(b *testing.B) {
	if testing.Short() {
		b.Skip("embedded servers")
	}
	input := bench.ProviderStream("oneshot", 200, bench.WholeCalls, bench.WholeDeltas)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for i := 0; b.Loop(); i++ {
		if _, err := bench.OneShot(context.Background(), b.TempDir(), input, log, i); err != nil {
			b.Fatal(err)
		}
	}
}
