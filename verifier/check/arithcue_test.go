package check

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAComputedNumberIsNeverTheNearestField: a number beside an arithmetic
// cue (a rate per a day, a total in all, a difference back, a multiple, a
// span from) is supported by a computation over the fields the claim
// binds, else unsupported: the nearest field never contradicts it, unless
// its key states a value of the cue's kind. A number bound to one field
// with no cue stays contradicted when it differs.
func TestAComputedNumberIsNeverTheNearestField(t *testing.T) {
	loom := `{"loom": "L2", "metres_woven": 84, "days": 6}`
	loomRate := `{"loom": "L2", "metres_per_day": 14}`
	kites := `{"order": "K-17", "kites": 7, "price_each_pounds": 12.5}`
	table := `{"table": [{"team": "Rooks", "points": 41}, {"team": "Larks", "points": 38}]}`
	tableGap := `{"table": [{"team": "Rooks", "points": 41}, {"team": "Larks", "points": 38, "gap": 3}]}`
	zhKiln := `{"窑": "二号窑", "烧制_件": 630, "天数": 7}`
	zhKites := `{"订单": "Q-3", "风筝_个": 12, "单价_元": 35}`
	carvings := `{"carver": "Ines", "spoons": 12, "bowls": 36}`
	job := `{"job": "J-4", "quoted_minutes": 90, "crew": 3}`
	runOperationCases(t, []operationCase{
		// a rate a day: the quotient of two fields of its row, or unsupported
		{loom, "Loom L2 wove 14 metres a day.", events.VerdictSupported},
		{loom, "Loom L2 wove 16 metres a day.", events.VerdictUnsupported},
		// a field that states the rate decides it
		{loomRate, "Loom L2 weaves 16 metres a day.", events.VerdictContradicted},
		{zhKiln, "二号窑每天烧90件。", events.VerdictSupported},
		{zhKiln, "二号窑每天烧80件。", events.VerdictUnsupported},
		// a total in all: count × unit price, or unsupported; the count
		// itself is still bound to its field
		{kites, "Order K-17's 7 kites come to £87.50 in all.", events.VerdictSupported},
		{kites, "Order K-17's 7 kites come to £90 in all.", events.VerdictUnsupported},
		{kites, "Order K-17 holds 8 kites.", events.VerdictContradicted},
		{zhKites, "订单Q-3的风筝一共420元。", events.VerdictSupported},
		{zhKites, "订单Q-3的风筝一共400元。", events.VerdictUnsupported},
		// a difference back: two fields' difference, or unsupported
		{table, "The Larks sit 3 points back.", events.VerdictSupported},
		{table, "The Larks sit 5 points back.", events.VerdictUnsupported},
		{tableGap, "The Larks sit 5 points back.", events.VerdictContradicted},
		// a multiple: a ratio, or unsupported
		{carvings, "Ines carved 3 times as many bowls as spoons.", events.VerdictSupported},
		{carvings, "Ines carved 4 times as many bowls as spoons.", events.VerdictUnsupported},
		// a span from: a duration no field of another meaning decides
		{job, "Job J-4 was done 106 minutes from the call.", events.VerdictUnsupported},
		{job, "Job J-4 was quoted at 95 minutes.", events.VerdictContradicted},
	})
}

// TestANumberThatSizesOrLabelsRowsIsNoValue: the second number of "two of
// the three", "once in eight" counts the rows (a list's length or
// unsupported), and a number after a noun that labels a thing by it ("in
// pen 5") is compared only with a field that noun names; a value the
// claim states beside them is still judged.
func TestANumberThatSizesOrLabelsRowsIsNoValue(t *testing.T) {
	rinks := `{"rinks": [{"rink": "North", "sessions": 3}, {"rink": "South", "sessions": 4}, {"rink": "East", "sessions": 6}]}`
	show := `{"heifer": "Tansy", "weight_kg": 412, "class_place": 2}`
	showPen := `{"heifer": "Tansy", "pen": 4, "weight_kg": 412}`
	darts := `{"player": "Moira", "matches": 8, "wins": 1}`
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		result, claim string
		want          func(events.Verdict) bool
	}{
		{rinks, "East had 6 sessions, twice in the 3 rinks.", verdictNot(events.VerdictContradicted)},
		{rinks, "East had 6 sessions, twice in the 4 rinks.", verdictNot(events.VerdictContradicted)},
		{rinks, "East had 5 sessions.", verdictIs(events.VerdictContradicted)},
		{darts, "Moira won once in 8 matches.", verdictNot(events.VerdictContradicted)},
		{darts, "Moira won once in 9 matches.", verdictNot(events.VerdictContradicted)},
		{show, "Tansy, in pen 5, weighed 412 kg.", verdictIs(events.VerdictSupported)},
		{show, "Tansy stood in pen 5.", verdictNot(events.VerdictContradicted)},
		// a value beside a label is still judged, and a label whose noun
		// a key names is compared with it
		{show, "Tansy weighed 430 kg.", verdictIs(events.VerdictContradicted)},
		{showPen, "Tansy stood in pen 5.", verdictIs(events.VerdictContradicted)},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); !tc.want(got) {
			t.Errorf("%q beside %s: %s (%s)", tc.claim, tc.result, got, why)
		}
	}
}

// TestComputedNumbersOverMadeUpRows is a property over made-up domains: a
// row of a count and a unit price, a total and a number of days. Whatever
// the words, a true product or rate is never contradicted, a wrong one is
// never contradicted by the nearest field (it is unsupported), and a
// wrong count bound to its own field is contradicted.
func TestComputedNumbersOverMadeUpRows(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(19, 28)), used: map[string]bool{}}
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for range 60 {
		thing, row := g.word(), title(g.word())
		n := 3 + g.r.IntN(9)
		cents := 150 + 5*g.r.IntN(400)
		days := 2 + g.r.IntN(6)
		perDay := 3 + g.r.IntN(40)
		wrong := n + 1
		for wrong == perDay*days || wrong == days || wrong == perDay {
			wrong++
		}
		res := fmt.Sprintf(`{"lot": %q, "%ss": %d, "unit_price_pence": %d, "%ss_made": %d, "days": %d}`, row, thing, n, cents, thing, perDay*days, days)
		total := float64(n*cents) / 100
		cases := []struct {
			claim string
			want  func(events.Verdict) bool
		}{
			{fmt.Sprintf("Lot %s's %d %ss come to £%.2f in all.", row, n, thing, total), verdictIs(events.VerdictSupported)},
			{fmt.Sprintf("Lot %s's %d %ss come to £%.2f in all.", row, n, thing, total+float64(n)), verdictIs(events.VerdictUnsupported)},
			{fmt.Sprintf("Lot %s made %d %ss a day.", row, perDay, thing), verdictIs(events.VerdictSupported)},
			{fmt.Sprintf("Lot %s made %d %ss a day.", row, perDay+days+1, thing), verdictNot(events.VerdictContradicted)},
			{fmt.Sprintf("Lot %s holds %d %ss.", row, wrong, thing), verdictIs(events.VerdictContradicted)},
		}
		for _, tc := range cases {
			if got, why := checkOne(t, c, res, tc.claim, now); !tc.want(got) {
				t.Errorf("%q beside %s: %s (%s)", tc.claim, res, got, why)
			}
		}
	}
}

func verdictIs(v events.Verdict) func(events.Verdict) bool {
	return func(got events.Verdict) bool { return got == v }
}

func verdictNot(v events.Verdict) func(events.Verdict) bool {
	return func(got events.Verdict) bool { return got != v }
}
