package memory

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
)

// A plain statement about the user, said without any cue word of the
// extractor's tables, is slotted by its meaning: who or what it is about
// and what is said of it. "My passport expires in August 2029" is the
// user's thing passport (my/passport = expires in August 2029); "I charge
// the car at the rapid chargers on Mill Road" is what the user does, the
// verb and its object (i/charge car = the car at the rapid chargers on
// Mill Road); "our roof has a 4.2 kW solar array" a measured thing the
// user has (my/solar array = 4.2 kW); 我的公积金每个月缴1850元 (my/公积金),
// 我平时戴的是日抛隐形眼镜 (my/戴), 我有一辆越野车 (my/越野车), and a habit
// said with when it is done, 我每天早上跳绳一千下 (habit/跳绳). Being
// slotted, such a statement can be superseded by a newer value of its slot,
// corrected by value (correction.go) and restated in other words
// (restate.go); kept as an episode it could be none of these.
//
// The reading is for sentences nothing else read, and it is silent where
// it cannot tell: a sentence that hedges (would, might, 如果, 打算: the
// words of data/statements.txt [plain] hedge) or tells a finished event
// (a past verb) states nothing about the user now, and an object that is
// a pronoun or a person names no thing.

const (
	plainMine  = "my"    // the subject of a thing of the user's
	plainDoes  = "i"     // the subject of what the user does
	plainHabit = "habit" // the subject of a habit said with when it is done
	// plainNounMax bounds the words (runes in Chinese) of a slot's thing.
	plainNounMax = 6
)

var (
	plainHedgeEN, plainHedgeZH = splitCueWords(wordList("plain", "hedge"))
	plainHedgeWords            = func() map[string]bool {
		m := map[string]bool{}
		for _, p := range plainHedgeEN {
			m[strings.Join(p, " ")] = true
		}
		return m
	}()
	plainPast     = wordSet("plain", "past")
	plainAdverb   = wordSet("plain", "adverb")
	plainDoing    = wordSet("plain", "doing")
	plainGoing    = wordSet("plain", "going")
	plainHabitual = wordSet("plain", "habitual")
	plainBe       = wordSet("plain", "be")
	plainLead     = wordSet("plain", "lead")
	plainPrep     = wordSet("plain", "prep")
	plainHave     = wordSet("plain", "have")
	zhPlainSaidOf = strings.Join(wordList("plain", "said_of"), "")
	zhPlainLate   = strings.Join(wordList("plain", "said_of_late"), "")
	zhMeasure     = strings.Join(wordList("plain", "measure"), "")
	zhWhen        = wordList("plain", "zh_when")
	zhHabitWhen   = wordList("plain", "habit_when")
	zhLike        = wordList("plain", "zh_like")
	zhDislike     = wordList("plain", "zh_dislike")
	zhDecline     = wordList("plain", "zh_decline")
	zhUntouched   = wordList("plain", "zh_untouched")
	zhTrace       = wordList("plain", "zh_trace")
	zhHabitTime   = wordList("plain", "habit_time")
	zhHabitCount  = wordList("plain", "habit_count")
	plainBegin    = wordSet("plain", "begin")
	zhHabitPeriod = wordList("plain", "habit_period")
	zhHome        = wordList("plain", "zh_home")
	zhApart       = wordList("plain", "zh_apart")
	enHome        = wordSet("plain", "en_home")
	zhForbid      = cueZH("requests", "forbid")
	zhPut         = wordList("plain", "zh_put")
	zhHave        = wordList("plain", "zh_have")
	// zhKinNames are the kin of data/words.txt without its particle 的
	zhKinNames = slices.DeleteFunc(slices.Clone(zhKin), func(w string) bool { return w == "的" })
)

// cueZH is the Chinese words under name in section.
func cueZH(section, name string) []string {
	_, zh := cueSplit(section, name)
	return zh
}

// matchPlain reads sent, a sentence no other rule read, as a plain
// statement (matchPlainEN, matchPlainZH).
func matchPlain(sent string) []events.Observation {
	if strings.IndexFunc(sent, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0 {
		return matchPlainZH(sent)
	}
	if o, ok := matchPlainEN(words(sent)); ok {
		return []events.Observation{o}
	}
	return nil
}

// matchPlainEN reads the first clause of ws with a subject of the user's:
// "my/our <thing> <verb> …" or "I/we <verb> <object> …".
func matchPlainEN(ws []word) (events.Observation, bool) {
	for i, x := range ws {
		if i > 0 && isCapital(x.orig) {
			continue // a name, not a hedge: "in May 2031"
		}
		if plainHedgeWords[x.low] || conditionals[x.low] {
			return events.Observation{}, false
		}
	}
	for s, x := range ws {
		if !opensClause(ws, s) {
			continue
		}
		var o events.Observation
		ok := false
		switch x.low {
		case "my", "our":
			o, ok = plainThingEN(ws, s)
		case "i", "we":
			o, ok = plainDoingEN(ws, s+1)
		}
		if ok {
			return o, true
		}
	}
	return events.Observation{}, false
}

// opensClause reports whether the word at s opens its clause: only a
// filler or a word of when ([plain] lead) is said before it since the
// clause began.
func opensClause(ws []word, s int) bool {
	for i := s - 1; i >= 0 && ws[i].low != ","; i-- {
		x := ws[i].low
		if !fillers[x] && !plainLead[x] && !requestLead[x] && !isNumber(x) {
			return false
		}
	}
	return true
}

// plainThingEN reads "my <thing> <verb> <rest>" from the "my" at s.
func plainThingEN(ws []word, s int) (events.Observation, bool) {
	var np []word
	j := s + 1
	for ; j < len(ws); j++ {
		x := ws[j]
		if x.low == "," || clauseEnd[x.low] && x.low != "i" {
			return events.Observation{}, false
		}
		if x.low == "and" && j+1 < len(ws) && (ws[j+1].low == "i" || ws[j+1].low == "we") {
			return plainDoingEN(ws, j+2) // "my daughter and I do a jigsaw"
		}
		var next *word
		if j+1 < len(ws) {
			next = &ws[j+1]
		}
		if plainBe[x.low] || plainHave[x.low] || auxiliaries[x.low] || plainAdverb[x.low] ||
			len(np) > 0 && verbFormEN(x, next) {
			break
		}
		np = append(np, x)
	}
	if len(np) == 0 || len(np) > plainNounMax || j >= len(ws) || pronouns[np[0].low] ||
		othersOf[strings.TrimSuffix(np[0].low, "'s")] { // "my sister Emma lives in Boston", "my sister's flat has …": another's, not the user's
		return events.Observation{}, false
	}
	pol := Positive
	for j < len(ws) && (plainAdverb[ws[j].low] || ws[j].low == "not") {
		if ws[j].low == "not" || ws[j].low == "never" {
			pol = Negative
		}
		j++
	}
	if j >= len(ws) {
		return events.Observation{}, false
	}
	verb, rest := ws[j], clauseOf(ws[j+1:])
	if len(rest) > 0 && (rest[0].low == "not" || rest[0].low == "been") {
		return events.Observation{}, false // "my knee hasn't been right": a state since some event
	}
	if plainPast[verb.low] || strings.HasSuffix(verb.low, "ed") ||
		auxiliaries[verb.low] && !plainBe[verb.low] && !plainHave[verb.low] {
		return events.Observation{}, false
	}
	if contactThing(np) && !(plainHave[verb.low] && measure(rest) && !slices.ContainsFunc(np, func(x word) bool { return contactGeneric[x.low] })) {
		// a contact detail is no fact; what a phone or a card has, a
		// number and its unit, is ("my phone has 256 GB")
		return events.Observation{}, false
	}
	attr := nounKey(np)
	var value string
	switch {
	case plainHave[verb.low]:
		if a, v, of, ok := measuredEN(rest); ok {
			attr, value = a, v
			if of {
				attr = nounKey(np) + " " + a // "my laptop has 16 GB of memory": the laptop's memory
			}
		} else {
			value = joinOrig(object(rest))
		}
	case plainBe[verb.low]:
		// what a thing of the user's is, matchMyIs reads; what it leaves
		// is a state ("my knee is sore"), a list, another's whereabouts
		return events.Observation{}, false
	case len(rest) > 0 && isNumber(rest[0].low) && propertyWord[verb.low] != "" && propertyWord[verb.low] != "colour":
		// a verb that says a property with its measure ("my tent weighs
		// 2 kg"): the property's own slot, beside what the thing is
		attr, value = attr+" "+propertyWord[verb.low], joinOrig(rest)
	default:
		if len(rest) == 0 {
			return events.Observation{}, false
		}
		value = verb.orig + " " + joinOrig(rest)
	}
	if strings.TrimSpace(value) == "" || len(rest) > 0 && pronouns[rest[0].low] && len(rest) == 1 {
		return events.Observation{}, false
	}
	return plainFact(plainMine, attr, value, pol), true
}

// plainDoingEN reads what follows "I" at k: "<verb> <object> <rest>".
func plainDoingEN(ws []word, k int) (events.Observation, bool) {
	pol := Positive
	for k < len(ws) && (plainAdverb[ws[k].low] || fillers[ws[k].low] || ws[k].low == "not" ||
		(ws[k].low == "do" || ws[k].low == "does") && k+1 < len(ws) && ws[k+1].low == "not" ||
		(ws[k].low == "have" || ws[k].low == "'ve") && k+1 < len(ws) && plainBegin[ws[k+1].low]) {
		if ws[k].low == "not" || ws[k].low == "never" {
			pol = Negative
		}
		k++
	}
	if k+1 < len(ws) && plainBegin[ws[k].low] && strings.HasSuffix(ws[k+1].low, "ing") {
		k++ // "I've started reading for an hour": a habit begun is the habit
	}
	if k >= len(ws) {
		return events.Observation{}, false
	}
	verb := ws[k]
	if plainBe[verb.low] {
		return selfMeasureEN(ws[k+1:], pol)
	}
	if auxiliaries[verb.low] && !doneAsHabit(ws, k) || plainPast[verb.low] || subjectless[verb.low] ||
		cognition[verb.low] && !plainHave[verb.low] && !doneAsHabit(ws, k) ||
		strings.HasSuffix(verb.low, "ed") || !isWordEN(verb.low) {
		return events.Observation{}, false
	}
	rest := clauseOf(ws[k+1:])
	if enHome[verb.low] {
		if o, ok := distanceFromHomeEN(rest, pol); ok {
			return o, true
		}
	}
	if plainHave[verb.low] {
		if a, v, _, ok := measuredEN(rest); ok {
			return plainFact(plainMine, a, v, pol), true
		}
	}
	from := 0 // where the object opens: after "to" of "go to Pilates"
	if goneTo(ws, k) {
		from = 1
	} else if len(rest) > 0 && rest[0].low == "to" {
		return events.Observation{}, false // "I prefer to walk": a wish, read by the tables or not at all
	}
	end := len(rest)
	for i, x := range rest {
		if i > from && (plainPrep[x.low] || plainLead[x.low] || x.low == "together" || periods[x.low] || oftenWordEN(rest, i)) {
			end = i
			break
		}
	}
	if from == 0 && len(rest) > 0 && (plainPrep[rest[0].low] || plainLead[rest[0].low] || oftenWordEN(rest, 0)) && saysWhenEN(rest) &&
		!slices.ContainsFunc(rest, func(x word) bool { return pronouns[x.low] || people[x.low] }) {
		// a verb said with when, how often or how long, and no object: "I
		// read for twenty minutes before bed", "I swim on Tuesdays"; the
		// verb's stem is the slot, so that "I've started practising …" is
		// of "I practise …"'s
		return plainFact(plainDoes, stem(verb.low), joinOrig(rest), pol), true
	}
	obj := skip(rest[from:end], determiners)
	if len(obj) == 0 || len(obj) > plainNounMax || pronouns[obj[0].low] || people[obj[0].low] ||
		plainAdverb[obj[0].low] || fillers[obj[0].low] || plainLead[obj[0].low] ||
		strings.HasSuffix(obj[0].low, "ly") || !isWordEN(obj[0].low) {
		return events.Observation{}, false
	}
	attr := baseVerb(verb.low)
	if plainHave[verb.low] {
		attr = "have"
	}
	return plainFact(plainDoes, attr+" "+nounKey(obj), joinOrig(rest), pol), true
}

// doneAsHabit reports whether the verb at k is one of [plain] doing said
// of a thing the user does, not of thinking or of another verb: "go"
// before a verb's -ing form ("go bouldering"), "do" before anything but a
// verb of thinking, an auxiliary or a pronoun ("do my laundry", not "do
// hope", "do not").
func doneAsHabit(ws []word, k int) bool {
	if !plainDoing[ws[k].low] || k+1 >= len(ws) {
		return false
	}
	next := ws[k+1].low
	if ws[k].low == "go" {
		return strings.HasSuffix(next, "ing") && len(next) > 4 || goneTo(ws, k)
	}
	return !cognition[next] && !auxiliaries[next] && !pronouns[next] && !plainAdverb[next] && isWordEN(next)
}

// goneTo reports whether the verb at k is "go" leading to a thing the
// user goes to or for again and again ([plain] going, habitual): "I go to
// Pilates every Tuesday evening", "I go for a run on Saturday mornings";
// "I go to Porto next week" is no habit.
func goneTo(ws []word, k int) bool {
	if ws[k].low != "go" || k+1 >= len(ws) || !plainGoing[ws[k+1].low] {
		return false
	}
	rest := clauseOf(ws[k+1:])
	for i, x := range rest {
		if plainHabitual[x.low] || oftenWordEN(rest, i) {
			return true
		}
	}
	return false
}

// oftenWordEN reports whether the word at i of w says how often (once,
// twice, weekly: [restatements] how_often) or opens a count of times
// ("three times").
func oftenWordEN(w []word, i int) bool {
	if phraseAt(w, i, howOften) > 0 {
		return true
	}
	return (isNumber(w[i].low) || numberWords[w[i].low]) && i+1 < len(w) && (w[i+1].low == "times" || w[i+1].low == "time")
}

// saysWhenEN reports whether w says when, how often or how long something
// is done: a word of how often, a period or a day ([plain] lead's days,
// en words periods), or a length of time ([plain] value_span).
func saysWhenEN(w []word) bool {
	for i, x := range w {
		if oftenWordEN(w, i) || periods[singular(x.low)] || plainValueKinds[kindSpan].words[x.low] ||
			plainLead[x.low] && !plainPrep[x.low] && !fillerLead[x.low] {
			return true
		}
	}
	return false
}

// fillerLead are the words of [plain] lead that say no time ("also", "and").
var fillerLead = set("this", "these", "most", "starting", "from", "since", "then", "also", "and", "so", "but", "other", "each")

// distanceFromHomeEN reads how far the user lives from a place, said
// after a verb of living: "2 km from the office" (my/from office = 2 km),
// as zhDistanceFromHome reads 家离公司两公里.
func distanceFromHomeEN(rest []word, pol Polarity) (events.Observation, bool) {
	if !measure(rest) {
		return events.Observation{}, false
	}
	rest = skip(rest, determiners)
	i := 2
	for i < len(rest) && rest[i].low != "from" && i <= 3 {
		i++ // "2 km away from", "a 10-minute walk from"
	}
	if i >= len(rest) || rest[i].low != "from" {
		return events.Observation{}, false
	}
	place := skip(rest[i+1:], determiners)
	for j, x := range place {
		if plainPrep[x.low] || !isWordEN(x.low) {
			place = place[:j]
			break
		}
	}
	if len(place) == 0 || len(place) > plainNounMax || pronouns[place[0].low] || people[place[0].low] {
		return events.Observation{}, false
	}
	return plainFact(plainMine, "from "+nounKey(place), joinOrig(rest[:2]), pol), true
}

// verbFormEN reports whether x, after a thing's name, is its verb: a
// present form in -s followed by what a verb is followed by ("expires in",
// "runs out", "lives two streets away"), not the name's own plural
// ("tent pegs are").
func verbFormEN(x word, next *word) bool {
	w := x.low
	if len(w) < 4 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") ||
		strings.HasSuffix(w, "'s") {
		return false
	}
	if next == nil {
		return true
	}
	n := next.low
	return placePreps[n] || determiners[n] || pronouns[n] || plainAdverb[n] || isNumber(n) || numberWords[n] ||
		strings.HasSuffix(n, "ly") || n == "out" || n == "up" || n == "off" || n == "away" || n == "to" ||
		n == "for" || n == "from" || n == "with" || n == "into" || n == "by" || n == "me"
}

// measuredEN reads a measured thing ("a 4.2 kW solar array"): the thing
// after the number and its unit is the slot, the measure its value. An
// amount of something ("16 GB of memory", "3 litres of boot space") is a
// property of what has it: of says so, and the slot is the property.
func measuredEN(w []word) (attr, value string, of, ok bool) {
	w = skip(w, determiners)
	if len(w) < 3 || !isNumber(w[0].low) || !isWordEN(w[1].low) {
		return "", "", false, false
	}
	start := 2
	for k := 2; k < len(w)-1 && k <= 3; k++ {
		if w[k].low == "of" { // a unit of one or two words: "3 cubic metres of cargo space"
			start, of = k+1, true
			break
		}
		if !isWordEN(w[k].low) {
			break
		}
	}
	end := len(w)
	for i, x := range w[start:] {
		if plainPrep[x.low] || x.low == "that" || x.low == "of" {
			end = i + start
			break
		}
	}
	thing := w[start:end]
	if len(thing) == 0 || len(thing) > plainNounMax {
		return "", "", false, false
	}
	unit := w[1:2]
	if of {
		unit = w[1 : start-1]
	}
	return nounKey(thing), w[0].orig + " " + joinOrig(unit), of, true
}

// measure reports whether w opens with a number and its unit ("256 GB",
// "a 12 MP camera").
func measure(w []word) bool {
	w = skip(w, determiners)
	return len(w) >= 2 && isNumber(w[0].low) && isWordEN(w[1].low)
}

// isWordEN reports whether s is a word of letters (a hyphen or an
// apostrophe inside).
func isWordEN(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' {
			return false
		}
	}
	return s != ""
}

// clauseOf is w up to its first comma.
func clauseOf(w []word) []word {
	for i, x := range w {
		if x.low == "," {
			return w[:i]
		}
	}
	return w
}

// nounKey is the slot name of a noun phrase: its words lower-cased, the
// last one singular ("tent pegs": tent peg).
func nounKey(np []word) string {
	low := make([]string, len(np))
	for i, x := range np {
		low[i] = x.low
	}
	low[len(low)-1] = singular(low[len(low)-1])
	return strings.Join(low, " ")
}

func plainFact(subject, attr, value string, pol Polarity) events.Observation {
	return events.Observation{Kind: string(KindFact), Subject: subject, Attribute: attr,
		Value: strings.TrimSpace(value), Polarity: string(pol), Confidence: confWeak}
}

// matchPlainZH reads the first clause of sent that the user opens (我的…,
// 我家的…, 我…的是…, 我有…, or a habit: 我每天早上跳绳一千下). A clause
// that asks the assistant not to do something is a request, read by the
// request rules or not at all.
func matchPlainZH(sent string) []events.Observation {
	// a hedge's word inside a taste's (想 of 不想碰, 一闻就想吐) is no hedge
	if strings.ContainsAny(sent, "？?") || containsAnyOf(withoutWords(sent, zhDislike), plainHedgeZH) || zhAsked(sent) {
		return nil
	}
	var tastes []events.Observation
	var thing *events.Observation
	for _, c := range clausesZH(sent, "，,；;：:") {
		c = strings.TrimRight(strings.TrimSpace(c), "。！!.的啦呢吧啊呀")
		if o, ok := zhTopicTaste(c); ok {
			tastes = append(tastes, o) // each clause's: 针灸就免了，推拿我倒挺喜欢的
			continue
		}
		if thing != nil || containsAnyOf(c, zhForbid) || strings.HasSuffix(c, "了") {
			continue // a request, or what has happened (我的花生过敏又犯了)
		}
		pol := Positive
		if strings.ContainsAny(c, "不没") {
			pol = Negative
		}
		if o, ok := zhPlaced(c); ok && pol == Positive {
			thing = &o
			continue
		}
		if o, ok := plainThingZH(c, pol); ok {
			thing = &o
		}
	}
	if len(tastes) > 0 {
		return tastes
	}
	if thing != nil {
		return []events.Observation{*thing}
	}
	return nil
}

// withoutWords is s with every occurrence of each of ws cut out, the
// longest first.
func withoutWords(s string, ws []string) string {
	ws = slices.Clone(ws)
	slices.SortStableFunc(ws, func(a, b string) int { return len(b) - len(a) })
	for _, w := range ws {
		s = strings.ReplaceAll(s, w, "")
	}
	return s
}

// zhTopicTaste reads a thing said first and then liked or declined:
// 推拿我倒挺喜欢的 (a liking of 推拿), 针灸就免了 (a declining of 针灸),
// a preference of the thing's slot.
func zhTopicTaste(c string) (events.Observation, bool) {
	thing, value, pol := "", "", Positive
	for _, d := range zhUntouched {
		// 我滴酒不沾: the thing (酒) after as little of it as is said
		if t, ok := strings.CutSuffix(c, d); ok && utf8.RuneCountInString(c) <= plainNounMax+2 {
			t = strings.TrimPrefix(t, "我")
			if x := trimAny(t, zhTrace); x != "" && x != t && hasHanOnly(x) {
				subject, attr := zhSlot(x, "")
				return events.Observation{Kind: string(KindPreference), Subject: subject, Attribute: attr,
					Value: t + d, Polarity: string(Negative), Confidence: confWeak}, true
			}
		}
	}
	for _, d := range zhDecline {
		if t, ok := strings.CutSuffix(c, d); ok {
			thing, pol = t, Negative
			break
		}
	}
	if thing == "" {
		i := strings.Index(c, "我")
		if i <= 0 {
			return events.Observation{}, false
		}
		// 豆汁儿我是一口都喝不下去: the 是 that stresses the taste is no verb
		rest := zhDropAdverbs(strings.TrimPrefix(strings.TrimLeft(c[i+len("我"):], "倒也还就"), "是"))
		verbs := zhLike
		switch {
		case hasAnyPrefix(rest, zhDislike):
			pol, verbs = Negative, zhDislike
		case hasAnyPrefix(rest, zhLike):
		default:
			return events.Observation{}, false
		}
		// what follows the liking is how the thing is liked, its value:
		// 空调我喜欢开到26度 (开到26度), 咖啡我爱喝美式的 (喝美式)
		for _, v := range verbs {
			if r, ok := strings.CutPrefix(rest, v); ok && (value == "" || utf8.RuneCountInString(r) < utf8.RuneCountInString(value)) {
				value = r
			}
		}
		if utf8.RuneCountInString(value) < 2 {
			value = "" // a bare verb (香菜我不喜欢吃) says no more than the liking
		}
		thing = c[:i]
	}
	thing = zhDropAdverbs(strings.TrimSpace(thing))
	n := utf8.RuneCountInString(thing)
	if n < 2 || n > plainNounMax || zhPronouns[thing] || zhPeople[thing] || strings.ContainsAny(thing, "我你他她它") ||
		strings.IndexFunc(thing, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) >= 0 {
		return events.Observation{}, false
	}
	subject, attr := zhSlot(thing, "")
	return events.Observation{Kind: string(KindPreference), Subject: subject, Attribute: attr, Value: strings.TrimSpace(value),
		Polarity: string(pol), Confidence: confWeak}, true
}

// plainThingZH reads one clause of the user's.
func plainThingZH(c string, pol Polarity) (events.Observation, bool) {
	lead, rest, ok := zhOpener(c)
	if !ok {
		return events.Observation{}, false
	}
	if o, ok := zhDistanceFromHome(rest, pol); ok {
		return o, true
	}
	if o, ok := zhSelfMeasure(rest, pol); ok {
		return o, true
	}
	for _, p := range []string{"的", "家的", "们的", "们家的"} {
		if r, ok := strings.CutPrefix(rest, p); ok {
			// 我的公积金每个月缴1850元: the thing runs to what is said of it
			n := zhThingName(r)
			value := strings.TrimPrefix(r[len(n):], "是")
			if nr := utf8.RuneCountInString(n); nr < 2 || nr > plainNounMax || value == "" || containsAnyOf(n, zhContact) {
				return events.Observation{}, false
			}
			if prop, amount, ok := zhMeasured(strings.TrimPrefix(value, "有")); ok && strings.HasPrefix(value, "有") {
				// 我的笔记本电脑有16G内存: the laptop's memory, a property of the laptop
				return plainFact(plainMine, n+prop, amount, pol), true
			}
			return plainFact(plainMine, n, lead+value, pol), true
		}
	}
	rest = zhDropAdverbs(rest)
	if i := strings.Index(rest, "的是"); i > 0 {
		// 我平时戴的是日抛隐形眼镜: the verb is the slot, what follows its value
		v, value := zhDropAdverbs(rest[:i]), rest[i+len("的是"):]
		if n := utf8.RuneCountInString(v); n < 1 || n > 3 || value == "" {
			return events.Observation{}, false
		}
		return plainFact(plainMine, v, value, pol), true
	}
	if x, ok := zhHad(rest); ok {
		// 我有一辆开了八年的越野车, 我家里养了两只仓鼠: the thing had, after its
		// last 的 or its count, is the slot
		head := x
		if i := strings.LastIndex(head, "的"); i >= 0 {
			head = head[i+len("的"):]
		} else if i := strings.IndexAny(head, zhMeasure); i >= 0 {
			_, size := utf8.DecodeRuneInString(head[i:])
			head = head[i+size:]
		}
		if n := utf8.RuneCountInString(head); n < 2 || n > plainNounMax {
			return events.Observation{}, false
		}
		return plainFact(plainMine, head, x, pol), true
	}
	return plainHabitZH(lead, rest, pol)
}

// zhPlaced reads where a thing is put, said with the thing first (结婚证夹在
// 书房那本词典里, 车的备用钥匙挂在门后) or after 我把 (我把护照锁在抽屉里): the
// thing is the slot (my/结婚证), the place after a verb of putting ([plain]
// zh_put) and 在 its value. A thing that is someone (孩子放在奶奶家) or
// that holds a person is none; what the user says of their own thing
// (我的雨伞放在…) plainThingZH reads.
func zhPlaced(c string) (events.Observation, bool) {
	c = strings.TrimPrefix(c, "我把")
	i, n := -1, 0
	for _, v := range zhPut {
		if j := strings.Index(c, v+"在"); j > 0 && (i < 0 || j < i) {
			i, n = j, len(v+"在")
		}
	}
	if i < 0 {
		return events.Observation{}, false
	}
	thing, place := zhTrimAdverbs(c[:i]), strings.TrimSpace(c[i+n:])
	if r := utf8.RuneCountInString(thing); r < 2 || r > plainNounMax || place == "" || utf8.RuneCountInString(place) > zhPlaceMax ||
		strings.ContainsAny(thing, "我你他她它") || hasAnyPrefix(thing, zhKinNames) || zhPeople[thing] || zhPronouns[thing] ||
		strings.IndexFunc(thing, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) >= 0 {
		return events.Observation{}, false
	}
	return plainFact(plainMine, thing, place, Positive), true
}

// zhPlaceMax bounds the runes of a place zhPlaced reads.
const zhPlaceMax = 20

// zhTrimAdverbs drops the adverbs that end s (结婚证一直: 结婚证).
func zhTrimAdverbs(s string) string {
	for changed := true; changed; {
		changed = false
		for _, a := range zhAdverbs {
			if r, ok := strings.CutSuffix(s, a); ok && r != "" {
				s, changed = r, true
			}
		}
	}
	return s
}

// zhHad returns what follows a verb of having ([plain] zh_have: 有, 养) at
// the start of rest, said of the user or their home (家里养了…).
func zhHad(rest string) (string, bool) {
	for _, home := range []string{"家里", "家", ""} {
		r, ok := strings.CutPrefix(rest, home)
		if !ok {
			continue
		}
		n := 0
		for _, h := range zhHave {
			if strings.HasPrefix(r, h) && len(h) > n {
				n = len(h)
			}
		}
		if n > 0 {
			return r[n:], true
		}
	}
	return "", false
}

// zhDistanceFromHome reads how far the user's home is from a place, said
// after 我: 家离菜市场三百米 (my/离菜市场 = 三百米). The place, Han runes
// up to the distance's number, is the slot; a distance said without a
// number (家离公园很近) is none.
func zhDistanceFromHome(rest string, pol Polarity) (events.Observation, bool) {
	for _, h := range zhHome {
		r, ok := strings.CutPrefix(rest, h)
		if !ok {
			continue
		}
		for _, a := range zhApart {
			r, ok := strings.CutPrefix(r, a)
			if !ok {
				continue
			}
			i := strings.IndexFunc(r, func(c rune) bool { return strings.ContainsRune(zhNumerals, c) })
			if i <= 0 {
				return events.Observation{}, false
			}
			place := strings.TrimSuffix(r[:i], "有")
			if n := utf8.RuneCountInString(place); n < 2 || n > plainNounMax ||
				strings.IndexFunc(place, func(c rune) bool { return !unicode.Is(unicode.Han, c) }) >= 0 {
				return events.Observation{}, false
			}
			return plainFact(plainMine, a+place, r[i:], pol), true
		}
	}
	return events.Observation{}, false
}

// zhOnlyWhen reports whether s says only when (这周, 下个月月底: words of
// [plain] zh_when), and so names no thing.
func zhOnlyWhen(s string) bool {
	for _, w := range zhWhen {
		s = strings.ReplaceAll(s, w, "")
	}
	return s == ""
}

// zhMeasured reads an amount of something a thing has (16G内存, 三间卧室):
// a number, its unit (letters, or a measure word of [plain] measure) and
// what is measured, a name of Han runes.
func zhMeasured(s string) (prop, amount string, ok bool) {
	i := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(zhNumerals+"百千万.", r) })
	if i <= 0 {
		return "", "", false
	}
	j := i + strings.IndexFunc(s[i:]+"。", func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) })
	if j == i {
		if r, size := utf8.DecodeRuneInString(s[i:]); strings.ContainsRune(zhMeasure, r) {
			j += size
		}
	}
	prop = s[j:]
	if n := utf8.RuneCountInString(prop); j == i || n < 1 || n > plainNounMax ||
		strings.IndexFunc(prop, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) >= 0 {
		return "", "", false
	}
	return prop, s[:j], true
}

// zhOpener finds the user opening c (after time words: 每周六上午我去…):
// what was said before 我, and what follows it.
func zhOpener(c string) (lead, rest string, ok bool) {
	i := strings.Index(c, "我")
	if i < 0 {
		return "", "", false
	}
	lead, rest = c[:i], c[i+len("我"):]
	if lead != "" && zhTrimTimes(lead) != "" || zhKinFirst(rest) {
		return "", "", false // someone or something else opens the clause
	}
	return lead, rest, true
}

// zhKinFirst reports whether what follows 我 names someone of the user's
// (我妈每天早上跑步, 我家孩子…, 我的同事…): the clause is theirs, not the user's.
func zhKinFirst(rest string) bool {
	for _, p := range []string{"", "的", "家", "家的", "们", "们的", "们家", "们家的"} {
		if r, ok := strings.CutPrefix(rest, p); ok && hasAnyPrefix(r, zhKinNames) {
			return true
		}
	}
	return false
}

// zhThingName is the name at the start of s, up to what is said of it or
// a time said of it (我的车险下个月到期: 车险).
func zhThingName(s string) string {
	for i, r := range s {
		if i > 0 && (!unicode.Is(unicode.Han, r) || strings.ContainsRune(zhPlainSaidOf, r)) ||
			utf8.RuneCountInString(s[:i]) >= 2 && hasAnyPrefix(s[i:], zhWhen) ||
			utf8.RuneCountInString(s[:i]) >= 2 && strings.ContainsRune(zhPlainLate, r) {
			return s[:i]
		}
	}
	return s
}

// zhDropAdverbs drops the adverbs that open s (平时, 一般, 现在, …).
func zhDropAdverbs(s string) string {
	for changed := true; changed; {
		changed = false
		for _, a := range zhAdverbs {
			if r, ok := strings.CutPrefix(s, a); ok && r != "" {
				s, changed = r, true
			}
		}
	}
	return s
}

// zhTrimTimes drops the words of when a habit is done from the start of
// s (每天, 晚饭后, 都, 去).
func zhTrimTimes(s string) string {
	for changed := true; changed; {
		changed = false
		for _, ws := range [][]string{zhHabitWhen, zhHabitTime} {
			for _, w := range ws {
				if r, ok := strings.CutPrefix(s, w); ok && !clockAfter(w, r) {
					s, changed = r, true
				}
			}
		}
	}
	return s
}

// clockAfter reports whether w, a numeral said of when a habit is done
// (the 三 of 每周三), is the hour of a clock time that rest goes on with
// (六点半起床, 6:30起床): the time stays whole in the habit.
func clockAfter(w, rest string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	return strings.ContainsRune(zhNumerals, []rune(w)[0]) && (r == '点' || r == ':' || r == '：' || strings.ContainsRune(zhNumerals, r))
}

// plainHabitZH reads a habit said with when it is done (每天, 每周三晚上):
// the activity, up to its amount, is the slot (我每天早上跳绳一千下:
// habit/跳绳), the clause its value.
func plainHabitZH(lead, rest string, pol Polarity) (events.Observation, bool) {
	act := zhTrimTimes(rest)
	if !containsAnyOf(lead+rest, zhHabitWhen) {
		r, ok := zhTimesPer(rest)
		if !ok && !zhUsually(rest) {
			return events.Observation{}, false
		}
		if ok {
			act = r
		}
	}
	act = zhDropCompany(act)
	// a place gone to first (去小区里遛弯, 去社区图书馆做志愿者): the activity follows it
	for _, end := range []string{"里", "上", "边", "馆", "店", "场", "园", "房", "室"} {
		if i := strings.Index(act, end); i > 0 && utf8.RuneCountInString(act[:i]) <= 6 {
			if r := act[i+len(end):]; utf8.RuneCountInString(r) >= 2 {
				act = r
				break
			}
		}
	}
	name := zhActivityName(act)
	if n := utf8.RuneCountInString(name); n < 2 || n > plainNounMax {
		return events.Observation{}, false
	}
	return plainFact(plainHabit, name, lead+rest, pol), true
}

// zhWith are the words that say whom a habit is done with, said before
// it ([plain] zh_with: 跟, 和); zhTogether what may follow the company
// (们, 一起).
var zhWith, zhTogether = wordList("plain", "zh_with"), wordList("plain", "zh_together")

// zhCompanyMax bounds the characters said before a person of the company
// a habit is done in (几个老, 我的).
const zhCompanyMax = 3

// zhDropCompany drops from act the company a habit is kept in, said before
// the activity (跟老同学打掼蛋, 和几个朋友一起打羽毛球): a word of zh_with,
// at most zhCompanyMax characters, one of the user's people (data/words.txt
// kin) and the words of zh_together; the activity follows. An act that
// names no person there, or leaves less than two characters, is kept
// whole.
func zhDropCompany(act string) string {
	for _, w := range zhWith {
		r, ok := strings.CutPrefix(act, w)
		if !ok {
			continue
		}
		end := -1
		for _, k := range zhKinNames {
			if i := strings.Index(r, k); i >= 0 && utf8.RuneCountInString(r[:i]) <= zhCompanyMax && i+len(k) > end {
				end = i + len(k)
			}
		}
		if end < 0 {
			continue
		}
		rest := r[end:]
		for changed := true; changed; {
			changed = false
			for _, t := range zhTogether {
				if x, ok := strings.CutPrefix(rest, t); ok {
					rest, changed = x, true
				}
			}
		}
		if utf8.RuneCountInString(rest) >= 2 {
			return rest
		}
	}
	return act
}

// zhUsual are the times a habit is kept said alone, without 每 ([plain]
// habit_usual: 周末); zhOnce the words that make what is said of such a
// time a plan or a thing done once (habit_once: 要, 打算, 了).
var zhUsual, zhOnce = wordList("plain", "habit_usual"), wordList("plain", "habit_once")

// zhUsually reports whether rest says a habit by a time it is kept, said
// first and alone (我周末在花鸟市场摆摊: 周末, not 这周末 or 下周末), with
// nothing of a plan or of a thing done once (我周末要去北京, 周末去了趟北京).
func zhUsually(rest string) bool {
	return hasAnyPrefix(rest, zhUsual) && !containsAnyOf(rest, zhOnce)
}

// zhActivityName is the activity of a habit said after when it is done:
// the words up to its amount (跳绳一千下: 跳绳), or, where the amount or a
// clock time comes before the thing (泡一壶菊花茶, 十一点睡觉), the verb said
// before the count and the thing said after it and its measure word
// ([plain] measure, habit_count): 泡菊花茶, 睡觉.
func zhActivityName(act string) string {
	isNum := func(r rune) bool { return strings.ContainsRune(zhNumerals+"百千万:：", r) } // a clock's colon: 6:30起床
	i := strings.IndexFunc(act, isNum)
	if i < 0 {
		return act
	}
	before := act[:i]
	if utf8.RuneCountInString(before) >= 2 {
		return before
	}
	after := strings.TrimLeftFunc(act[i:], isNum)
	counted := false
	for _, m := range zhHabitCount {
		if r, ok := strings.CutPrefix(after, m); ok {
			after, counted = r, true
			break
		}
	}
	if r, _ := utf8.DecodeRuneInString(after); !counted && strings.ContainsRune(zhMeasure, r) {
		after = after[utf8.RuneLen(r):]
	}
	if j := strings.IndexFunc(after, isNum); j > 0 {
		after = after[:j] // a numeral that opens the thing is its name's (八段锦, 三明治)
	}
	if utf8.RuneCountInString(after) < 2 && before == "" {
		return before
	}
	return before + after
}

// zhTimesPer reads a habit said as so many times a period (一个月染一次头发,
// 两周去一趟超市): rest opens with a number and a period ([plain]
// habit_period) and counts the times after it (a number and 次 or 趟); it
// returns what follows the period.
func zhTimesPer(rest string) (string, bool) {
	isNum := func(r rune) bool { return strings.ContainsRune(zhNumerals, r) }
	r := strings.TrimLeftFunc(rest, isNum)
	if len(r) == len(rest) {
		return "", false
	}
	for _, p := range zhHabitPeriod {
		if act, ok := strings.CutPrefix(r, p); ok {
			if hasAnyPrefix(act, []string{"前", "后", "内", "以", "里"}) || strings.ContainsAny(act, "了过") {
				return "", false // what happened once (一个月前去了一次北京)
			}
			for i, c := range act {
				if isNum(c) && (strings.HasPrefix(strings.TrimLeftFunc(act[i:], isNum), "次") || strings.HasPrefix(strings.TrimLeftFunc(act[i:], isNum), "趟")) {
					return act, true
				}
			}
			return "", false
		}
	}
	return "", false
}

func containsAnyOf(s string, ws []string) bool {
	for _, w := range ws {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
