package auth_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/internal/auth"
)

// TestWriteRoleDirs: auth init --creds-dir writes each role's creds and the
// registry's public key in a directory of its own, the signing key only
// for the assembler, and a producer's creds a tenant, all owner-only.
func TestWriteRoleDirs(t *testing.T) {
	m, err := auth.Ensure(filepath.Join(t.TempDir(), "auth"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pub, key := []byte("the public key"), []byte("the signing key")
	if err := m.WriteRoleDirs(dir, []string{"acme", "globex"}, pub, key); err != nil {
		t.Fatal(err)
	}
	check := func(d string, want auth.Identity, withKey bool) {
		t.Helper()
		id, err := auth.CredsIdentity(filepath.Join(d, "nats.creds"))
		if err != nil || id != want {
			t.Errorf("%s: creds of %v, %v; want %v", d, id, err, want)
		}
		for name, data := range map[string][]byte{"registry.pub": pub, "registry.key": key} {
			path := filepath.Join(d, name)
			got, err := os.ReadFile(path)
			if name == "registry.key" && !withKey {
				if !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: the signing key is there (%v)", d, err)
				}
				continue
			}
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: %q, %v; want %q", path, got, err, data)
			}
		}
		for _, name := range []string{"nats.creds", "registry.pub"} {
			st, err := os.Stat(filepath.Join(d, name))
			if err != nil {
				t.Errorf("%s/%s: %v", d, name, err)
			} else if st.Mode().Perm() != 0o600 {
				t.Errorf("%s/%s: mode %v, want owner-only", d, name, st.Mode())
			}
		}
	}
	for _, r := range auth.Roles {
		if r != auth.RoleProducer {
			check(filepath.Join(dir, string(r)), auth.Identity{Role: r}, r == auth.RoleAssembler)
		}
	}
	for _, tenant := range []string{"acme", "globex"} {
		check(filepath.Join(dir, "producers", tenant), auth.Identity{Role: auth.RoleProducer, Tenant: tenant}, false)
	}
	if _, err := os.Stat(filepath.Join(dir, string(auth.RoleProducer))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a producer without a tenant has a directory: %v", err)
	}
}
