package cluster_test

import (
	"bytes"
	"context"
	"github.com/toolstream/toolstream/events"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/clustertest"
)

// TestBinaryWorksAgainstACluster runs the toolstream binary with --nats-url
// listing the three servers of a cluster, each command with the .creds of
// its role: setup (admin) creates the log, serve runs the keys service
// (keys) and the processor (assembler), publish sends a provider stream (producer of acme), calls
// shows the completed call (reader), replay --verify finds the live view
// equal to a rebuilt one (operator). A stream published --raw is sealed by
// ingest under the assembler's role and its clear messages deleted.
func TestBinaryWorksAgainstACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := toolstreamBinary()
	if err != nil {
		t.Fatal(err)
	}
	c := clustertest.Start(t, clustertest.Config{})
	urls := c.URLs()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	creds := func(id auth.Identity) string { return c.Creds(t, id) }
	if out, err := exec.CommandContext(ctx, bin, "setup", "--nats-url", urls, "--creds", creds(auth.Identity{Role: auth.RoleAdmin}),
		"--data", filepath.Join(dir, "setup")).CombinedOutput(); err != nil {
		t.Fatalf("toolstream setup: %v\n%s", err, out)
	}
	// The keys service as its own role: the processors and the producer
	// ask it for their users' data keys.
	keysServe := exec.Command(bin, "serve", "--components", "keys", "--nats-url", urls, "--data", filepath.Join(dir, "keys"),
		"--creds", creds(auth.Identity{Role: auth.RoleKeyring}))
	var keysLog bytes.Buffer
	keysServe.Stderr = &keysLog
	if err := keysServe.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		keysServe.Process.Signal(os.Interrupt)
		keysServe.Wait()
	}()
	serve := exec.Command(bin, "serve", "--components", "ingest,assembler,responses", "--nats-url", urls, "--data", filepath.Join(dir, "serve"),
		"--creds", creds(auth.Identity{Role: auth.RoleAssembler}))
	var serveLog bytes.Buffer
	serve.Stderr = &serveLog
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serve.Process.Signal(os.Interrupt)
		serve.Wait()
	}()
	// Executors as their own role, as docker-compose.yml runs them.
	exec1 := exec.Command(bin, "serve", "--components", "executor", "--nats-url", urls, "--data", filepath.Join(dir, "executor"),
		"--creds", creds(auth.Identity{Role: auth.RoleExecutor}))
	var execLog bytes.Buffer
	exec1.Stderr = &execLog
	if err := exec1.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		exec1.Process.Signal(os.Interrupt)
		exec1.Wait()
	}()
	run := func(id auth.Identity, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, append(args, "--nats-url", urls, "--data", filepath.Join(dir, "cli"), "--creds", creds(id))...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("toolstream %s: %v\n%s\nserve: %s", strings.Join(args, " "), err, out, serveLog.String()+"\nkeys: "+keysLog.String())
		}
		return string(out)
	}
	_, raw := rawCall(7)
	file := filepath.Join(dir, "stream.jsonl")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("publish: %s", run(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, "publish", "--provider", "openai-responses", "--tenant", "acme", "--stream", "s7", file))
	// A second stream verbatim (--raw, as a third-party producer): ingest,
	// as the assembler's role, seals it and deletes the clear messages.
	_, raw8 := rawCall(8)
	file8 := filepath.Join(dir, "stream8.jsonl")
	if err := os.WriteFile(file8, raw8, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("publish --raw: %s", run(auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, "publish", "--raw", "--provider", "openai-responses", "--tenant", "acme", "--stream", "s8", file8))

	admin := c.Open(t, bus.Config{Name: "admin"})
	if admin.Replicas() != 3 {
		t.Fatalf("the binary's stream has %d replicas", admin.Replicas())
	}
	dump := func() {
		for _, stream := range events.Streams {
			last, err := admin.LastSeq(ctx, stream)
			t.Logf("%s: last sequence %d (%v)", stream, last, err)
			for seq := uint64(1); seq <= last; seq++ {
				m, err := admin.Stream(stream).GetMsg(ctx, seq)
				if err != nil {
					t.Logf("%d: %v", seq, err)
					continue
				}
				t.Logf("%s %d %s %v %.80q", stream, seq, m.Subject, m.Header, m.Data)
			}
		}
		t.Logf("serve: %s\nkeys: %s", serveLog.String(), keysLog.String())
	}
	if !poll(ctx, func() bool { return countSubjects(t, admin, "ts.call.>") == 2 }) {
		dump()
		t.Fatal("serve did not complete both calls")
	}
	if !poll(ctx, func() bool {
		return countSubjects(t, admin, "ts.in.acme.>") == 0 && countSubjects(t, admin, "ts.raw.acme.>") == rawEventsPerCall
	}) {
		dump()
		t.Fatal("the raw stream is not all sealed, its clear messages not all deleted")
	}
	// No tool implements the call here: the executor, as its role, answers
	// it with a typed failure.
	if !poll(ctx, func() bool { return countSubjects(t, admin, "ts.result.>") == 2 }) {
		dump()
		t.Fatalf("the executor answered no call:\n%s", execLog.String())
	}
	if out := run(auth.Identity{Role: auth.RoleReader}, "calls", "--tenant", "acme"); !strings.Contains(out, "call.completed") || !strings.Contains(out, "resp_00007") {
		dump()
		t.Fatalf("calls does not show the call:\n%s", out)
	}
	run(auth.Identity{Role: auth.RoleOperator}, "replay", "--projection", "assembler", "--verify")
	// Ingest's view rebuilt from the copies alone equals the live one.
	run(auth.Identity{Role: auth.RoleOperator}, "replay", "--projection", "ingest", "--verify")
}
