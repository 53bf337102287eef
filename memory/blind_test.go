package memory

import (
	"strings"
	"testing"
)

// blindFloor is the number of checks of heldout/blind.jsonl that must pass.
// The set was written and committed before memory ran on it; its first run
// is recorded in docs/evaluation.md. A change may raise the floor, never
// lower it silently.
const blindFloor = 54 // the blind first run was 41

// TestBlindScenarios scores heldout/blind.jsonl, written as the service
// writes messages (Engine.MessageEvents), and logs the figures per language
// and per kind (go test ./memory -run TestBlindScenarios -v names every
// failed check).
func TestBlindScenarios(t *testing.T) {
	scoreBlindSet(t, "blind", "heldout/blind.jsonl", blindFloor)
}

// scoreBlindSet scores one sealed scenario set against its floor: written as
// the service writes messages, every failed check logged, the figures per
// language and kind, scenarios per kind and language and per language.
func scoreBlindSet(t *testing.T, name, path string, floor int) {
	t.Helper()
	scenarios := loadHeldout(t, path)
	sc := runHeldout(t, NewEngine(Config{}, nil), scenarios, true)
	failed := map[string]bool{}
	for _, f := range sc.failures {
		t.Log(f)
		for _, s := range scenarios {
			if strings.Contains(strings.SplitN(f, "\n", 2)[0], `"`+s.name+`"`) {
				failed[s.name] = true
			}
		}
	}
	passed := map[string][2]int{}
	for _, s := range scenarios {
		for _, k := range []string{s.kind + " " + s.lang, s.lang} {
			p := passed[k]
			p[1]++
			if !failed[s.name] {
				p[0]++
			}
			passed[k] = p
		}
	}
	t.Logf("%s: scenarios %d/%d, checks %d/%d (%s)", name, sc.scenariosPassed, sc.scenarios, sc.checksPassed, sc.checks,
		perKey(sc.byLang))
	t.Logf("%s by kind, checks: %s", name, perKey(sc.byKind))
	t.Logf("%s by kind and language, scenarios: %s", name, perKey(passed))
	if sc.checksPassed < floor {
		t.Errorf("%s score %d checks fell below the floor %d", name, sc.checksPassed, floor)
	}
}
