package check

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// A row of an array is named by its own name: a field whose key names
// its object (name, title, product_name, 名称: keys.txt's subject key
// suffixes, alone or ending a key) or whose key is the array's own noun
// (team of teams). Other fields a claim may name a row by (city, region,
// 地区) are its attributes. A claim that names one row by its own name is
// about that row: another row it names only by an attribute's value is
// what it says of the first ("The Oslo office is in the West region" is
// not about the office of the West region), unless it compares them. And
// a name that one row holds as its own and others as an attribute names
// the first ("Denver has 7 wins" beside the team Denver and the Lions of
// the city Denver).

// nameSuffixes are the subject key suffixes: a key that is one (name,
// title, 名称) or ends in one (product_name) names its object.
var nameSuffixes = evidence.LangData.List("subject key suffixes")

// ownNameKey reports whether key names the rows of an array of key
// arrayKey by their own name. A suffix written with its separator (_name)
// ends a key however its parts are joined (product_name, productName,
// product-name); a Chinese one (名称, 号) ends a key written without one
// (商品名称, 房间号).
func ownNameKey(key, arrayKey string) bool {
	k := strings.ToLower(key)
	var parts []string
	for _, suf := range nameSuffixes {
		word := strings.TrimPrefix(suf, "_")
		if k == word || word != suf && strings.HasSuffix(k, suf) {
			return true
		}
		if r, _ := utf8.DecodeRuneInString(suf); lang.IsCJK(r) && strings.HasSuffix(k, suf) {
			return true
		}
		if word != suf {
			if parts == nil {
				parts = lang.KeyParts(key)
			}
			if len(parts) > 1 && parts[len(parts)-1] == word {
				return true
			}
		}
	}
	kc, ac := evidence.ConceptsOf(key), evidence.ConceptsOf(arrayKey)
	return len(kc) > 0 && !slices.ContainsFunc(kc, func(c string) bool { return !slices.Contains(ac, c) })
}

// rowsOf returns the array whose rows all of nodes are, or -1.
func rowsOf(ix *evidence.Index, nodes []int32) int32 {
	var a int32 = -1
	for _, n := range nodes {
		p := ix.Nodes[n].Parent
		if p < 0 || !ix.Nodes[p].Array || a >= 0 && p != a {
			return -1
		}
		a = p
	}
	return a
}

// ownNameLeaves returns the leaves of array a's rows that are a row's
// own name: a string field (not text) of a row, under a key ownNameKey
// takes for the array's. Each key is judged once.
func ownNameLeaves(ix *evidence.Index, a int32) []int32 {
	nd := &ix.Nodes[a]
	arrayKey := evidence.LastToken(nd.Ptr)
	judged := map[string]bool{}
	var out []int32
	for l := nd.LeafLo; l < nd.LeafHi; l++ {
		lf := &ix.Leaves[l]
		if lf.Node < 0 || ix.Nodes[lf.Node].Parent != a || lf.Kind != evidence.KindStr || lf.Text {
			continue
		}
		key := evidence.LastToken(lf.Ptr())
		own, ok := judged[key]
		if !ok {
			own = ownNameKey(key, arrayKey)
			judged[key] = own
		}
		if own {
			out = append(out, l)
		}
	}
	return out
}

// nameLeaves are an array's own-name leaves (ownNameLeaves) by what
// they say, made once per answer: by normalised value (Str) and by raw
// value with its case folded (foldKey), each list in leaf order.
type nameLeaves struct {
	byStr, byFold map[string][]int32
	// rows are ownNamers' answers, by name: the claims of an answer name
	// the same rows again and again, and the name's two keys cost more
	// than the lookups.
	rows map[string][]int32
}

func newNameLeaves(ix *evidence.Index, a int32) *nameLeaves {
	leaves := ownNameLeaves(ix, a)
	nl := &nameLeaves{byStr: make(map[string][]int32, len(leaves)), byFold: make(map[string][]int32, len(leaves))}
	for _, l := range leaves {
		lf := &ix.Leaves[l]
		nl.byStr[lf.Str()] = append(nl.byStr[lf.Str()], l)
		k := foldKey(lf.Raw())
		nl.byFold[k] = append(nl.byFold[k], l)
	}
	return nl
}

// foldKey maps s to the smallest rune of each rune's case-folding orbit,
// so that foldKey(a) == foldKey(b) exactly when strings.EqualFold(a, b)
// (an invalid byte is utf8.RuneError on both sides, as EqualFold reads
// it).
func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'a' <= c && c <= 'z' {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z':
			r -= 'a' - 'A'
		case r >= utf8.RuneSelf:
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f < r {
					r = f
				}
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ownNamers returns the rows of array a holding name under a key of their
// own name, in the order of their first such leaf: a leaf whose
// normalised value is name's, or whose raw value is name up to case. The
// array's name leaves are found and keyed once per answer (buf), and the
// rows of each name kept there: the caller must not change them.
func ownNamers(ix *evidence.Index, buf *readBuffers, a int32, name string) []int32 {
	nl, ok := buf.nameLeaves[a]
	if !ok {
		if buf.nameLeaves == nil {
			buf.nameLeaves = map[int32]*nameLeaves{}
		}
		nl = newNameLeaves(ix, a)
		buf.nameLeaves[a] = nl
	}
	if rows, ok := nl.rows[name]; ok {
		return rows
	}
	byStr := nl.byStr[string(lang.Normalize(name))]
	byFold := nl.byFold[foldKey(name)]
	var out []int32
	add := func(l int32) {
		if n := ix.Leaves[l].Node; !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	// Both lists are in leaf order: merge them.
	i, j := 0, 0
	for i < len(byStr) || j < len(byFold) {
		switch {
		case j == len(byFold) || i < len(byStr) && byStr[i] < byFold[j]:
			add(byStr[i])
			i++
		case i == len(byStr) || byFold[j] < byStr[i]:
			add(byFold[j])
			j++
		default:
			add(byStr[i])
			i, j = i+1, j+1
		}
	}
	out = slices.Clip(out) // NB: shared by the claims that name it; none appends to it
	if nl.rows == nil {
		nl.rows = map[string][]int32{}
	}
	nl.rows[name] = out
	return out
}

// ownNamed returns the subjects a claim names, read by the rows' own
// names (see above), their innermost nodes, and the fields holding the
// attribute values it names of them (the other rows' names it dropped).
func ownNamed(ix *evidence.Index, rd *reading, buf *readBuffers) (evidence.Subjects, []int32, []int32) {
	sub := rd.named
	if len(sub.Groups) == 0 {
		return sub, rd.namedNodes, nil
	}
	var attrs []int32
	own := make([]bool, len(sub.Groups))
	arrays := make([]int32, len(sub.Groups))
	changed := false
	for i, g := range sub.Groups {
		arrays[i] = rowsOf(ix, g)
		if arrays[i] < 0 || ix.Nodes[arrays[i]].Length < 2 || sub.Names[i] == "" {
			continue
		}
		rows := ownNamers(ix, buf, arrays[i], sub.Names[i])
		switch {
		case len(rows) == 1 && !slices.Equal(rows, g):
			if !changed {
				sub = cloneSubjects(sub)
				changed = true
			}
			sub.Groups[i] = slices.Clone(rows) // NB: rows are the answer's (ownNamers)
			own[i] = true
		case len(rows) > 0:
			own[i] = !slices.ContainsFunc(g, func(n int32) bool { return !slices.Contains(rows, n) })
		}
	}
	if len(sub.Groups) >= 2 && slices.Contains(own, true) && rd.cues&(evidence.CueThan|evidence.CueMore|evidence.CueLess|evidence.CueMost|evidence.CueLeast|evidence.CueDerive) == 0 {
		// Rows named only by an attribute's value, beside a row of the
		// same array named by its own name: what the claim says of it.
		var out evidence.Subjects
		for i := range sub.Groups {
			if own[i] || arrays[i] < 0 || !ownInArray(own, arrays, arrays[i]) {
				out.Groups = append(out.Groups, sub.Groups[i])
				out.Names = append(out.Names, sub.Names[i])
				out.Spans = append(out.Spans, sub.Spans[i])
				continue
			}
			if l := ix.SubjectLeaf(sub.Groups[i], sub.Names[i]); l >= 0 {
				attrs = append(attrs, l)
			}
		}
		if len(out.Groups) < len(sub.Groups) {
			sub, changed = out, true
		}
	}
	if !changed {
		return sub, rd.namedNodes, nil
	}
	var nodes []int32
	for _, g := range sub.Groups {
		nodes = append(nodes, g...)
	}
	return sub, ix.MostSpecific(nodes), attrs
}

// attributeFacts checks what a claim says of the row it names by its own
// name through another row's attribute value ("The Oslo office is in the
// West region", West being Bergen's region): the named row's field of
// that key decides it; without one, nothing supports it.
func (cx *claim) attributeFacts([]fact) []fact {
	ix := cx.ix
	var out []fact
	for _, a := range cx.attrs {
		key := evidence.LastToken(ix.Leaves[a].Ptr())
		mine := int32(-1)
		for _, n := range cx.nodes {
			nd := &ix.Nodes[n]
			for l := nd.LeafLo; l < nd.LeafHi; l++ {
				if lf := &ix.Leaves[l]; lf.Node == n && evidence.LastToken(lf.Ptr()) == key {
					mine = l
				}
			}
		}
		switch {
		case mine < 0:
			out = append(out, fact{verdict: events.VerdictUnsupported, weak: true, reason: "the claim names " + ix.Leaves[a].Raw() + " of another row at " + ix.Leaves[a].Ptr()})
		case ix.Leaves[mine].Kind == evidence.KindStr && !strings.EqualFold(ix.Leaves[mine].Str(), ix.Leaves[a].Str()):
			out = append(out, fact{verdict: events.VerdictContradicted, refs: []events.EvidenceRef{ix.Ref(mine)},
				reason: "the evidence says " + ix.Leaves[mine].Raw() + " at " + ix.Leaves[mine].Ptr() + ", " + ix.Leaves[a].Raw() + " is another row's"})
		}
	}
	return out
}

// ownInArray reports whether a group of array a is named by its own name.
func ownInArray(own []bool, arrays []int32, a int32) bool {
	for i := range own {
		if own[i] && arrays[i] == a {
			return true
		}
	}
	return false
}

func cloneSubjects(s evidence.Subjects) evidence.Subjects {
	return evidence.Subjects{Groups: slices.Clone(s.Groups), Names: slices.Clone(s.Names), Spans: slices.Clone(s.Spans)}
}

// otherRowOnly reports whether fields ls all lie in other rows of an
// array one of the scope's rows belongs to, and the claim names nothing
// else of those rows: "It has 12 stops" after a sentence about the South
// route, which has no stops, is not about the North route's 12, and "It is
// at 19 °C" after a sentence about T-North, whose own temperature is 14, is
// not made true by T-South's 19: the pronoun continues T-North's row, and
// a value of another row says nothing of it. A row the claim names by a
// value of it, or whose field alone is of the number's unit ("In Japan it
// sells for ¥3,600" after the EU's amount in euros, the rows' currency
// beside each amount), is still read widely.
func (cx *claim) otherRowOnly(ls []int32, m *evidence.NumMention) bool {
	ix := cx.ix
	if len(ls) == 0 {
		return false
	}
	for _, l := range ls {
		row := cx.siblingRow(l)
		if row < 0 || !cx.scopeKeyFits(evidence.LastToken(ix.Leaves[l].Ptr()), m) {
			return false
		}
		for _, vm := range cx.values {
			if slices.ContainsFunc(vm, func(v int32) bool { return ix.InNode(v, row) }) {
				return false
			}
		}
	}
	return true
}

// scopeKeyFits reports whether none of the scope's rows has a field of
// key, or one of them has one that number m could be a value of: of no
// unit, or of one compatible with m's. A scope row whose field of key is
// of another unit (its amount in euros, the claim's in yen) cannot hold
// the number, so the claim is not bound to that row's field.
func (cx *claim) scopeKeyFits(key string, m *evidence.NumMention) bool {
	ix := cx.ix
	has := false
	for _, n := range cx.nodes {
		nd := &ix.Nodes[n]
		for l := nd.LeafLo; l < nd.LeafHi; l++ {
			lf := &ix.Leaves[l]
			if evidence.LastToken(lf.Ptr()) != key {
				continue
			}
			has = true
			if m == nil || m.Unit == nil || lf.Unit() == nil || evidence.Compatible(m.Unit, lf.Unit()) {
				return true
			}
		}
	}
	return !has
}

// siblingRow returns the row of an array holding one of the scope's rows
// that holds field l, when that is not a scope row itself; else -1.
func (cx *claim) siblingRow(l int32) int32 {
	ix := cx.ix
	for _, n := range cx.nodes {
		a := ix.Nodes[n].Parent
		if a < 0 || !ix.Nodes[a].Array || !ix.InNode(l, a) || ix.InNode(l, n) {
			continue
		}
		for r := ix.Leaves[l].Node; r >= 0; r = ix.Nodes[r].Parent {
			if ix.Nodes[r].Parent == a {
				if slices.Contains(cx.nodes, r) {
					return -1
				}
				return r
			}
		}
	}
	return -1
}
