package evidence

import (
	"encoding/json"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The index's queries a check asks of a joined Index (attributes and
// states of a key, identifier codes, the members of a collection, the
// most specific of a scope), and the readers of text that claims and
// evidence share: the tokenizer, numbers and their units in text, dates,
// times of day and codes.

// stateKeyParts name a state, not what it is the state of.
var stateKeyParts = LangData.Set("state key words")

// KeyAttrs returns the attribute concepts of leaf l's own key: the
// concepts of its parts that are not states (status, confirmed, 已支付).
func (ix *Index) KeyAttrs(l int32) []string {
	k := ptrUnescaper.Replace(LastToken(ix.Leaves[l].Ptr()))
	if lang.IsAllDigits(k) || genericKeys[strings.ToLower(k)] {
		return nil
	}
	var out []string
	for _, p := range lang.KeyParts(k) {
		if stateKeyParts[p] || len(CategoriesOf(p)) > 0 {
			continue
		}
		if _, ok := keyUnits[p]; ok {
			continue
		}
		if _, ok := minorUnitWords[p]; ok {
			continue
		}
		out = append(out, ConceptsOf(p)...)
	}
	return Dedupe(out)
}

// StateField reports whether l's key names a state (gruba_status,
// tamogro_state, zidrakal_paid): a field holding the state of the thing
// its other key words name.
func (ix *Index) StateField(l int32) bool {
	lf := &ix.Leaves[l]
	if lf.Kind == KindBool {
		return true
	}
	k := ptrUnescaper.Replace(LastToken(lf.Ptr()))
	for _, p := range lang.KeyParts(k) {
		if stateKeyParts[p] {
			return true
		}
	}
	return false
}

// negatedState reads a state value written as the negation of a word
// (NOT_READY, not-confirmed, INACTIVE, UNPAID, DISABLED): its base word and
// true; else the value and false.
func negatedState(v string) (string, bool) {
	ts := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	if len(ts) == 2 && (ts[0] == "not" || ts[0] == "no" || ts[0] == "non") {
		return ts[1], true
	}
	if len(ts) != 1 {
		return "", false
	}
	for _, p := range []string{"un", "in", "dis", "non"} {
		if rest, ok := strings.CutPrefix(ts[0], p); ok && len(rest) >= 4 {
			return rest, true
		}
	}
	return ts[0], false
}

// negState is a state field holding a negated state, and its base word.
type negState struct {
	Leaf int32
	Base string
}

// NegatedStates returns the evidence's state fields holding a negated
// state, in leaf order; found once per index, read by every claim.
func (ix *Index) NegatedStates() []negState {
	if ix.Cache.negStatesRead {
		return ix.Cache.negStates
	}
	ix.Cache.negStatesRead = true
	for i := range ix.Leaves {
		lf := &ix.Leaves[i]
		if lf.Kind != KindStr || lf.Text || len(lf.Str()) > 24 || !negForm(lf.Str()) {
			continue
		}
		if base, neg := negatedState(lf.Str()); neg && ix.StateField(int32(i)) {
			ix.Cache.negStates = append(ix.Cache.negStates, negState{int32(i), base})
		}
	}
	return ix.Cache.negStates
}

// negForm is a cheap test that v, lower case (a leaf's str), may be a
// negated state (negatedState); it allocates nothing.
func negForm(v string) bool {
	for _, p := range []string{"not", "no", "un", "in", "dis"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// Evidence is one tool call's outcome with its call identity: a result,
// or the typed failure of a call that did not happen as asked.
type Evidence struct {
	CallID  string
	Name    string // tool name
	Version int
	Result  json.RawMessage // the tool's JSON result; empty when Failed
	// Failed is the failure of a call that failed or whose approval was
	// denied (CallFailed): evidence that what it would have done did not
	// happen. nil for a result.
	Failed *Failure
	// At is when the result was produced; zero is the answer's time.
	At time.Time
	// FreshFor is how long the result holds after At (the contract's
	// fresh_for); 0 is for ever. A claim resting only on results older
	// than that is stale.
	FreshFor time.Duration
	// Cuts, when Result is an excerpt of a larger result
	// (events.CallSucceeded.Excerpt), gives each array the excerpt
	// shortened its length in the whole result: a count is checked
	// against that length.
	Cuts []events.ArrayCut
	// Stats, beside an excerpt, are the statistics of the numeric fields
	// of the arrays it cut over their whole length, as the result's
	// summary states them (events.CallSucceeded.Summary): a claim of a
	// field's max, min or mean binds to them.
	Stats []FieldStats
}

// FieldStats are the statistics of one numeric field of an array's rows:
// Array is the array's pointer in the whole result, Field the rows' key.
type FieldStats struct {
	Array string  `msgpack:"a"`
	Field string  `msgpack:"f"`
	N     int     `msgpack:"n"`
	Min   float64 `msgpack:"lo"`
	Max   float64 `msgpack:"hi"`
	Mean  float64 `msgpack:"m"`
}

// Failure is a failed call's typed error (events.ErrorType) and message.
type Failure struct {
	Error   string
	Message string
}

// RuneText is runes as a string too, so that a run of them is a slice of
// the string: looked up or kept without converting runes again.
type RuneText struct {
	S   string
	off []int32 // where rune i starts in s; nil when every rune is one byte
}

func NewRuneText(r []rune) RuneText {
	t := RuneText{S: string(r)}
	if len(t.S) != len(r) {
		t.off = make([]int32, len(r)+1)
		b := 0
		for i, c := range r {
			t.off[i] = int32(b)
			n := utf8.RuneLen(c)
			if n < 0 {
				n = utf8.RuneLen(utf8.RuneError) // what string(r) writes for it
			}
			b += n
		}
		t.off[len(r)] = int32(b)
	}
	return t
}

// Token is one token of normalised text: a run of letters and digits (with
// inner decimal points and apostrophes), or one ideograph.
type Token struct {
	S          string
	Start, End int // rune offsets
	Cjk        bool
}

// Tokenize splits normalised runes into tokens.
func Tokenize(r []rune) []Token { return TokenizeInto(nil, NewRuneText(r), r) }

// TokenizeInto is tokenize with the runes as text too, appending to out:
// the tokens' strings are slices of text's, not one allocation each.
func TokenizeInto(out []Token, text RuneText, r []rune) []Token {
	out = slices.Grow(out, len(r)/5+1)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case lang.IsCJK(c):
			out = append(out, Token{S: text.sub(i, i+1), Start: i, End: i + 1, Cjk: true})
			i++
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			j := i + 1
			for j < len(r) {
				d := r[j]
				if (unicode.IsLetter(d) || unicode.IsDigit(d)) && !lang.IsCJK(d) {
					j++
					continue
				}
				if (d == '.' || d == ',') && j+1 < len(r) && unicode.IsDigit(r[j-1]) && unicode.IsDigit(r[j+1]) {
					j++
					continue
				}
				if d == '\'' && j+1 < len(r) && unicode.IsLetter(r[j+1]) && !lang.IsCJK(r[j+1]) {
					j++
					continue
				}
				if d == '+' && (j+1 == len(r) || !unicode.IsLetter(r[j+1]) && !unicode.IsDigit(r[j+1])) {
					j++ // "S24+", "C++": the plus is part of the name
					continue
				}
				break
			}
			out = append(out, Token{S: text.sub(i, j), Start: i, End: j})
			i = j
		default:
			i++
		}
	}
	return out
}

// parseZhNumber parses a Chinese numeral at r[i] (二十五, 两, 一百零五,
// 三千). It returns the value and the end of the numeral.
func parseZhNumber(r []rune, i int) (float64, int, bool) { return LangData.ParseZhNumber(r, i) }

// MembersNamed reports whether every object of array n has a name
// containing word: "3 warehouses" counts {"Denver warehouse", …}, "三个班"
// counts {一班, 二班, 三班}.
func (ix *Index) MembersNamed(n int32, word string) bool {
	if word == "" {
		return false
	}
	w := subjectKey(word)
	nd := &ix.Nodes[n]
	count := 0
	for j := n + 1; j < nd.nodeHi; j = ix.Nodes[j].nodeHi {
		s := ix.Nodes[j].subject
		if s == "" {
			return false
		}
		ok := strings.Contains(strings.ToLower(s), word)
		for _, t := range tokenStrings(lang.Normalize(s)) {
			ok = ok || subjectKey(t) == w
		}
		if !ok {
			return false
		}
		count++
	}
	return count > 0
}

func LastToken(ptr string) string { return ptr[strings.LastIndexByte(ptr, '/')+1:] }

// LastKey is the last key of pointer ptr as written: its last token
// unescaped (~1 is "/", ~0 is "~"), with the one replacer made for the
// package, not one per call.
func LastKey(ptr string) string { return ptrUnescaper.Replace(LastToken(ptr)) }

// CodeMention is a code written in a claim.
type CodeMention struct {
	Start, End int // rune offsets
	Canon      string
	DigitsOnly bool // a bare number read as an identifier (room 512)
	Foreign    bool // the evidence has it nowhere: no value, key or word of a text
}

// ScanCodes finds the codes of a claim's runes as written, skipping runes
// used by subjects.
func ScanCodes(orig []rune, used []bool) []CodeMention {
	var out []CodeMention
	n := len(orig)
	for i := 0; i < n; i++ {
		if !isASCIIAlnum(orig[i]) || i > 0 && (isASCIIAlnum(orig[i-1]) || orig[i-1] == '.' || orig[i-1] == '-' && i > 1 && isASCIIAlnum(orig[i-2])) {
			continue
		}
		end, ok := codeEnd(orig, i)
		if s := string(orig[i:end]); ok && isCode(s) && !usedAny(used, i, end) {
			out = append(out, CodeMention{Start: i, End: end, Canon: canonCode(s)})
		}
		i = end - 1
	}
	return out
}

// codeEnd returns where the code-like run starting at i ends (after i),
// and false when it is a decimal (PM2.5, v1.2), not a code.
func codeEnd(r []rune, i int) (int, bool) {
	j := i
	for j < len(r) && isASCIIAlnum(r[j]) {
		j++
	}
	// "LH 2041", "UA 1234": one to three capitals, a space, digits.
	if j-i <= 3 && j+1 < len(r) && r[j] == ' ' && isDigit(r[j+1]) && allUpper(r[i:j]) {
		k := j + 1
		for k < len(r) && isASCIIAlnum(r[k]) {
			k++
		}
		j = k
	}
	for j+1 < len(r) && (r[j] == '-' || r[j] == '_' || r[j] == '/') && isASCIIAlnum(r[j+1]) {
		k := j + 1
		for k < len(r) && isASCIIAlnum(r[k]) {
			k++
		}
		j = k
	}
	if j < len(r) && r[j] == '.' && j+1 < len(r) && isDigit(r[j+1]) {
		return j, false
	}
	return max(j, i+1), true
}

// isCode reports a run of letters and digits mixing both that is not a
// number with its unit (12kg, 5pm, 3rd).
func isCode(s string) bool {
	letters, digits := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		}
	}
	if letters == 0 || digits == 0 || len(s) < 2 {
		return false
	}
	// "12-year", "29/month": a number and its word (a segment of two or
	// more small letters only).
	small, other := 0, false
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '-' || s[i] == '_' || s[i] == '/' || s[i] == ' ' {
			if small >= 2 && !other {
				return false
			}
			small, other = 0, false
			continue
		}
		if c := s[i]; c >= 'a' && c <= 'z' {
			small++
		} else {
			other = true
		}
	}
	return s[0] < '0' || s[0] > '9' || !IsNumberWithUnit(strings.ToLower(s))
}

// canonCode is a code's canonical form: upper case, separators dropped.
func canonCode(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
		case isASCIIAlnum(c):
			b.WriteRune(c)
		}
	}
	return b.String()
}

// idCanon returns the canonical form of an identifier-like string value,
// or "" when the value is not one.
func idCanon(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return ""
	}
	digits := 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '/' || c == ' ':
		default:
			return ""
		}
	}
	if digits == 0 || strings.Count(s, " ") > 3 {
		return ""
	}
	c := canonCode(s)
	if c == "" || strings.Contains(s, " ") && !isCode(strings.ReplaceAll(s, " ", "")) && digits != len(c) {
		return ""
	}
	if !isCode(s) && digits != len(c) {
		return "" // a word with a number in it ("size 34")
	}
	return c
}

// IdLeaves returns the identifier-like leaves of the index with their
// canonical values, made once per index.
func (ix *Index) IdLeaves() []IdLeaf {
	if ix.ids != nil {
		return *ix.ids
	}
	var out []IdLeaf
	// A key's words, once per key: the rows of an array repeat their keys
	// (the slices are shared, and no caller changes them).
	words := map[string][]string{}
	for l := range ix.Leaves {
		lf := &ix.Leaves[l]
		if lf.Kind != KindStr || lf.Text || lf.HasDay {
			continue
		}
		if s := rawString(lf.Raw()); len(s) <= 40 && strings.ContainsAny(s, digitChars) {
			if c := idCanon(s); c != "" {
				k := LastToken(lf.Ptr())
				ws, ok := words[k]
				if !ok {
					ws = slices.Clip(keyWords(k))
					words[k] = ws
				}
				out = append(out, IdLeaf{L: int32(l), Canon: c, Words: ws, Digits: lang.IsAllDigits(c)})
			}
		}
	}
	out = slices.Clip(out)
	ix.ids = &out
	ix.digitIDs = slices.ContainsFunc(out, func(id IdLeaf) bool { return id.Digits })
	return out
}

// HasDigitIDs reports an identifier-like field of digits in the index
// (found with IdLeaves, once).
func (ix *Index) HasDigitIDs() bool {
	ix.IdLeaves()
	return ix.digitIDs
}

// CodesInText returns the codes written in the index's keys and inside its
// longer string values, each with the first leaf writing it, made once
// per index.
func (ix *Index) CodesInText() map[string]int32 {
	if ix.textCodes != nil {
		return ix.textCodes
	}
	out := map[string]int32{}
	add := func(s string, l int) {
		for _, c := range ScanCodes([]rune(s), nil) {
			if prev, ok := out[c.Canon]; !ok || prev < 0 {
				out[c.Canon] = int32(l)
			}
		}
	}
	seen := map[string]bool{}
	addKey := func(k string, l int) {
		if !seen[k] && strings.ContainsAny(k, digitChars) {
			add(k, l)
		}
		seen[k] = true
	}
	for l := range ix.Leaves {
		lf := &ix.Leaves[l]
		addKey(LastToken(lf.Ptr()), l) // its key ("F1", "SST-2")
		for _, k := range lf.Own() {
			addKey(k, l) // … and a table's column names
		}
		if lf.Kind != KindStr || lf.Text || !strings.ContainsAny(lf.Raw(), digitChars) {
			continue
		}
		var s string
		if json.Unmarshal([]byte(lf.Raw()), &s) == nil && idCanon(s) == "" {
			add(s, l)
		}
	}
	for n := range ix.Nodes {
		addKey(LastToken(ix.Nodes[n].Ptr), -1) // an object's or a list's key
	}
	ix.textCodes = out
	return out
}

// keyNamers are the nodes and the leaves whose keys name one of a list
// of words (KeysNaming).
type keyNamers struct{ nodes, leaves []int32 }

// KeysNaming returns, in order, the nodes whose last key is one of words
// and the leaves whose last key has one as a part (cut_today,
// visitorsYesterday), keys compared lower-cased; words are lower case.
// The answer is the same for every claim naming the words, so each list
// is looked for once per index and kept: splitting every key of the
// evidence for every dated claim cost more than the rest of the check
// (toolstream bench, verifier rows).
func (ix *Index) KeysNaming(words []string) (nodes, leaves []int32) {
	id := strings.Join(words, "\x00")
	if k, ok := ix.keyWords[id]; ok {
		return k.nodes, k.leaves
	}
	var k keyNamers
	for n := range ix.Nodes {
		if slices.Contains(words, strings.ToLower(LastToken(ix.Nodes[n].Ptr))) {
			k.nodes = append(k.nodes, int32(n))
		}
	}
	// Whether a key has one of the words as a part, once per distinct key:
	// the rows of an array repeat their keys.
	named := map[string]bool{}
	for l := range int32(len(ix.Leaves)) {
		key := LastToken(ix.Leaves[l].Ptr())
		has, ok := named[key]
		if !ok {
			has = keyHasPart(key, words)
			named[key] = has
		}
		if has {
			k.leaves = append(k.leaves, l)
		}
	}
	if ix.keyWords == nil {
		ix.keyWords = map[string]keyNamers{}
	}
	ix.keyWords[id] = k
	return k.nodes, k.leaves
}

// keyHasPart reports whether one of words (lower case) is a part of key,
// compared lower-cased.
func keyHasPart(key string, words []string) bool {
	low := string(lang.Normalize(key)) // folded as KeyParts folds it: ｃｕｔ＿ｔｏｄａｙ holds today
	if !slices.ContainsFunc(words, func(w string) bool { return strings.Contains(low, w) }) {
		return false // a key holding none of the words has none as a part
	}
	return slices.ContainsFunc(lang.KeyParts(key), func(p string) bool { return slices.Contains(words, strings.ToLower(p)) })
}

const digitChars = "0123456789"

// rawString returns the string a JSON string's text holds: its text
// between the quotes when it escapes nothing.
func rawString(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' && strings.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}

// IdLeaf is an identifier-like leaf.
type IdLeaf struct {
	L      int32
	Canon  string
	Words  []string // the words of its key that may name it (keyWords)
	Digits bool     // its value is only digits (room "512")
}

// keyWords returns the words of a key that may name its field: all but
// those too general to name one field (id, no, number, code) and single
// letters.
func keyWords(key string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(key), func(r rune) bool { return r == '_' || r == '-' || r == ' ' }) {
		if w != "id" && w != "no" && w != "number" && w != "code" && len(w) >= 2 {
			out = append(out, w)
		}
	}
	return out
}

// IdWords are key words that say a field is an identifier, not of what.
var IdWords = LangData.Set("id words")

func isASCIIAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

func allUpper(r []rune) bool {
	return !slices.ContainsFunc(r, func(c rune) bool { return c < 'A' || c > 'Z' })
}

func usedAny(used []bool, s, e int) bool {
	for i := s; i < e && i < len(used); i++ {
		if used[i] {
			return true
		}
	}
	return false
}

// NumMention is one number written in a text.
type NumMention struct {
	Start, End int // rune offsets
	V, Hi      float64
	IsRange    bool
	Unit       *Unit
	Decimals   int     // digits written after the decimal point
	Mag        float64 // magnitude word applied (k, million, 万)
	Approx     bool
	// Clock is a duration written as a clock (1:14:51, 30:43, 9:58.12):
	// exact to its last digit, in whatever unit it is compared.
	Clock    bool
	Bound    Cue // cueGT, cueGE, cueLT, cueLE or 0
	Head     []string
	Free     bool
	UnitWord string   // the unit as written after the number
	Local    []string // concepts of the words right before and after
	Near     []string // concepts of the nearest word before
	HeadEnd  int      // where the head noun ends
	HeadWord string   // the word after the number, as written
	// maybeUnit is a one-letter unit word after a space ("5 m", "300 g"),
	// too ambiguous to be the unit but enough to doubt the number has none.
	MaybeUnit *Unit
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

func isLatinLetter(c rune) bool { return unicode.IsLetter(c) && !lang.IsCJK(c) }

// NumUnit is the unit and dimension of a numeric leaf (what unitFits
// reads of it).
type NumUnit struct {
	UnitID uint8
	Dim    Dimension
}

// MatchKey is what a claimed number's matches depend on.
type MatchKey struct {
	V, Tol float64
	Unit   *Unit
	Clock  bool // converted with its own tolerance (NumMention.Clock)
}

func SortUnique(s *[]int32) {
	if !slices.IsSorted(*s) { // often they come in order
		slices.Sort(*s)
	}
	*s = slices.Compact(*s)
}

// SubjectLeaf returns the field that names a subject (group, the objects
// a mention names): the one holding the name it was named by, if known.
func (ix *Index) SubjectLeaf(group []int32, name string) int32 {
	if name != "" {
		name = string(lang.Normalize(name))
	}
	var first int32 = -1
	for _, n := range group {
		nd := &ix.Nodes[n]
		for l := nd.LeafLo; l < nd.LeafHi; l++ {
			lf := &ix.Leaves[l]
			if lf.Node != n || !lf.SubjKey || lf.Text {
				continue
			}
			if name == "" || lf.Str() == name || lf.Raw() == name {
				return l
			}
			if first < 0 {
				first = l
			}
		}
	}
	return first
}

// Subjects are the evidence objects a claim's subjects name: one group of
// nodes per mention, the value it was named by, and where the claim
// mentions it (rune offsets; -1 for a subject named by an earlier claim).
type Subjects struct {
	Groups [][]int32
	Names  []string
	Spans  [][2]int
}

// MostSpecific keeps the innermost of nested subjects: "order 123's item
// A" is about A.
//
// Nodes are numbered in document order and a node's descendants follow it
// below its nodeHi, so of the sorted scope a node encloses another exactly
// when the one after it does not pass its nodeHi.
func (ix *Index) MostSpecific(scope []int32) []int32 {
	SortUnique(&scope)
	var keep []int32
	for i, a := range scope {
		if i+1 < len(scope) && ix.AncestorOf(a, scope[i+1]) {
			continue
		}
		keep = append(keep, a)
	}
	return keep
}

// MembersBetween returns the collection members strictly between the
// members holding a and b.
func (ix *Index) MembersBetween(a, b []int32) []int32 {
	for _, cl := range ix.Colls {
		ia, ib := -1, -1
		for i, m := range cl.Members {
			for _, x := range a {
				if ix.AncestorOf(m, x) {
					ia = i
				}
			}
			for _, x := range b {
				if ix.AncestorOf(m, x) {
					ib = i
				}
			}
		}
		if ia >= 0 && ib >= 0 {
			lo, hi := min(ia, ib), max(ia, ib)
			if hi-lo < 2 {
				return nil // the same member, or two next to each other
			}
			return slices.Clone(cl.Members[lo+1 : hi])
		}
	}
	return nil
}

func DigitCount(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// IsNumberWithUnit reports tokens such as "12kg" or "5pm".
func IsNumberWithUnit(s string) bool {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return false
	}
	rest := s[i:]
	_, ok := UnitWords[rest]
	return ok || rest == "am" || rest == "pm" || rest == "st" || rest == "nd" || rest == "rd" || rest == "th" || rest == "x" || rest == "k"
}

// SentInfo is one sentence of a text value: its concepts, whether it is
// negated, and which way it says things moved.
type SentInfo struct {
	Start, End int
	Concepts   []string
	Neg        bool
	Up, Down   bool
}

// TextItem is a number or a date written inside a string value, with the
// concepts of the words around it; worked out once per distinct string.
type TextItem struct {
	Date    bool
	bare    bool // nothing but the number and its unit in the string
	num, hi float64
	unit    *Unit
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

// textDates returns the dates (with a day) of a string value's
// normalised runes, read at now.
func textDates(norm []rune, now time.Time) []TimeExpr {
	var out []TimeExpr
	for k, te := range ScanTimes(norm, now, make([]bool, len(norm))) {
		if k >= textDatesMax || len(te.Days) == 0 {
			continue
		}
		out = append(out, te)
	}
	return out
}

// nearKey is a value found in text's context: its string leaf's context
// (a list number) and the words near it (a textItem's, which the cache of
// textItems keeps, so its first element's address names it).
type nearKey struct {
	ctx  uint32
	near *string
	n    int
}

// TextHedged reports whether a value found in text sits in a sentence
// that calls it an estimate (expected, possible, 预计).
func (ix *Index) TextHedged(l int32) bool {
	lf := &ix.Leaves[l]
	if !lf.Text || lf.Src < 0 {
		return false
	}
	r := []rune(ix.Leaves[lf.Src].Str())
	if int(lf.TextPos) >= len(r) {
		return false
	}
	return nearbyHedge(r, Tokenize(r), int(lf.TextPos), int(lf.TextPos)+1)
}

// nearbyHedge reports an estimate word (expected, possible, 预计) in the
// sentence of the text around [s, e).
func nearbyHedge(r []rune, toks []Token, s, e int) bool {
	lo, hi := s, e
	for lo > 0 && !strings.ContainsRune(".!?。！？\n", r[lo-1]) {
		lo--
	}
	for hi < len(r) && !strings.ContainsRune(".!?。！？\n", r[hi]) {
		hi++
	}
	for _, tk := range toks {
		if tk.Start < lo || tk.End > hi {
			continue
		}
		if l := EnLex[tk.S]; l != nil && l.Cues&cueHedge != 0 {
			return true
		}
	}
	for _, w := range segmentCJKKeep(r[lo:hi]) {
		if l := ZhLex[w]; l != nil && l.Cues&cueHedge != 0 {
			return true
		}
	}
	return false
}

// textNumbersMax and textDatesMax bound the numbers and dates taken from
// one string value.
const (
	textNumbersMax = 64
	textDatesMax   = 16
)

// TimeExpr is one time expression of a claim.
type TimeExpr struct {
	Start, End int     // rune offsets
	Days       []int32 // the days it may mean (a weekday: one; "next Friday": two)
	Lo, Hi     int32   // a range of days (lo == hi for one day)
	Bound      Cue     // cueLE (by, before, 之前) or cueGE (after, 之后)
	Clock      int     // minute of day, -1 if none
	OnlyClock  bool
	rel        bool // its days depend on the time it is read at (tomorrow, May 3, Friday)
}

func DayNumber(y int, m time.Month, d int) int32 {
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func DayOf(t time.Time) int32 {
	y, m, d := t.Date()
	return DayNumber(y, m, d)
}

var evidenceDateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05",
	"2006-01-02 15:04", "2006-01-02", "2006/01/02", "2006/1/2", "2006-1-2", "2006年1月2日",
	"2006年01月02日", "Jan 2, 2006", "January 2, 2006", "2 Jan 2006", "2 January 2006",
	"2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05Z07:00",
}

// isoDay reads a date written exactly as "2006-01-02" without time.Parse,
// which tries the five longer layouts before it first and makes an error
// for each: the day time.Parse gives for it, and false for anything else
// (another shape, a month or day out of range), which the layouts then read
// as before.
func isoDay(s string) (int32, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	n := func(b string) int {
		v := 0
		for i := 0; i < len(b); i++ {
			if !IsDigitByte(b[i]) {
				return -1
			}
			v = v*10 + int(b[i]-'0')
		}
		return v
	}
	y, m, d := n(s[:4]), n(s[5:7]), n(s[8:])
	if y < 0 || m < 1 || m > 12 || d < 1 {
		return 0, false
	}
	if t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC); t.Day() != d {
		return 0, false // past the month's last day: time.Parse refuses it
	}
	return DayNumber(y, time.Month(m), d), true
}

// ParseEvidenceDate parses a date or timestamp value; minute is the minute
// of day when the value has a time, else -1.
func ParseEvidenceDate(s string) (int32, int16, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 8 || len(s) > 40 {
		return 0, -1, false
	}
	// Cheap shape test before trying layouts: "2024-05-04…", "2024/5/4",
	// "2024年…", "May 4, 2024", "4 May 2024".
	switch c := s[0]; {
	case c >= '0' && c <= '9':
		if !(len(s) > 4 && IsDigitByte(s[1]) && IsDigitByte(s[2]) && IsDigitByte(s[3]) && strings.ContainsRune("-/年", rune(s[4]))) &&
			!(strings.IndexByte(s, ' ') > 0 && strings.IndexByte(s, ' ') <= 2) && !strings.HasPrefix(s[4:], "年") {
			return 0, -1, false
		}
	case c >= 'A' && c <= 'Z':
		if _, ok := months[strings.ToLower(s[:3])]; !ok {
			return 0, -1, false
		}
	default:
		return 0, -1, false
	}
	if d, ok := isoDay(s); ok {
		return d, -1, true
	}
	for _, l := range evidenceDateLayouts {
		t, err := time.Parse(l, s)
		if err != nil {
			continue
		}
		minute := int16(-1)
		if strings.Contains(l, "15") {
			minute = int16(t.Hour()*60 + t.Minute())
		}
		return DayOf(t), minute, true
	}
	return 0, -1, false
}

// weekdayNames are the weekday values a field may hold whole ("Mon",
// "Tuesday", "周三", "星期四").
var weekdayNames = numberTable[time.Weekday]("weekday values")

// weekdayOf reads a value that is only a weekday ("Mon", "周三").
func weekdayOf(s string) (time.Weekday, bool) {
	if wd, ok := weekdayNames[strings.TrimSuffix(s, ".")]; ok {
		return wd, true
	}
	for _, p := range []string{"周", "星期", "礼拜"} {
		if rest, found := strings.CutPrefix(s, p); found && len([]rune(rest)) == 1 {
			if d, ok := weekdays[rest]; ok {
				return d, true
			}
		}
	}
	return 0, false
}

// nextWeekday is the day of weekday wd on or after now.
func nextWeekday(wd time.Weekday, now time.Time) int32 {
	return DayOf(now) + int32((int(wd)-int(now.Weekday())+7)%7)
}

// parseClock parses a time of day value ("15:00", "3:30 PM", "18:30:00");
// it returns the minute of day or -1.
func parseClock(s string) int16 {
	s = strings.TrimSpace(s)
	if len(s) < 4 || len(s) > 11 || !IsDigitByte(s[0]) {
		return -1
	}
	for _, l := range []string{"15:04", "15:04:05", "3:04 PM", "3:04PM", "3:04 pm", "3:04pm"} {
		if t, err := time.Parse(l, s); err == nil {
			return int16(t.Hour()*60 + t.Minute())
		}
	}
	return -1
}

var months = numberTable[time.Month]("months")

// MonthNamed returns the month a word names (sept, September), as the
// time words' [months] table lists them.
func MonthNamed(w string) (time.Month, bool) {
	m, ok := months[strings.ToLower(w)]
	return m, ok
}

var weekdays = numberTable[time.Weekday]("weekdays")

func IsDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Sub returns runes [i, j) as a string: string(r[i:j]) of the runes t
// was made of, without a copy.
func (t RuneText) Sub(i, j int) string { return t.sub(i, j) }

// sub returns runes [i, j) as a string.
func (t RuneText) sub(i, j int) string {
	if t.off == nil {
		return t.S[i:j]
	}
	return t.S[t.off[i]:t.off[j]]
}

func ZhNumeralRune(c rune) bool {
	if c >= 0 && c < utf8.RuneSelf {
		return zhNumeralASCII[c] // NB: the scan of every text asks it of every rune
	}
	return LangData.IsZhNumeral(c)
}

// zhNumeralASCII is LangData.IsZhNumeral of each rune below utf8.RuneSelf
// (none is one, as the data stands), looked up without its three maps.
var zhNumeralASCII = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = LangData.IsZhNumeral(rune(c))
	}
	return t
}()

// ZhMeasureRune reports a measure word or unit that may follow a numeral.
func ZhMeasureRune(c rune) bool {
	return strings.ContainsRune("件个天台箱份双套瓶包盒张本支位人间晚次只辆元块小分周年斤克米度单笔条家款种名倍折成项例座", c)
}

// enNumberWords and magnitudeWords are number words and the words
// multiplying a number (thousand, k, 万 is Chinese and read apart).
var (
	enNumberWords  = LangData.Numbers("number words")
	magnitudeWords = LangData.Numbers("magnitude words")
)

// ScanNumbers finds the numbers of normalised text r, skipping runes
// marked in blocked (may be nil).
func ScanNumbers(r []rune, blocked []bool) []NumMention {
	return ScanNumbersIn(string(r), r, blocked)
}

// ScanNumbersIn is scanNumbers with the text also as a string, s.
func ScanNumbersIn(s string, r []rune, blocked []bool) []NumMention {
	out := append(fractionMentions(s, r, blocked), clockDurations(s, blocked)...)
	if len(out) > 0 {
		// Keep the main scan off the fractions' words.
		b := make([]bool, len(r))
		copy(b, blocked)
		for _, m := range out {
			for i := m.Start; i < m.End; i++ {
				b[i] = true
			}
		}
		blocked = b
	}
	isBlocked := func(i int) bool { return blocked != nil && i < len(blocked) && blocked[i] }
	for i := 0; i < len(r); i++ {
		if isBlocked(i) {
			continue
		}
		c := r[i]
		switch {
		case isDigit(c) || (c == '.' && i+1 < len(r) && isDigit(r[i+1]) && (i == 0 || !isDigit(r[i-1]))):
			if i > 0 && (isLatinLetter(r[i-1]) || r[i-1] == '#' || r[i-1] == '_') && !currencyBefore(r, i) {
				i = skipAlnum(r, i)
				continue
			}
			if i > 1 && r[i-1] == '-' && isLatinLetter(r[i-2]) {
				i = skipAlnum(r, i) // ORD-88231, SKU-123: an identifier
				continue
			}
			if i > 0 && r[i-1] == '第' {
				i = skipAlnum(r, i)
				continue
			}
			m, end, ok := parseMention(r, i, isBlocked)
			if !ok {
				i = max(i, end-1)
				continue
			}
			out = append(out, m)
			i = m.End - 1
		case ZhNumeralRune(c) || c == '半':
			m, ok := parseZhMention(r, i)
			if !ok {
				continue
			}
			out = append(out, m)
			i = m.End - 1
		case isLatinLetter(c) && (i == 0 || !isLatinLetter(r[i-1]) && !isDigit(r[i-1])):
			e := latinEnd(r, i)
			if v, ok := enNumberWords[string(r[i:e])]; ok {
				if m, ok := numberWordMention(r, i, e, v); ok {
					out = append(out, m)
				}
			}
			i = e - 1
		}
	}
	return joinDurations(r, out)
}

// durationJoiners may stand between the parts of a duration said in two
// units (words.txt [duration joiners]).
var durationJoiners = LangData.Set("duration joiners")

// joinDurations makes one mention of a duration said in two units, the
// larger first ("2 h 15 min", "7 minutes 42 seconds", 一小时二十分钟): the
// parts add up, in the smaller unit, so neither part is compared alone.
// The smaller part must be less than one of the larger unit (90 minutes
// after an hour is two durations, not one).
func joinDurations(r []rune, ms []NumMention) []NumMention {
	if len(ms) < 2 {
		return ms
	}
	slices.SortStableFunc(ms, func(a, b NumMention) int { return a.Start - b.Start })
	out := ms[:1]
	for _, b := range ms[1:] {
		a := &out[len(out)-1]
		if hundredthsAfter(r, a, &b) {
			continue
		}
		au, skip := a.Unit, false
		if au == nil {
			au, skip = a.MaybeUnit, true // "1 h 35 min": a lone letter is a unit beside another
		}
		if au == nil && b.Unit != nil && b.Unit.Dim == DimTime && b.Unit.Factor == 1 && a.End <= b.Start && string(r[a.End:b.Start]) == "分" {
			// 1分52秒: 分 (a minute, a point, a fen) is the minute before seconds.
			au = UnitOfValue("min")
		}
		if au == nil || b.Unit == nil || au.Dim != DimTime || b.Unit.Dim != DimTime || au.Factor <= b.Unit.Factor ||
			a.IsRange || b.IsRange || b.Bound != 0 || b.V >= au.Factor/b.Unit.Factor || a.End > b.Start || !joinedBy(r[a.End:b.Start], skip) {
			out = append(out, b)
			continue
		}
		j := b
		j.Start, j.Bound, j.Approx = a.Start, a.Bound, a.Approx || b.Approx
		j.V = a.V*au.Factor/b.Unit.Factor + b.V
		j.Hi = j.V
		*a = j
	}
	return out
}

// hundredthsAfter folds into a, a duration in seconds whose unit is a
// CJK character (1分52秒, 52秒), the one to three bare digits b written
// right after it (1分52秒46: 112.46 seconds, as a race time is read): they
// are the fraction of its last second, written to their last digit, not
// a number of their own. It reports whether it folded b.
func hundredthsAfter(r []rune, a, b *NumMention) bool {
	if a.Unit == nil || a.Unit.Dim != DimTime || a.Unit.Factor != 1 || a.IsRange || a.Decimals != 0 ||
		b.Start != a.End || a.End < 1 || !lang.IsCJK(r[a.End-1]) || b.Unit != nil || b.MaybeUnit != nil || b.IsRange || b.Bound != 0 || b.Mag > 1 {
		return false
	}
	n := b.End - b.Start
	if n < 1 || n > 3 || b.End > len(r) || slices.ContainsFunc(r[b.Start:b.End], func(c rune) bool { return !isDigit(c) }) {
		return false
	}
	a.V += b.V / math.Pow(10, float64(n))
	a.Hi, a.End, a.Decimals, a.Clock = a.V, b.End, n, true
	return true
}

// commaSpacer sets commas apart as words of their own; made once, not per
// pair of numbers.
var commaSpacer = strings.NewReplacer(",", " , ", "，", " ， ")

// joinedBy reports whether the text between two numbers is nothing but
// spaces and duration joiners, after the first number's unit letter if
// skipUnit.
func joinedBy(between []rune, skipUnit bool) bool {
	for i, w := range strings.Fields(commaSpacer.Replace(string(between))) {
		if i == 0 && skipUnit {
			continue
		}
		if !durationJoiners[w] {
			return false
		}
	}
	return true
}

// reFraction finds durations said in words: "three quarters of an hour",
// "half an hour", "an hour and a half", "two and a half days".
var reFraction = regexp.MustCompile(`\b(?:(a|one|two|three) quarters? of an hour|(half an hour|half a day|an hour and a half|a day and a half)|(one|two|three|four|five|six|\d+) and a half (hours?|days?|years?|weeks?))\b`)

// reOneUnit finds "an hour", "a day" after a bound or duration word
// ("under an hour", "within a day", "takes a week"), where the article is
// the number one; elsewhere ("$20 an hour", "twice a day") it is a rate.
var reOneUnit = regexp.MustCompile(`\b(?:under|within|over|about|around|nearly|almost|than|least|most|up to|in|takes|took|lasts|lasted) (an hour|a day|a week|a minute)\b`)

func fractionMentions(s string, r []rune, blocked []bool) []NumMention {
	var out []NumMention
	if !strings.Contains(s, " an hour") && !strings.Contains(s, " a day") && !strings.Contains(s, " a week") && !strings.Contains(s, " a minute") &&
		!strings.Contains(s, "half") && !strings.Contains(s, "quarter") {
		return nil // neither regexp can match
	}
	for _, m := range reOneUnit.FindAllStringSubmatchIndex(s, -1) {
		start, end := utf8.RuneCountInString(s[:m[2]]), utf8.RuneCountInString(s[:m[3]])
		if blocked != nil && slices.Contains(blocked[start:end], true) {
			continue
		}
		if strings.HasPrefix(s[m[1]:], " and a half") {
			continue // "an hour and a half" is read below
		}
		w := s[m[2]:m[3]]
		u := UnitWords[w[strings.IndexByte(w, ' ')+1:]]
		if u == nil {
			continue
		}
		out = append(out, NumMention{Start: start, End: end, Mag: 1, V: 1, Hi: 1, Unit: u})
	}
	if !strings.Contains(s, "half") && !strings.Contains(s, "quarter") {
		return out
	}
	for _, m := range reFraction.FindAllStringSubmatchIndex(s, -1) {
		start, end := utf8.RuneCountInString(s[:m[0]]), utf8.RuneCountInString(s[:m[1]])
		if blocked != nil && slices.Contains(blocked[start:end], true) {
			continue
		}
		mm := NumMention{Start: start, End: end, Mag: 1, Decimals: 2}
		switch {
		case m[2] >= 0:
			k := map[string]float64{"a": 1, "one": 1, "two": 2, "three": 3}[s[m[2]:m[3]]]
			mm.V, mm.Unit = 15*k, UMin
		case m[4] >= 0:
			mm.V, mm.Unit = map[string]float64{"half an hour": 30, "half a day": 12, "an hour and a half": 90, "a day and a half": 36}[s[m[4]:m[5]]], UMin
			if strings.Contains(s[m[4]:m[5]], "day") {
				mm.Unit = UHour
			}
		default:
			n, ok := enNumberWords[s[m[6]:m[7]]]
			if !ok {
				n, _ = strconv.ParseFloat(s[m[6]:m[7]], 64)
			}
			mm.V, mm.Unit = n+0.5, UnitWords[strings.TrimSuffix(s[m[8]:m[9]], "s")]
		}
		mm.Hi = mm.V
		out = append(out, mm)
	}
	return out
}

// reClockDuration finds a duration written as a clock: h:mm:ss, m:ss or
// either with a decimal fraction of a second. clockDurations says which
// of its matches are durations.
var reClockDuration = regexp.MustCompile(`(\d{1,3}):([0-5]\d)(?::([0-5]\d))?(?:\.(\d{1,3}))?`)

// clockDurations finds the durations of s written as a clock, in seconds:
// three parts (1:14:51, not 02:15:00, whose leading zero writes a time
// of day), a fraction of a second (9:58.12), or minutes no hour of the day
// has (31:02; 70:30, whose parts add up to 100, is a split). 14:30 is a
// time of day (the time scan reads it), and a part of a timestamp, a date
// or a longer run of digits is none.
func clockDurations(s string, blocked []bool) []NumMention {
	if !strings.Contains(s, ":") {
		return nil
	}
	var out []NumMention
	for _, m := range reClockDuration.FindAllStringSubmatchIndex(s, -1) {
		if !clockDurationAt(s, m[0], m[1]) {
			continue
		}
		a, b := atoiASCII(s[m[2]:m[3]]), atoiASCII(s[m[4]:m[5]])
		v, dec := float64(a*60+b), 0
		if m[6] >= 0 {
			v = float64(a*3600 + b*60 + atoiASCII(s[m[6]:m[7]]))
		}
		if m[8] >= 0 {
			f := s[m[8]:m[9]]
			dec = len(f)
			v += float64(atoiASCII(f)) / math.Pow(10, float64(dec))
		}
		start, end := utf8.RuneCountInString(s[:m[0]]), utf8.RuneCountInString(s[:m[1]])
		if blocked != nil && slices.Contains(blocked[start:min(end, len(blocked))], true) {
			continue
		}
		out = append(out, NumMention{Start: start, End: end, V: v, Hi: v, Mag: 1, Decimals: dec, Unit: uSec, Clock: true})
	}
	return out
}

// clockDurationAt reports whether s[i:j], digits and colons (and a
// fraction) that reClockDuration or a clock time matched, is a duration
// written as a clock (see clockDurations), looking at the whole run of
// digits, colons and stops around it.
func clockDurationAt(s string, i, j int) bool {
	for i > 0 && (IsDigitByte(s[i-1]) || s[i-1] == ':' || s[i-1] == '.' && i > 1 && IsDigitByte(s[i-2])) {
		i--
	}
	for j < len(s) && (IsDigitByte(s[j]) || (s[j] == ':' || s[j] == '.') && j+1 < len(s) && IsDigitByte(s[j+1])) {
		j++
	}
	if i > 0 {
		if c, _ := utf8.DecodeLastRuneInString(s[:i]); isLatinLetter(c) || strings.ContainsRune("-/+_#", c) {
			return false // T10:15:30, 2026-12-07 10:15:30 is read as a time
		}
	}
	if j < len(s) {
		if c, _ := utf8.DecodeRuneInString(s[j:]); isLatinLetter(c) || strings.ContainsRune("+_#", c) {
			return false // 10:15:30Z, 10:15:30+08:00
		}
	}
	if i > 0 && s[i-1] == ' ' && i > 1 && IsDigitByte(s[i-2]) {
		return false // 2026-12-07 10:15:30, 12/07 10:15
	}
	m := reClockDuration.FindStringSubmatchIndex(s[i:j])
	if m == nil || m[0] != 0 || m[1] != j-i {
		return false
	}
	a, b := atoiASCII(s[i+m[2]:i+m[3]]), atoiASCII(s[i+m[4]:i+m[5]])
	switch {
	case m[6] >= 0:
		return s[i] != '0' && a < 100 && !ampm(s[j:])
	case m[8] >= 0:
		return true
	default:
		return a >= 24 && a+b != 100 && !ampm(s[j:])
	}
}

// IsClockDuration reports whether s is nothing but a duration written as
// a clock ("1:44.6", "1:14:51"): a number, not a name a claim mentions.
func IsClockDuration(s string) bool {
	m := reClockDuration.FindStringIndex(s)
	return m != nil && m[0] == 0 && m[1] == len(s) && clockDurationAt(s, 0, len(s))
}

// ampm reports whether s starts, after spaces, with am or pm.
func ampm(s string) bool {
	s = strings.ToLower(strings.TrimLeft(s, " "))
	return strings.HasPrefix(s, "am") || strings.HasPrefix(s, "pm") || strings.HasPrefix(s, "a.m") || strings.HasPrefix(s, "p.m")
}

// atoiASCII is the value of a run of ASCII digits.
func atoiASCII(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// skipAlnum returns the index of the last rune of the identifier that
// starts at i (at least i, so that a scan always advances).
func skipAlnum(r []rune, i int) int {
	j := i + 1
	for j < len(r) && (isDigit(r[j]) || isLatinLetter(r[j]) || r[j] == '-' || r[j] == '_' || r[j] == '.' && j+1 < len(r) && isDigit(r[j+1])) {
		j++
	}
	return j - 1
}

// latinEnd returns the end of the Latin word at r[i] (i when there is
// none). Callers convert r[i:end] to a string where they use it, so that
// a word only looked up costs no allocation.
func latinEnd(r []rune, i int) int {
	j := i
	for j < len(r) && isLatinLetter(r[j]) {
		j++
	}
	return j
}

// currencyBefore reports a currency sign or code just before r[i].
func currencyBefore(r []rune, i int) bool {
	_, _, ok := prefixUnit(r, i)
	return ok
}

// prefixUnit finds a currency sign or code ending at i (allowing one
// space): "$12", "US$ 12", "¥12", "RMB 12", "EUR12".
func prefixUnit(r []rune, i int) (*Unit, int, bool) {
	if i > len(r) {
		return nil, i, false
	}
	j := i
	if j > 0 && r[j-1] == ' ' {
		j--
	}
	for n := 3; n >= 1; n-- {
		if j-n < 0 {
			continue
		}
		s := string(r[j-n : j])
		u, ok := unitPrefix[s]
		if !ok {
			continue
		}
		if isLatinLetter(r[j-n]) && j-n > 0 && isLatinLetter(r[j-n-1]) {
			continue // "plus12" is not "us 12"
		}
		if n == 1 && j != i && !strings.ContainsAny(s, "$¥￥€£") {
			continue
		}
		return u, j - n, true
	}
	return nil, i, false
}

// parseNumber parses digits with thousands separators and a decimal part
// at r[i]; it returns the value, the digits after the point and the end.
func parseNumber(r []rune, i int) (float64, int, int, bool) {
	j := i
	var b strings.Builder
	dec := -1
	for j < len(r) {
		c := r[j]
		switch {
		case isDigit(c):
			b.WriteRune(c)
			if dec >= 0 {
				dec++
			}
		case c == ',' && dec < 0 && j+3 < len(r)+0 && j+3 <= len(r)-1+1 && groupOf3(r, j+1):
			// thousands separator
		case c == '.' && dec < 0 && j+1 < len(r) && isDigit(r[j+1]):
			b.WriteRune('.')
			dec = 0
		default:
			goto done
		}
		j++
	}
done:
	if b.Len() == 0 {
		return 0, 0, j, false
	}
	v, err := strconv.ParseFloat(b.String(), 64)
	if err != nil {
		return 0, 0, j, false
	}
	return v, max(dec, 0), j, true
}

func groupOf3(r []rune, i int) bool {
	if i+3 > len(r) {
		return false
	}
	for k := i; k < i+3; k++ {
		if !isDigit(r[k]) {
			return false
		}
	}
	return i+3 == len(r) || !isDigit(r[i+3])
}

// parseMention parses a number at r[i] with its prefix currency, magnitude,
// unit and an optional second number of a range.
func parseMention(r []rune, i int, blocked func(int) bool) (NumMention, int, bool) {
	m := NumMention{Start: i, Mag: 1}
	if u, s, ok := prefixUnit(r, i); ok {
		m.Unit, m.Start = u, s
	}
	// A minus sign after a space, a bracket or an ideograph (约-740毫米:
	// Chinese puts no space before it) is the number's sign.
	if i > 0 && r[i-1] == '-' && (i < 2 || r[i-2] == ' ' || r[i-2] == '(' || lang.IsCJK(r[i-2]) || r[i-2] == '：' || r[i-2] == '，') && m.Unit == nil {
		m.Start = i - 1
	}
	v, dec, j, ok := parseNumber(r, i)
	if !ok {
		return m, j, false
	}
	if m.Start == i-1 && r[i-1] == '-' {
		v = -v
	}
	if i >= 2 && string(r[i-2:i]) == "零下" {
		v = -v
	}
	// Ordinals and identifiers: 1st, 2nd, 3rd, 4th, 12abc.
	if j < len(r) && isLatinLetter(r[j]) {
		e := latinEnd(r, j)
		w := string(r[j:e])
		switch {
		case w == "st" || w == "nd" || w == "rd" || w == "th":
			return m, e, false
		case magnitudeWords[w] > 0 && len(w) == 1 && (w == "k" || m.Unit != nil && m.Unit.Dim == DimCurrency):
			v *= magnitudeWords[w]
			m.Mag = magnitudeWords[w]
			j = e
		case UnitWords[w] != nil:
		default:
			if e-j <= 3 && UnitWords[w] == nil && (e >= len(r) || !isDigit(r[e])) {
				// e.g. "5x" — not a unit we know; keep the number alone.
				if w != "x" && w != "pm" && w != "am" {
					return m, e, false
				}
			}
		}
	}
	m.V, m.Hi, m.Decimals = v, v, dec
	j = m.magnitude(r, j)
	j = m.unitAfter(r, j)
	m.End = j
	m.rangeAfter(r, blocked)
	m.Hi = max(m.Hi, m.V)
	return m, m.End, true
}

// magnitude applies a magnitude word after the number ("3.2 billion",
// "1.5万", "12 thousand").
func (m *NumMention) magnitude(r []rune, j int) int {
	if j+1 < len(r) && r[j] == ' ' && strings.ContainsRune("万亿", r[j+1]) {
		j++ // "1.2 万件"
	}
	if j < len(r) {
		switch r[j] {
		case '万', '亿', '千', '百':
			for n := min(len(r)-j, 4); n >= 2; n-- {
				if _, ok := UnitWords[string(r[j:j+n])]; ok {
					return j // 千克, 千米, 千瓦时, 千卡: a unit, not a magnitude
				}
			}
			f := map[rune]float64{'万': 1e4, '亿': 1e8, '千': 1e3, '百': 1e2}[r[j]]
			j++
			if j < len(r) && (r[j] == '万' || r[j] == '亿') {
				f *= map[rune]float64{'万': 1e4, '亿': 1e8}[r[j]]
				j++
			}
			m.V *= f
			m.Hi *= f
			m.Mag *= f
			return j
		}
	}
	k := j
	if k < len(r) && r[k] == ' ' {
		k++
	}
	e := latinEnd(r, k)
	w := string(r[k:e])
	if f, ok := magnitudeWords[w]; ok && len(w) > 1 {
		m.V *= f
		m.Hi *= f
		m.Mag *= f
		return e
	}
	return j
}

// unitAfter reads a unit after the number, longest spelling first.
func (m *NumMention) unitAfter(r []rune, j int) int {
	if j < len(r) && (r[j] == '%' || r[j] == '‰') {
		m.Unit = UPercent
		return j + 1
	}
	k := j
	space := false
	if k < len(r) && r[k] == ' ' {
		k++
		space = true
	} else if k+1 < len(r) && r[k] == '-' && isLatinLetter(r[k+1]) {
		k++ // "14-day", "12-year"
	}
	lens := unitWordLens(r, k)
	for n := min(maxUnitRunes, len(r)-k); n > 0; n-- {
		if lens&(1<<n) == 0 {
			continue // no unit word of n runes starts with r[k]
		}
		u, ok := UnitWords[string(r[k:k+n])] // NB: no allocation: the key does not escape
		if !ok {
			continue
		}
		s := string(r[k : k+n])
		last := r[k+n-1]
		if isLatinLetter(last) && k+n < len(r) && (isLatinLetter(r[k+n]) || isDigit(r[k+n])) {
			continue // "12 inches" not "12 in"; "5 mins" not "5 min"+"s"
		}
		if isLatinLetter(r[k]) && n == 1 && space && s != "%" {
			if m.Unit == nil && (k+1 >= len(r) || !isLatinLetter(r[k+1])) {
				m.MaybeUnit = u
			}
			continue // "5 m" is too ambiguous; "5m" is metres
		}
		if s == "周" || s == "星期" {
			if k+n < len(r) && strings.ContainsRune("一二三四五六日天末", r[k+n]) {
				continue // 周五 is a weekday
			}
		}
		if s == "年" && m.V >= 1900 {
			continue // 2024年 is a year
		}
		if m.Unit != nil && m.Unit.Dim == DimCurrency && u.Dim == DimCurrency {
			return k + n // "$12 USD"
		}
		if m.Unit != nil && u.Dim != DimCurrency {
			continue
		}
		m.Unit = u
		m.UnitWord = s
		if u == uZhe {
			// 8.5 折 / 85 折 / 八折 / 八五折: that share of the original price.
			if v, ok := LangData.ZhDigitRun(r[m.Start:j]); ok {
				m.V, m.Hi = v, v // 八五折: 85, not the 五 a numeral would end on
			}
			if m.V < 10 {
				m.V, m.Hi = m.V*10, m.Hi*10
			}
			m.Unit = UPercent
		}
		return k + n
	}
	return j
}

// rangeAfter extends m with a second number: "3-5", "3 to 5", "3~5",
// "3至5", "3到5天", "$10-$15", "between 3 and 5".
func (m *NumMention) rangeAfter(r []rune, blocked func(int) bool) {
	j := m.End
	k := j
	for k < len(r) && r[k] == ' ' {
		k++
	}
	sepEnd := -1
	switch {
	case k < len(r) && strings.ContainsRune("-~～至到", r[k]):
		sepEnd = k + 1
	case k+2 <= len(r) && string(r[k:k+2]) == "to" && (k+2 == len(r) || r[k+2] == ' ') && !precededBy(r, m.Start, "by"):
		sepEnd = k + 2 // not "fell by $0.5 billion to $1.1 billion"
	case k+3 <= len(r) && string(r[k:k+3]) == "and" && m.Start >= 8 && strings.HasSuffix(strings.TrimRight(string(r[max(0, m.Start-9):m.Start]), " "), "between"):
		sepEnd = k + 3
	}
	if sepEnd < 0 {
		return
	}
	n := sepEnd
	for n < len(r) && r[n] == ' ' {
		n++
	}
	if n < len(r) && !isDigit(r[n]) {
		if _, _, ok := prefixUnit(r, n+1); ok {
			n++ // "$10-$15"
		}
	}
	if n >= len(r) || !isDigit(r[n]) || blocked(n) {
		return
	}
	v2, dec, e, ok := parseNumber(r, n)
	if !ok {
		return
	}
	second := NumMention{V: v2, Hi: v2, Mag: 1, Decimals: dec}
	e = second.magnitude(r, e)
	if m.Mag != 1 && second.Mag == 1 {
		second.V *= m.Mag
	}
	e = second.unitAfter(r, e)
	if second.Unit != nil && m.Unit != nil && second.Unit.Dim != m.Unit.Dim {
		return
	}
	if second.V < m.V {
		return
	}
	if m.Unit == nil {
		m.Unit = second.Unit
	}
	if second.Mag != 1 && m.Mag == 1 {
		m.V *= second.Mag
		m.Mag = second.Mag
	}
	m.Hi = second.V
	m.IsRange = true
	m.Decimals = max(m.Decimals, dec)
	m.End = e
}

// precededBy reports whether the word before position i is w.
func precededBy(r []rune, i int, w string) bool {
	j := i
	for j > 0 && (r[j-1] == ' ' || strings.ContainsRune("$¥€£", r[j-1])) {
		j--
	}
	k := j
	for k > 0 && isLatinLetter(r[k-1]) {
		k--
	}
	return string(r[k:j]) == w
}

// parseZhMention parses a Chinese numeral followed by a unit or measure
// word (两件, 三天, 二十五度, 百分之二十, 半小时).
func parseZhMention(r []rune, i int) (NumMention, bool) {
	m := NumMention{Start: i, Mag: 1}
	pct := false
	if i >= 3 && string(r[i-3:i]) == "百分之" {
		m.Start, pct = i-3, true
	}
	var v float64
	var j int
	if r[i] == '半' {
		v, j = 0.5, i+1
	} else {
		var ok bool
		v, j, ok = parseZhNumber(r, i)
		if !ok {
			return m, false
		}
	}
	if i > 0 && r[i-1] == '第' {
		return m, false
	}
	if r[i] == '一' && j == i+1 && (i == 0 || !strings.ContainsRune("剩有共只仅还买订购余是为了", r[i-1])) {
		// 一箱, 一个: an article, not a count; but 一周, 一天 are durations.
		if u := (&NumMention{Mag: 1}); u.unitAfter(r, j) == j || u.Unit == nil || u.Unit.Dim != DimTime {
			return m, false
		}
	}
	if j < len(r) && r[j] == '半' {
		j++
		v += 0.5
	}
	m.V, m.Hi = v, v
	if pct {
		m.Unit, m.End = UPercent, j
		return m, true
	}
	// "一个半小时": a measure word before the unit.
	end := m.unitAfter(r, j)
	if end == j {
		if j < len(r) && ZhMeasureRune(r[j]) && r[j] != '分' && r[j] != '成' {
			end = j + 1
			m.Unit = uCount
		} else {
			return m, false
		}
	}
	if m.Unit == uCount && end < len(r) && r[end] == '半' {
		end++
		m.V += 0.5
		// 三个半小时, 两个半月: the unit after the half is the number's.
		u := NumMention{Mag: 1}
		if e := u.unitAfter(r, end); e > end && u.Unit != nil && u.Unit.Dim == DimTime {
			m.Unit, m.UnitWord, end = u.Unit, u.UnitWord, e
		}
	}
	m.Hi = m.V
	m.End = end
	return m, true
}

// numberWordMention accepts an English number word when a unit or noun
// follows ("two days", "three items"); "one" needs a unit.
func numberWordMention(r []rune, s, e int, v float64) (NumMention, bool) {
	m := NumMention{Start: s, End: e, V: v, Hi: v, Mag: 1}
	end := m.unitAfter(r, e)
	if end == e {
		if v == 1 || v == 0 {
			return m, false
		}
		k := e
		if k < len(r) && r[k] == ' ' {
			k++
		}
		w := string(r[k:latinEnd(r, k)])
		if w == "" || EnLex[w] != nil && EnLex[w].Cues&CueStop != 0 && EnLex[w].Concepts == nil {
			return m, false
		}
	}
	m.End = end
	return m, true
}

// YearLike reports whether m is written as a calendar year: a plain
// four-digit integer from 1900 to 2099, with no unit, magnitude or hedge.
func (m *NumMention) YearLike() bool {
	return m.Unit == nil && m.Mag == 1 && m.Decimals == 0 && !m.Approx && !m.IsRange &&
		m.V >= 1900 && m.V < 2100 && m.V == math.Trunc(m.V) && m.End-m.Start == 4
}

// keyNumbers indexes what a numeric field's key says about its value: a
// magnitude (the value in 万元 is also indexed in 元) and a number in the
// key itself (sales_30d is about 30 days).
func (w *Walker) keyNumbers(id int32, ki *keyInfo) {
	ix := w.Ix
	base := ix.Leaves[id]
	if ki.mag != 1 {
		lf := base
		lf.Num, lf.Hi, lf.Scaled = base.Num*ki.mag, base.Hi*ki.mag, true
		if ki.magCurrency {
			lf.setUnit(UCNY)
			lf.Dim = DimCurrency
		}
		if ki.magUnit != nil {
			lf.setUnit(ki.magUnit)
			lf.Dim = ki.magUnit.Dim
		}
		ix.Leaves = append(ix.Leaves, lf)
	}
	for _, m := range ki.numbers {
		lf := base
		lf.Num, lf.Hi, lf.Dim, lf.Text = m.V, m.V, m.Unit.Dim, true
		lf.setUnit(m.Unit)
		ix.Leaves = append(ix.Leaves, lf)
	}
}

// TextItems finds the numbers ("3-5 business days", "$25.00", "revenue
// rose 12% to 3.2 billion") and dates ("launches on June 3", "landfall on
// Thursday evening", resolved against the answer's time) in s.
func (w *Walker) TextItems(s string, dates bool) []TextItem { return w.textItems(s, dates, nil) }

// textItems is TextItems with what strInfo worked out of s (si), or nil:
// its normalised runes and tokens are read, not made again.
func (w *Walker) textItems(s string, dates bool, si *strInfo) []TextItem {
	if si != nil && dates && si.itemsDone {
		return si.items // NB: the items of s with dates, kept by the string's strInfo
	}
	key := textKey{s, dates}
	if items, ok := w.Ix.texts[key]; ok {
		if si != nil && dates {
			si.items, si.itemsDone = items, true
		}
		return items
	}
	var items []TextItem
	var norm []rune
	var normS string
	if si != nil {
		norm, normS = si.runes, si.norm
	} else {
		norm = lang.Normalize(s)
		normS = string(norm)
	}
	var toks []Token
	near := func(a, b int) []string {
		if toks == nil {
			if si != nil {
				toks = si.tokensOf()
			} else {
				toks = Tokenize(norm)
			}
		}
		return nearbyConcepts(toks, a, b, 6)
	}
	if strings.ContainsAny(s, "0123456789０１２３４５６７８９") {
		for k, m := range ScanNumbersIn(normS, norm, nil) {
			if k >= textNumbersMax {
				break
			}
			bare := true
			for i, c := range norm {
				if (i < m.Start || i >= m.End) && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
					bare = false
					break
				}
			}
			items = append(items, TextItem{num: m.V, hi: m.Hi, unit: m.Unit, pos: int32(m.Start), near: near(m.Start, m.End), bare: bare})
		}
	}
	if dates && len(s) >= 5 && mightHaveDate(norm) {
		for _, te := range textDates(norm, w.Now) {
			items = append(items, TextItem{Date: true, day: te.Days[0], clock: int16(te.Clock), pos: int32(te.Start), near: near(te.Start, te.End), rel: te.rel})
		}
	}
	w.Ix.texts[key] = items
	if si != nil && dates {
		si.items, si.itemsDone = items, true
	}
	return items
}

// textNumbers and textDates index the items of a string value as leaves
// pointing at the string.
// si is what strInfo worked out of s.
func (w *Walker) textNumbers(id int32, s string, si *strInfo) {
	if s == "" || len(s) > 20000 {
		return
	}
	w.textLeaves(id, s, false, si)
}

func (w *Walker) textDates(id int32, s string, si *strInfo) {
	if s == "" || len(s) > 20000 {
		return
	}
	w.textLeaves(id, s, true, si)
}

func (w *Walker) textLeaves(id int32, s string, dates bool, si *strInfo) {
	ix := w.Ix
	base := ix.Leaves[id]
	items := w.textItems(s, true, si)
	// The string is the value itself when nothing but one number and its
	// unit is written in it.
	short := !dates && len(items) == 1 && !items[0].Date && items[0].bare
	nth := 0 // of the dates
	for _, it := range items {
		if it.Date != dates {
			continue
		}
		nth++
		lf := base
		lf.Text, lf.catID, lf.Src, lf.TextPos = true, 0, id, it.pos
		w.setTextCtx(&lf, base.ctxID, it.near)
		if dates {
			lf.HasDay, lf.Day, lf.Minute = true, it.day, it.clock
			if it.rel {
				lf.rel = int8(nth)
			}
		} else {
			lf.Kind, lf.strID, lf.TextShort = KindNum, 0, short
			lf.Num, lf.Hi, lf.Dim = it.num, it.hi, DimNone
			lf.setUnit(it.unit)
			if it.unit != nil {
				lf.Dim = it.unit.Dim
			}
		}
		ix.Leaves = append(ix.Leaves, lf)
	}
}

// setTextCtx gives lf the context base followed by near, numbered once
// for each pair: a text repeated across a result ("Ships in 3-5 business
// days" in every item) would otherwise build and look up the same list
// for every value in it.
func (w *Walker) setTextCtx(lf *Leaf, base uint32, near []string) {
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

// nearbyConcepts returns the concepts of up to n tokens around [s, e).
func nearbyConcepts(toks []Token, s, e, n int) []string {
	var out []string
	for _, tk := range toks {
		if tk.End <= s && tk.End > s-40 || tk.Start >= e && tk.Start < e+40 {
			cs, one, isOne := wordConcepts(tk.S) // NB: WordConcepts without a list made
			if isOne && len(out) < n {
				out = append(out, one)
			}
			for _, c := range cs {
				if len(out) < n {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// DateTarget is an evidence date (or day window) a time claim is checked
// against.
type DateTarget struct {
	Leaves []int32
	Lo, Hi int32
	Score  int
	Clock  int
}

// DayHolds decides a time expression against one evidence date or window.
func DayHolds(te *TimeExpr, t *DateTarget) (events.Verdict, bool) {
	switch te.Bound {
	case CueLE:
		if t.Hi <= te.Hi {
			return events.VerdictSupported, true
		}
		return "", false
	case CueGE:
		if t.Lo >= te.Lo {
			return events.VerdictSupported, true
		}
		return "", false
	}
	if te.Lo != te.Hi && len(te.Days) == 2 && te.Days[1] == te.Days[0]+1 {
		// A weekend: any day of it.
		if t.Lo >= te.Lo && t.Hi <= te.Hi {
			return events.VerdictSupported, true
		}
		return "", false
	}
	for _, d := range te.Days {
		if t.Lo == t.Hi && t.Lo == d {
			return events.VerdictSupported, true
		}
		if t.Lo != t.Hi && (d == t.Lo || d == t.Hi) && t.Hi-t.Lo <= 1 {
			return events.VerdictSupported, true
		}
		if t.Lo != t.Hi && d >= t.Lo && d <= t.Hi {
			return events.VerdictUnsupported, true
		}
	}
	return "", false
}

// mightHaveDate is a cheap test for a date inside text: a month or weekday
// name, a relative day, a Chinese date, or digits joined by - or /.
func mightHaveDate(r []rune) bool {
	s := string(r)
	if hasAnyRune(s, "月周星今明昨后") || HasMonthName(s) {
		return true
	}
	for _, w := range []string{"day", "tomorrow", "tonight", "weekend"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	for i := 1; i+1 < len(r); i++ {
		if (r[i] == '-' || r[i] == '/') && isDigit(r[i-1]) && isDigit(r[i+1]) {
			return true
		}
	}
	return false
}

// cutAt returns the cut of the array whose element holds the pointer ptr
// of callID's result, if an excerpt left rows of it out.
func (ix *Index) cutAt(callID, ptr string) (events.ArrayCut, bool) {
	for i := range ix.Ev {
		if ix.Ev[i].CallID != callID {
			continue
		}
		for _, c := range ix.Ev[i].Cuts {
			if c.Len > c.Kept && strings.HasPrefix(ptr, c.Pointer+"/") {
				return c, true
			}
		}
	}
	return events.ArrayCut{}, false
}

// StatsOf returns the statistics of field over the rows of callID's array
// at the pointer array, if its summary states them.
func (ix *Index) StatsOf(callID, array, field string) (FieldStats, bool) {
	for i := range ix.Ev {
		if ix.Ev[i].CallID != callID {
			continue
		}
		for _, st := range ix.Ev[i].Stats {
			if st.Array == array && st.Field == field {
				return st, true
			}
		}
	}
	return FieldStats{}, false
}

// CutOf returns the cut of an array an excerpt shortened that holds one of
// refs, if any, and the call of its result.
func (ix *Index) CutOf(refs []events.EvidenceRef) (events.ArrayCut, string, bool) {
	for _, r := range refs {
		if c, ok := ix.cutAt(r.CallID, r.Pointer); ok {
			return c, r.CallID, true
		}
	}
	return events.ArrayCut{}, "", false
}
