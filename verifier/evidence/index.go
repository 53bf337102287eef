package evidence

import (
	"github.com/toolstream/toolstream/internal/lang"

	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ---- evidence index ------------------------------------------------------

// Every JSON value of every result becomes a leaf with its RFC 6901
// pointer, objects and arrays become nodes whose leaves and descendants are
// contiguous ranges (so "is this leaf under that subject" is two
// comparisons), and lookups go through maps keyed by concept, subject token
// and value token, and a sorted slice of numbers. Each result is indexed on
// its own, once (a part, part.go); the index an answer is checked against
// joins the parts of its evidence.

type leafKind uint8

const (
	KindNum leafKind = iota
	KindStr
	KindBool
	kindNull
)

type node struct {
	Ev, Parent     int32
	Ptr            string
	Array          bool
	LeafLo, LeafHi int32 // leaves of the subtree
	nodeHi         int32 // descendants are (id, nodeHi)
	Concepts       []string
	subject        string
	hedge          bool
	ObjKids        int // children that are objects (collections)
	Length         int
}

// Leaf is one value. Its strings, concept lists and categories are
// numbers in its part's tables (t), so that a leaf holds one pointer and
// a part's leaves are cheap to read back and to copy into an answer's
// index; the methods ptr, raw, str, own, ctx, cat and unit read them.
type Leaf struct {
	t         *tables
	Num, Hi   float64 // hi > num for a range written in a string ("3-5 days")
	Ev, Node  int32
	ptrID     uint32 // RFC 6901 pointer
	rawID     uint32 // JSON text of the value
	strID     uint32 // normalised string value
	ownID     uint32 // concepts of the leaf's own key
	ctxID     uint32 // concepts of the enclosing keys and, for numbers in text, nearby words
	catID     uint32
	Src       int32 // for a value found in a string: the string's leaf
	TextPos   int32 // … and where in it (runes)
	Day       int32 // days since 1970-01-01 for dates
	Minute    int16 // minute of day, -1 if none
	Kind      leafKind
	UnitID    uint8 // in unitTable
	Dim       Dimension
	B         bool
	NegKey    bool // the key negates ("out_of_stock", "non_refundable")
	Hedge     bool // an estimate: eta, forecast, expected, 预计
	Text      bool // a number found inside a string value (or a key)
	TextShort bool // … a string that is little more than the number
	KeyUp     bool // the key says the value is a rise (增长, growth)
	KeyDown   bool // … or a fall (下降, decline)
	Scaled    bool // a copy scaled by its key's magnitude (万元, millions)
	SubjKey   bool // the field names its object (name, id, sku)
	HasDay    bool
	// A day that depends on the answer's time is fixed when parts are
	// joined (join): wday is a weekday value's weekday + 1 ({"day": "Mon"}),
	// rel the rel-th date in the text of src (a date without a year).
	wday, rel int8
}

type SubjEntry struct {
	Toks    []string
	Keys    []string // subjectKey of each token
	Node    int32
	alias   bool // a code inside the subject's name
	Partial bool // a distinctive word of the name, valid while unique
	Exact   string
}

type valEntry struct {
	toks []string
	leaf int32
}

// Index is the evidence an answer is checked against (made by join), or
// one part while it is built (indexResult). Both have the nodes, leaves and
// lists; a part being built also has its lookups as maps and its builder's
// caches, an answer's index looks its parts up (lookup.go).
type Index struct {
	Ev     []Evidence
	Nodes  []node
	Leaves []Leaf
	Nums   []int32 // numeric leaves sorted by value
	Dates  []int32
	Bools  []int32
	Cats   []int32
	Colls  []Coll
	roots  []int32
	Arrays []int32
	Clocks []int32 // times of day without a date ("15:00")
	Sents  map[int32][]SentInfo

	// A part being built.
	t         *tables
	byConcept map[string][]int32
	byValue   map[string][]int32 // value-token concept -> string leaves
	subjects  map[string][]SubjEntry
	named     map[string][]SubjEntry // subjects its collections' members are named by (nameMembers)
	values    map[string][]valEntry
	keys      map[string]*keyInfo
	strs      map[string]*strInfo
	texts     map[textKey][]TextItem
	valWords  map[uint32]valueWords // by string number (indexValue)

	// An answer's index.
	parts     []*Part
	leafBase  []int32 // where each part's leaves start
	nodeBase  []int32
	toolNamed map[string][]SubjEntry // subjects the tools' results are named by
	Cache     lookupCache
	Failed    []Evidence           // the calls that failed (outcome.go)
	ids       *[]IdLeaf            // identifier-like leaves (idLeaves), made when first asked
	digitIDs  bool                 // … and whether one is of digits
	textCodes map[string]int32     // codes written in longer strings (codesInText), made when first asked
	keyWords  map[string]keyNamers // the keys naming each list of words (KeysNaming), made when first asked
}

// DedupeEvidence keeps, per CallID, the highest Version (the later entry
// on a tie), in the order the calls first appear.
func DedupeEvidence(in []Evidence) []Evidence {
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

// BuildIndex decodes and indexes the evidence. now resolves dates written
// in evidence text without a year or as weekdays ("on Thursday").
func BuildIndex(evidence []Evidence, now time.Time) *Index {
	evidence = DedupeEvidence(evidence)
	parts := make([]*Part, 0, len(evidence))
	var failed []Evidence
	// The parts are built one after another in one room of leaves (the
	// last index's, released, when it is large enough), and the index is
	// joined in it: no part's leaves are copied.
	size := 0
	for _, e := range evidence {
		if e.Failed == nil {
			size += len(e.Result)/12 + 16
		}
	}
	room := takeLeaves(min(size, 2*LeavesMax))
	for _, e := range evidence {
		if e.Failed != nil {
			failed = append(failed, e)
			continue
		}
		parts = append(parts, indexResult(e, LeavesMax, &room))
	}
	ix, _ := join(parts, now, room) // NB: parts made here re-index from memory without error
	ix.Failed = failed
	return ix
}

// NewIndex returns an empty part to build for a result of size bytes.
func NewIndex(size int) *Index { return newIndexFor(size, 0) }

// newIndexFor is NewIndex for a result of strs string values: the maps
// keyed by what a distinct string says start with room for a share of
// them (a guess: values repeat), so that they do not grow from nothing
// step by step.
func newIndexFor(size, strs int) *Index {
	return &Index{
		t:         newTables(size/24 + 16),
		byConcept: map[string][]int32{},
		byValue:   map[string][]int32{},
		subjects:  make(map[string][]SubjEntry, strs/8),
		named:     map[string][]SubjEntry{},
		values:    map[string][]valEntry{},
		keys:      map[string]*keyInfo{},
		strs:      make(map[string]*strInfo, strs/4),
		Sents:     map[int32][]SentInfo{},
		texts:     make(map[textKey][]TextItem, strs/8),
		valWords:  make(map[uint32]valueWords, strs/4),
	}
}

var ptrEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// ptrUnescaper undoes ptrEscaper (a pointer token back to its key); made
// once: KeyAttrs and StateField ask for every field a claim is read against.
var ptrUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// ptrWriter writes the walk's RFC 6901 pointers one after another into
// one string, each a slice of it: a leaf's pointer is its own, and a
// string of its own for each was an allocation per value. A strings.Builder
// never changes what it has written (growing, it copies), so a pointer
// sliced from it stays as it was.
type ptrWriter struct{ b strings.Builder }

// key returns the pointer of object field k under ptr.
func (pw *ptrWriter) key(ptr, k string) string {
	start := pw.b.Len()
	pw.b.WriteString(ptr)
	pw.b.WriteByte('/')
	if strings.ContainsAny(k, "~/") {
		pw.b.WriteString(ptrEscaper.Replace(k))
	} else {
		pw.b.WriteString(k)
	}
	return pw.b.String()[start:]
}

// jsonText is JsonText(s), a plain string's written into the same string
// as the pointers.
func (pw *ptrWriter) jsonText(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return JsonText(s)
		}
	}
	start := pw.b.Len()
	pw.b.WriteByte('"')
	pw.b.WriteString(s)
	pw.b.WriteByte('"')
	return pw.b.String()[start:]
}

// index returns the pointer of array element i under ptr.
func (pw *ptrWriter) index(ptr string, i int) string {
	start := pw.b.Len()
	pw.b.WriteString(ptr)
	pw.b.WriteByte('/')
	var d [20]byte
	pw.b.Write(strconv.AppendInt(d[:0], int64(i), 10))
	return pw.b.String()[start:]
}

type Walker struct {
	Ix     *Index
	ev     int32
	Now    time.Time
	budget int // leaves at most (see leavesMax)
	// toolParts are the key parts of the tool's name (nameKey asks them
	// of every string field), made when first asked.
	toolParts []string
	toolSplit bool
	nearCtx   map[nearKey]uint32 // contexts of values found in text (setTextCtx)
	cwords    []Cword            // scratch: a value's words (categoriesOf)
	// hedgeParts is whether each key part of ASCII a value had marks an
	// estimate (hedgeValue): parts repeat across values (sku, widget).
	hedgeParts map[string]bool
	inner      map[ctxPair][]string // an object's fields' context (innerCtx)
	// kiStack holds what the keys of the objects being walked say, the
	// innermost last (walk).
	kiStack []*keyInfo
	siStack []*strInfo // … and what their string values say, where asked (objectMeta)
	ptrs    ptrWriter  // the pointers of the walk's values and nodes, and JSON texts
	// siSlab and runeSlab hold the strInfos of the strings walked, and
	// their normalised runes, a slab at a time.
	siSlab   []strInfo
	runeSlab []rune
	strSlab  strSlab // … their token strings and subject keys
}

// strSlab hands out short lists of strings from one array at a time (the
// walk never changes a list once made, nor appends to one).
type strSlab []string

// take returns a list of n empty strings (never nil), capped at n.
func (sl *strSlab) take(n int) []string {
	if n > 64 {
		return make([]string, n)
	}
	if cap(*sl)-len(*sl) < n || *sl == nil {
		*sl = make([]string, 0, 1024) // NB: the full one stays where its lists are
	}
	lo := len(*sl)
	*sl = (*sl)[:lo+n]
	return (*sl)[lo : lo+n : lo+n]
}

// frame is where a value sits: the key it is under (for an array element,
// the array's key), that key's concepts, the enclosing keys' concepts and
// the enclosing object's key.
type frame struct {
	key       string
	ki        *keyInfo // key's, or nil: keyInfo(key)
	si        *strInfo // an object field's string value's, or nil: strInfo(value)
	concepts  []string
	ctx       []string
	parentKey string
	rowKey    string // a table row's label
}

// walk indexes v at ptr and returns its node id (or -1 for a scalar).
func (w *Walker) walk(v any, ptr string, f frame, parent int32) int32 {
	switch t := v.(type) {
	case jsonObject:
		// What the keys say is taken from a stack the walk shares (an
		// object's is dropped once it is walked): it is not kept. The
		// fields are in the order of their keys (decodeJSON sorts them).
		id := w.newNode(ptr, parent, f.concepts, false)
		kis, sis := w.objectMeta(id, t)
		header := tableHeader(t)
		inner := w.innerCtx(f.ctx, f.concepts)
		if ptr == "" {
			inner = f.ctx // a tool's name is too weak a context for its fields
		}
		sib := siblings{obj: t}
		for i, fd := range t {
			k, cv := fd.k, fd.v
			p := w.ptrs.key(ptr, k)
			kf := frame{key: k, ki: kis[i], si: sis[i], concepts: w.conceptsOf(kis[i], f.concepts), ctx: inner, parentKey: f.key}
			if header != nil && isRowsKey(k) {
				w.walkTable(cv, p, kf, id, header)
				continue
			}
			if header != nil && isHeaderKey(k) {
				continue // column names name fields; they are not values
			}
			w.child(cv, p, kf, id, &sib)
		}
		w.closeNode(id)
		w.kiStack = w.kiStack[:len(w.kiStack)-len(kis)]
		// NB: the stack keeps no strInfo alive: its own top is cleared (sis
		// is where it was, which a nested object's append may have moved).
		lo := len(w.siStack) - len(sis)
		clear(w.siStack[lo:])
		w.siStack = w.siStack[:lo]
		return id
	case []any:
		id := w.newNode(ptr, parent, f.concepts, true)
		w.Ix.Nodes[id].Length = len(t)
		if hdr := headerRow(t); hdr != nil {
			w.walkTable(t[1:], ptr, f, id, hdr)
			w.closeNode(id)
			return id
		}
		for i, cv := range t {
			p := w.ptrs.index(ptr, i)
			w.child(cv, p, f, id, nil)
		}
		w.closeNode(id)
		return id
	default:
		w.scalar(v, ptr, f, parent, nil)
		return -1
	}
}

// child indexes one field of an object (its fields sib) or element of an
// array (sib nil).
func (w *Walker) child(cv any, p string, f frame, parent int32, sib *siblings) {
	switch cv.(type) {
	case jsonObject, []any:
		w.walk(cv, p, f, parent)
		if _, ok := cv.(jsonObject); ok {
			w.Ix.Nodes[parent].ObjKids++
		}
	default:
		w.scalar(cv, p, f, parent, sib)
	}
}

// genericKeys name no attribute of their own: {"temperature": {"value": 18}}
// is about temperature.
var genericKeys = LangData.Set("generic keys")

// dimConcepts are the concepts a unit in a key adds, by dimension (a key
// in kg is about weight).
var dimConcepts = func() map[Dimension][]string {
	m := map[Dimension][]string{}
	for _, l := range LangData.Lines("dimension concepts") {
		d, _ := lang.DimensionNamed(l.Name)
		m[d] = append(m[d], l.Words...)
	}
	return m
}()

// keyConcepts returns a key's concepts; a generic key takes its parent's,
// and a unit in the key adds what it measures (price_usd is a price).
func keyConcepts(k string, parent []string) []string {
	if lang.IsAllDigits(k) {
		return []string{k} // a year or period column: "2023"
	}
	c := ConceptsOf(k)
	if genericKeys[strings.ToLower(k)] {
		c = Dedupe(append(append([]string(nil), parent...), c...))
	}
	for _, p := range lang.KeyParts(k) {
		u, ok := keyUnits[p]
		if !ok || u == nil {
			continue
		}
		c = Dedupe(append(c, dimConcepts[u.Dim]...)) // min_days, eta_hours: how long
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

// innerCtx is appendCtx(ctx, more) for the fields of an object, made once
// per pair of lists: the objects of an array share their key's concepts
// and context, so their fields share one context list (and the tables
// number it once, by where it is).
func (w *Walker) innerCtx(ctx, more []string) []string {
	if len(more) == 0 {
		return ctx
	}
	k := ctxPair{listAddr{&more[0], len(more)}, listAddr{nil, len(ctx)}}
	if len(ctx) > 0 {
		k.ctx.p = &ctx[0]
	}
	if l, ok := w.inner[k]; ok {
		return l
	}
	l := appendCtx(ctx, more)
	if w.inner == nil {
		w.inner = map[ctxPair][]string{}
	}
	w.inner[k] = l
	return l
}

// ctxPair is where two lists are in memory: the walk never changes a list
// once made, so the same place is the same list.
type ctxPair struct{ more, ctx listAddr }

func (w *Walker) newNode(ptr string, parent int32, concepts []string, array bool) int32 {
	ix := w.Ix
	id := int32(len(ix.Nodes))
	ix.Nodes = append(ix.Nodes, node{
		Ev: w.ev, Parent: parent, Ptr: ptr, Array: array, Concepts: concepts,
		LeafLo: int32(len(ix.Leaves)),
	})
	if parent >= 0 && ix.Nodes[parent].hedge {
		ix.Nodes[id].hedge = true
	}
	return id
}

func (w *Walker) closeNode(id int32) {
	ix := w.Ix
	ix.Nodes[id].LeafHi = int32(len(ix.Leaves))
	ix.Nodes[id].nodeHi = int32(len(ix.Nodes))
}

// objectMeta records an object's subject (its name, id, title …) and
// whether it describes an estimate, and returns what each of its keys says
// and, for a string value, what strInfo worked out of it if it was asked
// (else nil), on the walk's stacks.
func (w *Walker) objectMeta(id int32, obj jsonObject) ([]*keyInfo, []*strInfo) {
	n := &w.Ix.Nodes[id]
	lo := len(w.kiStack)
	for range obj {
		w.kiStack = append(w.kiStack, nil)
	}
	kis := w.kiStack[lo:len(w.kiStack):len(w.kiStack)]
	for range obj {
		w.siStack = append(w.siStack, nil)
	}
	sis := w.siStack[lo:len(w.siStack):len(w.siStack)]
	for i, fd := range obj {
		k := fd.k
		ki := w.keyInfo(k)
		kis[i] = ki
		if ki.hedge {
			n.hedge = true
		}
		switch v := fd.v.(type) {
		case string:
			var si *strInfo // worked out when first asked, and kept for the field's leaf
			if (ki.subject || w.nameKey(k, ki, v, &si)) && v != "" && len(v) <= 240 && utf8.RuneCountInString(v) <= 80 {
				w.addSubject(id, v, &si)
				if n.subject == "" {
					n.subject = v
				}
			}
			if len(v) < 40 && w.strOf(v, &si).hedge {
				n.hedge = true
			}
			sis[i] = si
		case json.Number:
			if ki.subject && isIDKey(k) {
				w.Ix.addSubject(w.Ix.subjects, id, v.String())
				if n.subject == "" {
					n.subject = v.String()
				}
			}
		}
	}
	return kis, sis
}

// hedgeWords reports a key or short value that marks an estimate
// (estimated_delivery, eta, forecast, 预计).
func hedgeWords(s string) bool {
	for _, p := range lang.KeyParts(s) {
		if l := EnLex[p]; l != nil && l.Cues&cueHedge != 0 {
			return true
		}
		if l := EnLex[lang.Stem(p)]; l != nil && l.Cues&cueHedge != 0 {
			return true
		}
		if lang.IsCJK([]rune(p)[0]) {
			for _, w := range segmentCJKKeep([]rune(p)) {
				if l := ZhLex[w]; l != nil && l.Cues&cueHedge != 0 {
					return true
				}
			}
		}
	}
	return false
}

// hedgeValue is hedgeWords(s) for a short value, without splitting it into
// new strings: a value of ASCII is split into its key parts (as
// lang.KeyParts splits it: lower case, camel case, '%' and '$' alone) in
// a buffer, a part of digits alone is no hedge unless the lexicon has such
// a word (digitHedge; a stem of digits is the digits), and what each other
// part says is looked up once per walk (hedgeParts).
func (w *Walker) hedgeValue(s string) bool {
	var buf [64]byte
	if len(s) > len(buf) {
		return hedgeWords(s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return hedgeWords(s)
		}
	}
	cur := buf[:0]
	for i := 0; i < len(s); i++ {
		c := s[i]
		l := c
		if 'A' <= c && c <= 'Z' {
			l = c + ('a' - 'A')
		}
		switch {
		case l == '%' || l == '$':
			if w.hedgePart(cur) {
				return true
			}
			cur = append(buf[:0], l)
			if w.hedgePart(cur) {
				return true
			}
			cur = buf[:0]
		case 'a' <= l && l <= 'z' || '0' <= l && l <= '9':
			if i > 0 && 'A' <= c && c <= 'Z' && 'a' <= s[i-1] && s[i-1] <= 'z' {
				if w.hedgePart(cur) {
					return true
				}
				cur = buf[:0]
			}
			cur = append(cur, l)
		default:
			if w.hedgePart(cur) {
				return true
			}
			cur = buf[:0]
		}
	}
	return w.hedgePart(cur)
}

// hedgePart reports whether one key part of ASCII marks an estimate, as
// hedgeWords reads a part.
func (w *Walker) hedgePart(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	digits := true
	for _, c := range p {
		if c < '0' || c > '9' {
			digits = false
			break
		}
	}
	if digits && !digitHedge {
		return false
	}
	if h, ok := w.hedgeParts[string(p)]; ok {
		return h
	}
	ps := string(p)
	h := false
	if l := EnLex[ps]; l != nil && l.Cues&cueHedge != 0 {
		h = true
	} else if l := EnLex[lang.Stem(ps)]; l != nil && l.Cues&cueHedge != 0 {
		h = true
	}
	if w.hedgeParts == nil {
		w.hedgeParts = map[string]bool{}
	}
	w.hedgeParts[ps] = h
	return h
}

// digitHedge reports a hedge word of digits alone in the lexicon.
var digitHedge = func() bool {
	for k, l := range EnLex {
		if l != nil && l.Cues&cueHedge != 0 && k != "" && strings.Trim(k, "0123456789") == "" {
			return true
		}
	}
	return false
}()

// subjectKeys name the object they sit in (name, title, id); a key
// ending in one of subjectSuffixes does too (product_name, order_id).
var subjectKeys, subjectSuffixes = LangData.Set("subject keys"), LangData.List("subject key suffixes")

func isSubjectKey(k string) bool {
	l := strings.ToLower(k)
	if subjectKeys[l] {
		return true
	}
	for _, suf := range subjectSuffixes {
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
	return l == "id" || strings.HasSuffix(l, "id") || strings.HasSuffix(l, "_no") || strings.HasSuffix(l, "number") || strings.HasSuffix(l, "号")
}

// nameKey reports a field that names its object by its value rather than
// by its key: a key of one word that is no attribute (no unit, state,
// negation or measured concept, not generic, not a closed category) and
// either names what the tool is about (flight in get_flight_status, hotel
// in hotel_lookup) or means what a subject key means (store and warehouse
// are locations, as city is), holding a short value that is no date or
// category. Nothing here names a domain: the words come from the tool's
// name and the lexicon.
func (w *Walker) nameKey(k string, ki *keyInfo, s string, si **strInfo) bool {
	if !ki.bare || s == "" || utf8.RuneCountInString(s) > 80 {
		return false
	}
	l := strings.ToLower(k)
	if !w.toolSplit {
		w.toolParts, w.toolSplit = lang.KeyParts(w.Ix.Ev[w.ev].Name), true
	}
	if !ki.subjConcept && !slices.Contains(w.toolParts, l) {
		return false
	}
	x := w.strOf(s, si)
	return !x.hasDay && len(x.cat) == 0
}

// subjectKey is the key a subject token is indexed under: Latin words by
// their stem, so "notebooks" finds "Notebook".
func subjectKey(t string) string {
	if t == "" || lang.IsCJK([]rune(t)[0]) || t[0] >= '0' && t[0] <= '9' {
		return t
	}
	// "Microsoft's day high" is about Microsoft.
	if b, ok := strings.CutSuffix(t, "'s"); ok && b != "" {
		t = b
	} else if b, ok := strings.CutSuffix(t, "’s"); ok && b != "" {
		t = b
	}
	return lang.Stem(t)
}

func (w *Walker) addSubject(id int32, v string, si **strInfo) {
	var toks, keys []string
	if len(v) <= 80 { // NB: strInfo keeps what it works out for such a value
		x := w.strOf(v, si)
		toks = x.tokenStrsIn(&w.strSlab)
		if x.subjKeys == nil && len(toks) > 0 {
			x.subjKeys = w.strSlab.take(len(toks))
			for i, t := range toks {
				x.subjKeys[i] = subjectKey(t)
			}
		}
		keys = x.subjKeys
	}
	w.Ix.addSubjectToks(w.Ix.subjects, id, v, toks, keys)
}

// addSubject indexes v as a name of node id in subjects. The entries of
// one name share its tokens and their keys: a code or a distinctive word
// of the name is a slice of them (they are never changed).
func (ix *Index) addSubject(subjects map[string][]SubjEntry, id int32, v string) {
	ix.addSubjectToks(subjects, id, v, nil, nil)
}

// addSubjectToks is addSubject with v's normalised tokens made already
// (toks), or nil to make them, and their subject keys (keys: keysOfTokens
// of toks, made once per distinct name), or nil to make them.
func (ix *Index) addSubjectToks(subjects map[string][]SubjEntry, id int32, v string, toks, keys []string) {
	if toks == nil {
		toks = tokenStrings(lang.Normalize(v))
	}
	if len(toks) == 0 {
		return
	}
	if keys == nil {
		keys = keysOfTokens(toks)
	}
	put := func(k string, se SubjEntry) { subjects[k] = append(subjects[k], se) }
	put(keys[0], SubjEntry{Toks: toks, Keys: keys, Node: id, Exact: v})
	// "Revenue ($M)", "Operating margin (%)": the name without the unit.
	if i := strings.IndexAny(v, "(（["); i > 0 && strings.ContainsAny(v[i:], ")）]") {
		if short := tokenStrings(lang.Normalize(strings.TrimSpace(v[:i]))); len(short) > 0 && len(short) < len(toks) {
			sk := keysOfTokens(short)
			put(sk[0], SubjEntry{Toks: short, Keys: sk, Node: id, Exact: v})
		}
	}
	if r0, _ := utf8.DecodeRuneInString(v); lang.IsCJK(r0) {
		// A Chinese name: its first two or three ideographs (the brand, 蒙牛
		// of 蒙牛纯牛奶) name it too, when no other subject shares them.
		if r := []rune(v); len(r) >= 4 && allCJK(r[:3]) {
			for _, n := range []int{2, 3} {
				p := string(lang.Normalize(string(r[:n])))
				if _, lex := ZhLex[p]; !lex {
					pt := tokenStrings([]rune(p))
					put(toks[0], SubjEntry{Toks: pt, Keys: keysOfTokens(pt), Node: id, alias: true, Partial: true, Exact: v})
				}
			}
		}
		for _, s := range cjkNameSuffixes(r0, v) {
			st := tokenStrings(s)
			sk := keysOfTokens(st)
			put(sk[0], SubjEntry{Toks: st, Keys: sk, Node: id, alias: true, Partial: true, Exact: v})
		}
		return
	}
	if len(toks) < 2 {
		return
	}
	for i, t := range toks {
		one, oneKey := toks[i:i+1:i+1], keys[i:i+1:i+1]
		switch {
		case len(t) >= 3 && strings.ContainsAny(t, "0123456789") && !lang.IsAllDigits(t) || len(t) >= 4 && lang.IsAllDigits(t):
			// A code inside a longer name ("M185", "12345" in "ORD-12345").
			put(t, SubjEntry{Toks: one, Keys: oneKey, Node: id, alias: true, Exact: v})
		case len(t) >= 3 && !startsCJK(t) && EnLex[t] == nil && EnLex[lang.Stem(t)] == nil && !lang.IsAllDigits(t):
			// A distinctive word of the name ("keyboard" of "Mechanical
			// Keyboard"), used when no other subject has it.
			put(keys[i], SubjEntry{Toks: one, Keys: oneKey, Node: id, alias: true, Partial: true, Exact: v})
		}
	}
}

// keysOfTokens returns the subject key of each token.
func keysOfTokens(toks []string) []string {
	keys := make([]string, len(toks))
	for i, t := range toks {
		keys[i] = subjectKey(t)
	}
	return keys
}

// startsCJK reports whether s begins with an ideograph.
func startsCJK(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return lang.IsCJK(r)
}

func allCJK(r []rune) bool {
	for _, c := range r {
		if !lang.IsCJK(c) {
			return false
		}
	}
	return true
}

// nameSet is what pruning a key's subjects asks of the names of its
// partial and alias ones: whether two differ in lower case. Partial names
// of subjects with different names name none of them ("pro" of two
// phones): subjectHitAt drops them.
type nameSet struct {
	first         string
	seen, several bool
	all, whole    int // the entries, and those neither partial nor alias
}

// kept is how many entries stay: all, or the whole ones when several.
func (ns *nameSet) kept() int {
	if ns.several {
		return ns.whole
	}
	return ns.all
}

// add adds a partial or alias subject's name.
func (ns *nameSet) add(exact string) {
	switch {
	case ns.several:
	case !ns.seen:
		ns.first, ns.seen = exact, true
	case !SameLower(exact, ns.first):
		ns.several = true
	}
}

// addAll adds es's entries and the names of its partial and alias ones.
func (ns *nameSet) addAll(es []SubjEntry) {
	for _, e := range es {
		ns.addEntry(e.Partial || e.alias, e.Exact)
	}
}

// addEntry adds an entry, and its name if it is partial or an alias.
func (ns *nameSet) addEntry(partial bool, exact string) {
	ns.all++
	if partial {
		ns.add(exact)
	} else {
		ns.whole++
	}
}

// merge adds the entries and names of another set.
func (ns *nameSet) merge(o nameSet) {
	if o.several {
		ns.several = true
	}
	if o.seen {
		ns.add(o.first)
	}
	ns.all += o.all
	ns.whole += o.whole
}

// SameLower reports whether strings.ToLower(a) == strings.ToLower(b)
// without making either: rune by rune, as ToLower maps them.
func SameLower(a, b string) bool {
	if a == b {
		return true
	}
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb && unicode.ToLower(ra) != unicode.ToLower(rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return a == b
}

func tokenStrings(r []rune) []string { return tokStrings(Tokenize(r)) }

// tokStrings returns the strings of tokens ts (never nil).
func tokStrings(ts []Token) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.S
	}
	return out
}

// cjkNameSuffixes returns the shorter form of a Chinese name v (r0 its
// first rune) said without its first two ideographs, a place or an owner
// (天一阁 of 宁波天一阁, named without its city): three or more ideographs,
// not a word of the lexicon, when the two cut hold no numeral (二号冷库 is
// not 一号冷库). It names v only where nothing else shares it (a subject's
// partial name, a value's tokens). Only the two: a subject's partial names
// are kept by their first ideograph, and a shorter cut sharing another
// name's would drop both (光伏公司 of 西安光伏公司 beside 光伏组件's 光伏).
func cjkNameSuffixes(r0 rune, v string) [][]rune {
	if !lang.IsCJK(r0) {
		return nil
	}
	r := []rune(v)
	const cut = 2
	if len(r) < cut+3 || !allCJK(r) || hasNumeral(r[:cut]) {
		return nil
	}
	s := lang.Normalize(string(r[cut:]))
	if _, lex := ZhLex[string(s)]; lex {
		return nil
	}
	return [][]rune{s}
}

// hasNumeral reports whether r holds a Chinese numeral (一, 二, 十 …).
func hasNumeral(r []rune) bool {
	for _, c := range r {
		if LangData.IsZhNumeral(c) {
			return true
		}
	}
	return false
}
