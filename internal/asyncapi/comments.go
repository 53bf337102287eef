package asyncapi

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// comments are the doc comments of package events' source: of its types,
// their fields and the string constants of its named types.
type comments struct {
	types  map[string]string   // type name → doc
	fields map[string]string   // "Type.Field" → doc or line comment
	consts map[string][]string // type name → the values of its string constants, sorted
}

// readComments parses the non-test Go files of dir ("" reads nothing: the
// document then has types without descriptions).
func readComments(dir string) (*comments, error) {
	c := &comments{types: map[string]string{}, fields: map[string]string{}, consts: map[string][]string{}}
	if dir == "" {
		return c, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("asyncapi: no Go files in %s: %w", dir, os.ErrNotExist)
	}
	sort.Strings(files)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("asyncapi: read comments: %w", err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			switch gd.Tok {
			case token.TYPE:
				c.typeDecl(gd)
			case token.CONST:
				c.constDecl(gd)
			}
		}
	}
	for t := range c.consts {
		sort.Strings(c.consts[t])
	}
	return c, nil
}

func (c *comments) typeDecl(gd *ast.GenDecl) {
	for _, s := range gd.Specs {
		ts := s.(*ast.TypeSpec)
		doc := text(ts.Doc)
		if doc == "" && len(gd.Specs) == 1 {
			doc = text(gd.Doc)
		}
		c.types[ts.Name.Name] = doc
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			doc := text(f.Doc)
			if doc == "" {
				doc = text(f.Comment)
			}
			for _, n := range f.Names {
				c.fields[ts.Name.Name+"."+n.Name] = doc
			}
		}
	}
}

// constDecl keeps the string constants declared with a named type.
func (c *comments) constDecl(gd *ast.GenDecl) {
	for _, s := range gd.Specs {
		vs := s.(*ast.ValueSpec)
		id, ok := vs.Type.(*ast.Ident)
		if !ok || len(vs.Values) != len(vs.Names) {
			continue
		}
		for _, v := range vs.Values {
			lit, ok := v.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			if s, err := strconv.Unquote(lit.Value); err == nil {
				c.consts[id.Name] = append(c.consts[id.Name], s)
			}
		}
	}
}

// text is a comment group as one paragraph.
func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}
