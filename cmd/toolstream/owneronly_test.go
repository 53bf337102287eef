package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// notOwnerOnly lists what under dir is readable by anyone but its owner:
// directories not 0700, regular files not 0600.
func notOwnerOnly(t *testing.T, dir string) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch perm := info.Mode().Perm(); {
		case d.IsDir() && perm != 0o700, d.Type().IsRegular() && perm != 0o600:
			bad = append(bad, path+" "+perm.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// TestDataIsOwnerOnlyWhateverItWas: --data made beforehand as a careless
// admin would (0755 directories, a 0644 view file and note: views
// were world-readable when --data was made beforehand). Once serve
// runs, and after it stopped, --data and everything under it is
// owner-only: what was there (chmod'ed when serve takes --data) and what
// serve made (the server's store, Pebble's views, the auth material, the
// console's files: umask 077). Another user on the host reads nothing.
func TestDataIsOwnerOnlyWhateverItWas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve")
	}
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	view := filepath.Join(data, "views", "memory")
	if err := os.MkdirAll(view, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{data, filepath.Join(data, "views"), view} {
		if err := os.Chmod(d, 0o755); err != nil { // whatever the test's umask
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(view, "OLD-000001.log"), filepath.Join(data, "notes.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if bad := notOwnerOnly(t, data); len(bad) != 5 {
		t.Fatalf("the test's --data is not world-readable as it should be: %v", bad)
	}
	s := startServe(t, data, "--console", "127.0.0.1:0")
	if bad := notOwnerOnly(t, data); len(bad) > 0 {
		t.Errorf("while serve runs, not owner-only: %v", bad)
	}
	mustRun(t, "console-token", "--data", data)
	s.stop(t)
	if bad := notOwnerOnly(t, data); len(bad) > 0 {
		t.Errorf("after serve stopped, not owner-only: %v", bad)
	}
}
