package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/internal/trace"
)

// TestAttackClaimedIDsDoNotSwallowPublish (docs/security.md): acme's
// producer, with the stock nats CLI, publishes junk on its own model
// subject under every edge id `toolstream publish --tenant globex
// --stream s1` will use. Attacker: its junk is stored under its subject
// and takes nothing. Victim: globex's publish stores every model event
// (the output names no duplicate) and its call completes; the same
// command run again (the same creds) stores nothing twice and says so.
func TestAttackClaimedIDsDoNotSwallowPublish(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	n := stack.NewNode(b, t.TempDir(), nil)
	t.Cleanup(func() { n.Stop() })
	if _, err := n.Start(ctx, assembler.New(assembler.Config{}), nil); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("..", "..", "testdata", "streams", "openai-responses-azure-weather.jsonl")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	acme := auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}
	acmeCreds := bustest.Creds(t, b, acme)
	var batch strings.Builder
	for pos := int64(0); pos <= int64(bytes.Count(raw, []byte("\n")))+1; pos++ {
		for k := 0; k < 4; k++ {
			batch.WriteString(events.EdgeEventID("globex", "s1", pos, k) + "\n")
		}
	}
	ids := strings.Fields(batch.String())
	cli := jstest.NatsCLI(t)
	for _, id := range ids {
		cmd := exec.CommandContext(ctx, cli, "--server", b.ClientURL(), "--creds", acmeCreds, "--inbox-prefix", acme.InboxPrefix(),
			"pub", "--jetstream", "--header", "Nats-Msg-Id:"+id, "ts.model.acme.junk.i", `{"junk":true}`)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("nats pub: %v\n%s", err, out)
		}
	}
	info, err := b.Stream(events.StreamModel).Info(ctx, jetstream.WithSubjectFilter("ts.model.acme.>"))
	if err != nil || info.State.Msgs < uint64(len(ids)) {
		t.Fatalf("acme's junk: %v stored, %d published (%v)", info.State.Msgs, len(ids), err)
	}

	globex := bustest.Creds(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "globex"})
	publish := func() string {
		var out, errOut bytes.Buffer
		root := newRoot(&out, &errOut)
		root.SetArgs([]string{"publish", "--provider", "openai-responses", "--tenant", "globex", "--stream", "s1", file,
			"--creds", globex, "--nats-url", b.ClientURL(), "--data", t.TempDir(), "--log-level", "error"})
		if err := root.ExecuteContext(ctx); err != nil {
			t.Fatalf("toolstream publish: %v\n%s%s", err, out.String(), errOut.String())
		}
		return out.String()
	}
	first := publish()
	if strings.Contains(first, "already in the log") {
		t.Fatalf("globex's first publish met acme's junk: %s", first)
	}
	if err := n.Settle(ctx, assembler.Name); err != nil {
		t.Fatal(err)
	}
	call, err := trace.Call(ctx, b, "globex", "call_H5DxLSFnsGhiROnUiDHmgyc8", "")
	if err != nil || call.Outcome != "completed" {
		t.Fatalf("globex's call: %+v, %v", call, err)
	}
	if again := publish(); !strings.Contains(again, "already in the log") {
		t.Fatalf("globex's publish again: %s", again)
	}
}
