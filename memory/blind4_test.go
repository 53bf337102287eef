package memory

import (
	"os"
	"strings"
	"testing"
)

// blind4Floor is the number of checks of heldout/blind4.jsonl that must
// pass: well below the set's blind first run, so that the test fails on a
// change that loses much of what memory understood, not on the set's figure
// (docs/evaluation.md records it and the misses). A change may raise the
// floor, never lower it silently.
const blind4Floor = 30 // the blind first run was 39 (of 69), on main at a9bd148

// TestBlind4Scenarios scores heldout/blind4.jsonl as TestBlind3Scenarios
// scores blind3.jsonl, and holds the set to its brief: at least 30
// scenarios, half of them Chinese, each whole (sealedSetProblems).
func TestBlind4Scenarios(t *testing.T) {
	scoreBlindSet(t, blindSet{name: "blind4", path: "heldout/blind4.jsonl", floor: blind4Floor,
		scenariosMin: 30, zhMin: 15})
}

// TestSealedSetProblemsFindsABrokenSet holds sealedSetProblems to what it
// says: each broken scenario below is named, the whole one is not, and a set
// smaller than promised is reported.
func TestSealedSetProblemsFindsABrokenSet(t *testing.T) {
	lines := []string{
		`{"s":"whole","lang":"en","kind":"lift","note":"n"}`,
		`{"s":"whole","id":"t1","at":"2026-01-01T00:00:00Z","say":"I can't do stairs."}`,
		`{"s":"whole","ask":"stairs?","want":["t1"]}`,
		`{"s":"names-unsaid","lang":"zh","kind":"lift","note":"n"}`,
		`{"s":"names-unsaid","id":"t1","at":"2026-01-01T00:00:00Z","say":"我不吃辣。"}`,
		`{"s":"names-unsaid","superseded":{"old":"t1","by":"t2"}}`,
		`{"s":"no-check","lang":"en","kind":"lift","note":"n"}`,
		`{"s":"no-check","id":"t1","at":"2026-01-01T00:00:00Z","say":"I can't do stairs."}`,
		`{"s":"out-of-order","lang":"en","kind":"lift","note":"n"}`,
		`{"s":"out-of-order","id":"t1","at":"2026-02-01T00:00:00Z","say":"I can't do stairs."}`,
		`{"s":"out-of-order","id":"t2","at":"2026-01-01T00:00:00Z","say":"Stairs are fine again."}`,
		`{"s":"out-of-order","absent":"stairs"}`,
		`{"s":"no-header","id":"t1","at":"2026-01-01T00:00:00Z","say":"I can't do stairs."}`,
		`{"s":"no-header","absent":"stairs"}`,
	}
	path := t.TempDir() + "/set.jsonl"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	problems := sealedSetProblems(loadHeldout(t, path), 6, 2)
	all := strings.Join(problems, "\n")
	for _, want := range []string{"names-unsaid: ", "no-check: ", "out-of-order: ", "no-header: ", "5 scenarios, 1 in Chinese"} {
		if !strings.Contains(all, want) {
			t.Errorf("no problem %q among:\n%s", want, all)
		}
	}
	if strings.Contains(all, "whole: ") {
		t.Errorf("the whole scenario was reported:\n%s", all)
	}
}
