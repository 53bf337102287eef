package lint_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citedFile matches what a comment names as a file: a word or path ending
// in an extension of the files a repository holds (docs/design.md,
// events/id.go, heldout/lift.jsonl).
var citedFile = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(md|go|ya?ml|jsonl|json|txt|mjs|js|toml|sh|csv)\b`)

// issueNumber matches a citation of an issue by its number: the word
// issue or issues, then a number, with or without a '#'.
var issueNumber = regexp.MustCompile(`(?i)\bissues?\s+#?[0-9]+`)

// notOurFiles are the names a comment may use that look like files but
// are not files of the repository, with what they name.
var notOurFiles = map[string]string{
	"nats.go":    "the NATS Go client, a library",
	"serve.json": "the file serve writes into --data (its address), made at run time",
}

// repoFiles returns every file of the repository (relative to root,
// slash-separated), hidden directories aside.
func repoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCommentsCiteOnlyTheRepository: a comment that names a file names one
// the repository holds (a reader can open it), and none cites an issue by
// its number (a reader of the code has the code, not the tracker): the
// reason is stated in words or by a section of docs/design.md or
// docs/security.md. A path is found when some file's path ends with it,
// so "binding.go" in package verifier's doc and "docs/design.md" both
// resolve; case counts. A code block (a comment line indented with a tab)
// may name files a command makes or fetches.
func TestCommentsCiteOnlyTheRepository(t *testing.T) {
	files := repoFiles(t)
	exists := func(cite string) bool {
		for strings.HasPrefix(cite, "./") || strings.HasPrefix(cite, "../") {
			_, cite, _ = strings.Cut(cite, "/")
		}
		for _, f := range files {
			if f == cite || strings.HasSuffix(f, "/"+cite) {
				return true
			}
		}
		return false
	}
	checked := 0
	for _, rel := range files {
		if !strings.HasSuffix(rel, ".go") || strings.Contains("/"+rel, "/testdata/") {
			continue
		}
		fset := token.NewFileSet()
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, cg := range f.Comments {
			// The group's text, so a citation broken over two lines
			// ("issue" at one's end, the number on the next) is one.
			for _, m := range issueNumber.FindAllString(cg.Text(), -1) {
				t.Errorf("%s: %q: a comment says why in words or cites the repository (docs/design.md, docs/security.md), not an issue number", fset.Position(cg.Pos()), m)
			}
			for _, c := range cg.List {
				pos := fset.Position(c.Pos())
				if strings.HasPrefix(c.Text, "//\t") {
					continue // a code block: a command line may name files it makes or fetches
				}
				for _, m := range citedFile.FindAllString(c.Text, -1) {
					if _, ok := notOurFiles[path.Base(m)]; !ok && !exists(m) {
						t.Errorf("%s: %q: no such file in the repository (the design is docs/design.md)", pos, m)
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d Go files: the walk missed the repository", checked)
	}
}

// TestCitationPatternsCatch: the patterns above find what they are for, so
// the test above cannot pass by matching nothing.
func TestCitationPatternsCatch(t *testing.T) {
	for _, c := range []struct {
		text  string
		issue bool
		file  string
	}{
		{"// see " + "DESIGN" + ".md invariant 8", false, "DESIGN" + ".md"},
		{"// (docs/design.md, \"Erasure\")", false, "docs/design.md"},
		{"// as projector/ordered.go does", false, "projector/ordered.go"},
		{"// runs heldout/lift.jsonl", false, "heldout/lift.jsonl"},
		{"// (" + "issue 26" + ", item 3)", true, ""},
		{"// (" + "Issues #17" + " and 21)", true, ""},
		{"// a tissue 3 cm wide; nats.Msg, events.Envelope", false, ""},
	} {
		if got := issueNumber.MatchString(c.text); got != c.issue {
			t.Errorf("%q: issue number found %v, want %v", c.text, got, c.issue)
		}
		if got := citedFile.FindString(c.text); got != c.file {
			t.Errorf("%q: file %q found, want %q", c.text, got, c.file)
		}
	}
}
