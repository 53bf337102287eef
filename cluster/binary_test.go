package cluster_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/cluster"
)

// TestBinaryWorksAgainstACluster runs the toolstream binary with --nats-url
// listing the three servers of a cluster: serve runs the processor, publish
// sends a provider stream, calls shows the completed call, replay --verify
// finds the live view equal to a rebuilt one.
func TestBinaryWorksAgainstACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := toolstreamBinary()
	if err != nil {
		t.Fatal(err)
	}
	c := cluster.Start(t, cluster.Config{})
	urls := c.URLs()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	serve := exec.Command(bin, "serve", "--components", "ingest,assembler,responses", "--nats-url", urls, "--data", filepath.Join(dir, "serve"))
	var serveLog bytes.Buffer
	serve.Stderr = &serveLog
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serve.Process.Signal(os.Interrupt)
		serve.Wait()
	}()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, append(args, "--nats-url", urls, "--data", filepath.Join(dir, "cli"))...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("toolstream %s: %v\n%s\nserve: %s", strings.Join(args, " "), err, out, serveLog.String())
		}
		return string(out)
	}
	_, raw := rawCall(7)
	file := filepath.Join(dir, "stream.jsonl")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("publish: %s", run("publish", "--provider", "openai-responses", "--tenant", "acme", "--stream", "s7", file))

	admin := c.Open(t, bus.Config{Name: "admin"})
	if admin.Replicas() != 3 {
		t.Fatalf("the binary's stream has %d replicas", admin.Replicas())
	}
	dump := func() {
		last, err := admin.LastSeq(ctx)
		t.Logf("log: last sequence %d (%v), calls %d", last, err, countSubjects(t, admin, "ts.call.>"))
		for seq := uint64(1); seq <= last; seq++ {
			m, err := admin.Stream.GetMsg(ctx, seq)
			if err != nil {
				t.Logf("%d: %v", seq, err)
				continue
			}
			t.Logf("%d %s %v %.80q", seq, m.Subject, m.Header, m.Data)
		}
		t.Logf("serve: %s", serveLog.String())
	}
	if !poll(ctx, func() bool { return countSubjects(t, admin, "ts.call.>") == 1 }) {
		dump()
		t.Fatal("serve completed no call")
	}
	if out := run("calls", "--tenant", "acme"); !strings.Contains(out, "call completed") || !strings.Contains(out, "resp_00007") {
		dump()
		t.Fatalf("calls does not show the call:\n%s", out)
	}
	run("replay", "--projection", "assembler", "--verify")
}
