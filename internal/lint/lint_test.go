package lint_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/toolstream/toolstream/"

// root is the repository, one level up.
const root = "../.."

// packages returns every package directory of the module (relative to
// root, slash-separated), skipping testdata and hidden directories.
func packages(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules") {
			return filepath.SkipDir
		}
		if m, _ := filepath.Glob(filepath.Join(path, "*.go")); len(m) > 0 {
			rel, _ := filepath.Rel(root, path)
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// short names a package as the rules below do: by its path without the
// internal/ prefix, so a package's rules do not change when it moves
// under internal/.
func short(dir string) string { return strings.TrimPrefix(dir, "internal/") }

// imports returns the module-internal imports of a package's non-test
// files.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	p, err := build.ImportDir(filepath.Join(root, dir), 0)
	if err != nil {
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		t.Fatalf("%s: %v", dir, err)
	}
	var ours []string
	for _, imp := range p.Imports {
		if dep, ok := strings.CutPrefix(imp, module); ok {
			ours = append(ours, short(dep))
		}
	}
	return ours
}

// TestDependenciesPointOneWay: every package has its row in the table of
// docs/architecture.md and imports only what its row lists; the rules
// about several packages (commands, the demo, bench, stack, projections)
// hold.
func TestDependenciesPointOneWay(t *testing.T) {
	rules := architecture(t)
	projections := rules.in("projection")
	seen := map[string]bool{}
	for _, path := range packages(t) {
		dir := short(path)
		if _, err := build.ImportDir(filepath.Join(root, path), 0); err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				continue // nothing builds here (a //go:build ignore generator)
			}
		}
		seen[dir] = true
		top, _, _ := strings.Cut(dir, "/")
		r, listed := rules[dir]
		if !listed {
			t.Errorf("%s has no row in %s: add it (its layer, its job, what it may import)", dir, architectureDoc)
		}
		for _, dep := range imports(t, path) {
			depTop, _, _ := strings.Cut(dep, "/")
			switch {
			case depTop == "cmd":
				t.Errorf("%s imports %s: nothing imports a command", dir, dep)
			case (depTop == "bench" || depTop == "demo") && top != "cmd" && top != depTop:
				t.Errorf("%s imports %s: only cmd/ may (measurements and the demo are not libraries)", dir, dep)
			case depTop == "stack" && top != "cmd" && top != "demo" && top != "bench" && top != depTop && r.layer != "harness":
				t.Errorf("%s imports %s: only cmd/, the demo, bench and test harnesses may (a library is composed, it does not compose)", dir, dep)
			}
			if listed && !r.any && !slices.Contains(r.may, dep) && dep != dir {
				t.Errorf("%s imports %s: dependencies must point one way (%s allows: %v)", dir, dep, architectureDoc, r.may)
			}
			if slices.Contains(projections, top) && slices.Contains(projections, depTop) && top != depTop &&
				!(top == "assembler" && depTop == "ingest") {
				t.Errorf("%s imports %s: a projection never imports another", dir, dep)
			}
		}
	}
	for name := range rules {
		if !seen[name] {
			t.Errorf("%s names %s, which is no package of the module", architectureDoc, name)
		}
	}
}

// notProjectionCode are the files of projection packages that run outside
// a projection's Apply, with why they may read the clock or draw random
// numbers.
var notProjectionCode = map[string]string{
	"memory/service.go":              "the memory service stamps a message when it arrives, before it is in the log",
	"runs/service.go":                "the runs service stamps a plan write or a message when it arrives, before it is in the log",
	"runs/lease.go":                  "leases are coordination state, not a view: they expire by the drivers' clocks",
	"memory/embed/local/gen/main.go": "a command run by hand (go run) that derives the shipped word table; never built into the binary",
	"memory/embed/use/gen/main.go":   "a command run by hand (go run) that derives the shipped sentence model; never built into the binary",
}

func TestProjectionCodeIsDeterministic(t *testing.T) {
	forbiddenImports := map[string]string{"math/rand": "randomness", "math/rand/v2": "randomness", "crypto/rand": "randomness", "log": "the global logger (use the slog.Logger of the config)"}
	forbiddenCalls := map[string]map[string]string{
		"time": {"Now": "the wall clock (use the event's time)", "Since": "the wall clock", "Until": "the wall clock", "Sleep": "sleeping"},
		"fmt":  {"Print": "printing", "Printf": "printing", "Println": "printing"},
		"os":   {"Stdout": "printing", "Stderr": "printing", "Getenv": "the environment (use the config)"},
	}
	projections := architecture(t).in("projection")
	for _, dir := range packages(t) {
		top, _, _ := strings.Cut(short(dir), "/")
		if !slices.Contains(projections, top) {
			continue
		}
		for _, f := range parseDir(t, dir) {
			if _, ok := notProjectionCode[short(f.rel)]; ok {
				continue
			}
			names := map[string]string{} // local name → import path
			for _, imp := range f.file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if why, bad := forbiddenImports[path]; bad {
					t.Errorf("%s imports %s: %s in projection code", f.rel, path, why)
				}
				name := path[strings.LastIndex(path, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = path
			}
			ast.Inspect(f.file, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok {
						if why, bad := forbiddenCalls[names[id.Name]][x.Sel.Name]; bad {
							t.Errorf("%s: %s.%s: %s in projection code", f.fset.Position(x.Pos()), id.Name, x.Sel.Name, why)
						}
					}
				case *ast.CallExpr:
					if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") && id.Obj == nil {
						t.Errorf("%s: %s: printing in projection code", f.fset.Position(x.Pos()), id.Name)
					}
				}
				return true
			})
		}
	}
}

func TestNoInit(t *testing.T) {
	for _, dir := range packages(t) {
		for _, f := range parseDir(t, dir) {
			for _, d := range f.file.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
					t.Errorf("%s: init(): a library's behaviour comes from its constructor's config, and the binary lists its commands in newRoot", f.fset.Position(fn.Pos()))
				}
			}
		}
	}
}

type parsed struct {
	rel  string // slash-separated, relative to the repository
	fset *token.FileSet
	file *ast.File
}

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, dir string) []parsed {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []parsed
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(root, dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parsed{rel: dir + "/" + name, fset: fset, file: f})
	}
	return out
}

// TestSubjectsAreBuiltInEvents: a log subject or filter is written only in
// events/ (the subject scheme in one place); other library code uses its
// builders and constants. Commands and measurements may spell a filter out.
func TestSubjectsAreBuiltInEvents(t *testing.T) {
	for _, dir := range packages(t) {
		top, _, _ := strings.Cut(short(dir), "/")
		if top == "events" || top == "cmd" || top == "bench" || top == "lint" {
			continue
		}
		for _, f := range parseDir(t, dir) {
			ast.Inspect(f.file, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(v, "ts.") {
						t.Errorf("%s: %q: subjects are built in events/ (its builders and filter constants)", f.fset.Position(lit.Pos()), v)
					}
				}
				return true
			})
		}
	}
}

// assemblerWiring are the packages that may import the assembler (tests
// aside): those that run it as a projection or read its view. A program
// that produces or consumes calls uses package client; the assembler is a
// projection and carries no producer.
var assemblerWiring = map[string]string{
	"stack":           "composes serve's projections",
	"cluster":         "runs the assembler's partitions, one active each",
	"cmd/toolstream":  "the commands wire the projections (serve, assemble, replay)",
	"bench":           "measures the projections",
	"demo":            "runs the pipeline in-process",
	"agent/agenttest": "a pipeline for the agent's tests",
	"console":         "reads the assembler's view (open calls)",
	"metrics":         "reads the assembler's view (open calls)",
}

// TestAssemblerIsImportedByItsWiringOnly: outside its tests, only the
// packages of assemblerWiring import the assembler, and the assembler
// imports nothing of NATS: it applies events, it does not publish them.
func TestAssemblerIsImportedByItsWiringOnly(t *testing.T) {
	for _, path := range packages(t) {
		dir := short(path)
		if _, ok := assemblerWiring[dir]; ok || dir == "assembler" {
			continue
		}
		for _, dep := range imports(t, path) {
			if dep == "assembler" {
				t.Errorf("%s imports assembler: only its wiring may (%v); a producer or consumer uses package client", dir, slices.Sorted(maps.Keys(assemblerWiring)))
			}
		}
	}
	p, err := build.ImportDir(filepath.Join(root, "assembler"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if strings.HasPrefix(imp, "github.com/nats-io/") {
			t.Errorf("assembler imports %s: a projection does not publish (package client produces)", imp)
		}
	}
}
