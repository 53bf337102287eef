package executor_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// A sandboxed tool sees a minimal root and the paths its contract names:
// not the data directory's auth files (the operator's seed: with it,
// anything), not /root, /home, /etc/shadow, nor a host file nobody named.
// The same tool unsandboxed reads the seed, so the refusal is the
// sandbox's doing. Attacker: the tool (its code runs in the sandbox).
// Victim: the operator, whose seed stays unread.
func TestSandboxShowsOnlyWhatTheContractNames(t *testing.T) {
	needSandbox(t)
	data := t.TempDir() // serve's --data
	seed := filepath.Join(data, "auth", "operator.nk")
	if err := os.MkdirAll(filepath.Dir(seed), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seed, []byte("SOOPERATORSEEDVALUE"), 0o600); err != nil {
		t.Fatal(err)
	}
	host := t.TempDir()
	unnamed := filepath.Join(host, "unnamed.txt")
	shared := filepath.Join(host, "shared")
	os.WriteFile(unnamed, []byte("not for tools"), 0o644)
	os.Mkdir(shared, 0o755)
	os.WriteFile(filepath.Join(shared, "map.txt"), []byte("the map"), 0o644)

	reg := parseRegistry(t, attackRegistry(t,
		"read.seed", "read", seed, "{}",
		"read.auth", "read", filepath.Dir(seed), "{}",
		"read.shadow", "read", "/etc/shadow", "{}",
		"read.root", "read", "/root", "{}",
		"read.home", "read", "/home", "{}",
		"read.unnamed", "read", unnamed, "{network: host}",
		"read.named", "read", filepath.Join(shared, "map.txt"), fmt.Sprintf("{read: [%s]}", shared),
		"read.seed.free", "read", seed, ""))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, func(c *executor.Config) { c.Hidden = []string{data} })

	for i, tool := range []string{"read.seed", "read.auth", "read.shadow", "read.root", "read.home", "read.unnamed"} {
		o := callAcme(t, b, tool, fmt.Sprint("c", i))
		if !o.failedWith(events.ErrToolError, "cannot read", "no such file or directory") {
			t.Fatalf("%s: %v", tool, o)
		}
		if strings.Contains(o.String(), "SOOPERATORSEEDVALUE") {
			t.Fatalf("%s: the seed leaked: %v", tool, o)
		}
	}
	if o := callAcme(t, b, "read.named", "named"); o.ok == nil || string(o.ok.Result) != `{"content":"the map"}` {
		t.Fatalf("a path the contract names: %v", o)
	}
	// What the sandbox hides is there: unconfined, the same tool reads it.
	if o := callAcme(t, b, "read.seed.free", "free"); o.ok == nil || !strings.Contains(string(o.ok.Result), "SOOPERATORSEEDVALUE") {
		t.Fatalf("unsandboxed: %v", o)
	}
}

// A contract cannot name the data directory, a path inside it or a
// directory holding it: the tool is refused (unavailable) and nothing
// runs. Attacker: whoever wrote the tools file (the operator signs it,
// but a mistake there must not hand a tool the keys).
func TestSandboxNeverShowsTheDataDirectory(t *testing.T) {
	needSandbox(t)
	parent := t.TempDir()
	data := filepath.Join(parent, "data")
	os.MkdirAll(filepath.Join(data, "auth"), 0o700)
	link := filepath.Join(t.TempDir(), "innocent")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	effect := filepath.Join(t.TempDir(), "effect")
	reg := parseRegistry(t, attackRegistry(t,
		"names.data", "write", effect, fmt.Sprintf("{read: [%s]}", data),
		"names.auth", "write", effect, fmt.Sprintf("{write: [%s]}", filepath.Join(data, "auth")),
		"names.parent", "write", effect, fmt.Sprintf("{read: [%s]}", parent),
		"names.link", "write", effect, fmt.Sprintf("{read: [%s]}", link)))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, func(c *executor.Config) { c.Hidden = []string{data} })
	for i, tool := range []string{"names.data", "names.auth", "names.parent", "names.link"} {
		if o := callAcme(t, b, tool, fmt.Sprint("c", i)); !o.failedWith(events.ErrUnavailable, "no sandboxed tool sees it", "it was not run") {
			t.Fatalf("%s: %v", tool, o)
		}
	}
	if _, err := os.Stat(effect); !os.IsNotExist(err) {
		t.Fatalf("a refused tool ran: %v", err)
	}
}

// A sandboxed tool writes its private directory and the paths its
// contract names writable, nothing else: not a path named read-only, not
// a host path nobody named.
func TestSandboxWritesOnlyWritablePaths(t *testing.T) {
	needSandbox(t)
	host := t.TempDir()
	ro, rw := filepath.Join(host, "ro"), filepath.Join(host, "rw")
	os.Mkdir(ro, 0o755)
	os.Mkdir(rw, 0o755)
	reg := parseRegistry(t, attackRegistry(t,
		"write.ro", "write", filepath.Join(ro, "x"), fmt.Sprintf("{read: [%s], write: [%s]}", ro, rw),
		"write.rw", "write", filepath.Join(rw, "x"), fmt.Sprintf("{read: [%s], write: [%s]}", ro, rw),
		"write.etc", "write", "/etc/toolstream-pwned", "{}",
		"write.usr", "write", "/usr/toolstream-pwned", "{}"))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, nil)
	for i, tool := range []string{"write.ro", "write.etc", "write.usr"} {
		if o := callAcme(t, b, tool, fmt.Sprint("c", i)); !o.failedWith(events.ErrToolError, "cannot write outside", "read-only file system") {
			t.Fatalf("%s: %v", tool, o)
		}
	}
	for _, p := range []string{filepath.Join(ro, "x"), "/etc/toolstream-pwned", "/usr/toolstream-pwned"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			os.Remove(p)
			t.Fatalf("a sandboxed tool wrote %s: %v", p, err)
		}
	}
	o := callAcme(t, b, "write.rw", "rw")
	var r struct{ Wrote bool }
	if o.ok == nil || json.Unmarshal(o.ok.Result, &r) != nil || !r.Wrote {
		t.Fatalf("a writable path: %v", o)
	}
	if got, err := os.ReadFile(filepath.Join(rw, "x")); err != nil || string(got) != "pwned" {
		t.Fatalf("the writable path holds %q, %v", got, err)
	}
}

// A hidden directory inside what the minimal root shows (a --data kept
// under /usr) is covered: the sandboxed tool finds it empty, while the
// same tool unsandboxed lists it.
func TestSandboxCoversHiddenInsideTheRoot(t *testing.T) {
	needSandbox(t)
	var hidden string
	for _, d := range []string{"/usr/share/doc", "/usr/share/man", "/usr/share/zoneinfo", "/usr/include"} {
		if ents, err := os.ReadDir(d); err == nil && len(ents) > 0 {
			hidden = d
			break
		}
	}
	if hidden == "" {
		t.Skip("no populated directory under /usr to hide here")
	}
	reg := parseRegistry(t, attackRegistry(t,
		"list.confined", "read", hidden, "{}",
		"list.free", "read", hidden, ""))
	b := bustest.Start(t)
	startExec(t, b, reg, nil, func(c *executor.Config) { c.Hidden = []string{hidden} })
	if o := callAcme(t, b, "list.confined", "c1"); o.ok == nil || string(o.ok.Result) != `{"entries":[]}` {
		t.Fatalf("sandboxed, %s: %v", hidden, o)
	}
	if o := callAcme(t, b, "list.free", "c2"); o.ok == nil || string(o.ok.Result) == `{"entries":[]}` {
		t.Fatalf("unsandboxed, %s: %v", hidden, o)
	}
}
