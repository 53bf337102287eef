package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"

	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/registry"
)

// The attacks on the registry (issue "Trust boundaries", items 2 and 3),
// each against serve's own wiring: the tools file recorded and followed by
// stack.FollowTools with the keys registryKeys makes in --data/auth, the
// assembler newProjection builds, and an executor on a Follower of the
// log. Each test fails if its attack works.

// registryRig is one serve's registry path over a real embedded server.
type registryRig struct {
	t        *testing.T
	ctx      context.Context
	b        *bus.Bus
	d        *deps
	dir      string
	tools    string // the tools file
	asm      *projector.Runner
	follower *registry.Follower
	marker   string // the file the forged command tool would create
	ran      chan string
}

const rigTools = `tools:
  - name: stock.get
    input_schema: {type: object, properties: {qty: {type: integer}}, required: [qty]}
    side_effect: none
grants:
  - tenant: acme
    permissions: [stock.get]
  - tenant: mallory
    permissions: []
`

func startRegistryRig(t *testing.T) *registryRig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	g := &globals{data: dir, stderr: io.Discard, stdout: io.Discard}
	r := &registryRig{t: t, ctx: ctx, dir: dir, tools: filepath.Join(dir, "tools.yaml"),
		marker: filepath.Join(dir, "pwned"), ran: make(chan string, 16)}
	r.b = bustest.StartIn(t, filepath.Join(dir, "nats"))
	r.d = &deps{g: g, log: log, bus: r.b, idleTimeout: 2 * time.Minute, argsMax: 1 << 20}
	if err := os.WriteFile(r.tools, []byte(rigTools), 0o644); err != nil {
		t.Fatal(err)
	}
	key, err := g.registryKeys(log, r.d, true) // serve --tools on its first start
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "auth", "registry.pub")); err != nil || r.d.trust.Len() != 1 {
		t.Fatalf("keys not made in --data/auth: %v, %d trusted", err, r.d.trust.Len())
	}
	if err := stack.FollowTools(ctx, r.b, log, r.tools, key, r.d.trust); err != nil {
		t.Fatal(err)
	}
	n := stack.NewNode(r.b, filepath.Join(dir, "views"), log)
	t.Cleanup(func() { n.Stop() })
	p, err := newProjection(assembler.Name, r.d)
	if err != nil {
		t.Fatal(err)
	}
	if r.asm, err = n.Start(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	if r.follower, err = registry.Follow(ctx, registry.FollowConfig{JS: r.b.JS, Trust: r.d.trust, Logger: log}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.follower.Stop)
	file, err := registry.Load(r.tools)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.follower.Wait(ctx, file.Digest()); err != nil {
		t.Fatal(err)
	}
	stock := executor.ToolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		r.ran <- c.Name
		return json.RawMessage(`{"qty":1}`), nil
	})
	ex, err := executor.New(executor.Config{JS: r.b.JS, Keys: r.b.Keys, Registry: r.follower.Current, Logger: log,
		Tools: map[string]executor.Tool{"stock.get": stock}})
	if err != nil {
		t.Fatal(err)
	}
	exCtx, exStop := context.WithCancel(ctx)
	exDone := make(chan error, 1)
	go func() { exDone <- ex.Run(exCtx) }()
	t.Cleanup(func() { exStop(); <-exDone })
	return r
}

// evilTools is what the attacker wants in force: a command tool granted to
// the attacker's tenant.
func (r *registryRig) evilTools() *registry.Registry {
	r.t.Helper()
	reg, err := registry.Parse([]byte(fmt.Sprintf("tools: [{name: evil, command: [/bin/sh, -c, 'touch %s'], side_effect: none}]\n"+
		"grants: [{tenant: mallory, permissions: ['*']}]", r.marker)))
	if err != nil {
		r.t.Fatal(err)
	}
	return reg
}

// publishRaw publishes on the registry subject as anyone allowed to
// publish there could, and returns the sequence.
func (r *registryRig) publishRaw(data []byte) uint64 {
	r.t.Helper()
	ack, err := r.b.JS.Publish(r.ctx, registry.Subject, data)
	if err != nil {
		r.t.Fatal(err)
	}
	return ack.Sequence
}

func (r *registryRig) forge(spec []byte, digest string) uint64 {
	r.t.Helper()
	data, err := events.Encode(&events.Event{ID: "forged:" + digest, Tenant: events.SystemTenant, At: time.Now().UnixNano(),
		Body: &events.RegistryChanged{Digest: digest, Source: "tools.yaml", Spec: spec}})
	if err != nil {
		r.t.Fatal(err)
	}
	return r.publishRaw(data)
}

// rejected waits until the assembler has applied seq and returns the
// reason it rejected it with ("" when it did not).
func (r *registryRig) rejected(seq uint64) string {
	r.t.Helper()
	if err := r.asm.WaitFor(r.ctx, seq); err != nil {
		r.t.Fatal(err)
	}
	rj, ok, err := r.asm.Rejection(seq)
	if err != nil {
		r.t.Fatal(err)
	}
	if !ok {
		return ""
	}
	return rj.Reason
}

// call streams a call through the model subjects and returns the
// assembler's decision.
func (r *registryRig) call(tenant, resp, tool, args string) *events.Event {
	r.t.Helper()
	for _, ev := range []*events.Event{
		{ID: resp + ":added", Body: &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: tool}},
		{ID: resp + ":done", Body: &events.ArgumentsDone{Arguments: args, HasArguments: true}},
	} {
		ev.Tenant, ev.Response, ev.Item, ev.CallID, ev.At = tenant, resp, "i1", "call_"+resp, time.Now().UnixNano()
		subj, err := events.ModelSubject(tenant, resp, "i1")
		if err != nil {
			r.t.Fatal(err)
		}
		if _, err := r.b.Publish(r.ctx, subj, ev); err != nil {
			r.t.Fatal(err)
		}
	}
	evs, err := bustest.WaitEvents(r.ctx, r.b, []string{"ts.call." + tenant + ".>"}, func(evs []*events.Event) bool {
		return slices.ContainsFunc(evs, func(ev *events.Event) bool { return ev.Response == resp })
	})
	if err != nil {
		r.t.Fatalf("no decision on %s: %v", resp, err)
	}
	for _, ev := range evs {
		if ev.Response == resp {
			return ev
		}
	}
	return nil
}

// direct publishes a CallCompleted for tool as the attacker would, past the
// assembler, and returns the executor's outcome.
func (r *registryRig) direct(tenant, tool string) *events.Event {
	r.t.Helper()
	subj, err := events.CallSubject(tenant, tool)
	if err != nil {
		r.t.Fatal(err)
	}
	ev := &events.Event{ID: events.CompletedID(tenant, "direct", tool), Tenant: tenant, Response: "direct", Item: tool, CallID: "call_direct_" + tool,
		At: time.Now().UnixNano(), Body: &events.CallCompleted{Name: tool, Arguments: []byte(`{}`)}}
	if _, err := r.b.Publish(r.ctx, subj, ev); err != nil {
		r.t.Fatal(err)
	}
	evs, err := bustest.WaitEvents(r.ctx, r.b, []string{"ts.result." + tenant + ".>"}, func(evs []*events.Event) bool {
		return slices.ContainsFunc(evs, func(e *events.Event) bool { return e.CallID == ev.CallID })
	})
	if err != nil {
		r.t.Fatalf("no outcome of the direct call: %v", err)
	}
	for _, e := range evs {
		if e.CallID == ev.CallID {
			return e
		}
	}
	return nil
}

// lastChange is the last event on the registry subject.
func (r *registryRig) lastChange() (uint64, *events.RegistryChanged) {
	r.t.Helper()
	s, err := r.b.JS.Stream(r.ctx, registry.SubjectStream)
	if err != nil {
		r.t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(r.ctx, registry.Subject)
	if err != nil {
		r.t.Fatal(err)
	}
	ev, err := events.Decode(m.Data)
	if err != nil {
		return m.Sequence, nil
	}
	rc, _ := events.As[*events.RegistryChanged](ev)
	return m.Sequence, rc
}

// waitRerecorded waits for the watcher's next poll to record the file
// after seq, signed.
func (r *registryRig) waitRerecorded(after uint64, digest string) {
	r.t.Helper()
	for {
		seq, rc := r.lastChange()
		if seq > after && rc != nil && rc.Digest == digest && len(rc.Sig) > 0 {
			return
		}
		select {
		case <-r.ctx.Done():
			r.t.Fatalf("the watcher did not record the file after seq %d", after)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (r *registryRig) fileDigest() string {
	r.t.Helper()
	reg, err := registry.Load(r.tools)
	if err != nil {
		r.t.Fatal(err)
	}
	return reg.Digest()
}

// TestAttackForgedRegistry: anyone who may publish on the registry subject
// forges a change that adds a command tool and grants it to their tenant.
// It never takes effect: the assembler rejects it (registry_unsigned) and
// calls to the tool (unknown_tool), the executor refuses the tool when the
// call is published past the assembler and never runs it, the follower
// keeps the file's registry, and the watcher's next poll records the file
// after the forgery.
func TestAttackForgedRegistry(t *testing.T) {
	r := startRegistryRig(t)
	evil := r.evilTools()
	seq := r.forge(evil.Spec(), evil.Digest())
	if reason := r.rejected(seq); !strings.Contains(reason, string(events.ReasonRegistryUnsigned)) {
		t.Fatalf("the assembler took the forged registry (rejection %q)", reason)
	}
	if ev := r.call("mallory", "r1", "evil", `{}`); ev.Kind != events.KindCallRejected ||
		ev.Body.(*events.CallRejected).Reason != events.ReasonUnknownTool {
		t.Fatalf("the assembler did not reject the forged tool: %s %+v", ev.Kind, ev.Body)
	}
	if ev := r.call("mallory", "r2", "stock.get", `{"qty":1}`); ev.Kind != events.KindCallRejected ||
		ev.Body.(*events.CallRejected).Reason != events.ReasonPermission {
		t.Fatalf("the forged grant took effect: %s %+v", ev.Kind, ev.Body)
	}
	out := r.direct("mallory", "evil")
	failed, ok := events.As[*events.CallFailed](out)
	if !ok || failed.Error != events.ErrUnknownTool && failed.Error != events.ErrPermissionDenied {
		t.Fatalf("the executor did not refuse the forged tool: %s %+v", out.Kind, out.Body)
	}
	if _, err := os.Stat(r.marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the forged command ran: %v", err)
	}
	if cur := r.follower.Current(); cur.Digest() != r.fileDigest() {
		t.Fatalf("the follower took the forged registry: %.12s", cur.Digest())
	}
	r.waitRerecorded(seq, r.fileDigest())
	// The legitimate tool still runs.
	if ev := r.call("acme", "r3", "stock.get", `{"qty":1}`); ev.Kind != events.KindCallCompleted {
		t.Fatalf("the file's registry is not in force: %s %+v", ev.Kind, ev.Body)
	}
	select {
	case name := <-r.ran:
		if name != "stock.get" {
			t.Fatalf("ran %s", name)
		}
	case <-r.ctx.Done():
		t.Fatal("the legitimate call did not run")
	}
}

// TestAttackReplayedRegistry: the operator revokes a grant by editing the
// tools file; the attacker publishes the older, validly signed change
// again. It is stale for the assembler and the follower, the grant stays
// revoked, and the watcher records the file again after it.
func TestAttackReplayedRegistry(t *testing.T) {
	r := startRegistryRig(t)
	firstSeq, _ := r.lastChange()
	s, err := r.b.JS.Stream(r.ctx, registry.SubjectStream)
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.GetMsg(r.ctx, firstSeq)
	if err != nil {
		t.Fatal(err)
	}
	revoked := strings.Replace(rigTools, "permissions: [stock.get]", "permissions: []", 1)
	if err := os.WriteFile(r.tools, []byte(revoked), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.follower.Wait(r.ctx, r.fileDigest()); err != nil {
		t.Fatalf("the edit did not take effect: %v", err)
	}
	seq := r.publishRaw(first.Data)
	if reason := r.rejected(seq); !strings.Contains(reason, string(events.ReasonRegistryStale)) {
		t.Fatalf("the assembler took the replayed registry (rejection %q)", reason)
	}
	if ev := r.call("acme", "r1", "stock.get", `{"qty":1}`); ev.Kind != events.KindCallRejected ||
		ev.Body.(*events.CallRejected).Reason != events.ReasonPermission {
		t.Fatalf("the replay restored a revoked grant: %s %+v", ev.Kind, ev.Body)
	}
	if cur := r.follower.Current(); cur.Digest() != r.fileDigest() {
		t.Fatalf("the follower rolled back: %.12s", cur.Digest())
	}
	r.waitRerecorded(seq, r.fileDigest())
	// Replay of the assembler from the log decides the same way.
	live, err := r.asm.Digest()
	if err != nil {
		t.Fatal(err)
	}
	p, err := newProjection(assembler.Name, r.d)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt, err := projector.Replay(r.ctx, projector.Config{JS: r.b.JS, Keys: r.b.Keys, Dir: filepath.Join(t.TempDir(), "replay")}, p, live.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt != live {
		t.Fatalf("replay %v, live %v", rebuilt, live)
	}
}

// TestAttackAliasBomb: a few hundred bytes of nested YAML aliases (a
// "billion laughs"). As the tools file, serve refuses it at once, and a
// running watcher keeps the registry in force; published as a
// RegistryChanged, it is rejected before it is parsed, and processing goes
// on. Memory stays flat throughout.
func TestAttackAliasBomb(t *testing.T) {
	bomb := aliasBombYAML
	r := startRegistryRig(t)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	// The file: refused by Load (serve --tools on start) and by the watcher.
	path := filepath.Join(r.dir, "bomb.yaml")
	if err := os.WriteFile(path, []byte(bomb), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Load(path); err == nil || !strings.Contains(err.Error(), "aliases") {
		t.Fatalf("Load: %v", err)
	}
	if err := os.WriteFile(r.tools, []byte(bomb), 0o644); err != nil {
		t.Fatal(err)
	}
	fileDigest := r.follower.Current().Digest()

	// The published event: unsigned, it is rejected before it is parsed.
	seq := r.forge([]byte(bomb), strings.Repeat("0", 64))
	if reason := r.rejected(seq); !strings.Contains(reason, string(events.ReasonRegistryUnsigned)) {
		t.Fatalf("the assembler did not reject the bomb as unsigned: %q", reason)
	}
	if ev := r.call("acme", "r1", "stock.get", `{"qty":1}`); ev.Kind != events.KindCallCompleted {
		t.Fatalf("processing did not go on: %s %+v", ev.Kind, ev.Body)
	}
	r.waitRerecorded(seq, fileDigest) // the watcher still records the last good file
	if cur := r.follower.Current(); cur.Digest() != fileDigest {
		t.Fatalf("the follower left the registry in force: %.12s", cur.Digest())
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 64<<20 {
		t.Fatalf("the heap grew by %d MiB", grown>>20)
	}
}
