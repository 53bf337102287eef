package memory

import "testing"

// blind3Floor is the number of checks of heldout/blind3.jsonl that must
// pass. The set was written and committed before memory ran on it; its
// first run is recorded in docs/evaluation.md. A change may raise the
// floor, never lower it silently.
// 61, not 62: en-caffeine-lift wants "I can finally have coffee again" to
// end "I'm staying off caffeine"; coffee holds caffeine, a narrower thing,
// so the ban now stays (TestANarrowerLiftLeavesTheBroaderBan), a check
// given up for safety.
const blind3Floor = 69 // the blind first run was 41; 65 since the sets recall with the product's encoders, 69 since a few records are judged against the background

// TestBlind3Scenarios scores heldout/blind3.jsonl as TestBlindScenarios
// scores blind.jsonl: written as the service writes messages, figures
// logged per language and kind (-v names every failed check).
func TestBlind3Scenarios(t *testing.T) {
	scoreBlindSet(t, blindSet{name: "blind3", path: "heldout/blind3.jsonl", floor: blind3Floor})
}
