package check

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
func tableHeader(obj map[string]any) []string {
	for _, hk := range []string{"columns", "header", "headers", "fields", "column_names"} {
		h, ok := obj[hk].([]any)
		if !ok || len(h) == 0 {
			continue
		}
		names := make([]string, len(h))
		for i, c := range h {
			switch c := c.(type) {
			case string:
				names[i] = c
			case map[string]any:
				s, _ := c["name"].(string)
				names[i] = s
			default:
				return nil
			}
		}
		for k, v := range obj {
			if isRowsKey(k) {
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
func (w *walker) walkTable(v any, ptr string, f frame, parent int32, header []string) {
	rows, ok := v.([]any)
	if !ok {
		w.child(v, ptr, f, parent, nil)
		return
	}
	offset := 0
	arr := parent
	if w.ix.nodes[parent].array && ptr == w.ix.nodes[parent].ptr {
		offset = 1 // header row inside the array
	} else {
		arr = w.newNode(ptr, parent, f.concepts, true)
		w.ix.nodes[arr].length = len(rows)
		defer w.closeNode(arr)
	}
	for i, r := range rows {
		p := ptr + "/" + strconv.Itoa(i+offset)
		cells, ok := r.([]any)
		if !ok {
			w.child(r, p, f, arr, nil)
			continue
		}
		row := w.newNode(p, arr, f.concepts, false)
		w.ix.nodes[arr].objKids++
		for j, c := range cells {
			if s, ok := c.(string); ok && w.ix.nodes[row].subject == "" && (j == 0 || isSubjectKey(cellName(header, j))) {
				w.addSubject(row, s)
				w.ix.nodes[row].subject = s
			}
		}
		label := w.ix.nodes[row].subject
		ctx := appendCtx(f.ctx, f.concepts)
		if label != "" {
			// The row's label describes its cells too: "Revenue ($M)".
			ctx = appendCtx(ctx, w.concepts(label, nil))
		}
		for j, c := range cells {
			name := cellName(header, j)
			cf := frame{key: name, concepts: w.concepts(name, nil), ctx: ctx, parentKey: f.key, rowKey: label}
			w.child(c, p+"/"+strconv.Itoa(j), cf, row, nil)
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
	for w, f := range langData.Numbers("minor units") {
		m[w] = math.Round(1 / f)
	}
	return m
}()

type keyInfo struct {
	concepts    []string
	generic     bool
	negates     bool
	subject     bool
	hedge       bool
	unit        *unit // named by the key's own words (weight_kg)
	dim         dimension
	childUnit   *unit // given to the fields under it (dimensions_cm)
	mag         float64
	numbers     []numMention // numbers inside the key (sales_30d)
	magCurrency bool
	magUnit     *unit
	up, down    bool // the key names a rise or a fall
	// bare: a key of one word that names no attribute (nameKey);
	// subjConcept: one whose concept is a subject key (store: location).
	bare, subjConcept bool
	// minor: the key counts money in minor units (amount_cents,
	// fee_pence): how many make one of the currency (its values are
	// divided by it); 0 when it does not.
	minor float64
}

// concepts returns key k's concepts under a parent with concepts parent.
func (w *walker) concepts(k string, parent []string) []string {
	ki := w.keyInfo(k)
	if ki.generic && len(parent) > 0 {
		return dedupe(append(append([]string(nil), parent...), ki.concepts...))
	}
	return ki.concepts
}

func (w *walker) keyInfo(k string) *keyInfo {
	if ki, ok := w.ix.keys[k]; ok {
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
	ki.unit, ki.dim = keyUnitOf(parts)
	ki.bare = len(parts) == 1 && !ki.generic && !ki.negates && !ki.subject && !ki.hedge && ki.unit == nil &&
		ki.dim == dimNone && conceptDim(ki.concepts) == dimNone && !stateKeyParts[parts[0]] && !idWords[parts[0]] &&
		len(categoriesOf(parts[0])) == 0 && !lang.IsAllDigits(parts[0])
	ki.subjConcept = ki.bare && slices.ContainsFunc(ki.concepts, func(c string) bool { return subjectKeys[c] })
	for _, p := range parts {
		if n, ok := minorUnitWords[p]; ok {
			ki.minor = n
			if ki.unit == nil {
				ki.dim = dimCurrency
			}
		}
	}
	for _, p := range parts {
		ws := []string{p}
		if lang.IsCJK([]rune(p)[0]) {
			ws = segmentCJKKeep([]rune(p))
		}
		for _, w := range ws {
			l := enLex[w]
			if l == nil {
				l = zhLex[w]
			}
			if l != nil {
				ki.up = ki.up || l.cues&cueUp != 0
				ki.down = ki.down || l.cues&cueDown != 0
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
	if strings.Contains(k, "$") {
		ki.magUnit = uUSD
	}
	for _, p := range parts {
		i := 0
		for i < len(p) && p[i] >= '0' && p[i] <= '9' {
			i++
		}
		if i == 0 || i == len(p) {
			continue
		}
		u := map[string]*unit{"d": uDay, "day": uDay, "days": uDay, "h": uHour, "hr": uHour, "w": uWeek, "wk": uWeek, "min": uMin, "m": uMonth, "mo": uMonth, "y": uYear, "yr": uYear}[p[i:]]
		if u == nil {
			continue
		}
		n, _ := strconv.ParseFloat(p[:i], 64)
		ki.numbers = append(ki.numbers, numMention{v: n, hi: n, unit: u})
	}
	w.ix.keys[k] = ki
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
	cat    []catValue
	hedge  bool
	// The numbers of norm, raw and cat in the part's tables, once a leaf
	// took them (interned: what a value says is numbered once).
	strID, rawID, catID uint32
	interned            bool
}

func (w *walker) strInfo(s string) *strInfo {
	if si, ok := w.ix.strs[s]; ok {
		return si
	}
	si := &strInfo{norm: string(lang.Normalize(s)), raw: jsonText(s), minute: -1, clock: -1}
	if d, m, ok := parseEvidenceDate(s); ok {
		si.day, si.hasDay, si.minute = d, true, m
	} else if wd, ok := weekdayOf(si.norm); ok {
		si.day, si.hasDay, si.wday = nextWeekday(wd, w.now), true, int8(wd)+1 // {"day": "Mon"}: the coming Monday
	} else {
		si.clock = parseClock(s)
	}
	si.cat = categoriesOf(si.norm)
	si.hedge = len(s) < 40 && hedgeWords(s)
	if len(s) <= 80 {
		w.ix.strs[s] = si
	}
	return si
}

// scalar indexes one scalar value; siblings (the enclosing object) give a
// unit or currency field.
func (w *walker) scalar(v any, ptr string, f frame, obj int32, siblings map[string]any) {
	ix := w.ix
	if len(ix.leaves) >= w.budget {
		return // NB: the rest of a huge result is not evidence (see leavesMax)
	}
	ki := w.keyInfo(f.key)
	lf := leaf{t: ix.t, ev: w.ev, node: obj, minute: -1, src: -1}
	lf.setPtr(ptr)
	lf.setOwn(f.concepts)
	lf.setCtx(f.ctx)
	if obj >= 0 {
		lf.hedge = ix.nodes[obj].hedge
	}
	lf.hedge = lf.hedge || ki.hedge
	lf.negKey = ki.negates
	lf.subjKey = ki.subject
	if s, ok := v.(string); ok && !lf.subjKey && w.nameKey(f.key, ki, s) {
		lf.subjKey = true
	}
	lf.keyUp, lf.keyDown = ki.up, ki.down
	switch t := v.(type) {
	case json.Number:
		x, err := strconv.ParseFloat(t.String(), 64)
		if err != nil || math.IsInf(x, 0) {
			return
		}
		if ki.minor > 0 {
			x /= ki.minor // 510209 cents is 5,102.09 (the pointer keeps the JSON value)
		}
		lf.kind, lf.num, lf.hi = kindNum, x, x
		lf.setRaw(t.String())
		u, dim := fieldUnit(ki, f.key, f.concepts, siblings)
		if u == nil && dim == dimNone && f.parentKey != "" {
			// {"dimensions_cm": {"l": 60}}: the unit is on the parent key.
			if cu := w.keyInfo(f.parentKey).childUnit; cu != nil {
				u, dim = cu, cu.dim
			}
		}
		if u == nil && dim == dimNone && f.rowKey != "" {
			// A table row labelled "Operating margin (%)".
			if rk := w.keyInfo(f.rowKey); rk.unit != nil {
				u, dim = rk.unit, rk.unit.dim
			} else {
				dim = rk.dim
			}
		}
		lf.setUnit(u)
		lf.dim = dim
	case string:
		si := w.strInfo(t)
		lf.kind = kindStr
		if !si.interned {
			lf.setStr(si.norm)
			lf.setRaw(si.raw)
			lf.setCat(si.cat)
			si.strID, si.rawID, si.catID, si.interned = lf.strID, lf.rawID, lf.catID, true
		}
		lf.strID, lf.rawID, lf.catID = si.strID, si.rawID, si.catID
		lf.day, lf.hasDay, lf.minute, lf.wday = si.day, si.hasDay, si.minute, si.wday
		if !si.hasDay {
			lf.minute = si.clock
		}
		lf.hedge = lf.hedge || si.hedge
	case bool:
		lf.kind, lf.b = kindBool, t
		lf.setRaw(strconv.FormatBool(t))
	default:
		lf.kind = kindNull
		lf.setRaw("null")
	}
	id := int32(len(ix.leaves))
	ix.leaves = append(ix.leaves, lf)
	if s, ok := v.(string); ok && !lf.hasDay && !(lf.subjKey && !strings.ContainsRune(s, ' ')) {
		w.textNumbers(id, s) // not inside identifiers: ORD-88231, 20240501-7731
		w.textDates(id, s)
	}
	if lf.kind == kindNum {
		if ki.mag == 1 && f.rowKey != "" {
			ki = w.keyInfo(f.rowKey)
		}
		w.keyNumbers(id, ki)
	}
}

// jsonText is s as encoding/json writes it without HTML escaping. A
// string of printable ASCII with no quote or backslash is written as it
// is, between quotes, without an encoder.
func jsonText(s string) string {
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
func (ix *index) finish() {
	ix.derive()
	for i := range ix.leaves {
		lf := &ix.leaves[i]
		id := int32(i)
		switch lf.kind {
		case kindNum:
			ix.nums = append(ix.nums, id)
		case kindStr:
			if !lf.text {
				ix.indexValue(id, lf)
			}
		}
		if lf.text {
			continue
		}
		for i, c := range lf.own() {
			if !slices.Contains(lf.own()[:i], c) {
				ix.byConcept[c] = append(ix.byConcept[c], id)
			}
		}
		for i, c := range lf.ctx() {
			if !slices.Contains(lf.ctx()[:i], c) && !slices.Contains(lf.own(), c) {
				ix.byConcept[c] = append(ix.byConcept[c], id)
			}
		}
	}
	for i := range ix.leaves {
		if lf := &ix.leaves[i]; lf.text {
			// A value written as text ("18℃", "128.6亿元") is the field's
			// value; a number inside a label ("Q1 2024") is not.
			if lf.textShort || lf.src >= 0 && len(ix.leaves[lf.src].str()) >= 40 {
				for _, c := range lf.own() {
					ix.byConcept[c] = appendUnique(ix.byConcept[c], int32(i))
				}
			}
			for _, c := range lf.ctx() {
				ix.byConcept[c] = appendUnique(ix.byConcept[c], int32(i))
			}
		}
	}
	for k, v := range ix.byConcept {
		slices.Sort(v)
		ix.byConcept[k] = slices.Compact(v)
	}
	for k, v := range ix.byValue {
		slices.Sort(v)
		ix.byValue[k] = slices.Compact(v)
	}
	slices.SortStableFunc(ix.nums, func(a, b int32) int {
		x, y := ix.leaves[a].num, ix.leaves[b].num
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return int(a - b)
	})
	ix.named = map[string][]subjEntry{}
	for _, c := range ix.colls {
		ix.nameMembers(c, ix.named)
	}
}

// derive makes the lists a part's leaves and nodes determine: the leaves
// by kind, the numbers and dates found in each string, the arrays and the
// collections of objects. A decoded part derives them again.
func (ix *index) derive() {
	for i := range ix.leaves {
		lf := &ix.leaves[i]
		id := int32(i)
		switch lf.kind {
		case kindBool:
			ix.bools = append(ix.bools, id)
		case kindStr:
			if lf.hasDay {
				ix.dates = append(ix.dates, id)
			} else if lf.minute >= 0 {
				ix.clocks = append(ix.clocks, id)
			}
			if !lf.text && len(lf.cat()) > 0 {
				ix.cats = append(ix.cats, id)
			}
		}
	}
	for i := range ix.nodes {
		if ix.nodes[i].array {
			ix.arrays = append(ix.arrays, int32(i))
		}
	}
	ix.colls = ix.nodeCollections()
}

func appendUnique(s []int32, v int32) []int32 {
	if len(s) > 0 && s[len(s)-1] == v {
		return s
	}
	return append(s, v)
}

// leavesMax bounds the scalar values of the evidence of one answer that
// are indexed, in document order: a megabyte of numbers would otherwise
// cost hundreds of megabytes of index and seconds per claim.
const leavesMax = 1 << 16

// valueTokensMax bounds the tokens indexed per string value.
const valueTokensMax = 256

// indexValue indexes a string value's words (for coverage) and, for short
// values, the whole value (for mentions in claims).
// The words of a value are worked out once per distinct value (valueWords)
// and shared by its leaves, which never change them.
func (ix *index) indexValue(id int32, lf *leaf) {
	vw, ok := ix.valWords[lf.strID]
	if !ok {
		vw = valueWordsOf(lf.str())
		if ix.valWords == nil {
			ix.valWords = map[uint32]valueWords{}
		}
		ix.valWords[lf.strID] = vw
	}
	for _, c := range vw.concepts {
		if vs := ix.byValue[c]; len(vs) == 0 || vs[len(vs)-1] != id {
			ix.byValue[c] = append(vs, id)
		}
	}
	if vw.toks != nil {
		ix.values[vw.toks[0]] = append(ix.values[vw.toks[0]], valEntry{toks: vw.toks, leaf: id})
	}
}

// valueWords is what indexValue indexes a string value by: the concepts
// of its words and, for a short value, its tokens (nil otherwise).
type valueWords struct {
	concepts []string
	toks     []string
}

func valueWordsOf(s string) valueWords {
	r := []rune(s)
	toks := tokenize(r)
	if len(toks) > valueTokensMax {
		toks = toks[:valueTokensMax]
	}
	vw := valueWords{concepts: textConcepts(r, toks)}
	if len(toks) > 0 && len(toks) <= 8 && len(r) >= 2 && len(r) <= 80 {
		vw.toks = make([]string, len(toks))
		for i, t := range toks {
			vw.toks[i] = t.s
		}
	}
	return vw
}

// coll is a collection of comparable objects: the object children of an
// array or object (node >= 0), or the results of several calls to one tool
// (node < 0).
type coll struct {
	node    int32
	members []int32
}

// nodeCollections returns every node with two or more object children as
// a collection of them (join adds the tools called two or more times).
func (ix *index) nodeCollections() []coll {
	var out []coll
	for i := range ix.nodes {
		n := &ix.nodes[i]
		if n.objKids < 2 {
			continue
		}
		c := coll{node: int32(i)}
		for j := int32(i) + 1; j < n.nodeHi; j = ix.nodes[j].nodeHi {
			if !ix.nodes[j].array {
				c.members = append(c.members, j)
			}
		}
		if len(c.members) >= 2 {
			out = append(out, c)
		}
	}
	return out
}

// toolCollections returns the tools called two or more times, each a
// collection of its results.
func (ix *index) toolCollections() []coll {
	var out []coll
	byName := map[string]int{}
	for _, r := range ix.roots {
		if r < 0 || ix.nodes[r].array {
			continue
		}
		name := ix.ev[ix.nodes[r].ev].Name
		k, ok := byName[name]
		if !ok {
			k = len(out)
			byName[name] = k
			out = append(out, coll{node: -1})
		}
		out[k].members = append(out[k].members, r)
	}
	return slices.DeleteFunc(out, func(c coll) bool { return len(c.members) < 2 })
}

// nameMembers gives the members of a collection that have no name field a
// name, indexed in subjects: the first short string field (in key order)
// whose values differ from member to member — {"dish": "Quinoa Bowl"} in a
// menu.
func (ix *index) nameMembers(c coll, subjects map[string][]subjEntry) {
	for _, mb := range c.members {
		if ix.nodes[mb].subject != "" {
			return
		}
	}
	direct := func(mb int32) map[string]int32 {
		out := map[string]int32{}
		nd := &ix.nodes[mb]
		for l := nd.leafLo; l < nd.leafHi; l++ {
			if lf := &ix.leaves[l]; lf.node == mb && lf.kind == kindStr && !lf.text && !lf.hasDay && len(lf.cat()) == 0 && utf8.RuneCountInString(lf.str()) <= 40 {
				out[lastToken(lf.ptr())] = l
			}
		}
		return out
	}
	first := direct(c.members[0])
	var keys []string
	for k, l := range first {
		// A name-like key: not an attribute the lexicon knows (carrier,
		// status, color), holding words rather than codes.
		if !slices.ContainsFunc(ix.leaves[l].own(), func(c string) bool { return enLex[c] != nil || zhLex[c] != nil || lexConcepts[c] }) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		seen := map[string]bool{}
		ok := true
		for _, mb := range c.members {
			l, has := direct(mb)[k]
			if !has || seen[ix.leaves[l].str()] || digitCount(ix.leaves[l].str())*3 > len(ix.leaves[l].str()) {
				ok = false
				break
			}
			seen[ix.leaves[l].str()] = true
		}
		if !ok {
			continue
		}
		for _, mb := range c.members {
			l := direct(mb)[k]
			var orig string
			_ = json.Unmarshal([]byte(ix.leaves[l].raw()), &orig)
			ix.addSubject(subjects, mb, orig)
			ix.nodes[mb].subject = orig
			ix.leaves[l].subjKey = true
		}
		return
	}
}

// inNode reports whether leaf l lies in node n's subtree.
func (ix *index) inNode(l, n int32) bool {
	nd := &ix.nodes[n]
	return l >= nd.leafLo && l < nd.leafHi
}

// ancestorOf reports whether node a is node b or one of its ancestors.
func (ix *index) ancestorOf(a, b int32) bool {
	return b >= a && b < ix.nodes[a].nodeHi
}

// ref builds an evidence reference to leaf l.
func (ix *index) ref(l int32) events.EvidenceRef {
	lf := &ix.leaves[l]
	return events.EvidenceRef{CallID: ix.ev[lf.ev].CallID, Pointer: lf.ptr(), Value: lf.raw()}
}

// nodeRef builds a reference to a node with a value of our own (a count).
func (ix *index) nodeRef(n int32, value string) events.EvidenceRef {
	nd := &ix.nodes[n]
	return events.EvidenceRef{CallID: ix.ev[nd.ev].CallID, Pointer: nd.ptr, Value: value}
}
