package check

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// A number the claim says is computed — a total over rows ("three lines
// employ 68 workers in all", 一共), a value of goods (货值: count × unit
// price), an average per game or head (场均, 人均), a net weight (净重:
// gross − tare) — is a value no single field states. It is computed from
// the fields the claim binds and their row: supported when the
// computation gives it; a wrong total contradicted only when the rows
// summed are unambiguous (one field, every member of one list holding
// it); anything else unsupported. The nearest field of the same unit
// never contradicts it. The words are words.txt's [derived value words],
// the key words of a field that already states the value its [derived
// value key words].

// derivedKind is what a claim says its number is computed as.
type derivedKind int

const (
	derivedNone derivedKind = iota
	derivedTotal
	derivedProduct
	derivedAverage
	derivedNet
)

// derivedKindNames are the line names of [derived value words] and
// [derived value key words], by kind.
var derivedKindNames = [...]string{derivedTotal: "total", derivedProduct: "product", derivedAverage: "average", derivedNet: "net"}

// derivedWords holds, by kind, the claim's words (English phrases split
// into words) and its Chinese words; derivedKeyWords the key words of a
// field that states a value of that kind (total_workers, avg_points, 净重).
var derivedWords, derivedKeyWords = func() (w [len(derivedKindNames)]struct {
	en [][]string
	zh []string
}, k [len(derivedKindNames)][]string) {
	for kind, name := range derivedKindNames {
		if name == "" {
			continue
		}
		for _, s := range evidence.LangData.Words("derived value words", name) {
			if lang.IsCJK([]rune(s)[0]) {
				w[kind].zh = append(w[kind].zh, s)
			} else {
				w[kind].en = append(w[kind].en, strings.Split(s, "_"))
			}
		}
		k[kind] = evidence.LangData.Words("derived value key words", name)
	}
	return w, k
}()

// derivedKindOf returns what the claim says its numbers are computed as,
// the first kind its words say (a net weight before a total).
func (cx *claim) derivedKindOf() derivedKind {
	text := ""
	for _, kind := range [...]derivedKind{derivedNet, derivedAverage, derivedProduct, derivedTotal} {
		dw := &derivedWords[kind]
		for i := range cx.words {
			if cx.words[i].Cjk {
				continue
			}
			for _, p := range dw.en {
				if i+len(p) <= len(cx.words) && wordsAre(cx.words[i:i+len(p)], p) {
					return kind
				}
			}
		}
		if len(dw.zh) > 0 && cx.hasCJK() {
			if text == "" {
				text = string(cx.norm)
			}
			for _, z := range dw.zh {
				if strings.Contains(text, z) {
					return kind
				}
			}
		}
	}
	return derivedNone
}

// keyStates reports whether leaf lf's key says it holds a value of kind
// (total_workers, avg_goals, 净重_kg): the field states the value.
func keyStates(lf *evidence.Leaf, kind derivedKind) bool {
	key := strings.ToLower(evidence.LastToken(lf.Ptr()))
	if lang.IsAllDigits(key) || slices.Contains(lf.Own(), derivedKindNames[kind]) {
		return true // a table's cell, named by its header: 平均分 may state it
	}
	toks := strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	for _, w := range derivedKeyWords[kind] {
		if lang.IsCJK([]rune(w)[0]) && strings.Contains(key, w) || slices.Contains(toks, w) {
			return true
		}
	}
	return kind == derivedNet && namesNet(lf)
}

// judgeDerived judges number m, which the claim says is computed as kind,
// when no target field holds it: computed from the targets' rows, or
// contradicted by an unambiguous sum, or unsupported. ok is false when a
// target's key states the value (the normal check decides) or kind is
// none.
func (cx *claim) judgeDerived(m *evidence.NumMention, targets []int32, kind derivedKind) (fact, bool) {
	ix := cx.ix
	if kind == derivedNone || slices.ContainsFunc(targets, func(t int32) bool { return keyStates(&ix.Leaves[t], kind) }) {
		return fact{}, false
	}
	if kind == derivedNet && len(cx.netLeaves(m)) > 0 {
		return fact{}, false // a net field in scope decides ("her net is …" beside net_cents)
	}
	if f, ok := cx.rowComputed(m, targets, kind); ok {
		return f, true
	}
	if kind == derivedTotal || kind == derivedProduct {
		if f, ok := cx.sumOfRowProducts(m, targets); ok {
			return f, true
		}
	}
	if kind == derivedTotal {
		if rows, sum, ok := cx.summedRows(targets); ok {
			if len(rows) < 2 {
				return fact{}, false // one field of one row: its own value
			}
			var room [8]cand
			if cx.near(m, sum, cx.c.candidates(room[:0], m, m.V)) {
				return supported(ix, "sum of "+strconv.Itoa(len(rows))+" fields", rows...), true
			}
			if m.Unit != nil && m.Unit.Dim != evidence.DimCount && m.Unit.Dim != evidence.DimNone &&
				slices.ContainsFunc(rows, func(l int32) bool {
					d := leafDim(&ix.Leaves[l])
					return d != evidence.DimNone && d != m.Unit.Dim
				}) {
				// 一共133.74元 beside three shares: the fields it would add
				// up are of another kind, so they are not its rows.
				return fact{verdict: events.VerdictUnsupported, weak: true,
					reason: "the fields it would add up are not of its unit"}, true
			}
			f := fact{verdict: events.VerdictContradicted, leaves: rows,
				reason: "the " + strconv.Itoa(len(rows)) + " fields it adds up sum to " + strconv.FormatFloat(sum, 'f', -1, 64)}
			for _, l := range rows[:min(len(rows), cx.c.cfg.EvidenceRefsMax)] {
				f.refs = append(f.refs, ix.Ref(l))
			}
			return f, true
		}
	}
	return fact{verdict: events.VerdictUnsupported, weak: true,
		reason: "the claim states a " + derivedKindNames[kind] + " that no field states and the fields it names do not give"}, true
}

// rowComputed looks for m as a target combined with another number field
// of its own object: a product (count × unit price) for a total or a
// product, a quotient (points ÷ games) for an average, a difference of
// fields of one kind (gross − tare) for a net value. It reads the direct
// fields of at most derivedRowsMax targets' objects.
func (cx *claim) rowComputed(m *evidence.NumMention, targets []int32, kind derivedKind) (fact, bool) {
	ix := cx.ix
	var room [8]cand
	ks := cx.c.candidates(room[:0], m, m.V)
	why := ""
	t, g, ok := cx.rowPair(targets, func(tl, gl *evidence.Leaf) bool {
		x, y := tl.Num, gl.Num
		switch kind {
		case derivedTotal, derivedProduct:
			why = "product of two fields of its row"
			return x != 1 && y != 1 && cx.near(m, x*y, ks)
		case derivedAverage:
			why = "quotient of two fields of its row"
			return y >= 1 && y == math.Trunc(y) && cx.near(m, x/y, ks)
		case derivedNet:
			why = "difference of two fields of its row"
			return gl.Scaled == tl.Scaled && leafDim(gl) == leafDim(tl) && cx.near(m, math.Abs(x-y), ks)
		}
		return false
	})
	if ok {
		return supported(ix, why, t, g), true
	}
	if kind == derivedNet && len(targets) > 0 && ix.Leaves[targets[0]].Node >= 0 {
		// Gross and tare alone in their row: the difference is bound
		// unambiguously, and a net value it is not is contradicted.
		t := targets[0]
		tl := &ix.Leaves[t]
		var other int32 = -1
		n := 0
		for _, g := range ix.DirectLeaves().Of(tl.Node) {
			if gl := &ix.Leaves[g]; g != t && gl.Kind == evidence.KindNum && !gl.Text && gl.Scaled == tl.Scaled && gl.Ptr() != tl.Ptr() && leafDim(gl) == leafDim(tl) && leafDim(tl) != evidence.DimNone {
				other = g
				n++
			}
		}
		inRow := !slices.ContainsFunc(targets, func(u int32) bool { return ix.Leaves[u].Node != tl.Node })
		if n == 1 && inRow {
			d := math.Abs(tl.Num - ix.Leaves[other].Num)
			return fact{verdict: events.VerdictContradicted, leaves: []int32{t, other}, refs: []events.EvidenceRef{ix.Ref(t), ix.Ref(other)},
				reason: "the difference of " + tl.Ptr() + " and " + ix.Leaves[other].Ptr() + " is " + strconv.FormatFloat(d, 'f', -1, 64)}, true
		}
	}
	return fact{}, false
}

// perWordQuotient looks for m, a rate per word w ("338 points per leg"),
// as a target divided by the field of its row whose key is w (legs).
func (cx *claim) perWordQuotient(m *evidence.NumMention, targets []int32, w string) (fact, bool) {
	sw := lang.Stem(w)
	var room [8]cand
	ks := cx.c.candidates(room[:0], m, m.V)
	t, g, ok := cx.rowPair(targets, func(tl, gl *evidence.Leaf) bool {
		k := strings.ToLower(evidence.LastToken(gl.Ptr()))
		return gl.Num >= 1 && (k == w || lang.Stem(k) == sw) && cx.near(m, tl.Num/gl.Num, ks)
	})
	if !ok {
		return fact{}, false
	}
	return supported(cx.ix, "quotient of a field by the "+w+" of its row", t, g), true
}

// rowPair returns the first target (of at most derivedRowsMax) and
// another number field of its object for which fn holds.
func (cx *claim) rowPair(targets []int32, fn func(tl, gl *evidence.Leaf) bool) (int32, int32, bool) {
	ix := cx.ix
	for i, t := range targets {
		if i == derivedRowsMax {
			break
		}
		tl := &ix.Leaves[t]
		if tl.Kind != evidence.KindNum || tl.Text || tl.Node < 0 {
			continue
		}
		for _, g := range ix.DirectLeaves().Of(tl.Node) {
			gl := &ix.Leaves[g]
			if g != t && gl.Kind == evidence.KindNum && !gl.Text && gl.Ptr() != tl.Ptr() && fn(tl, gl) {
				return t, g, true
			}
		}
	}
	return 0, 0, false
}

// sumOfRowProducts looks for m as the sum over the targets' rows of a
// target (a unit price) times another field of one key in each row (the
// quantity): "altogether it comes to $1,320" over lines of jugs.
func (cx *claim) sumOfRowProducts(m *evidence.NumMention, targets []int32) (fact, bool) {
	ix := cx.ix
	if len(targets) < 2 || len(targets) > derivedRowsMax {
		return fact{}, false
	}
	first := &ix.Leaves[targets[0]]
	if first.Node < 0 {
		return fact{}, false
	}
	var room [8]cand
	ks := cx.c.candidates(room[:0], m, m.V)
	for _, g := range ix.DirectLeaves().Of(first.Node) {
		gl := &ix.Leaves[g]
		if g == targets[0] || gl.Kind != evidence.KindNum || gl.Text || gl.Ptr() == first.Ptr() {
			continue
		}
		key := evidence.LastToken(gl.Ptr())
		sum, refs := 0.0, []int32{}
		for _, t := range targets {
			tl := &ix.Leaves[t]
			if tl.Node < 0 || tl.Scaled != first.Scaled || tl.Text {
				continue
			}
			for _, h := range ix.DirectLeaves().Of(tl.Node) {
				if hl := &ix.Leaves[h]; hl.Kind == evidence.KindNum && !hl.Text && hl.Scaled == gl.Scaled && evidence.LastToken(hl.Ptr()) == key {
					sum += tl.Num * hl.Num
					refs = append(refs, t, h)
					break
				}
			}
		}
		if len(refs) >= 4 && cx.near(m, sum, ks) {
			return supported(ix, "sum of the products of two fields over its rows", refs...), true
		}
	}
	return fact{}, false
}

// summable reports whether a field's values add up to a total: a rate or
// a unit price (price_pence_per_kg, 单价) does not.
func summable(lf *evidence.Leaf) bool {
	if fieldRate(lf).is {
		return false
	}
	key := strings.ToLower(evidence.LastToken(lf.Ptr()))
	for _, t := range strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '-' || r == ' ' }) {
		if unitPriceWords[t] {
			return false
		}
	}
	for w := range unitPriceWords {
		if lang.IsCJK([]rune(w)[0]) && strings.Contains(key, w) {
			return false
		}
	}
	return true
}

// derivedRowsMax is the most targets whose rows rowComputed reads.
const derivedRowsMax = 8

// summedRows returns the targets a total is unambiguously the sum of: one
// key, one field in each member of one list, every member holding that
// key among them; or two to four fields of one object the claim names
// ("A和B合计"); ok is false otherwise.
func (cx *claim) summedRows(targets []int32) (rows []int32, sum float64, ok bool) {
	ix := cx.ix
	key, oneKey, oneNode := "", true, true
	for _, t := range targets {
		tl := &ix.Leaves[t]
		if tl.Kind != evidence.KindNum || tl.Text || tl.Scaled {
			continue
		}
		if !summable(tl) {
			return nil, 0, false
		}
		switch k := evidence.LastToken(tl.Ptr()); {
		case key == "":
			key = k
		case k != key:
			oneKey = false
		}
		oneNode = oneNode && (len(rows) == 0 || tl.Node == ix.Leaves[rows[0]].Node)
		rows = append(rows, t)
		sum += tl.Num
	}
	if len(rows) < 2 {
		return rows, sum, len(rows) == 1
	}
	if !oneKey {
		if !oneNode {
			return nil, 0, false
		}
		return cx.keysWritten(rows)
	}
	for _, cl := range ix.Colls {
		if !slices.Contains(cl.Members, ix.Leaves[rows[0]].Node) {
			continue
		}
		holding := 0
		for _, mb := range cl.Members {
			for _, g := range ix.DirectLeaves().Of(mb) {
				if gl := &ix.Leaves[g]; gl.Kind == evidence.KindNum && !gl.Text && !gl.Scaled && evidence.LastToken(gl.Ptr()) == key {
					holding++
					break
				}
			}
		}
		for _, r := range rows {
			if !slices.Contains(cl.Members, ix.Leaves[r].Node) {
				return nil, 0, false
			}
		}
		return rows, sum, holding == len(rows)
	}
	return nil, 0, false
}

// keysWritten returns the fields of rows whose key the claim writes out
// where no longer key of rows is written (不满意和非常不满意合计 names those
// two, not 满意 inside them, nor 非常满意 it never writes), and their sum;
// ok only when two to four are.
func (cx *claim) keysWritten(rows []int32) (kept []int32, sum float64, ok bool) {
	ix := cx.ix
	text := strings.ToLower(string(cx.norm))
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = strings.ToLower(ptrKeyText(ix.Leaves[r].Ptr()))
	}
	for i, r := range rows {
		k := keys[i]
		if k == "" {
			return nil, 0, false
		}
		alone := false
		for from := 0; !alone; {
			j := strings.Index(text[from:], k)
			if j < 0 {
				break
			}
			at := from + j
			inside := false
			for _, o := range keys {
				if len(o) <= len(k) || !strings.Contains(o, k) {
					continue
				}
				for off := max(0, at-len(o)+len(k)); off <= at && off+len(o) <= len(text); off++ {
					if text[off:off+len(o)] == o {
						inside = true
						break
					}
				}
			}
			alone = !inside
			from = at + len(k)
		}
		if alone {
			kept = append(kept, r)
			sum += ix.Leaves[r].Num
		}
	}
	return kept, sum, len(kept) >= 2 && len(kept) <= 4
}

// ptrKeyText is the last key of a pointer as written (~1 is "/").
func ptrKeyText(ptr string) string {
	return evidence.LastKey(ptr)
}
