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
	scenarios := loadHeldout(t, "heldout/blind.jsonl")
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
		p := passed[s.kind+" "+s.lang]
		p[1]++
		if !failed[s.name] {
			p[0]++
		}
		passed[s.kind+" "+s.lang] = p
	}
	t.Logf("blind: scenarios %d/%d, checks %d/%d (%s)", sc.scenariosPassed, sc.scenarios, sc.checksPassed, sc.checks,
		perKey(sc.byLang))
	t.Logf("blind by kind, checks: %s", perKey(sc.byKind))
	t.Logf("blind by kind, scenarios: %s", perKey(passed))
	if sc.checksPassed < blindFloor {
		t.Errorf("blind score %d checks fell below the floor %d", sc.checksPassed, blindFloor)
	}
}
