package evidence

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// A part is kept in the projection's view as bytes (marshalPart) and read
// back for every answer it is evidence for (unmarshalPart), so reading one
// must cost much less than decoding the result's JSON. The format is flat
// varints: the part's tables (its strings one blob and their ends), its
// nodes and leaves (a leaf refers to the tables by number), and its
// lookups as sections of sorted keys whose entries are read only when a
// claim looks a key up. Reading a part back reads its tables and the keys
// of its sections; its nodes and leaves are read by join straight into the
// answer's index. What the leaves and nodes determine (the leaves by kind,
// the collections) is derived again, not stored; what costs a walk of the
// JSON (concepts, subjects, values, the numbers and dates found in text,
// the sorted numbers) is stored.
//
// The encoding is deterministic: the same part gives the same bytes (the
// tables in the order the walk numbered them, sections in key order), so
// the view's digest does not depend on when or how often a part was made.

// PartFormat is the version of the encoding; a part of another version is
// not read (errPartFormat) and the result is indexed again. A part also
// stores the lexicon's words as read (concepts, category classes) and what
// the language data made of the result, so its bytes begin with a stamp:
// PartFormat, then the first partDataBytes of the language data's digest
// (lang.Data.Digest). A change to internal/lang's data changes the stamp
// by itself, and parts made with the old data are indexed again; only a
// change to this encoding raises PartFormat (5: the stamp).
const PartFormat = 5

// partDataBytes is how much of the language data's digest a part's stamp
// holds: a chance of 2^-64 that other data reads as the same.
const partDataBytes = 8

// partStamp is what every part's bytes begin with.
var partStamp = func() []byte {
	d := LangData.Digest()
	return append([]byte{PartFormat}, d[:partDataBytes]...)
}()

// PartStamp returns the bytes every encoded part begins with: PartFormat
// and the language data's digest (a copy).
func PartStamp() []byte { return slices.Clone(partStamp) }

var ErrPartFormat = errors.New("verifier: evidence index of another format")

// Flags of a leaf.
const (
	lfBool = 1 << iota
	lfNegKey
	lfHedge
	lfText
	lfTextShort
	lfKeyUp
	lfKeyDown
	lfScaled
	lfSubjKey
	lfHasDay
	lfIntNum // num is an integer written as a varint
	lfRange  // hi differs from num
	lfSrc    // src and textPos follow
)

// partWriter encodes one part: the strings and lists of its tables keep
// their numbers, and those only its nodes and lookups use are numbered
// after them.
type partWriter struct {
	b    []byte
	t    *tables // what is written: the part's tables, then the rest
	cats [][]CatValue
}

func (w *partWriter) uv(x uint64)            { w.b = binary.AppendUvarint(w.b, x) }
func (w *partWriter) v(x int64)              { w.b = binary.AppendVarint(w.b, x) }
func (w *partWriter) str(s string) uint64    { return uint64(w.t.intern(s)) }
func (w *partWriter) list(l []string) uint64 { return uint64(w.t.list(l)) }

// MarshalPart encodes a part. A part read back gives the bytes it was
// read from.
func MarshalPart(p *Part) ([]byte, error) {
	if p.enc != nil {
		return slices.Clone(p.enc.data), nil
	}
	t := newTables(0)
	if p.ix != nil {
		t = p.ix.t
	}
	// NB: a part's strings and lists are distinct, so they keep their
	// numbers.
	w := &partWriter{t: newTables(t.nstrs()), cats: t.cats}
	for i := range t.nstrs() {
		w.str(t.at(uint32(i)))
	}
	for _, l := range t.lists {
		w.list(l)
	}
	body, err := w.body(p)
	if err != nil {
		return nil, err
	}
	// The tables go first; body used their numbers.
	strs, lists := w.t.strs, w.t.lists
	w.b = slices.Clone(partStamp)
	w.uv(uint64(len(strs)))
	n := 0
	for _, s := range strs {
		n += len(s)
	}
	w.uv(uint64(n))
	for _, s := range strs {
		w.uv(uint64(len(s)))
	}
	for _, s := range strs {
		w.b = append(w.b, s...)
	}
	w.uv(uint64(len(lists)))
	for _, l := range lists {
		w.uv(uint64(len(l)))
		for _, s := range l {
			w.uv(uint64(w.t.strIDs[s]))
		}
	}
	w.uv(uint64(len(w.cats)))
	for _, cs := range w.cats {
		w.uv(uint64(len(cs)))
		for _, c := range cs {
			w.uv(uint64(w.t.strIDs[c.Class]))
			w.uv(uint64(w.t.strIDs[c.Value]))
			w.v(int64(c.rank))
			if c.Neg {
				w.uv(1)
			} else {
				w.uv(0)
			}
		}
	}
	return append(w.b, body...), nil
}

// body encodes everything but the tables, numbering new strings and lists
// (their own strings too) as it goes.
func (w *partWriter) body(p *Part) ([]byte, error) {
	for _, cs := range w.cats {
		for _, c := range cs {
			w.str(c.Class)
			w.str(c.Value)
		}
	}
	w.uv(w.str(p.Ev.CallID))
	w.uv(w.str(p.Ev.Name))
	w.v(int64(p.Ev.Version))
	w.uv(uint64(p.budget))
	if p.bad {
		w.uv(1)
		return w.finishBody(), nil
	}
	w.uv(0)
	ix := p.ix
	w.uv(uint64(len(ix.Nodes)))
	w.uv(uint64(len(ix.Leaves)))
	head := w.b
	w.b = nil
	for i := range ix.Nodes {
		nd := &ix.Nodes[i]
		w.v(int64(nd.Parent))
		w.uv(w.str(nd.Ptr))
		w.uv(flagBits(nd.Array, nd.hedge))
		w.uv(uint64(nd.LeafLo))
		w.uv(uint64(nd.LeafHi - nd.LeafLo))
		w.uv(uint64(nd.nodeHi - int32(i)))
		w.uv(w.list(nd.Concepts))
		w.uv(w.str(nd.subject))
		w.uv(uint64(nd.ObjKids))
		w.uv(uint64(nd.Length))
	}
	nodes := w.b
	w.b = nil
	for i := range ix.Leaves {
		w.leaf(&ix.Leaves[i])
	}
	leaves := w.b
	w.b = binary.AppendUvarint(head, uint64(len(nodes)))
	w.b = append(w.b, nodes...)
	w.uv(uint64(len(leaves)))
	w.b = append(w.b, leaves...)
	w.v(int64(ix.roots[0]))
	w.uv(uint64(len(ix.Nums)))
	for _, l := range ix.Nums {
		w.uv(uint64(l))
	}
	if p.sec != nil {
		// Read back: the entries use the same numbers.
		for _, s := range []*section{&p.sec.byConcept, &p.sec.byValue, &p.sec.subjects, &p.sec.named, &p.sec.values, &p.sec.keys} {
			w.section(s.keys, func(k string) { b, _ := s.find(k); w.b = append(w.b, b...) })
		}
	} else {
		w.section(sortedKeys(ix.byConcept), func(k string) { w.postings(ix.byConcept[k]) })
		w.section(sortedKeys(ix.byValue), func(k string) { w.postings(ix.byValue[k]) })
		w.section(sortedKeys(ix.subjects), func(k string) { w.subjects(ix.subjects[k]) })
		w.section(sortedKeys(ix.named), func(k string) { w.subjects(ix.named[k]) })
		w.section(sortedKeys(ix.values), func(k string) {
			vs := ix.values[k]
			w.uv(uint64(len(vs)))
			for _, ve := range vs {
				w.uv(w.list(ve.toks))
				w.uv(uint64(ve.leaf))
			}
		})
		w.section(sortedKeys(ix.keys), func(string) {})
	}
	for _, l := range w.t.lists {
		for _, s := range l {
			w.str(s)
		}
	}
	return w.finishBody(), nil
}

func (w *partWriter) finishBody() []byte {
	b := w.b
	w.b = nil
	return b
}

func (w *partWriter) leaf(lf *Leaf) {
	w.v(int64(lf.Node))
	w.uv(uint64(lf.ptrID))
	w.uv(uint64(lf.rawID))
	w.b = append(w.b, byte(lf.Kind), byte(lf.Dim), lf.UnitID, byte(lf.wday), byte(lf.rel))
	// In the order of the lf constants.
	flags := flagBits(lf.B, lf.NegKey, lf.Hedge, lf.Text, lf.TextShort, lf.KeyUp, lf.KeyDown, lf.Scaled, lf.SubjKey, lf.HasDay)
	intNum := lf.Num == math.Trunc(lf.Num) && math.Abs(lf.Num) < 1<<53 && !(lf.Num == 0 && math.Signbit(lf.Num))
	if intNum {
		flags |= lfIntNum
	}
	if lf.Hi != lf.Num {
		flags |= lfRange
	}
	if lf.Src >= 0 {
		flags |= lfSrc
	}
	w.uv(flags)
	if intNum {
		w.v(int64(lf.Num))
	} else {
		w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(lf.Num))
	}
	if lf.Hi != lf.Num {
		w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(lf.Hi))
	}
	w.uv(uint64(lf.strID))
	w.uv(uint64(lf.ownID))
	w.uv(uint64(lf.ctxID))
	w.uv(uint64(lf.catID))
	if lf.Src >= 0 {
		w.uv(uint64(lf.Src))
		w.uv(uint64(lf.TextPos))
	}
	if lf.HasDay {
		w.v(int64(lf.Day))
	}
	w.v(int64(lf.Minute))
}

// flagBits returns bit i set for each on[i] that holds.
func flagBits(on ...bool) uint64 {
	var b uint64
	for i, o := range on {
		if o {
			b |= 1 << i
		}
	}
	return b
}

// section writes sorted keys, each with the length of its entry, then the
// entries (entry writes one), so that a reader finds a key's entry
// without reading the others.
func (w *partWriter) section(keys []string, entry func(k string)) {
	body := w.b
	var entries [][]byte
	for _, k := range keys {
		w.b = nil
		entry(k)
		entries = append(entries, w.b)
	}
	w.b = body
	w.uv(uint64(len(keys)))
	for i, k := range keys {
		w.uv(w.str(k))
		w.uv(uint64(len(entries[i])))
	}
	for _, e := range entries {
		w.b = append(w.b, e...)
	}
}

// postings writes an ascending list of leaves, the gaps as varints.
func (w *partWriter) postings(ls []int32) {
	w.uv(uint64(len(ls)))
	prev := int32(0)
	for _, l := range ls {
		w.uv(uint64(l - prev))
		prev = l
	}
}

func (w *partWriter) subjects(es []SubjEntry) {
	w.uv(uint64(len(es)))
	for _, e := range es {
		w.uv(w.list(e.Toks))
		w.uv(w.list(e.Keys))
		w.uv(uint64(e.Node))
		w.uv(flagBits(e.alias, e.Partial))
		w.uv(w.str(e.Exact))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// partReader reads an encoded part; the first error sticks. It reads b
// from i on (a position, not a shrinking slice: a part is read a number at
// a time, and each number is then a load and an increment).
type partReader struct {
	b   []byte
	i   int
	bad bool // a varint could not be read (failed makes it err)
	err error
	t   *tables
}

// reset makes r read b from its start.
func (r *partReader) reset(b []byte) { r.b, r.i = b, 0 }

// left is how many bytes are still to read.
func (r *partReader) left() int { return len(r.b) - r.i }

func (r *partReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("verifier: corrupt evidence index: %s", what)
	}
	r.i = len(r.b)
}

// uv reads an unsigned varint as binary.Uvarint does (one that does not
// end or overflows sets bad). NB: it stays small enough to be inlined: a
// part is read a number at a time.
func (r *partReader) uv() uint64 {
	var x uint64
	b := r.b
	for s, i := uint(0), r.i; i < len(b); s, i = s+7, i+1 {
		c := b[i]
		x |= uint64(c&0x7f) << s
		if c < 0x80 {
			if s > 63 || s == 63 && c > 1 {
				break
			}
			r.i = i + 1
			return x
		}
	}
	r.bad = true
	return 0
}

// failed returns the first error met reading, nil if none.
func (r *partReader) failed() error {
	if r.bad && r.err == nil {
		r.fail("varint")
	}
	return r.err
}

func (r *partReader) v() int64 {
	ux := r.uv()
	return int64(ux>>1) ^ -int64(ux&1) // zig-zag, as binary.Varint
}

// n reads a count that cannot exceed the bytes left (every counted item
// takes at least one byte).
func (r *partReader) n() int {
	x := r.uv()
	if x > uint64(r.left()) {
		r.fail("count")
		return 0
	}
	return int(x)
}

func (r *partReader) bytes(n int) []byte {
	if n > r.left() {
		r.fail("short")
		return nil
	}
	b := r.b[r.i : r.i+n]
	r.i += n
	return b
}

func (r *partReader) f64() float64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// below reads a number below n.
func (r *partReader) below(n int) uint32 {
	x := r.uv()
	if x >= uint64(n) {
		return r.outOfRange()
	}
	return uint32(x)
}

func (r *partReader) outOfRange() uint32 {
	r.fail("number out of range")
	return 0
}

func (r *partReader) str() string    { return r.t.at(r.below(r.t.nstrs())) }
func (r *partReader) list() []string { return r.t.lists[r.below(len(r.t.lists))] }

// encoded is a part read back: the bytes of its nodes and leaves, which
// join reads into an answer's index.
type encoded struct {
	data          []byte // all of it
	nodes, leaves []byte
	nn, nl        int
}

// UnmarshalPart reads a part made by marshalPart: its tables, its numbers
// and the keys of its sections; result returns the result's JSON should
// the part need indexing again (see join). It returns errPartFormat for
// another version of the format. The part keeps slices of data.
func UnmarshalPart(data []byte, result func() ([]byte, error)) (*Part, error) {
	if !bytes.HasPrefix(data, partStamp) {
		return nil, ErrPartFormat
	}
	r := &partReader{b: data[len(partStamp):], t: &tables{}}
	t := r.t
	t.offs = make([]uint32, r.n()+1)
	size := r.n()
	for i := 1; i < len(t.offs); i++ {
		t.offs[i] = t.offs[i-1] + uint32(r.n())
	}
	if r.failed() != nil || int(t.offs[len(t.offs)-1]) != size || len(t.offs) < 2 {
		return nil, errors.Join(r.failed(), errors.New("verifier: corrupt evidence index: string table"))
	}
	t.blob = string(r.bytes(size)) // every string of the part is a slice of this one
	// The lists are slices of one array of their strings: counted first.
	t.lists = make([][]string, r.n())
	from, total := r.i, 0
	for range t.lists {
		n := r.n()
		for range n {
			r.uv()
		}
		total += n
	}
	if r.failed() != nil { // NB: read whole, total is at most the bytes read
		return nil, r.failed()
	}
	r.i = from
	all := make([]string, 0, total)
	for i := range t.lists {
		start := len(all)
		for range r.n() {
			all = append(all, r.str())
		}
		if len(all) > start {
			t.lists[i] = all[start:len(all):len(all)]
		}
	}
	t.cats = make([][]CatValue, r.n())
	for i := range t.cats {
		if n := r.n(); n > 0 {
			cs := make([]CatValue, n)
			for k := range cs {
				cs[k] = CatValue{Class: r.str(), Value: r.str(), rank: int(r.v()), Neg: r.uv() == 1}
			}
			t.cats[i] = cs
		}
	}
	if r.failed() != nil || len(t.lists) == 0 || len(t.cats) == 0 {
		return nil, errors.Join(r.failed(), errors.New("verifier: corrupt evidence index: tables"))
	}
	p := &Part{Result: result}
	p.Ev = Evidence{CallID: r.str(), Name: r.str(), Version: int(r.v())}
	p.budget = int(r.uv())
	if r.uv() == 1 {
		p.bad = true
		p.enc = &encoded{data: data}
		return p, r.failed()
	}
	e := &encoded{data: data, nn: r.n(), nl: r.n()}
	e.nodes = r.bytes(r.n())
	e.leaves = r.bytes(r.n())
	p.root = int32(r.v())
	if p.root < -1 || p.root >= int32(e.nn) {
		r.fail("root")
	}
	p.nums = make([]int32, r.n())
	for i := range p.nums {
		p.nums[i] = int32(r.below(e.nl))
	}
	sec := &sections{t: t, leaves: e.nl, nodes: e.nn}
	for _, s := range []*section{&sec.byConcept, &sec.byValue, &sec.subjects, &sec.named, &sec.values, &sec.keys} {
		r.section(s)
	}
	if r.failed() == nil && r.left() != 0 {
		r.fail("trailing bytes")
	}
	if r.failed() != nil {
		return nil, r.failed()
	}
	p.enc, p.sec, p.t = e, sec, t
	return p, nil
}

// readInto appends the part's nodes and leaves to ix with their own ids.
func (e *encoded) readInto(ix *Index, t *tables) error {
	r := &partReader{b: e.nodes, t: t}
	nn := e.nn
	for i := range nn {
		var nd node
		nd.Parent = int32(r.v())
		nd.Ptr = r.str()
		flags := r.uv()
		nd.Array, nd.hedge = flags&1 != 0, flags&2 != 0
		nd.LeafLo = int32(r.uv())
		nd.LeafHi = nd.LeafLo + int32(r.uv())
		nd.nodeHi = int32(i) + int32(r.uv())
		nd.Concepts = r.list()
		nd.subject = r.str()
		nd.ObjKids = int(r.uv())
		nd.Length = int(r.uv())
		if nd.Parent < -1 || nd.Parent >= int32(i) || nd.nodeHi <= int32(i) || nd.nodeHi > int32(nn) ||
			nd.LeafLo < 0 || nd.LeafHi < nd.LeafLo || nd.LeafHi > int32(e.nl) {
			r.fail("node")
		}
		ix.Nodes = append(ix.Nodes, nd)
	}
	if r.failed() == nil && r.left() != 0 {
		r.fail("node bytes")
	}
	if r.failed() != nil {
		return r.failed()
	}
	r.reset(e.leaves)
	at := len(ix.Leaves)
	ix.Leaves = slices.Grow(ix.Leaves, e.nl)[:at+e.nl]
	for i := range e.nl {
		r.leaf(&ix.Leaves[at+i], nn, i)
	}
	if r.failed() == nil && r.left() != 0 {
		r.fail("leaf bytes")
	}
	return r.failed()
}

func (r *partReader) leaf(lf *Leaf, nn, i int) {
	lf.t = r.t
	lf.Node = int32(r.v())
	lf.ptrID = r.below(r.t.nstrs())
	lf.rawID = r.below(r.t.nstrs())
	b := r.bytes(5)
	if b == nil {
		return
	}
	lf.Kind, lf.Dim, lf.UnitID, lf.wday, lf.rel = leafKind(b[0]), Dimension(b[1]), b[2], int8(b[3]), int8(b[4])
	flags := r.uv()
	lf.B = flags&lfBool != 0
	lf.NegKey = flags&lfNegKey != 0
	lf.Hedge = flags&lfHedge != 0
	lf.Text = flags&lfText != 0
	lf.TextShort = flags&lfTextShort != 0
	lf.KeyUp = flags&lfKeyUp != 0
	lf.KeyDown = flags&lfKeyDown != 0
	lf.Scaled = flags&lfScaled != 0
	lf.SubjKey = flags&lfSubjKey != 0
	lf.HasDay = flags&lfHasDay != 0
	if flags&lfIntNum != 0 {
		lf.Num = float64(r.v())
	} else {
		lf.Num = r.f64()
	}
	lf.Hi = lf.Num
	if flags&lfRange != 0 {
		lf.Hi = r.f64()
	}
	lf.strID = r.below(r.t.nstrs())
	lf.ownID = r.below(len(r.t.lists))
	lf.ctxID = r.below(len(r.t.lists))
	lf.catID = r.below(len(r.t.cats))
	lf.Src = -1
	if flags&lfSrc != 0 {
		lf.Src = int32(r.below(i))
		lf.TextPos = int32(r.uv())
	}
	if lf.HasDay {
		lf.Day = int32(r.v())
	}
	lf.Minute = int16(r.v())
	if lf.Node < -1 || lf.Node >= int32(nn) || int(lf.UnitID) >= len(UnitTable) || lf.Kind > kindNull ||
		lf.wday < 0 || lf.wday > 7 || lf.rel < 0 || lf.rel > 0 && lf.Src < 0 {
		r.fail("leaf")
	}
}

// section reads a section's keys and where each entry starts.
func (r *partReader) section(s *section) {
	n := r.n()
	s.keys = make([]string, n)
	s.offs = make([]int32, n+1)
	size := 0
	for i := range n {
		s.keys[i] = r.str()
		size += r.n()
		s.offs[i+1] = int32(size)
		if i > 0 && s.keys[i] <= s.keys[i-1] {
			r.fail("section keys")
		}
	}
	s.data = r.bytes(size)
}

// sections are a part's lookups read back: each a sorted list of keys,
// whose entries are read when looked up.
type sections struct {
	t                                                 *tables
	leaves, nodes                                     int // what ids must be below
	byConcept, byValue, subjects, named, values, keys section
}

type section struct {
	keys []string
	offs []int32 // entry i is data[offs[i]:offs[i+1]]
	data []byte
}

func (s *section) find(k string) ([]byte, bool) {
	i := sort.SearchStrings(s.keys, k)
	if i == len(s.keys) || s.keys[i] != k {
		return nil, false
	}
	return s.data[s.offs[i]:s.offs[i+1]], true
}

// postings reads a key's leaves; a damaged entry reads as none.
func (sec *sections) postings(s *section, k string) []int32 {
	b, ok := s.find(k)
	if !ok {
		return nil
	}
	r := &partReader{b: b, t: sec.t}
	ls := make([]int32, r.n())
	prev := uint64(0)
	for i := range ls {
		prev += r.uv()
		if prev >= uint64(sec.leaves) {
			r.fail("posting")
		}
		ls[i] = int32(prev)
	}
	if r.failed() != nil {
		return nil
	}
	return ls
}

func (sec *sections) subjectSection(named bool) *section {
	if named {
		return &sec.named
	}
	return &sec.subjects
}

// subjectEntry reads one subject entry.
func (r *partReader) subjectEntry(e *SubjEntry, nodes int) {
	e.Toks, e.Keys = r.list(), r.list()
	e.Node = int32(r.below(nodes))
	flags := r.uv()
	e.alias, e.Partial = flags&1 != 0, flags&2 != 0
	e.Exact = r.str()
	if len(e.Toks) == 0 || len(e.Keys) != len(e.Toks) {
		r.fail("subject")
	}
}

// subjectNames adds the names of key k's partial and alias subjects to
// names (none when an entry is damaged) and reports whether k is a key.
func (sec *sections) subjectNames(s *section, k string, names *nameSet) bool {
	b, ok := s.find(k)
	if !ok {
		return false
	}
	r := &partReader{b: b, t: sec.t}
	var mine nameSet
	for range r.n() {
		var e SubjEntry
		r.subjectEntry(&e, sec.nodes)
		mine.addEntry(e.Partial || e.alias, e.Exact)
	}
	if r.failed() == nil {
		names.merge(mine)
	}
	return true
}

// appendSubjectEntries appends key k's subjects to es, their nodes plus
// base, all but the partial and alias ones when dropPartial; a damaged
// entry appends none.
func (sec *sections) appendSubjectEntries(es []SubjEntry, s *section, k string, dropPartial bool, base int32) []SubjEntry {
	b, ok := s.find(k)
	if !ok {
		return es
	}
	r := &partReader{b: b, t: sec.t}
	start := len(es)
	for range r.n() {
		var e SubjEntry
		r.subjectEntry(&e, sec.nodes)
		if !dropPartial || !e.Partial && !e.alias {
			e.Node += base
			es = append(es, e)
		}
	}
	if r.failed() != nil {
		clear(es[start:])
		return es[:start]
	}
	return es
}

func (sec *sections) valueEntries(k string) ([]valEntry, bool) {
	b, ok := sec.values.find(k)
	if !ok {
		return nil, false
	}
	r := &partReader{b: b, t: sec.t}
	vs := make([]valEntry, r.n())
	for i := range vs {
		vs[i] = valEntry{toks: r.list(), leaf: int32(r.below(sec.leaves))}
		if len(vs[i].toks) == 0 {
			r.fail("value")
		}
	}
	if r.failed() != nil {
		return nil, true
	}
	return vs, true
}

func (sec *sections) hasKey(k string) bool {
	_, ok := sec.keys.find(k)
	return ok
}

// UnitTable numbers every unit an evidence value may be in: nil first,
// then the named units, then those of the unit words, signs and key words
// in sorted order. NB: a change to the table changes partFormat.
var UnitTable, unitIDs = makeUnitTable()

func makeUnitTable() ([]*Unit, map[*Unit]uint8) {
	table := []*Unit{nil, uCount, UPercent, UFrac, UDay, uDegree, uZhe, moneyUnit, UUSD, UDollar, UCNY, UYen, UJPY, UEUR, uGBP}
	for _, d := range []Dimension{DimMass, DimLength, DimTime, DimTemp, dimVolume, dimSpeed, dimData, dimEnergy, dimPower, DimPercent} {
		table = append(table, CanonicalUnits[d]...)
	}
	for _, m := range []map[string]*Unit{UnitWords, unitPrefix, keyUnits} {
		for _, k := range sortedKeys(m) {
			table = append(table, m[k])
		}
	}
	ids := map[*Unit]uint8{}
	var out []*Unit
	for _, u := range table {
		if _, ok := ids[u]; !ok {
			ids[u] = uint8(len(out))
			out = append(out, u)
		}
	}
	if len(out) > 255 {
		panic("verifier: more than 255 units")
	}
	return out, ids
}
