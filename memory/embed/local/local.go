package local

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/memory/lexical"
)

//go:embed words.bin.gz
var table []byte

// Model is the name of the vectors Words gives: the table's version. A
// new table is a new model, so that its vectors are never compared with
// the old one's.
const Model = "toolstream-glove100-50k/1"

// sifA is the smoothing of the SIF weights (Arora, Liang and Ma, 2017):
// a word of estimated probability p weighs sifA/(sifA+p).
const sifA = 1e-3

// stemMin is the shortest word looked up by its stem when the table
// lacks it: the package's list leaves out some short words ("i"), and
// a stem of one or two letters names some other word.
const stemMin = 4

// matchRankMin is the rank (most frequent first) from which a word takes
// part in Match: the few hundred most frequent words of the corpus are
// function words and the most general ones (what, do, own, our, group),
// which lexical recall matches exactly where they matter, and whose
// vectors are near too many others to tell meaning apart (own: our 0.5).
const matchRankMin = 300

// Words is an Embedder over the shipped word table: a text's vector is
// the SIF-weighted mean of the vectors of its words. Words not in the
// table add nothing; a text with none of them gets the zero vector,
// which recall ranks nowhere (its cosine with anything is 0). It is
// safe for concurrent use.
type Words struct {
	t *wordTable
}

var _ embed.Embedder = (*Words)(nil)

// New returns the embedder; the table is read once per process, on
// first use. It fails only if the shipped table is damaged.
func New() (*Words, error) {
	t, err := load()
	if err != nil {
		return nil, err
	}
	return &Words{t: t}, nil
}

// Model implements embed.Embedder.
func (w *Words) Model() string { return Model }

// Dim is the dimension of the vectors.
func (w *Words) Dim() int { return w.t.dim }

// Embed implements embed.Embedder. It never fails but for a cancelled
// ctx.
func (w *Words) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = w.vector(s)
	}
	return out, nil
}

// Known reports how many of the words of text the table has, and how
// many words text has (letters a–z after lower-casing).
func (w *Words) Known(text string) (known, words int) {
	for _, t := range tokens(text) {
		words++
		if _, ok := w.t.lookup(t); ok {
			known++
		}
	}
	return known, words
}

func (w *Words) vector(text string) []float32 {
	t := w.t
	acc := make([]float64, t.dim)
	for _, tok := range tokens(text) {
		i, ok := t.lookup(tok)
		if !ok {
			continue
		}
		wt := sifA / (sifA + t.prob(i))
		s := float64(t.scale[i]) * wt
		row := t.q[i*t.dim : (i+1)*t.dim]
		for j, x := range row {
			acc[j] += s * float64(x)
		}
	}
	var n float64
	for _, x := range acc {
		n += x * x
	}
	v := make([]float32, t.dim)
	if n == 0 {
		return v
	}
	n = math.Sqrt(n)
	for j, x := range acc {
		v[j] = float32(x / n)
	}
	return v
}

// tokens are the words of text: runs of letters, lower-cased; those
// outside a–z are dropped (the table has none).
func tokens(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		ascii := true
		for i := 0; i < len(f); i++ {
			if f[i] < 'a' || f[i] > 'z' {
				ascii = false
				break
			}
		}
		if ascii {
			out = append(out, f)
		}
	}
	return out
}

// wordTable is the decoded table: words by rank (most frequent first),
// their int8 components and scales.
type wordTable struct {
	dim   int
	index map[string]int
	stems map[string]int // a stem to its most frequent word's rank + 1, for words not in the table
	scale []float32
	q     []int8
	zipfH float64 // the harmonic number of the table's size

	unitOnce sync.Once
	unit     []float32
}

// lookup finds tok, or else the most frequent word of its stem (for a
// word of stemMin letters or more: a short word's stem is another word).
func (t *wordTable) lookup(tok string) (int, bool) {
	if i, ok := t.index[tok]; ok {
		return i, true
	}
	if len(tok) < stemMin {
		return 0, false
	}
	i := t.stems[lexical.Stem(tok)]
	return i - 1, i > 0
}

// prob estimates the probability of the word of rank i (0-based) in
// running text by Zipf's law: the table keeps GloVe's order, most
// frequent first, but not the counts.
func (t *wordTable) prob(i int) float64 { return 1 / (float64(i+1) * t.zipfH) }

var (
	loadOnce sync.Once
	loaded   *wordTable
	loadErr  error
)

// ErrTable: the shipped table cannot be read (a damaged build).
var ErrTable = errors.New("local: bad word table")

func load() (*wordTable, error) {
	loadOnce.Do(func() { loaded, loadErr = decode(table) })
	return loaded, loadErr
}

func decode(b []byte) (*wordTable, error) {
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTable, err)
	}
	r := bufio.NewReader(z)
	magic := make([]byte, 6)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "TSWV1\n" {
		return nil, fmt.Errorf("%w: no header", ErrTable)
	}
	var hdr [2]uint32
	if err := binary.Read(r, binary.LittleEndian, &hdr); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTable, err)
	}
	n, dim := int(hdr[0]), int(hdr[1])
	if n <= 0 || n > 1<<22 || dim <= 0 || dim > 4096 {
		return nil, fmt.Errorf("%w: %d words of %d dimensions", ErrTable, n, dim)
	}
	t := &wordTable{dim: dim, index: make(map[string]int, n), stems: map[string]int{}, scale: make([]float32, n), q: make([]int8, n*dim)}
	buf := make([]byte, 256)
	for i := range n {
		l, err := r.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTable, err)
		}
		if _, err := io.ReadFull(r, buf[:l]); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTable, err)
		}
		w := string(buf[:l])
		t.index[w] = i
		if s := lexical.Stem(w); t.stems[s] == 0 && s != "" {
			t.stems[s] = i + 1 // the most frequent word of the stem; 0: none yet
		}
	}
	if err := binary.Read(r, binary.LittleEndian, t.scale); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTable, err)
	}
	raw := make([]byte, n*dim)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTable, err)
	}
	for i, x := range raw {
		t.q[i] = int8(x)
	}
	for i := 1; i <= n; i++ {
		t.zipfH += 1 / float64(i)
	}
	return t, nil
}

// matchFloor is the least cosine of two words that counts as a match:
// unrelated words stay under it (vehicle, hospital 0.08), related ones
// pass it (vehicle, subaru 0.45; pet, dog 0.71). Over it a match counts
// (cosine-matchFloor)/(1-matchFloor): 0 at the floor, 1 for the same
// word. Chosen on LoCoMo and the paraphrase set (docs/evaluation.md).
const matchFloor = 0.4

// Match is how well the words of doc answer those of query, in [0, 1]:
// Prepare(query) applied to doc.
func (w *Words) Match(query, doc string) float64 { return w.Prepare(query)(doc) }

// Prepare returns the scorer of texts against query (memory.Matcher):
// each query word in the table weighs its SIF weight and scores its best
// cosine with a word of the text (1 for the same word or stem), counted
// from matchFloor up; the weighted mean, in [0, 1]. Words of rank under
// matchRankMin take no part; 0 when query has no other word in the
// table. The query is read once; each text costs a table look-up per
// word and a dot product per query word and word of the text. The
// scorer is safe for concurrent use.
func (w *Words) Prepare(query string) func(doc string) float64 {
	t := w.t
	unit := t.unitVectors()
	type qword struct {
		i  int
		wt float64
	}
	var qws []qword
	var tot float64
	for _, tok := range tokens(query) {
		i, ok := t.lookup(tok)
		if !ok || i < matchRankMin || slices.ContainsFunc(qws, func(q qword) bool { return q.i == i }) {
			continue
		}
		wt := sifA / (sifA + t.prob(i))
		qws = append(qws, qword{i, wt})
		tot += wt
	}
	// Chinese: each class the query names weighs 1 and counts when the
	// record holds a word of it.
	var zc []int
	var zt *zhClasses
	if hasHan(query) {
		if t, err := loadZH(); err == nil {
			zt, zc = t, t.queryClasses(query)
		}
	}
	en := func(doc string) float64 {
		if tot == 0 {
			return 0
		}
		var dv []int
		for _, tok := range tokens(doc) {
			if i, ok := t.lookup(tok); ok && i >= matchRankMin && !slices.Contains(dv, i) {
				dv = append(dv, i)
			}
		}
		var sum float64
		for _, q := range qws {
			if slices.Contains(dv, q.i) {
				sum += q.wt
				continue
			}
			qv := unit[q.i*t.dim : (q.i+1)*t.dim]
			var best float32
			for _, d := range dv {
				row := unit[d*t.dim : (d+1)*t.dim]
				var c float32
				for j, x := range qv {
					c += x * row[j]
				}
				best = max(best, c)
			}
			if float64(best) > matchFloor {
				sum += q.wt * (float64(best) - matchFloor) / (1 - matchFloor)
			}
		}
		return sum / tot
	}
	if len(zc) == 0 {
		return func(doc string) float64 { return en(doc) }
	}
	return func(doc string) float64 {
		var zh float64
		if hasHan(doc) {
			dc := zt.docClasses(doc)
			for _, c := range zc {
				if dc[c] {
					zh++
				}
			}
		}
		return (en(doc)*tot + zh) / (tot + float64(len(zc)))
	}
}

// unitVectors are the table's vectors at unit length, made on first use.
func (t *wordTable) unitVectors() []float32 {
	t.unitOnce.Do(func() {
		t.unit = make([]float32, len(t.q))
		for i := range len(t.scale) {
			row := t.q[i*t.dim : (i+1)*t.dim]
			var n float64
			for _, x := range row {
				n += float64(x) * float64(x)
			}
			if n == 0 {
				continue
			}
			n = math.Sqrt(n)
			for j, x := range row {
				t.unit[i*t.dim+j] = float32(float64(x) / n)
			}
		}
	})
	return t.unit
}
