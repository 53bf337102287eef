package registry_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/registry"
)

func mustKey(t testing.TB) *registry.SigningKey {
	t.Helper()
	k, err := registry.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyPairFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	priv, pub := filepath.Join(dir, "registry.key"), filepath.Join(dir, "registry.pub")
	k, err := registry.WriteKeyPair(priv, pub)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]fs.FileMode{dir: fs.ModeDir | 0o700, priv: 0o600, pub: 0o644} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".key-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	if _, err := registry.WriteKeyPair(priv, pub); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second WriteKeyPair: %v, want fs.ErrExist (never overwrite a key)", err)
	}
	loaded, err := registry.LoadSigningKey(priv)
	if err != nil || loaded.KeyID() != k.KeyID() || len(k.KeyID()) != 16 {
		t.Fatalf("LoadSigningKey: %v, id %q want %q", err, loaded.KeyID(), k.KeyID())
	}
	trust, err := registry.LoadTrustedKeys(pub)
	if err != nil || trust.Len() != 1 || trust.KeyIDs()[0] != k.KeyID() {
		t.Fatalf("LoadTrustedKeys: %v %v", trust.KeyIDs(), err)
	}
	if _, err := registry.LoadSigningKey(pub); err == nil {
		t.Error("a public key loaded as a signing key")
	}
	if _, err := registry.LoadTrustedKeys(priv); err == nil {
		t.Error("a private key loaded as a trusted key")
	}
}

// A trust file may hold several keys (the old and the new while they
// rotate); text around the blocks is ignored; a file without a key is an
// error.
func TestTrustFileWithSeveralKeys(t *testing.T) {
	dir := t.TempDir()
	old, err := registry.WriteKeyPair(filepath.Join(dir, "old.key"), filepath.Join(dir, "old.pub"))
	if err != nil {
		t.Fatal(err)
	}
	next, err := registry.WriteKeyPair(filepath.Join(dir, "new.key"), filepath.Join(dir, "new.pub"))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "old.pub"))
	b, _ := os.ReadFile(filepath.Join(dir, "new.pub"))
	both := filepath.Join(dir, "trusted.pub")
	os.WriteFile(both, append(append(append([]byte("# rotating, 2026-12\n"), a...), "\n# next\n"...), b...), 0o644)
	trust, err := registry.LoadTrustedKeys(both)
	if err != nil {
		t.Fatal(err)
	}
	if trust.Len() != 2 {
		t.Fatalf("%d keys, want 2", trust.Len())
	}
	for _, k := range []*registry.SigningKey{old, next} {
		if _, err := registry.FromEvent(trust, signed(t, k, `tools: [{name: a}]`, 1)); err != nil {
			t.Errorf("key %s: %v", k.KeyID(), err)
		}
	}
	empty := filepath.Join(dir, "empty.pub")
	os.WriteFile(empty, []byte("# no key here\n"), 0o644)
	if _, err := registry.LoadTrustedKeys(both, empty); err == nil {
		t.Error("a trust file without a key was accepted")
	}
}

// Keys made by openssl, the standard tool, load as they are.
func TestKeysFromOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl")
	}
	dir := t.TempDir()
	priv, pub := filepath.Join(dir, "k.pem"), filepath.Join(dir, "k.pub")
	for _, args := range [][]string{
		{"genpkey", "-algorithm", "ed25519", "-out", priv},
		{"pkey", "-in", priv, "-pubout", "-out", pub},
	} {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Skipf("openssl %v: %v %s", args, err, out)
		}
	}
	k, err := registry.LoadSigningKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	trust, err := registry.LoadTrustedKeys(pub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := registry.FromEvent(trust, signed(t, k, `tools: [{name: a}]`, 1)); err != nil {
		t.Fatal(err)
	}
}
