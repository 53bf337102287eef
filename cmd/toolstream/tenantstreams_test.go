package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	shared := filepath.Join(t.TempDir(), "shared")
	if r := runBin(t, "setup", "--data", shared, "--tenants", "acme"); r.code == 0 || !strings.Contains(r.stderr, "--tenant-streams") {
		t.Errorf("setup --tenants on the shared layout: exit %d\n%s", r.code, r.stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
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
