package memory

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
)

// A correction said in other words names the value it replaces, not its
// slot: "Harrow Barn, not the Old Mill", 是安达，不是顺达, 不是周四，是周三.
// The extractor cannot know the slot (it reads one message); it writes the
// correction as a fact of the slot correction/<the replaced value> with the
// new value, and the projection (tx.corrected) moves it into the slot of
// the user's newest live statement whose value holds the replaced one,
// where it supersedes that statement with the audit links a newer value
// of the slot leaves. A correction that names no value the user stated is
// kept as an episode: it slots nothing.

// correctionSubject is the subject of such a correction as the extractor
// writes it; no record keeps it.
const correctionSubject = "correction"

// correctionWordsMax bounds the words of each side of an English correction.
const correctionWordsMax = 6

// correctionLead are the words a correction opens with before its value
// ("no wait", "sorry", "I meant", "it's").
var correctionLead = phrasesOf("en words", "correction_lead")

// matchCorrectionEN reads "A, not B" at a sentence's start ("Harrow Barn,
// not the Old Mill - I had them muddled", "it's 10, not 9", "no wait - it's
// the 19th, not the 9th", "I meant gate 14, not 41"): A, after the words a
// correction opens with, a name or a number (a capital or a digit first,
// or a short phrase holding one: "gate 14"), B what the user said
// before.
func matchCorrectionEN(ws []word) (events.Observation, bool) {
	i := slices.IndexFunc(ws, func(x word) bool { return x.low == "," })
	start := 0
	for i > 0 && i+1 < len(ws) && ws[i+1].low != "not" {
		start = i + 1
		j := slices.IndexFunc(ws[start:], func(x word) bool { return x.low == "," })
		if j < 0 {
			return events.Observation{}, false
		}
		i = start + j
	}
	if i <= 0 || i+2 >= len(ws) || ws[i+1].low != "not" {
		return events.Observation{}, false
	}
	for k := 0; k < start; k++ { // what comes before A only opens the correction
		if n := phraseAt(ws, k, correctionLead); n > 0 {
			k += n - 1
		} else if ws[k].low != "," && !fillers[ws[k].low] {
			return events.Observation{}, false
		}
	}
	a := ws[start:i]
	for len(a) > 1 {
		if fillers[a[0].low] {
			a = a[1:]
		} else if n := phraseAt(a, 0, correctionLead); n > 0 && n < len(a) {
			a = a[n:]
		} else {
			break
		}
	}
	if slices.ContainsFunc(a, func(x word) bool { return x.low == "i" || x.low == "we" }) {
		return events.Observation{}, false // "it's the 5pm train I take, not …": a cleft (matchCleftEN)
	}
	a = object(a)
	b := object(ws[i+2:])
	if len(a) == 0 || len(b) == 0 || len(a) > correctionWordsMax || len(b) > correctionWordsMax ||
		pronouns[a[0].low] || pronouns[b[0].low] || !correctionValue(a) {
		return events.Observation{}, false
	}
	return correction(joinOrig(a), joinOrig(b))
}

// correctionValue reports whether a may be the value a correction gives:
// a name or a number first ("Harrow Barn", "19th of August"), or up to
// three words one of which, after the first, is a number or a name ("gate
// 14", "row D").
func correctionValue(a []word) bool {
	if isCapital(a[0].orig) || isDigitByte(a[0].low[0]) {
		return true
	}
	return len(a) <= 3 && slices.ContainsFunc(a[1:], func(x word) bool { return isDigitByte(x.low[0]) || isCapital(x.orig) })
}

// matchCorrectionLateEN reads ", not B" later in a sentence nothing else
// read ("Actually, it's the chargers on Station Road I use, not Mill
// Road"): A is the last name or number of the clause before it (a run of
// capitalised words or numbers, "I" and the clause's first word aside).
func matchCorrectionLateEN(ws []word) (events.Observation, bool) {
	start := 0
	for i := 0; i+2 < len(ws); i++ {
		if ws[i].low != "," {
			continue
		}
		clause := ws[start:i]
		start = i + 1
		if ws[i+1].low != "not" {
			continue
		}
		end := len(clause)
		for end > 1 && !correctionNameWord(clause[end-1]) {
			end--
		}
		begin := end
		for begin > 1 {
			if correctionNameWord(clause[begin-1]) {
				begin--
			} else if begin > 2 && clause[begin-1].low == "of" && correctionNameWord(clause[begin-2]) {
				begin -= 2 // "the 30th of May"
			} else {
				break
			}
		}
		b := object(clauseOf(ws[i+2:]))
		if a, ok := correctedQuantityEN(clause, b); ok {
			return correction(a, joinOrig(b)) // "a metre and a half wide, not 135 cm"
		}
		if begin == end || end-begin > correctionWordsMax || len(b) == 0 || len(b) > correctionWordsMax ||
			pronouns[b[0].low] || !correctionNameWord(b[0]) {
			continue
		}
		return correction(joinOrig(clause[begin:end]), joinOrig(b))
	}
	return events.Observation{}, false
}

// correctedQuantityEN returns, when b (what a correction says it is not)
// is a quantity ("135 cm"), the last quantity of the same dimension the
// clause before says ("a metre and a half"), as it says it: the two name
// one thing's amount, compared like with like (quantity.go).
func correctedQuantityEN(clause, b []word) (string, bool) {
	bq, ok := wholeQuantity(joinOrig(b))
	if !ok {
		return "", false
	}
	a := ""
	for k := 0; k < len(clause); k++ {
		if q, n := quantityAtEN(clause, k); n > 0 {
			if q.unit.Dim == bq.unit.Dim && !q.same(bq) {
				a = q.text
			}
			k += n - 1
		}
	}
	return a, a != ""
}

// correctionNameWord reports whether x may be part of a name or number a
// correction gives: a capitalised word other than "I", or a word
// that is a number, a day of the month ("30th") or a clock time ("23:40").
func correctionNameWord(x word) bool {
	return x.low != "i" && (isCapital(x.orig) || isNumber(x.low) || ordinal.MatchString(x.low) || colonClock.MatchString(x.low))
}

// colonClock is a clock time written with a colon.
var colonClock = regexp.MustCompile(`^[0-9]{1,2}:[0-9]{2}$`)

// matchCorrectionZH reads 是A，不是B and 不是B，是A (or without the comma:
// 是A不是B) as A replacing B.
func matchCorrectionZH(sent string) (events.Observation, bool) {
	parts := strings.FieldsFunc(sent, func(r rune) bool { return r == '，' || r == ',' })
	for k, p := range parts {
		p = strings.TrimSpace(p)
		i := strings.Index(p, "不是")
		if i < 0 {
			continue
		}
		b := zhCorrectionValue(p[i+len("不是"):])
		var a string
		switch {
		case i > 0:
			if j := strings.LastIndex(p[:i], "是"); j >= 0 {
				a = p[j+len("是") : i]
			}
		case k > 0 && strings.HasPrefix(strings.TrimSpace(parts[k-1]), "是"):
			a = strings.TrimPrefix(strings.TrimSpace(parts[k-1]), "是")
		case k > 0 && zhNamed(parts[k-1]) != "":
			a = zhNamed(parts[k-1]) // 他姓严，不是闫
		case k > 0 && zhSaysIs(parts[k-1]) >= 0:
			a = parts[k-1][zhSaysIs(parts[k-1])+len("是"):] // 机票是去威海的，不是烟台
		case k+1 < len(parts) && strings.HasPrefix(strings.TrimSpace(parts[k+1]), "是"):
			a = strings.TrimPrefix(strings.TrimSpace(parts[k+1]), "是")
		}
		if a = zhCorrectionValue(a); a != "" && b != "" {
			return correction(a, b)
		}
	}
	return matchDeniedZH(parts)
}

// zhDenied are the verbs a Chinese correction may deny its replaced value
// with instead of 不是 ([zh words] correction_denied).
var zhDenied = wordList("zh words", "correction_denied")

// matchDeniedZH reads A and 不<verb>B, a verb of zhDenied, as A replacing
// B: A is what follows that verb in the nearest clause before that says it
// undenied (我们公司在酒仙桥，不在望京: 酒仙桥 replaces 望京; 我外甥女叫林可
// 馨，馨香的馨，不叫可欣: 林可馨 replaces 可欣).
func matchDeniedZH(parts []string) (events.Observation, bool) {
	for k, p := range parts {
		p = strings.TrimSpace(p)
		for _, v := range zhDenied {
			rest, ok := strings.CutPrefix(p, "不"+v)
			if !ok {
				continue
			}
			b := zhCorrectionValue(rest)
			for j := k - 1; j >= 0 && b != ""; j-- {
				q := strings.TrimSpace(parts[j])
				i := strings.LastIndex(q, v)
				if i < 0 || strings.HasSuffix(q[:i], "不") {
					continue
				}
				if a := zhCorrectionValue(q[i+len(v):]); a != "" && a != b {
					return correction(a, b)
				}
				break
			}
		}
	}
	return events.Observation{}, false
}

// zhSaysIs returns the index of the last 是 of a clause that is no 不是
// and whose thing before it is no cleft of the user's (我不能吃的是花生,
// matchCleftZH; 我看牙是在协和医院 is none), or -1.
func zhSaysIs(p string) int {
	i := strings.LastIndex(p, "是")
	if i < 0 || strings.HasSuffix(p[:i], "不") || strings.Contains(p[:i], "我") && strings.HasSuffix(p[:i], "的") {
		return -1
	}
	return i
}

// zhCorrectionVerbs are the verbs a side of a Chinese correction may open
// with before its value (是去威海的: 威海).
var zhCorrectionVerbs = wordList("zh words", "correction_verbs")

// zhNamesVerbs are the verbs that give a name (姓, 叫: [zh words]
// correction_names).
var zhNamesVerbs = wordList("zh words", "correction_names")

// zhNamed returns the name a clause gives with a verb of zhNamesVerbs
// (他姓严: 严; 我其实叫小林: 小林), or "": the name is what follows the
// last such verb, a name of one to three characters and nothing more.
func zhNamed(p string) string {
	p = strings.TrimSpace(strings.TrimRight(p, "。！!.了的啦呢吧啊 "))
	for _, v := range zhNamesVerbs {
		i := strings.LastIndex(p, v)
		if i < 0 {
			continue
		}
		name := p[i+len(v):]
		if n := utf8.RuneCountInString(name); n >= 1 && n <= 3 && !strings.ContainsAny(name, "我你他她不是的了") && hasHanOnly(name) {
			return name
		}
	}
	return ""
}

func hasHanOnly(s string) bool {
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return s != ""
}

// zhCorrectionValue trims a side of a Chinese correction of its particles
// and of a verb before its value; a side with a person or of more than
// eight characters is none.
func zhCorrectionValue(s string) string {
	s = strings.TrimSpace(strings.TrimRight(s, "。！!.了的啦呢吧啊 "))
	for _, v := range zhCorrectionVerbs {
		if rest := strings.TrimPrefix(s, v); rest != s && utf8.RuneCountInString(rest) >= 2 {
			s = rest
			break
		}
	}
	if n := zhNamed(s); n != "" && hasAnyPrefix(s, zhNamesVerbs) {
		s = n // 不是姓陈: 陈
	}
	if s == "" || utf8.RuneCountInString(s) > 8 || strings.ContainsAny(s, "我你他她") {
		return ""
	}
	return s
}

func correction(a, b string) (events.Observation, bool) {
	return events.Observation{Kind: string(KindFact), Subject: correctionSubject, Attribute: b, Value: a,
		Polarity: string(Positive), Confidence: confStrong}, true
}

// corrected returns the statement a correction n replaces: of the user's
// live slotted records whose value holds every term of n's attribute (the
// replaced value), observed before n, one whose value is the replaced
// value whole before one whose value only holds it, then the newest (ties
// by id); nil if none. A value of another slot that shares a part of the
// replaced one ("10, not 9" beside my/flat = 9 Queen Street and
// my/locker number = 9) is so not taken for it. It reads the index's
// postings of one of those terms.
func (x *tx) corrected(n *Record) (*Record, error) {
	terms := tokenize(n.Attribute)
	if len(terms) == 0 {
		return nil, nil
	}
	var ids []string
	if err := x.w.Scan(x.k.ixTerm(terms[0]), func(key, _ []byte) error {
		ids = append(ids, x.k.lastComponent(key))
		return nil
	}); err != nil {
		return nil, err
	}
	q, isQuantity := wholeQuantity(n.Attribute)
	if isQuantity {
		// a quantity may be said in other units or words than the value
		// that held it: every slot is looked at (quantity.go)
		ids = ids[:0]
		if err := x.w.Scan([]byte(x.k.prefix+nsSlot), func(key, _ []byte) error {
			if id := x.k.lastComponent(key); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	heads, err := x.earlierHeads(ids, n)
	if err != nil {
		return nil, err
	}
	var best *Record
	bestWhole := false
	for _, h := range heads {
		vt := tokenize(h.Value)
		whole := slices.Equal(terms, vt)
		if isQuantity {
			vq, one := wholeQuantity(h.Value)
			if _, ok := sameQuantityIn(h.Value, q); !ok {
				continue
			}
			whole = one && vq.same(q)
		} else if !allIn(terms, vt) {
			continue
		}
		if best == nil || whole && !bestWhole ||
			whole == bestWhole && (h.ObservedAt > best.ObservedAt || h.ObservedAt == best.ObservedAt && h.ID > best.ID) {
			best, bestWhole = h, whole
		}
	}
	return best, nil
}

// amendedSubject is the subject of a correction that names only its new
// value ("Sorry, I meant Thursday", "Scratch that - it's the 14th") as the
// extractor writes it, the sentence its attribute; no record keeps it. The
// projection (tx.amended) moves it into the slot of the user's statement
// said last, which it supersedes; when that was no statement of a value
// (an episode, a ban, a value of another kind) it is kept as an episode.
const amendedSubject = "amended"

var (
	// correctionOpen are the words that say a sentence corrects what the
	// user said before ("no wait", "sorry", "scratch that", "I meant").
	correctionOpen = phrasesOf("en words", "correction_open")
	// amendLead are the words that lead to a correction's new value when it
	// names no replaced one ("it's", "I meant", "make that").
	amendLead = phrasesOf("en words", "amend_lead")
)

// mistakeWords say the user got something wrong ([en words] mistake).
var mistakeWords = phrasesOf("en words", "mistake")

// saysMistake reports whether ws holds words of mistakeWords.
func saysMistake(ws []word) bool {
	for k := range ws {
		if phraseAt(ws, k, mistakeWords) > 0 {
			return true
		}
	}
	return false
}

// opensCorrection reports whether ws opens with words of correctionOpen
// (after fillers).
func opensCorrection(ws []word) bool {
	for k := 0; k < len(ws); k++ {
		if phraseAt(ws, k, correctionOpen) > 0 {
			return true
		}
		if ws[k].low != "," && !fillers[ws[k].low] {
			return false
		}
	}
	return false
}

// matchAmendEN reads a correction that gives only its new value: words of
// correctionOpen and of amendLead, in any order and both said, then a
// name or a number of at most correctionWordsMax words that ends its
// clause ("Sorry, I meant Thursday", "Scratch that, it's on the 14th -
// my mistake", "Oops, make that 7:30"). A sentence with "not" is no such
// correction (matchCorrectionEN reads "A, not B").
func matchAmendEN(ws []word) (events.Observation, bool) {
	open, lead, k := false, false, 0
	for k < len(ws) {
		nl, no := phraseAt(ws, k, amendLead), phraseAt(ws, k, correctionOpen)
		switch {
		case nl > 0 || no > 0:
			lead, open = lead || nl > 0, open || no > 0
			k += max(nl, no)
		case ws[k].low == "," || ws[k].low == "-" || fillers[ws[k].low]:
			k++
		default:
			goto value
		}
	}
value:
	if !open || !lead || k >= len(ws) || slices.ContainsFunc(ws[k:], func(x word) bool { return x.low == "not" }) {
		return events.Observation{}, false
	}
	rest := ws[k:]
	if placePreps[rest[0].low] && len(rest) > 1 {
		rest = rest[1:]
	}
	v := object(clauseOf(rest))
	if len(v) == 0 || len(v) > correctionWordsMax || pronouns[v[0].low] || !correctionValue(v) {
		return events.Observation{}, false
	}
	return events.Observation{Kind: string(KindFact), Subject: amendedSubject, Attribute: joinOrig(ws), Value: joinOrig(v),
		Polarity: string(Positive), Confidence: confStrong}, true
}

// amended returns the statement a correction n that names only its new
// value replaces: the user's statement observed last before n (ties by
// id), of another message, if it holds a slot with a value, is positive
// and live, and its value's kind, when told (a price, a date, a place), is
// n's too ("Sorry, I meant Thursday" corrects no rent of 900 pounds); nil
// otherwise.
func (x *tx) amended(n *Record) (*Record, error) {
	var last *Record
	err := x.w.Scan([]byte(x.k.prefix+nsID), func(key, _ []byte) error {
		h, err := x.head(x.k.lastComponent(key))
		if err != nil || h == nil || h.Message == n.Message || h.ObservedAt > n.ObservedAt || !holding(h.Status) {
			return err
		}
		if last == nil || h.ObservedAt > last.ObservedAt || h.ObservedAt == last.ObservedAt && h.ID > last.ID {
			last = h
		}
		return nil
	})
	if err != nil || last == nil || !last.Slotted() || last.Subject == correctionSubject || last.Subject == restatedSubject ||
		last.Subject == amendedSubject || last.Value == "" || last.Polarity != Positive || kindsDiffer(last.Value, n.Value) {
		return nil, err
	}
	return last, nil
}

// kindsDiffer reports whether a correction's bare value b may not replace
// a: a's kind is told by what it holds (a price, a date, a length of
// time: a number or a currency) and b's is another, or both are told and
// differ. A place is told by the word before it (在, "in"), which a bare
// value does not repeat ("在周三" then "应该是周四").
func kindsDiffer(a, b string) bool {
	ka, kb := valueKindOf(a), valueKindOf(b)
	place := plainValueKinds[kindPlace]
	return ka != "" && ka != place.en && ka != place.zh && ka != kb || valueKindsApart(a, b)
}

var (
	// zhCorrectionCues say a Chinese sentence corrects what the user said
	// before (说错了, 看错了); zhAmendLead leads to its new value (应该是).
	zhCorrectionCues = wordList("zh words", "correction_cues")
	zhAmendLead      = wordList("zh words", "amend_lead")
)

// matchAmendZH reads a Chinese correction that gives only its new value:
// a sentence with a cue of zhCorrectionCues and a clause that opens with
// a word of zhAmendLead, its value (zhCorrectionValue) the rest of that
// clause (我说错了，应该是周四; 应该是江滨路，我刚才说反了). A clause with 不是
// is no such correction (matchCorrectionZH reads 是A，不是B).
func matchAmendZH(sent string) (events.Observation, bool) {
	if !containsAnyOf(sent, zhCorrectionCues) || strings.Contains(sent, "不是") {
		return events.Observation{}, false
	}
	for _, p := range strings.FieldsFunc(sent, func(r rune) bool { return r == '，' || r == ',' || r == '；' }) {
		p = strings.TrimSpace(p)
		for _, l := range zhAmendLead {
			if rest, ok := strings.CutPrefix(p, l); ok {
				if v := zhCorrectionValue(rest); v != "" {
					return events.Observation{Kind: string(KindFact), Subject: amendedSubject, Attribute: sent, Value: v,
						Polarity: string(Positive), Confidence: confStrong}, true
				}
			}
		}
	}
	return events.Observation{}, false
}

// saidSubject is the subject of a statement first kept as an episode and
// then corrected by the value it held ("I'm flying to Vilnius in May" and
// "no wait, Riga, not Vilnius"): the correction shows it stated a value,
// so it takes a slot of its own, named by the clause that held the value,
// and the correction a newer value of that slot. Forgotten, the
// correction gives it back as the episode it was.
const saidSubject = "said"

// saidAttributeMax bounds the characters of such a slot's name.
const saidAttributeMax = 64

// correctedEpisode returns, for a correction n that names a value no
// slotted statement holds, the user's newest live episode said before n's
// message (ties by id) whose text holds every term of the replaced value,
// stored again as a statement of the slot said/<its clause, the value cut
// out> whose value is the replaced one; nil if none. The caller files n in
// that slot, where it supersedes it.
func (x *tx) correctedEpisode(n *Record) (*Record, error) {
	terms := tokenize(n.Attribute)
	if len(terms) == 0 {
		return nil, nil
	}
	// a quantity may be said in other units or words than the episode
	// said it: every record is looked at, and the episode's own words
	// for it are the value replaced (quantity.go)
	q, isQuantity := wholeQuantity(n.Attribute)
	scan := x.k.ixTerm(terms[0])
	if isQuantity {
		scan = []byte(x.k.prefix + nsID)
	}
	var best *Record
	said := n.Attribute
	if err := x.w.Scan(scan, func(key, _ []byte) error {
		h, err := x.head(x.k.lastComponent(key))
		if err != nil || h == nil || h.Slotted() || h.Kind != KindEpisode || !holding(h.Status) ||
			h.Message == n.Message || h.ObservedAt > n.ObservedAt {
			return err
		}
		as := n.Attribute
		if isQuantity {
			var ok bool
			if as, ok = sameQuantityIn(h.Text, q); !ok {
				return nil
			}
		} else if !allIn(terms, tokenize(h.Text)) {
			return nil
		}
		if best == nil || h.ObservedAt > best.ObservedAt || h.ObservedAt == best.ObservedAt && h.ID > best.ID {
			best, said = h, as
		}
		return nil
	}); err != nil || best == nil {
		return nil, err
	}
	attr, value := saidAttribute(best.Text, said)
	if attr == "" {
		return nil, nil
	}
	h2 := clone(best)
	h2.Kind, h2.Subject, h2.Attribute, h2.Value, h2.Polarity = KindFact, saidSubject, attr, value, Positive
	if err := x.save(best, true, h2, true); err != nil {
		return nil, err
	}
	return h2, nil
}

// saidAttribute names the slot of a statement of text that held value: the
// clause of text holding it, lower case, the value cut out ("i'm flying to
// … in may for my cousin's wedding", 我订了下周六去…的机票), and the value
// as text writes it; "" if text does not hold it.
func saidAttribute(text, value string) (attr, as string) {
	low, v := strings.ToLower(text), strings.ToLower(value)
	i := strings.Index(low, v)
	if i < 0 {
		return "", ""
	}
	as = v
	if len(low) == len(text) {
		as = text[i : i+len(v)]
	}
	isEnd := func(r rune) bool { return strings.ContainsRune(",;:!?.。，；：！？()（）—–", r) }
	start := strings.LastIndexFunc(low[:i], isEnd) + 1
	if start > 0 {
		_, size := utf8.DecodeRuneInString(low[start-1:])
		start += size - 1
	}
	end := len(low)
	if j := strings.IndexFunc(low[i+len(v):], isEnd); j >= 0 {
		end = i + len(v) + j
	}
	if j := strings.Index(low[i+len(v):end], " - "); j >= 0 {
		end = i + len(v) + j
	}
	attr = strings.Join(strings.Fields(low[start:i]+"…"+low[i+len(v):end]), " ")
	if utf8.RuneCountInString(attr) > saidAttributeMax {
		attr = string([]rune(attr)[:saidAttributeMax])
	}
	return attr, as
}

func allIn(terms, in []string) bool {
	for _, t := range terms {
		if !slices.Contains(in, t) {
			return false
		}
	}
	return true
}
