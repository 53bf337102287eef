package toolsel

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/registry"
)

// ToolsMax is how many tools a request carries unless configured:
// run mode's tools_max.
const ToolsMax = 20

// Scored is a tool and its relevance to a query.
type Scored struct {
	Tool  *registry.Tool
	Score float64
}

// BM25's parameters: term saturation and length normalisation.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Field weights: a word of the name counts three times, of a parameter's
// name twice, of a description once.
const (
	weightName  = 3
	weightParam = 2
	weightText  = 1
)

// Index is the part of a ranking that depends on the tools alone: each
// tool's weighted words. Build one per registry (and tenant) and rank many
// queries against it; it is read-only and safe for concurrent use.
type Index struct {
	tools   []*registry.Tool
	docs    []map[string]int
	lengths []int
	df      map[string]int
	avg     float64
}

// NewIndex indexes tools.
func NewIndex(tools []*registry.Tool) *Index {
	ix := &Index{tools: tools, docs: make([]map[string]int, len(tools)), lengths: make([]int, len(tools)), df: map[string]int{}, avg: 1}
	total := 0
	for i, t := range tools {
		ix.docs[i] = toolTerms(t)
		for term, n := range ix.docs[i] {
			ix.df[term]++
			ix.lengths[i] += n
		}
		total += ix.lengths[i]
	}
	if len(tools) > 0 && total > 0 {
		ix.avg = float64(total) / float64(len(tools))
	}
	return ix
}

// Len is the number of tools indexed.
func (ix *Index) Len() int { return len(ix.tools) }

// Rank orders tools by relevance to query, best first: BM25 over each
// tool's words (see the package doc), ties by name. Every tool is
// returned; those no word of the query matches score 0 and come last.
func Rank(tools []*registry.Tool, query string) []Scored { return NewIndex(tools).Rank(query) }

// Rank is Rank over the indexed tools.
func (ix *Index) Rank(query string) []Scored {
	q := map[string]bool{}
	for _, w := range words(query) {
		q[w] = true
	}
	terms := make([]string, 0, len(q))
	for w := range q {
		terms = append(terms, w)
	}
	slices.Sort(terms) // a sum in a fixed order: the same score every time
	out := make([]Scored, len(ix.tools))
	n := float64(len(ix.tools))
	for i, t := range ix.tools {
		s := 0.0
		for _, w := range terms {
			tf := float64(ix.docs[i][w])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(ix.df[w])+0.5)/(float64(ix.df[w])+0.5))
			s += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(ix.lengths[i])/ix.avg))
		}
		out[i] = Scored{Tool: t, Score: s}
	}
	slices.SortStableFunc(out, func(a, b Scored) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.Tool.Name, b.Tool.Name)
	})
	return out
}

// Select returns tools as they are when there are at most max of them
// (max ≤ 0: ToolsMax), else the max most relevant to query in the order
// Rank gives.
func Select(tools []*registry.Tool, query string, max int) []*registry.Tool {
	if max <= 0 {
		max = ToolsMax
	}
	if len(tools) <= max {
		return tools
	}
	return NewIndex(tools).Select(query, max)
}

// Select is Select over the indexed tools.
func (ix *Index) Select(query string, max int) []*registry.Tool {
	if max <= 0 {
		max = ToolsMax
	}
	if len(ix.tools) <= max {
		return ix.tools
	}
	out := make([]*registry.Tool, 0, max)
	for _, s := range ix.Rank(query)[:max] {
		out = append(out, s.Tool)
	}
	return out
}

// toolTerms counts a tool's weighted words.
func toolTerms(t *registry.Tool) map[string]int {
	m := map[string]int{}
	add := func(text string, w int) {
		for _, x := range words(text) {
			m[x] += w
		}
	}
	add(t.Name, weightName)
	add(t.Description, weightText)
	var schema any
	if json.Unmarshal(t.InputSchema, &schema) == nil {
		params(schema, 0, func(name, desc string) {
			add(name, weightParam)
			add(desc, weightText)
		})
	}
	return m
}

// paramDepthMax bounds the walk of nested object schemas.
const paramDepthMax = 4

// params calls fn with the name and description of every property of an
// object schema, nested ones and array items included.
func params(schema any, depth int, fn func(name, desc string)) {
	s, ok := schema.(map[string]any)
	if !ok || depth > paramDepthMax {
		return
	}
	if props, ok := s["properties"].(map[string]any); ok {
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			desc := ""
			if p, ok := props[name].(map[string]any); ok {
				desc, _ = p["description"].(string)
			}
			fn(name, desc)
			params(props[name], depth+1, fn)
		}
	}
	if items, ok := s["items"]; ok {
		params(items, depth+1, fn)
	}
}

// stopwords are left out of both sides: they match everything.
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true, "for": true,
	"from": true, "i": true, "in": true, "is": true, "it": true, "me": true, "my": true, "of": true, "on": true,
	"or": true, "the": true, "this": true, "to": true, "what": true, "with": true, "you": true, "your": true,
}

// words splits text into lower-case words: at every rune that is not a
// letter or digit, and between a lower-case letter or digit and an upper
// case one (getWeather → get, weather). A plural's trailing s is dropped
// from words of four letters or more, so orders matches order.
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := strings.ToLower(string(cur))
		cur = cur[:0]
		if len(w) >= 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		if !stopwords[w] {
			out = append(out, w)
		}
	}
	var prev rune
	for _, r := range text {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}
