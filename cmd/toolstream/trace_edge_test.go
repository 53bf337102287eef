package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/internal/trace"
)

// TestTraceEdgeNormalisedCall: a call published normalised at the edge
// (toolstream publish, the default) is traced to the raw events it came
// from by their positions in the producer's stream; one published raw
// (--raw) by their TS_IN sequences. The same stream both ways, as two
// tenants, gives the same argument bytes over the same raw events; the
// edge merges a call's consecutive deltas (ingest.DeltaMerger), so it
// stores fewer of them.
func TestTraceEdgeNormalisedCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	n := stack.NewNode(b, t.TempDir(), nil)
	t.Cleanup(func() { n.Stop() })
	if _, err := n.Start(ctx, assembler.NewIngest(assembler.IngestConfig{}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Start(ctx, assembler.New(assembler.Config{}), nil); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("..", "..", "testdata", "streams", "openai-responses-azure-weather.jsonl")
	cli := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		root := newRoot(&out, &errOut)
		root.SetArgs(append(args, "--nats-url", b.ClientURL(), "--data", t.TempDir(), "--log-level", "error"))
		if err := root.ExecuteContext(ctx); err != nil {
			t.Fatalf("toolstream %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
		}
		return out.String()
	}
	for _, tenant := range []string{"edge", "raw"} {
		args := []string{"publish", "--provider", "openai-responses", "--tenant", tenant, "--user", "u1", "--stream", "s1", file,
			"--creds", bustest.Creds(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: tenant})}
		if tenant == "raw" {
			args = append(args, "--raw")
		}
		cli(args...)
	}
	for _, name := range []string{assembler.IngestName, assembler.Name} {
		if err := n.Settle(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	events := int64(bytes.Count(raw, []byte("\n")))
	const call = "call_H5DxLSFnsGhiROnUiDHmgyc8"
	edge, err := trace.Call(ctx, b, "edge", call, "")
	if err != nil {
		t.Fatal(err)
	}
	if edge.Outcome != "completed" || edge.Built == nil || edge.Built.RawFirst != 0 || edge.Built.RawStream != "s1" ||
		edge.Built.RawPosFirst == nil || edge.Built.RawPosLast == nil || *edge.Built.RawPosFirst < 0 || *edge.Built.RawPosLast < *edge.Built.RawPosFirst || *edge.Built.RawPosLast >= events {
		t.Fatalf("edge-normalised call: outcome %s, built %+v", edge.Outcome, edge.Built)
	}
	via, err := trace.Call(ctx, b, "raw", call, "")
	if err != nil {
		t.Fatal(err)
	}
	if via.Outcome != "completed" || via.Built == nil || via.Built.RawFirst == 0 || via.Built.RawPosFirst != nil {
		t.Fatalf("call normalised by ingest: outcome %s, built %+v", via.Outcome, via.Built)
	}
	if edge.Built.Deltas < 1 || edge.Built.Deltas >= via.Built.Deltas || edge.Built.Bytes != via.Built.Bytes || via.Built.RawLast-via.Built.RawFirst != uint64(*edge.Built.RawPosLast-*edge.Built.RawPosFirst) {
		t.Errorf("the same stream: at the edge %+v (raw positions %d–%d), through ingest %+v", edge.Built, *edge.Built.RawPosFirst, *edge.Built.RawPosLast, via.Built)
	}
	for _, st := range edge.Steps {
		if st.Stage == "model" && (st.RawPos == nil || st.RawStream != "s1" || st.Raw != 0) {
			t.Errorf("model step without its raw position: %+v", st)
		}
	}
	out := cli("trace", call, "--tenant", "edge", "--creds", bustest.Creds(t, b, auth.Identity{Role: auth.RoleReader}))
	for _, s := range []string{"normalised by the producer from raw events", "of its stream s1", "[raw event "} {
		if !strings.Contains(out, s) {
			t.Errorf("trace output lacks %q:\n%s", s, out)
		}
	}
}
