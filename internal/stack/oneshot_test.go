package stack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/stack"
)

// copies is a recorded OpenAI Responses stream (four responses, three
// calls) n times over, each copy's ids made its own.
func copies(t testing.TB, n int) []byte {
	t.Helper()
	rec, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", "openai-responses-reasoning-three-calculator-calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for k := range n {
		out.Write(bytes.ReplaceAll(rec, []byte("01830d662ab3856501693c32"), fmt.Appendf(nil, "%024d", k)))
	}
	return out.Bytes()
}

var stream = client.Stream{Tenant: "acme", Format: "openai-responses", ID: "s1"}

// viaIngest is the one-shot as it was before normalising at the edge:
// the raw events published to ts.in, the ingest projection normalising
// them, the assembler deciding.
func viaIngest(ctx context.Context, b *bus.Bus, dir string, in []byte) ([]assembler.Line, error) {
	c, err := client.Connect(ctx, client.WithConn(b.Conn), client.WithKeys(b.Keys))
	if err != nil {
		return nil, err
	}
	raw := stream
	raw.Raw = true
	if _, err := c.Publish(ctx, bytes.NewReader(in), client.WithStream(raw)); err != nil {
		return nil, err
	}
	n := stack.NewNode(b, dir, nil)
	defer n.Stop()
	if _, err := n.Start(ctx, assembler.NewIngest(assembler.IngestConfig{}), nil); err != nil {
		return nil, err
	}
	if _, err := n.Start(ctx, assembler.New(assembler.Config{IdleTimeout: 2 * time.Minute}), nil); err != nil {
		return nil, err
	}
	for _, name := range []string{assembler.IngestName, assembler.Name} {
		if err := n.Settle(ctx, name); err != nil {
			return nil, err
		}
	}
	evs, err := b.ReadEvents(ctx, []string{"ts.call.>", "ts.resp.>"})
	if err != nil {
		return nil, err
	}
	var lines []assembler.Line
	for _, ev := range evs {
		if l, ok := assembler.LineOf(ev); ok {
			lines = append(lines, l)
		}
	}
	assembler.SortLines(lines)
	return lines, nil
}

func atEdge(ctx context.Context, b *bus.Bus, dir string, in []byte) ([]assembler.Line, error) {
	return stack.Assemble(ctx, stack.AssembleConfig{Bus: b, Dir: dir,
		Assembler: assembler.Config{IdleTimeout: 2 * time.Minute}, Stream: stream}, bytes.NewReader(in))
}

func jsonLines(t testing.TB, lines []assembler.Line) []string {
	var out []string
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(j))
	}
	return out
}

// TestAssembleAtTheEdgeEqualsThroughIngest: the one-shot, normalised at
// the edge, prints what the ingest path printed for the same stream, each
// on a server of its own.
func TestAssembleAtTheEdgeEqualsThroughIngest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := copies(t, 3)
	edge, err := atEdge(ctx, bustest.Start(t), t.TempDir(), in)
	if err != nil {
		t.Fatal(err)
	}
	via, err := viaIngest(ctx, bustest.Start(t), t.TempDir(), in)
	if err != nil {
		t.Fatal(err)
	}
	if e, v := jsonLines(t, edge), jsonLines(t, via); len(e) != 3*(3+4) || !slices.Equal(e, v) {
		t.Fatalf("at the edge (%d lines):\n%v\nthrough ingest (%d lines):\n%v", len(e), e, len(v), v)
	}
}

// BenchmarkAssemble times the one-shot both ways on 200 copies of the
// recording (22,000 raw events), each on a fresh embedded server with its
// data keys: the choice of normalising at the edge (docs/design.md).
//
//	go test -run '^$' -bench Assemble -benchtime 3x -count 3 ./node/
func BenchmarkAssemble(b *testing.B) {
	in := copies(b, 200)
	for _, c := range []struct {
		name string
		run  func(context.Context, *bus.Bus, string, []byte) ([]assembler.Line, error)
	}{{"edge", atEdge}, {"ingest", viaIngest}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				dir := b.TempDir()
				bs, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1", Name: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				kr, err := keys.Open(ctx, keys.Config{JS: bs.JS, Create: true})
				if err != nil {
					b.Fatal(err)
				}
				bs.Keys = kr
				lines, err := c.run(ctx, bs, filepath.Join(dir, "views"), in)
				bs.Close()
				if err != nil || len(lines) != 200*7 {
					b.Fatalf("%d lines: %v", len(lines), err)
				}
			}
			b.ReportMetric(float64(bytes.Count(in, []byte("\n")))*float64(b.N)/b.Elapsed().Seconds(), "raw-events/s")
		})
	}
}
