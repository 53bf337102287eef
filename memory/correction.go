package memory

import (
	"slices"
	"strings"
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
		for begin > 1 && correctionNameWord(clause[begin-1]) {
			begin--
		}
		b := object(clauseOf(ws[i+2:]))
		if begin == end || end-begin > correctionWordsMax || len(b) == 0 || len(b) > correctionWordsMax ||
			pronouns[b[0].low] || !(isCapital(b[0].orig) || isNumber(b[0].low)) {
			continue
		}
		return correction(joinOrig(clause[begin:end]), joinOrig(b))
	}
	return events.Observation{}, false
}

// correctionNameWord reports whether x may be part of a name or number a
// correction gives: a capitalised word other than "I", or a number.
func correctionNameWord(x word) bool {
	return x.low != "i" && (isCapital(x.orig) || isNumber(x.low))
}

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
		case k+1 < len(parts) && strings.HasPrefix(strings.TrimSpace(parts[k+1]), "是"):
			a = strings.TrimPrefix(strings.TrimSpace(parts[k+1]), "是")
		}
		if a = zhCorrectionValue(a); a != "" && b != "" {
			return correction(a, b)
		}
	}
	return events.Observation{}, false
}

// zhCorrectionValue trims a side of a Chinese correction of its particles;
// a side with a person or of more than eight characters is none.
func zhCorrectionValue(s string) string {
	s = strings.TrimSpace(strings.TrimRight(s, "。！!.了的啦呢吧啊 "))
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
	heads, err := x.earlierHeads(ids, n)
	if err != nil {
		return nil, err
	}
	var best *Record
	bestWhole := false
	for _, h := range heads {
		vt := tokenize(h.Value)
		if !allIn(terms, vt) {
			continue
		}
		whole := slices.Equal(terms, vt)
		if best == nil || whole && !bestWhole ||
			whole == bestWhole && (h.ObservedAt > best.ObservedAt || h.ObservedAt == best.ObservedAt && h.ID > best.ID) {
			best, bestWhole = h, whole
		}
	}
	return best, nil
}

func allIn(terms, in []string) bool {
	for _, t := range terms {
		if !slices.Contains(in, t) {
			return false
		}
	}
	return true
}
