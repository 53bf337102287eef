package lang

import (
	"crypto/sha256"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The data files: data/schema.txt says which sections exist and what their
// lines must be; every other .txt file of data/ holds sections. Load reads
// them all; Default is the embedded set, read once.

//go:embed data/*.txt
var dataFS embed.FS

// Line is one "name = words" line of a section.
type Line struct {
	File  string // the file's name, for messages
	No    int    // its line number
	Name  string
	Words []string // as written, or with "_" read as a space in a +phrases section
}

// Data is the language data: every section of every file, checked against
// the schema. It is never changed once loaded, so it is safe to share.
type Data struct {
	schema   map[string]sectionSchema
	sections map[string][]Line
	units    map[string]*Unit
	unitList []*Unit // in file order
	// Made once by Load, per section of the kind.
	sets    map[string]map[string]bool
	numbers map[string]map[string]float64
	refs    map[string]map[string]*Unit
	zh      zhNumerals
	ord     ordinalMarks
	digest  [sha256.Size]byte // of every file read (Digest)
}

// sectionSchema is one line of schema.txt.
type sectionSchema struct {
	kind    string
	phrases bool
	lower   bool     // words are lower case without a final full stop
	names   []string // the names a line may have; nil is any
}

// kinds are the kinds of section schema.txt may name.
var kinds = []string{"words", "number", "unit", "unitref", "unitlist", "category"}

var (
	defaultOnce sync.Once
	defaultData *Data
)

// Default returns the embedded language data. Malformed embedded data is a
// bug that every test of the package catches, so it panics.
func Default() *Data {
	defaultOnce.Do(func() {
		sub, err := fs.Sub(dataFS, "data")
		if err == nil {
			defaultData, err = Load(sub)
		}
		if err != nil {
			panic(err)
		}
	})
	return defaultData
}

// Load reads schema.txt and every other .txt file of fsys, checking each
// against the schema. It refuses (with an error naming file and line) an
// unknown section, a line that is not "name = words", a name the section
// does not allow, a word twice under one name, a number that does not
// parse, a unit of an unknown dimension and a reference to no unit.
func Load(fsys fs.FS) (*Data, error) {
	schemaText, err := fs.ReadFile(fsys, "schema.txt")
	if err != nil {
		return nil, fmt.Errorf("lang: %w", err)
	}
	d := &Data{schema: map[string]sectionSchema{}, sections: map[string][]Line{}, units: map[string]*Unit{}}
	// The digest is over every file read, name and bytes, schema first
	// and the rest in the sorted order fs.Glob gives.
	sum := sha256.New()
	addFile := func(name string, b []byte) {
		fmt.Fprintf(sum, "%s\x00%d\x00", name, len(b))
		sum.Write(b)
	}
	addFile("schema.txt", schemaText)
	lines, err := parseFile("schema.txt", string(schemaText), false)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		if len(l.Words) == 0 || !slices.Contains(kinds, l.Words[0]) {
			return nil, l.errorf("want section = kind [+phrases] [names...], kind one of %v", kinds)
		}
		if _, ok := d.schema[l.Name]; ok {
			return nil, l.errorf("section %q twice", l.Name)
		}
		s := sectionSchema{kind: l.Words[0]}
		rest := l.Words[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0], "+") {
			switch rest[0] {
			case "+phrases":
				s.phrases = true
			case "+lower":
				s.lower = true
			default:
				return nil, l.errorf("unknown flag %q", rest[0])
			}
			rest = rest[1:]
		}
		if len(rest) > 0 {
			s.names = rest
		}
		d.schema[l.Name] = s
	}
	names, err := fs.Glob(fsys, "*.txt")
	if err != nil {
		return nil, fmt.Errorf("lang: %w", err)
	}
	for _, name := range names {
		if name == "schema.txt" {
			continue
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("lang: %w", err)
		}
		addFile(name, b)
		ls, err := parseFile(path.Base(name), string(b), true)
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			s, ok := d.schema[l.section]
			if !ok {
				return nil, l.errorf("section %q is not in schema.txt", l.section)
			}
			if s.phrases {
				for i, w := range l.Words {
					l.Words[i] = strings.ReplaceAll(w, "_", " ")
				}
			}
			d.sections[l.section] = append(d.sections[l.section], l.Line)
		}
	}
	// Units first: the other kinds may refer to them.
	for _, sec := range d.sectionsOfKind("unit") {
		for _, l := range d.sections[sec] {
			if _, ok := d.units[l.Name]; ok {
				return nil, l.errorf("unit %q twice", l.Name)
			}
			u, err := parseUnit(l)
			if err != nil {
				return nil, err
			}
			d.units[l.Name] = u
			d.unitList = append(d.unitList, u)
		}
	}
	d.sets = map[string]map[string]bool{}
	d.numbers = map[string]map[string]float64{}
	d.refs = map[string]map[string]*Unit{}
	for sec, s := range d.schema {
		if err := d.check(sec, s); err != nil {
			return nil, err
		}
		set := map[string]bool{}
		for _, l := range d.sections[sec] {
			for _, w := range l.Words {
				set[w] = true
			}
		}
		d.sets[sec] = set
		switch s.kind {
		case "number":
			m := map[string]float64{}
			for _, l := range d.sections[sec] {
				v, _ := ParseValue(l.Name) // checked
				for _, w := range l.Words {
					m[w] = v
				}
			}
			d.numbers[sec] = m
		case "unitref":
			m := map[string]*Unit{}
			for _, l := range d.sections[sec] {
				for _, w := range l.Words {
					m[w] = d.units[l.Name]
				}
			}
			d.refs[sec] = m
		}
	}
	d.zh = d.makeZhNumerals()
	d.ord = d.makeOrdinalMarks()
	sum.Sum(d.digest[:0])
	return d, nil
}

// Digest is a SHA-256 of the data as read: every file's name and bytes.
// Two loads of the same files have the same digest, and a change to any
// word, line or file changes it, so a store of what was derived from the
// data (the verifier's evidence indexes) can tell it was derived from
// other data.
func (d *Data) Digest() [sha256.Size]byte { return d.digest }

func (d *Data) sectionsOfKind(kind string) []string {
	var out []string
	for sec, s := range d.schema {
		if s.kind == kind {
			out = append(out, sec)
		}
	}
	slices.Sort(out)
	return out
}

// check checks the lines of section sec against its schema s.
func (d *Data) check(sec string, s sectionSchema) error {
	seen := map[string]map[string]bool{} // name -> words under it
	owner := map[string]string{}         // word -> the name it is under (number, unitref)
	for _, l := range d.sections[sec] {
		if len(l.Words) == 0 {
			return l.errorf("no words")
		}
		if s.names != nil && !slices.Contains(s.names, l.Name) {
			return l.errorf("%q is not a name of [%s] (%v)", l.Name, sec, s.names)
		}
		if seen[l.Name] == nil {
			seen[l.Name] = map[string]bool{}
		}
		for _, w := range l.Words {
			if seen[l.Name][w] {
				return l.errorf("%q twice under %q", w, l.Name)
			}
			if s.lower && (w != strings.ToLower(w) || strings.HasSuffix(w, ".")) {
				return l.errorf("%q is not lower case without a final full stop", w)
			}
			seen[l.Name][w] = true
		}
		switch s.kind {
		case "number":
			if _, err := ParseValue(l.Name); err != nil {
				return l.errorf("%q is not a number", l.Name)
			}
		case "unitref", "unitlist":
			if s.kind == "unitref" && d.units[l.Name] == nil {
				return l.errorf("%q is not a unit", l.Name)
			}
			if s.kind == "unitlist" {
				for _, w := range l.Words {
					if d.units[w] == nil {
						return l.errorf("%q is not a unit", w)
					}
				}
			}
		case "category":
			parts := strings.Split(l.Name, "/")
			if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
				return l.errorf("want class/value/rank")
			}
			if _, err := strconv.Atoi(parts[2]); err != nil {
				return l.errorf("rank: %v", err)
			}
		}
		if s.kind == "number" || s.kind == "unitref" {
			for _, w := range l.Words {
				if o, ok := owner[w]; ok && o != l.Name {
					return l.errorf("%q is %s and %s", w, o, l.Name)
				}
				owner[w] = l.Name
			}
		}
	}
	return nil
}

// Lines returns the lines of a section, in file order (files in name
// order); nil for a section no file has. The caller must not change them.
func (d *Data) Lines(section string) []Line { return d.sections[section] }

// Words returns the words of every line named name in a section, in order.
func (d *Data) Words(section, name string) []string {
	var out []string
	for _, l := range d.sections[section] {
		if l.Name == name {
			out = append(out, l.Words...)
		}
	}
	return out
}

// Set returns every word of a section, whatever its line's name: the
// section read as one set (a key table, a list of stop words). The map is
// shared: the caller must not change it.
func (d *Data) Set(section string) map[string]bool { return d.sets[section] }

// List returns every word of a section in file order, each once.
func (d *Data) List(section string) []string {
	var out []string
	for _, l := range d.sections[section] {
		for _, w := range l.Words {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// Numbers returns the words of a number section with their values (nil
// for a section of another kind). The map is shared: the caller must not
// change it.
func (d *Data) Numbers(section string) map[string]float64 { return d.numbers[section] }

// UnitRefs returns the words of a unitref section with their units (nil
// for a section of another kind). The map is shared: the caller must not
// change it.
func (d *Data) UnitRefs(section string) map[string]*Unit { return d.refs[section] }

// ParseValue reads a number of the data files: a decimal ("0.01", "1e6")
// or a fraction of two ("5/9", "-160/9", "1000/3600").
func ParseValue(s string) (float64, error) {
	if a, b, ok := strings.Cut(s, "/"); ok {
		x, err := strconv.ParseFloat(a, 64)
		if err != nil {
			return 0, err
		}
		y, err := strconv.ParseFloat(b, 64)
		if err != nil || y == 0 {
			return 0, fmt.Errorf("lang: bad divisor in %q", s)
		}
		return x / y, nil
	}
	return strconv.ParseFloat(s, 64)
}

// fileLine is a line with its section.
type fileLine struct {
	Line
	section string
}

func (l Line) errorf(format string, args ...any) error {
	return fmt.Errorf("lang: %s line %d: %s", l.File, l.No, fmt.Sprintf(format, args...))
}

// parseFile reads the lines of one file; sections says whether it has
// [section] heads (schema.txt has none).
func parseFile(name, text string, sections bool) ([]fileLine, error) {
	var out []fileLine
	section := ""
	for i, raw := range strings.Split(text, "\n") {
		l := strings.TrimSpace(raw)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
			continue
		case sections && strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]"):
			section = strings.TrimSpace(l[1 : len(l)-1])
			continue
		}
		n, words, ok := strings.Cut(l, "=")
		ln := Line{File: name, No: i + 1, Name: strings.TrimSpace(n), Words: strings.Fields(words)}
		if !ok || ln.Name == "" || sections && section == "" {
			return nil, ln.errorf("want name = words in a section")
		}
		out = append(out, fileLine{Line: ln, section: section})
	}
	return out, nil
}
