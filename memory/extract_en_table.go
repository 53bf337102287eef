package memory

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// The English extractor's rules as data: extract_en_phrases.txt maps the
// words a clause opens with (after "I", "we" or "my") to a reading of the
// rest of the clause. Its header says what each reading does; this file
// parses it and looks a clause up, longest phrase first.

//go:embed extract_en_phrases.txt
var enPhrasesText string

// enPhrases is the parsed phrase table, built once (a malformed table is a
// programming error and panics at start; TestExtractPhraseTables checks it).
var enPhrases = mustParseENPhrases(enPhrasesText)

// enPhrase is one line of the table.
type enPhrase struct {
	section  string   // the subject the phrase follows: "i", "we" or "my"
	words    []string // lower case, in the clause's normal form
	reading  string   // a key of enReadings
	polarity Polarity // preference, constraint
	subject  string   // fact, value
	attr     string   // fact, value
	line     int      // in extract_en_phrases.txt
}

// outcome is what a reading made of a clause.
type outcome int

const (
	passOn        outcome = iota // the reading does not fit: a shorter phrase or a structural rule may read the clause
	stated                       // the clause states the observation
	nothingStated                // the clause states nothing
)

// statedIf is the outcome of an observation builder that returns ok.
func statedIf(o events.Observation, ok bool) (events.Observation, outcome) {
	if ok {
		return o, stated
	}
	return events.Observation{}, nothingStated
}

// enMatch is a clause opened by a phrase of the table.
type enMatch struct {
	t    *enTable
	p    *enPhrase
	rest []word              // the words after the phrase
	prev *events.Observation // the statement before in the message, for a pronoun object
}

// enReading reads the words after a phrase.
type enReading func(m enMatch) (events.Observation, outcome)

// enReadings are the readings the table may name (the file's header
// describes them).
var enReadings = map[string]enReading{
	"preference": func(m enMatch) (events.Observation, outcome) {
		return statedIf(preference(m.rest, m.p.polarity, m.prev))
	},
	"constraint": func(m enMatch) (events.Observation, outcome) {
		if says(m.rest, troubles) {
			return events.Observation{}, passOn // "I'm not having any more trouble with my knee"
		}
		return statedIf(constraint(m.rest, "", m.p.polarity, m.prev))
	},
	"fact": func(m enMatch) (events.Observation, outcome) {
		return statedIf(fact(m.rest, m.p.subject, m.p.attr))
	},
	"value": readValue,
	"favorite": func(m enMatch) (events.Observation, outcome) {
		rest := skip(m.rest, fillers)
		if len(rest) == 0 || rest[0].low == "to" || rest[0].low == "not" {
			return events.Observation{}, nothingStated // "I prefer to walk"
		}
		for i, x := range rest {
			if x.low == "to" || x.low == "over" {
				rest = rest[:i]
				break
			}
		}
		obj := object(rest)
		if len(obj) == 0 || len(obj) > 4 || pronouns[obj[0].low] || people[obj[0].low] {
			return events.Observation{}, nothingStated
		}
		return statedIf(favorite(joinOrig(obj)))
	},
	"forbid": readForbid,
	"allow":  readAllow,
	"permit": readPermit,
	"resume": readResume,
	"refuse": readRefuse,
	"deny":   readDeny,
	"switch": readSwitch,
	"quit":   readQuit,
	"leave": func(m enMatch) (events.Observation, outcome) {
		if len(m.rest) == 0 || !isCapital(m.rest[0].orig) {
			return events.Observation{}, passOn // "I left my keys at home"
		}
		return statedIf(negFact(m.rest, "work", "employer"))
	},
	"refrain": readRefrain,
	"duty": func(m enMatch) (events.Observation, outcome) {
		return statedIf(activity(m.rest, KindConstraint, Positive))
	},
}

// enTable is the phrase table: by subject ("i", "we", "my") and first word,
// the phrases longest first.
type enTable struct {
	index map[string]map[string][]*enPhrase
	all   []*enPhrase // in the file's order

	// likeVerbs and hateVerbs are the one-word phrases after "I" read as a
	// positive and a negative preference: "I do like", "I don't like" and
	// "I never enjoy" read them too.
	likeVerbs, hateVerbs map[string]bool
}

// read reads the clause w (its normal form, after its subject) by the
// longest phrase that opens it and whose reading fits.
func (t *enTable) read(subject string, w []word, prev *events.Observation) (events.Observation, outcome) {
	if len(w) == 0 {
		return events.Observation{}, passOn
	}
	for _, p := range t.index[subject][w[0].low] {
		if len(w) < len(p.words) || !matches(w[:len(p.words)], p.words) {
			continue
		}
		if o, out := enReadings[p.reading](enMatch{t, p, w[len(p.words):], prev}); out != passOn {
			return o, out
		}
	}
	return events.Observation{}, passOn
}

func mustParseENPhrases(text string) *enTable {
	t, err := parseENPhrases(text)
	if err != nil {
		panic(err)
	}
	return t
}

// parseENPhrases parses the phrase table (the format is in its header).
func parseENPhrases(text string) (*enTable, error) {
	t := &enTable{index: map[string]map[string][]*enPhrase{}}
	section := ""
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.ToLower(line[1 : len(line)-1])
			if section != "i" && section != "we" && section != "my" {
				return nil, fmt.Errorf("memory: extract_en_phrases.txt:%d: section %s: want [I], [we] or [my]", n+1, line)
			}
			continue
		}
		p, err := parseENPhrase(line)
		if err != nil {
			return nil, fmt.Errorf("memory: extract_en_phrases.txt:%d: %w", n+1, err)
		}
		if section == "" {
			return nil, fmt.Errorf("memory: extract_en_phrases.txt:%d: a phrase before the first [section]", n+1)
		}
		p.section, p.line = section, n+1
		if t.index[section] == nil {
			t.index[section] = map[string][]*enPhrase{}
		}
		t.index[section][p.words[0]] = append(t.index[section][p.words[0]], p)
		t.all = append(t.all, p)
	}
	for _, byWord := range t.index {
		for _, ps := range byWord {
			// longest first; among equals the file's order (a duplicate the lint test reports)
			slices.SortStableFunc(ps, func(a, b *enPhrase) int { return len(b.words) - len(a.words) })
		}
	}
	t.likeVerbs, t.hateVerbs = t.preferenceVerbs(Positive), t.preferenceVerbs(Negative)
	return t, nil
}

func parseENPhrase(line string) (*enPhrase, error) {
	phrase, reading, ok := strings.Cut(line, "=")
	args := strings.Fields(reading)
	if !ok || len(args) == 0 {
		return nil, fmt.Errorf("%q: want phrase = reading [argument]", line)
	}
	p := &enPhrase{words: strings.Fields(phrase), reading: args[0]}
	if len(p.words) == 0 {
		return nil, fmt.Errorf("%q: no phrase", line)
	}
	if _, ok := enReadings[p.reading]; !ok {
		return nil, fmt.Errorf("%q: unknown reading %q", line, p.reading)
	}
	switch p.reading {
	case "preference", "constraint":
		if len(args) != 2 || args[1] != string(Positive) && args[1] != string(Negative) {
			return nil, fmt.Errorf("%q: want %s positive|negative", line, p.reading)
		}
		p.polarity = Polarity(args[1])
	case "fact", "value":
		var ok bool
		if len(args) == 2 {
			p.subject, p.attr, ok = strings.Cut(args[1], "/")
		}
		if !ok || p.subject == "" || p.attr == "" {
			return nil, fmt.Errorf("%q: want %s subject/attribute", line, p.reading)
		}
	default:
		if len(args) != 1 {
			return nil, fmt.Errorf("%q: %s takes no argument", line, p.reading)
		}
	}
	return p, nil
}

// preferenceVerbs are the one-word phrases after "I" read as a preference
// of polarity pol.
func (t *enTable) preferenceVerbs(pol Polarity) map[string]bool {
	out := map[string]bool{}
	for w, ps := range t.index["i"] {
		for _, p := range ps {
			if len(p.words) == 1 && p.reading == "preference" && p.polarity == pol {
				out[w] = true
			}
		}
	}
	return out
}

// readValue reads "my name is Ana": the rest of the clause is the value.
func readValue(m enMatch) (events.Observation, outcome) {
	v := object(m.rest)
	if len(v) == 0 {
		return events.Observation{}, nothingStated
	}
	return events.Observation{Kind: string(KindFact), Subject: m.p.subject, Attribute: m.p.attr,
		Value: joinOrig(v), Polarity: string(Positive), Confidence: confStrong}, stated
}

// readForbid reads "I can't / must not / am not allowed to …" + a verb.
func readForbid(m enMatch) (events.Observation, outcome) {
	rest, prev := skip(m.rest, fillers), m.prev
	if len(rest) == 0 {
		return events.Observation{}, nothingStated
	}
	v := rest[0].low
	switch {
	case eatVerbs[v] || drinkVerbs[v]:
		return statedIf(constraint(rest[1:], verbHint(v), Negative, prev))
	case v == "stand":
		return statedIf(preference(rest[1:], Negative, prev))
	case lightVerbs[v] && len(rest) > 1 && !pronouns[rest[1].low]:
		return statedIf(activity(rest, KindConstraint, Negative)) // "I can't do stairs"
	case cognition[v]:
		return events.Observation{}, nothingStated
	}
	return statedIf(activity(rest, KindConstraint, Negative))
}

// refrainMarks make "I'm not <verb>ing …" a refusal of more of it.
var (
	refrainMarks = wordSet("en words", "refrain_marks")
	particles    = wordSet("en words", "particles")
	// undergone and troubles: what happens to the user ("receiving",
	// "having any more trouble"), which no one refuses
	undergone = wordSet("en words", "undergone")
	troubles  = wordSet("en words", "troubles")
)

// ingOf reports whether v, a verb in -ing, is one of verbs: "having" is
// "have", "hearing" "hear" (baseVerb drops the -ing, not a silent e).
func ingOf(v string, verbs map[string]bool) bool {
	b := baseVerb(v)
	return verbs[b] || verbs[b+"e"]
}

// readRefrain reads "I'm not taking on any new clients", "I'm not picking
// up extra shifts": a verb in -ing whose object has a word of refrainMarks
// is a constraint against that activity, named without the marks. "I'm not
// going to …" says what will not be, and a clause without a mark ("I'm not
// working today") states nothing that lasts: both pass.
func readRefrain(m enMatch) (events.Observation, outcome) {
	rest := clauseOf(skip(m.rest, fillers))
	if len(rest) < 2 || !strings.HasSuffix(rest[0].low, "ing") || rest[0].low == "going" && rest[1].low == "to" ||
		ingOf(rest[0].low, cognition) || ingOf(rest[0].low, undergone) {
		return events.Observation{}, passOn
	}
	marked := false
	var act []word
	if says(rest, troubles) {
		return events.Observation{}, passOn
	}
	for _, x := range rest {
		if refrainMarks[x.low] {
			marked = true
			continue
		}
		act = append(act, x)
	}
	if !marked || len(act) < 2 {
		return events.Observation{}, passOn // "I'm not seeing anyone": no thing refused
	}
	// the object ends at a word after which a value would start, said
	// after a word that is no particle: "picking up shifts at the bakery"
	// is "pick up shifts", "signing up for rotas" keeps its "for"
	for i := 2; i < len(act); i++ {
		if factCut[act[i].low] && !plainPrep[act[i-1].low] && !particles[act[i-1].low] {
			act = act[:i]
			break
		}
	}
	return statedIf(activity(act, KindConstraint, Negative))
}

// readAllow reads "I can (once again) / am allowed to eat X": the
// constraint against X is lifted. Another verb lifts the constraint
// against that activity only when the clause says so ("I can run again"):
// "I can help" states nothing.
func readAllow(m enMatch) (events.Observation, outcome) {
	rest, prev := skip(m.rest, fillers), m.prev
	if len(rest) > 0 && (eatVerbs[rest[0].low] || drinkVerbs[rest[0].low]) {
		return statedIf(constraint(rest[1:], verbHint(rest[0].low), Positive, prev))
	}
	light := len(rest) > 1 && lightVerbs[rest[0].low] && !pronouns[rest[1].low]
	if len(rest) > 0 && (light || !cognition[rest[0].low]) && (says(rest, again) || m.p.words[len(m.p.words)-1] == "again") {
		return statedIf(activity(rest, KindConstraint, Positive))
	}
	return events.Observation{}, nothingStated
}

// readPermit reads a thing the user may have or do again said as the
// phrase's object ("am allowed coffee again", "am back on cheese", "no
// need to avoid gluten any more"): a constraint for it, which lifts one
// against it. A food, drink or activity is one by the phrase alone ("back
// on", "cleared for" say it was kept from the user); another thing only
// with a word of allow_needs ("again", "any more"), so "I'm back on the
// night shift" states no permission.
func readPermit(m enMatch) (events.Observation, outcome) {
	rest, prev := skip(m.rest, fillers), m.prev
	if len(rest) > 0 && (eatVerbs[rest[0].low] || drinkVerbs[rest[0].low]) {
		return statedIf(constraint(rest[1:], verbHint(rest[0].low), Positive, prev))
	}
	if len(rest) == 0 || pronouns[rest[0].low] || cognition[rest[0].low] {
		return events.Observation{}, nothingStated
	}
	o, ok := constraint(rest, "", Positive, prev)
	if !ok {
		return events.Observation{}, nothingStated
	}
	if o.Subject == "general" {
		if i, _ := findPhrase(rest, cues.allowNeeds); i < 0 {
			return events.Observation{}, nothingStated
		}
	}
	return o, stated
}

// readResume reads a thing the user may go back to ("I'm fine to go back
// to my contacts", "I can get back to the climbing wall"): a constraint for
// it, which lifts one against it, as readPermit's; the phrase says "again"
// itself. A name ("I can go back to Leeds") is a place, no permission.
func readResume(m enMatch) (events.Observation, outcome) {
	rest := skip(m.rest, fillers)
	if len(rest) > 0 && (rest[0].low == "my" || rest[0].low == "the") {
		rest = rest[1:]
	}
	if len(rest) == 0 || pronouns[rest[0].low] || cognition[rest[0].low] || isCapital(rest[0].orig) {
		return events.Observation{}, nothingStated
	}
	if eatVerbs[rest[0].low] || drinkVerbs[rest[0].low] {
		return statedIf(constraint(rest[1:], verbHint(rest[0].low), Positive, m.prev))
	}
	return statedIf(constraint(rest, "", Positive, m.prev))
}

// says reports whether a clause says one of words before it ends.
func says(w []word, words map[string]bool) bool {
	for _, x := range w {
		switch {
		case words[x.low]:
			return true
		case clauseEnd[x.low]:
			return false
		}
	}
	return false
}

// again is the word of a lift said of an activity ("I can run again").
var again = map[string]bool{"again": true}

// readRefuse reads "I don't want (to eat) X", "I'd rather not have X": a
// refusal states a dislike (a bare "I want to try X" is a wish and states
// nothing).
func readRefuse(m enMatch) (events.Observation, outcome) {
	rest, prev := skip(m.rest, fillers), m.prev
	infinitive := len(rest) > 0 && rest[0].low == "to"
	if infinitive {
		rest = rest[1:]
	}
	if len(rest) > 1 && (eatVerbs[rest[0].low] || drinkVerbs[rest[0].low] || rest[0].low == "have") {
		return statedIf(slotted(rest[1:], verbHint(rest[0].low), KindPreference, Negative, prev))
	}
	if len(rest) > 0 && !infinitive && !pronouns[rest[0].low] {
		return statedIf(preference(rest, Negative, prev)) // "I don't want spicy food"
	}
	return events.Observation{}, nothingStated
}

// readDeny reads "I don't / never / no longer / rarely …" + a verb.
func readDeny(m enMatch) (events.Observation, outcome) {
	rest, prev := skip(m.rest, fillers), m.prev
	if len(rest) == 0 {
		return events.Observation{}, nothingStated
	}
	v := rest[0].low
	switch {
	case m.t.likeVerbs[v] || v == "care" && len(rest) > 1 && rest[1].low == "for":
		if v == "care" {
			rest = rest[1:]
		}
		return statedIf(preference(rest[1:], Negative, prev))
	case eatVerbs[v] && v != "have" || drinkVerbs[v]:
		return statedIf(constraint(rest[1:], verbHint(v), Negative, prev))
	case v == "have":
		if o, ok := constraint(rest[1:], "", Negative, prev); ok && (o.Subject == "food" || o.Subject == "drink") {
			return o, stated
		}
		return events.Observation{}, nothingStated
	case cognition[v] || v == "would" || v == "will":
		return events.Observation{}, nothingStated
	case v == "work" && len(rest) > 1 && (rest[1].low == "at" || rest[1].low == "for"):
		return statedIf(negFact(rest[2:], "work", "employer"))
	case v == "live" && len(rest) > 1 && rest[1].low == "in":
		return statedIf(negFact(rest[2:], "location", "home"))
	}
	return statedIf(activity(rest, KindFact, Negative))
}

// readSwitch reads "I switched (from X) to Y": Y is the habit now.
func readSwitch(m enMatch) (events.Observation, outcome) {
	rest, prev := m.rest, m.prev
	rest = skip(rest, set("over", "back"))
	if len(rest) > 0 && rest[0].low == "from" {
		for j := 1; j < len(rest); j++ {
			if rest[j].low == "to" {
				rest = rest[j:]
				break
			}
		}
	}
	if len(rest) > 1 && rest[0].low == "to" {
		if o, ok := habit(rest[1:], "switch", prev); ok {
			return o, stated
		}
	}
	return events.Observation{}, passOn
}

// readQuit reads "I quit X", "I gave up X", "I stopped drinking X": a
// constraint, as "I don't drink X" is — but not "I quit my job" or "I quit
// Facebook".
func readQuit(m enMatch) (events.Observation, outcome) {
	rest, prev := m.rest, m.prev
	hint := ""
	if len(rest) > 0 && (rest[0].low == "drinking" || rest[0].low == "eating") {
		hint = "eat"
		if rest[0].low == "drinking" {
			hint = "drink"
		}
		rest = rest[1:]
	}
	if len(rest) > 0 && (rest[0].low == "my" || isCapital(rest[0].orig) && hint == "") {
		return events.Observation{}, passOn // "I quit my job", "I quit Facebook": not a diet
	}
	if o, ok := constraint(rest, hint, Negative, prev); ok {
		return o, stated
	}
	return events.Observation{}, passOn
}
