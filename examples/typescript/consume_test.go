package typescript_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/keys"
)

// TestConsumeExample runs consume.mjs with node, as a producer of tenant
// acme, against a real embedded server, and publishes from Go what the
// pipeline publishes: calls completed, rejected and cut, results and
// failures, sealed under the users' data keys as serve seals them (one in
// the clear), a call of a user erased after it was written, and another
// tenant's call. The script prints each of acme's events with its body
// opened (the erased one: its envelope only) and never sees the other
// tenant's.
func TestConsumeExample(t *testing.T) {
	dir := jstest.Dir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := bustest.Start(t)
	creds := bustest.Creds(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})

	// The script runs from a directory under testdata/js, so that its
	// imports resolve to the packages installed there.
	src, err := os.ReadFile("consume.mjs")
	if err != nil {
		t.Fatal(err)
	}
	run, err := os.MkdirTemp(dir, ".consume-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	script := filepath.Join(run, "consume.mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}

	const want = 6
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NATS_URL="+b.ClientURL(), "NATS_CREDS="+creds, "TENANT=acme", "COUNT=6")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("consume.mjs ended early: %v\nstderr:\n%s", cmd.Wait(), stderr.String())
			}
			return l
		case <-ctx.Done():
			t.Fatalf("consume.mjs printed nothing in time\nstderr:\n%s", stderr.String())
		}
		return ""
	}
	if l := next(); !strings.HasPrefix(l, "# listening") {
		t.Fatalf("first line %q, want the script listening", l)
	}

	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).UnixNano()
	key := func(call string) string { return events.IdempotencyKey("acme", "run-1", "resp-1", call) }
	subj := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	env := func(id, user, call string, body events.Body) *events.Event {
		return &events.Event{ID: id, Tenant: "acme", User: user, Run: "run-1", Step: "resp-1", Response: "resp-1", Item: call, CallID: call, At: at, Body: body}
	}
	sealed := func(s string, ev *events.Event) {
		t.Helper()
		if _, err := b.PublishSealed(ctx, s, ev, ""); err != nil {
			t.Fatal(err)
		}
	}
	sealed(subj(events.CallSubject("acme", "lookup")),
		env("c1", "ann", "call_1", &events.CallCompleted{Name: "lookup", Arguments: []byte(`{"city":"Oslo"}`)}))
	// Another tenant's call: not acme's subject; the producer may not read it.
	other := env("c0", "ann", "call_0", &events.CallCompleted{Name: "lookup", Arguments: []byte(`{}`)})
	other.Tenant = "other"
	sealed(subj(events.CallSubject("other", "lookup")), other)
	sealed(subj(events.ResultSubject("acme", key("call_1"))),
		env("s1", "ann", "call_1", &events.CallSucceeded{Name: "lookup", Key: key("call_1"), Result: []byte(`{"temp_c":4}`), Summary: "4°C in Oslo"}))
	sealed(subj(events.CallSubject("acme", "lookup")),
		env("r2", "ann", "call_2", &events.CallRejected{Name: "lookup", Reason: events.ReasonSchemaViolation, Detail: "/city: missing"}))
	sealed(subj(events.CallSubject("acme", "lookup")),
		env("i3", "", "call_3", &events.CallIncomplete{Name: "lookup", Reason: events.ReasonTruncated, From: events.Provenance{Bytes: 9}}))
	// A failure in the clear (as a process without a keyring writes it).
	if _, err := b.Publish(ctx, subj(events.ResultSubject("acme", key("call_4"))),
		env("f4", "", "call_4", &events.CallFailed{Name: "lookup", Key: key("call_4"), Error: events.ErrToolError, Message: "upstream said 502"})); err != nil {
		t.Fatal(err)
	}
	// Bob's call, sealed, then bob erased before anyone reads it.
	data, err := events.EncodeSealed(env("c5", "bob", "call_5", &events.CallCompleted{Name: "lookup", Arguments: []byte(`{"city":"Bergen"}`)}), b.Keys, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Keys.(*keys.Store).Erase(ctx, "acme", "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.JS.Publish(ctx, subj(events.CallSubject("acme", "lookup")), data); err != nil {
		t.Fatal(err)
	}

	var got []string
	for range want {
		got = append(got, next())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("consume.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	expected := []string{
		`call.completed tenant=acme user=ann call=call_1 tool=lookup args={"city":"Oslo"}`,
		`exec.succeeded tenant=acme user=ann call=call_1 tool=lookup result={"temp_c":4} summary="4°C in Oslo"`,
		`call.rejected tenant=acme user=ann call=call_2 tool=lookup reason=schema_violation detail="/city: missing"`,
		`call.incomplete tenant=acme call=call_3 tool=lookup reason=truncated bytes=9`,
		`exec.failed tenant=acme call=call_4 tool=lookup error=tool_error message="upstream said 502"`,
		`call.completed tenant=acme user=bob call=call_5 erased (its key was destroyed): envelope only`,
	}
	if strings.Join(got, "\n") != strings.Join(expected, "\n") {
		t.Fatalf("consume.mjs printed:\n%s\nwant:\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(expected, "\n"), stderr.String())
	}
	if stderr.Len() > 0 {
		t.Fatalf("consume.mjs wrote to stderr:\n%s", stderr.String())
	}
}
