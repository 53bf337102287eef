package memory

import "strings"

// thingKinds is data/things.txt: each thing (lower case, words joined by a
// space) → the things it is, is a kind of, or holds ("cheese" → dairy,
// lactose; "almond" → tree nut). Loaded once from the embedded data and
// never changed, so it is safe to share.
var thingKinds = mustThingKinds()

func mustThingKinds() map[string][]string {
	up := map[string][]string{}
	for _, l := range memData.Lines("things") {
		name := strings.ToLower(l.Name)
		name = strings.ReplaceAll(name, "_", " ")
		for _, w := range l.Words {
			w = strings.ToLower(w)
			up[w] = append(up[w], name)
		}
	}
	for _, l := range memData.Lines("things") {
		name := strings.ReplaceAll(strings.ToLower(l.Name), "_", " ")
		if _, ok := up[name]; !ok {
			up[name] = nil // a kind no line names as a member: known, with nothing above it
		}
	}
	return up
}

// thingKeys are the names under which data/things.txt may know an object:
// the object, its last word's singular, and for an activity the object
// after its verb ("climb steps": steps, step).
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
	return keys
}

// knownThing reports whether data/things.txt knows any of keys.
func knownThing(keys []string) bool {
	for _, k := range keys {
		if _, ok := thingKinds[k]; ok {
			return true
		}
	}
	return false
}

// isA reports whether one of keys is want or reaches it by following the
// things it is (transitively; a bounded walk, the data being small and
// acyclic in intent, cycles cut by seen).
func isA(keys []string, want []string) bool {
	seen := map[string]bool{}
	todo := append([]string(nil), keys...)
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
		todo = append(todo, thingKinds[k]...)
	}
	return false
}

// kindRelated reports whether the language data shows the lift's object
// and the ban's to be one thing, or one a kind (or holder) of the other:
// "cheese" and "dairy", "steps" and "stairs", "citrus" and "grapefruit".
// Siblings of one kind ("dog" and "cat", "peanut" and "almond") are not.
func kindRelated(liftSubject, lift, banSubject, ban string) bool {
	lk, bk := thingKeys(liftSubject, lift), thingKeys(banSubject, ban)
	return isA(lk, bk) || isA(bk, lk)
}
