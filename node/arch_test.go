package node_test

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/toolstream/toolstream/"

// TestDependenciesPointOneWay enforces the layering of STYLE.md: events/
// imports none of ours, projector/ only events/ (and bus/ for its tests'
// server), and the projections never import each other.
func TestDependenciesPointOneWay(t *testing.T) {
	allowed := map[string][]string{
		"events":    {},
		"auth":      {"events"},
		"logread":   {},
		"bus":       {"events", "auth", "logread"},
		"projector": {"events", "logread"},
		"ingest":    {"events"},
		"registry":  {"events", "logread"},
		"responses": {"events", "projector"},
		"assembler": {"events", "projector", "ingest"},
		"executor":  {"events", "projector", "registry"},
		"verifier":  {"events", "projector"},
		"memory":    {"events", "projector"},
	}
	for pkg, ok := range allowed {
		p, err := build.Import(module+pkg, filepath.Join("..", pkg), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			if !contains(ok, dep) {
				t.Errorf("%s imports %s: dependencies must point one way (allowed: %v)", pkg, dep, ok)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
