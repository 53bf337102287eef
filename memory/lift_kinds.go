package memory

import (
	"slices"
	"strings"
)

// thingKinds is data/things.txt's [things]: each thing (lower case, words
// joined by a space, a synonym by its line's name) → the things it is a
// kind of ("almond" → tree nut, "cheese" → dairy). thingUp adds [holds]:
// the things it is a kind of or holds ("cheese" → dairy, lactose; "coffee"
// → caffeine). thingNames is [same things]: each name of a thing → the one
// name its line gives it ("steps" → stairs). Loaded once from the embedded
// data and never changed, so they are safe to share.
var thingNames, thingKinds, thingUp = mustThingData()

func mustThingData() (names map[string]string, kinds, up map[string][]string) {
	names = map[string]string{}
	for _, l := range memData.Lines("same things") {
		name := spaced(l.Name)
		names[name] = name
		for _, w := range l.Words {
			names[spaced(w)] = name
		}
	}
	canon := func(w string) string {
		if n, ok := names[spaced(w)]; ok {
			return n
		}
		return spaced(w)
	}
	read := func(m map[string][]string, section string) {
		for _, l := range memData.Lines(section) {
			name := canon(l.Name)
			for _, w := range l.Words {
				m[canon(w)] = append(m[canon(w)], name)
			}
		}
		for _, l := range memData.Lines(section) {
			if _, ok := m[canon(l.Name)]; !ok {
				m[canon(l.Name)] = nil // a thing no line names as a member: known, with nothing above it
			}
		}
	}
	kinds, up = map[string][]string{}, map[string][]string{}
	read(kinds, "things")
	read(up, "things")
	read(up, "holds")
	return names, kinds, up
}

// spaced is a data word as an object is written: lower case, "_" a space.
func spaced(w string) string { return strings.ReplaceAll(strings.ToLower(w), "_", " ") }

// thingKeys are the names under which data/things.txt may know an object:
// the object, its last word's singular, and for an activity the object
// after its verb ("climb steps": steps, step); each synonym by its line's
// name.
func thingKeys(subject, attr string) []string {
	a := strings.ToLower(strings.TrimSpace(attr))
	keys := []string{a}
	ws := strings.Fields(a)
	if len(ws) > 0 {
		last := len(ws) - 1
		if s := singular(ws[last]); s != ws[last] {
			keys = append(keys, strings.Join(append(ws[:last:last], s), " "))
		}
	}
	if subject == "activity" && len(ws) > 1 {
		keys = append(keys, thingKeys("", strings.Join(ws[1:], " "))...)
	}
	if subject == "activity" && len(ws) == 1 {
		// an activity is one by its verb's stem: "bowling" and "bowl",
		// "swimming" and "swim"
		if s := stem(ws[0]); s != ws[0] {
			keys = append(keys, s)
		}
	}
	for _, k := range keys {
		if n, ok := thingNames[k]; ok && n != k {
			keys = append(keys, n)
		}
	}
	// a thing's names in the other language: the Chinese lexicon's slot of
	// a Chinese name (奶酪 → cheese) and the Chinese names of an English
	// one (dairy → 乳制品), so the data's English and Chinese lines relate
	// a ban and a lift written in either
	for _, k := range keys {
		if en, ok := thingZhToEn[k]; ok && !slices.Contains(keys, en) {
			keys = append(keys, en)
		}
		for _, zh := range thingEnToZh[k] {
			if !slices.Contains(keys, zh) {
				keys = append(keys, zh)
			}
		}
	}
	return keys
}

// thingZhToEn and thingEnToZh are data/words.txt's [zh lexicon] both
// ways: a Chinese name → its English attribute, an English attribute →
// its Chinese names. Built once, never changed.
var thingZhToEn, thingEnToZh = thingLanguages()

func thingLanguages() (map[string]string, map[string][]string) {
	zhEn, enZh := map[string]string{}, map[string][]string{}
	for _, e := range zhLexicon {
		if _, ok := zhEn[e.zh]; !ok {
			zhEn[e.zh] = e.en
		}
		if !slices.Contains(enZh[e.en], e.zh) {
			enZh[e.en] = append(enZh[e.en], e.zh)
		}
	}
	return zhEn, enZh
}

// knownThing reports whether data/things.txt knows any of keys.
func knownThing(keys []string) bool {
	for _, k := range keys {
		if _, ok := thingUp[k]; ok {
			return true
		}
		if _, ok := thingNames[k]; ok {
			return true
		}
	}
	return false
}

// isA reports whether one of keys reaches one of want by following up,
// at least one step (transitively; a bounded walk, the data being small
// and acyclic in intent, cycles cut by seen).
func isA(keys []string, want []string, up map[string][]string) bool {
	seen := map[string]bool{}
	var todo []string
	for _, k := range keys {
		todo = append(todo, up[k]...)
	}
	for len(todo) > 0 {
		k := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[k] {
			continue
		}
		seen[k] = true
		for _, w := range want {
			if k == w {
				return true
			}
		}
		todo = append(todo, up[k]...)
	}
	return false
}

// thingRelation is how the language data says a lift's thing stands to a
// ban's.
type thingRelation int

const (
	thingUnrelated thingRelation = iota // siblings, or a thing the data does not know
	thingSame                           // one thing, or synonyms: "steps" and "stairs"
	thingBroader                        // the ban's thing is a kind of the lift's: "citrus" lifting "grapefruit"
	thingNarrower                       // the lift's thing is a kind of the ban's, or holds it: "cheese" lifting "dairy"
	thingHeld                           // the lift's thing is held in the ban's: "caffeine" lifting "coffee"
)

func (r thingRelation) String() string {
	switch r {
	case thingSame:
		return "same"
	case thingBroader:
		return "broader"
	case thingNarrower:
		return "narrower"
	case thingHeld:
		return "held"
	}
	return "unrelated"
}

// relateThings says how the lift's object stands to the ban's by the
// language data. Broader needs kinds alone: a lift of what the ban's thing
// holds (caffeine after coffee) is held, not broader. Narrower wins over
// broader should the data relate the two both ways: of the two readings it
// is the one that leaves the ban in force.
func relateThings(liftSubject, lift, banSubject, ban string) thingRelation {
	lk, bk := thingKeys(liftSubject, lift), thingKeys(banSubject, ban)
	for _, l := range lk {
		for _, b := range bk {
			if l == b {
				return thingSame
			}
		}
	}
	switch {
	case isA(lk, bk, thingUp):
		return thingNarrower
	case isA(bk, lk, thingKinds):
		return thingBroader
	case isA(bk, lk, thingUp):
		return thingHeld
	}
	return thingUnrelated
}
