package evidence

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// tables hold the strings, concept lists and category lists of one part's
// leaves, each numbered once: a leaf refers to them by number.
type tables struct {
	strs  []string // a part built; read back, they are blob[offs[i]:offs[i+1]]
	blob  string
	offs  []uint32
	lists [][]string   // 0 is the empty list
	cats  [][]CatValue // 0 is no category
	// While a part is built: the number of each string and list, and of
	// each list by where it is in memory (the walk passes the same slice
	// for every field under one key).
	strIDs map[string]uint32
	// Pointers are numbered apart (internPtr): every value's pointer is
	// its own, so only a string value written like a pointer may be one.
	// ptrIDs are their numbers until such a value comes (slashed), and
	// ptrs then maps them.
	ptrIDs  []uint32
	ptrs    map[string]uint32
	slashed bool // strIDs holds a string starting with "/"
	listIDs map[string]uint32
	listAt  map[listAddr]uint32
	// lastCtx is the context list a leaf last took (setCtx) and its
	// number: the fields of an object share one.
	lastCtx   listAddr
	lastCtxID uint32
	catIDs    map[string]uint32
}

type listAddr struct {
	p *string
	n int
}

// newTables returns tables where number 0 is "", the empty list and no
// category: what a zero leaf holds.
func newTables(size int) *tables {
	t := &tables{strs: make([]string, 1, max(size, 1)), lists: [][]string{nil}, cats: [][]CatValue{nil},
		strIDs: make(map[string]uint32, size), listIDs: map[string]uint32{tableKey(): 0}, listAt: map[listAddr]uint32{},
		catIDs: map[string]uint32{tableKey(): 0}}
	t.strIDs[""] = 0
	return t
}

// at returns string number id.
func (t *tables) at(id uint32) string {
	if t.offs != nil {
		return t.blob[t.offs[id]:t.offs[id+1]]
	}
	return t.strs[id]
}

// nstrs is how many strings there are.
func (t *tables) nstrs() int {
	if t.offs != nil {
		return len(t.offs) - 1
	}
	return len(t.strs)
}

// intern returns the number of s, numbering it if new.
func (t *tables) intern(s string) uint32 {
	if len(s) > 0 && s[0] == '/' && t.strIDs != nil {
		// NB: it may be a pointer numbered by internPtr.
		if t.ptrs == nil {
			t.ptrs = make(map[string]uint32, len(t.ptrIDs))
			for _, id := range t.ptrIDs {
				t.ptrs[t.strs[id]] = id
			}
			t.ptrIDs = nil
		}
		if id, ok := t.ptrs[s]; ok {
			return id
		}
		t.slashed = true
	}
	return numbered(t.strIDs, s, &t.strs, s)
}

// internPtr returns the number of a leaf's pointer, numbering it if new,
// as intern does: the walk gives every leaf a pointer no other leaf has,
// so a pointer is looked up only among the strings that could be one
// (those starting with "/"), and only once there are any.
func (t *tables) internPtr(s string) uint32 {
	if s == "" {
		return 0
	}
	if t.slashed {
		if id, ok := t.strIDs[s]; ok {
			return id
		}
	}
	id := uint32(len(t.strs))
	t.strs = append(t.strs, s)
	if t.ptrs != nil {
		t.ptrs[s] = id
	} else {
		t.ptrIDs = append(t.ptrIDs, id)
	}
	return id
}

// numbered returns the number of key k in ids, numbering v, at the end of
// items, if k is new.
func numbered[T any](ids map[string]uint32, k string, items *[]T, v T) uint32 {
	id, ok := ids[k]
	if !ok {
		id = uint32(len(*items))
		ids[k] = id
		*items = append(*items, v)
	}
	return id
}

// list returns the number of concept list l.
func (t *tables) list(l []string) uint32 {
	if len(l) == 0 {
		return 0
	}
	// NB: the walk never changes a list once made, so a list at the same
	// place is the same list.
	at := listAddr{&l[0], len(l)}
	if id, ok := t.listAt[at]; ok {
		return id
	}
	var buf [256]byte
	id := numberedKey(t.listIDs, appendTableKey(buf[:0], l...), &t.lists, l)
	t.listAt[at] = id
	return id
}

// ctxList is list for a leaf's context, remembering the last one.
func (t *tables) ctxList(l []string) uint32 {
	if len(l) == 0 {
		return 0
	}
	if at := (listAddr{&l[0], len(l)}); at == t.lastCtx {
		return t.lastCtxID
	}
	id := t.list(l)
	t.lastCtx, t.lastCtxID = listAddr{&l[0], len(l)}, id
	return id
}

// catList returns the number of category list cs.
func (t *tables) catList(cs []CatValue) uint32 {
	var buf [256]byte
	k := buf[:0]
	for _, c := range cs {
		k = appendTableKey(k, c.Class, c.Value)
		// The rank and negation as fmt.Sprint(c.rank, c.Neg) writes them.
		var rn [24]byte
		k = appendTableKey(k, string(strconv.AppendBool(append(strconv.AppendInt(rn[:0], int64(c.rank), 10), ' '), c.Neg)))
	}
	return numberedKey(t.catIDs, k, &t.cats, cs)
}

// numberedKey is numbered with the key written in k: a string of it is
// made only when the key is new (a lookup by string(k) makes none).
func numberedKey[T any](ids map[string]uint32, k []byte, items *[]T, v T) uint32 {
	if id, ok := ids[string(k)]; ok {
		return id
	}
	return numbered(ids, string(k), items, v)
}

// tableKey writes strings as one map key, each prefixed by its length.
func tableKey(ss ...string) string { return string(appendTableKey(nil, ss...)) }

// appendTableKey appends tableKey(ss...) to b.
func appendTableKey(b []byte, ss ...string) []byte {
	for _, s := range ss {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

func (lf *Leaf) Ptr() string       { return lf.t.at(lf.ptrID) }
func (lf *Leaf) Raw() string       { return lf.t.at(lf.rawID) }
func (lf *Leaf) Str() string       { return lf.t.at(lf.strID) }
func (lf *Leaf) Own() []string     { return lf.t.lists[lf.ownID] }
func (lf *Leaf) Ctx() []string     { return lf.t.lists[lf.ctxID] }
func (lf *Leaf) Cat() []CatValue   { return lf.t.cats[lf.catID] }
func (lf *Leaf) Unit() *Unit       { return UnitTable[lf.UnitID] }
func (lf *Leaf) setUnit(u *Unit)   { lf.UnitID = unitID(u) }
func (lf *Leaf) setPtr(s string)   { lf.ptrID = lf.t.internPtr(s) }
func (lf *Leaf) setRaw(s string)   { lf.rawID = lf.t.intern(s) }
func (lf *Leaf) setStr(s string)   { lf.strID = lf.t.intern(s) }
func (lf *Leaf) setOwn(l []string) { lf.ownID = lf.t.list(l) }
func (lf *Leaf) setCtx(l []string) { lf.ctxID = lf.t.ctxList(l) }
func (lf *Leaf) setCat(cs []CatValue) {
	lf.catID = 0
	if len(cs) > 0 {
		lf.catID = lf.t.catList(cs)
	}
}

// unitID returns u's number in unitTable. Every unit a value may be in is
// there (a unit made anywhere else is a bug).
func unitID(u *Unit) uint8 {
	id, ok := unitIDs[u]
	if !ok {
		panic(fmt.Sprintf("verifier: unit %q is not in unitTable", u.Name))
	}
	return uint8(id)
}
