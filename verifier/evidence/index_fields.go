package evidence

import (
	"github.com/toolstream/toolstream/internal/lang"

	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
)

// tableHeader returns the column names of an object shaped like a table
// ({"columns": [...], "rows": [[...], ...]}), or nil.
func tableHeader(obj jsonObject) []string {
	for _, hk := range []string{"columns", "header", "headers", "fields", "column_names"} {
		hv, _ := obj.get(hk)
		h, ok := hv.([]any)
		if !ok || len(h) == 0 {
			continue
		}
		names := make([]string, len(h))
		for i, c := range h {
			switch c := c.(type) {
			case string:
				names[i] = c
			case jsonObject:
				nv, _ := c.get("name")
				s, _ := nv.(string)
				names[i] = s
			default:
				return nil
			}
		}
		for _, fd := range obj {
			if k, v := fd.k, fd.v; isRowsKey(k) {
				if rows, ok := v.([]any); ok && len(rows) > 0 {
					if _, ok := rows[0].([]any); ok {
						return names
					}
				}
			}
		}
	}
	return nil
}

func isHeaderKey(k string) bool {
	switch strings.ToLower(k) {
	case "columns", "header", "headers", "fields", "column_names":
		return true
	}
	return false
}

func isRowsKey(k string) bool {
	switch strings.ToLower(k) {
	case "rows", "data", "values", "records", "body":
		return true
	}
	return false
}

// headerRow returns the first row of an array of arrays when it is all
// strings and the other rows have the same width and hold numbers.
func headerRow(rows []any) []string {
	if len(rows) < 2 {
		return nil
	}
	first, ok := rows[0].([]any)
	if !ok || len(first) < 2 {
		return nil
	}
	names := make([]string, len(first))
	for i, c := range first {
		s, ok := c.(string)
		if !ok {
			return nil
		}
		names[i] = s
	}
	numeric := false
	for _, r := range rows[1:] {
		rr, ok := r.([]any)
		if !ok || len(rr) != len(first) {
			return nil
		}
		for _, c := range rr {
			if _, ok := c.(json.Number); ok {
				numeric = true
			}
		}
	}
	if !numeric {
		return nil
	}
	return names
}

// walkTable indexes rows (arrays of cells) as objects keyed by header; the
// first string cell names the row. For a header row inside the array
// (headerRow) rows is the rest and pointers keep their real positions.
func (w *Walker) walkTable(v any, ptr string, f frame, parent int32, header []string) {
	rows, ok := v.([]any)
	if !ok {
		w.child(v, ptr, f, parent, nil)
		return
	}
	offset := 0
	arr := parent
	if w.Ix.Nodes[parent].Array && ptr == w.Ix.Nodes[parent].Ptr {
		offset = 1 // header row inside the array
	} else {
		arr = w.newNode(ptr, parent, f.concepts, true)
		w.Ix.Nodes[arr].Length = len(rows)
		defer w.closeNode(arr)
	}
	for i, r := range rows {
		p := w.ptrs.index(ptr, i+offset)
		cells, ok := r.([]any)
		if !ok {
			w.child(r, p, f, arr, nil)
			continue
		}
		row := w.newNode(p, arr, f.concepts, false)
		w.Ix.Nodes[arr].ObjKids++
		for j, c := range cells {
			if s, ok := c.(string); ok && w.Ix.Nodes[row].subject == "" && (j == 0 || isSubjectKey(cellName(header, j))) {
				w.addSubject(row, s, new(*strInfo))
				w.Ix.Nodes[row].subject = s
			}
		}
		label := w.Ix.Nodes[row].subject
		ctx := appendCtx(f.ctx, f.concepts)
		if label != "" {
			// The row's label describes its cells too: "Revenue ($M)".
			ctx = appendCtx(ctx, w.concepts(label, nil))
		}
		for j, c := range cells {
			name := cellName(header, j)
			ki := w.keyInfo(name)
			cf := frame{key: name, ki: ki, concepts: w.conceptsOf(ki, nil), ctx: ctx, parentKey: f.key, rowKey: label}
			w.child(c, w.ptrs.index(p, j), cf, row, nil)
		}
		w.closeNode(row)
	}
}

func cellName(header []string, j int) string {
	if j < len(header) {
		return header[j]
	}
	return strconv.Itoa(j)
}

// keyInfo is what a key says, worked out once per distinct key per Check.
// minorUnitWords are key tokens naming a currency's minor unit, with how
// many of it make one of the currency (cents: 100).
var minorUnitWords = func() map[string]float64 {
	m := map[string]float64{}
	for w, f := range LangData.Numbers("minor units") {
		m[w] = math.Round(1 / f)
	}
	return m
}()

// yuanMinorUnits are key tokens naming the yuan's minor unit where the
// context is money (个税_分), with the factor to the yuan; such a key's
// value is indexed as it is and, scaled, in yuan (keyNumbers).
var yuanMinorUnits = LangData.Numbers("yuan minor units")

type keyInfo struct {
	concepts    []string
	generic     bool
	negates     bool
	subject     bool
	hedge       bool
	unit        *Unit // named by the key's own words (weight_kg)
	dim         Dimension
	childUnit   *Unit // given to the fields under it (dimensions_cm)
	mag         float64
	numbers     []NumMention // numbers inside the key (sales_30d)
	magCurrency bool
	magUnit     *Unit
	up, down    bool // the key names a rise or a fall
	// bare: a key of one word that names no attribute (nameKey);
	// subjConcept: one whose concept is a subject key (store: location).
	bare, subjConcept bool
	// minor: the key counts money in minor units (amount_cents,
	// fee_pence): how many make one of the currency (its values are
	// divided by it); 0 when it does not.
	minor float64
	// own is the concept list the last leaf under this key took (where it
	// is) and ownID its number in the part's tables: the leaves of a key
	// mostly take the same list (tables.list would look it up each time).
	own   listAddr
	ownID uint32
}

// concepts returns key k's concepts under a parent with concepts parent.
func (w *Walker) concepts(k string, parent []string) []string {
	return w.conceptsOf(w.keyInfo(k), parent)
}

// conceptsOf returns the concepts of a key (ki's) under a parent with
// concepts parent.
func (w *Walker) conceptsOf(ki *keyInfo, parent []string) []string {
	if ki.generic && len(parent) > 0 {
		return Dedupe(append(append([]string(nil), parent...), ki.concepts...))
	}
	return ki.concepts
}

func (w *Walker) keyInfo(k string) *keyInfo {
	if ki, ok := w.Ix.keys[k]; ok {
		return ki
	}
	parts := lang.KeyParts(k)
	ki := &keyInfo{
		concepts: keyConcepts(k, nil),
		generic:  genericKeys[strings.ToLower(k)],
		negates:  keyNegates(k),
		subject:  isSubjectKey(k),
		hedge:    hedgeWords(k),
		mag:      1,
	}
	ki.unit, ki.dim = keyUnitOfKey(k, parts)
	ki.bare = len(parts) == 1 && !ki.generic && !ki.negates && !ki.subject && !ki.hedge && ki.unit == nil &&
		ki.dim == DimNone && conceptDim(ki.concepts) == DimNone && !stateKeyParts[parts[0]] && !IdWords[parts[0]] &&
		len(CategoriesOf(parts[0])) == 0 && !lang.IsAllDigits(parts[0])
	ki.subjConcept = ki.bare && slices.ContainsFunc(ki.concepts, func(c string) bool { return subjectKeys[c] })
	for _, p := range parts {
		if n, ok := minorUnitWords[p]; ok {
			ki.minor = n
			if ki.unit == nil {
				ki.dim = DimCurrency
			}
		}
	}
	for _, p := range parts {
		ws := []string{p}
		if lang.IsCJK([]rune(p)[0]) {
			ws = segmentCJKKeep([]rune(p))
		}
		for _, w := range ws {
			l := EnLex[w]
			if l == nil {
				l = ZhLex[w]
			}
			if l != nil {
				ki.up = ki.up || l.Cues&CueUp != 0
				ki.down = ki.down || l.Cues&CueDown != 0
			}
		}
	}
	if len(parts) >= 2 {
		if u, ok := keyUnits[parts[len(parts)-1]]; ok && u != nil {
			ki.childUnit = u
		}
	}
	for _, p := range parts {
		if m, ok := keyMagnitudes[p]; ok {
			ki.mag = m
		}
		if strings.HasPrefix(p, "万") || strings.HasSuffix(p, "万元") {
			ki.mag = 1e4
		}
	}
	for _, sm := range []struct {
		sig string
		m   float64
	}{{"(M)", 1e6}, {"(m)", 1e6}, {"$M", 1e6}, {"(mn)", 1e6}, {"$K", 1e3}, {"$k", 1e3}, {"(K)", 1e3}, {"$B", 1e9}, {"$bn", 1e9}, {"(B)", 1e9}, {"(bn)", 1e9}} {
		if strings.Contains(k, sm.sig) {
			ki.mag = sm.m
		}
	}
	ki.magCurrency = strings.Contains(k, "元")
	for _, p := range parts[min(1, len(parts)):] {
		f, ok := yuanMinorUnits[p]
		if !ok || ki.unit != nil {
			continue
		}
		switch dim := ki.dim; {
		case dim == DimCurrency || (dim == DimNone && (conceptDim(ki.concepts) == DimCurrency || moneyish(k))):
			// 押金_分: the key names money, so it counts fen as amount_cents counts cents.
			ki.minor, ki.dim = math.Round(1/f), DimCurrency
		case dim == DimNone && conceptDim(ki.concepts) == DimNone:
			// 个税_分: money only if the claim says so; a copy in yuan beside the value.
			ki.mag, ki.magCurrency = f, true
		}
	}
	if strings.Contains(k, "$") {
		ki.magUnit = UUSD
	}
	for _, p := range parts {
		i := 0
		for i < len(p) && p[i] >= '0' && p[i] <= '9' {
			i++
		}
		if i == 0 || i == len(p) {
			continue
		}
		u := map[string]*Unit{"d": UDay, "day": UDay, "days": UDay, "h": UHour, "hr": UHour, "w": uWeek, "wk": uWeek, "min": UMin, "m": uMonth, "mo": uMonth, "y": uYear, "yr": uYear}[p[i:]]
		if u == nil {
			continue
		}
		n, _ := strconv.ParseFloat(p[:i], 64)
		ki.numbers = append(ki.numbers, NumMention{V: n, Hi: n, Unit: u})
	}
	w.Ix.keys[k] = ki
	return ki
}

// strInfo is what a string value says, worked out once per distinct value.
type strInfo struct {
	clock  int16 // minute of day of a time like "15:00", else -1
	norm   string
	raw    string
	day    int32
	minute int16
	hasDay bool
	wday   int8 // a weekday value's weekday + 1
	cat    []CatValue
	hedge  bool
	// The numbers of norm, raw and cat in the part's tables, once a leaf
	// took them (interned: what a value says is numbered once).
	strID, rawID, catID uint32
	interned            bool
	// The normalised value once, shared by everything that reads it
	// (categories, subjects, numbers in text, value words): its runes,
	// those runes as text (text.S is norm) and its tokens, made when
	// first asked (tokens).
	runes  []rune
	text   RuneText
	toks   []Token
	tokens bool
	// items are the numbers and dates found in the value (textItems with
	// dates), once found: the string's leaves ask for them twice.
	items     []TextItem
	itemsDone bool
	tokStrs   []string // the tokens' strings (tokenStrs)
	subjKeys  []string // … and their subject keys, once a subject asked (addSubject)
}

// tokenStrs returns the strings of si's tokens, made once and shared by
// whatever keeps them (a subject's entries, a value's words): none
// changes them.
func (si *strInfo) tokenStrs() []string { return si.tokenStrsIn(nil) }

// tokenStrsIn is tokenStrs made in slab (nil: a list of their own).
func (si *strInfo) tokenStrsIn(slab *strSlab) []string {
	if si.tokStrs == nil {
		ts := si.tokensOf()
		if slab == nil {
			si.tokStrs = tokStrings(ts)
		} else {
			si.tokStrs = slab.take(len(ts))
			for i, t := range ts {
				si.tokStrs[i] = t.S
			}
		}
	}
	return si.tokStrs
}

// tokensOf returns the tokens of si's normalised value, tokenising it once.
func (si *strInfo) tokensOf() []Token {
	if !si.tokens {
		si.toks, si.tokens = TokenizeInto(nil, si.text, si.runes), true
	}
	return si.toks
}

func (w *Walker) strInfo(s string) *strInfo {
	if si, ok := w.Ix.strs[s]; ok {
		return si
	}
	r := w.normalize(s)
	text := NewRuneText(r)
	if len(w.siSlab) == cap(w.siSlab) {
		w.siSlab = make([]strInfo, 0, 64) // NB: the full one stays where its strInfos are
	}
	w.siSlab = append(w.siSlab, strInfo{norm: text.S, raw: w.ptrs.jsonText(s), minute: -1, clock: -1, runes: r, text: text})
	si := &w.siSlab[len(w.siSlab)-1]
	if d, m, ok := ParseEvidenceDate(s); ok {
		si.day, si.hasDay, si.minute = d, true, m
	} else if wd, ok := weekdayOf(si.norm); ok {
		si.day, si.hasDay, si.wday = nextWeekday(wd, w.Now), true, int8(wd)+1 // {"day": "Mon"}: the coming Monday
	} else {
		si.clock = parseClock(s)
	}
	si.cat = w.categoriesOf(si)
	si.hedge = len(s) < 40 && w.hedgeValue(s)
	if len(s) <= 80 {
		w.Ix.strs[s] = si
	}
	return si
}

// strOf returns strInfo(s), kept in *si (which, when not nil, is s's
// already).
func (w *Walker) strOf(s string, si **strInfo) *strInfo {
	if *si == nil {
		*si = w.strInfo(s)
	}
	return *si
}

// normalize is lang.Normalize(s) in the walk's slab of runes (a string's
// runes are never changed, and their slice ends where they end).
func (w *Walker) normalize(s string) []rune {
	n := len(s) // NB: at least its runes
	if n > 256 {
		return lang.Normalize(s)
	}
	if cap(w.runeSlab)-len(w.runeSlab) < n {
		w.runeSlab = make([]rune, 0, 4096)
	}
	lo := len(w.runeSlab)
	for _, c := range s {
		w.runeSlab = append(w.runeSlab, lang.NormRune(c))
	}
	return w.runeSlab[lo:len(w.runeSlab):len(w.runeSlab)]
}

// scalar indexes one scalar value; sib (the enclosing object's fields)
// gives a unit or currency field.
func (w *Walker) scalar(v any, ptr string, f frame, obj int32, sib *siblings) {
	ix := w.Ix
	if len(ix.Leaves) >= w.budget {
		return // NB: the rest of a huge result is not evidence (see leavesMax)
	}
	ki := f.ki
	if ki == nil {
		ki = w.keyInfo(f.key)
	}
	lf := Leaf{t: ix.t, Ev: w.ev, Node: obj, Minute: -1, Src: -1}
	lf.setPtr(ptr)
	if c := f.concepts; len(c) > 0 && ki.own.p == &c[0] && ki.own.n == len(c) {
		lf.ownID = ki.ownID // NB: the list this key's last leaf took, numbered then
	} else {
		lf.setOwn(c)
		if len(c) > 0 {
			ki.own, ki.ownID = listAddr{&c[0], len(c)}, lf.ownID
		}
	}
	lf.setCtx(f.ctx)
	if obj >= 0 {
		lf.Hedge = ix.Nodes[obj].hedge
	}
	lf.Hedge = lf.Hedge || ki.hedge
	lf.NegKey = ki.negates
	lf.SubjKey = ki.subject
	si := f.si // a string's, when objectMeta worked it out
	if s, ok := v.(string); ok && !lf.SubjKey && w.nameKey(f.key, ki, s, &si) {
		lf.SubjKey = true
	}
	lf.KeyUp, lf.KeyDown = ki.up, ki.down
	switch t := v.(type) {
	case json.Number:
		x, err := strconv.ParseFloat(t.String(), 64)
		if err != nil || math.IsInf(x, 0) {
			return
		}
		u, dim := fieldUnit(ki, f.key, f.concepts, sib)
		minor := ki.minor
		if minor == 0 && (u == nil || u == moneyUnit) && (dim == DimNone || dim == DimCurrency) && f.parentKey != "" {
			// {"charges_cents": {"freight": 191430}}: the parent key
			// names the minor unit of the amounts under it.
			if minor = w.keyInfo(f.parentKey).minor; minor > 0 {
				u, dim = moneyUnit, DimCurrency
			}
		}
		if minor > 0 {
			x /= minor // 510209 cents is 5,102.09 (the pointer keeps the JSON value)
		}
		lf.Kind, lf.Num, lf.Hi = KindNum, x, x
		lf.setRaw(t.String())
		if u == nil && dim == DimNone && f.parentKey != "" {
			// {"dimensions_cm": {"l": 60}}: the unit is on the parent key.
			if cu := w.keyInfo(f.parentKey).childUnit; cu != nil {
				u, dim = cu, cu.Dim
			}
		}
		if u == nil && dim == DimNone && f.rowKey != "" {
			// A table row labelled "Operating margin (%)".
			if rk := w.keyInfo(f.rowKey); rk.unit != nil {
				u, dim = rk.unit, rk.unit.Dim
			} else {
				dim = rk.dim
			}
		}
		lf.setUnit(u)
		lf.Dim = dim
	case string:
		w.strOf(t, &si)
		lf.Kind = KindStr
		if !si.interned {
			lf.setStr(si.norm)
			lf.setRaw(si.raw)
			lf.setCat(si.cat)
			si.strID, si.rawID, si.catID, si.interned = lf.strID, lf.rawID, lf.catID, true
		}
		lf.strID, lf.rawID, lf.catID = si.strID, si.rawID, si.catID
		if _, ok := ix.valWords[lf.strID]; !ok {
			// What indexValue will index the value by, from the tokens
			// already made (valueWordsOf(si.norm) would make them again).
			if ix.valWords == nil {
				ix.valWords = map[uint32]valueWords{}
			}
			ix.valWords[lf.strID] = valueWordsFrom(si.runes, si.tokensOf(), si, &w.strSlab)
		}
		lf.Day, lf.HasDay, lf.Minute, lf.wday = si.day, si.hasDay, si.minute, si.wday
		if !si.hasDay {
			lf.Minute = si.clock
		}
		lf.Hedge = lf.Hedge || si.hedge
	case bool:
		lf.Kind, lf.B = KindBool, t
		lf.setRaw(strconv.FormatBool(t))
	default:
		lf.Kind = kindNull
		lf.setRaw("null")
	}
	id := int32(len(ix.Leaves))
	ix.Leaves = append(ix.Leaves, lf)
	if s, ok := v.(string); ok && !lf.HasDay && !(lf.SubjKey && !strings.ContainsRune(s, ' ')) {
		w.textNumbers(id, s, si) // not inside identifiers: ORD-88231, 20240501-7731
		w.textDates(id, s, si)
	}
	if lf.Kind == KindNum {
		if ki.mag == 1 && f.rowKey != "" {
			ki = w.keyInfo(f.rowKey)
		}
		w.keyNumbers(id, ki)
	}
}

// JsonText is s as encoding/json writes it without HTML escaping. A
// string of printable ASCII with no quote or backslash is written as it
// is, between quotes, without an encoder.
func JsonText(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return `"` + s + `"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// finish builds a part's lookup structures once every leaf of its result
// is known, and names the members of its collections.
//
// A concept's or value word's list of leaves is built in a slot of a
// slice (postings), not through the map for every leaf: the leaves of one
// key share their concept lists, and those of one string its words, so
// which slots a leaf goes to is worked out once per pair of lists (or per
// string) and the maps are filled once at the end, with the same lists as
// appending leaf by leaf gives.
func (ix *Index) finish() {
	ix.derive()
	var byConcept, byValue postings
	pairs := map[uint64][2]int32{} // slots of the concepts of an own and a context list, in byConcept.arena
	var values valuePostings
	for i := range ix.Leaves {
		lf := &ix.Leaves[i]
		id := int32(i)
		switch lf.Kind {
		case KindNum:
			ix.Nums = append(ix.Nums, id)
		case KindStr:
			if !lf.Text {
				ix.indexValue(id, lf, &byValue, &values)
			}
		}
		if lf.Text {
			continue
		}
		k := uint64(lf.ownID)<<32 | uint64(lf.ctxID)
		span, ok := pairs[k]
		if !ok {
			own, ctx := lf.Own(), lf.Ctx()
			span[0] = int32(len(byConcept.arena))
			for i, c := range own {
				if !slices.Contains(own[:i], c) {
					byConcept.arena = append(byConcept.arena, byConcept.slot(c))
				}
			}
			for i, c := range ctx {
				if !slices.Contains(ctx[:i], c) && !slices.Contains(own, c) {
					byConcept.arena = append(byConcept.arena, byConcept.slot(c))
				}
			}
			span[1] = int32(len(byConcept.arena))
			pairs[k] = span
		}
		for _, s := range byConcept.arena[span[0]:span[1]] {
			byConcept.lists[s] = append(byConcept.lists[s], id)
		}
	}
	for i := range ix.Leaves {
		if lf := &ix.Leaves[i]; lf.Text {
			// A value written as text ("18℃", "128.6亿元") is the field's
			// value; a number inside a label ("Q1 2024") is not.
			if lf.TextShort || lf.Src >= 0 && len(ix.Leaves[lf.Src].Str()) >= 40 {
				for _, c := range lf.Own() {
					byConcept.appendUnique(byConcept.slot(c), int32(i))
				}
			}
			for _, c := range lf.Ctx() {
				byConcept.appendUnique(byConcept.slot(c), int32(i))
			}
		}
	}
	byConcept.into(ix.byConcept)
	byValue.into(ix.byValue)
	values.into(ix.values)
	sortNums(ix.Leaves, ix.Nums)
	ix.named = map[string][]SubjEntry{}
	for _, c := range ix.Colls {
		ix.nameMembers(c, ix.named)
	}
}

// sortNums sorts numeric leaves by value, ties by leaf: one order, so an
// unstable sort gives what a stable one does (no value is NaN; should
// one be, the stable sort of before decides).
func sortNums(leaves []Leaf, nums []int32) {
	cmp := func(a, b int32) int {
		x, y := leaves[a].Num, leaves[b].Num
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return int(a - b)
	}
	for _, l := range nums {
		if math.IsNaN(leaves[l].Num) {
			slices.SortStableFunc(nums, cmp)
			return
		}
	}
	// Sorted as pairs of value and leaf, side by side, and written back:
	// the same order as cmp's (a total order here), without reaching into
	// a Leaf, far apart in memory, for every comparison.
	ps := make([]numLeaf, len(nums))
	for i, l := range nums {
		ps[i] = numLeaf{leaves[l].Num, l}
	}
	slices.SortFunc(ps, func(a, b numLeaf) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return int(a.l - b.l)
	})
	for i, p := range ps {
		nums[i] = p.l
	}
}

// numLeaf is a numeric leaf and its value, as sortNums sorts them.
type numLeaf struct {
	v float64
	l int32
}

// slotted are lists of T by name while a part is finished: a name's list
// is a slot, found once per name.
type slotted[T any] struct {
	slots map[string]int32
	names []string
	lists [][]T
}

// slot returns name's slot, making it when new.
func (p *slotted[T]) slot(name string) int32 {
	if s, ok := p.slots[name]; ok {
		return s
	}
	if p.slots == nil {
		p.slots = map[string]int32{}
	}
	s := int32(len(p.names))
	p.slots[name] = s
	p.names = append(p.names, name)
	p.lists = append(p.lists, nil)
	return s
}

// postings are lists of leaves by name (a concept, a value word).
type postings struct {
	slotted[int32]
	// unsorted marks the slots a leaf was added to out of order (a slot
	// past its end has none).
	unsorted []bool
	// arena holds the lists of slots that groups of leaves go to (the
	// leaves of a pair of concept lists, of a string), one after another.
	arena []int32
}

// appendUnique adds leaf l to slot s unless it is the slot's last.
func (p *postings) appendUnique(s, l int32) {
	ls := p.lists[s]
	if n := len(ls); n > 0 {
		if ls[n-1] == l {
			return
		}
		if ls[n-1] > l {
			if int(s) >= len(p.unsorted) {
				p.unsorted = append(p.unsorted, make([]bool, int(s)+1-len(p.unsorted))...)
			}
			p.unsorted[s] = true
		}
	}
	p.lists[s] = append(ls, l)
}

// into puts each name's list, sorted and without repeats, in m.
func (p *postings) into(m map[string][]int32) {
	for s, name := range p.names {
		l := p.lists[s]
		if s < len(p.unsorted) && p.unsorted[s] {
			slices.Sort(l)
			l = slices.Compact(l)
		}
		m[name] = l
	}
}

// valuePostings are the short values by their first token, as postings
// are leaves.
type valuePostings struct{ slotted[valEntry] }

func (p *valuePostings) into(m map[string][]valEntry) {
	for s, name := range p.names {
		m[name] = p.lists[s]
	}
}

// derive makes the lists a part's leaves and nodes determine: the leaves
// by kind, the numbers and dates found in each string, the arrays and the
// collections of objects. A decoded part derives them again.
func (ix *Index) derive() {
	for i := range ix.Leaves {
		lf := &ix.Leaves[i]
		id := int32(i)
		switch lf.Kind {
		case KindBool:
			ix.Bools = append(ix.Bools, id)
		case KindStr:
			if lf.HasDay {
				ix.Dates = append(ix.Dates, id)
			} else if lf.Minute >= 0 {
				ix.Clocks = append(ix.Clocks, id)
			}
			if !lf.Text && len(lf.Cat()) > 0 {
				ix.Cats = append(ix.Cats, id)
			}
		}
	}
	for i := range ix.Nodes {
		if ix.Nodes[i].Array {
			ix.Arrays = append(ix.Arrays, int32(i))
		}
	}
	ix.Colls = ix.nodeCollections()
}

func appendUnique(s []int32, v int32) []int32 {
	if len(s) > 0 && s[len(s)-1] == v {
		return s
	}
	return append(s, v)
}

// LeavesMax bounds the scalar values of the evidence of one answer that
// are indexed, in document order: a megabyte of numbers would otherwise
// cost hundreds of megabytes of index and seconds per claim.
const LeavesMax = 1 << 16

// valueTokensMax bounds the tokens indexed per string value.
const valueTokensMax = 256

// indexValue indexes a string value's words (for coverage) and, for short
// values, the whole value (for mentions in claims), in byValue and values.
// The words of a value are worked out once per distinct value (valueWords)
// and shared by its leaves, which never change them; so are the slots
// they go to.
func (ix *Index) indexValue(id int32, lf *Leaf, byValue *postings, values *valuePostings) {
	vw, ok := ix.valWords[lf.strID]
	if !ok {
		vw = valueWordsOf(lf.Str())
	}
	if !vw.slotted {
		vw.slotLo = int32(len(byValue.arena))
		for _, c := range vw.concepts {
			if s := byValue.slot(c); !slices.Contains(byValue.arena[vw.slotLo:], s) {
				byValue.arena = append(byValue.arena, s)
			}
		}
		vw.slotHi = int32(len(byValue.arena))
		vw.valSlot = -1
		if vw.toks != nil {
			vw.valSlot = values.slot(vw.toks[0])
		}
		for _, t := range vw.shorter {
			vw.shortSlots = append(vw.shortSlots, values.slot(t[0]))
		}
		vw.slotted = true
		if ix.valWords == nil {
			ix.valWords = map[uint32]valueWords{}
		}
		ix.valWords[lf.strID] = vw
	}
	for _, s := range byValue.arena[vw.slotLo:vw.slotHi] {
		byValue.appendUnique(s, id)
	}
	if vw.valSlot >= 0 {
		values.lists[vw.valSlot] = append(values.lists[vw.valSlot], valEntry{toks: vw.toks, leaf: id})
	}
	for i, sl := range vw.shortSlots {
		values.lists[sl] = append(values.lists[sl], valEntry{toks: vw.shorter[i], leaf: id})
	}
}

// ValueWords is what indexValue indexes a string value by: the concepts
// of its words and, for a short value, its tokens (nil otherwise).
type valueWords struct {
	concepts []string
	toks     []string
	// While a part is finished: the byValue slots of concepts (in the
	// arena of byValue's) and the values slot of toks (-1: none), once
	// slotted.
	slotLo, slotHi, valSlot int32
	slotted                 bool
	// shorter are the tokens of a short Chinese name's shorter forms
	// (cjkNameSuffixes) and shortSlots their values slots, once slotted.
	shorter    [][]string
	shortSlots []int32
}

func valueWordsOf(s string) valueWords {
	r := []rune(s)
	return valueWordsFrom(r, Tokenize(r), nil, nil)
}

// valueWordsFrom is valueWordsOf of the normalised runes r, tokenised as
// toks (not changed); si, when not nil, is what strInfo worked out of
// them, whose token strings are shared (made in slab, when not nil).
func valueWordsFrom(r []rune, toks []Token, si *strInfo, slab *strSlab) valueWords {
	if len(toks) > valueTokensMax {
		toks = toks[:valueTokensMax]
	}
	vw := valueWords{concepts: TextConcepts(r, toks)}
	switch {
	case len(toks) == 0 || len(toks) > 8 || len(r) < 2 || len(r) > 80:
	case si != nil:
		vw.toks = si.tokenStrsIn(slab) // NB: toks are all of si's: at most 8
	default:
		vw.toks = tokStrings(toks)
	}
	if vw.toks != nil {
		for _, short := range cjkNameSuffixes(r[0], string(r)) {
			vw.shorter = append(vw.shorter, tokenStrings(short))
		}
	}
	return vw
}

// Coll is a collection of comparable objects: the object children of an
// array or object (node >= 0), or the results of several calls to one tool
// (node < 0).
type Coll struct {
	Node    int32
	Members []int32
}

// nodeCollections returns every node with two or more object children as
// a collection of them (join adds the tools called two or more times).
func (ix *Index) nodeCollections() []Coll {
	var out []Coll
	for i := range ix.Nodes {
		n := &ix.Nodes[i]
		if n.ObjKids < 2 {
			continue
		}
		c := Coll{Node: int32(i)}
		for j := int32(i) + 1; j < n.nodeHi; j = ix.Nodes[j].nodeHi {
			if !ix.Nodes[j].Array {
				c.Members = append(c.Members, j)
			}
		}
		if len(c.Members) >= 2 {
			out = append(out, c)
		}
	}
	return out
}

// toolCollections returns the tools called two or more times, each a
// collection of its results.
func (ix *Index) toolCollections() []Coll {
	var out []Coll
	byName := map[string]int{}
	for _, r := range ix.roots {
		if r < 0 || ix.Nodes[r].Array {
			continue
		}
		name := ix.Ev[ix.Nodes[r].Ev].Name
		k, ok := byName[name]
		if !ok {
			k = len(out)
			byName[name] = k
			out = append(out, Coll{Node: -1})
		}
		out[k].Members = append(out[k].Members, r)
	}
	return slices.DeleteFunc(out, func(c Coll) bool { return len(c.Members) < 2 })
}

// nameMembers gives the members of a collection that have no name field a
// name, indexed in subjects: the first short string field (in key order)
// whose values differ from member to member — {"dish": "Quinoa Bowl"} in a
// menu.
func (ix *Index) nameMembers(c Coll, subjects map[string][]SubjEntry) {
	for _, mb := range c.Members {
		if ix.Nodes[mb].subject != "" {
			return
		}
	}
	direct := func(mb int32) map[string]int32 {
		out := map[string]int32{}
		nd := &ix.Nodes[mb]
		for l := nd.LeafLo; l < nd.LeafHi; l++ {
			if lf := &ix.Leaves[l]; lf.Node == mb && lf.Kind == KindStr && !lf.Text && !lf.HasDay && len(lf.Cat()) == 0 && utf8.RuneCountInString(lf.Str()) <= 40 {
				out[LastToken(lf.Ptr())] = l
			}
		}
		return out
	}
	first := direct(c.Members[0])
	var keys []string
	for k, l := range first {
		// A name-like key: not an attribute the lexicon knows (carrier,
		// status, color), holding words rather than codes.
		if !slices.ContainsFunc(ix.Leaves[l].Own(), func(c string) bool { return EnLex[c] != nil || ZhLex[c] != nil || LexConcepts[c] }) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		seen := map[string]bool{}
		ok := true
		for _, mb := range c.Members {
			l, has := direct(mb)[k]
			if !has || seen[ix.Leaves[l].Str()] || DigitCount(ix.Leaves[l].Str())*3 > len(ix.Leaves[l].Str()) {
				ok = false
				break
			}
			seen[ix.Leaves[l].Str()] = true
		}
		if !ok {
			continue
		}
		for _, mb := range c.Members {
			l := direct(mb)[k]
			var orig string
			_ = json.Unmarshal([]byte(ix.Leaves[l].Raw()), &orig)
			ix.addSubject(subjects, mb, orig)
			ix.Nodes[mb].subject = orig
			ix.Leaves[l].SubjKey = true
		}
		return
	}
}

// InNode reports whether leaf l lies in node n's subtree.
func (ix *Index) InNode(l, n int32) bool {
	nd := &ix.Nodes[n]
	return l >= nd.LeafLo && l < nd.LeafHi
}

// AncestorOf reports whether node a is node b or one of its ancestors.
func (ix *Index) AncestorOf(a, b int32) bool {
	return b >= a && b < ix.Nodes[a].nodeHi
}

// Ref builds an evidence reference to leaf l.
func (ix *Index) Ref(l int32) events.EvidenceRef {
	lf := &ix.Leaves[l]
	return events.EvidenceRef{CallID: ix.Ev[lf.Ev].CallID, Pointer: lf.Ptr(), Value: lf.Raw()}
}

// NodeRef builds a reference to a node with a value of our own (a count).
func (ix *Index) NodeRef(n int32, value string) events.EvidenceRef {
	nd := &ix.Nodes[n]
	return events.EvidenceRef{CallID: ix.Ev[nd.Ev].CallID, Pointer: nd.Ptr, Value: value}
}
