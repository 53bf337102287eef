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
