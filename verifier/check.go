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
	ix := buildIndex(evidence, now)
	claims := SplitClaims(answer)
	rep := Report{Claims: make([]events.ClaimVerdict, 0, len(claims))}
	var prev *claimCtx
	supported, checkable := 0, 0
	for i, cl := range claims {
		cx := c.newClaimCtx(ix, cl, now, prev)
		v := cx.check()
		cx.matched = v.leaves
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
	keyUp     bool     // the key says the value is a rise (增长, growth)
	keyDown   bool     // … or a fall (下降, decline)
	src       int32    // for a value found in a string: the string's leaf
	textPos   int32    // … and where in it (runes)
	scaled    bool     // a copy scaled by its key's magnitude (万元, millions)
	subjKey   bool     // the field names its object (name, id, sku)
	day       int32    // days since 1970-01-01 for dates
	hasDay    bool
	minute    int16 // minute of day, -1 if none
	cat       []catValue
}

type subjEntry struct {
	toks    []string
	keys    []string // subjectKey of each token
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
	clocks    []int32           // times of day without a date ("15:00")
	textOf    map[int32][]int32 // a string value -> the numbers and dates found in it
	keys      map[string]*keyInfo
	strs      map[string]*strInfo
	sents     map[int32][]sentInfo
	texts     map[string][]textItem
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

// buildIndex decodes and indexes the evidence. now resolves dates written
// in evidence text without a year or as weekdays ("on Thursday").
func buildIndex(evidence []Evidence, now time.Time) *index {
	ix := &index{
		byConcept: map[string][]int32{},
		byValue:   map[string][]int32{},
		subjects:  map[string][]subjEntry{},
		values:    map[string][]valEntry{},
		keys:      map[string]*keyInfo{},
		strs:      map[string]*strInfo{},
		sents:     map[int32][]sentInfo{},
		texts:     map[string][]textItem{},
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
		w := walker{ix: ix, ev: ev, now: now}
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
	ix  *index
	ev  int32
	now time.Time
}

// frame is where a value sits: the key it is under (for an array element,
// the array's key), that key's concepts, the enclosing keys' concepts and
// the enclosing object's key.
type frame struct {
	key       string
	concepts  []string
	ctx       []string
	parentKey string
	rowKey    string // a table row's label
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
	if isAllDigits(k) {
		return []string{k} // a year or period column: "2023"
	}
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
		case dimTime:
			c = dedupe(append(c, "duration")) // min_days, eta_hours: how long
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

func (w *walker) addSubject(id int32, v string) { w.ix.addSubject(id, v) }

// addSubject indexes v as a name of node id.
func (ix *index) addSubject(id int32, v string) {
	toks := tokenStrings(normalize(v))
	if len(toks) == 0 {
		return
	}
	add := func(k string, se subjEntry) {
		se.keys = make([]string, len(se.toks))
		for i, t := range se.toks {
			se.keys[i] = subjectKey(t)
		}
		ix.subjects[k] = append(ix.subjects[k], se)
	}
	add(subjectKey(toks[0]), subjEntry{toks: toks, node: id, exact: v})
	// "Revenue ($M)", "Operating margin (%)": the name without the unit.
	if i := strings.IndexAny(v, "(（["); i > 0 && strings.ContainsAny(v[i:], ")）]") {
		if short := tokenStrings(normalize(strings.TrimSpace(v[:i]))); len(short) > 0 && len(short) < len(toks) {
			add(subjectKey(short[0]), subjEntry{toks: short, node: id, exact: v})
		}
	}
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
			if e.partial || e.alias {
				names[strings.ToLower(e.exact)] = true
			}
		}
		if len(names) <= 1 {
			continue
		}
		out := es[:0]
		for _, e := range es {
			if !e.partial && !e.alias {
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
	for _, p := range parts {
		ws := []string{p}
		if isCJK([]rune(p)[0]) {
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
	cat    []catValue
	hedge  bool
}

func (w *walker) strInfo(s string) *strInfo {
	if si, ok := w.ix.strs[s]; ok {
		return si
	}
	si := &strInfo{norm: string(normalize(s)), raw: jsonText(s), minute: -1, clock: -1}
	if d, m, ok := parseEvidenceDate(s); ok {
		si.day, si.hasDay, si.minute = d, true, m
	} else if d, ok := weekdayValue(si.norm, w.now); ok {
		si.day, si.hasDay = d, true // {"day": "Mon"}: the coming Monday
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
	ki := w.keyInfo(f.key)
	lf := leaf{ev: w.ev, node: obj, ptr: ptr, own: f.concepts, ctx: f.ctx, minute: -1, src: -1}
	if obj >= 0 {
		lf.hedge = ix.nodes[obj].hedge
	}
	lf.hedge = lf.hedge || ki.hedge
	lf.negKey = ki.negates
	lf.subjKey = ki.subject
	lf.keyUp, lf.keyDown = ki.up, ki.down
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
		if lf.unit == nil && lf.dim == dimNone && f.rowKey != "" {
			// A table row labelled "Operating margin (%)".
			if rk := w.keyInfo(f.rowKey); rk.unit != nil {
				lf.unit, lf.dim = rk.unit, rk.unit.dim
			} else {
				lf.dim = rk.dim
			}
		}
	case string:
		si := w.strInfo(t)
		lf.kind, lf.str, lf.raw = kindStr, si.norm, si.raw
		lf.day, lf.hasDay, lf.minute = si.day, si.hasDay, si.minute
		if !si.hasDay {
			lf.minute = si.clock
		}
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
		w.textDates(id, s)
	}
	if lf.kind == kindNum {
		if ki.mag == 1 && f.rowKey != "" {
			ki = w.keyInfo(f.rowKey)
		}
		w.keyNumbers(id, ki)
	}
}

func jsonText(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
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
			} else if lf.minute >= 0 {
				ix.clocks = append(ix.clocks, id)
			}
			if lf.text {
				break // a date found inside a string value
			}
			if len(lf.cat) > 0 {
				ix.cats = append(ix.cats, id)
			}
			ix.indexValue(id, lf)
		}
		if lf.text {
			continue
		}
		for i, c := range lf.own {
			if !slices.Contains(lf.own[:i], c) {
				ix.byConcept[c] = append(ix.byConcept[c], id)
			}
		}
		for i, c := range lf.ctx {
			if !slices.Contains(lf.ctx[:i], c) && !slices.Contains(lf.own, c) {
				ix.byConcept[c] = append(ix.byConcept[c], id)
			}
		}
	}
	ix.textOf = map[int32][]int32{}
	for i := range ix.leaves {
		if lf := &ix.leaves[i]; lf.text && lf.src >= 0 {
			ix.textOf[lf.src] = append(ix.textOf[lf.src], int32(i))
		}
	}
	for i := range ix.leaves {
		if lf := &ix.leaves[i]; lf.text {
			// A value written as text ("18℃", "128.6亿元") is the field's
			// value; a number inside a label ("Q1 2024") is not.
			if lf.textShort || lf.src >= 0 && len(ix.leaves[lf.src].str) >= 40 {
				for _, c := range lf.own {
					ix.byConcept[c] = appendUnique(ix.byConcept[c], int32(i))
				}
			}
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
	for _, c := range textConcepts(r, toks) {
		if vs := ix.byValue[c]; len(vs) == 0 || vs[len(vs)-1] != id {
			ix.byValue[c] = append(vs, id)
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
	for _, c := range ix.colls {
		ix.nameMembers(c)
	}
}

// nameMembers gives the members of a collection that have no name field a
// name: the first short string field (in key order) whose values differ
// from member to member — {"dish": "Quinoa Bowl"} in a menu.
func (ix *index) nameMembers(c coll) {
	for _, mb := range c.members {
		if ix.nodes[mb].subject != "" {
			return
		}
	}
	direct := func(mb int32) map[string]int32 {
		out := map[string]int32{}
		nd := &ix.nodes[mb]
		for l := nd.leafLo; l < nd.leafHi; l++ {
			if lf := &ix.leaves[l]; lf.node == mb && lf.kind == kindStr && !lf.text && !lf.hasDay && len(lf.cat) == 0 && utf8.RuneCountInString(lf.str) <= 40 {
				out[lastToken(lf.ptr)] = l
			}
		}
		return out
	}
	first := direct(c.members[0])
	var keys []string
	for k, l := range first {
		// A name-like key: not an attribute the lexicon knows (carrier,
		// status, color), holding words rather than codes.
		if !slices.ContainsFunc(ix.leaves[l].own, func(c string) bool { return enLex[c] != nil || zhLex[c] != nil || lexConcepts[c] }) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		seen := map[string]bool{}
		ok := true
		for _, mb := range c.members {
			l, has := direct(mb)[k]
			if !has || seen[ix.leaves[l].str] || digitCount(ix.leaves[l].str)*3 > len(ix.leaves[l].str) {
				ok = false
				break
			}
			seen[ix.leaves[l].str] = true
		}
		if !ok {
			continue
		}
		for _, mb := range c.members {
			l := direct(mb)[k]
			var orig string
			_ = json.Unmarshal([]byte(ix.leaves[l].raw), &orig)
			ix.addSubject(mb, orig)
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
	leaves  []int32
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
	toks         []token
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
	soft         bool    // scope inherited through a pronoun from the sentence before
	ownSubjects  bool    // the claim names its subjects itself
	matched      []int32 // fields that supported this claim
	context      []int32 // fields that supported the claims before it in its sentence
}

func (c *Checker) newClaimCtx(ix *index, cl Claim, now time.Time, prev *claimCtx) *claimCtx {
	cx := &claimCtx{c: c, ix: ix, cl: cl, now: now}
	cx.norm = normalize(cl.Text)
	cx.used = make([]bool, len(cx.norm))
	cx.toks = tokenize(cx.norm)
	cx.words = claimWordsOf(cx.norm, cx.toks)
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
	if prev != nil && !prev.endsSentence {
		// "研发投入 14.3 亿元，占营收的约 11%": the sentence so far.
		cx.context = append(slices.Clip(prev.context), prev.matched...)
	}
	ranges := cx.cues&(cueUniversal|cueExistential) != 0 // "some stores": its own set
	if prev != nil && prev.scoped && (!prev.endsSentence || cx.cues&cuePronoun != 0 && !ranges) {
		switch {
		case len(cx.groups) == 0:
			cx.scoped = true
			cx.soft = prev.endsSentence // a pronoun across sentences may mean something else
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
	leaves    []int32 // the fields that support it
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
	v := cx.combine(facts)
	if v.verdict == events.VerdictSupported && cx.ownSubjects {
		// The fields naming what the claim is about belong to its evidence.
		for i := range cx.groups {
			sub := *cx
			sub.groups, sub.names = cx.groups[i:i+1], cx.names[i:i+1]
			if l := sub.subjectLeaf(); l >= 0 && len(v.refs) < cx.c.cfg.EvidenceRefsMax {
				if r := cx.ix.ref(l); !slices.Contains(v.refs, r) {
					v.refs = append(v.refs, r)
				}
			}
		}
	}
	return v
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
			if want == events.VerdictSupported {
				out.leaves = append(out.leaves, f.leaves...)
			}
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
	add(cx.trend())
	add(cx.textPolarity(fs))
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
		for _, l := range f.leaves {
			if cx.ix.leaves[l].hedge || cx.ix.textHedged(l) {
				fs[i] = fact{verdict: events.VerdictUnsupported, refs: f.refs, reason: "the evidence gives an estimate; the claim promises it"}
				break
			}
		}
	}
	return fs
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
		// A flag named by the status ("delivered": false) decides it.
		if f, ok := cx.statusFlag(cm, neg); ok {
			out = append(out, f)
			continue
		}
		// The subject's own status fields come before an enclosing one's.
		cands := make([]int32, 0, 4)
		for _, l := range ix.cats {
			if cx.inScope(l) && cx.inSubject(l) {
				cands = append(cands, l)
			}
		}
		if len(cands) == 0 {
			for _, l := range ix.cats {
				if cx.inScope(l) {
					cands = append(cands, l)
				}
			}
		}
		var first int32 = -1
		decided := false
		for _, l := range cands {
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
						c.value == "rain" && e.value == "storm" || c.value == "dry" && (e.value == "clear" || e.value == "cloudy" || e.value == "fog") {
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

// statusFlag checks a status word against a true/false field named by it
// ("delivered": true, "is_shipped": false, "cancelled": true).
func (cx *claimCtx) statusFlag(cm catMention, neg bool) (fact, bool) {
	ix := cx.ix
	var best int32 = -1
	for _, l := range ix.bools {
		lf := &ix.leaves[l]
		if !cx.inScope(l) {
			continue
		}
		kc := categoriesOf(strings.Join(keyParts(lastToken(lf.ptr)), " "))
		named := false
		for _, c := range cm.cats {
			for _, k := range kc {
				named = named || c.class == k.class && c.value == k.value
			}
		}
		if named && (best < 0 || cx.inSubject(l) && !cx.inSubject(best) || ix.leaves[best].node < lf.node && cx.inSubject(l) == cx.inSubject(best)) {
			best = l
		}
	}
	if best < 0 {
		return fact{}, false
	}
	lf := &ix.leaves[best]
	if (lf.b != lf.negKey) != neg {
		f := supported(ix, "status flag matches", best)
		f.negUsed = true
		return f, true
	}
	return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(best)}, negUsed: true, reason: "status flag says " + lf.raw}, true
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

func lastToken(ptr string) string { return ptr[strings.LastIndexByte(ptr, '/')+1:] }

// sentInfo is one sentence of a text value: its concepts, whether it is
// negated, and which way it says things moved.
type sentInfo struct {
	start, end int
	concepts   []string
	neg        bool
	up, down   bool
}

// sentences splits a long string value into sentences, once per Check.
func (ix *index) sentences(l int32) []sentInfo {
	if s, ok := ix.sents[l]; ok {
		return s
	}
	var out []sentInfo
	var orig string
	_ = json.Unmarshal([]byte(ix.leaves[l].raw), &orig) // sentences need the original case
	r := normalize(orig)
	for _, cl := range SplitClaims(orig) {
		sr := r[cl.Start:cl.End]
		si := sentInfo{start: cl.Start, end: cl.End, concepts: dedupe(textConcepts(sr, tokenize(sr)))}
		negs := 0
		for _, w := range claimWords(sr) {
			c := w.cues()
			if c&cueNeg != 0 && c&cuePlain == 0 || c&cueNegLex != 0 {
				negs++
			}
			si.up = si.up || c&cueUp != 0
			si.down = si.down || c&cueDown != 0
		}
		si.neg = negs%2 == 1
		out = append(out, si)
		if len(out) >= textSentencesMax {
			break
		}
	}
	ix.sents[l] = out
	return out
}

// textSentencesMax bounds the sentences read from one string value.
const textSentencesMax = 64

// textPolarity compares a claim with the sentence of evidence text that
// says most nearly the same thing: when that sentence negates what the
// claim asserts ("did not pay a dividend" against "paid a dividend"), or
// moves the other way ("fell to" against "rose to"), the claim is
// contradicted.
func (cx *claimCtx) textPolarity(fs []fact) fact {
	ix := cx.ix
	claimNeg := cx.negs%2 == 1
	up, down := cx.cues&cueUp != 0, cx.cues&cueDown != 0
	opposite := func(s sentInfo) string {
		switch {
		case s.neg != claimNeg:
			return "the evidence says the opposite"
		case up && !down && s.down && !s.up, down && !up && s.up && !s.down:
			return "the evidence says it moved the other way"
		}
		return ""
	}
	// The field or sentence a number was matched to: "营业收入同比下降 15.2%"
	// against a field named 同比增长; "net debt rose to $1.6 billion"
	// against "fell to $1.1 billion from $1.6 billion".
	for _, f := range fs {
		if f.verdict != events.VerdictSupported || !up && !down {
			continue
		}
		for _, l := range f.leaves {
			lf := &ix.leaves[l]
			if up != down && (up && lf.keyDown && !lf.keyUp || down && lf.keyUp && !lf.keyDown) {
				return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(l)}, reason: "the field says it moved the other way"}
			}
			if !lf.text || lf.src < 0 || len(ix.leaves[lf.src].str) < 40 {
				continue
			}
			for _, s := range ix.sentences(lf.src) {
				if int(lf.textPos) >= s.start && int(lf.textPos) < s.end {
					if why := opposite(s); why != "" && (up || down || overlap(cx.concepts, s.concepts) > 0) {
						return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(lf.src)}, reason: why}
					}
				}
			}
		}
	}
	if len(cx.concepts) < 2 {
		return fact{}
	}
	counts := map[int32]int{}
	var cands []int32
	for _, c := range cx.concepts {
		for _, l := range ix.byValue[c] {
			if len(ix.leaves[l].str) < 40 || !cx.inScope(l) {
				continue
			}
			if counts[l] == 0 {
				cands = append(cands, l)
			}
			counts[l]++
		}
	}
	slices.Sort(cands)
	for _, l := range cands {
		if counts[l] < 2 {
			continue
		}
		best, bestN := -1, 0
		ss := ix.sentences(l)
		for i, s := range ss {
			if n := overlap(cx.concepts, s.concepts); n > bestN {
				best, bestN = i, n
			}
		}
		if best < 0 || bestN < 2 || bestN*2 < len(cx.concepts) {
			continue
		}
		if why := opposite(ss[best]); why != "" {
			return fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.ref(l)}, reason: why}
		}
	}
	return fact{}
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
