package registry_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/bus/bustest"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

func writeFile(t *testing.T, path, src string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestWatcherPicksUpChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.yaml")
	t0 := time.Unix(1_700_000_000, 0)
	writeFile(t, path, `tools: [{name: a}]`, t0)
	changes := make(chan *registry.Registry, 4)
	w, err := registry.NewWatcher(registry.WatcherConfig{Path: path, Interval: time.Millisecond,
		OnChange: func(r *registry.Registry) { changes <- r }})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Current().Lookup("a"); !ok {
		t.Fatal("initial registry not loaded")
	}
	if changed, err := w.Poll(); changed || err != nil {
		t.Fatalf("unchanged file: %v %v", changed, err)
	}
	// Same content, new mtime: no change. Same registry, other layout: no change.
	writeFile(t, path, `tools: [{name: a}]`, t0.Add(time.Second))
	if changed, err := w.Poll(); changed || err != nil {
		t.Fatalf("touched file: %v %v", changed, err)
	}
	writeFile(t, path, "tools:\n  - name: a\n", t0.Add(2*time.Second))
	if changed, err := w.Poll(); changed || err != nil {
		t.Fatalf("relaid file: %v %v", changed, err)
	}
	// A broken file keeps the previous registry.
	writeFile(t, path, `tools: [{name: a, timeout: never}]`, t0.Add(3*time.Second))
	if changed, err := w.Poll(); changed || err == nil || !strings.Contains(err.Error(), "tools[0].timeout") {
		t.Fatalf("broken file: %v %v", changed, err)
	}
	if _, ok := w.Current().Lookup("a"); !ok {
		t.Fatal("broken file dropped the registry")
	}
	// Run notices a real change.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	writeFile(t, path, `tools: [{name: a}, {name: b}]`, t0.Add(4*time.Second))
	select {
	case r := <-changes:
		if _, ok := r.Lookup("b"); !ok || w.Current() != r {
			t.Fatal("change not in effect")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no change noticed in 10s")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestPublishAndFollowTheLog(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := registry.Follow(ctx, b.JS, bus.StreamName, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	if f.Current() != nil {
		t.Fatal("empty log has a registry")
	}
	ra := mustParse(t, `tools: [{name: a}]`)
	rb := mustParse(t, `tools: [{name: b}]`)
	for i, step := range []struct {
		r       *registry.Registry
		publish bool
	}{{ra, true}, {ra, false}, {rb, true}, {ra, true}} { // A → A (no-op) → B → A again
		published, err := registry.Publish(ctx, b.JS, bus.StreamName, step.r, "tools.yaml")
		if err != nil || published != step.publish {
			t.Fatalf("step %d: published %v, %v; want %v", i, published, err, step.publish)
		}
		if err := f.Wait(ctx, step.r.Digest()); err != nil {
			t.Fatalf("step %d: follower: %v", i, err)
		}
	}
	// A late follower starts from the last change.
	g, err := registry.Follow(ctx, b.JS, bus.StreamName, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	if g.Current().Digest() != ra.Digest() {
		t.Fatal("late follower does not see the current registry")
	}
	// A broken change is skipped; the previous registry stays.
	data, _ := events.Encode(&events.Event{ID: "bad", Tenant: events.SystemTenant,
		Body: &events.RegistryChanged{Digest: "x", Spec: []byte(`tools: [{name: ""}]`)}})
	if _, err := b.JS.Publish(ctx, registry.Subject, data); err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Publish(ctx, b.JS, bus.StreamName, rb, "tools.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(ctx, rb.Digest()); err != nil {
		t.Fatal(err)
	}
	// Concurrent publishers of the same file record it once.
	rc := mustParse(t, `tools: [{name: c}]`)
	errs := make(chan error, 4)
	pubs := make(chan bool, 4)
	for range 4 {
		go func() {
			p, err := registry.Publish(ctx, b.JS, bus.StreamName, rc, "tools.yaml")
			pubs <- p
			errs <- err
		}()
	}
	n := 0
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if <-pubs {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d concurrent publishers wrote the change, want 1", n)
	}
}

func TestWatcherRecordsChangesInTheLog(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "tools.yaml")
	t0 := time.Unix(1_700_000_000, 0)
	writeFile(t, path, `tools: [{name: a}]`, t0)
	w, err := registry.NewWatcher(registry.WatcherConfig{Path: path, Interval: time.Millisecond, JS: b.JS, Stream: bus.StreamName})
	if err != nil {
		t.Fatal(err)
	}
	f, err := registry.Follow(ctx, b.JS, bus.StreamName, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	done := make(chan error, 1)
	runCtx, stop := context.WithCancel(ctx)
	go func() { done <- w.Run(runCtx) }()
	if err := f.Wait(ctx, w.Current().Digest()); err != nil {
		t.Fatalf("initial registry not in the log: %v", err)
	}
	writeFile(t, path, `tools: [{name: a}, {name: b}]`, t0.Add(time.Second))
	next := mustParse(t, `tools: [{name: a}, {name: b}]`)
	if err := f.Wait(ctx, next.Digest()); err != nil {
		t.Fatalf("change not in the log: %v", err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var changes int
	c, _ := b.JS.OrderedConsumer(ctx, bus.StreamName, jetstream.OrderedConsumerConfig{FilterSubjects: []string{registry.Subject}})
	batch, _ := c.FetchNoWait(10)
	for m := range batch.Messages() {
		ev, err := events.Decode(m.Data())
		if err != nil || ev.Tenant != events.SystemTenant {
			t.Fatalf("registry event %v %v", ev, err)
		}
		if rc, _ := events.As[*events.RegistryChanged](ev); rc.Source != path {
			t.Fatalf("source %q", rc.Source)
		}
		changes++
	}
	if changes != 2 {
		t.Fatalf("%d registry events, want 2", changes)
	}
}
