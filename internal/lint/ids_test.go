package lint_test

import (
	"go/ast"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// idKind matches a literal that opens an event id: its kind and a ':'
// ("raw:", "tick:").
var idKind = regexp.MustCompile(`^([a-z][a-z0-9_-]*):$`)

// idKinds returns the kinds of the event ids package events builds: the
// literal "<kind>:" prefixes of its files and the kinds its builders pass
// to id and ExecutionID.
func idKinds(t *testing.T) []string {
	t.Helper()
	kinds := map[string]bool{}
	for _, f := range parseDir(t, "events") {
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if v, err := strconv.Unquote(x.Value); x.Kind == token.STRING && err == nil {
					if m := idKind.FindStringSubmatch(v); m != nil {
						kinds[m[1]] = true
					}
				}
			case *ast.CallExpr:
				if fn, ok := x.Fun.(*ast.Ident); ok && (fn.Name == "id" || fn.Name == "ExecutionID") && len(x.Args) > 0 {
					if lit, ok := x.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						kinds[v] = true
					}
				}
			}
			return true
		})
	}
	return slices.Sorted(func(yield func(string) bool) {
		for k := range kinds {
			if !yield(k) {
				return
			}
		}
	})
}

// TestIDsAreBuiltInEvents: an event id is built only by package events'
// builders (invariant 4 of docs/design.md: an id derives from its cause,
// injectively, and one package keeps every kind apart). Outside events and
// tests no string literal opens an id of one of its kinds ("tick:%d",
// "raw:"+…), and nobody calls events.ExecutionID with a kind of their
// own: the named builders (events.ResultID, events.StartedID, …) do.
func TestIDsAreBuiltInEvents(t *testing.T) {
	kinds := idKinds(t)
	for _, want := range []string{"raw", "tick", "registry", "seq", "model", "completed", "result", "started"} {
		if !slices.Contains(kinds, want) {
			t.Fatalf("id kind %q not found in package events (found %v): the scan is broken", want, kinds)
		}
	}
	opens := func(v string) (string, bool) {
		for _, k := range kinds {
			if rest, ok := strings.CutPrefix(v, k+":"); ok && !strings.HasPrefix(rest, " ") {
				return k, true
			}
		}
		return "", false
	}
	for _, dir := range packages(t) {
		top, _, _ := strings.Cut(short(dir), "/")
		if top == "events" || top == "lint" {
			continue
		}
		for _, f := range parseDir(t, dir) {
			ast.Inspect(f.file, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BasicLit:
					if v, err := strconv.Unquote(x.Value); x.Kind == token.STRING && err == nil {
						if k, ok := opens(v); ok {
							t.Errorf("%s: %q opens an event id of kind %s: ids are built by package events' builders", f.fset.Position(x.Pos()), v, k)
						}
					}
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && id.Name == "events" && x.Sel.Name == "ExecutionID" {
						t.Errorf("%s: events.ExecutionID: use the builder of the kind (events.ResultID, events.StartedID, …) or add one to events", f.fset.Position(x.Pos()))
					}
				}
				return true
			})
		}
	}
}
