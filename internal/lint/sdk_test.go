package lint_test

import (
	"os/exec"
	"strings"
	"testing"
)

// heavy are the modules a program that only talks to a running server
// must not link: the storage engine and the server itself.
var heavy = []string{"github.com/cockroachdb/pebble", "github.com/nats-io/nats-server"}

// light are the packages a producer, consumer or operator program links
// to talk to a running server: the SDK and the messages and publisher it
// is made of. Their tests may start an embedded server (test imports do
// not count).
var light = []string{"client", "events", "events/runsapi", "memory/memapi", "internal/publish"}

// TestSDKLinksNoServer: no package of light links a package of heavy, by
// any path of imports (go list -deps, test files aside); a failure names
// the path.
func TestSDKLinksNoServer(t *testing.T) {
	for _, pkg := range light {
		for _, chain := range heavyChains(t, pkg) {
			t.Errorf("%s links %s", pkg, strings.Join(chain, " -> "))
		}
	}
}

// TestHeavyChainsFindsTheServer shows the check can fail: the bus starts
// an embedded server, and the runs projection keeps its view in Pebble.
func TestHeavyChainsFindsTheServer(t *testing.T) {
	for pkg, want := range map[string]string{"internal/bus": "github.com/nats-io/nats-server", "internal/runs": "github.com/cockroachdb/pebble"} {
		found := false
		for _, chain := range heavyChains(t, pkg) {
			found = found || strings.HasPrefix(chain[len(chain)-1], want)
		}
		if !found {
			t.Errorf("%s: no import path to %s found", pkg, want)
		}
	}
}

// heavyChains returns, for each module of heavy that pkg (a directory of
// the repository) links, one path of imports from pkg to a package of it.
func heavyChains(t *testing.T, pkg string) [][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./"+pkg)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Fatalf("go list %s: %v", pkg, err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	start := module + pkg
	// Breadth first from pkg: the first package of each heavy module
	// reached, by its shortest path.
	from := map[string]string{start: ""}
	queue := []string{start}
	var chains [][]string
	seen := map[string]bool{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, h := range heavy {
			if strings.HasPrefix(p, h) && !seen[h] {
				seen[h] = true
				var chain []string
				for q := p; q != ""; q = from[q] {
					chain = append([]string{strings.TrimPrefix(q, module)}, chain...)
				}
				chains = append(chains, chain)
			}
		}
		for _, d := range imports[p] {
			if _, ok := from[d]; !ok {
				from[d] = p
				queue = append(queue, d)
			}
		}
	}
	return chains
}
