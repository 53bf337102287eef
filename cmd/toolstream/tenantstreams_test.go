package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
)

// TestSetupMakesTenantStreams: setup --tenant-streams --tenants acme
// moves a new log to per-tenant ingress streams with acme's; a later setup
// --tenants globex without the flag keeps the layout and adds globex's;
// --tenants on a log of the shared layout is refused, naming the flag.
func TestSetupMakesTenantStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	mustRun(t, "setup", "--data", data, "--tenant-streams", "--tenants", "acme")
	mustRun(t, "setup", "--data", data, "--tenants", "globex")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shared := sharedLayoutData(ctx, t)
	if r := runBin(t, "setup", "--data", shared, "--tenants", "acme"); r.code == 0 || !strings.Contains(r.stderr, "--tenant-streams") {
		t.Errorf("setup --tenants on the shared layout: exit %d\n%s", r.code, r.stderr)
	}
	b, err := bus.Open(ctx, bus.Config{DataDir: data, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tenants, err := b.Tenants(ctx)
	if err != nil || !b.TenantStreams() || !slices.Equal(tenants, []string{"acme", "globex"}) {
		t.Fatalf("tenant streams %v, tenants %v, %v", b.TenantStreams(), tenants, err)
	}
}

// TestServeAndCredsMakeTenantStreams: on a log with per-tenant ingress
// streams a tenant's stream is made where its producer credential is
// issued from --data: `creds producer --tenant initech` with no serve
// running records the tenant and the next serve makes its stream;
// `creds producer --tenant acme` on a running serve makes acme's at once
// (and says so); `publish --tenant globex` with --data's material makes
// globex's. Each tenant's producer then publishes (before, each publish
// failed: no stream took the tenant's subjects).
func TestServeAndCredsMakeTenantStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve")
	}
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	mustRun(t, "setup", "--data", data, "--tenant-streams")
	initech := filepath.Join(dir, "initech.creds")
	mustRun(t, "creds", "producer", "--tenant", "initech", "--data", data, "--out", initech)
	startServe(t, data)
	acme := filepath.Join(dir, "acme.creds")
	if r := runBin(t, "creds", "producer", "--tenant", "acme", "--data", data, "--out", acme); r.code != 0 || !strings.Contains(r.stderr, "ingress stream TS_ING_acme ready") {
		t.Fatalf("creds producer --tenant acme on a running serve: exit %d\n%s", r.code, r.stderr)
	}
	stream := filepath.Join("..", "..", "testdata", "streams", "anthropic-weather.jsonl")
	for _, args := range [][]string{
		{"--tenant", "acme", "--creds", acme},
		{"--tenant", "initech", "--creds", initech},
		{"--tenant", "globex"},
	} {
		out := mustRun(t, append(append([]string{"publish", "--data", data, "--stream", "s1"}, args...), stream)...)
		if !strings.Contains(out, "for tenant "+args[1]) {
			t.Errorf("publish %v: %s", args, out)
		}
	}
}

// sharedLayoutData is a --data made before the per-tenant layout was the
// default: a log on the shared layout (bus.Open without the option) holding
// a model event of acme's and a raw event of globex's, and --data's
// material.
func sharedLayoutData(ctx context.Context, t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "shared")
	b, err := bus.Open(ctx, bus.Config{DataDir: data, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	subj, _ := events.ModelSubject("acme", "r-old", "i1")
	if _, err := b.Publish(ctx, subj, &events.Event{ID: "old-1", Tenant: "acme", Response: "r-old", At: 1, Body: &events.TextDelta{Text: "a"}}); err != nil {
		t.Fatal(err)
	}
	in, _ := events.IngestSubject("globex", "openai-chat", "s-old")
	if _, err := b.JS.Publish(ctx, in, []byte(`{"id":"x","choices":[]}`)); err != nil {
		t.Fatal(err)
	}
	return data
}

// layoutOf opens data's log (no serve on it) and returns whether it is on
// per-tenant ingress streams and the tenants whose streams exist.
func layoutOf(ctx context.Context, t *testing.T, data string) (bool, []string) {
	t.Helper()
	b, err := bus.Open(ctx, bus.Config{DataDir: data, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tenants, err := b.Tenants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return b.TenantStreams(), tenants
}

// TestNewDataIsOnTenantStreams: a new --data starts on per-tenant ingress
// streams (setup and serve alike); a --data made on the shared layout keeps
// opening as it is (setup and serve leave it; a publish with --data's
// material and one with producer creds issued before both stored), and
// `setup --tenant-streams` moves it, making the stream of every tenant
// its log holds (acme's model event, globex's raw event) and every one a
// credential was issued for (initech): the creds issued before publish
// again, the events stored before are kept.
func TestNewDataIsOnTenantStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	for _, first := range []string{"setup", "serve"} {
		data := filepath.Join(dir, "new-"+first)
		if first == "setup" {
			mustRun(t, "setup", "--data", data)
		} else {
			startServe(t, data).stop(t)
		}
		if on, _ := layoutOf(ctx, t, data); !on {
			t.Errorf("a new --data made by %s is on the shared layout", first)
		}
	}

	old := sharedLayoutData(ctx, t)
	mustRun(t, "setup", "--data", old)
	initech := filepath.Join(dir, "initech.creds")
	mustRun(t, "creds", "producer", "--tenant", "initech", "--data", old, "--out", initech)
	stream := filepath.Join("..", "..", "testdata", "streams", "anthropic-weather.jsonl")
	publish := func(args ...string) {
		t.Helper()
		out := mustRun(t, append(append([]string{"publish", "--data", old}, args...), stream)...)
		if !strings.Contains(out, "for tenant "+args[3]) {
			t.Errorf("publish %v: %s", args, out)
		}
	}
	s := startServe(t, old)
	publish("--stream", "s1", "--tenant", "acme")
	publish("--stream", "s1", "--tenant", "initech", "--creds", initech)
	s.stop(t)
	if on, tenants := layoutOf(ctx, t, old); on || len(tenants) > 0 {
		t.Fatalf("a --data of the shared layout after setup and serve: tenant streams %v %v", on, tenants)
	}

	mustRun(t, "setup", "--data", old, "--tenant-streams")
	on, tenants := layoutOf(ctx, t, old)
	slices.Sort(tenants)
	if want := []string{"acme", "globex", "initech"}; !on || !slices.Equal(tenants, want) {
		t.Fatalf("after setup --tenant-streams: tenant streams %v, tenants %v, want %v", on, tenants, want)
	}
	b, err := bus.Open(ctx, bus.Config{DataDir: old, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stream(events.StreamModel).GetLastMsgForSubject(ctx, "ts.model.acme.r-old.>"); err != nil {
		t.Errorf("acme's event stored before the move: %v", err)
	}
	b.Close()
	startServe(t, old)
	publish("--stream", "s2", "--tenant", "initech", "--creds", initech)
	publish("--stream", "s2", "--tenant", "globex")
}
