package check

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// ordinalPick is what a claim's ordinals ("the fourth week", 第3批,
// 三号仓) make of the rows of the evidence's arrays.
type ordinalPick int

const (
	ordinalNone   ordinalPick = iota // no ordinal names rows of any array
	ordinalRow                       // one row, by its label's number or its position
	ordinalMissed                    // rows are named, but no one row is picked
)

// rowNouns maps each word of numbers.txt's [row nouns] to its line's name.
var rowNouns = func() map[string]string {
	m := map[string]string{}
	for _, l := range evidence.LangData.Lines("row nouns") {
		for _, w := range l.Words {
			m[w] = l.Name
		}
	}
	return m
}()

// cjkRowNoun is a Chinese word of [row nouns] and its line's name.
type cjkRowNoun struct {
	w, name string
	r       []rune
}

// cjkRowNouns are rowNouns' Chinese words, longest first (then by word):
// the first that starts at a rune is the longest there, and no two
// differing words of one length both start at it.
var cjkRowNouns = func() []cjkRowNoun {
	var out []cjkRowNoun
	for w, n := range rowNouns {
		if r := []rune(w); len(r) > 0 && lang.IsCJK(r[0]) {
			out = append(out, cjkRowNoun{w: w, name: n, r: r})
		}
	}
	slices.SortFunc(out, func(a, b cjkRowNoun) int {
		if c := cmp.Compare(len(b.r), len(a.r)); c != 0 {
			return c
		}
		return strings.Compare(a.w, b.w)
	})
	return out
}()

// rowNoun is the name a word counting rows goes by: its [row nouns]
// line's, else (English) its stem.
func rowNoun(w string) string {
	if n, ok := rowNouns[w]; ok {
		return n
	}
	if r := []rune(w); len(r) > 0 && lang.IsCJK(r[0]) {
		return ""
	}
	return lang.Stem(w)
}

// keyNamesNoun reports whether a JSON key names the rows' noun n: one of
// its parts goes by n, or (Chinese) it holds a word of n's line.
func keyNamesNoun(key, n string) bool {
	for _, p := range lang.KeyParts(key) {
		if rowNoun(p) == n {
			return true
		}
	}
	for _, c := range cjkRowNouns {
		if c.name == n && strings.Contains(key, c.w) {
			return true
		}
	}
	return false
}

// ordinalMention is one ordinal of a claim and the noun it counts.
type ordinalMention struct {
	v    float64
	noun string
	span [2]int
}

// ordinals returns a claim's ordinals that count a noun: an English
// ordinal word or 4th before its noun, a Chinese 第四 or 三号 before its.
func (rd *reading) ordinals() []ordinalMention {
	r := rd.norm
	var out []ordinalMention
	for i := 0; i < len(r); {
		c := r[i]
		if c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
			if i > 0 && r[i-1] < unicode.MaxASCII && (unicode.IsLetter(r[i-1]) || unicode.IsDigit(r[i-1])) {
				i++
				continue
			}
			j := asciiWordEnd(r, i)
			v, ok := evidence.LangData.Ordinal(string(r[i:j]))
			if h := strings.IndexByte(string(r[i:j]), '-'); !ok && h > 0 {
				// "fourth-quarter orders", "4th-quarter": the noun after the hyphen.
				if v, ok = evidence.LangData.Ordinal(string(r[i : i+h])); ok {
					tail := string(r[i+h+1 : j])
					if k := strings.IndexByte(tail, '-'); k >= 0 {
						tail = tail[:k]
					}
					if n := rowNoun(tail); n != "" && tail != "" {
						out = append(out, ordinalMention{v, n, [2]int{i, i + h}})
					}
					i = j
					continue
				}
			}
			if !ok {
				// "3号仓": digits and a Chinese mark.
				if om, ok := zhOrdinalAt(r, i); ok {
					out = append(out, om)
				}
				i = j
				continue
			}
			k := j
			for k < len(r) && r[k] == ' ' {
				k++
			}
			if e := asciiWordEnd(r, k); e > k {
				if n := rowNoun(string(r[k:e])); n != "" {
					out = append(out, ordinalMention{v, n, [2]int{i, j}})
				}
			}
			i = j
			continue
		}
		if lang.IsCJK(c) || evidence.LangData.IsZhNumeral(c) {
			if i > 0 && evidence.LangData.IsZhNumeral(r[i-1]) {
				i++
				continue
			}
			if om, ok := zhOrdinalAt(r, i); ok {
				out = append(out, om)
				i = om.span[1]
				continue
			}
		}
		i++
	}
	return out
}

// zhOrdinalAt reads a Chinese ordinal at r[i] (第四, 三号, 3号) and the
// row noun after it.
func zhOrdinalAt(r []rune, i int) (ordinalMention, bool) {
	v, end, ok := evidence.LangData.ZhOrdinal(r, i)
	if !ok {
		return ordinalMention{}, false
	}
	n := cjkRowNounAt(r, end)
	return ordinalMention{v, n, [2]int{i, end}}, n != ""
}

func asciiWordEnd(r []rune, i int) int {
	j := i
	for j < len(r) && r[j] < unicode.MaxASCII && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '-') {
		j++
	}
	return j
}

// cjkRowNounAt returns the name of the longest Chinese row noun at r[i].
func cjkRowNounAt(r []rune, i int) string {
	for _, c := range cjkRowNouns {
		if i+len(c.r) <= len(r) && slices.Equal(r[i:i+len(c.r)], c.r) {
			return c.name
		}
	}
	return ""
}

// rowByOrdinal returns the row of an array a claim's ordinal picks: the
// row whose own numeric field of the ordinal's noun holds the number
// ("the fourth week", 第四周 beside rows of week 3, 4, 5), or, when the
// rows carry no such field and the array's key is the noun, the row at
// that position (第二批 beside batches). Rows named but none picked, or
// two picked, is ordinalMissed: the claim is about a row the evidence
// does not single out.
func rowByOrdinal(ix *evidence.Index, rd *reading) (int32, [2]int, ordinalPick) {
	var found int32 = -1
	var span [2]int
	pick := ordinalNone
	for _, om := range rd.ordinals() {
		for _, a := range ix.Arrays {
			row, named := ordinalRowOf(ix, a, om)
			if !named {
				continue
			}
			if row < 0 || found >= 0 && found != row {
				return -1, span, ordinalMissed
			}
			found, span, pick = row, om.span, ordinalRow
		}
	}
	return found, span, pick
}

// ordinalRowOf returns the row of array a that om picks, and whether om
// names a's rows at all.
func ordinalRowOf(ix *evidence.Index, a int32, om ordinalMention) (int32, bool) {
	nd := &ix.Nodes[a]
	var rows []int32
	labels := map[int32]float64{}
	for l := nd.LeafLo; l < nd.LeafHi; l++ {
		lf := &ix.Leaves[l]
		if lf.Node < 0 || ix.Nodes[lf.Node].Parent != a || ix.Nodes[lf.Node].Array {
			continue
		}
		if len(rows) == 0 || rows[len(rows)-1] != lf.Node {
			rows = append(rows, lf.Node)
		}
		if lf.Kind == evidence.KindNum && !lf.Text && keyNamesNoun(evidence.LastToken(lf.Ptr()), om.noun) {
			labels[lf.Node] = lf.Num
		}
	}
	if len(rows) < 2 {
		return -1, false
	}
	if len(labels) > 0 {
		var found int32 = -1
		seen := map[float64]bool{}
		for row, v := range labels {
			if seen[v] {
				return -1, true // rows share the number: it labels none
			}
			seen[v] = true
			if v == om.v {
				found = row
			}
		}
		return found, true
	}
	if !keyNamesNoun(evidence.LastToken(nd.Ptr), om.noun) {
		return -1, false
	}
	for _, row := range rows {
		if i, err := strconv.Atoi(evidence.LastToken(ix.Nodes[row].Ptr)); err == nil && float64(i+1) == om.v {
			return row, true
		}
	}
	return -1, true
}
