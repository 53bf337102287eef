package check

import (
	"maps"
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
	ordinalNone    ordinalPick = iota // no ordinal names rows of any array
	ordinalRow                        // one row, by its label's number or its position
	ordinalMissed                     // rows are named, but no one row is picked
	ordinalUnbound                    // an ordinal counts a noun no array's rows are named by
)

// An ordinal's noun ("the fourth week", 第四周, the 2nd leg) is read as
// any word of a claim is: its lexicon concepts (车站 and stop are one
// concept), else its stem; one ideograph after a Chinese ordinal by
// words.txt's [ordinal nouns] (站: station, 天: day), else as itself. It
// names an array's rows when the concepts of the array's key or of a
// row's field key share one with it (the concept matching a claim's
// words are bound to fields by), or, in Chinese, when the key holds the
// noun's ideographs. Which nouns bind is not listed: a noun of a domain
// no one wrote rules for binds as one of ours does, and a noun that names
// no array's rows binds nothing.

// keyNamesNoun reports whether a key of concepts kc (written key) names
// the noun of om.
func keyNamesNoun(key string, kc []string, om *ordinalMention) bool {
	if overlap(kc, om.noun) > 0 {
		return true
	}
	r := []rune(om.word)
	return len(r) > 0 && lang.IsCJK(r[0]) && strings.Contains(key, om.word)
}

// nounConcepts returns the concepts of the English word w after an
// ordinal, nil when w is no noun (a stop word, "the first two weeks").
func nounConcepts(w string) []string {
	if _, ok := evidence.LangData.NumberWord(w); ok || w == "" {
		return nil
	}
	return evidence.WordConcepts(w)
}

// ordinalNouns are words.txt's [ordinal nouns]: what one ideograph after
// a Chinese ordinal counts (名: rank), by concepts of the lexicon.
var ordinalNouns = conceptsByWord("ordinal nouns")

// cjkNounAt returns the Chinese noun at r[i] and its concepts: the
// longest lexicon word there, else the one ideograph, by [ordinal nouns]
// or (one they lack) as itself; nothing when the lexicon's word there
// has no concepts (的, 个: no noun).
func cjkNounAt(r []rune, i int) (string, []string) {
	if i >= len(r) || !lang.IsCJK(r[i]) {
		return "", nil
	}
	for n := min(evidence.ZhMaxLen, len(r)-i); n > 0; n-- {
		w := string(r[i : i+n])
		if l := evidence.ZhLex[w]; l != nil {
			if len(l.Concepts) == 0 {
				return "", nil
			}
			return w, l.Concepts
		}
	}
	w := string(r[i])
	if c, ok := ordinalNouns[w]; ok {
		return w, c
	}
	return w, []string{w}
}

// ordinalMention is one ordinal of a claim and the noun it counts.
type ordinalMention struct {
	v    float64
	noun []string // the concepts of the noun it counts
	word string   // the noun as written
	span [2]int   // the runes of the ordinal and its noun
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
			word := rd.nt.Sub(i, j) // NB: norm's runes, no copy
			v, ok := evidence.LangData.Ordinal(word)
			if h := strings.IndexByte(word, '-'); !ok && h > 0 {
				// "fourth-quarter orders", "4th-quarter": the noun after the hyphen.
				if v, ok = evidence.LangData.Ordinal(rd.nt.Sub(i, i+h)); ok {
					tail := rd.nt.Sub(i+h+1, j)
					if k := strings.IndexByte(tail, '-'); k >= 0 {
						tail = tail[:k]
					}
					if n := nounConcepts(tail); len(n) > 0 {
						out = append(out, ordinalMention{v, n, tail, [2]int{i, i + h + 1 + len([]rune(tail))}})
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
				if n := nounConcepts(string(r[k:e])); len(n) > 0 {
					out = append(out, ordinalMention{v, n, string(r[k:e]), [2]int{i, e}})
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
// noun after it.
func zhOrdinalAt(r []rune, i int) (ordinalMention, bool) {
	v, end, ok := evidence.LangData.ZhOrdinal(r, i)
	if !ok {
		return ordinalMention{}, false
	}
	w, n := cjkNounAt(r, end)
	return ordinalMention{v, n, w, [2]int{i, end + len([]rune(w))}}, len(n) > 0
}

func asciiWordEnd(r []rune, i int) int {
	j := i
	for j < len(r) && r[j] < unicode.MaxASCII && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '-') {
		j++
	}
	return j
}

// rowByOrdinal returns the row of an array a claim's ordinal picks: the
// row whose own numeric field named by the ordinal's noun holds the
// number ("the fourth week", 第四周 beside rows of week 3, 4, 5), or, when
// the rows carry no such field and the array's key names the noun or
// each row a string of its own under a key naming it, the row at that
// position (第二批 beside batches, the third stop beside rows each with
// a stop's name). Rows named but none picked,
// or two picked, is ordinalMissed: the claim is about a row the evidence
// does not single out. An ordinal whose noun names no array's rows, while
// the evidence has rows, is ordinalUnbound (when no other ordinal of the
// claim names rows). The mention returned is the one that decided.
func rowByOrdinal(ix *evidence.Index, rd *reading) (int32, ordinalMention, ordinalPick) {
	var found int32 = -1
	var by ordinalMention
	pick := ordinalNone
	for _, om := range rd.ordinals() {
		named, rows := false, false
		for _, a := range ix.Arrays {
			row, ok, hasRows := ordinalRowOf(ix, a, &om)
			rows = rows || hasRows
			if !ok {
				continue
			}
			named = true
			if row < 0 || found >= 0 && found != row {
				return -1, om, ordinalMissed
			}
			found, by, pick = row, om, ordinalRow
		}
		if !named && rows && pick == ordinalNone {
			by, pick = om, ordinalUnbound
		}
	}
	return found, by, pick
}

// ordinalRowOf returns the row of array a that om picks, whether om names
// a's rows at all, and whether a has rows (two objects or more). Of
// several numeric fields naming the noun, the keys that name least
// besides it label the rows (day before duration_days); keys that
// disagree on the row pick none.
func ordinalRowOf(ix *evidence.Index, a int32, om *ordinalMention) (int32, bool, bool) {
	nd := &ix.Nodes[a]
	var rows []int32
	type labelKey struct {
		extra  int
		values map[int32]float64
	}
	labels := map[string]*labelKey{}
	names := map[string]map[string]bool{} // string fields naming the noun: their values
	for l := nd.LeafLo; l < nd.LeafHi; l++ {
		lf := &ix.Leaves[l]
		if lf.Node < 0 || ix.Nodes[lf.Node].Parent != a || ix.Nodes[lf.Node].Array {
			continue
		}
		if len(rows) == 0 || rows[len(rows)-1] != lf.Node {
			rows = append(rows, lf.Node)
		}
		key := evidence.LastToken(lf.Ptr())
		if !keyNamesNoun(key, lf.Own(), om) {
			continue
		}
		if lf.Kind == evidence.KindStr && !lf.Text {
			if names[key] == nil {
				names[key] = map[string]bool{}
			}
			names[key][strings.ToLower(lf.Str())] = true
		}
		if lf.Kind != evidence.KindNum || lf.Text {
			continue
		}
		lk := labels[key]
		if lk == nil {
			lk = &labelKey{values: map[int32]float64{}}
			for _, c := range lf.Own() {
				if !slices.Contains(om.noun, c) {
					lk.extra++
				}
			}
			labels[key] = lk
		}
		lk.values[lf.Node] = lf.Num
	}
	if len(rows) < 2 {
		return -1, false, false
	}
	if len(labels) > 0 {
		least := -1
		for _, lk := range labels {
			if least < 0 || lk.extra < least {
				least = lk.extra
			}
		}
		var found int32 = -1
		picked := false
		for _, key := range slices.Sorted(maps.Keys(labels)) {
			lk := labels[key]
			if lk.extra != least {
				continue
			}
			row, ok := labelledBy(lk.values, om.v)
			if !ok {
				return -1, true, true // rows share the number: it labels none
			}
			if picked && row != found {
				return -1, true, true
			}
			found, picked = row, true
		}
		return found, true, true
	}
	named := false // each row names itself in a field of the noun: {"stop": "Elm St"}
	for _, vs := range names {
		named = named || len(vs) == len(rows)
	}
	if key := evidence.LastToken(nd.Ptr); !named && !keyNamesNoun(key, evidence.ConceptsOf(key), om) {
		return -1, false, true
	}
	for _, row := range rows {
		if i, err := strconv.Atoi(evidence.LastToken(ix.Nodes[row].Ptr)); err == nil && float64(i+1) == om.v {
			return row, true, true
		}
	}
	return -1, true, true
}

// labelledBy returns the row whose label is v (-1 for none), and false
// when two rows share a label: the numbers then label no row.
func labelledBy(values map[int32]float64, v float64) (int32, bool) {
	var found int32 = -1
	seen := map[float64]bool{}
	for row, x := range values {
		if seen[x] {
			return -1, false
		}
		seen[x] = true
		if x == v {
			found = row
		}
	}
	return found, true
}
