package auth_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/stack"
)

func TestEnsureCreatesOwnerOnlyMaterialAndLoadsItAgain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	m, err := auth.Ensure(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 6 {
		t.Fatalf("%d files, want 6", len(entries))
	}
	for _, e := range append(entries, nil) {
		path := dir
		if e != nil {
			path = filepath.Join(dir, e.Name())
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %o gives access to others", path, fi.Mode().Perm())
		}
	}
	again, err := auth.Ensure(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.AccountPublicKey() != m.AccountPublicKey() || again.SystemPublicKey() != m.SystemPublicKey() {
		t.Fatal("Ensure made new material over existing material")
	}
}

func TestMaterialReadableByOthersIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	if _, err := auth.Ensure(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "account.nk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Load(dir); !errors.Is(err, auth.ErrInsecure) {
		t.Fatalf("Load = %v, want ErrInsecure", err)
	}
	if err := os.Chmod(filepath.Join(dir, "account.nk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Load(dir); !errors.Is(err, auth.ErrInsecure) {
		t.Fatalf("Load = %v, want ErrInsecure for the directory", err)
	}
}

func TestMaterialSignedByAnotherOperatorIsRefused(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if _, err := auth.Ensure(a); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Ensure(b); err != nil {
		t.Fatal(err)
	}
	// b's account JWT, signed by b's operator, next to a's operator.
	data, err := os.ReadFile(filepath.Join(b, "account.jwt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := auth.WritePrivate(filepath.Join(a, "account.jwt"), data); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Load(a); !errors.Is(err, auth.ErrMaterial) {
		t.Fatalf("Load = %v, want ErrMaterial", err)
	}
}

func TestIdentities(t *testing.T) {
	m, err := auth.Ensure(filepath.Join(t.TempDir(), "auth"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   auth.Identity
		want error
	}{
		{auth.Identity{Role: "root"}, auth.ErrUnknownRole},
		{auth.Identity{Role: auth.RoleProducer}, events.ErrInvalidTenant},
		{auth.Identity{Role: auth.RoleProducer, Tenant: "a.b"}, events.ErrInvalidTenant},
		{auth.Identity{Role: auth.RoleProducer, Tenant: events.SystemTenant}, events.ErrInvalidTenant},
		{auth.Identity{Role: auth.RoleProducer, Tenant: ">"}, events.ErrInvalidTenant},
		{auth.Identity{Role: auth.RoleReader, Tenant: "acme"}, auth.ErrUnknownRole},
	} {
		if _, err := m.Issue(tc.id, 0); !errors.Is(err, tc.want) {
			t.Errorf("Issue(%v) = %v, want %v", tc.id, err, tc.want)
		}
	}
}

// TestEveryRoleFitsTheServersControlLine: a user's JWT travels in the
// CONNECT line, which nats-server reads with its max_control_line (4 KiB by
// default); a role whose permissions outgrow it could never connect.
func TestEveryRoleFitsTheServersControlLine(t *testing.T) {
	m, err := auth.Ensure(filepath.Join(t.TempDir(), "auth"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range auth.Roles {
		id := auth.Identity{Role: r}
		if r == auth.RoleProducer {
			id.Tenant = "a-tenant-name-of-sixty-four-bytes-a-tenant-name-of-sixty-four-b"
		}
		u, err := m.Issue(id, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: JWT %d bytes", r, len(u.JWT))
		if len(u.JWT) > 3<<10 {
			t.Errorf("%s: JWT of %d bytes", r, len(u.JWT))
		}
	}
}

func TestNamesAgreeWithTheirOwners(t *testing.T) {
	if keys.Bucket != auth.KeysBucket {
		t.Fatalf("keys bucket %s, auth's %s", keys.Bucket, auth.KeysBucket)
	}
	if runs.LeasesBucket != auth.RunsBucket {
		t.Fatalf("runs bucket %s, auth's %s", runs.LeasesBucket, auth.RunsBucket)
	}
	if executor.BucketDefault != auth.ExecBucket || executor.ObjectBucketDefault != auth.ResultsBucket {
		t.Fatalf("executor buckets %s, %s; auth's %s, %s", executor.BucketDefault, executor.ObjectBucketDefault, auth.ExecBucket, auth.ResultsBucket)
	}
}

// TestViewsAreTheCatalogues: the projections the roles answer for are the
// catalogue's, each run by one role, and the assembler's partitions by
// the assembler role.
func TestViewsAreTheCatalogues(t *testing.T) {
	by := map[string]auth.Role{}
	var partitioned []string
	for _, r := range auth.Roles {
		names, parts := auth.ViewsOf(r)
		for _, n := range names {
			if other, ok := by[n]; ok {
				t.Errorf("%s answers for %s, and so does %s", r, n, other)
			}
			by[n] = r
		}
		if len(parts) > 0 && r != auth.RoleAssembler {
			t.Errorf("%s answers for the partitions of %v", r, parts)
		}
		partitioned = append(partitioned, parts...)
	}
	if got, want := slices.Sorted(maps.Keys(by)), stack.Names(); !slices.Equal(got, want) {
		t.Errorf("the roles answer for %v; the catalogue is %v", got, want)
	}
	if !slices.Equal(partitioned, []string{assembler.Name}) {
		t.Errorf("partitioned views %v, want the assembler's", partitioned)
	}
	if names, _ := auth.ViewsOf(auth.RoleExecutor); len(names) != 0 {
		t.Errorf("the executor, which runs no projection, answers for %v", names)
	}
}

// TestAttackAnonymousClient: the embedded server refuses a client without
// credentials, and one whose JWT another operator signed.
func TestAttackAnonymousClient(t *testing.T) {
	b := bustest.Start(t)
	if nc, err := nats.Connect(b.ClientURL()); err == nil {
		nc.Close()
		t.Fatal("an anonymous client connected to the embedded server")
	}
	other, err := auth.Ensure(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := other.Issue(auth.Identity{Role: auth.RoleAdmin}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if nc, err := nats.Connect(b.ClientURL(), u.Options()...); err == nil {
		nc.Close()
		t.Fatal("a client of another operator connected")
	}
	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleReader})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(b.ClientURL(), opts...)
	if err != nil {
		t.Fatalf("a reader of this installation cannot connect: %v", err)
	}
	nc.Close()
}

func TestNonLoopbackListenNeedsTLS(t *testing.T) {
	_, err := bus.Open(context.Background(), bus.Config{DataDir: t.TempDir(), Listen: "0.0.0.0:-1"})
	if !errors.Is(err, bus.ErrInvalidConfig) {
		t.Fatalf("Open on 0.0.0.0 without TLS = %v, want ErrInvalidConfig", err)
	}
	b, err := bus.Open(context.Background(), bus.Config{DataDir: t.TempDir(), Listen: "0.0.0.0:-1", AllowPlaintext: true})
	if err != nil {
		t.Fatalf("Open with AllowPlaintext: %v", err)
	}
	b.Close()
}
