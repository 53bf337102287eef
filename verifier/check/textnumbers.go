package check

import (
	"github.com/toolstream/toolstream/internal/lang"

	"strings"
	"time"
	"unicode"
)

// ---- numbers (and dates) the evidence writes inside keys and strings -------

// keyNumbers indexes what a numeric field's key says about its value: a
// magnitude (the value in 万元 is also indexed in 元) and a number in the
// key itself (sales_30d is about 30 days).
func (w *walker) keyNumbers(id int32, ki *keyInfo) {
	ix := w.ix
	base := ix.leaves[id]
	if ki.mag != 1 {
		lf := base
		lf.num, lf.hi, lf.scaled = base.num*ki.mag, base.hi*ki.mag, true
		if ki.magCurrency {
			lf.setUnit(uCNY)
			lf.dim = dimCurrency
		}
		if ki.magUnit != nil {
			lf.setUnit(ki.magUnit)
			lf.dim = ki.magUnit.dim
		}
		ix.leaves = append(ix.leaves, lf)
	}
	for _, m := range ki.numbers {
		lf := base
		lf.num, lf.hi, lf.dim, lf.text = m.v, m.v, m.unit.dim, true
		lf.setUnit(m.unit)
		ix.leaves = append(ix.leaves, lf)
	}
}

// textItem is a number or a date written inside a string value, with the
// concepts of the words around it; worked out once per distinct string.
type textItem struct {
	date    bool
	bare    bool // nothing but the number and its unit in the string
	num, hi float64
	unit    *unit
	day     int32
	clock   int16
	pos     int32
	near    []string
	rel     bool // a date read against the time of reading (June 3, Thursday)
}

// textKey is a text's key in the index's cache of textItems: a struct, not
// a string with a marker byte, so a text that starts with the marker
// cannot take another's items.
type textKey struct {
	s     string
	dates bool
}

// textItems finds the numbers ("3-5 business days", "$25.00", "revenue
// rose 12% to 3.2 billion") and dates ("launches on June 3", "landfall on
// Thursday evening", resolved against the answer's time) in s.
func (w *walker) textItems(s string, dates bool) []textItem {
	key := textKey{s, dates}
	if items, ok := w.ix.texts[key]; ok {
		return items
	}
	var items []textItem
	norm := lang.Normalize(s)
	var toks []token
	near := func(a, b int) []string {
		if toks == nil {
			toks = tokenize(norm)
		}
		return nearbyConcepts(toks, a, b, 6)
	}
	if strings.ContainsAny(s, "0123456789０１２３４５６７８９") {
		for k, m := range scanNumbers(norm, nil) {
			if k >= textNumbersMax {
				break
			}
			bare := true
			for i, c := range norm {
				if (i < m.start || i >= m.end) && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
					bare = false
					break
				}
			}
			items = append(items, textItem{num: m.v, hi: m.hi, unit: m.unit, pos: int32(m.start), near: near(m.start, m.end), bare: bare})
		}
	}
	if dates && len(s) >= 5 && mightHaveDate(norm) {
		for _, te := range textDates(norm, w.now) {
			items = append(items, textItem{date: true, day: te.days[0], clock: int16(te.clock), pos: int32(te.start), near: near(te.start, te.end), rel: te.rel})
		}
	}
	w.ix.texts[key] = items
	return items
}

// textDates returns the dates (with a day) of a string value's
// normalised runes, read at now.
func textDates(norm []rune, now time.Time) []timeExpr {
	var out []timeExpr
	for k, te := range scanTimes(norm, now, make([]bool, len(norm))) {
		if k >= textDatesMax || len(te.days) == 0 {
			continue
		}
		out = append(out, te)
	}
	return out
}

// textNumbers and textDates index the items of a string value as leaves
// pointing at the string.
func (w *walker) textNumbers(id int32, s string) {
	if s == "" || len(s) > 20000 {
		return
	}
	w.textLeaves(id, s, false)
}

func (w *walker) textDates(id int32, s string) {
	if s == "" || len(s) > 20000 {
		return
	}
	w.textLeaves(id, s, true)
}

func (w *walker) textLeaves(id int32, s string, dates bool) {
	ix := w.ix
	base := ix.leaves[id]
	items := w.textItems(s, true)
	// The string is the value itself when nothing but one number and its
	// unit is written in it.
	short := !dates && len(items) == 1 && !items[0].date && items[0].bare
	nth := 0 // of the dates
	for _, it := range items {
		if it.date != dates {
			continue
		}
		nth++
		lf := base
		lf.text, lf.catID, lf.src, lf.textPos = true, 0, id, it.pos
		w.setTextCtx(&lf, base.ctxID, it.near)
		if dates {
			lf.hasDay, lf.day, lf.minute = true, it.day, it.clock
			if it.rel {
				lf.rel = int8(nth)
			}
		} else {
			lf.kind, lf.strID, lf.textShort = kindNum, 0, short
			lf.num, lf.hi, lf.dim = it.num, it.hi, dimNone
			lf.setUnit(it.unit)
			if it.unit != nil {
				lf.dim = it.unit.dim
			}
		}
		ix.leaves = append(ix.leaves, lf)
	}
}

// nearKey is a value found in text's context: its string leaf's context
// (a list number) and the words near it (a textItem's, which the cache of
// textItems keeps, so its first element's address names it).
type nearKey struct {
	ctx  uint32
	near *string
	n    int
}

// setTextCtx gives lf the context base followed by near, numbered once
// for each pair: a text repeated across a result ("Ships in 3-5 business
// days" in every item) would otherwise build and look up the same list
// for every value in it.
func (w *walker) setTextCtx(lf *leaf, base uint32, near []string) {
	if len(near) == 0 {
		lf.setCtx(appendCtx(lf.t.lists[base], near))
		return
	}
	k := nearKey{base, &near[0], len(near)}
	if id, ok := w.nearCtx[k]; ok {
		lf.ctxID = id
		return
	}
	lf.setCtx(appendCtx(lf.t.lists[base], near))
	if w.nearCtx == nil {
		w.nearCtx = map[nearKey]uint32{}
	}
	w.nearCtx[k] = lf.ctxID
}

// textHedged reports whether a value found in text sits in a sentence
// that calls it an estimate (expected, possible, 预计).
func (ix *index) textHedged(l int32) bool {
	lf := &ix.leaves[l]
	if !lf.text || lf.src < 0 {
		return false
	}
	r := []rune(ix.leaves[lf.src].str())
	if int(lf.textPos) >= len(r) {
		return false
	}
	return nearbyHedge(r, tokenize(r), int(lf.textPos), int(lf.textPos)+1)
}

// nearbyHedge reports an estimate word (expected, possible, 预计) in the
// sentence of the text around [s, e).
func nearbyHedge(r []rune, toks []token, s, e int) bool {
	lo, hi := s, e
	for lo > 0 && !strings.ContainsRune(".!?。！？\n", r[lo-1]) {
		lo--
	}
	for hi < len(r) && !strings.ContainsRune(".!?。！？\n", r[hi]) {
		hi++
	}
	for _, tk := range toks {
		if tk.start < lo || tk.end > hi {
			continue
		}
		if l := enLex[tk.s]; l != nil && l.cues&cueHedge != 0 {
			return true
		}
	}
	for _, w := range segmentCJKKeep(r[lo:hi]) {
		if l := zhLex[w]; l != nil && l.cues&cueHedge != 0 {
			return true
		}
	}
	return false
}

// nearbyConcepts returns the concepts of up to n tokens around [s, e).
func nearbyConcepts(toks []token, s, e, n int) []string {
	var out []string
	for _, tk := range toks {
		if tk.end <= s && tk.end > s-40 || tk.start >= e && tk.start < e+40 {
			for _, c := range wordConcepts(tk.s) {
				if len(out) < n {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// textNumbersMax and textDatesMax bound the numbers and dates taken from
// one string value.
const (
	textNumbersMax = 64
	textDatesMax   = 16
)
