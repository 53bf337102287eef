package local

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"unicode"
)

// zh_classes.txt: Chinese word classes (see its header). Chinese has no
// spaces and the vectors no Chinese, so a Chinese query meets a record
// by class: a class named by a word of the query counts as found in a
// record that holds a word of that class.
//
//go:embed zh_classes.txt
var zhClassesText string

// zhClasses is the parsed table: every word with the classes it is in,
// longest words first so that a query names 小提琴 and not only 提琴.
type zhClasses struct {
	words   []string
	classes map[string][]int // word -> class numbers
	names   []string
}

var (
	zhOnce  sync.Once
	zhTable *zhClasses
	zhErr   error
)

func loadZH() (*zhClasses, error) {
	zhOnce.Do(func() { zhTable, zhErr = parseZH(zhClassesText) })
	return zhTable, zhErr
}

// parseZH reads the table; a line that is not "class = words" is an
// error, as is a class named twice.
func parseZH(text string) (*zhClasses, error) {
	t := &zhClasses{classes: map[string][]int{}}
	seen := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, words, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || len(strings.Fields(words)) == 0 {
			return nil, fmt.Errorf("local: zh_classes.txt line %d: want \"class = words\"", n+1)
		}
		if seen[name] {
			return nil, fmt.Errorf("local: zh_classes.txt line %d: class %s named twice", n+1, name)
		}
		seen[name] = true
		c := len(t.names)
		t.names = append(t.names, name)
		for _, w := range strings.Fields(words) {
			w = strings.ToLower(w)
			if _, ok := t.classes[w]; !ok {
				t.words = append(t.words, w)
			}
			t.classes[w] = append(t.classes[w], c)
		}
	}
	// longest first, then by text: deterministic
	sortByLen(t.words)
	return t, nil
}

func sortByLen(ws []string) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && less(ws[j], ws[j-1]); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

func less(a, b string) bool {
	if la, lb := len([]rune(a)), len([]rune(b)); la != lb {
		return la > lb
	}
	return a < b
}

// hasHan reports whether s holds a Han character.
func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// queryClasses returns the classes the words of query name, each once,
// reading the longest words first and not again inside a word already
// read (小提琴 is an instrument; its 提琴 is not read again).
func (t *zhClasses) queryClasses(query string) []int {
	q := strings.ToLower(query)
	var out []int
	for _, w := range t.words {
		if !strings.Contains(q, w) {
			continue
		}
		q = strings.ReplaceAll(q, w, "\x00")
		for _, c := range t.classes[w] {
			if !containsInt(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// has reports whether doc holds a word of class c.
func (t *zhClasses) docClasses(doc string) map[int]bool {
	d := strings.ToLower(doc)
	out := map[int]bool{}
	for _, w := range t.words {
		if strings.Contains(d, w) {
			for _, c := range t.classes[w] {
				out[c] = true
			}
		}
	}
	return out
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
