package memory

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
)

// A newer value said in other words than the slot it replaces: "call it
// 120 a month for the shop from here on" after "my workshop budget is 200
// dollars a month"; "the dermatologist moved me onto azelaic acid
// instead" after "my night routine is a retinol serum"; 现在每天早上抹的是
// 理肤泉那款 after 我早上用的防晒是安耐晒. The statement names no slot the
// extractor can read (it reads one message), but it says that it replaces
// something (a cue word of data/statements.txt [restatements] change) and
// it carries a value. The extractor writes it as a fact of the slot
// restated/<its words> with that value; the projection (tx.restated) moves
// it into the slot of the user's live positive statement that shares the
// most of its words (the slot's words count twice), where it supersedes
// that statement with the audit links a newer value of the slot leaves. A
// restatement that shares no word with anything the user stated is kept
// as an episode: it slots nothing.

// restatedSubject is the subject of a restatement as the extractor writes
// it; no record keeps it.
const restatedSubject = "restated"

var (
	restateChange, zhRestateChange   = cueSplit("restatements", "change")
	restateLead, zhRestateLead       = cueSplit("restatements", "value_lead")
	restateGeneric, zhRestateGeneric = cueSplit("restatements", "generic")
	restateTimeCue, _                = cueSplit("restatements", "time_cue")
	restateOccasion, _               = cueSplit("restatements", "occasion")
	restateIf, zhRestateIf           = cueSplit("restatements", "conditional")
	restateGenericTerms              = genericTerms()
	restateIsShort                   = wordSet("restatements", "is_short")
)

// cueSplit reads the phrases under name in section, English ones as word
// lists in the extractor's normal form, Chinese ones as strings.
func cueSplit(section, name string) (en [][]string, zh []string) {
	return splitCueWords(wordList(section, name))
}

// splitCueWords splits cue words by language: English ones as word lists
// in the extractor's normal form, Chinese ones as strings.
func splitCueWords(ws []string) (en [][]string, zh []string) {
	for _, w := range ws {
		if r, _ := utf8.DecodeRuneInString(w); lang.IsCJK(r) {
			zh = append(zh, w)
			continue
		}
		var low []string
		for _, x := range words(w) {
			low = append(low, x.low)
		}
		en = append(en, low)
	}
	return en, zh
}

// genericTerms are the index terms of the generic words and of the cue
// words: a restatement shares none of them with the slot it replaces.
func genericTerms() map[string]bool {
	m := map[string]bool{}
	for _, ps := range [][][]string{restateGeneric, restateChange, restateLead} {
		for _, p := range ps {
			for _, t := range tokenize(strings.Join(p, " ")) {
				m[t] = true
			}
		}
	}
	for _, ws := range [][]string{zhRestateGeneric, zhRestateChange, zhRestateLead} {
		for _, w := range ws {
			if utf8.RuneCountInString(w) == 2 {
				m[w] = true
			}
		}
	}
	return m
}

// restatementValueMax bounds the runes of a restatement's value.
const restatementValueMax = 40

// matchRestatement reads a sentence that states nothing else as a
// restatement: a change cue and a value. The value is, in English, in the
// clause holding a number (else in the last clause holding a change cue),
// the number and up to three words after it ("120 a month"), or what
// follows a value lead ("onto azelaic acid"); in Chinese what follows a
// value lead in the last clause holding one (改成每月一千二, 抹的是理肤泉那款,
// 刚才说错了，我是业余二段). What a correction says it is not ("not
// Tuesdays", 不是三段) is no part of it.
//
// A sentence under a condition ([restatements] conditional: "if I moved
// to Lyon, I'd cycle instead", 如果…的话) says what would be: it restates
// nothing.
func matchRestatement(sent string) (events.Observation, bool) {
	var value string
	if saidOfOther(sent) {
		return events.Observation{}, false // 我儿子的钢琴课挪到周六了: a kin's, not the user's
	}
	if strings.IndexFunc(sent, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0 {
		if containsAnyOf(sent, zhRestateIf) {
			return events.Observation{}, false
		}
		value = restatedValueZH(sent)
	} else {
		ws := words(sent)
		for i := range ws {
			if phraseAt(ws, i, restateIf) > 0 {
				return events.Observation{}, false
			}
		}
		value = restatedValueEN(ws)
	}
	value = strings.TrimSpace(value)
	if value == "" || utf8.RuneCountInString(value) > restatementValueMax {
		return events.Observation{}, false
	}
	return events.Observation{Kind: string(KindFact), Subject: restatedSubject, Attribute: sent, Value: value,
		Polarity: string(Positive), Confidence: confStrong}, true
}

// saidOfOther reports whether the change sent tells is of one of the
// user's people (data/words.txt: others, kin): "my son's lessons moved to
// Fridays", 我儿子的钢琴课挪到周六了, 我妈现在改成隔天去了 are about them,
// and restate none of the user's statements. In Chinese the clause of the
// change says whose it is: 外婆搬走了，我改成周日去看她 is the user's.
func saidOfOther(sent string) bool {
	if hasHan(sent) {
		s := ""
		for _, c := range clausesZH(sent, "，,；;") {
			if containsAnyOf(c, zhRestateChange) {
				s = strings.TrimSpace(c)
			}
		}
		if r, ok := strings.CutPrefix(s, "我"); ok {
			return zhKinFirst(r)
		}
		return hasAnyPrefix(s, zhKinNames)
	}
	ws := words(sent)
	if len(ws) < 2 || ws[0].low != "my" && ws[0].low != "our" {
		return false
	}
	return othersOf[strings.TrimSuffix(ws[1].low, "'s")]
}

func restatedValueEN(ws []word) string {
	changed, timed, occasion := false, false, false
	for i := range ws {
		if splitChangeAt(ws, i) {
			changed = true
		}
		if n := phraseAt(ws, i, restateChange); n > 0 {
			if phraseAt(ws, i, restateTimeCue) == n {
				timed = true
			} else {
				changed = true
			}
		}
		if phraseAt(ws, i, restateOccasion) > 0 {
			occasion = true
		}
	}
	// "now" with a plan or an act under way says when, not what changed;
	// said with how often, it is a standing schedule ("I'm going to the
	// ceilidh every single Friday now")
	if occasion && saysHowOften(joinOrig(ws)) {
		occasion = false
	}
	if !changed && (!timed || occasion) {
		return ""
	}
	// clauses, without what a correction says it is not (", not Tuesdays")
	var clauses [][]word
	start := 0
	for i := 0; i <= len(ws); i++ {
		if i < len(ws) && ws[i].low != "," {
			continue
		}
		if i > start {
			clauses = append(clauses, ws[start:i])
		}
		start = i + 1
	}
	var keep [][]word
	denies := false // a value it is not is said: correction.go reads it
	for _, c := range clauses {
		if c[0].low == "not" || conditionals[c[0].low] {
			denies = denies || c[0].low == "not"
			continue
		}
		if j := indexWord(c, "not"); j > 0 && c[j-1].low != "do" && c[j-1].low != "can" && c[j-1].low != "am" {
			c, denies = c[:j], true // "it's Thursdays not Tuesdays"
		}
		keep = append(keep, c)
	}
	cued := func(c []word) bool {
		for i := range c {
			if phraseAt(c, i, restateChange) > 0 || splitChangeAt(c, i) {
				return true
			}
		}
		return false
	}
	for _, c := range keep {
		for i, x := range c {
			n := numberRunEN(c, i)
			if x.low != "" && isDigitByte(x.low[0]) {
				n = 1
			}
			if n > 0 {
				v := slices.Clone(c[i : i+n])
				for _, y := range c[i+n:] {
					if len(v) >= n+3 {
						break
					}
					if clauseEnd[y.low] || placePreps[y.low] || y.low == "for" || y.low == "from" ||
						y.low == "to" || y.low == "with" || phraseAt([]word{y}, 0, restateChange) > 0 {
						break
					}
					v = append(v, y)
				}
				return joinOrig(v)
			}
		}
	}
	// a clause that is only a cue ("Scratch that - it's every other
	// Saturday") cues the clause after it
	cueOnly := func(c []word) bool {
		c = skip(c, fillers)
		return len(c) > 0 && phraseAt(c, 0, restateChange) == len(c)
	}
	for k := len(keep) - 1; k >= 0; k-- {
		c := keep[k]
		if !cued(c) && (k == 0 || !cueOnly(keep[k-1])) {
			continue
		}
		for i := range c {
			if n := phraseAt(c, i, restateLead); n > 0 && i+n < len(c) {
				obj := c[i+n:]
				if !denies && len(obj) > 1 && placePreps[obj[0].low] && saysSchedule(joinOrig(obj)) {
					obj = obj[1:] // "is on Monday evenings now": the day, not a place
				}
				if v := restatedObjectEN(obj); len(v) > 0 {
					return joinOrig(v)
				}
			}
		}
	}
	return ""
}

// numberRunEN returns how many words from i of w say a number in words
// ("a hundred and twelve", "fifty-five"), 0 if none; a lone "one" or "a"
// is no amount, nor one number word without its unit.
func numberRunEN(w []word, i int) int {
	if _, ok := enNumbers[w[i].low]; !ok && !numberWords[w[i].low] && w[i].low != "a" {
		return 0
	}
	n := 0
	for j := i + 1; j <= len(w) && j-i <= 6; j++ {
		if _, ok := lang.Default().ParseNumber(joinOrig(w[i:j])); ok {
			n = j - i
		}
	}
	if n == 1 && (w[i].low == "one" || w[i].low == "a") {
		return 0
	}
	// one number word alone ("mix those two up") is an amount only with
	// its unit after it ("twelve pounds")
	if n == 1 && !strings.Contains(w[i].low, "-") {
		if i+1 >= len(w) {
			return 0
		}
		next := w[i+1].low
		if !units[next] && !plainValueKinds[kindMoney].words[next] && !plainValueKinds[kindSpan].words[next] {
			return 0
		}
	}
	return n
}

// restatedObjectEN is the thing a value lead leads to, up to a preposition
// or a cue word ("azelaic acid in the evenings instead": azelaic acid).
func restatedObjectEN(w []word) []word {
	w = object(w)
	for i, x := range w {
		if placePreps[x.low] || x.low == "for" || x.low == "from" || x.low == "with" || phraseAt(w, i, restateChange) > 0 {
			w = w[:i]
			break
		}
	}
	for len(w) > 0 && (determiners[w[0].low] || pronouns[w[0].low]) {
		w = w[1:]
	}
	// an adverb inside says no more of the value ("playing football just
	// twice a month"); a value that says how often or when may take the
	// thing done with it
	w = slices.DeleteFunc(slices.Clone(w), func(x word) bool { return plainAdverb[x.low] })
	if len(w) > restatedObjectMax || len(w) > restatedObjectMax-2 && !saysSchedule(joinOrig(w)) {
		return nil
	}
	return w
}

// restatedObjectMax bounds the words of a value a value lead leads to when
// it says how often or when; any other value is two words shorter.
const restatedObjectMax = 6

func indexWord(w []word, low string) int {
	for i, x := range w {
		if x.low == low {
			return i
		}
	}
	return -1
}

func restatedValueZH(sent string) string {
	parts := clausesZH(sent, "，,；;。！!：:、")
	if !restatesText(sent) {
		return ""
	}
	value := ""
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if i := strings.Index(p, "不是"); i >= 0 {
			p = p[:i] // 我是业余二段，不是三段
		}
		v := ""
		for _, l := range zhRestateLead {
			if i := strings.LastIndex(p, l); i >= 0 && (v == "" || len(p[i+len(l):]) < len(v)) && i+len(l) < len(p) &&
				!strings.HasPrefix(p[i+len(l):], "了") { // 换了套餐 says what changed, not what it is now
				v = p[i+len(l):]
			}
		}
		if v != "" {
			value = strings.TrimRight(v, "了的吧啦呢啊")
		}
	}
	if value == "" {
		value = restatedValueZHUnled(parts)
	}
	return value
}

// zhChangeVerbs are the characters after 改 that are no verb of their own
// (改成, 改了): after any other, 改 and that verb lead to the value
// (改戴月抛的, 改骑电动车).
const zhChangeVerbs = "成为了掉到用"

// restatedValueZHUnled reads a Chinese restatement without a value lead:
// what follows 改 and a verb (其实我早就改戴月抛的隐形眼镜了), or a
// number said after a change cue in its clause (上礼拜改了套餐，现在每月一百G).
func restatedValueZHUnled(parts []string) string {
	value := ""
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if i := strings.Index(p, "不是"); i >= 0 {
			p = p[:i]
		}
		if i := strings.Index(p, "改"); i >= 0 {
			rest := p[i+len("改"):]
			if r, size := utf8.DecodeRuneInString(rest); size > 0 && lang.IsCJK(r) && !strings.ContainsRune(zhChangeVerbs, r) &&
				utf8.RuneCountInString(rest) > 2 {
				value = strings.TrimRight(rest[size:], "了的吧啦呢啊")
				continue
			}
		}
		for _, c := range zhRestateChange {
			if i := strings.Index(p, c); i >= 0 {
				rest := p[i+len(c):]
				if strings.ContainsAny(rest, zhNumerals) {
					value = strings.TrimRight(rest, "了的吧啦呢啊")
				}
			}
		}
	}
	return value
}

// restated returns the statement a restatement n replaces: of the user's
// live slotted positive records observed before n, not a correction's or
// restatement's, the one sharing the most words with n's (its attribute:
// the sentence), a word of the slot's counting twice, then the newest
// (ties by id); nil if none shares a word that is not generic.
func (x *tx) restated(n *Record) (*Record, error) {
	terms := restatedTerms(n.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	heads, err := x.earlierPositive(n)
	if err != nil {
		return nil, err
	}
	var best *Record
	bestScore := 0
	for _, h := range heads {
		// Every word of the slot is said, and not as the modifier of
		// another thing (the gym buddy is no gym membership, the dentist's
		// receptionist no dentist, 房租发票 no 房租): a restatement that
		// shares a word with a slot is not yet about it.
		if h.Value == "" {
			// a liking or a ban of a thing, named by the thing alone, has
			// no value a restatement could replace: "always down to give
			// movie recommendations" is no new "I love sci-fi movies"
			continue
		}
		slot := restatedTerms(h.Attribute)
		if modifiesAnother(n.Text, slot) {
			continue
		}
		// the same thing, not the same verb: "I'm playing mostly online
		// now" is not about "I play chess"
		terms := withoutVerb(terms, h.Subject, slot)
		score := 2*shared(terms, slot) + shared(terms, restatedTerms(h.Text))
		if a := []rune(h.Attribute); len(a) == 1 && lang.IsCJK(a[0]) && strings.Contains(n.Text, "改"+h.Attribute) {
			score += 2 // a slot named by its verb (my/骑), changed with it: 改骑电动车
		}
		if score == 0 {
			continue
		}
		if best == nil || score > bestScore ||
			score == bestScore && (h.ObservedAt > best.ObservedAt || h.ObservedAt == best.ObservedAt && h.ID > best.ID) {
			best, bestScore = h, score
		}
	}
	if best == nil && saysSchedule(n.Value) {
		// a new schedule that names no thing (现在改成每周都去看一场了,
		// "make it twice a week now", 现在改到周四了) replaces the user's
		// newest habit said with how often or when it is done
		return x.newestEarlier(n, func(h *Record) bool { return h.Kind != KindConstraint && saysSchedule(h.Value) })
	}
	return best, nil
}

// withoutVerb leaves out of a restatement's terms the verb of a slot of
// what the user does (i/play chess: "play"): said of many things, a
// shared verb alone does not make a restatement about the slot, its thing
// must be shared (the slot's other words, or what its statement said).
// A slot of one word is named by it (i/volunteer), and Chinese slots
// are not named verb first in terms, so both keep every term.
func withoutVerb(terms []string, subject string, slot []string) []string {
	if subject != plainDoes && subject != "we" || len(slot) < 2 || lang.IsCJK([]rune(slot[0])[0]) {
		return terms
	}
	verb := slot[:1]
	return slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return shared([]string{t}, verb) > 0 })
}

// howOften, zhHowOften: the words that say how often something is done
// ([restatements] how_often).
var howOften, zhHowOften = cueSplit("restatements", "how_often")

// saysHowOften reports whether value says how often something is done: a
// word of [restatements] how_often (once, twice, every; 每, 次).
func saysHowOften(value string) bool {
	if containsAnyOf(value, zhHowOften) {
		return true
	}
	ws := words(value)
	for i := range ws {
		if phraseAt(ws, i, howOften) > 0 {
			return true
		}
	}
	return false
}

// doneWhen, zhDoneWhen: the words that say on which day or at what time
// of day a thing is done ([restatements] when).
var doneWhen, zhDoneWhen = cueSplit("restatements", "when")

// saysSchedule reports whether value says how often (saysHowOften) or when
// a thing is done: a word of [restatements] when (Thursday, nights; 周四,
// 晚上).
func saysSchedule(value string) bool {
	if saysHowOften(value) || containsAnyOf(value, zhDoneWhen) {
		return true
	}
	ws := words(value)
	for i := range ws {
		if phraseAt(ws, i, doneWhen) > 0 {
			return true
		}
	}
	return false
}

// modifiesAnother reports whether text says one of the slot's terms as
// the modifier of another thing: in English followed by a possessive
// ("the dentist's receptionist"), in Chinese followed at once by a
// character that goes on naming a thing (房租发票, 咖啡店, 房租的发票)
// rather than by what is said of it (房租现在…, 咖啡换成…, 房租以后…).
func modifiesAnother(text string, slot []string) bool {
	low := strings.ToLower(text)
	for k, t := range slot {
		if lang.IsCJK([]rune(t)[0]) && k < len(slot)-1 {
			continue // a Chinese slot is named by its last term (健身教练: 教练)
		}
		for i := 0; ; {
			j := strings.Index(low[i:], t)
			if j < 0 {
				break
			}
			rest := low[i+j+len(t):]
			i += j + len(t)
			if lang.IsCJK([]rune(t)[0]) {
				r, _ := utf8.DecodeRuneInString(rest)
				// a change cue said of it (房号说错了, 工号记错了) is said of it too
				if r != utf8.RuneError && lang.IsCJK(r) && !strings.ContainsRune(zhSaidOf, r) && !hasAnyPrefix(rest, zhRestateChange) {
					return true
				}
				continue
			}
			if start := i - len(t); start > 0 && isLetterByte(low[start-1]) {
				continue // inside another word ("Blocker" is no locker)
			}
			if strings.HasPrefix(rest, "'s") || strings.HasPrefix(rest, "’s") {
				// a possessive, not "is" or "has" said short ("rent's gone
				// up"), nor of the slot's own other word ("the dog's walk"
				// of i/walk dog)
				if next := strings.Fields(rest[strings.Index(rest, "s")+1:]); len(next) == 0 ||
					!restateIsShort[strings.Trim(next[0], ",.;:!-")] && !slotWord(slot, t, next[0]) {
					return true
				}
			}
			// A slot of two words or more ("gym membership") whose word is
			// followed by a noun of another thing ("gym buddy", "car
			// park"): a word that is no next word of the slot, no function
			// word and no verb form.
			if len(slot) > 1 {
				next := strings.FieldsFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) })
				if len(rest) > 0 && rest[0] == ' ' && len(next) > 0 {
					w := next[0]
					if len(w) >= 3 && !slices.Contains(slot, w) && !stopWords[w] && !restateGenericTerms[w] &&
						!strings.HasSuffix(w, "ing") && !strings.HasSuffix(w, "ed") && !restatesText(w) {
						return true
					}
				}
			}
		}
	}
	return false
}

// slotWord reports whether w, said after the slot's term t, is another
// term of the slot.
func slotWord(slot []string, t, w string) bool {
	for _, x := range tokenize(strings.Trim(w, ",.;:!-")) {
		if x != t && slices.Contains(slot, x) {
			return true
		}
	}
	return false
}

// zhSaidOf are characters that, right after a thing's name, begin what is
// said of it (a time, an adverb, a verb of change or being), not a longer
// name.
const zhSaidOf = "太很挺更现以从今明改换变涨降调也就要是都还又已再仍将会得该可能没不每一到在了为由按其真确坐用去喝吃买开骑住走有"

// restatedTerms are the index terms of s a restatement may share with a
// slot: no generic or cue word, no Chinese single character, no pair
// holding a function character (的是).
func restatedTerms(s string) []string {
	var out []string
	for _, t := range tokenize(s) {
		rs := []rune(t)
		if restateGenericTerms[t] || lang.IsCJK(rs[0]) && (len(rs) < 2 || cjkStop[rs[0]] || cjkStop[rs[1]]) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// shared counts the terms of a that are in b, or (Latin words of four
// letters or more) that one of b's holds or is held in ("shop" and
// "workshop").
func shared(a, b []string) int {
	n := 0
	for _, t := range a {
		for _, u := range b {
			if t == u || len(t) >= 4 && len(u) >= 4 && !lang.IsCJK([]rune(t)[0]) && (strings.Contains(u, t) || strings.Contains(t, u)) {
				n++
				break
			}
		}
	}
	return n
}

var (
	changeVerb        = wordSet("restatements", "change_verb")
	changeParticle, _ = cueSplit("restatements", "change_particle")
	scheduleVerb      = wordSet("restatements", "schedule_verb")
)

// changeSpan bounds the words between a verb of change and its particle.
const changeSpan = 4

// splitChangeAt reports whether a change is said at i with its thing
// between the verb and its particle ("cut journaling back to", "bumped my
// savings target up to": [restatements] change_verb, change_particle).
//
// A verb of [restatements] schedule_verb is a change said so with "to"
// and when it is moved to ("moved my swim to Wednesday evenings": a word
// of [restatements] when, after a determiner or none, or a clock time:
// "moved the dog's walk to 6:15").
func splitChangeAt(ws []word, i int) bool {
	if !changeVerb[ws[i].low] && !scheduleVerb[ws[i].low] {
		return false
	}
	for j := i + 1; j < len(ws) && j <= i+1+changeSpan; j++ {
		if ws[j].low == "," {
			return false
		}
		if j >= i+2 && changeVerb[ws[i].low] && phraseAt(ws, j, changeParticle) > 0 {
			return true
		}
		if scheduleVerb[ws[i].low] && ws[j].low == "to" {
			k := j + 1
			for k < len(ws) && determiners[ws[k].low] {
				k++
			}
			return k < len(ws) && (phraseAt(ws, k, doneWhen) > 0 || clockTimeEN(ws, k))
		}
	}
	return false
}

// clockTimeEN reports whether the word at k of ws is a clock time: 6:15,
// 7pm, or a time of day followed by am, pm or o'clock (en words
// time_suffixes); a bare number ("to 7") may be a measure and is none.
func clockTimeEN(ws []word, k int) bool {
	x := ws[k].low
	if x == "" || !isDigitByte(x[0]) && !timeOfDay(x) {
		return false
	}
	if i := strings.IndexByte(x, ':'); i > 0 && clockMinutes(x[i+1:]) {
		return true
	}
	if t := strings.TrimLeft(x, "0123456789"); t != x && timeSuffixes[t] {
		return true
	}
	return k+1 < len(ws) && timeSuffixes[ws[k+1].low]
}

// restatesText reports whether text holds a change cue of
// [restatements].
func restatesText(text string) bool {
	ws := words(text)
	for i := range ws {
		if phraseAt(ws, i, restateChange) > 0 || splitChangeAt(ws, i) {
			return true
		}
	}
	for _, c := range zhRestateChange {
		if strings.Contains(text, c) {
			return true
		}
	}
	return false
}

// sameThing returns, for a statement n whose slot holds nothing and that
// says it changes something, the user's live positive statement of the
// same attribute under another subject, observed before it (the newest,
// ties by id), whose slot n then takes; nil if none.
func (x *tx) sameThing(n *Record) (*Record, error) {
	if n.Polarity != Positive {
		return nil, nil
	}
	return x.newestEarlier(n, func(h *Record) bool {
		return sameWords(h.Attribute, n.Attribute) && h.Subject != n.Subject
	})
}

// newestEarlier returns the newest (ties by id) of the user's live positive
// statements observed before n (earlierPositive) that match, nil if none.
func (x *tx) newestEarlier(n *Record, match func(*Record) bool) (*Record, error) {
	heads, err := x.earlierPositive(n)
	if err != nil {
		return nil, err
	}
	var best *Record
	for _, h := range heads {
		if !match(h) {
			continue
		}
		if best == nil || h.ObservedAt > best.ObservedAt || h.ObservedAt == best.ObservedAt && h.ID > best.ID {
			best = h
		}
	}
	return best, nil
}

var (
	switchCue, zhSwitchCue = cueSplit("restatements", "switch")
	switchWithin           = wordSet("restatements", "switch_within")
	switchScope, zhScope   = cueSplit("restatements", "switch_scope")
)

// switchedFrom returns, for a positive statement n of a subject of
// [restatements] switch_within whose slot holds nothing and that says it is
// a switch (a cue of [restatements] switch: "I've switched to green tea",
// 我现在改喝豆浆了), the user's newest live positive statement of the same
// subject and kind about another thing, observed before it (ties by id),
// which n then ends; nil if none.
func (x *tx) switchedFrom(n *Record) (*Record, error) {
	if n.Polarity != Positive || !switchWithin[n.Subject] || !switches(n.Text) {
		return nil, nil
	}
	scope := scopesOf(n.Text)
	return x.newestEarlier(n, func(h *Record) bool {
		return h.Subject == n.Subject && h.Kind == n.Kind && h.Attribute != n.Attribute && sharesScope(scope, h.Text)
	})
}

// scopesOf returns the [restatements] switch_scope phrases text names (a
// time of day or a meal: "in the mornings", 晚上), English ones in the
// extractor's normal form, singular.
func scopesOf(text string) []string {
	var out []string
	for _, z := range zhScope {
		if strings.Contains(text, z) {
			out = append(out, z)
		}
	}
	ws := words(text)
	for _, p := range switchScope {
		for i := range ws {
			if phraseAt(ws, i, [][]string{p}) > 0 {
				out = append(out, strings.TrimSuffix(strings.Join(p, " "), "s")) // mornings is morning
				break
			}
		}
	}
	return out
}

// sharesScope reports whether a switch said for scope (none: always)
// reaches a statement of text: "In the mornings I've switched to coffee"
// ends no tea said of lunch, only one said of the mornings or of no time.
func sharesScope(scope []string, text string) bool {
	if len(scope) == 0 {
		return true
	}
	old := scopesOf(text)
	if len(old) == 0 {
		return true
	}
	for _, s := range scope {
		if slices.Contains(old, s) {
			return true
		}
	}
	return false
}

// switches reports whether text holds a cue of [restatements] switch.
func switches(text string) bool {
	if containsAnyOf(text, zhSwitchCue) {
		return true
	}
	ws := words(text)
	for i := range ws {
		if phraseAt(ws, i, switchCue) > 0 {
			return true
		}
	}
	return false
}

// sameWords reports whether two names of a thing say the same words,
// in any order: 定投基金 and 基金定投, "fees tuition" and "tuition fees"
// (English words, Chinese characters).
func sameWords(a, b string) bool {
	if a == b {
		return true
	}
	split := func(s string) []string {
		var out []string
		for _, w := range strings.Fields(strings.ToLower(s)) {
			if r, _ := utf8.DecodeRuneInString(w); lang.IsCJK(r) {
				for _, c := range w {
					out = append(out, string(c))
				}
				continue
			}
			out = append(out, w)
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(split(a), split(b))
}

// earlierPositive returns the user's records that hold a slot with a
// positive statement observed no later than n (earlierHeads), in key
// order.
func (x *tx) earlierPositive(n *Record) ([]*Record, error) {
	var ids []string
	seen := map[string]bool{}
	if err := x.w.Scan([]byte(x.k.prefix+nsSlot), func(key, _ []byte) error {
		if id := x.k.lastComponent(key); !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	heads, err := x.earlierHeads(ids, n)
	return slices.DeleteFunc(heads, func(h *Record) bool { return h.Polarity != Positive }), err
}

// earlierHeads returns the current versions of the records ids other than
// n's own that hold a slot of a statement (no correction's or
// restatement's) and were observed no later than n, in the order of ids.
func (x *tx) earlierHeads(ids []string, n *Record) ([]*Record, error) {
	var out []*Record
	for _, id := range ids {
		if id == n.ID {
			continue
		}
		h, err := x.head(id)
		if err != nil {
			return nil, err
		}
		if h == nil || !h.Slotted() || h.Subject == correctionSubject || h.Subject == restatedSubject ||
			!holding(h.Status) || h.ObservedAt > n.ObservedAt {
			continue
		}
		out = append(out, h)
	}
	return out, nil
}

func isLetterByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
