package registry_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
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
	key := mustKey(t)
	pc := registry.PublishConfig{JS: b.JS, Key: key, Source: "tools.yaml"}
	fc := registry.FollowConfig{JS: b.JS, Trust: key.Trust()}
	f, err := registry.Follow(ctx, fc)
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
		published, err := registry.Publish(ctx, pc, step.r)
		if err != nil || published != step.publish {
			t.Fatalf("step %d: published %v, %v; want %v", i, published, err, step.publish)
		}
		if err := f.Wait(ctx, step.r.Digest()); err != nil {
			t.Fatalf("step %d: follower: %v", i, err)
		}
	}
	// A late follower starts from the last change.
	g, err := registry.Follow(ctx, fc)
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
	if _, err := registry.Publish(ctx, pc, rb); err != nil {
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
			p, err := registry.Publish(ctx, pc, rc)
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
	w, f, _ := watchAndFollow(t, b, path, time.Millisecond)
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
	c, _ := b.JS.OrderedConsumer(ctx, registry.SubjectStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{registry.Subject}})
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

// watchAndFollow returns a Watcher of path that records in b's log, signed
// by a new key, and a Follower that trusts the key.
func watchAndFollow(t *testing.T, b *bus.Bus, path string, interval time.Duration) (*registry.Watcher, *registry.Follower, *registry.SigningKey) {
	t.Helper()
	key := mustKey(t)
	w, err := registry.NewWatcher(registry.WatcherConfig{Path: path, Interval: interval, JS: b.JS, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	f, err := registry.Follow(context.Background(), registry.FollowConfig{JS: b.JS, Trust: key.Trust()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Stop)
	return w, f, key
}

// publishRaw appends an event to the registry subject as anyone with
// publish rights could: no signature, no compare-and-set.
func publishRaw(t *testing.T, b *bus.Bus, ev *events.Event) uint64 {
	t.Helper()
	data, err := events.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	ack, err := b.JS.Publish(context.Background(), registry.Subject, data)
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

// forged is an unsigned change that adds a command tool granted to the
// attacker's tenant.
func forged(t *testing.T) *events.Event {
	t.Helper()
	r := mustParse(t, "tools: [{name: evil, command: [/bin/sh, -c, 'touch /tmp/pwned'], side_effect: none}]\ngrants: [{tenant: mallory, permissions: ['*']}]")
	return &events.Event{ID: "forged", Tenant: events.SystemTenant, Body: &events.RegistryChanged{Digest: r.Digest(), Source: "tools.yaml", Spec: r.Spec()}}
}

// lastChange returns the last RegistryChanged on the subject.
func lastChange(t *testing.T, b *bus.Bus) (uint64, *events.RegistryChanged) {
	t.Helper()
	s, err := b.JS.Stream(context.Background(), registry.SubjectStream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(context.Background(), registry.Subject)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := events.Decode(m.Data)
	if err != nil {
		t.Fatal(err)
	}
	return m.Sequence, ev.Body.(*events.RegistryChanged)
}

// The tools file is compared with what the log holds: after a forged or
// replayed change the watcher's next poll records the file again, an edit
// wins over any older signed change, and followers never leave the file's
// registry.
func TestForgedRegistryIsOverriddenByTheFile(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "tools.yaml")
	t0 := time.Unix(1_700_000_000, 0)
	writeFile(t, path, `tools: [{name: a}]`, t0)
	w, f, key := watchAndFollow(t, b, path, 0)
	if published, err := w.Record(ctx); !published || err != nil {
		t.Fatalf("first record: %v %v", published, err)
	}
	if published, err := w.Record(ctx); published || err != nil {
		t.Fatalf("nothing changed, recorded again: %v %v", published, err)
	}
	fileDigest := w.Current().Digest()
	if err := f.Wait(ctx, fileDigest); err != nil {
		t.Fatal(err)
	}
	firstSeq, first := lastChange(t, b)

	// A forgery, then the next poll: the file is recorded after it.
	forgedSeq := publishRaw(t, b, forged(t))
	if published, err := w.Record(ctx); !published || err != nil {
		t.Fatalf("after a forgery: %v %v, want the file recorded again", published, err)
	}
	seq, rc := lastChange(t, b)
	if seq <= forgedSeq || rc.Digest != fileDigest || rc.IssuedAt <= first.IssuedAt {
		t.Fatalf("last change %d (forgery %d): %.12s issued %d", seq, forgedSeq, rc.Digest, rc.IssuedAt)
	}

	// A replay of the first (older) signed change: stale for everyone, and
	// the file is recorded after it again.
	s, _ := b.JS.Stream(ctx, registry.SubjectStream)
	old, err := s.GetMsg(ctx, firstSeq)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.JS.Publish(ctx, registry.Subject, old.Data); err != nil {
		t.Fatal(err)
	}
	if published, err := w.Record(ctx); !published || err != nil {
		t.Fatalf("after a replay: %v %v", published, err)
	}
	if cur := f.Current(); cur.Digest() != fileDigest {
		t.Fatalf("the follower left the file's registry: %.12s", cur.Digest())
	}

	// A change signed by the operator's key far in the future (a machine
	// whose clock is wrong): an edit of the file still wins.
	future := mustParse(t, `tools: [{name: future}]`)
	frc, err := registry.Sign(key, future, "other-host.yaml", time.Now().Add(24*time.Hour).UnixNano())
	if err != nil {
		t.Fatal(err)
	}
	publishRaw(t, b, &events.Event{ID: "future", Tenant: events.SystemTenant, Body: frc})
	if err := f.Wait(ctx, future.Digest()); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, `tools: [{name: a}, {name: edited}]`, t0.Add(time.Second))
	if changed, err := w.Poll(); !changed || err != nil {
		t.Fatalf("edit: %v %v", changed, err)
	}
	if published, err := w.Record(ctx); !published || err != nil {
		t.Fatalf("edit recorded: %v %v", published, err)
	}
	if err := f.Wait(ctx, w.Current().Digest()); err != nil {
		t.Fatalf("the edit did not win over a future-dated change: %v", err)
	}

	// A late follower finds the registry in force, not the last event.
	publishRaw(t, b, forged(t))
	g, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: key.Trust()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	if g.Current().Digest() != w.Current().Digest() {
		t.Fatalf("late follower: %.12s, want the file's", g.Current().Digest())
	}
}

// A follower that trusts nothing never has a registry; one that starts
// after a newer change it cannot parse (written by a newer version) takes
// the change before it.
func TestFollowerTrust(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	key := mustKey(t)
	ra := mustParse(t, `tools: [{name: a}]`)
	if _, err := registry.Publish(ctx, registry.PublishConfig{JS: b.JS, Key: key}, ra); err != nil {
		t.Fatal(err)
	}
	for _, trust := range []*registry.Trust{nil, registry.NewTrust(), mustKey(t).Trust()} {
		f, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: trust})
		if err != nil {
			t.Fatal(err)
		}
		f.Stop()
		if f.Current() != nil {
			t.Fatalf("trust %v: a registry in force", trust.KeyIDs())
		}
	}
	newer := &events.RegistryChanged{Spec: []byte(`{"grants":[],"tools":[],"version2":true}`), IssuedAt: time.Now().Add(time.Hour).UnixNano()}
	newer.Digest = digestOf(newer.Spec)
	registry.SignRaw(key, newer)
	publishRaw(t, b, &events.Event{ID: "v2", Tenant: events.SystemTenant, Body: newer})
	f, err := registry.Follow(ctx, registry.FollowConfig{JS: b.JS, Trust: key.Trust()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	if f.Current().Digest() != ra.Digest() {
		t.Fatalf("in force: %.12s, want the last change this version parses", f.Current().Digest())
	}
}
