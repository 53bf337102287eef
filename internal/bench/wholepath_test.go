package bench

import (
	"context"
	"io"
	"log/slog"
	"runtime/debug"
	"testing"

	"github.com/toolstream/toolstream/internal/stack"
)

// BenchmarkAssemble is toolstream assemble alone (oneShot: its embedded
// server, keys, the edge, the assembler, outcomes read back) on the whole
// path's input, under the one-shot's GOGC, for a CPU profile of where its
// time goes (docs/speed.md's whole-path tables).
func BenchmarkAssemble(b *testing.B) {
	if testing.Short() {
		b.Skip("embedded server")
	}
	input := ProviderStream("oneshot", 500, WholeCalls, WholeDeltas)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	defer debug.SetGCPercent(debug.SetGCPercent(stack.OneShotGOGC))
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		if _, _, err := oneShot(context.Background(), b.TempDir(), input, log); err != nil {
			b.Fatal(err)
		}
	}
}
