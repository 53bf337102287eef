package verifier

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
)

// Evidence is one successful tool result with its call identity.
type Evidence struct {
	CallID  string
	Name    string // tool name
	Version int
	Result  json.RawMessage // the tool's JSON result
}

// CheckerConfig configures a Checker. The zero value is usable.
type CheckerConfig struct {
	// Tolerance is the relative difference within which a claimed number
	// equals an evidence number (default 0.01). A number is also equal to
	// the evidence when it is the evidence rounded to the precision the
	// claim is written in (19.96 → "20.0", 0.125 → "12.5%").
	Tolerance float64
	// ApproxTolerance is the relative tolerance for a number hedged with
	// "about", "around", 约, 左右 … (default 0.05).
	ApproxTolerance float64
	// DerivedLeavesMax bounds how many evidence numbers near a claim are
	// combined pairwise when looking for a derived value (sum, difference,
	// ratio, product); default 48. Work per claimed number is quadratic in it.
	DerivedLeavesMax int
	// EvidenceRefsMax bounds the evidence pointers kept per claim
	// (default 8).
	EvidenceRefsMax int
}

func (c *CheckerConfig) setDefaults() {
	if c.Tolerance <= 0 {
		c.Tolerance = 0.01
	}
	if c.ApproxTolerance <= 0 {
		c.ApproxTolerance = 0.05
	}
	if c.DerivedLeavesMax <= 0 {
		c.DerivedLeavesMax = 48
	}
	if c.EvidenceRefsMax <= 0 {
		c.EvidenceRefsMax = 8
	}
}

// Checker checks answers against evidence. It holds only its configuration,
// so one Checker is safe for concurrent use.
type Checker struct {
	cfg CheckerConfig
}

// NewChecker returns a Checker with cfg's zero fields set to their defaults.
func NewChecker(cfg CheckerConfig) *Checker {
	cfg.setDefaults()
	return &Checker{cfg: cfg}
}

// Report is the verdict on every claim of an answer.
type Report struct {
	// Faithfulness is supported ÷ checkable claims (supported, contradicted
	// or unsupported); 1 when no claim is checkable.
	Faithfulness float64 `json:"faithfulness"`
	// Claims are the answer's claims in order, each with its verdict.
	Claims []events.ClaimVerdict `json:"claims"`
	// Undecided lists the indices of claims the deterministic checker could
	// not decide with confidence: unsupported only because no fact in the
	// claim was recognised, or not_checkable without a cue saying why. An
	// external Judge may decide them (see AskJudge).
	Undecided []int `json:"undecided,omitempty"`
}

// Check checks every claim of answer against evidence. now is the answer's
// event time; relative dates (today, tomorrow, 明天, Friday) are resolved
// against it in its location. Evidence whose Result is not JSON is skipped;
// of several results with one CallID only the highest Version counts.
// Check is deterministic: identical input gives an identical Report.
func (c *Checker) Check(answer string, evidence []Evidence, now time.Time) Report {
	ix := buildIndex(evidence)
	claims := SplitClaims(answer)
	rep := Report{Claims: make([]events.ClaimVerdict, 0, len(claims))}
	var prev *claimCtx
	supported, checkable := 0, 0
	for i, cl := range claims {
		cx := c.newClaimCtx(ix, cl, now, prev)
		v := cx.check()
		if v.undecided {
			rep.Undecided = append(rep.Undecided, i)
		}
		rep.Claims = append(rep.Claims, events.ClaimVerdict{
			Text: cl.Text, Start: cl.Start, End: cl.End,
			Verdict: v.verdict, Evidence: v.refs, Reason: v.reason,
		})
		switch v.verdict {
		case events.VerdictSupported:
			supported++
			checkable++
		case events.VerdictContradicted, events.VerdictUnsupported:
			checkable++
		}
		prev = cx
	}
	rep.Faithfulness = faithfulness(supported, checkable)
	return rep
}

func faithfulness(supported, checkable int) float64 {
	if checkable == 0 {
		return 1
	}
	return float64(supported) / float64(checkable)
}

// ---- evidence index ------------------------------------------------------

// The index is built once per Check: every JSON value of every result
// becomes a leaf with its RFC 6901 pointer, objects and arrays become nodes
// whose leaves and descendants are contiguous ranges (so "is this leaf under
// that subject" is two comparisons), and lookups go through maps keyed by
// concept, subject token and value token, and a sorted slice of numbers.

type leafKind uint8

const (
	kindNum leafKind = iota
	kindStr
	kindBool
	kindNull
)

type node struct {
	ev, parent     int32
	ptr            string
	array          bool
	leafLo, leafHi int32 // leaves of the subtree
	nodeHi         int32 // descendants are (id, nodeHi)
	concepts       []string
	subject        string
	hedge          bool
	objKids        int // children that are objects (collections)
	length         int
}

type leaf struct {
	ev, node  int32
	ptr       string
	raw       string // JSON text of the value
	kind      leafKind
	num, hi   float64 // hi > num for a range written in a string ("3-5 days")
	b         bool
	str       string // normalised string value
	unit      *unit
	dim       dimension
	own       []string // concepts of the leaf's own key
	ctx       []string // concepts of the enclosing keys and, for numbers in text, nearby words
	negKey    bool     // the key negates ("out_of_stock", "non_refundable")
	hedge     bool     // an estimate: eta, forecast, expected, 预计
	text      bool     // a number found inside a string value (or a key)
	textShort bool     // … a string that is little more than the number
	scaled    bool     // a copy scaled by its key's magnitude (万元, millions)
	subjKey   bool     // the field names its object (name, id, sku)
	day       int32    // days since 1970-01-01 for dates
	hasDay    bool
	minute    int16 // minute of day, -1 if none
	cat       []catValue
}

type subjEntry struct {
	toks    []string
	node    int32
	alias   bool // a code inside the subject's name
	partial bool // a distinctive word of the name, valid while unique
	exact   string
}

type valEntry struct {
	toks []string
	leaf int32
}

type index struct {
	ev        []Evidence
	nodes     []node
	leaves    []leaf
	nums      []int32 // numeric leaves sorted by value
	byConcept map[string][]int32
	byValue   map[string][]int32 // value-token concept -> string leaves
	subjects  map[string][]subjEntry
	values    map[string][]valEntry
	dates     []int32
	bools     []int32
	cats      []int32
	colls     []coll
	roots     []int32
	arrays    []int32
	keys      map[string]*keyInfo
	strs      map[string]*strInfo
}

// dedupeEvidence keeps, per CallID, the highest Version (the later entry
// on a tie), in the order the calls first appear.
func dedupeEvidence(in []Evidence) []Evidence {
	best := make(map[string]int, len(in))
	for i, e := range in {
		j, ok := best[e.CallID]
		if !ok || e.Version >= in[j].Version {
			best[e.CallID] = i
		}
	}
	out := make([]Evidence, 0, len(best))
	seen := make(map[string]bool, len(best))
	for _, e := range in {
		if seen[e.CallID] {
			continue
		}
		seen[e.CallID] = true
		out = append(out, in[best[e.CallID]])
	}
	return out
}

func buildIndex(evidence []Evidence) *index {
	ix := &index{
		byConcept: map[string][]int32{},
		byValue:   map[string][]int32{},
		subjects:  map[string][]subjEntry{},
		values:    map[string][]valEntry{},
		keys:      map[string]*keyInfo{},
		strs:      map[string]*strInfo{},
	}
	size := 0
	for _, e := range evidence {
		size += len(e.Result)
	}
	ix.leaves = make([]leaf, 0, size/12+16)
	for _, e := range dedupeEvidence(evidence) {
		v, err := decodeJSON(e.Result)
		if err != nil {
			continue
		}
		ev := int32(len(ix.ev))
		ix.ev = append(ix.ev, e)
		w := walker{ix: ix, ev: ev}
		root := w.walk(v, "", frame{concepts: conceptsOf(e.Name)}, -1)
		ix.roots = append(ix.roots, root)
	}
	ix.finish()
	return ix
}

func decodeJSON(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

var ptrEscaper = strings.NewReplacer("~", "~0", "/", "~1")

type walker struct {
	ix *index
	ev int32
}

// frame is where a value sits: the key it is under (for an array element,
// the array's key), that key's concepts, the enclosing keys' concepts and
// the enclosing object's key.
type frame struct {
	key       string
	concepts  []string
	ctx       []string
	parentKey string
}

// walk indexes v at ptr and returns its node id (or -1 for a scalar).
func (w *walker) walk(v any, ptr string, f frame, parent int32) int32 {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		id := w.newNode(ptr, parent, f.concepts, false)
		w.objectMeta(id, t, keys)
		header := tableHeader(t)
		inner := appendCtx(f.ctx, f.concepts)
		if ptr == "" {
			inner = f.ctx // a tool's name is too weak a context for its fields
		}
		for _, k := range keys {
			cv := t[k]
			p := ptr + "/" + ptrEscaper.Replace(k)
			kf := frame{key: k, concepts: w.concepts(k, f.concepts), ctx: inner, parentKey: f.key}
			if header != nil && isRowsKey(k) {
				w.walkTable(cv, p, kf, id, header)
				continue
			}
			if header != nil && isHeaderKey(k) {
				continue // column names name fields; they are not values
			}
			w.child(cv, p, kf, id, t)
		}
		w.closeNode(id)
		return id
	case []any:
		id := w.newNode(ptr, parent, f.concepts, true)
		w.ix.nodes[id].length = len(t)
		if hdr := headerRow(t); hdr != nil {
			w.walkTable(t[1:], ptr, f, id, hdr)
			w.closeNode(id)
			return id
		}
		for i, cv := range t {
			p := ptr + "/" + strconv.Itoa(i)
			w.child(cv, p, f, id, nil)
		}
		w.closeNode(id)
		return id
	default:
		w.scalar(v, ptr, f, parent, nil)
		return -1
	}
}

// child indexes one field of an object or element of an array.
func (w *walker) child(cv any, p string, f frame, parent int32, siblings map[string]any) {
	switch cv.(type) {
	case map[string]any, []any:
		w.walk(cv, p, f, parent)
		if _, ok := cv.(map[string]any); ok {
			w.ix.nodes[parent].objKids++
		}
	default:
		w.scalar(cv, p, f, parent, siblings)
	}
}

// genericKeys name no attribute of their own: {"temperature": {"value": 18}}
// is about temperature.
var genericKeys = map[string]bool{
	"value": true, "val": true, "v": true, "amount": true, "number": true, "num": true,
	"data": true, "reading": true, "result": true, "数值": true, "值": true,
}

// keyConcepts returns a key's concepts; a generic key takes its parent's,
// and a unit in the key adds what it measures (price_usd is a price).
func keyConcepts(k string, parent []string) []string {
	c := conceptsOf(k)
	if genericKeys[strings.ToLower(k)] {
		c = dedupe(append(append([]string(nil), parent...), c...))
	}
	for _, p := range keyParts(k) {
		u, ok := keyUnits[p]
		if !ok || u == nil {
			continue
		}
		switch u.dim {
		case dimCurrency:
			c = dedupe(append(c, "price"))
		case dimMass:
			c = dedupe(append(c, "weight"))
		case dimTemp:
			c = dedupe(append(c, "temperature"))
		}
	}
	return c
}

func appendCtx(ctx, more []string) []string {
	if len(more) == 0 {
		return ctx
	}
	out := make([]string, 0, len(ctx)+len(more))
	out = append(out, more...)
	out = append(out, ctx...)
	if len(out) > 6 {
		out = out[:6]
	}
	return out
}

func (w *walker) newNode(ptr string, parent int32, concepts []string, array bool) int32 {
	ix := w.ix
	id := int32(len(ix.nodes))
	ix.nodes = append(ix.nodes, node{
		ev: w.ev, parent: parent, ptr: ptr, array: array, concepts: concepts,
		leafLo: int32(len(ix.leaves)),
	})
	if parent >= 0 && ix.nodes[parent].hedge {
		ix.nodes[id].hedge = true
	}
	return id
}

func (w *walker) closeNode(id int32) {
	ix := w.ix
	ix.nodes[id].leafHi = int32(len(ix.leaves))
	ix.nodes[id].nodeHi = int32(len(ix.nodes))
}

// objectMeta records an object's subject (its name, id, title …) and
// whether it describes an estimate.
func (w *walker) objectMeta(id int32, obj map[string]any, keys []string) {
	n := &w.ix.nodes[id]
	for _, k := range keys {
		ki := w.keyInfo(k)
		if ki.hedge {
			n.hedge = true
		}
		switch v := obj[k].(type) {
		case string:
			if ki.subject && v != "" && len(v) <= 240 && utf8.RuneCountInString(v) <= 80 {
				w.addSubject(id, v)
				if n.subject == "" {
					n.subject = v
				}
			}
			if len(v) < 40 && w.strInfo(v).hedge {
				n.hedge = true
			}
		case json.Number:
			if ki.subject && isIDKey(k) {
				w.addSubject(id, v.String())
				if n.subject == "" {
					n.subject = v.String()
				}
			}
		}
	}
}

// hedgeWords reports a key or short value that marks an estimate
// (estimated_delivery, eta, forecast, 预计).
func hedgeWords(s string) bool {
	for _, p := range keyParts(s) {
		if l := enLex[p]; l != nil && l.cues&cueHedge != 0 {
			return true
		}
		if l := enLex[stem(p)]; l != nil && l.cues&cueHedge != 0 {
			return true
		}
		if isCJK([]rune(p)[0]) {
			for _, w := range segmentCJKKeep([]rune(p)) {
				if l := zhLex[w]; l != nil && l.cues&cueHedge != 0 {
					return true
				}
			}
		}
	}
	return false
}

// subjectKeys name the object they sit in.
var subjectKeys = map[string]bool{
	"name": true, "title": true, "id": true, "sku": true, "product": true, "item": true,
	"label": true, "model": true, "code": true, "city": true, "location": true, "store": true,
	"warehouse": true, "hotel": true, "flight": true, "room": true, "method": true,
	"system": true, "country": true, "region": true, "airline": true, "brand": true,
	"size": true, "service": true, "plan": true, "option": true, "tier": true, "class": true,
	"restaurant": true, "venue": true, "month": true, "year": true, "variant": true,
	"product_name": true, "item_name": true, "order_id": true, "order_no": true,
	"order_number": true, "booking_id": true, "reservation_id": true, "display_name": true,
	"full_name": true, "sku_id": true, "flight_no": true, "flight_number": true, "hotel_name": true,
	"名称": true, "名字": true, "商品": true, "商品名称": true, "型号": true, "编号": true,
	"城市": true, "订单号": true, "门店": true, "仓库": true, "品名": true, "航班": true, "酒店": true,
	"月份": true, "年份": true, "地区": true, "车次": true, "座位": true, "座位类型": true, "房型": true,
}

func isSubjectKey(k string) bool {
	l := strings.ToLower(k)
	if subjectKeys[l] {
		return true
	}
	for _, suf := range []string{"_name", "name", "_id", "id", "_no", "_number", "_code", "title", "sku", "号", "名称"} {
		if strings.HasSuffix(l, suf) && len(l) > len(suf) {
			if suf == "id" && !strings.HasSuffix(k, "Id") && !strings.HasSuffix(k, "ID") && !strings.HasSuffix(l, "_id") {
				continue // "paid", "valid"
			}
			if suf == "name" && !strings.HasSuffix(k, "Name") && !strings.HasSuffix(l, "_name") {
				continue
			}
			return true
		}
	}
	return false
}

func isIDKey(k string) bool {
	l := strings.ToLower(k)
	return l == "id" || strings.HasSuffix(l, "id") || strings.HasSuffix(l, "_no") || strings.HasSuffix(l, "number") || strings.HasSuffix(l, "号") || l == "room" || l == "flight"
}

// subjectKey is the key a subject token is indexed under: Latin words by
// their stem, so "notebooks" finds "Notebook".
func subjectKey(t string) string {
	if t == "" || isCJK([]rune(t)[0]) || t[0] >= '0' && t[0] <= '9' {
		return t
	}
	return stem(t)
}

func (w *walker) addSubject(id int32, v string) {
	toks := tokenStrings(normalize(v))
	if len(toks) == 0 {
		return
	}
	ix := w.ix
	add := func(k string, se subjEntry) {
		ix.subjects[k] = append(ix.subjects[k], se)
	}
	add(subjectKey(toks[0]), subjEntry{toks: toks, node: id, exact: v})
	if r := []rune(v); isCJK(r[0]) {
		// A Chinese name: its first two or three ideographs (the brand, 蒙牛
		// of 蒙牛纯牛奶) name it too, when no other subject shares them.
		if len(r) >= 4 && allCJK(r[:3]) {
			for _, n := range []int{2, 3} {
				p := string(normalize(string(r[:n])))
				if _, lex := zhLex[p]; !lex {
					add(toks[0], subjEntry{toks: tokenStrings([]rune(p)), node: id, alias: true, partial: true, exact: v})
				}
			}
		}
		return
	}
	if len(toks) < 2 {
		return
	}
	for _, t := range toks {
		switch {
		case len(t) >= 3 && strings.ContainsAny(t, "0123456789") && !isAllDigits(t) || len(t) >= 4 && isAllDigits(t):
			// A code inside a longer name ("M185", "12345" in "ORD-12345").
			add(t, subjEntry{toks: []string{t}, node: id, alias: true, exact: v})
		case len(t) >= 3 && !isCJK([]rune(t)[0]) && enLex[t] == nil && enLex[stem(t)] == nil && !isAllDigits(t):
			// A distinctive word of the name ("keyboard" of "Mechanical
			// Keyboard"), used when no other subject has it.
			add(subjectKey(t), subjEntry{toks: []string{t}, node: id, alias: true, partial: true, exact: v})
		}
	}
}

func allCJK(r []rune) bool {
	for _, c := range r {
		if !isCJK(c) {
			return false
		}
	}
	return true
}

// prunePartial drops partial subject names shared by subjects with
// different names: "pro" of two phones names neither.
func (ix *index) prunePartial() {
	for k, es := range ix.subjects {
		names := map[string]bool{}
		for _, e := range es {
			if e.partial {
				names[strings.ToLower(e.exact)] = true
			}
		}
		if len(names) <= 1 {
			continue
		}
		out := es[:0]
		for _, e := range es {
			if !e.partial {
				out = append(out, e)
			}
		}
		ix.subjects[k] = out
	}
}

func tokenStrings(r []rune) []string {
	ts := tokenize(r)
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.s
	}
	return out
}

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
		for j, c := range cells {
			name := cellName(header, j)
			cf := frame{key: name, concepts: w.concepts(name, nil), ctx: appendCtx(f.ctx, f.concepts), parentKey: f.key}
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
	parts := keyParts(k)
	ki := &keyInfo{
		concepts: keyConcepts(k, nil),
		generic:  genericKeys[strings.ToLower(k)],
		negates:  keyNegates(k),
		subject:  isSubjectKey(k),
		hedge:    hedgeWords(k),
		mag:      1,
	}
	ki.unit, ki.dim = keyUnitOf(parts)
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
	if strings.Contains(k, "(M)") || strings.Contains(k, "(m)") {
		ki.mag = 1e6
	}
	ki.magCurrency = strings.Contains(k, "元")
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
	norm   string
	raw    string
	day    int32
	minute int16
	hasDay bool
	cat    []catValue
	hedge  bool
}

func (w *walker) strInfo(s string) *strInfo {
	if si, ok := w.ix.strs[s]; ok {
		return si
	}
	si := &strInfo{norm: string(normalize(s)), raw: jsonText(s), minute: -1}
	if d, m, ok := parseEvidenceDate(s); ok {
		si.day, si.hasDay, si.minute = d, true, m
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
	ki := w.keyInfo(f.key)
	lf := leaf{ev: w.ev, node: obj, ptr: ptr, own: f.concepts, ctx: f.ctx, minute: -1}
	if obj >= 0 {
		lf.hedge = ix.nodes[obj].hedge
	}
	lf.hedge = lf.hedge || ki.hedge
	lf.negKey = ki.negates
	lf.subjKey = ki.subject
	switch t := v.(type) {
	case json.Number:
		x, err := strconv.ParseFloat(t.String(), 64)
		if err != nil || math.IsInf(x, 0) {
			return
		}
		lf.kind, lf.num, lf.hi, lf.raw = kindNum, x, x, t.String()
		lf.unit, lf.dim = fieldUnit(ki, f.key, f.concepts, siblings)
		if lf.unit == nil && lf.dim == dimNone && f.parentKey != "" {
			// {"dimensions_cm": {"l": 60}}: the unit is on the parent key.
			if u := w.keyInfo(f.parentKey).childUnit; u != nil {
				lf.unit, lf.dim = u, u.dim
			}
		}
	case string:
		si := w.strInfo(t)
		lf.kind, lf.str, lf.raw = kindStr, si.norm, si.raw
		lf.day, lf.hasDay, lf.minute = si.day, si.hasDay, si.minute
		lf.cat = si.cat
		lf.hedge = lf.hedge || si.hedge
	case bool:
		lf.kind, lf.b = kindBool, t
		lf.raw = strconv.FormatBool(t)
	default:
		lf.kind, lf.raw = kindNull, "null"
	}
	id := int32(len(ix.leaves))
	ix.leaves = append(ix.leaves, lf)
	if s, ok := v.(string); ok && !lf.hasDay && !(lf.subjKey && !strings.ContainsRune(s, ' ')) {
		w.textNumbers(id, s) // not inside identifiers: ORD-88231, 20240501-7731
	}
	if lf.kind == kindNum {
		w.keyNumbers(id, ki)
	}
}

// keyMagnitudes scale a field by its key: 销售额(万元), revenue_millions,
// "Params (M)".
var keyMagnitudes = map[string]float64{
	"万元": 1e4, "万": 1e4, "亿元": 1e8, "亿": 1e8, "千元": 1e3, "百万": 1e6,
	"thousand": 1e3, "thousands": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6, "mn": 1e6,
	"billion": 1e9, "billions": 1e9, "bn": 1e9,
}

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
			lf.unit, lf.dim = uCNY, dimCurrency
		}
		ix.leaves = append(ix.leaves, lf)
	}
	for _, m := range ki.numbers {
		lf := base
		lf.num, lf.hi, lf.unit, lf.dim, lf.text = m.v, m.v, m.unit, m.unit.dim, true
		ix.leaves = append(ix.leaves, lf)
	}
}

// textNumbersMax bounds the numbers taken from one string value.
const textNumbersMax = 64

// textNumbers indexes the numbers written inside a string value ("3-5
// business days", "$25.00", "revenue rose 12% to 3.2 billion") as leaves
// pointing at the string, with the nearby words as their context.
func (w *walker) textNumbers(id int32, s string) {
	if s == "" || len(s) > 20000 || !strings.ContainsAny(s, "0123456789０１２３４５６７８９") {
		return
	}
	ix := w.ix
	base := ix.leaves[id]
	norm := normalize(s)
	toks := tokenize(norm)
	short := len(norm) <= 16
	for k, m := range scanNumbers(norm, nil) {
		if k >= textNumbersMax {
			break
		}
		lf := base
		lf.kind, lf.text, lf.str, lf.cat = kindNum, true, "", nil
		lf.textShort = short
		lf.num, lf.hi = m.v, m.hi
		lf.unit = m.unit
		if m.unit != nil {
			lf.dim = m.unit.dim
		} else {
			lf.dim = dimNone
		}
		lf.ctx = appendCtx(base.ctx, nearbyConcepts(toks, m.start, m.end, 6))
		ix.leaves = append(ix.leaves, lf)
	}
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

func jsonText(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// lastOnlyUnits are key tokens that are units only as the last token of a
// key of several (temp_c, snowfall_in), never alone.
var lastOnlyUnits = map[string]bool{"in": true, "m": true, "c": true, "f": true, "g": true, "h": true, "l": true, "s": true}

// keyUnitOf reads the unit a key names (weight_kg, eta_minutes,
// price_usd) and the dimension of its head word (first_weight_fee is a
// fee).
func keyUnitOf(parts []string) (*unit, dimension) {
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if lastOnlyUnits[p] && (len(parts) == 1 || i != len(parts)-1) {
			continue
		}
		if i > 0 && (parts[i-1] == "per" || parts[i-1] == "每") {
			continue // fee_per_kg is money, not kilograms
		}
		if p == "min" && i == len(parts)-1 && i > 0 && durationWords[parts[i-1]] {
			return uMin, dimTime // duration_min, eta_min: minutes, not a minimum
		}
		if p == "in" {
			return uInch, dimLength
		}
		if u, ok := keyUnits[p]; ok && u != nil {
			return u, u.dim
		}
	}
	return nil, keyDim(parts)
}

// keyUnit infers the unit of a numeric field from its key or a sibling
// unit/currency field, and its dimension from its key's concepts (price →
// currency, stock → count).
func keyUnit(key string, concepts []string, siblings map[string]any) (*unit, dimension) {
	u, d := keyUnitOf(keyParts(key))
	ki := &keyInfo{unit: u, dim: d}
	return fieldUnit(ki, key, concepts, siblings)
}

// fieldUnit completes a key's unit with its concepts and siblings.
func fieldUnit(ki *keyInfo, key string, concepts []string, siblings map[string]any) (*unit, dimension) {
	if ki.unit != nil {
		return ki.unit, ki.dim
	}
	dim := ki.dim
	if dim == dimNone {
		dim = conceptDim(concepts)
	}
	if siblings != nil {
		for _, uk := range []string{"currency", "currency_code", "unit", "units", "uom", "temp_unit", "temperature_unit", "weight_unit", "货币", "单位", "币种"} {
			s, ok := siblings[uk].(string)
			if !ok {
				continue
			}
			u := unitOfValue(s)
			if u == nil {
				continue
			}
			if u.dim == dimCurrency && dim != dimCurrency && !(dim == dimNone && moneyish(key)) {
				continue
			}
			if u.dim != dimCurrency && dim != dimNone && dim != u.dim {
				continue
			}
			return u, u.dim
		}
	}
	if dim == dimCurrency {
		return moneyUnit, dim
	}
	return nil, dim
}

// moneyUnit is an amount of money in a currency the evidence does not say.
var moneyUnit = &unit{name: "money", dim: dimCurrency, factor: 1}

func moneyish(key string) bool {
	l := strings.ToLower(key)
	for _, w := range []string{"amount", "value", "total", "price", "cost", "fee", "tax", "fare", "金额", "价", "费"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// durationWords before "min" make it minutes.
var durationWords = map[string]bool{
	"duration": true, "time": true, "eta": true, "travel": true, "wait": true, "drive": true,
	"walk": true, "flight": true, "ride": true, "prep": true, "cook": true, "delay": true,
	"trip": true, "journey": true, "runtime": true, "length": true,
}

// keyDim is the dimension named by a key's head word: keys are head-last
// (first_weight_fee is a fee, total_qty a count) and what follows "per"
// is a denominator (price_per_night is a price).
func keyDim(parts []string) dimension {
	for i := len(parts) - 1; i >= 0; i-- {
		if i > 0 && (parts[i-1] == "per" || parts[i-1] == "每") {
			continue
		}
		var cs []string
		if isCJK([]rune(parts[i])[0]) {
			for _, w := range segmentCJK([]rune(parts[i])) {
				cs = append(cs, wordConcepts(w)...)
			}
		} else {
			cs = wordConcepts(parts[i])
		}
		if d := conceptDim(cs); d != dimNone {
			return d
		}
	}
	return dimNone
}

// conceptDim maps key concepts to the dimension of their values.
func conceptDim(concepts []string) dimension {
	for _, c := range concepts {
		switch c {
		case "stock", "guest", "seat", "review", "count", "night", "sales", "user":
			return dimCount
		case "weight":
			return dimMass
		case "temperature":
			return dimTemp
		case "distance":
			return dimLength
		case "humidity", "chance", "percent", "ratio":
			return dimPercent
		}
	}
	for _, c := range concepts {
		switch c {
		case "price", "subtotal", "shipping", "tax", "revenue", "balance", "profit", "original":
			return dimCurrency
		}
	}
	return dimNone
}

// keyParts splits a key into lower-case parts: snake, kebab, camel case,
// digits, and the characters %, ℃.
func keyParts(key string) []string {
	var parts []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, string(cur))
			cur = cur[:0]
		}
	}
	r := []rune(key)
	for i, c := range r {
		c = normRune(c)
		switch {
		case c == '%' || c == '℃':
			flush()
			parts = append(parts, string(c))
		case isCJK(c):
			cur = append(cur, c)
		case c < 128 && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9'):
			if i > 0 && r[i] >= 'A' && r[i] <= 'Z' && r[i-1] >= 'a' && r[i-1] <= 'z' {
				flush()
			}
			if len(cur) > 0 && isCJK(cur[len(cur)-1]) {
				flush()
			}
			cur = append(cur, c)
		default:
			flush()
		}
	}
	flush()
	return parts
}

// keyNegates reports a key that states the negative (out_of_stock,
// non_refundable, is_unavailable, road_closures).
func keyNegates(key string) bool {
	parts := keyParts(key)
	j := " " + strings.Join(parts, " ") + " "
	switch {
	case strings.Contains(j, " out of stock "), strings.Contains(j, " sold out "), strings.Contains(j, " not "), strings.Contains(j, " no "), strings.Contains(j, " non "):
		return true
	}
	for _, p := range parts {
		if l := enLex[p]; l != nil && l.cues&cueNegLex != 0 {
			return true
		}
		if negPrefixed(p) != "" {
			return true
		}
	}
	return false
}

// finish builds the lookup structures once every leaf is known.
func (ix *index) finish() {
	for i := range ix.leaves {
		lf := &ix.leaves[i]
		id := int32(i)
		switch lf.kind {
		case kindNum:
			ix.nums = append(ix.nums, id)
		case kindBool:
			ix.bools = append(ix.bools, id)
		case kindStr:
			if lf.hasDay {
				ix.dates = append(ix.dates, id)
			}
			if len(lf.cat) > 0 {
				ix.cats = append(ix.cats, id)
			}
			ix.indexValue(id, lf)
		}
		if lf.text {
			continue
		}
		seen := map[string]bool{}
		for _, c := range lf.own {
			if !seen[c] {
				seen[c] = true
				ix.byConcept[c] = append(ix.byConcept[c], id)
			}
		}
		for _, c := range lf.ctx {
			if !seen[c] {
				seen[c] = true
				ix.byConcept[c] = append(ix.byConcept[c], id)
			}
		}
	}
	for i := range ix.leaves {
		if lf := &ix.leaves[i]; lf.text {
			for _, c := range lf.ctx {
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
	ix.findCollections()
	ix.prunePartial()
	for i := range ix.nodes {
		if ix.nodes[i].array {
			ix.arrays = append(ix.arrays, int32(i))
		}
	}
}

func appendUnique(s []int32, v int32) []int32 {
	if len(s) > 0 && s[len(s)-1] == v {
		return s
	}
	return append(s, v)
}

// valueTokensMax bounds the tokens indexed per string value.
const valueTokensMax = 256

// indexValue indexes a string value's words (for coverage) and, for short
// values, the whole value (for mentions in claims).
func (ix *index) indexValue(id int32, lf *leaf) {
	r := []rune(lf.str)
	toks := tokenize(r)
	if len(toks) > valueTokensMax {
		toks = toks[:valueTokensMax]
	}
	seen := map[string]bool{}
	for _, c := range textConcepts(r, toks) {
		if !seen[c] {
			seen[c] = true
			ix.byValue[c] = append(ix.byValue[c], id)
		}
	}
	if len(toks) > 0 && len(toks) <= 8 && len(r) >= 2 && len(r) <= 80 {
		ts := make([]string, len(toks))
		for i, t := range toks {
			ts[i] = t.s
		}
		ix.values[ts[0]] = append(ix.values[ts[0]], valEntry{toks: ts, leaf: id})
	}
}

// coll is a collection of comparable objects: the object children of an
// array or object (node >= 0), or the results of several calls to one tool
// (node < 0).
type coll struct {
	node    int32
	members []int32
}

// findCollections records every node with two or more object children and
// every tool called two or more times.
func (ix *index) findCollections() {
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
			ix.colls = append(ix.colls, c)
		}
	}
	byName := map[string]int{}
	for _, r := range ix.roots {
		if r < 0 || ix.nodes[r].array {
			continue
		}
		name := ix.ev[ix.nodes[r].ev].Name
		k, ok := byName[name]
		if !ok {
			k = len(ix.colls)
			byName[name] = k
			ix.colls = append(ix.colls, coll{node: -1})
		}
		ix.colls[k].members = append(ix.colls[k].members, r)
	}
	ix.colls = slices.DeleteFunc(ix.colls, func(c coll) bool { return len(c.members) < 2 })
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
	return events.EvidenceRef{CallID: ix.ev[lf.ev].CallID, Pointer: lf.ptr, Value: lf.raw}
}

// nodeRef builds a reference to a node with a value of our own (a count).
func (ix *index) nodeRef(n int32, value string) events.EvidenceRef {
	nd := &ix.nodes[n]
	return events.EvidenceRef{CallID: ix.ev[nd.ev].CallID, Pointer: nd.ptr, Value: value}
}

// ---- checking one claim ---------------------------------------------------

// fact is the verdict on one checkable part of a claim: a number, a date, a
// polarity, a status, a named value, a comparison or a quantifier.
type fact struct {
	verdict events.Verdict // "" when the part says nothing checkable
	refs    []events.EvidenceRef
	reason  string
	weak    bool // decided without confidence: a judge may decide instead
	soft    bool // dropped when the claim has other facts
	negUsed bool // the fact consumed the claim's negation
}

// catMention is a closed-category word of a claim (shipped, 晴).
type catMention struct {
	cats  []catValue
	start int
}

// claimCtx is what one claim says, read against the index.
type claimCtx struct {
	c            *Checker
	ix           *index
	cl           Claim
	now          time.Time
	norm         []rune
	words        []cword
	cues         cue
	negs         int
	used         []bool // runes taken by subjects, dates and numbers
	groups       [][]int32
	names        []string // the subject value each group was named by
	spans        [][2]int // subject mentions, rune offsets
	scope        []int32  // nodes the claim is about; all evidence when !scoped
	scoped       bool
	before       []int32 // scope before narrowing by date
	nums         []numMention
	times        []timeExpr
	cats         []catMention
	values       [][]int32 // evidence values named, one list per mention
	concepts     []string
	unknown      string // an identifier the evidence does not know
	question     bool
	endsSentence bool
}

func (c *Checker) newClaimCtx(ix *index, cl Claim, now time.Time, prev *claimCtx) *claimCtx {
	cx := &claimCtx{c: c, ix: ix, cl: cl, now: now}
	cx.norm = normalize(cl.Text)
	cx.used = make([]bool, len(cx.norm))
	cx.words = claimWords(cx.norm)
	last := strings.TrimRight(cl.Text, " \"')]}”’）】」』")
	cx.question = strings.HasSuffix(last, "?") || strings.HasSuffix(last, "？") || strings.HasSuffix(last, "吗") || strings.HasSuffix(last, "吗。")
	cx.endsSentence = strings.HasSuffix(last, ".") || strings.HasSuffix(last, "!") || strings.HasSuffix(last, "。") || strings.HasSuffix(last, "！") || cx.question
	cx.findSubjects()
	cx.times = scanTimes(cx.norm, now, cx.used)
	cx.findValues()
	cx.nums = scanNumbers(cx.norm, cx.used)
	for _, m := range cx.nums {
		for i := m.start; i < m.end && i < len(cx.used); i++ {
			cx.used[i] = true
		}
	}
	cx.readWords()
	cx.attachNumberCues()
	// A clause without a subject of its own continues the one before it in
	// the sentence ("Item A costs $5 and has 12 in stock"), and a pronoun
	// continues the previous claim.
	if prev != nil && prev.scoped && (!prev.endsSentence || cx.cues&cuePronoun != 0) {
		switch {
		case len(cx.groups) == 0:
			cx.scoped = true
			cx.groups, cx.names = prev.groups, prev.names
			if len(cx.times) > 0 {
				cx.scope = prev.before
			} else {
				cx.scope = prev.scope
			}
		case len(cx.groups) == 1 && len(prev.groups) > 0 && cx.cues&(cueThan|cueDerive|cueMore|cueLess) != 0:
			// "It improves BLEU by 4.1 over the baseline", "，比蒙牛贵 5.1
			// 元": the other side of the comparison was named before.
			var groups [][]int32
			var spans [][2]int
			var scope []int32
			var names []string
			for i, g := range prev.groups {
				if !slices.Equal(g, cx.groups[0]) {
					groups = append(groups, g)
					names = append(names, prev.names[i])
					spans = append(spans, [2]int{-1, -1})
					scope = append(scope, g...)
				}
			}
			cx.groups = append(groups, cx.groups...)
			cx.names = append(names, cx.names...)
			cx.spans = append(spans, cx.spans...)
			cx.scope = ix.mostSpecific(append(scope, cx.scope...))
		}
	}
	cx.before = cx.scope
	cx.narrowByDate()
	return cx
}

// findSubjects finds the evidence subjects (names, ids, titles) the claim
// mentions, longest first, and makes them the claim's scope.
func (cx *claimCtx) findSubjects() {
	ix := cx.ix
	toks := tokenize(cx.norm)
	orig := []rune(cx.cl.Text)
	type hit struct {
		s, e    int // token indexes
		nodes   []int32
		partial bool
		name    string
	}
	var hits []hit
	for pass := 0; pass < 2; pass++ {
		// Pass 0: whole names and codes; pass 1: distinctive parts of names
		// where no whole name matched.
		for i := 0; i < len(toks); i++ {
			if cx.used[toks[i].start] {
				continue
			}
			var best hit
			for _, se := range ix.subjects[subjectKey(toks[i].s)] {
				if se.partial != (pass == 1) {
					continue
				}
				n := len(se.toks)
				if i+n > len(toks) || n < best.e-best.s {
					continue
				}
				ok := true
				for k := 0; k < n; k++ {
					a, b := toks[i+k].s, se.toks[k]
					if a != b && subjectKey(a) != subjectKey(b) || cx.used[toks[i+k].start] ||
						k > 0 && !toks[i+k].cjk && toks[i+k].start > toks[i+k-1].end+1 {
						ok = false
						break
					}
				}
				if !ok || !cx.subjectCase(toks, i, n, orig, se) {
					continue
				}
				if n > best.e-best.s {
					best = hit{s: i, e: i + n, partial: se.partial, name: se.exact}
				}
				if !slices.Contains(best.nodes, se.node) {
					best.nodes = append(best.nodes, se.node)
				}
			}
			if best.e > best.s {
				for k := toks[best.s].start; k < toks[best.e-1].end; k++ {
					cx.used[k] = true
				}
				hits = append(hits, best)
				i = best.e - 1
			}
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.s - b.s })
	for k, h := range hits {
		s, e := toks[h.s].start, toks[h.e-1].end
		nodes := append([]int32(nil), h.nodes...)
		sortUnique(&nodes)
		// "1月到3月", "from A to C": the members between two named ones.
		if k > 0 && len(cx.groups) > 0 && isRangeJoin(cx.norm[cx.spans[len(cx.spans)-1][1]:s]) {
			prev := cx.groups[len(cx.groups)-1]
			for _, between := range ix.membersBetween(prev, nodes) {
				cx.groups = append(cx.groups, []int32{between})
				cx.names = append(cx.names, "")
				cx.scope = append(cx.scope, between)
				cx.spans = append(cx.spans, [2]int{s, s})
			}
		}
		cx.groups = append(cx.groups, nodes)
		cx.names = append(cx.names, h.name)
		cx.spans = append(cx.spans, [2]int{s, e})
		cx.scope = append(cx.scope, nodes...)
	}
	if len(hits) > 0 {
		cx.scoped = true
		cx.scope = ix.mostSpecific(cx.scope)
	}
	cx.unknown = cx.unknownIdentifier(toks, orig)
}

// mostSpecific keeps the innermost of nested subjects: "order 123's item
// A" is about A.
func (ix *index) mostSpecific(scope []int32) []int32 {
	sortUnique(&scope)
	var keep []int32
	for _, a := range scope {
		inner := false
		for _, b := range scope {
			if a != b && ix.ancestorOf(a, b) {
				inner = true
			}
		}
		if !inner {
			keep = append(keep, a)
		}
	}
	return keep
}

// isRangeJoin reports the text between two subjects of a range.
func isRangeJoin(r []rune) bool {
	switch strings.TrimSpace(string(r)) {
	case "到", "至", "-", "~", "to", "through", "thru", "—", "–":
		return true
	}
	return false
}

// membersBetween returns the collection members strictly between the
// members holding a and b.
func (ix *index) membersBetween(a, b []int32) []int32 {
	for _, cl := range ix.colls {
		ia, ib := -1, -1
		for i, m := range cl.members {
			for _, x := range a {
				if ix.ancestorOf(m, x) {
					ia = i
				}
			}
			for _, x := range b {
				if ix.ancestorOf(m, x) {
					ib = i
				}
			}
		}
		if ia >= 0 && ib >= 0 {
			lo, hi := min(ia, ib), max(ia, ib)
			return slices.Clone(cl.members[lo+1 : hi])
		}
	}
	return nil
}

// subjectCase guards one-letter and common-word subjects: "A" must be
// written in capitals, and not be the article starting a sentence.
func (cx *claimCtx) subjectCase(toks []token, i, n int, orig []rune, se subjEntry) bool {
	if n != 1 || len([]rune(toks[i].s)) > 2 || toks[i].cjk {
		return true
	}
	t := toks[i]
	w := string(orig[t.start:t.end])
	if strings.ToLower(w) == w && strings.ToUpper(se.exact) != se.exact {
		return true
	}
	if strings.ToUpper(w) != w {
		return false
	}
	if w == "A" || w == "I" {
		// "A customer …": the article. "A has 12", "Item A" name the item.
		if i == 0 && i+1 < len(toks) {
			next := toks[i+1].s
			return clauseVerbs[next] || next == "costs" || next == "is" || next == "and" || next == "or"
		}
	}
	return true
}

// classNouns precede an identifier: item C, 商品 C, order 555.
var classNouns = map[string]bool{
	"item": true, "product": true, "option": true, "plan": true, "model": true, "sku": true,
	"order": true, "booking": true, "reservation": true, "flight": true, "room": true,
	"warehouse": true, "store": true, "variant": true, "package": true,
	"商": true, "品": true, "号": true, "款": true, "单": true, "型": true,
}

// unknownIdentifier returns an identifier the claim names that no evidence
// value knows ("Item C" when only A and B were returned), or "".
func (cx *claimCtx) unknownIdentifier(toks []token, orig []rune) string {
	ix := cx.ix
	for i, t := range toks {
		if cx.used[t.start] {
			continue
		}
		w := string(orig[t.start:t.end])
		isID := false
		switch {
		case len(w) == 1 && w[0] >= 'A' && w[0] <= 'Z' && i > 0 && classNouns[toks[i-1].s]:
			isID = w != "A" || toks[i-1].s != "品" && toks[i-1].s != "item"
			if w == "A" {
				isID = true
			}
		case len(t.s) >= 3 && strings.ContainsAny(t.s, "0123456789") && strings.ContainsAny(t.s, "abcdefghijklmnopqrstuvwxyz") && !isNumberWithUnit(t.s):
			isID = true
		case len(t.s) >= 4 && isAllDigits(t.s) && i > 0 && (classNouns[toks[i-1].s] || t.start > 0 && cx.norm[t.start-1] == '#'):
			isID = true
		}
		if !isID {
			continue
		}
		if _, ok := ix.values[t.s]; ok {
			continue
		}
		if _, ok := ix.subjects[t.s]; ok {
			continue
		}
		if len(ix.byValue[t.s]) > 0 {
			continue
		}
		return w
	}
	return ""
}

func isAllDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// isNumberWithUnit reports tokens such as "12kg" or "5pm".
func isNumberWithUnit(s string) bool {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return false
	}
	rest := s[i:]
	_, ok := unitWords[rest]
	return ok || rest == "am" || rest == "pm" || rest == "st" || rest == "nd" || rest == "rd" || rest == "th" || rest == "x" || rest == "k"
}

// readWords collects the claim's cues, negations, categories and content
// concepts from the words outside subjects, dates and numbers.
func (cx *claimCtx) readWords() {
	var unknownRun []rune
	flush := func() {
		for _, c := range segmentCJK(unknownRun) {
			cx.concepts = append(cx.concepts, c)
		}
		unknownRun = unknownRun[:0]
	}
	for i := range cx.words {
		w := &cx.words[i]
		if w.start < len(cx.used) && cx.used[w.start] {
			flush()
			continue
		}
		info := w.info
		if info == nil && !w.cjk {
			if p := negPrefixed(w.s); p != "" {
				cx.negs++
				cx.concepts = append(cx.concepts, enLex[p].concepts...)
				continue
			}
		}
		if info == nil {
			if w.cjk {
				unknownRun = append(unknownRun, []rune(w.s)...)
				continue
			}
			flush()
			cx.concepts = append(cx.concepts, wordConcepts(w.s)...)
			continue
		}
		flush()
		cx.cues |= info.cues
		if info.cues&cueNeg != 0 && info.cues&cuePlain == 0 {
			cx.negs++
		}
		if info.cues&cueNegLex != 0 {
			cx.negs++
		}
		if len(info.cats) > 0 {
			cx.cats = append(cx.cats, catMention{cats: info.cats, start: w.start})
		}
		cx.concepts = append(cx.concepts, info.concepts...)
		if info.cues&cueFree != 0 {
			cx.nums = append(cx.nums, numMention{start: w.start, end: w.end, unit: &unit{name: "money", dim: dimCurrency, factor: 1}, mag: 1, free: true})
		}
	}
	flush()
	// Chinese words the longest-match path cut apart (仓库存 holds 仓库
	// and 库存) still name their concepts.
	cx.concepts = append(cx.concepts, cx.cjkConcepts(0, len(cx.norm))...)
	// "no restocking fee", 退货不收取手续费: the negation is of the fee.
	for i := range cx.words {
		w := &cx.words[i]
		if c := w.cues(); c&cueNeg == 0 || c&cuePlain != 0 {
			continue
		}
		for j := i + 1; j < len(cx.words) && j <= i+3; j++ {
			if feeWords[cx.words[j].s] {
				cx.negs--
				cx.nums = append(cx.nums, numMention{start: cx.words[j].start, end: cx.words[j].end, unit: &unit{name: "money", dim: dimCurrency, factor: 1}, mag: 1, free: true})
				break
			}
		}
	}
	cx.concepts = dedupe(cx.concepts)
	slices.Sort(cx.concepts)
}

// cjkConcepts returns the concepts of every lexicon word of two or more
// ideographs inside [s, e) that no subject, date or number took and that
// the longest-match words cut across (仓库存 holds 库存; 总金额 is one word
// and does not also say 金额).
func (cx *claimCtx) cjkConcepts(s, e int) []string {
	var out []string
	r := cx.norm
	inWord := func(i, n int) bool {
		for _, w := range cx.words {
			if w.cjk && w.info != nil && w.start <= i && i+n <= w.end {
				return true
			}
		}
		return false
	}
	for i := s; i < e; i++ {
		if !isCJK(r[i]) || cx.used[i] {
			continue
		}
		for n := 2; n <= zhMaxLen && i+n <= e; n++ {
			if cx.used[i+n-1] || !isCJK(r[i+n-1]) {
				break
			}
			if l := zhLex[string(r[i:i+n])]; l != nil && !inWord(i, n) {
				out = append(out, l.concepts...)
			}
		}
	}
	return out
}

// conceptsIn returns the concepts of the words inside [s, e).
func (cx *claimCtx) conceptsIn(s, e int) []string {
	var out []string
	for _, w := range cx.words {
		if w.start < s || w.end > e || w.start < len(cx.used) && cx.used[w.start] {
			continue
		}
		if w.info != nil {
			out = append(out, w.info.concepts...)
		} else if !w.cjk {
			out = append(out, wordConcepts(w.s)...)
		}
	}
	out = append(out, cx.cjkConcepts(s, e)...)
	return dedupe(out)
}

// attachNumberCues gives each number the cues written next to it: about
// 20, more than 10, 3 天以内, 20 左右, and the noun after it.
func (cx *claimCtx) attachNumberCues() {
	for k := range cx.nums {
		m := &cx.nums[k]
		if m.free {
			// "free shipping": the word after names what is free.
			for i := range cx.words {
				if w := &cx.words[i]; w.start >= m.end && w.info != nil && len(w.info.concepts) > 0 {
					m.head, m.headEnd = w.info.concepts, w.end
					break
				}
			}
			continue
		}
		prevWords, nextWords := 0, 0
		for i := len(cx.words) - 1; i >= 0 && prevWords < 3; i-- {
			w := &cx.words[i]
			if w.end > m.start {
				continue
			}
			prevWords++
			c := w.cues()
			if c&cueApprox != 0 {
				m.approx = true
			}
			if b := c & (cueGT | cueGE | cueLT | cueLE); b != 0 && m.bound == 0 {
				m.bound = firstBound(b)
			}
			if c&cueStop == 0 && w.info != nil && len(w.info.concepts) > 0 && prevWords > 1 {
				break
			}
		}
		if m.start > 0 {
			switch cx.norm[m.start-1] {
			case '~', '≈':
				m.approx = true
			case '>':
				m.bound = cueGT
			case '<':
				m.bound = cueLT
			case '≥':
				m.bound = cueGE
			case '≤':
				m.bound = cueLE
			}
		}
		if m.end < len(cx.norm) && cx.norm[m.end] == '+' {
			m.bound = cueGE
		}
		if c, ok := measureConcepts[m.unitWord]; ok {
			m.head = c
		}
		if m.unitWord == "折" {
			m.head = []string{"price", "discount"}
		}
		// The words just before the number, back to the previous number or
		// subject: "商品 A 可用库存 12 件", "weighs about 4.4 lb".
		from := max(0, m.start-16)
		for _, o := range cx.nums {
			if o.end <= m.start && o.headEnd > from {
				from = min(o.headEnd, m.start) // "1 bag up to 23 kg": bag is 1's
			}
		}
		for _, sp := range cx.spans {
			if sp[1] <= m.start && sp[1] > from {
				from = sp[1]
			}
		}
		m.local = dedupe(append(cx.conceptsIn(from, m.start), m.head...))
		for i := len(cx.words) - 1; i >= 0; i-- {
			w := &cx.words[i]
			if w.end > m.start || w.start < from {
				continue
			}
			if c := cx.conceptsIn(w.start, w.end); len(c) > 0 {
				m.near = c
				break
			}
		}
		for i := range cx.words {
			w := &cx.words[i]
			if w.start < m.end || nextWords >= 3 {
				continue
			}
			nextWords++
			c := w.cues()
			switch {
			case c&cueAfterGE != 0:
				m.bound = cueGE
			case w.s == "左右" || w.s == "上下" || w.s == "多" || w.s == "or so":
				m.approx = true
			case c&cueLE != 0 && (w.cjk || w.s == "or less"):
				m.bound = cueLE
			}
			if w.start < len(cx.used) && cx.used[w.start] {
				continue
			}
			if w.info != nil && len(w.info.concepts) > 0 && m.head == nil {
				m.head, m.headEnd = w.info.concepts, w.end
			} else if w.info == nil && !w.cjk && m.head == nil && nextWords <= 2 {
				m.head = wordConcepts(w.s)
				if m.head != nil {
					m.headEnd = w.end
				}
			}
		}
	}
}

func firstBound(b cue) cue {
	for _, c := range []cue{cueGT, cueGE, cueLT, cueLE} {
		if b&c != 0 {
			return c
		}
	}
	return 0
}

// narrowByDate keeps, of a collection of dated objects (a forecast, a
// list of bookings), the ones on the day the claim names.
func (cx *claimCtx) narrowByDate() {
	if len(cx.times) == 0 {
		return
	}
	ix := cx.ix
	var keep []int32
	other := false
	for _, l := range ix.dates {
		if !cx.inScope(l) {
			continue
		}
		lf := &ix.leaves[l]
		t := dateTarget{lo: lf.day, hi: lf.day}
		hit := false
		for i := range cx.times {
			te := cx.times[i]
			te.bound = 0
			if v, ok := dayHolds(&te, &t); ok && v == events.VerdictSupported && len(te.days) > 0 {
				hit = true
			}
		}
		if !hit {
			other = true
			continue
		}
		n := lf.node
		if n >= 0 && ix.nodes[n].parent >= 0 && ix.nodes[ix.nodes[n].parent].objKids >= 2 {
			keep = append(keep, n)
		}
	}
	if len(keep) > 0 && other {
		sortUnique(&keep)
		cx.scope, cx.scoped = keep, true
	}
}

// inScope reports whether leaf l is about the claim's subjects: inside one
// of them, or a field of an object enclosing one (the order a line item
// belongs to, the msrp next to a list of offers).
func (cx *claimCtx) inScope(l int32) bool {
	if !cx.scoped {
		return true
	}
	ix := cx.ix
	for _, n := range cx.scope {
		if ix.inNode(l, n) {
			return true
		}
	}
	if ln := ix.leaves[l].node; ln >= 0 {
		for _, n := range cx.scope {
			if ix.ancestorOf(ln, n) {
				return true
			}
		}
	}
	return false
}

func (cx *claimCtx) nodeInScope(n int32) bool {
	if !cx.scoped {
		return true
	}
	for _, s := range cx.scope {
		if cx.ix.ancestorOf(s, n) {
			return true
		}
	}
	return false
}

func (cx *claimCtx) hasConcept(c string) bool { return slices.Contains(cx.concepts, c) }

// hasWord reports whether the claim has one of the words ws.
func (cx *claimCtx) hasWord(ws ...string) bool {
	for _, w := range cx.words {
		if slices.Contains(ws, w.s) {
			return true
		}
	}
	return false
}

// measureConcepts say what a Chinese measure word counts: 2 人 are guests.
var measureConcepts = map[string][]string{
	"人": {"guest"}, "位": {"guest"}, "名": {"guest"}, "晚": {"night"}, "间": {"room"},
	"张": {"seat"}, "单": {"order"}, "笔": {"order"}, "款": {"item"}, "种": {"item"},
}

// feeWords name a charge: "no fee", 不收手续费 state a price of zero.
var feeWords = map[string]bool{
	"fee": true, "fees": true, "charge": true, "charges": true, "cost": true, "costs": true,
	"费": true, "手续费": true, "运费": true, "邮费": true, "费用": true, "收费": true,
}

// overlap counts the elements of b that are in a.
func overlap(a, b []string) int {
	n := 0
	for _, x := range b {
		if slices.Contains(a, x) {
			n++
		}
	}
	return n
}

// attrScore scores how well a leaf's keys name what the claim talks about:
// its own key counts most, enclosing keys less, and enclosing keys the
// claim does not mention count against it.
func (cx *claimCtx) attrScore(lf *leaf) int { return attrScore(cx.concepts, lf) }

func attrScore(concepts []string, lf *leaf) int { return attrScoreDF(concepts, lf, nil) }

// attrScoreDF is attrScore with rare concepts weighing more: of "总金额"
// (total, price), the one field named total beats the many prices.
func attrScoreDF(concepts []string, lf *leaf, ix *index) int {
	own := overlap(concepts, lf.own)
	ctx := overlap(concepts, lf.ctx)
	s := 4*own + 2*ctx
	if ix != nil {
		for _, c := range lf.own {
			if !slices.Contains(concepts, c) {
				continue
			}
			switch df := len(ix.byConcept[c]); {
			case df == 1:
				s += 2
			case df <= 3:
				s++
			}
		}
	}
	if own > 0 {
		if len(lf.ctx) > ctx {
			s--
		}
		extra := 0
		for _, c := range lf.own {
			if !slices.Contains(concepts, c) && !unitConcepts[c] {
				extra++
			}
		}
		s -= min(extra, 2)
	}
	return s
}

// unitConcepts are key words that name a unit, not an attribute: they do
// not count against a field the claim does not name them for.
var unitConcepts = map[string]bool{
	"usd": true, "cny": true, "eur": true, "gbp": true, "jpy": true, "rmb": true, "kg": true, "lb": true,
	"g": true, "km": true, "mi": true, "cm": true, "mm": true, "day": true, "hour": true,
	"minute": true, "min": true, "hr": true, "second": true, "sec": true, "week": true, "c": true, "f": true,
	"pct": true, "percent": true, "%": true, "mph": true, "ml": true, "in": true, "m": true, "id": true,
}

// targets returns the leaves in scope whose own key names one of concepts
// and that pass keep, best score first (only the best tier).
func (cx *claimCtx) targets(concepts []string, keep func(*leaf) bool) []int32 {
	ix := cx.ix
	var cands []int32
	for _, c := range concepts {
		for _, l := range ix.byConcept[c] {
			lf := &ix.leaves[l]
			if keep(lf) && overlap(concepts, lf.own) > 0 && cx.inScope(l) {
				cands = append(cands, l)
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	sortUnique(&cands)
	if slices.ContainsFunc(cands, cx.inSubject) {
		// The subject's own fields come before those of an enclosing
		// object: "the frothers cost $35.50" is about their unit price.
		cands = slices.DeleteFunc(cands, func(l int32) bool { return !cx.inSubject(l) })
	}
	scoreOf := func(l int32) int { return attrScoreDF(concepts, &ix.leaves[l], ix) }
	best := -1
	for _, l := range cands {
		best = max(best, scoreOf(l))
	}
	out := cands[:0]
	own := false
	for _, l := range cands {
		if scoreOf(l) == best {
			out = append(out, l)
			own = own || cx.inSubject(l)
		}
	}
	if own {
		// A field of the subject itself beats one of an enclosing object.
		out = slices.DeleteFunc(out, func(l int32) bool { return !cx.inSubject(l) })
	}
	return out
}

// inSubject reports whether leaf l lies inside one of the claim's subjects
// (not merely in an enclosing object).
func (cx *claimCtx) inSubject(l int32) bool {
	if !cx.scoped {
		return false
	}
	for _, n := range cx.scope {
		if cx.ix.inNode(l, n) {
			return true
		}
	}
	return false
}

// scopeLeaves returns the leaves in scope that pass keep.
func (cx *claimCtx) scopeLeaves(keep func(*leaf) bool) []int32 {
	ix := cx.ix
	var out []int32
	for _, n := range cx.scope {
		nd := &ix.nodes[n]
		for l := nd.leafLo; l < nd.leafHi; l++ {
			if keep(&ix.leaves[l]) {
				out = append(out, l)
			}
		}
	}
	sortUnique(&out)
	return out
}

func sortStable[T any](s []T, less func(a, b T) bool) {
	slices.SortStableFunc(s, func(a, b T) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
}

// verdict is a claim's decided verdict.
type verdict struct {
	verdict   events.Verdict
	refs      []events.EvidenceRef
	reason    string
	undecided bool
}

// check decides the claim.
func (cx *claimCtx) check() verdict {
	switch {
	case cx.question:
		return verdict{verdict: events.VerdictNotCheckable, reason: "a question"}
	case cx.cues&cueOffer != 0:
		return verdict{verdict: events.VerdictNotCheckable, reason: "an offer of help"}
	case cx.cues&cueNonAssert != 0 && len(cx.times) == 0 && !slices.ContainsFunc(cx.nums, func(m numMention) bool { return !m.free }):
		return verdict{verdict: events.VerdictNotCheckable, reason: "a greeting, opinion or remark"}
	}
	facts := cx.facts(true)
	if len(facts) == 0 {
		return cx.coverage()
	}
	return cx.combine(facts)
}

// combine reduces a claim's facts to one verdict: any contradiction wins,
// then anything unsupported, else supported.
func (cx *claimCtx) combine(facts []fact) verdict {
	var out verdict
	for _, want := range []events.Verdict{events.VerdictContradicted, events.VerdictUnsupported, events.VerdictSupported} {
		for _, f := range facts {
			if f.verdict != want {
				continue
			}
			if out.verdict == "" {
				out.verdict, out.reason = want, f.reason
				out.undecided = f.weak
			}
			out.undecided = out.undecided && f.weak
			for _, r := range f.refs {
				if len(out.refs) < cx.c.cfg.EvidenceRefsMax && !slices.Contains(out.refs, r) {
					out.refs = append(out.refs, r)
				}
			}
		}
		if out.verdict != "" {
			return out
		}
	}
	return out
}

// facts checks every checkable part of the claim. quant says whether a
// quantifier (all, only, some, 都) may still be applied.
func (cx *claimCtx) facts(quant bool) []fact {
	if quant {
		if f, ok := cx.quantified(); ok {
			return []fact{f}
		}
	}
	var fs []fact
	add := func(f fact) {
		if f.verdict != "" {
			fs = append(fs, f)
		}
	}
	if cx.unknown != "" {
		add(fact{verdict: events.VerdictUnsupported, reason: "the evidence does not know " + strconv.Quote(cx.unknown)})
	}
	plainNums := 0
	for i := range cx.nums {
		if !cx.nums[i].free {
			plainNums++
		}
	}
	negUsed := false
	if plainNums == 0 && len(cx.times) == 0 && cx.cues&cueFuture == 0 {
		// A state now; "back in stock on May 10" is about a date.
		for _, f := range cx.boolFacts() {
			negUsed = negUsed || f.negUsed
			add(f)
		}
	}
	for _, f := range cx.categoryFacts() {
		negUsed = negUsed || f.negUsed
		add(f)
	}
	boolDecided := len(fs) > 0
	for i := range cx.nums {
		m := &cx.nums[i]
		f := cx.checkNumber(m)
		if m.free && f.verdict == events.VerdictUnsupported && boolDecided {
			continue // "free shipping" decided by a free_shipping flag
		}
		add(f)
	}
	for i := range cx.times {
		f := cx.checkTime(&cx.times[i])
		if cx.negs%2 == 1 && !negUsed && f.verdict != "" {
			switch f.verdict {
			case events.VerdictSupported:
				f.verdict, f.reason = events.VerdictContradicted, "negated, but "+f.reason
			case events.VerdictContradicted:
				f.verdict, f.reason = events.VerdictSupported, "negated: "+f.reason
			}
		}
		add(f)
	}
	for _, f := range cx.valueFacts() {
		add(f)
	}
	add(cx.comparison())
	add(cx.superlative())
	if cx.cues&cueAlways != 0 {
		add(fact{verdict: events.VerdictUnsupported, reason: "a generalisation (always/never) beyond the evidence"})
	}
	if cx.cues&cueCertain != 0 {
		fs = cx.certainty(fs)
	}
	if hard := slices.ContainsFunc(fs, func(f fact) bool { return !f.soft }); hard {
		fs = slices.DeleteFunc(fs, func(f fact) bool { return f.soft })
	}
	return fs
}

// certainty turns support from an estimate (an eta, a forecast, 预计)
// into unsupported when the claim promises it (definitely, 一定, 保证).
func (cx *claimCtx) certainty(fs []fact) []fact {
	if len(fs) == 0 {
		return []fact{{verdict: events.VerdictUnsupported, reason: "a promise the evidence does not make"}}
	}
	for i, f := range fs {
		if f.verdict != events.VerdictSupported {
			continue
		}
		for _, r := range f.refs {
			if cx.hedged(r) {
				fs[i] = fact{verdict: events.VerdictUnsupported, refs: f.refs, reason: "the evidence gives an estimate; the claim promises it"}
				break
			}
		}
	}
	return fs
}

// hedged reports whether a referenced field is an estimate.
func (cx *claimCtx) hedged(r events.EvidenceRef) bool {
	ix := cx.ix
	for i := range ix.leaves {
		lf := &ix.leaves[i]
		if lf.ptr == r.Pointer && ix.ev[lf.ev].CallID == r.CallID {
			return lf.hedge
		}
	}
	return false
}

// boolFacts checks the claim's polarity against true/false fields named by
// its words (in_stock, refundable, 可退款), and availability against stock
// counts (in stock ⇔ stock > 0).
func (cx *claimCtx) boolFacts() []fact {
	ix := cx.ix
	positive := cx.negs%2 == 0
	ts := cx.targets(cx.concepts, func(lf *leaf) bool { return lf.kind == kindBool })
	if len(ts) > 0 {
		var first int32 = -1
		for _, t := range ts {
			lf := &ix.leaves[t]
			val := lf.b != lf.negKey
			if val == positive {
				f := supported(ix, "polarity matches", t)
				f.negUsed = true
				return []fact{f}
			}
			if first < 0 {
				first = t
			}
		}
		return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(first)}, negUsed: true,
			reason: "polarity differs: evidence says " + ix.leaves[first].raw + " at " + ix.leaves[first].ptr}}
	}
	if !cx.hasConcept("stock") {
		return cx.emptiness(positive)
	}
	ts = cx.targets([]string{"stock"}, func(lf *leaf) bool {
		return lf.kind == kindNum && !lf.text && (lf.dim == dimCount || lf.dim == dimNone)
	})
	for _, t := range ts {
		if (ix.leaves[t].num > 0) == positive {
			f := supported(ix, "availability matches the stock count", t)
			f.negUsed = true
			return []fact{f}
		}
	}
	if len(ts) > 0 {
		return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(ts[0])}, negUsed: true,
			reason: "availability differs: stock is " + ix.leaves[ts[0]].raw}}
	}
	return cx.emptiness(positive)
}

// emptiness checks "there are no alerts", 没有预警 against a list the
// claim names: an empty list supports the negation, a non-empty one
// contradicts it; an empty list contradicts a claim that there are some.
func (cx *claimCtx) emptiness(positive bool) []fact {
	ix := cx.ix
	for _, n := range ix.arrays {
		nd := &ix.nodes[n]
		if overlap(cx.concepts, nd.concepts) == 0 || !cx.nodeInScope(n) {
			continue
		}
		ref := ix.nodeRef(n, strconv.Itoa(nd.length))
		switch {
		case !positive && nd.length == 0:
			return []fact{{verdict: events.VerdictSupported, refs: []events.EvidenceRef{ref}, negUsed: true, reason: "the list is empty"}}
		case !positive:
			return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ref}, negUsed: true, reason: "the list is not empty"}}
		case nd.length == 0:
			return []fact{{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ref}, negUsed: true, reason: "the list is empty"}}
		}
	}
	return nil
}

// categoryFacts checks status and condition words (shipped, delivered,
// 已发货, sunny, 小雨) against the status fields in scope.
func (cx *claimCtx) categoryFacts() []fact {
	ix := cx.ix
	var out []fact
	for _, cm := range cx.cats {
		neg := cx.negs%2 == 1
		future := cx.cues&cueFuture != 0
		for _, c := range cm.cats {
			if c.neg {
				neg = !neg
			}
		}
		if cm.cats[0].class == "order" && (cm.cats[0].value == "shipped" || cm.cats[0].value == "delivered") && cx.futureTime() {
			continue // "ships today", "arrives tomorrow": a date, not a status
		}
		if cx.hasConcept("chance") && cm.cats[0].class == "weather" {
			continue // "a 30% chance of rain" does not say it rains
		}
		var first int32 = -1
		decided := false
		for _, l := range ix.cats {
			if !cx.inScope(l) {
				continue
			}
			lf := &ix.leaves[l]
			match, same := false, false
			for _, c := range cm.cats {
				if future && c.class == "order" {
					continue
				}
				for _, e := range lf.cat {
					if c.class != e.class {
						continue
					}
					same = true
					if c.value == e.value || c.class == "order" && c.value == "shipped" && e.rank >= 3 && e.rank <= 6 ||
						c.value == "rain" && e.value == "storm" {
						match = true
					}
				}
			}
			if !same {
				continue
			}
			if match != neg {
				f := supported(ix, "status matches", l)
				f.negUsed = true
				out = append(out, f)
				decided = true
				break
			}
			if first < 0 {
				first = l
			}
		}
		if decided {
			continue
		}
		if first >= 0 {
			out = append(out, fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(first)}, negUsed: true,
				reason: "status differs: evidence says " + ix.leaves[first].raw})
			continue
		}
		if future && cm.cats[0].class == "order" {
			continue
		}
		out = append(out, fact{verdict: events.VerdictUnsupported, reason: "no status in the evidence", weak: true, soft: true})
	}
	return out
}

// futureTime reports a time expression on or after the answer's day.
func (cx *claimCtx) futureTime() bool {
	d0 := dayOf(cx.now)
	for _, te := range cx.times {
		if len(te.days) > 0 && te.days[0] >= d0 {
			return true
		}
	}
	return false
}

// valueFacts checks the evidence values the claim names (a carrier, a
// colour, a city): in scope they support it; named for another subject
// while this subject's field says otherwise they contradict it.
func (cx *claimCtx) valueFacts() []fact {
	ix := cx.ix
	var out []fact
	for _, vm := range cx.values {
		var in, outside []int32
		for _, l := range vm {
			if cx.inScope(l) {
				in = append(in, l)
			} else {
				outside = append(outside, l)
			}
		}
		if len(in) > 0 {
			out = append(out, supported(ix, "value named in the evidence", in[0]))
			continue
		}
		f := fact{verdict: events.VerdictUnsupported, reason: "the value belongs to another subject"}
		for _, l := range outside {
			key := lastToken(ix.leaves[l].ptr)
			for _, s := range cx.scopeLeaves(func(lf *leaf) bool { return lf.kind == kindStr && !lf.subjKey }) {
				if lastToken(ix.leaves[s].ptr) == key {
					f = fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(s)},
						reason: "evidence says " + ix.leaves[s].raw + " at " + ix.leaves[s].ptr}
					break
				}
			}
			if f.verdict == events.VerdictContradicted {
				break
			}
		}
		out = append(out, f)
	}
	return out
}

// findValues finds the evidence string values the claim names (longest
// first, outside subjects) and takes their runes.
func (cx *claimCtx) findValues() {
	ix := cx.ix
	toks := tokenize(cx.norm)
	for i := 0; i < len(toks); i++ {
		if cx.used[toks[i].start] {
			continue
		}
		var best []int32
		bestN := 0
		for _, ve := range ix.values[toks[i].s] {
			n := len(ve.toks)
			if i+n > len(toks) || n < bestN {
				continue
			}
			ok := true
			for k := 0; k < n; k++ {
				if toks[i+k].s != ve.toks[k] || cx.used[toks[i+k].start] {
					ok = false
					break
				}
			}
			if !ok || !cx.mentionable(&ix.leaves[ve.leaf]) {
				continue
			}
			if n > bestN {
				best, bestN = nil, n
			}
			best = append(best, ve.leaf)
		}
		if bestN == 0 {
			continue
		}
		for k := i; k < i+bestN; k++ {
			for r := toks[k].start; r < toks[k].end; r++ {
				cx.used[r] = true
			}
		}
		i += bestN - 1
		cx.values = append(cx.values, best)
	}
}

// mentionable reports string values distinctive enough to count as named
// when they appear in a claim.
func (cx *claimCtx) mentionable(lf *leaf) bool {
	if lf.subjKey || len(lf.cat) > 0 || lf.hasDay {
		return false
	}
	r := []rune(lf.str)
	if len(r) < 2 || !isCJK(r[0]) && len(r) < 3 {
		return false
	}
	if isAllDigits(lf.str) || unitOfValue(lf.str) != nil {
		return false
	}
	if l := enLex[lf.str]; l != nil && l.cues != 0 {
		return false
	}
	if l := zhLex[lf.str]; l != nil && l.cues != 0 {
		return false
	}
	switch lf.str {
	case "true", "false", "yes", "no", "none", "null", "n/a", "ok":
		return false
	}
	return true
}

func lastToken(ptr string) string { return ptr[strings.LastIndexByte(ptr, '/')+1:] }

// numberOf returns the best numeric field for concepts within nodes.
func (cx *claimCtx) numberOf(nodes []int32, concepts []string) int32 {
	sub := *cx
	sub.scope, sub.scoped = nodes, true
	ts := sub.targets(concepts, func(lf *leaf) bool { return lf.kind == kindNum && !lf.text })
	if len(ts) == 0 {
		return -1
	}
	return ts[0]
}

// comparison checks "A is cheaper than B", "A 比 B 贵".
func (cx *claimCtx) comparison() fact {
	if cx.cues&(cueMore|cueLess) == 0 || cx.cues&cueThan == 0 || len(cx.groups) < 2 {
		return fact{}
	}
	ix := cx.ix
	dir, thanAt := 0, -1
	for _, w := range cx.words {
		c := w.cues()
		if c&cueThan != 0 && thanAt < 0 {
			thanAt = w.start
		}
		if dir == 0 && c&(cueGT|cueGE|cueLT|cueLE) == 0 {
			if c&cueMore != 0 {
				dir = 1
			} else if c&cueLess != 0 {
				dir = -1
			}
		}
	}
	if dir == 0 {
		return fact{}
	}
	left, right := cx.groups[0], cx.groups[1]
	if slices.Equal(left, right) {
		return fact{}
	}
	if thanAt >= 0 && cx.spans[0][0] > thanAt && cx.spans[1][0] < thanAt {
		left, right = right, left
	} else if thanAt >= 0 && cx.spans[0][0] > thanAt && cx.spans[1][0] > thanAt {
		// "Compared with B, A is cheaper": the reference comes first.
		left, right = right, left
	}
	a, b := cx.numberOf(left, cx.concepts), cx.numberOf(right, cx.concepts)
	if a < 0 || b < 0 {
		return fact{verdict: events.VerdictUnsupported, reason: "no comparable values"}
	}
	x, y := ix.leaves[a].num, ix.leaves[b].num
	if (dir > 0 && x > y) || (dir < 0 && x < y) {
		return supported(ix, "comparison holds", a, b)
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(a), ix.ref(b)}, reason: "comparison fails"}
}

// superlative checks "B has the most stock", "A 最便宜" against the other
// members of the subject's collection.
func (cx *claimCtx) superlative() fact {
	if cx.cues&(cueMost|cueLeast) == 0 || len(cx.groups) != 1 {
		return fact{}
	}
	for _, m := range cx.nums {
		if !m.free {
			return fact{}
		}
	}
	ix := cx.ix
	dir := 1
	for _, w := range cx.words {
		if c := w.cues(); c&cueLeast != 0 {
			dir = -1
			break
		} else if c&cueMost != 0 {
			break
		}
	}
	subj := cx.groups[0]
	for _, cl := range ix.colls {
		var own int32 = -1
		for _, mb := range cl.members {
			for _, s := range subj {
				if ix.ancestorOf(mb, s) {
					own = mb
				}
			}
		}
		if own < 0 {
			continue
		}
		a := cx.numberOf([]int32{own}, cx.concepts)
		if a < 0 {
			continue
		}
		for _, mb := range cl.members {
			if mb == own {
				continue
			}
			b := cx.numberOf([]int32{mb}, cx.concepts)
			if b < 0 {
				continue
			}
			x, y := ix.leaves[a].num, ix.leaves[b].num
			if dir > 0 && y > x || dir < 0 && y < x {
				return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(a), ix.ref(b)}, reason: "another member is more extreme"}
			}
		}
		return supported(ix, "superlative holds", a)
	}
	return fact{verdict: events.VerdictUnsupported, reason: "nothing to compare with"}
}

// quantified checks all / every / 都 / 全部, some / 部分 and only / 只 over
// the members of a collection (or the subjects named), checking the claim
// for each member on its own.
func (cx *claimCtx) quantified() (fact, bool) {
	q := cx.cues & (cueUniversal | cueExistential | cueExclusive)
	if q == 0 {
		return fact{}, false
	}
	ix := cx.ix
	plainNums := 0
	for _, m := range cx.nums {
		if !m.free {
			plainNums++
		}
	}
	if q&cueExclusive != 0 && (plainNums > 0 || len(cx.groups) != 1) && q&^cueExclusive == 0 {
		return fact{}, false // "only 3 left" is emphasis
	}
	var members [][]int32
	var own = -1
	switch {
	case len(cx.groups) >= 2 && q&cueExclusive == 0:
		members = cx.groups
	case len(cx.groups) == 0 && cx.scoped && len(cx.scope) >= 2 && q&cueExclusive == 0:
		for _, n := range cx.scope { // narrowed by date: the weekend's two days
			members = append(members, []int32{n})
		}
	default:
		cl, ok := cx.collection()
		if !ok {
			if q&cueUniversal != 0 && len(cx.groups) < 2 {
				return fact{verdict: events.VerdictUnsupported, reason: "the evidence covers only part of what the claim quantifies"}, true
			}
			return fact{}, false
		}
		for i, mb := range cl.members {
			members = append(members, []int32{mb})
			if len(cx.groups) == 1 && q&cueExclusive != 0 {
				for _, s := range cx.groups[0] {
					if ix.ancestorOf(mb, s) {
						own = i
					}
				}
			}
		}
	}
	// A number counting the members ("all 3 items", 两天都) is checked as
	// their count, not for each member.
	var nums []numMention
	var countFact fact
	for _, m := range cx.nums {
		if !m.free && !m.isRange && m.bound == 0 && m.v == math.Trunc(m.v) && (m.unit == nil || m.unit.dim == dimCount || m.unit == uDay) && m.v >= 2 && m.v <= 20 && cx.countsMembers(m) {
			if int(m.v) == len(members) {
				countFact = fact{verdict: events.VerdictSupported, reason: "count of members"}
			} else {
				countFact = fact{verdict: events.VerdictContradicted, reason: "the evidence has " + strconv.Itoa(len(members))}
			}
			continue
		}
		nums = append(nums, m)
	}
	if countFact.verdict == events.VerdictContradicted {
		return countFact, true
	}
	verdicts := make([]verdict, len(members))
	for i, mb := range members {
		sub := *cx
		sub.scope, sub.scoped, sub.groups, sub.spans, sub.names = mb, true, nil, nil, nil
		sub.used = slices.Clone(cx.used)
		sub.unknown = ""
		sub.nums = nums
		fs := sub.facts(false)
		if q&cueExclusive == 0 && len(cx.groups) == 1 && own < 0 {
			// "Both items ship from Denver": each member must have the
			// value the claim named.
			fs = append(fs, cx.memberHas(mb[0], cx.groups[0]))
		}
		if len(fs) == 0 {
			verdicts[i] = verdict{verdict: events.VerdictUnsupported}
			continue
		}
		verdicts[i] = sub.combine(fs)
	}
	firstOf := func(want events.Verdict) int {
		for i, v := range verdicts {
			if v.verdict == want {
				return i
			}
		}
		return -1
	}
	all := func() fact {
		f := fact{verdict: events.VerdictSupported, reason: "holds for every member"}
		for _, v := range verdicts {
			if len(v.refs) > 0 && len(f.refs) < cx.c.cfg.EvidenceRefsMax {
				f.refs = append(f.refs, v.refs[0])
			}
		}
		return f
	}
	switch {
	case q&cueExclusive != 0 && own >= 0:
		if verdicts[own].verdict != events.VerdictSupported {
			v := verdicts[own]
			return fact{verdict: v.verdict, refs: v.refs, reason: v.reason}, true
		}
		for i, v := range verdicts {
			if i != own && v.verdict == events.VerdictSupported {
				return fact{verdict: events.VerdictContradicted, refs: v.refs, reason: "not the only one"}, true
			}
		}
		return fact{verdict: events.VerdictSupported, refs: verdicts[own].refs, reason: "holds for it alone"}, true
	case q&cueUniversal != 0:
		if i := firstOf(events.VerdictContradicted); i >= 0 {
			return fact{verdict: events.VerdictContradicted, refs: verdicts[i].refs, reason: "fails for a member: " + verdicts[i].reason}, true
		}
		if i := firstOf(events.VerdictUnsupported); i >= 0 {
			return fact{verdict: events.VerdictUnsupported, reason: "unknown for a member"}, true
		}
		return all(), true
	default: // some
		if i := firstOf(events.VerdictSupported); i >= 0 {
			return fact{verdict: events.VerdictSupported, refs: verdicts[i].refs, reason: "holds for a member"}, true
		}
		if firstOf(events.VerdictUnsupported) < 0 {
			return fact{verdict: events.VerdictContradicted, refs: verdicts[0].refs, reason: "holds for no member"}, true
		}
		return fact{verdict: events.VerdictUnsupported, reason: "unknown for the members"}, true
	}
}

// memberHas checks that member holds the subject value group names (the
// value's field in another member contradicts it).
func (cx *claimCtx) memberHas(member int32, group []int32) fact {
	ix := cx.ix
	for _, n := range group {
		if ix.ancestorOf(member, n) {
			sub := *cx
			sub.groups = [][]int32{{n}}
			sub.names = cx.names[:min(1, len(cx.names))]
			if l := sub.subjectLeaf(); l >= 0 {
				return supported(ix, "has the named value", l)
			}
			return fact{verdict: events.VerdictSupported, reason: "has the named value"}
		}
	}
	sub := *cx
	sub.groups = [][]int32{group}
	sub.names = cx.names[:min(1, len(cx.names))]
	if l := sub.subjectLeaf(); l >= 0 {
		key := lastToken(ix.leaves[l].ptr)
		nd := &ix.nodes[member]
		for m := nd.leafLo; m < nd.leafHi; m++ {
			if lastToken(ix.leaves[m].ptr) == key && ix.leaves[m].node == member {
				return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(m)}, reason: "a member has another value"}
			}
		}
	}
	return fact{verdict: events.VerdictUnsupported, reason: "a member lacks the named value"}
}

// countsMembers reports a number written next to the quantifier ("all 3
// items", "these 3 days", 三款牛奶都, 两天都).
func (cx *claimCtx) countsMembers(m numMention) bool {
	at := -1
	for i, w := range cx.words {
		if w.end > m.start {
			at = i
			break
		}
	}
	if at < 0 {
		return false
	}
	for i, w := range cx.words {
		if w.cues()&cueUniversal != 0 && (i < at && at-i <= 3 || i > at && i-at <= 3) {
			return true
		}
	}
	return false
}

// collection finds the collection the quantifier ranges over: the one
// holding the named subject (only A …), else the first in scope whose
// members have fields the claim talks about.
func (cx *claimCtx) collection() (coll, bool) {
	ix := cx.ix
	for _, cl := range ix.colls {
		if len(cx.groups) == 1 {
			for _, mb := range cl.members {
				for _, s := range cx.groups[0] {
					if ix.ancestorOf(mb, s) {
						return cl, true
					}
				}
			}
			continue
		}
		if cl.node >= 0 && !cx.nodeInScope(cl.node) {
			continue
		}
		if cl.node >= 0 && overlap(cx.concepts, ix.nodes[cl.node].concepts) > 0 {
			return cl, true // "all options", "所有座位": the list the claim names
		}
		concepts := cx.concepts
		for i := range cx.nums {
			concepts = append(concepts, cx.numberConcepts(&cx.nums[i])...)
		}
		hits := 0
		for _, mb := range cl.members {
			sub := *cx
			sub.scope, sub.scoped = []int32{mb}, true
			if len(sub.targets(concepts, func(*leaf) bool { return true })) > 0 || len(cx.cats) > 0 && sub.hasCat(mb) {
				hits++
			}
		}
		if hits*2 >= len(cl.members) && hits > 0 {
			return cl, true
		}
	}
	return coll{}, false
}

func (cx *claimCtx) hasCat(n int32) bool {
	for _, l := range cx.ix.cats {
		if cx.ix.inNode(l, n) {
			return true
		}
	}
	return false
}

// subjectLeaf returns the field that names the claim's first subject
// (the one holding the name it was named by, if known).
func (cx *claimCtx) subjectLeaf() int32 {
	ix := cx.ix
	name := ""
	if len(cx.names) > 0 {
		name = string(normalize(cx.names[0]))
	}
	var first int32 = -1
	for _, n := range cx.groups[0] {
		nd := &ix.nodes[n]
		for l := nd.leafLo; l < nd.leafHi; l++ {
			lf := &ix.leaves[l]
			if lf.node != n || !lf.subjKey || lf.text {
				continue
			}
			if name == "" || lf.str == name || lf.raw == name {
				return l
			}
			if first < 0 {
				first = l
			}
		}
	}
	return first
}

// coverage decides a claim with no number, date, polarity or status: by
// how many of its content words the evidence in scope has. Such verdicts
// are weak and left to a judge when one is configured.
func (cx *claimCtx) coverage() verdict {
	ix := cx.ix
	if cx.unknown != "" {
		return verdict{verdict: events.VerdictUnsupported, reason: "the evidence does not know " + strconv.Quote(cx.unknown)}
	}
	var content []string
	for _, c := range cx.concepts {
		if l := enLex[c]; l != nil && l.cues&(cueStop|cueNonAssert) != 0 && len(l.concepts) == 0 {
			continue
		}
		if r := []rune(c); len(r) == 1 && isCJK(r[0]) {
			continue // a lone unknown ideograph says too little
		}
		content = append(content, c)
	}
	if len(content) == 0 {
		if cx.cues&cueNonAssert != 0 || len(cx.groups) == 0 {
			return verdict{verdict: events.VerdictNotCheckable, reason: "states nothing checkable", undecided: cx.cues&cueNonAssert == 0 && len(cx.words) > 3}
		}
		return verdict{verdict: events.VerdictNotCheckable, reason: "names a subject only"}
	}
	if cx.cues&cueNonAssert != 0 {
		return verdict{verdict: events.VerdictNotCheckable, reason: "an opinion or remark"}
	}
	found, value := 0, int32(-1)
	if len(cx.groups) > 0 {
		value = cx.subjectLeaf()
	}
	for _, c := range content {
		hit := false
		for _, l := range ix.byValue[c] {
			if cx.inScope(l) {
				hit = true
				if value < 0 {
					value = l
				}
				break
			}
		}
		if !hit {
			for _, l := range ix.byConcept[c] {
				if cx.inScope(l) {
					hit = true
					break
				}
			}
		}
		if hit {
			found++
		}
	}
	if value >= 0 && found*3 >= len(content)*2 {
		return verdict{verdict: events.VerdictSupported, refs: []events.EvidenceRef{ix.ref(value)}, reason: "the evidence says the same words", undecided: true}
	}
	return verdict{verdict: events.VerdictUnsupported, reason: "nothing in the evidence says this", undecided: true}
}
