package keys_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
)

// TestEraseLeavesNoKeyInAnyFile: a user's key and record keys, once
// erased, open nothing, and their bytes are in no file of the data
// directory; another user's key is untouched.
func TestEraseLeavesNoKeyInAnyFile(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := keys.Open(ctx, keys.Config{JS: b.JS, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	annID, _, err := s.SealKey("acme", events.UserScope("ann"))
	if err != nil {
		t.Fatal(err)
	}
	recID, _, err := s.SealKey("acme", events.RecordScope("ann", "rec-1"))
	if err != nil {
		t.Fatal(err)
	}
	bobID, _, err := s.SealKey("acme", events.UserScope("bob"))
	if err != nil {
		t.Fatal(err)
	}
	// The same key again, from another process's store (no cache).
	other, err := keys.Open(ctx, keys.Config{JS: b.JS})
	if err != nil {
		t.Fatal(err)
	}
	if id, _, err := other.SealKey("acme", events.UserScope("ann")); err != nil || id != annID {
		t.Fatalf("a second store made key %s (%v), want the first's %s", id, err, annID)
	}
	kv, err := b.JS.KeyValue(ctx, keys.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	var secrets [][]byte
	lister, _ := kv.ListKeys(ctx)
	for k := range lister.Keys() {
		e, err := kv.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, e.Value()[16:]) // the AES keys
	}
	if len(secrets) != 3 {
		t.Fatalf("%d keys in the bucket, want 3", len(secrets))
	}
	n, err := other.Erase(ctx, "acme", "ann")
	if err != nil || n != 2 {
		t.Fatalf("Erase = %d, %v; want the user's key and its record's", n, err)
	}
	for _, st := range []*keys.Store{other, s} {
		s.Forget("acme", "ann")
		if _, err := st.OpenKey("acme", events.UserScope("ann"), annID); !errors.Is(err, events.ErrErased) {
			t.Fatalf("the erased user key opens: %v", err)
		}
		if _, err := st.OpenKey("acme", events.RecordScope("ann", "rec-1"), recID); !errors.Is(err, events.ErrErased) {
			t.Fatalf("the erased record key opens: %v", err)
		}
		if _, err := st.OpenKey("acme", events.UserScope("bob"), bobID); err != nil {
			t.Fatalf("another user's key: %v", err)
		}
	}
	// A new key for the erased user is a new key: what the old one sealed
	// stays erased.
	if id, _, err := s.SealKey("acme", events.UserScope("ann")); err != nil || id == annID {
		t.Fatalf("after the erasure SealKey gave %s (%v)", id, err)
	}
	if _, err := s.OpenKey("acme", events.UserScope("ann"), annID); !errors.Is(err, events.ErrErased) {
		t.Fatalf("the old key id opens after a new key was made: %v", err)
	}
	b.Close()
	// No file of the data directory holds the erased keys' bytes.
	found := map[int]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, k := range secrets {
			if bytes.Contains(data, k) {
				found[i] = path
			}
		}
		return nil
	})
	if len(found) != 1 {
		t.Fatalf("keys found in files: %v; want only bob's", found)
	}
}

// TestBackupRestoresLostKeysButNotErasedOnes: a backup brings back a key
// that was lost (what it sealed opens again), never one erased after the
// backup.
func TestBackupRestoresLostKeysButNotErasedOnes(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	s := b.Keys.(*keys.Store)
	annID, _, err := s.SealKey("acme", events.UserScope("ann"))
	if err != nil {
		t.Fatal(err)
	}
	bobID, _, err := s.SealKey("acme", events.UserScope("bob"))
	if err != nil {
		t.Fatal(err)
	}
	var backup bytes.Buffer
	if n, err := s.Backup(ctx, &backup); err != nil || n != 2 {
		t.Fatalf("backup: %d keys, %v", n, err)
	}
	// ann is erased; bob's key is lost (the bucket damaged).
	for _, u := range []string{"ann", "bob"} {
		if _, err := s.Erase(ctx, "acme", u); err != nil {
			t.Fatal(err)
		}
	}
	restored, skipped, err := s.Restore(ctx, &backup, func(o keys.Owner) bool { return o.Tenant == "acme" && o.User == "ann" })
	if err != nil || restored != 1 || skipped != 1 {
		t.Fatalf("restore: %d restored, %d skipped, %v", restored, skipped, err)
	}
	s.Forget("acme", "bob")
	s.Forget("acme", "ann")
	if _, err := s.OpenKey("acme", events.UserScope("bob"), bobID); err != nil {
		t.Fatalf("the lost key is not back: %v", err)
	}
	if _, err := s.OpenKey("acme", events.UserScope("ann"), annID); !errors.Is(err, events.ErrErased) {
		t.Fatalf("the erased key came back: %v", err)
	}
}

// TestTenantStoreSharesTheBucket: a tenant's store (a producer's) makes and
// reads the same keys as a store of the whole bucket, sees an erasure the
// whole store made, and refuses other tenants' keys, record keys and
// whatever only the whole store does.
func TestTenantStoreSharesTheBucket(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	whole, err := keys.Open(ctx, keys.Config{JS: b.JS})
	if err != nil {
		t.Fatal(err)
	}
	acme, err := keys.Open(ctx, keys.Config{JS: b.JS, Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	// Made by the tenant's store, found by the whole one, and the reverse.
	annID, _, err := acme.SealKey("acme", events.UserScope("ann"))
	if err != nil {
		t.Fatal(err)
	}
	if id, _, err := whole.SealKey("acme", events.UserScope("ann")); err != nil || id != annID {
		t.Fatalf("the whole store's key of ann = %s (%v), want the tenant store's %s", id, err, annID)
	}
	bobID, _, err := whole.SealKey("acme", events.UserScope("bob"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acme.OpenKey("acme", events.UserScope("bob"), bobID); err != nil {
		t.Fatalf("the tenant's store does not open bob's key: %v", err)
	}
	// Erased through the whole store: gone for the tenant's store too.
	if n, err := whole.Erase(ctx, "acme", "ann"); err != nil || n != 1 {
		t.Fatalf("Erase = %d, %v", n, err)
	}
	acme.Forget("acme", "ann")
	if _, err := acme.OpenKey("acme", events.UserScope("ann"), annID); !errors.Is(err, events.ErrErased) {
		t.Fatalf("ann's erased key opens in the tenant's store: %v", err)
	}
	if id, _, err := acme.SealKey("acme", events.UserScope("ann")); err != nil || id == annID {
		t.Fatalf("ann's next key = %s (%v), want a new one", id, err)
	}
	for name, err := range map[string]error{
		"another tenant's key": func() error { _, _, err := acme.SealKey("globex", events.UserScope("ann")); return err }(),
		"a record's key":       func() error { _, _, err := acme.SealKey("acme", events.RecordScope("ann", "r1")); return err }(),
		"erasing":              func() error { _, err := acme.Erase(ctx, "acme", "bob"); return err }(),
		"a backup":             func() error { _, err := acme.Backup(ctx, &bytes.Buffer{}); return err }(),
	} {
		if !errors.Is(err, keys.ErrOutOfScope) {
			t.Errorf("%s in acme's store: %v, want ErrOutOfScope", name, err)
		}
	}
	if _, err := keys.Open(ctx, keys.Config{JS: b.JS, Tenant: "a.b"}); !errors.Is(err, keys.ErrInvalidConfig) {
		t.Errorf("a store of tenant a.b: %v", err)
	}
}
