package stack_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/cluster"
	"github.com/toolstream/toolstream/internal/jstest"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier"
)

// The attacks on durables (docs/security.md): a processor's own credential deleted
// the shared ts-executor consumer and every executor stopped. The
// durables are the admin's (stack.CreateConsumers, as serve and setup run
// it); a processor's role may look its own up, pull and acknowledge.

// consumers reads every durable's info as the admin.
func consumers(ctx context.Context, t *testing.T, b *bus.Bus, ds []stack.Durable) map[stack.Durable]*jetstream.ConsumerInfo {
	t.Helper()
	out := map[stack.Durable]*jetstream.ConsumerInfo{}
	for _, d := range ds {
		c, err := b.JS.Consumer(ctx, d.Stream, d.Name)
		if err != nil {
			t.Fatalf("%s on %s: %v", d.Name, d.Stream, err)
		}
		out[d] = c.CachedInfo()
	}
	return out
}

// TestAttackProcessorsCannotTouchDurables: each processor role, with the
// stock nats CLI (consumer rm, edit with a changed ack wait, add over it
// from a config file, pause) and with a forging nats.go client (delete,
// create-or-update with a changed config, pause), goes at its own durable
// and at the executor's. Attacker: every attempt fails (the server refuses
// the request: the CLI exits non-zero, nats.go returns an error); what it
// may do, bind its own durable (CONSUMER.INFO), works. Victim: every
// durable is there afterwards with the very config and creation time the
// admin gave it, unpaused.
func TestAttackProcessorsCannotTouchDurables(t *testing.T) {
	cli := jstest.NatsCLI(t)
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := stack.CreateConsumers(ctx, b, nil); err != nil {
		t.Fatal(err)
	}
	ds, err := stack.Durables(b)
	if err != nil {
		t.Fatal(err)
	}
	before := consumers(ctx, t, b, ds)
	executor := stack.Durable{Stream: events.StreamCalls, Name: "ts-executor"}
	own := map[auth.Role]stack.Durable{
		auth.RoleExecutor:  executor,
		auth.RoleVerifier:  {Stream: events.StreamOut, Name: "ts-verifier"},
		auth.RoleMemory:    {Stream: events.StreamMemory, Name: "ts-memory"},
		auth.RoleRuns:      {Stream: events.StreamOut, Name: "ts-runs"},
		auth.RoleAssembler: {Stream: events.StreamModel, Name: "ts-assembler"},
	}
	for role, d := range own {
		if _, ok := before[d]; !ok {
			t.Fatalf("%s: no durable %s on %s among %v", role, d.Name, d.Stream, ds)
		}
	}
	// Refused requests go unanswered: each attempt waits out its timeout,
	// so the roles attack at once.
	t.Run("roles", func(t *testing.T) {
		for _, role := range []auth.Role{auth.RoleExecutor, auth.RoleAssembler, auth.RoleVerifier, auth.RoleMemory, auth.RoleRuns} {
			t.Run(string(role), func(t *testing.T) {
				t.Parallel()
				attackDurables(ctx, t, b, cli, role, own[role], executor, before)
			})
		}
	})

	after := consumers(ctx, t, b, ds)
	for d, was := range before {
		now := after[d]
		if !reflect.DeepEqual(now.Config, was.Config) || !now.Created.Equal(was.Created) || now.Paused {
			t.Errorf("%s on %s changed: %+v (created %v, paused %v), was %+v (created %v)", d.Name, d.Stream,
				now.Config, now.Created, now.Paused, was.Config, was.Created)
		}
	}
}

// TestProcessorWithoutItsDurableSaysWhatToRun: the verifier's role starts
// its projection while ts-verifier is missing, and the executor's role its
// executor while ts-executor is (the buckets made, the durables not: setup
// half run). Neither makes it (its role may not): Run fails with
// projector.ErrNoConsumer, executor.ErrNoConsumer, naming `toolstream
// setup`, and nothing was created.
func TestProcessorWithoutItsDurableSaysWhatToRun(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	js := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleVerifier})
	r, err := projector.New(projector.Config{JS: js, Dir: t.TempDir(), Keys: b.Keys}, verifier.NewProjection(verifier.ProjectionConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.Run(ctx)
	var nc *projector.NoConsumerError
	if !errors.Is(err, projector.ErrNoConsumer) || !errors.As(err, &nc) || nc.Durable != "ts-verifier" {
		t.Fatalf("Run without its durable: %v, want ErrNoConsumer for ts-verifier", err)
	}
	if want := "toolstream setup"; !strings.Contains(err.Error(), want) {
		t.Fatalf("%v does not name %q", err, want)
	}
	if _, err := b.JS.Consumer(ctx, events.StreamOut, "ts-verifier"); !errors.Is(err, jetstream.ErrConsumerNotFound) {
		t.Fatalf("ts-verifier after the role's start: %v, want not found", err)
	}

	if err := cluster.Setup(ctx, b, nil); err != nil { // the buckets, as the admin
		t.Fatal(err)
	}
	ejs := bustest.RoleJS(t, b, auth.Identity{Role: auth.RoleExecutor})
	e, err := executor.New(executor.Config{JS: ejs, Keys: b.Keys, Tools: map[string]executor.Tool{}})
	if err != nil {
		t.Fatal(err)
	}
	err = e.Run(ctx)
	if !errors.Is(err, executor.ErrNoConsumer) || !strings.Contains(err.Error(), "toolstream setup") || !strings.Contains(err.Error(), "ts-executor") {
		t.Fatalf("executor Run without its durable: %v, want ErrNoConsumer naming ts-executor and toolstream setup", err)
	}
	if _, err := b.JS.Consumer(ctx, events.StreamCalls, "ts-executor"); !errors.Is(err, jetstream.ErrConsumerNotFound) {
		t.Fatalf("ts-executor after the role's start: %v, want not found", err)
	}
}

// attackDurables is one role's attacks on its own durable and the
// executor's, with the stock nats CLI and a forging nats.go client.
func attackDurables(ctx context.Context, t *testing.T, b *bus.Bus, cli string, role auth.Role, mine, executor stack.Durable,
	before map[stack.Durable]*jetstream.ConsumerInfo) {
	id := auth.Identity{Role: role}
	creds := bustest.Creds(t, b, id)
	until := time.Now().Add(time.Hour).UTC().Format(time.DateTime)
	run := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, cli, append([]string{"--server", b.ClientURL(), "--creds", creds,
			"--inbox-prefix", id.InboxPrefix(), "--timeout", "2s"}, args...)...)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("%s: nats %v succeeded:\n%s", role, args, out)
		}
	}
	js := bustest.RoleJS(t, b, id)
	targets := []stack.Durable{mine}
	if mine != executor {
		targets = append(targets, executor)
	}
	for _, d := range targets {
		// The durable's own config with a shorter ack wait, as a file.
		changed := filepath.Join(t.TempDir(), d.Name+".json")
		cfg := before[d].Config
		cfg.AckWait = time.Second
		data, _ := json.Marshal(cfg)
		if err := os.WriteFile(changed, data, 0o600); err != nil {
			t.Fatal(err)
		}
		run("consumer", "rm", d.Stream, d.Name, "-f")
		run("consumer", "edit", d.Stream, d.Name, "--wait", "1s", "-f")
		run("consumer", "add", d.Stream, d.Name, "--config", changed)
		run("consumer", "pause", d.Stream, d.Name, until, "-f")

		short := func() context.Context {
			c, cancel := context.WithTimeout(ctx, 2*time.Second)
			t.Cleanup(cancel)
			return c
		}
		if err := js.DeleteConsumer(short(), d.Stream, d.Name); err == nil {
			t.Errorf("%s: nats.go deleted %s", role, d.Name)
		}
		c := before[d].Config
		c.AckWait, c.MaxAckPending = time.Second, 1
		if _, err := js.CreateOrUpdateConsumer(short(), d.Stream, c); err == nil {
			t.Errorf("%s: nats.go reconfigured %s", role, d.Name)
		}
		if _, err := js.PauseConsumer(short(), d.Stream, d.Name, time.Now().Add(time.Hour)); err == nil {
			t.Errorf("%s: nats.go paused %s", role, d.Name)
		}
	}
	if _, err := js.Consumer(ctx, mine.Stream, mine.Name); err != nil {
		t.Errorf("%s cannot bind its own durable %s: %v", role, mine.Name, err)
	}
}
