package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// freshFloor is the number of checks of heldout/fresh.jsonl that must pass.
// The set was written for the statement work of this package (plain-language
// constraints, validity, supersede, corrections, lifts, one record per
// statement) before its rules were changed; its first run is recorded in
// docs/evaluation.md. A change may raise the floor, never lower it silently.
const freshFloor = 40

// TestFreshScenarios scores heldout/fresh.jsonl, written as the service
// writes messages (Engine.MessageEvents), and logs the figures per
// language and per kind.
func TestFreshScenarios(t *testing.T) {
	scenarios := loadHeldout(t, "heldout/fresh.jsonl")
	sc := runHeldout(t, NewEngine(Config{}, nil), scenarios, true, productEncoders(t))
	for _, f := range sc.failures {
		t.Log(f)
	}
	passed := map[string][2]int{}
	for _, s := range scenarios {
		p := passed[s.kind+" "+s.lang]
		p[1]++
		passed[s.kind+" "+s.lang] = p
	}
	ok := map[string]bool{}
	for _, f := range sc.failures {
		for _, s := range scenarios {
			if strings.HasPrefix(f, `{"s":"`+s.name+`"`) {
				ok[s.name] = false
			}
		}
	}
	for _, s := range scenarios {
		if _, failed := ok[s.name]; !failed {
			p := passed[s.kind+" "+s.lang]
			p[0]++
			passed[s.kind+" "+s.lang] = p
		}
	}
	t.Logf("fresh: scenarios %d/%d, checks %d/%d (%s)", sc.scenariosPassed, sc.scenarios, sc.checksPassed, sc.checks,
		perKey(sc.byLang))
	t.Logf("fresh by kind, checks: %s", perKey(sc.byKind))
	t.Logf("fresh by kind, scenarios: %s", perKey(passed))
	if sc.checksPassed < freshFloor {
		t.Errorf("fresh score %d checks fell below the floor %d", sc.checksPassed, freshFloor)
	}
}

// perKey writes "key passed/all" for each key, sorted.
func perKey(m map[string][2]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s %d/%d", k, m[k][0], m[k][1]))
	}
	return strings.Join(out, ", ")
}
