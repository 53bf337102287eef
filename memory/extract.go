package memory

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
)

// Extractor turns a user's message into observations. Implementations must
// be deterministic (the same text and lang give the same observations, in
// the same order): Apply calls it while rebuilding a projection, and replay
// must equal live (invariant 6). An observation without a slot becomes an
// episode; observations it returns need no ID (Apply assigns one).
type Extractor interface {
	Extract(text string, lang string) []events.Observation
}

// RuleExtractor is the built-in deterministic extractor. It reads explicit
// first-person statements in English and Chinese — "I like / love / enjoy /
// prefer / hate / dislike / can't / cannot / don't / never / am allergic to /
// am vegetarian / live in / work at …", "我喜欢 / 我爱 / 我不能 / 我不吃 /
// 我对…过敏 / 我讨厌 / 我住在 …" — and nothing else: a message that states
// nothing gives no observation (and is kept as an episode).
//
// Kinds: can't, cannot, must, allergic, vegetarian, don't eat (不能, 不吃,
// 过敏, 吃素) give a constraint; "I can eat … again" (又能吃) a positive
// constraint, which lifts the negative one; like, love, hate (喜欢, 讨厌) a
// preference; live in, work at (住在, 在…工作) a fact whose value is the
// place. Temporal qualifiers ("these days", "anymore", 最近, 这几天) are
// dropped from the slot and keep a constraint a constraint; a bound ("this
// week", "this month", "today", 这周, 这个月, 今天) gives a forbidding
// constraint a TTL, so it ends by itself. Habits ("I drink three cups of
// coffee a day", "I switched to oat milk", 一周去三次健身房) are facts whose
// value holds the kind and the amount under the head's slot (drink/milk =
// oat milk), so a new kind or amount supersedes the old; quitting ("I quit
// coffee", 戒掉了) is a constraint. "I left Stripe", 从阿里离职 deny one
// value. Nothing is read from conditionals ("if I moved to …", 如果, 打算,
// 想), questions without their mark ("Would I like …", 要不要, 是不是) or
// statements about someone else ("my wife is …", 我老婆…). lang is "en",
// "zh" or "" (both).
//
// Statements in plain words are read by the cue words of
// data/statements.txt (extract_cues.go): requests to the assistant and
// their lifts ("please don't call me after 7pm", 别给我打电话; "you can call
// me again", 又可以给我打电话了) are constraints of subject request; caps ("my
// hotel budget is capped at 150 euros", 我的午餐预算最多50元) constraints of
// subject limit; "I prefer X", 更喜欢X and 最喜欢的Y是X the favourite of X's
// kind (favorite/tea = oolong), so a new one supersedes the old; an end said
// by the calendar ("until March 20", "until the end of the year", 到月底,
// 年底之前) is a constraint's ValidUntil, read against the time the text was
// said (ExtractAt). A Chinese first clause without a subject (最近海鲜过敏) is
// the speaker's constraint.
//
// The rules are data where they are words: the English verb phrases are
// the table extract_en_phrases.txt (longest match first); the word sets,
// bounds, the Chinese lexicon and verb phrases are data/words.txt, and the
// cues of plain statements data/statements.txt, both read with lang.Load
// (extract_words.go); code keeps the structural rules (sentences and
// clauses, subjects, objects, diets, habits, bounds).
type RuleExtractor struct{}

var _ Extractor = RuleExtractor{}

// observationsMax bounds what one message can yield.
const observationsMax = 16

// TimedExtractor is an Extractor that reads an end said by the calendar
// ("until March 20", 到月底) against the time the text was said (Unix ns of
// event time): ExtractAt gives those statements their ValidUntil. The
// engine calls it when its extractor is one; at is the event's time, so
// replay equals live.
type TimedExtractor interface {
	Extractor
	ExtractAt(text, lang string, at int64) []events.Observation
}

var _ TimedExtractor = RuleExtractor{}

// extract runs the engine's extractor on text said at time at.
func (e *Engine) extract(text string, at int64) []events.Observation {
	if t, ok := e.ex.(TimedExtractor); ok {
		return t.ExtractAt(text, "", at)
	}
	return e.ex.Extract(text, "")
}

// Extract implements Extractor: ExtractAt without a time, so no end said
// by the calendar is read.
func (r RuleExtractor) Extract(text, lang string) []events.Observation {
	return r.ExtractAt(text, lang, 0)
}

// ExtractAt implements TimedExtractor.
func (RuleExtractor) ExtractAt(text, lang string, at int64) []events.Observation {
	var out []events.Observation
	if lang == "" || lang == "en" {
		out = append(out, extractEN(text, at)...)
	}
	if lang == "zh" || lang == "" && strings.IndexFunc(text, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0 {
		out = append(out, extractZH(text, at)...)
	}
	for _, o := range endedReasons(text) { // a ban's reason over: lift_reason.go
		if !liftedHere(out, o) {
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		// a newer value said in other words than its slot (restate.go)
		sents, questions := sentences(text)
		for si, sent := range sents {
			if o, ok := matchRestatement(sent); ok && !questions[si] {
				o.Text = sent
				out = append(out, o)
			}
		}
	}
	out = withPlain(text, out)
	out = slices.DeleteFunc(out, documentCode) // its sentence is kept as an episode, as a contact detail's is
	if len(out) > observationsMax {
		out = out[:observationsMax]
	}
	return out
}

// withPlain adds to out a plain statement (plain.go) of each sentence of
// text that is no question and that nothing in out was read from, in the
// order the sentences are said (the writer keeps each sentence it reads
// nothing from beside them as an episode of its own: MessageEvents).
func withPlain(text string, out []events.Observation) []events.Observation {
	read := map[string]bool{}
	for _, o := range out {
		read[o.Text] = true
	}
	sents, questions := sentences(text)
	var plain []events.Observation
	for si, sent := range sents {
		if questions[si] || read[sent] || !hasWords(sent) {
			continue
		}
		var obs []events.Observation
		if !hasHan(sent) && opensCorrection(words(sent)) {
			// "No wait, I'm flying to Riga, not Vilnius - I misread it": the
			// correction before what else the sentence says
			if o, ok := matchCorrectionLateEN(words(sent)); ok {
				obs = append(obs, o)
			}
		}
		if len(obs) == 0 {
			obs = matchPlain(sent)
		}
		if len(obs) == 0 && !hasHan(sent) {
			if o, ok := matchCorrectionLateEN(words(sent)); ok { // correction.go
				obs = append(obs, o)
			}
		}
		if len(obs) == 0 {
			continue
		}
		for _, o := range obs {
			o.Text = sent
			plain = append(plain, o)
		}
	}
	for _, o := range plain {
		at := strings.Index(text, o.Text)
		k := len(out)
		for i, x := range out {
			if j := strings.Index(text, x.Text); j > at {
				k = i
				break
			}
		}
		out = slices.Insert(out, k, o)
	}
	return out
}

const (
	confStrong = 0.8 // an explicit first-person statement
	confWeak   = 0.7 // a generic "I don't / never …"
)

// word is one word of a sentence, lower-cased and as written.
type word struct{ low, orig string }

// sentences splits text into statements (statementSentences: lang's
// sentences, which know initials, abbreviations and decimals, cut at their
// clause joiners), each without its end marks; a question is flagged.
func sentences(text string) (out []string, questions []bool) {
	out, questions, _ = sentencesMarked(text)
	return out, questions
}

// sentencesMarked is sentences, and for each whether it is a subjectless
// thing of the speaker's cut after a comma (statementParts).
func sentencesMarked(text string) (out []string, questions, things []bool) {
	parts, th := statementParts(text)
	for i, s := range parts {
		t := strings.TrimRight(s.Text, ".!?;。！？；…\"'”’」』)）》] ")
		if t == "" {
			continue
		}
		out = append(out, t)
		questions = append(questions, s.Question)
		things = append(things, th[i])
	}
	return out, questions, things
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// nameTitles are the abbreviations that never end a sentence (the shared
// language data's titles: Dr., Mr., Prof.): a name keeps their dot.
var nameTitles = set(lang.Default().Words("abbreviations", "title")...)

// contractions expands what people write for "I am", "can't", … into words.
var contractions = wordMap("contractions")

// words splits a sentence into words; commas become a "," word (a clause
// boundary).
func words(s string) []word {
	var out []word
	var b strings.Builder
	flush := func() {
		if b.Len() == 0 {
			return
		}
		orig := b.String()
		b.Reset()
		low := strings.ToLower(strings.ReplaceAll(orig, "’", "'"))
		low = strings.Trim(low, "'-")
		if t, ok := strings.CutSuffix(low, "."); ok && nameTitles[t] {
			low = t // a slot is the same with or without a title's dot; the value keeps it
		}
		if low == "" {
			return
		}
		if ex, ok := contractions[low]; ok {
			for _, e := range ex {
				out = append(out, word{e, e})
			}
			return
		}
		if strings.HasSuffix(low, "n't") {
			out = append(out, word{strings.TrimSuffix(low, "n't"), strings.TrimSuffix(orig, "n't")}, word{"not", "not"})
			return
		}
		out = append(out, word{low, orig})
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == '-' && b.Len() > 0:
			b.WriteRune(r)
		case r == '.' && b.Len() > 0 && isDigitByte(b.String()[b.Len()-1]) && i+1 < len(s) && isDigitByte(s[i+1]):
			b.WriteRune(r) // a decimal keeps its point: 6.6 kW
		case r == ':' && b.Len() > 0 && isDigitByte(b.String()[b.Len()-1]) && clockMinutes(s[i+1:]):
			b.WriteRune(r) // a clock time keeps its colon: 6:45, not 6
		case r == ',' && b.Len() > 0 && isDigitByte(b.String()[b.Len()-1]) && thousands(s[i+1:]):
			b.WriteRune(r) // and a number its thousands: 120,000 miles
		case r == '.' && b.Len() == 1 && unicode.IsUpper([]rune(b.String())[0]):
			b.WriteRune(r) // an initial keeps its dot: Ursula K. Le Guin
			flush()
		case r == '.' && b.Len() > 0 && nameTitles[strings.ToLower(b.String())]:
			b.WriteRune(r) // so does a title: Dr. E. M. Castellanos
			flush()
		case r == ',' || r == '，' || r == ':' || r == '(' || r == ')' || r == '"' || r == '—' || r == '–':
			flush()
			out = append(out, word{",", ","})
		case r == '-' && b.Len() == 0 && (i+1 == len(s) || s[i+1] == ' '):
			// a dash between spaces ("Dr. P. J. O'Hanlon - a chemist by day")
			// ends a clause as a comma does
			out = append(out, word{",", ","})
		default:
			flush()
		}
	}
	flush()
	return out
}

// clauseEnd are words that end an object phrase.
var clauseEnd = wordSet("en words", "clause_end")

// elidedAfter are conjunctions after which a clause may drop its "I"
// ("I love spicy food but can't eat it").
var elidedAfter = wordSet("en words", "elided_after")

func extractEN(text string, at int64) []events.Observation {
	var out []events.Observation
	sents, questions := sentences(text)
	for si, sent := range sents {
		ws := words(sent)
		if questions[si] || askedEN(ws) {
			continue
		}
		start := len(out)
		var prev *events.Observation
		if len(out) > 0 {
			prev = &out[len(out)-1]
		}
		add := func(o events.Observation) {
			o.Text = sent
			out = append(out, o)
			prev = &out[len(out)-1]
		}
		if o, ok := matchCorrectionEN(ws); ok {
			add(o) // "Harrow Barn, not the Old Mill": correction.go
			continue
		}
		if o, ok := matchAmendEN(ws); ok {
			add(o) // "Sorry, I meant Thursday": correction.go
			continue
		}
		if saysMistake(ws) {
			if o, ok := matchCorrectionLateEN(ws); ok {
				add(o) // "I read the timetable wrong - it's at 23:40, not 23:10"
				continue
			}
		}
		if o, ok := matchRequestEN(ws); ok {
			add(o)
		} else if o, ok := matchLimitEN(ws); ok {
			add(o)
		} else if o, ok := matchSpendCapEN(ws); ok {
			add(o)
		} else if o, ok := matchHarmEN(ws); ok {
			add(o)
		} else if o, ok := matchDistasteEN(ws); ok {
			add(o)
		} else if o, ok := matchFineAgainEN(ws); ok {
			add(o)
		} else if o, ok := matchDethroneEN(ws); ok {
			add(o)
		} else if o, ok := laterRequestEN(ws); ok {
			add(o)
		}
		if obs := matchCleftEN(ws); len(obs) > 0 {
			for _, o := range obs {
				add(o)
			}
			setValidity(out[start:], boundEN(ws), validUntilEN(ws, at), validFrom(ws, "", at), openEndedEN(ws))
			setStart(out[start:], startOf(ws, "", at))
			continue
		}
		sawI := false
		for i := 0; i < len(ws); i++ {
			var rest []word
			switch {
			case conditionals[ws[i].low]:
				// "if I moved to Tokyo, …": the clause states nothing
				for i+1 < len(ws) && ws[i+1].low != "," {
					i++
				}
				continue
			case ws[i].low == "i":
				sawI = true
				rest = ws[i+1:]
			case i == 0 && (subjectless[ws[i].low] || phraseAt(ws, 0, subjectlessPhrases) > 0):
				// "Started my new job at Figma today", "Quit coffee last
				// week", "No need to avoid nuts any more"
				sawI = true
				rest = ws
			case ws[i].low == "we":
				if o, ok := matchWe(ws[i+1:]); ok {
					add(o)
				}
				continue
			case i == 0 && ws[i].low == "the":
				if o, ok := matchTheIsAt(ws[i+1:]); ok {
					add(o)
				}
				continue
			case ws[i].low == "my" || ws[i].low == "our":
				// "our vet is Dr. E. M. Castellanos": the household's, as "we" is
				if o, ok := matchMy(ws[i+1:]); ok {
					add(o)
				}
				continue
			case ws[i].low == "no":
				if phraseAt(ws, i, cues.fine) > 0 {
					continue // "citrus is no problem for me": a lift, read above
				}
				if o, ok := matchNoForMe(ws[i+1:], prev); ok {
					add(o)
				}
				continue
			case phraseAt(ws, i, cues.none) > 0:
				// "count me out of karaoke nights": none of it, as "no karaoke for me"
				n := phraseAt(ws, i, cues.none)
				if o, ok := constraint(ws[i+n:], "", Negative, prev); ok {
					add(o)
				}
				i += n - 1
				continue
			case phraseAt(ws, i, cues.less) > 0:
				// "go easy on the chilli for me": less of it, as "no chilli for me"
				n := phraseAt(ws, i, cues.less)
				if o, ok := matchNoForMe(ws[i+n:], prev); ok {
					add(o)
				}
				i += n - 1
				continue
			case (ws[i].low == "is" || ws[i].low == "are") && i > 0: // "custard creams are my favourite biscuit"
				if o, ok := matchIsMy(ws[:i], ws[i+1:]); ok {
					add(o)
				}
				continue
			case ws[i].low == "been" && i > 1 && (ws[i-1].low == "has" || ws[i-1].low == "have" || fillers[ws[i-1].low] && (ws[i-2].low == "has" || ws[i-2].low == "have")):
				// "rummy has always been my favourite card game": the favourite it still is
				j := i - 1
				if fillers[ws[j].low] {
					j--
				}
				if o, ok := matchIsMy(ws[:j], ws[i+1:]); ok {
					add(o)
				}
				continue
			case sawI && elidedAfter[ws[i].low]:
				rest = ws[i+1:]
			default:
				continue
			}
			o, ok := matchEN(rest, prev)
			if !ok {
				continue
			}
			add(o)
		}
		setValidity(out[start:], boundEN(ws), validUntilEN(ws, at), validFrom(ws, "", at), openEndedEN(ws))
		setStart(out[start:], startOf(ws, "", at))
		dethroned(out[start:], ws)
	}
	return out
}

// dethroned gives a favourite read from a sentence that says another was
// put off the top ("Sorry rummy, you've been dethroned - cribbage is my
// number one now": [favorites] dethroned) no kind of its own
// (favorite/general), so that the writer gives it the kind of the current
// favourite the sentence names and it supersedes that one (favoriteKind).
func dethroned(obs []events.Observation, ws []word) {
	if i, _ := findPhrase(ws, dethronedWords); i < 0 {
		return
	}
	for k := range obs {
		if obs[k].Subject == "favorite" && obs[k].Polarity == string(Positive) {
			obs[k].Attribute = "general"
		}
	}
}

// dethronedWords say a favourite was put off the top ([favorites] dethroned).
var dethronedWords = phrasesOf("favorites", "dethroned")

// cleftMax bounds the words of a cleft's thing ("it's aspirin I react to").
const cleftMax = 4

// matchCleftEN reads a statement whose thing is put first, as corrections
// are said: "it's aspirin I react to, not ibuprofen", "it was oat milk
// that I switched to": the verb phrase after "I" read of the thing, and of
// the thing after "not" with the other polarity (so the misspoken one is
// lifted or denied, not kept). Nothing if the verb phrase states nothing.
func matchCleftEN(ws []word) []events.Observation {
	for i := 0; i+2 < len(ws); i++ {
		xs := i + 2 // the thing's first word
		switch {
		case ws[i].low == "it's" || ws[i].low == "it’s":
			xs = i + 1
		case ws[i].low != "it" || ws[i+1].low != "is" && ws[i+1].low != "was":
			continue
		}
		j := xs
		for j < len(ws) && j-xs <= cleftMax && ws[j].low != "i" && ws[j].low != "," {
			j++
		}
		x := ws[xs:j]
		if len(x) > 0 && x[len(x)-1].low == "that" {
			x = x[:len(x)-1]
		}
		if j >= len(ws) || ws[j].low != "i" || len(x) == 0 || len(x) > cleftMax {
			continue
		}
		k := j + 1
		for k < len(ws) && ws[k].low != "," {
			k++
		}
		vp := ws[j+1 : k]
		read := func(thing []word) (events.Observation, bool) {
			clause := append(append([]word{}, vp...), thing...)
			return matchEN(clause, nil)
		}
		o, ok := read(x)
		if !ok {
			continue
		}
		out := []events.Observation{o}
		if k+2 < len(ws) && ws[k+1].low == "not" {
			e := k + 2
			for e < len(ws) && ws[e].low != "," {
				e++
			}
			if y, ok := read(ws[k+2 : e]); ok && y.Kind == o.Kind && y.Attribute != o.Attribute {
				y.Polarity = string(Positive)
				if o.Polarity == string(Positive) {
					y.Polarity = string(Negative)
				}
				out = append(out, y)
			}
		}
		return out
	}
	return nil
}

var (
	workStart = wordSet("en words", "work_start")
	workEnd   = wordSet("en words", "work_end")
	workRange = wordSet("en words", "work_range")
)

var clockWord = regexp.MustCompile(`^([0-9]{1,2})(am|pm)?$|^noon$|^midnight$`)

// matchWorkHoursEN reads the user's working hours, one fact (work/hours)
// whose value is the hours said, so newer hours supersede the old: "start
// work at 9 (and finish at 5)" → "9 to 5", "work 10 till 6" → "10 to 6";
// "finish work at 5" alone is work/hours end.
func matchWorkHoursEN(w []word) (events.Observation, bool) {
	clock := func(i int) string {
		if i < len(w) && clockWord.MatchString(w[i].low) {
			return w[i].orig
		}
		return ""
	}
	fact := func(v string) (events.Observation, bool) {
		return events.Observation{Kind: string(KindFact), Subject: "work", Attribute: "hours", Value: v,
			Polarity: string(Positive), Confidence: confStrong}, true
	}
	isWork := func(i int) bool { return i < len(w) && (w[i].low == "work" || w[i].low == "working") }
	switch {
	case len(w) >= 4 && workStart[w[0].low] && isWork(1) && w[2].low == "at" && clock(3) != "":
		from := clock(3)
		for j := 4; j+2 < len(w) && j <= 8 && w[j].low != ","; j++ {
			if workEnd[w[j].low] {
				k := j + 1
				if isWork(k) {
					k++
				}
				if k+1 < len(w) && w[k].low == "at" && clock(k+1) != "" {
					return fact(from + " to " + clock(k+1))
				}
			}
		}
		return fact("from " + from)
	case len(w) >= 4 && w[0].low == "work" && clock(1) != "" && workRange[w[2].low] && clock(3) != "":
		return fact(clock(1) + " to " + clock(3))
	case len(w) >= 4 && workEnd[w[0].low] && isWork(1) && w[2].low == "at" && clock(3) != "":
		o, ok := fact(clock(3))
		o.Attribute = "hours end" // the day's end alone: the hours stand
		return o, ok
	}
	return events.Observation{}, false
}

// laterRequestEN reads a request that opens a later clause of a sentence:
// "From next month I'm on night shifts, so please don't call me before
// 2pm", "The kids are asleep by 7:30, so no deliveries after 7 please".
func laterRequestEN(ws []word) (events.Observation, bool) {
	for k := 1; k+1 < len(ws); k++ {
		if ws[k].low != "," {
			continue
		}
		if o, ok := matchRequestEN(ws[k+1:]); ok {
			return o, true
		}
	}
	return events.Observation{}, false
}

// setValidity gives the constraints read from one sentence its validity:
// an end said by the calendar (until, Unix ns) to every constraint; else a
// bound (ttl: "this week") or an open end ("these days") to a forbidding
// constraint or a cap — a lift or a permission is no passing state. A
// start said by the calendar (from: "from next month", Unix ns) is every
// constraint's ValidFrom, and a bound counts from it.
func setValidity(obs []events.Observation, ttl, until, from int64, open bool) {
	for j := range obs {
		o := &obs[j]
		if o.Kind != string(KindConstraint) {
			continue
		}
		if from > 0 && (until == 0 || until > from) {
			o.ValidFrom = from
			if ttl > 0 && until == 0 && (o.Polarity == string(Negative) || o.Subject == "limit") {
				until, ttl = from+ttl, 0
			}
		}
		switch {
		case until > 0:
			o.ValidUntil, o.TTL, o.OpenEnded = until, 0, false
		case o.Polarity == string(Negative) || o.Subject == "limit":
			o.TTL, o.OpenEnded = ttl, ttl == 0 && open
		}
	}
}

// conditionals open a clause that states nothing: "if I moved to Tokyo".
var conditionals = wordSet("en words", "conditionals")

// subjectless are the words a sentence may start with when the user drops
// the "I": "Started my new job at Figma", "Switched to oat milk".
var subjectless = wordSet("en words", "subjectless")

// subjectlessPhrases are the phrases of more than one word a sentence may
// start with when the user drops "I" ("no need to …").
var subjectlessPhrases, _ = splitCueWords(memData.Words("en words", "subjectless_phrases"))

// auxiliaries that open a question when "I" follows: "Would I like …",
// "Should I try …", even without a question mark.
var questionAux = wordSet("en words", "question_aux")

// askedEN reports whether a sentence is a question without its mark.
func askedEN(ws []word) bool {
	return len(ws) > 1 && questionAux[ws[0].low] && (ws[1].low == "i" || ws[1].low == "you" || ws[1].low == "we")
}

const (
	day   = int64(24 * 60 * 60 * 1e9)
	week  = 7 * day
	month = 30 * day
)

// boundsEN are the time phrases that bound a constraint: "this week I'm
// avoiding sugar" holds for a week, then ends by itself.
var boundsEN = boundsOf("bounds")

func boundEN(ws []word) int64 {
	for i := range ws {
		for _, b := range boundsEN {
			if len(ws)-i >= len(b.p) && matches(ws[i:i+len(b.p)], b.p) {
				return b.ttl
			}
		}
	}
	return countedBoundEN(ws)
}

// countedBoundEN reads a bound of a number of days, weeks or months: "for
// the next two weeks", "for 3 days", "next 10 days" (the number a numeral
// or a number word of the shared language data), 0 if none. "for the next
// few weeks" is an open end (data/statements.txt), not a count.
func countedBoundEN(ws []word) int64 {
	for i := 0; i+1 < len(ws); i++ {
		j := i
		switch ws[i].low {
		case "for":
			j++
			if j < len(ws) && ws[j].low == "the" {
				j++
			}
			if j < len(ws) && (ws[j].low == "next" || ws[j].low == "coming" || ws[j].low == "following") {
				j++
			}
		case "next":
			j++
		default:
			continue
		}
		if j+1 >= len(ws) {
			continue
		}
		n, ok := enNumbers[ws[j].low]
		if !ok {
			v, err := strconv.Atoi(ws[j].low)
			if err != nil {
				continue
			}
			n = float64(v)
		}
		if n < 1 || n > 366 || n != math.Trunc(n) {
			continue
		}
		switch singular(ws[j+1].low) {
		case "day":
			return int64(n) * day
		case "week":
			return int64(n) * week
		case "month":
			return int64(n) * month
		}
	}
	return 0
}

// enNumbers are the number words of the shared language data (two: 2).
var enNumbers = lang.Default().Numbers("number words")

// matchWe reads "we moved to Denver", "we live in Austin": where the user
// lives, said of the household (the table's [we] phrases).
func matchWe(w []word) (events.Observation, bool) {
	o, out := enPhrases.read("we", dropAdverbs(w), nil)
	return o, out == stated
}

// matchNoForMe reads "no alcohol for me (this month)".
func matchNoForMe(w []word, prev *events.Observation) (events.Observation, bool) {
	for j := 1; j < len(w) && j <= 5; j++ {
		if w[j].low == "," {
			break
		}
		if w[j].low == "for" && j+1 < len(w) && w[j+1].low == "me" {
			return constraint(w[:j], "", Negative, prev)
		}
	}
	return events.Observation{}, false
}

// favNouns: "X is my favorite / weakness / go-to".
var favNouns = wordSet("en words", "fav_nouns")

// favouriteAs are the other words of a favourite ("my number one crisp",
// "my top pick"): read as "favourite" ([favorites] favourite_as).
var favouriteAs = phrasesOf("favorites", "favourite_as")

// favAdjectives say a favourite is the one now ("my new favourite", "my
// current go-to"): they change nothing of what it is.
var favAdjectives = wordSet("en words", "fav_adjectives")

// matchIsMy reads "dark chocolate is my weakness": a preference for what
// comes before "is", from the clause's start.
func matchIsMy(before, after []word) (events.Observation, bool) {
	if len(after) >= 2 && after[0].low == "my" && favAdjectives[after[1].low] {
		after = append(after[:1:1], after[2:]...) // "oolong is my new favorite"
	}
	if n := phraseAt(after, 1, favouriteAs); n > 0 && after[0].low == "my" {
		// "prawn cocktail is my number one crisp": my favourite crisp
		after = append([]word{after[0], {low: "favourite", orig: "favourite"}}, after[1+n:]...)
	}
	if len(after) < 2 || after[0].low != "my" || !favNouns[after[1].low] {
		return events.Observation{}, false
	}
	kind := "" // "sencha is my favorite tea": the favourite of its kind
	if fav := after[1].low == "favorite" || after[1].low == "favourite"; fav && len(after) > 2 && after[2].low != "," && !fillers[after[2].low] {
		k := object(after[2:])
		if len(k) == 0 || len(k) > 3 {
			return events.Observation{}, false
		}
		low := make([]string, len(k))
		for i, x := range k {
			low[i] = x.low
		}
		low[len(low)-1] = singular(low[len(low)-1])
		kind = favoriteKind(strings.Join(low, " "))
	} else if len(after) > 2 && after[2].low != "," && !fillers[after[2].low] {
		return events.Observation{}, false
	}
	start := 0
	for i, x := range before {
		if x.low == "," {
			start = i + 1
		}
	}
	np := skip(before[start:], fillers)
	if len(np) == 0 || pronouns[np[0].low] || people[np[0].low] || np[0].low == "i" {
		return events.Observation{}, false
	}
	if after[1].low != "favorite" && after[1].low != "favourite" {
		return preference(np, Positive, nil) // a weakness, a go-to: liked, not the one favourite
	}
	np = object(np)
	if len(np) == 0 || len(np) > 4 {
		return events.Observation{}, false
	}
	o, ok := favorite(joinOrig(np))
	if kind != "" {
		o.Attribute = kind
	}
	return o, ok
}

// leading words that do not change what a clause states.
var fillers = wordSet("en words", "fillers")

// auxiliaries keep their place while dropAdverbs drops the fillers among
// them: "I'm not actually allergic" reads as "I'm not allergic".
var auxiliaries = wordSet("en words", "auxiliaries")

// beModals and valueSetters are the words of "my <thing> should be (set)
// at <value>" (matchMyIs), as word phrases.
var beModals, valueSetters = phrasesOf("en words", "be_modals"), phrasesOf("en words", "value_setters")

// phrasesOf reads the phrases under name in section as word lists in the
// extractor's normal form.
func phrasesOf(section, name string) [][]string {
	var out [][]string
	for _, p := range wordList(section, name) {
		var ws []string
		for _, x := range words(p) {
			ws = append(ws, x.low)
		}
		out = append(out, ws)
	}
	return out
}

// dropAdverbs drops fillers, "kind of" and "sort of" from the auxiliaries
// that open a clause, up to its first other word.
func dropAdverbs(w []word) []word {
	var out []word
	for i := 0; i < len(w); i++ {
		switch {
		case fillers[w[i].low]:
			continue
		case (w[i].low == "kind" || w[i].low == "sort") && i+1 < len(w) && w[i+1].low == "of":
			i++
			continue
		case auxiliaries[w[i].low]:
			out = append(out, w[i])
			continue
		}
		return append(out, w[i:]...)
	}
	return out
}

// trailing qualifiers dropped from an object ("these days", "anymore",
// "after all"): the phrases of data/words.txt's qualifiers.
var qualifiers = func() [][]string {
	var out [][]string
	for _, q := range memData.Words("en words", "qualifiers") {
		out = append(out, strings.Fields(strings.ReplaceAll(q, "_", " ")))
	}
	return out
}()

// agoUnits: "two weeks ago" is dropped from an object with its number.
var agoUnits = wordSet("en words", "ago_units")

// people are objects that say nothing about the user's tastes ("I love you").
var people = wordSet("en words", "people")

// othersOf are the people of the user's whose things are their own.
var othersOf = wordSet("en words", "others")

var determiners = wordSet("en words", "determiners")

// cognition verbs: "I don't think …" states nothing about the user.
var cognition = wordSet("en words", "cognition")

var (
	eatVerbs   = wordSet("en words", "eat_verbs")
	drinkVerbs = wordSet("en words", "drink_verbs")
)

// normalEN is the normal form of a clause after "I", which the phrase table
// is matched against: the fillers among its opening auxiliaries dropped,
// and an emphatic "do" before a like or hate verb ("I do like jazz").
func normalEN(w []word) []word {
	w = dropAdverbs(w)
	if len(w) > 1 && w[0].low == "do" && (enPhrases.likeVerbs[w[1].low] || enPhrases.hateVerbs[w[1].low]) {
		w = w[1:]
	}
	return w
}

// matchEN reads one clause after its "I": by the phrase table
// (extract_en_phrases.txt), then by the structural rules — a diet, "I'm a
// <job> at <Name>", a habit, an age.
func matchEN(w []word, prev *events.Observation) (events.Observation, bool) {
	w = normalEN(w)
	if len(w) == 0 {
		return events.Observation{}, false
	}
	if o, ok := matchWorkHoursEN(w); ok {
		return o, true
	}
	switch o, out := enPhrases.read("i", w, prev); out {
	case stated:
		return o, true
	case nothingStated:
		return events.Observation{}, false
	}
	if o, ok := matchDiet(w); ok {
		return o, true
	}
	// "I'm a software engineer at Stripe"
	if len(w) > 3 && w[0].low == "am" && (w[1].low == "a" || w[1].low == "an") {
		for j := 2; j < len(w)-1 && j <= 5; j++ {
			if clauseEnd[w[j].low] {
				break
			}
			if (w[j].low == "at" || w[j].low == "for") && isCapital(w[j+1].orig) {
				return fact(w[j+1:], "work", "employer")
			}
		}
	}
	// "I'm a qualified first aider with St John Ambulance"
	if o, ok := matchCredentialEN(w); ok {
		return o, true
	}
	if o, ok := matchHabit(w, prev); ok {
		return o, true
	}
	if len(w) >= 4 && w[0].low == "am" && isNumber(w[1].low) && w[2].low == "years" && w[3].low == "old" {
		return events.Observation{Kind: string(KindFact), Subject: "identity", Attribute: "age", Value: w[1].orig,
			Polarity: string(Positive), Confidence: confStrong}, true
	}
	return events.Observation{}, false
}

// matchDiet reads "I am (a) vegetarian / vegan / lactose intolerant …" and
// "I am no longer (a) vegetarian".
func matchDiet(w []word) (events.Observation, bool) {
	n, ok := prefixAny(w, []string{"am"}, []string{"have", "become"}, []string{"became"}, []string{"went"},
		[]string{"have", "gone"}, []string{"have", "been"}, []string{"turned"})
	if !ok {
		return events.Observation{}, false
	}
	pol := Negative // a diet forbids its attribute
	rest := w[n:]
	if n, ok := prefixAny(rest, []string{"not"}, []string{"no", "longer"}); ok {
		pol, rest = Positive, rest[n:]
	}
	rest = skip(rest, set("a", "an", "strict", "strictly", "full", "now"))
	if len(rest) == 0 {
		return events.Observation{}, false
	}
	attr := ""
	switch rest[0].low {
	case "vegetarian", "veggie", "pescatarian":
		attr = "meat"
	case "vegan":
		attr = "animal product"
	case "celiac", "coeliac":
		attr = "gluten"
	case "diabetic":
		attr = "sugar"
	case "lactose", "gluten":
		if len(rest) > 1 && rest[1].low == "intolerant" {
			attr = rest[0].low
		}
	}
	if attr == "" {
		return events.Observation{}, false
	}
	return events.Observation{Kind: string(KindConstraint), Subject: "food", Attribute: attr,
		Polarity: string(pol), Confidence: confStrong}, true
}

// matchMy reads "my name is X", "my birthday is X" (the table's [my]
// phrases) and "my favorite X is Y".
func matchMy(w []word) (events.Observation, bool) {
	switch o, out := enPhrases.read("my", w, nil); out {
	case stated:
		return o, true
	case nothingStated:
		return events.Observation{}, false
	}
	if len(w) >= 4 && favAdjectives[w[0].low] {
		w = w[1:] // "my new favourite board game is …"
	}
	if len(w) >= 3 && (w[0].low == "favorite" || w[0].low == "favourite") {
		for i := 1; i < len(w) && i <= 4; i++ {
			if w[i].low == "is" || w[i].low == "are" {
				what := joinLow(w[1:i])
				v := object(w[i+1:])
				if len(v) == 0 {
					return events.Observation{}, false
				}
				if what == "" {
					return favorite(joinOrig(v)) // "my new favourite is rummy": the favourite of its kind
				}
				return events.Observation{Kind: string(KindPreference), Subject: "favorite", Attribute: what,
					Value: joinOrig(v), Polarity: string(Positive), Confidence: confStrong}, true
			}
		}
	}
	return matchMyIs(w)
}

// contactWords name contact details and secrets, which matchMyIs and
// matchMyIsZH do not read as facts; contactGeneric are last words that name
// one only alone or after a contact word ("phone number", not "locker
// number"). locatedWords and placePreps say where a thing is ("is booked
// at the Old Forge"): the place is the thing's value.
var (
	contactWords   = wordSet("en words", "contact")
	contactGeneric = wordSet("en words", "contact_generic")
	documentWords  = wordSet("en words", "document")
	locatedWords   = wordSet("en words", "located")
	placePreps     = wordSet("en words", "place_preps")
)

// contactThing reports whether a thing of matchMyIs ("home address",
// "phone number", "mobile plan") is a contact detail: it holds a contact
// word, a generic one ("number") counting only alone or after another
// contact word or an identity document's ("locker number" is no contact
// detail, "passport number" is a secret; the passport itself is a thing).
func contactThing(thing []word) bool {
	for i, x := range thing {
		if !contactWords[x.low] {
			continue
		}
		if !contactGeneric[x.low] || i == 0 || contactWords[thing[i-1].low] || documentWords[thing[i-1].low] {
			return true
		}
	}
	return false
}

// matchMyIs reads "my <thing> is <a thing or a name>" as a fact of the
// thing the user has: "my car is a white Subaru" (my/car = white Subaru),
// "my gym is the one on Elm Street", "my partner is called Dana". The
// thing is one to three words; what it is starts with a determiner, a
// capital or a number, or follows "called" or "named" — "my stomach is
// acting up", "my plan is to …" state no such fact, nor do contact
// details ("my address is …": contactWords).
//
// Where a thing is, is its value whatever word the place opens with: "my
// seat is in row 14", "my spare charger is kept in the glovebox", "my
// skis are stored at the chalet" (a plural thing too); the thing may say
// where it belongs ("my locker at the pool is in row C": my/locker).
//
// A modal before "be" states the value too, and a word that sets a value
// is read past: "my car's tyres should be at 35 psi" (my/car's tyre = 35
// psi), as "my bike's saddle has to be set at 72 cm".
func matchMyIs(w []word) (events.Observation, bool) {
	return thingIs(w, false)
}

// matchTheIsAt reads "the <thing> is <where>" as matchMyIs reads a thing
// of the user's said where it is: "the camping stove is stored in the loft"
// (my/camping stove = loft). A thing said with "the" is the user's only
// where the user says where it is kept, at a place named with a
// determiner or a capital; "the meeting is at 3" states no such fact.
func matchTheIsAt(w []word) (events.Observation, bool) {
	return thingIs(w, true)
}

// thingOfMax bounds the words of the place a thing is said to belong to,
// its preposition with them ("my locker at the pool").
const thingOfMax = 4

func thingIs(w []word, placeOnly bool) (events.Observation, bool) {
	of := 0 // where the thing's place phrase starts, 0 if none
	for i := 1; i < len(w) && (i <= 3 || of > 0 && i <= of+thingOfMax); i++ {
		cop := 0
		switch {
		case w[i].low == "is" || w[i].low == "are":
			cop = 1 // "my binoculars are 10x42s"
		case of == 0 && placePreps[w[i].low]:
			of = i
			continue
		default:
			if n := phraseAt(w, i, beModals); n > 0 && i+n < len(w) && w[i+n].low == "be" {
				cop = n + 1
				if n := phraseAt(w, i+cop, valueSetters); n > 0 {
					cop += n
				}
			}
		}
		if cop == 0 {
			if clauseEnd[w[i].low] || w[i].low == "," {
				return events.Observation{}, false
			}
			continue
		}
		thing, rest := w[:i], w[i+cop:]
		if of > 0 {
			thing = w[:of]
		}
		if pronouns[thing[0].low] || fillers[thing[0].low] || contactThing(thing) || people[thing[0].low] ||
			othersOf[strings.TrimSuffix(thing[0].low, "'s")] && (len(thing) > 1 || placeOnly) {
			// "my daughter's piano lessons are on Fridays": someone else's
			return events.Observation{}, false
		}
		named := len(rest) > 1 && (rest[0].low == "called" || rest[0].low == "named")
		if named {
			rest = rest[1:]
		}
		placed, put, prep := false, false, ""
		if cop == 1 {
			// where the thing is: "is on Queen Street", "is booked at the
			// Old Forge", "is rolled up in the cupboard"
			k := 0
			if len(rest) > 0 && locatedWords[rest[0].low] {
				k = 1
				if len(rest) > 1 && locatedParticles[rest[1].low] {
					k = 2
				}
			}
			if len(rest) > k+1 && placePreps[rest[k].low] {
				prep = rest[k].low
				rest, placed, put = rest[k+1:], true, k > 0
			}
		}
		if len(rest) == 0 || placeOnly && !(placed && (placeWords[rest[0].low] || isCapital(rest[0].orig))) {
			return events.Observation{}, false
		}
		switch r := rest[0]; {
		case placed && (put || placeWords[r.low] || isCapital(r.orig) || numberedPlace[prep] && slices.ContainsFunc(rest, func(x word) bool { return isDigitByte(x.low[0]) })):
			// a place: "in the shed", "at Gate B", "in row 14" ("in bad
			// shape" is a state, "at 7" a time, "at most 40 euros" a
			// bound); someone's is no thing's ("my son is at school")
			if othersOf[strings.TrimSuffix(thing[0].low, "'s")] {
				return events.Observation{}, false
			}
		case w[i].low == "are":
			// things said in the plural are one fact only when measured
			// ("my binoculars are 10x42s"; "my laptops are a Dell and a Mac" is two)
			if !isDigitByte(r.low[0]) {
				return events.Observation{}, false
			}
		case named, r.low == "a", r.low == "an", r.low == "the", isCapital(r.orig), isNumber(r.low), propertyEN(rest) != "":
		default:
			return events.Observation{}, false
		}
		attr := nounKey(thing)
		if p := propertyEN(rest); p != "" && !placed && !named {
			if othersOf[strings.TrimSuffix(thing[0].low, "'s")] {
				return events.Observation{}, false // "my sister is 1.70 m tall": hers
			}
			attr += " " + p // a second property of the thing: properties.go
		}
		return fact(rest, "my", attr)
	}
	return events.Observation{}, false
}

// locatedParticles follow a word of where a thing is put ("rolled up in",
// "tucked away in").
var locatedParticles = wordSet("en words", "located_particles")

// placeWords open a place said after a preposition ("in the loft", "at my
// sister's"); numberedPlace are the prepositions before a place said by
// its number ("in row 14", not "at 7").
var placeWords, numberedPlace = wordSet("en words", "place_words"), wordSet("en words", "numbered_place")

func verbHint(v string) string {
	if drinkVerbs[v] {
		return "drink"
	}
	return "eat"
}

func preference(obj []word, pol Polarity, prev *events.Observation) (events.Observation, bool) {
	return slotted(obj, "", KindPreference, pol, prev)
}

func constraint(obj []word, hint string, pol Polarity, prev *events.Observation) (events.Observation, bool) {
	return slotted(obj, hint, KindConstraint, pol, prev)
}

// slotted builds an observation whose slot comes from its object phrase; a
// pronoun object ("it") takes the previous statement's slot.
func slotted(obj []word, hint string, kind Kind, pol Polarity, prev *events.Observation) (events.Observation, bool) {
	o := events.Observation{Kind: string(kind), Polarity: string(pol), Confidence: confStrong}
	ph := object(obj)
	if len(ph) == 1 && pronouns[ph[0].low] {
		if prev == nil || prev.Subject == "" {
			return o, false
		}
		o.Subject, o.Attribute = prev.Subject, prev.Attribute
		return o, true
	}
	if len(ph) > slottedMax {
		// "smoked mackerel with a squeeze of lemon": a long phrase's thing
		// ends at its first preposition, what follows says how it is had
		for i := 1; i < len(ph); i++ {
			if plainPrep[ph[i].low] {
				ph = ph[:i]
				break
			}
		}
	}
	if len(ph) == 0 || len(ph) > slottedMax || people[ph[0].low] {
		return o, false
	}
	o.Subject, o.Attribute = slotOf(ph, hint)
	return o, o.Attribute != ""
}

// slottedMax bounds the words of a slot's thing.
const slottedMax = 6

var pronouns = wordSet("en words", "pronouns")

// lightVerbs carry no meaning of their own before a thing ("do stairs").
var lightVerbs = wordSet("en words", "light_verbs")

// activity builds "I don't smoke" (fact) or "I must take …" (constraint):
// subject activity, attribute the verb and its object.
//
// A light verb before a thing is dropped ("do stairs": stairs), and an
// -ing verb is read as its base ("climbing stairs": climb stairs), so
// "I can't climb stairs" and "I'm fine climbing stairs again" hold one slot.
func activity(w []word, kind Kind, pol Polarity) (events.Observation, bool) {
	// a condition of a time is the activity's value, not its name: "pick up
	// the phone before 2pm" is activity/pick up the phone = before 2pm
	cond := ""
	for i := 1; i+1 < len(w); i++ {
		if n := phraseAt(w, i, cues.condition); n > 0 && i+n < len(w) && timeOfDay(w[i+n].low) {
			e := i + n + 1
			for e < len(w) && !clauseEnd[w[e].low] && w[e].low != "," && e < i+n+3 && (timeOfDay(w[e].low) || timeSuffixes[w[e].low]) {
				e++
			}
			cond, w = joinOrig(w[i:e]), w[:i]
			break
		}
	}
	ph := object(w)
	if len(ph) > 1 && lightVerbs[ph[0].low] {
		ph = ph[1:]
	}
	if len(ph) == 0 || len(ph) > 5 || pronouns[ph[len(ph)-1].low] {
		return events.Observation{}, false
	}
	low := make([]string, len(ph))
	for i, x := range ph {
		low[i] = x.low
	}
	low[0] = baseVerb(low[0])
	return events.Observation{Kind: string(kind), Subject: "activity", Attribute: strings.Join(low, " "),
		Value: cond, Polarity: string(pol), Confidence: confWeak}, true
}

// clockWords name a time of day without digits (noon, midnight);
// timeSuffixes follow a clock time (am, pm, o'clock).
var (
	clockWords   = wordSet("en words", "clock_words")
	timeSuffixes = wordSet("en words", "time_suffixes")
)

// timeOfDay reports a time of day: a word opening with a digit (2pm, 7:30),
// a number word (ten) or a clock word (noon).
func timeOfDay(w string) bool {
	return w != "" && w[0] >= '0' && w[0] <= '9' || numberWords[w] || clockWords[w]
}

// factCut are the words after which a fact's value has ended: "Stripe at
// the end of May", "Denver since March".
var factCut = wordSet("en words", "fact_cut")

func fact(obj []word, subject, attr string) (events.Observation, bool) {
	v := object(obj)
	for i := 1; i < len(v); i++ {
		if factCut[v[i].low] {
			v = v[:i]
			break
		}
	}
	if len(v) == 0 || len(v) > 6 || pronouns[v[0].low] {
		return events.Observation{}, false
	}
	return events.Observation{Kind: string(KindFact), Subject: subject, Attribute: attr, Value: joinOrig(v),
		Polarity: string(Positive), Confidence: confStrong}, true
}

// object returns the object phrase at the start of w: up to the clause's
// end, without leading determiners or trailing qualifiers.
func object(w []word) []word {
	end := len(w)
	for i, x := range w {
		if i > 0 && phraseAt(w, i, cues.until) > 0 || clauseEnd[x.low] || x.low == "and" && i+1 < len(w) && (w[i+1].low == "i" || w[i+1].low == "then" ||
			subjectless[w[i+1].low] || auxiliaries[w[i+1].low] || strings.HasSuffix(w[i+1].low, "ed")) {
			end = i
			break
		}
	}
	w = w[:end]
	for changed := true; changed; {
		changed = false
		if n := len(w); n >= 3 && (w[n-2].low == "in" || w[n-2].low == "since") && isNumber(w[n-1].low) {
			w, changed = w[:n-2], true // "in 2022"
			continue
		}
		if n := len(w); n >= 3 && w[n-1].low == "ago" && agoUnits[w[n-2].low] {
			// "two weeks ago", "a month ago"
			w, changed = w[:n-2], true
			if n := len(w); isNumber(w[n-1].low) || numberWords[w[n-1].low] {
				w = w[:n-1]
			}
		}
		for _, q := range qualifiers {
			if len(w) >= len(q) && matches(w[len(w)-len(q):], q) {
				w, changed = w[:len(w)-len(q)], true
			}
		}
	}
	for len(w) > 0 && determiners[w[0].low] {
		w = w[1:]
	}
	return w
}

// slotOf maps an object phrase to a slot: "spicy food" → food/spicy,
// "peanuts" → food/peanut, "coffee" → drink/coffee, "hiking" →
// activity/hiking, anything else → general/<phrase>.
func slotOf(ph []word, hint string) (subject, attr string) {
	low := make([]string, len(ph))
	for i, x := range ph {
		low[i] = x.low
	}
	last := singular(low[len(low)-1])
	if len(low) > 1 && foodNouns[last] {
		s := "food"
		if hint == "drink" {
			s = "drink"
		}
		return s, strings.Join(low[:len(low)-1], " ")
	}
	low[len(low)-1] = last
	phrase := strings.Join(low, " ")
	switch {
	case hint == "drink" || drinkLex[phrase] || drinkLex[last]:
		return "drink", phrase
	case hint == "eat" || foodLex[phrase] || foodLex[last]:
		return "food", phrase
	case len(low[0]) > 4 && strings.HasSuffix(low[0], "ing"):
		return "activity", phrase
	}
	return "general", phrase
}

// singular drops an English plural ending, preferring a lexicon word.
func singular(w string) string {
	for _, c := range []string{strings.TrimSuffix(w, "es"), strings.TrimSuffix(w, "s")} {
		if c != w && (foodLex[c] || drinkLex[c]) {
			return c
		}
	}
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

var foodNouns = wordSet("en words", "food_nouns")

var foodLex = wordSet("en words", "food_lex")

var drinkLex = wordSet("en words", "drink_lex")

func skip(w []word, s map[string]bool) []word {
	for len(w) > 0 && s[w[0].low] {
		w = w[1:]
	}
	return w
}

func prefix(w []word, p ...string) (int, bool) {
	if len(w) < len(p) || !matches(w[:len(p)], p) {
		return 0, false
	}
	return len(p), true
}

func prefixAny(w []word, ps ...[]string) (int, bool) {
	for _, p := range ps {
		if n, ok := prefix(w, p...); ok {
			return n, true
		}
	}
	return 0, false
}

func matches(w []word, p []string) bool {
	for i := range p {
		if w[i].low != p[i] {
			return false
		}
	}
	return true
}

func joinOrig(w []word) string {
	s := make([]string, len(w))
	for i, x := range w {
		s[i] = x.orig
	}
	return strings.Join(s, " ")
}

func joinLow(w []word) string {
	s := make([]string, len(w))
	for i, x := range w {
		s[i] = x.low
	}
	return strings.Join(s, " ")
}

// isNumber reports whether s is a number: digits, with at most one
// decimal point between them (6.6).
// thousands reports whether s opens with the three digits of a number's
// thousands after its comma (",000 miles"), and no more digits.
func thousands(s string) bool {
	return len(s) >= 3 && isDigitByte(s[0]) && isDigitByte(s[1]) && isDigitByte(s[2]) &&
		(len(s) == 3 || !isDigitByte(s[3]))
}

// clockMinutes reports whether s opens with the minutes of a clock time
// (two digits, not followed by a third): "45" of "6:45".
func clockMinutes(s string) bool {
	return len(s) >= 2 && isDigitByte(s[0]) && isDigitByte(s[1]) && (len(s) == 2 || !isDigitByte(s[2]))
}

func isNumber(s string) bool {
	point := false
	for i := 0; i < len(s); i++ {
		switch {
		case isDigitByte(s[i]):
		case s[i] == ',' && !point && i > 0 && thousands(s[i+1:]):
		case s[i] == '.' && !point && i > 0 && i+1 < len(s):
			point = true
		default:
			return false
		}
	}
	return s != ""
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

func isCapital(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// negFact is "I left Stripe", "I don't live in Paris any more": a fact
// denied for its value only, so it ends that value and nothing else.
func negFact(obj []word, subject, attr string) (events.Observation, bool) {
	o, ok := fact(obj, subject, attr)
	o.Polarity = string(Negative)
	return o, ok
}

var (
	habitVerbs  = wordSet("en words", "habit_verbs")
	sportVerbs  = sportsOf()
	hedges      = wordSet("en words", "hedges")
	numberWords = wordSet("en words", "number_words")
	units       = wordSet("en words", "units")
	periods     = wordSet("en words", "periods")
	habitCut    = wordSet("en words", "habit_cut")
)

// matchHabit reads a habit: "I (usually) drink three cups of coffee a day",
// "I take whole milk in my coffee", "I run about 20 miles a week".
func matchHabit(w []word, prev *events.Observation) (events.Observation, bool) {
	if len(w) < 2 {
		return events.Observation{}, false
	}
	v := strings.TrimSuffix(w[0].low, "s")
	if g, ok := sportVerbs[v]; ok {
		q, rest := quantity(w[1:])
		if q == "" {
			return events.Observation{}, false
		}
		_ = rest
		return events.Observation{Kind: string(KindFact), Subject: "activity", Attribute: g, Value: q,
			Polarity: string(Positive), Confidence: confStrong}, true
	}
	if !habitVerbs[w[0].low] {
		return events.Observation{}, false
	}
	return habit(w[1:], w[0].low, prev)
}

// habit builds a habit fact from an object phrase: a known food or drink
// whose kind ("oat milk", "green tea") becomes the value of its head's slot
// (drink/milk = oat milk), so that a new kind supersedes the old one; a
// quantity ("three cups … a day") is part of the value.
func habit(obj []word, verb string, prev *events.Observation) (events.Observation, bool) {
	q, rest := quantity(obj)
	end := len(rest)
	for i, x := range rest {
		if i > 0 && (habitCut[x.low] || clauseEnd[x.low]) || x.low == "," || x.low == "and" {
			end = i
			break
		}
	}
	ph := object(rest[:end])
	if len(ph) == 0 || len(ph) > 4 || people[ph[0].low] || pronouns[ph[0].low] {
		return events.Observation{}, false
	}
	if q == "" {
		q, _ = quantity(rest[end:])
	}
	hint := ""
	if verb == "drink" {
		hint = "drink"
	}
	low := make([]string, len(ph))
	for i, x := range ph {
		low[i] = x.low
	}
	last := singular(low[len(low)-1])
	phrase := strings.Join(append(low[:len(low)-1:len(low)-1], last), " ")
	o := events.Observation{Kind: string(KindFact), Polarity: string(Positive), Confidence: confStrong}
	value := ""
	switch {
	case drinkLex[phrase] || foodLex[phrase]:
		o.Subject, o.Attribute = slotOf(ph, hint)
	case len(low) > 1 && (drinkLex[last] || foodLex[last]):
		o.Subject, o.Attribute = "food", last
		if drinkLex[last] || hint == "drink" {
			o.Subject = "drink"
		}
		value = joinLow(ph)
	case hint == "drink" || verb == "switch":
		o.Subject, o.Attribute = slotOf(ph, hint)
	default:
		return events.Observation{}, false
	}
	switch {
	case value != "" && q != "":
		value += ", " + q
	case q != "":
		value = q
	}
	o.Value = value
	return o, o.Attribute != ""
}

// quantity reads a leading amount and its period ("like three cups of",
// "about 20 miles a week") and returns it with the words after the amount.
func quantity(w []word) (string, []word) {
	i := 0
	for i < len(w) && hedges[w[i].low] {
		i++
	}
	if i >= len(w) || !(isNumber(w[i].low) || numberWords[w[i].low]) {
		// a period alone after the object: "… every day"
		return period(w), w
	}
	j := i
	for j < len(w) && (isNumber(w[j].low) || numberWords[w[j].low] || w[j].low == "of" && j > i) {
		j++
	}
	var q []string
	for _, x := range w[i:j] {
		q = append(q, x.low)
	}
	if j < len(w) && units[w[j].low] {
		q = append(q, w[j].low)
		j++
	} else {
		return "", w
	}
	if j < len(w) && w[j].low == "of" {
		j++
	}
	rest := w[j:]
	if p := period(rest); p != "" {
		q = append(q, p)
	} else {
		// the period follows the object: "three cups of coffee a day"
		for k := 0; k < len(rest) && k < 5; k++ {
			if p := period(rest[k:]); p != "" {
				q = append(q, p)
				break
			}
		}
	}
	return strings.Join(q, " "), rest
}

// period reads "a day", "per week", "every morning", "daily" at the start of w.
func period(w []word) string {
	if len(w) >= 2 && (w[0].low == "a" || w[0].low == "per" || w[0].low == "every" || w[0].low == "each") && periods[w[1].low] {
		return w[0].low + " " + w[1].low
	}
	if len(w) >= 1 && (w[0].low == "daily" || w[0].low == "weekly" || w[0].low == "nightly") {
		return w[0].low
	}
	return ""
}

// credentialWords say that what the user is, they are by a qualification:
// "I'm a qualified first aider", "I'm a certified diver", 我是注册会计师.
var credentialWords = wordSet("en words", "credentials")

// matchCredentialEN reads "am a/an <credential> X (with/from Y)" as the
// user's qualification: the slot qualification/X, its value what the
// qualification is with (St John Ambulance), so that each qualification
// is its own slot and a second never supersedes the first.
func matchCredentialEN(w []word) (events.Observation, bool) {
	if len(w) < 4 || w[0].low != "am" || w[1].low != "a" && w[1].low != "an" || !credentialWords[w[2].low] {
		return events.Observation{}, false
	}
	x := w[2:]
	end := len(x)
	for i, y := range x {
		if i > 0 && (factCut[y.low] || clauseEnd[y.low] || y.low == ",") {
			end = i
			break
		}
	}
	if end < 2 || end > 5 {
		return events.Observation{}, false
	}
	attr := make([]string, end)
	for i, y := range x[:end] {
		attr[i] = y.low
	}
	o := events.Observation{Kind: string(KindFact), Subject: "qualification", Attribute: strings.Join(attr, " "),
		Polarity: string(Positive), Confidence: confStrong}
	if end+1 < len(x) && (x[end].low == "with" || x[end].low == "from") {
		if v, ok := fact(x[end+1:], "", ""); ok {
			o.Value = v.Value
		}
	}
	return o, true
}

// documentWordsZH name identity documents in Chinese (data/words.txt zh
// words document); documentWords are the English ones.
var documentWordsZH = memData.Words("zh words", "document")

// documentCode reports whether o slots an identity document's number: the
// user's thing is a document (passport, 身份证) and what is said of it is
// only a code — digits, and no lower-case letter or Han character in any
// of its tokens ("533380006", "E12345678", "DX99 7781 JK",
// "H1B-4471-2290"). Such a number is a secret as a contact detail is, and
// is never slotted; "expires in August 2029" or 明年三月到期 is a fact.
func documentCode(o events.Observation) bool {
	if o.Subject != "my" || o.Value == "" {
		return false
	}
	attr := strings.ToLower(o.Attribute)
	doc := containsAny(attr, documentWordsZH)
	for _, w := range strings.Fields(attr) {
		doc = doc || documentWords[w]
	}
	if !doc {
		return false
	}
	tokens := strings.FieldsFunc(o.Value, func(r rune) bool {
		return unicode.IsSpace(r) || r == '-' || r == '/' || r == '.' || r == '。'
	})
	if len(tokens) == 0 {
		return false
	}
	digits := false
	for _, t := range tokens {
		if strings.IndexFunc(t, func(r rune) bool { return unicode.IsLower(r) || unicode.Is(unicode.Han, r) }) >= 0 {
			return false
		}
		digits = digits || strings.IndexFunc(t, unicode.IsDigit) >= 0
	}
	return digits
}
