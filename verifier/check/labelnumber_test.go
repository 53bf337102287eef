package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestANumberThatLabelsAThingIsNoMeasureOfIt: a number written after a
// word whose field holds it ("Lot 14", "Line 4", "floor 2") names a thing;
// the word is that thing's name, not what the claim's other numbers
// measure, whether or not the claim names the thing's row otherwise. A
// wrong measure beside a label is still contradicted by its own field.
func TestANumberThatLabelsAThingIsNoMeasureOfIt(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	pens := `{"pens": [{"pen": 7, "breed": "Texel ewes", "head": 9}, {"pen": 8, "breed": "Suffolk rams", "head": 3}]}`
	kilns := `{"site": "North", "kilns": [{"kiln": 3, "ware": "stoneware jugs", "pieces": 140, "peak_c": 1280}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		// the row is named by its own words as well as by its label
		{pens, "Pen 7 held nine Texel ewes.", events.VerdictSupported},
		{pens, "Pen 8 held three Suffolk rams.", events.VerdictSupported},
		// one row: no other row to pick, the word still names the label
		{kilns, "Kiln 3 was packed with 140 stoneware jugs.", events.VerdictSupported},
		{`{"lines": [{"line": 4, "output": 220}]}`, "Line 4 made 220 units.", events.VerdictSupported},
		{`{"池": [{"池号": 5, "产量_kg": 80}]}`, "5号池产了80公斤。", events.VerdictSupported},
		// a wrong measure is still wrong
		{pens, "Pen 8 held five head of Suffolk rams.", events.VerdictContradicted},
		{`{"lines": [{"line": 4, "output": 220}]}`, "Line 4's output was 250.", events.VerdictContradicted},
		{`{"池": [{"池号": 5, "产量_kg": 80}, {"池号": 6, "产量_kg": 95}]}`, "6号池产量为80公斤。", events.VerdictContradicted},
		{kilns, "Kiln 3 peaked at 1,250 °C.", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
