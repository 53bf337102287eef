package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readTree is every file under dir, by its path under dir.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAuthInitSaysWhatItKept: auth init on a --data that holds security
// material already keeps it (serve and every credential issued from it go
// on working) and says so: what it kept, where, and how to start anew;
// it still writes the server configuration it is asked for from the kept
// material. The first auth init says what it created. Before, the second
// said nothing at all, as if it had made something.
func TestAuthInitSaysWhatItKept(t *testing.T) {
	data := filepath.Join(t.TempDir(), "d")
	auth := filepath.Join(data, "auth")
	first := runBin(t, "auth", "init", "--data", data)
	if first.code != 0 || !strings.Contains(first.stdout, "created the security material in "+auth) ||
		!strings.Contains(first.stdout, "created the registry signing key") {
		t.Fatalf("first auth init: exit %d\n%s%s\nwant what it created", first.code, first.stdout, first.stderr)
	}
	before := readTree(t, auth)
	conf := filepath.Join(t.TempDir(), "resolver.conf")
	for _, args := range [][]string{{}, {"--nats-config", conf}} {
		r := runBin(t, append([]string{"auth", "init", "--data", data}, args...)...)
		if r.code != 0 {
			t.Fatalf("auth init %v again: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{"kept the security material already in " + auth, "kept the registry signing key",
			"made nothing new", "remove " + auth} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("auth init %v again says\n%s\nwant %q", args, r.stdout, want)
			}
		}
		if strings.Contains(r.stdout, "created") {
			t.Errorf("auth init %v again says it created something:\n%s", args, r.stdout)
		}
		after := readTree(t, auth)
		if len(after) != len(before) {
			t.Fatalf("auth init %v again: %d files in %s, %d before", args, len(after), auth, len(before))
		}
		for name, was := range before {
			if after[name] != was {
				t.Fatalf("auth init %v again changed %s", args, name)
			}
		}
	}
	if c, err := os.ReadFile(conf); err != nil || !strings.Contains(string(c), "operator") {
		t.Fatalf("--nats-config from the kept material: %v\n%s", err, c)
	}
}
