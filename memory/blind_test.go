package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// blindFloor is the number of checks of heldout/blind.jsonl that must pass.
// The set was written and committed before memory ran on it; its first run
// is recorded in docs/evaluation.md. A change may raise the floor, never
// lower it silently.
const blindFloor = 56 // the blind first run was 41; 56 since the sets recall with the product's encoders

// TestBlindScenarios scores heldout/blind.jsonl, written as the service
// writes messages (Engine.MessageEvents), and logs the figures per language
// and per kind (go test ./memory -run TestBlindScenarios -v names every
// failed check).
func TestBlindScenarios(t *testing.T) {
	scoreBlindSet(t, blindSet{name: "blind", path: "heldout/blind.jsonl", floor: blindFloor})
}

// blindSet is one sealed scenario set: where it is, the number of its
// checks that must pass, and the size its author promised (a set written
// to a brief of at least so many scenarios, so many in Chinese).
type blindSet struct {
	name, path   string
	floor        int
	scenariosMin int
	zhMin        int
	// sealed: memory runs on the set only when MEMORY_UNSEAL names it, so
	// that nobody sees its figures before the one run that is its blind
	// figure; until then the set's integrity is checked and the test is
	// skipped.
	sealed bool
	// committed is what the set was committed with, per language: its
	// scenarios and the lines that check something (holdsCommitted).
	committed map[string][2]int
	// sha256 is the set file's digest as committed (hex); "" is not
	// checked. Counts catch a line lost or added, the digest any edit:
	// an expectation changed after a run would move a blind figure unseen.
	sha256 string
	// kinds is what the set was committed with per check kind and
	// language ("holds en": checkKind); nil is not checked.
	kinds map[string]int
	// langFloor is the number of checks per language that must pass once
	// the set runs; a language it does not name has none.
	langFloor map[string]int
	// isolated: every nothing_from check must pass, whatever the score,
	// for each says that another user's or tenant's message stored
	// nothing for the user.
	isolated bool
}

// holdsCommitted holds a set to what was written and to the brief it was
// written to, without running memory on it: it parses, every scenario and
// check is whole and well formed (sealedSetProblems), and it has the
// scenarios and checks per language it was committed with, so that an
// edit to a sealed set shows.
func holdsCommitted(t *testing.T, set blindSet) {
	t.Helper()
	scenarios := loadHeldout(t, set.path)
	for _, p := range sealedSetProblems(scenarios, set.scenariosMin, set.zhMin) {
		t.Errorf("%s: %s", set.name, p)
	}
	problems, err := committedProblems(set, scenarios)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// committedProblems says where a loaded set differs from what it was
// committed with: its scenarios and checks per language, its checks per
// kind and language (if kinds is set) and its sha256 (if set).
func committedProblems(set blindSet, scenarios []*heldoutScenario) ([]string, error) {
	var out []string
	got := map[string][2]int{}
	kinds := map[string]int{}
	for _, s := range scenarios {
		c := got[s.lang]
		c[0]++
		for _, l := range s.lines {
			if checksOn(l) > 0 {
				c[1]++
				kinds[checkKind(l)+" "+s.lang]++
			}
		}
		got[s.lang] = c
	}
	if !maps.Equal(got, set.committed) {
		out = append(out, fmt.Sprintf("%s has [scenarios checks] by language %v, committed with %v", set.name, got,
			set.committed))
	}
	if set.kinds != nil && !maps.Equal(kinds, set.kinds) {
		out = append(out, fmt.Sprintf("%s has checks by kind and language %v, committed with %v", set.name, kinds,
			set.kinds))
	}
	if set.sha256 != "" {
		b, err := os.ReadFile(set.path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", set.path, err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != set.sha256 {
			out = append(out, fmt.Sprintf("%s has sha256 %x, committed with %s: a set is not edited after it is written",
				set.path, sum, set.sha256))
		}
	}
	return out, nil
}

// checkKind names the check a line asks for, the one runHeldout runs: its
// field in the set ("ask", "holds", "not_holds", "nothing_from",
// "absent", "superseded", "status"), "" for none.
func checkKind(l heldoutLine) string {
	switch {
	case l.Ask != "":
		return "ask"
	case l.Holds != nil:
		return "holds"
	case l.NotHolds != nil:
		return "not_holds"
	case l.NothingFrom != "":
		return "nothing_from"
	case l.Superseded != nil:
		return "superseded"
	case l.Status != nil:
		return "status"
	case l.Absent != "":
		return "absent"
	}
	return ""
}

// scoreBlindSet scores one sealed scenario set against its floor: written as
// the service writes messages, every failed check logged, the figures per
// language and kind, scenarios per kind and language and per language.
//
// A set that is not whole (see sealedSetProblems) fails whatever it scores:
// a check naming a message the scenario never said would pass or fail for
// nothing memory did.
func scoreBlindSet(t *testing.T, set blindSet) {
	t.Helper()
	name, floor := set.name, set.floor
	scenarios := loadHeldout(t, set.path)
	for _, p := range sealedSetProblems(scenarios, set.scenariosMin, set.zhMin) {
		t.Errorf("%s: %s", name, p)
	}
	if set.sealed && os.Getenv("MEMORY_UNSEAL") != name {
		problems, err := committedProblems(set, scenarios)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
		if t.Failed() {
			return
		}
		t.Skipf("%s is sealed: its integrity holds; MEMORY_UNSEAL=%s runs memory on it", name, name)
	}
	sc := runHeldout(t, NewEngine(Config{}, nil), scenarios, true, productEncoders(t))
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
	for _, lang := range []string{"en", "zh"} {
		if f, ok := set.langFloor[lang]; ok && sc.byLang[lang][0] < f {
			t.Errorf("%s score in %s %d checks fell below the floor %d", name, lang, sc.byLang[lang][0], f)
		}
	}
	if set.isolated {
		breaches, err := nothingFromFailures(sc.failures)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range breaches {
			t.Errorf("%s: another user's or tenant's message reached the user: %s", name, f)
		}
	}
}

// nothingFromFailures returns the failures of runHeldout (a check's line,
// then why) whose check is a nothing_from.
func nothingFromFailures(failures []string) ([]string, error) {
	var out []string
	for _, f := range failures {
		var l heldoutLine
		line, _, _ := strings.Cut(f, "\n")
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return nil, fmt.Errorf("a failure's line %q: %w", line, err)
		}
		if checkKind(l) == "nothing_from" {
			out = append(out, f)
		}
	}
	return out, nil
}

// TestNothingFromFailuresAreTheIsolationChecks: of runHeldout's failures,
// those of nothing_from lines are picked, every other kind left, and a
// line that does not parse is an error, not a pass.
func TestNothingFromFailuresAreTheIsolationChecks(t *testing.T) {
	tests := []struct {
		name     string
		failures []string
		want     int
		err      bool
	}{
		{"none", nil, 0, false},
		{"a nothing_from", []string{`{"s":"a","nothing_from":"t2"}` + "\n\tstored t2#1 preference likes/x positive"}, 1, false},
		{"other kinds", []string{`{"s":"a","holds":{"about":["x"]}}` + "\n\twant holds",
			`{"s":"a","ask":"x?","want":["t1"]}` + "\n\twant t1 in the top 3", `{"s":"a","absent":"1234"}` + "\n\tfound"}, 0, false},
		{"mixed", []string{`{"s":"a","not_holds":{"about":["x"]}}` + "\n\twant does not hold",
			`{"s":"b","nothing_from":"t3"}` + "\n\tstored", `{"s":"c","nothing_from":"t2"}` + "\n\tstored"}, 2, false},
		{"unparsable", []string{"not json\n\twhy"}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := nothingFromFailures(tt.failures)
			if (err != nil) != tt.err {
				t.Fatalf("err %v, want an error: %v", err, tt.err)
			}
			if len(got) != tt.want {
				t.Errorf("got %d failures %q, want %d", len(got), got, tt.want)
			}
		})
	}
}

// TestCheckKindNamesTheCheckRun: checkKind names each kind of check line
// by its field, and nothing for a message or a header.
func TestCheckKindNamesTheCheckRun(t *testing.T) {
	tests := []struct{ line, want string }{
		{`{"s":"a","ask":"x?","want":["t1"]}`, "ask"},
		{`{"s":"a","holds":{"about":["x"]}}`, "holds"},
		{`{"s":"a","not_holds":{"about":["x"]}}`, "not_holds"},
		{`{"s":"a","nothing_from":"t2"}`, "nothing_from"},
		{`{"s":"a","superseded":{"old":"t1","by":"t2"}}`, "superseded"},
		{`{"s":"a","status":{"of":"t1","is":"active"}}`, "status"},
		{`{"s":"a","absent":"1234"}`, "absent"},
		{`{"s":"a","id":"t1","at":"2038-01-01T00:00:00Z","say":"I like x."}`, ""},
		{`{"s":"a","lang":"en","kind":"k","note":"n"}`, ""},
	}
	for _, tt := range tests {
		var l heldoutLine
		if err := json.Unmarshal([]byte(tt.line), &l); err != nil {
			t.Fatal(err)
		}
		if got := checkKind(l); got != tt.want {
			t.Errorf("checkKind(%s) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// sealedSetProblems says what keeps a loaded set from being whole: at least
// scenariosMin scenarios and zhMin of them Chinese; each scenario opens with
// a header naming its language (en or zh), kind and note, says something
// and checks something; its messages have ids of their own, are said in
// time order, and every id a check or a forget names is one of them (or
// one's statement: t1#2); every check is well formed (checkProblems) and
// no message or forget carries one.
func sealedSetProblems(scenarios []*heldoutScenario, scenariosMin, zhMin int) []string {
	var out []string
	zh := 0
	for _, s := range scenarios {
		bad := func(format string, args ...any) {
			out = append(out, s.name+": "+fmt.Sprintf(format, args...))
		}
		if s.lang == "zh" {
			zh++
		}
		if h := s.lines[0]; h.Note == "" || h.Say != "" || h.Forget != "" {
			bad("the first line is no header with a note")
		}
		if s.lang != "en" && s.lang != "zh" || s.kind == "" {
			bad("language %q and kind %q: want en or zh and a kind", s.lang, s.kind)
		}
		var said []string
		var last time.Time
		checks := 0
		for _, l := range s.lines {
			if l.Say != "" || l.Forget != "" {
				at, err := time.Parse(time.RFC3339, l.At)
				switch {
				case err != nil:
					bad("%s: time %q: %v", l.raw, l.At, err)
				case at.Before(last):
					bad("%s: said before the line above it", l.raw)
				default:
					last = at
				}
				if checksOn(l) > 0 {
					bad("%s: a message or forget carries a check, which is never run", l.raw)
				}
			}
			if l.Say != "" {
				if l.ID == "" || slices.Contains(said, l.ID) {
					bad("message id %q is empty or said twice", l.ID)
				}
				said = append(said, l.ID)
				continue
			}
			if l.Forget == "" {
				for _, p := range checkProblems(l) {
					bad("%s: %s", l.raw, p)
				}
			}
			var named []string
			named = append(named, l.Want...)
			named = append(named, l.Reject...)
			named = append(named, l.Forget, l.NothingFrom)
			if l.Superseded != nil {
				named = append(named, l.Superseded.Old, l.Superseded.By)
			}
			if l.Status != nil {
				named = append(named, l.Status.Of)
			}
			for _, id := range named {
				// t1#2 is the second statement of message t1.
				if msg, _, _ := strings.Cut(id, "#"); id != "" && !slices.Contains(said, msg) {
					bad("%s names %q, which the scenario has not said", l.raw, id)
				}
			}
			if checksOn(l) > 0 {
				checks++
			}
		}
		if len(said) == 0 || checks == 0 {
			bad("%d messages and %d checks: want some of each", len(said), checks)
		}
	}
	if len(scenarios) < scenariosMin || zh < zhMin {
		out = append(out, fmt.Sprintf("%d scenarios, %d in Chinese: want at least %d and %d", len(scenarios), zh,
			scenariosMin, zhMin))
	}
	return out
}

// checksOn counts the checks one line asks for: runHeldout runs one check
// a line, the first of these, and says nothing of the others.
func checksOn(l heldoutLine) int {
	n := 0
	for _, on := range []bool{l.Ask != "", l.Holds != nil, l.NotHolds != nil, l.NothingFrom != "", l.Absent != "",
		l.Superseded != nil, l.Status != nil} {
		if on {
			n++
		}
	}
	return n
}

// checkProblems says what keeps one line that is no message from being a
// check that can fail for what memory does: one check a line; a recall
// that wants or rejects some message (with neither it passes whatever is
// recalled); a slot check with something to match, a kind a slotted record
// can have and a polarity there is; a supersession naming both messages; a
// status there is; times that parse.
func checkProblems(l heldoutLine) []string {
	var out []string
	if n := checksOn(l); n > 1 {
		out = append(out, fmt.Sprintf("%d checks on one line: only the first is run", n))
	}
	for _, at := range []string{l.At, l.AsOf} {
		if _, err := time.Parse(time.RFC3339, at); at != "" && err != nil {
			out = append(out, fmt.Sprintf("time %q: %v", at, err))
		}
	}
	if l.Ask != "" && len(l.Want) == 0 && len(l.Reject) == 0 {
		out = append(out, "a recall that wants and rejects nothing")
	}
	for _, c := range []*slotCheck{l.Holds, l.NotHolds} {
		switch {
		case c == nil:
		case len(c.About) == 0 || slices.Contains(c.About, ""):
			out = append(out, "a slot check with nothing (or an empty string) to match")
		case c.Kind != "" && !slices.Contains([]Kind{KindPreference, KindConstraint, KindFact}, Kind(c.Kind)):
			out = append(out, fmt.Sprintf("kind %q: no slotted record has it", c.Kind))
		case c.Polarity != "" && c.Polarity != string(Positive) && c.Polarity != string(Negative):
			out = append(out, fmt.Sprintf("polarity %q: want positive or negative", c.Polarity))
		}
	}
	if l.Superseded != nil && (l.Superseded.Old == "" || l.Superseded.By == "") {
		out = append(out, "a supersession without both its messages")
	}
	if l.Status != nil && (l.Status.Of == "" || !slices.Contains([]Status{StatusActive, StatusSuperseded, StatusExpired,
		StatusForgotten, StatusNeedsConfirmation, StatusCold}, Status(l.Status.Is))) {
		out = append(out, fmt.Sprintf("status %q of %q: want a message and a status there is", l.Status.Is, l.Status.Of))
	}
	return out
}
