package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestPartWholePairMembers: "A of B", "A against a quota of B", A（目标B）
// name a part and its whole. Neither member is contradicted by the
// field holding the other member's value; a member that differs from
// its own field still is.
func TestPartWholePairMembers(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	garage := `{"garage": "North", "bays_taken": 212, "bay_capacity": 260}`
	quota := `{"mailbox": "ops", "used_mb": 730, "quota_mb": 1024}`
	shifts := `{"drive": "Spring", "shifts_filled": 18, "shifts_goal": 25}`
	zhSeats := `{"自习室": "三楼", "已预约座位": 86, "座位总数": 96}`
	zhBoxes := `{"仓库": "东仓", "已装箱": 340, "计划装箱": 400}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{garage, "The North garage has 212 of its 260 bays taken.", events.VerdictSupported},
		{garage, "The North garage has 212 bays taken against a capacity of 260.", events.VerdictSupported},
		{quota, "The ops mailbox uses 730 MB of a 1024 MB quota.", events.VerdictSupported},
		{shifts, "The Spring drive has filled 18 shifts against a goal of 25.", events.VerdictSupported},
		{shifts, "The Spring drive filled 18 shifts out of 25.", events.VerdictSupported},
		{zhSeats, "三楼自习室96个座位已预约86个。", events.VerdictSupported},
		{zhBoxes, "东仓已装箱340箱（计划400箱）。", events.VerdictSupported},
		{`{"drive": {"volunteers": {"signed_up": 46, "target": 60}}}`, "The drive has signed up 46 volunteers of a target of 60.", events.VerdictSupported},
		{`{"ward": "C", "capacity": 30, "patients": 27}`, "Ward C has 27 patients against a capacity of 30.", events.VerdictSupported},
		{`{"press": "P2", "planned": 900, "sheets_printed": 845}`, "Press P2 printed 845 sheets against a plan of 900.", events.VerdictSupported},
		{`{"crate": "K1", "bottles": {"filled": 19, "slots": 24}}`, "Crate K1 has 19 of its 24 slots filled.", events.VerdictSupported},
		{`{"tank": "T3", "level_l": 410, "max_l": 500}`, "Tank T3 holds 410 litres against a 500 litre limit.", events.VerdictSupported},
		{`{"仓库": "东仓", "装箱": {"目标": 400, "完成": 340}}`, "东仓完成了340箱（目标400箱）。", events.VerdictSupported},
		{`{"presses": [{"press": "P1", "planned": 900, "printed": 845}, {"press": "P2", "planned": 700, "printed": 655}]}`, "Press P2 printed 655 sheets against a plan of 700.", events.VerdictSupported},
		{`{"huts": [{"hut": "Alpha", "beds": {"booked": 20, "total": 24}}, {"hut": "Beta", "beds": {"booked": 29, "total": 36}}]}`, "Beta has 29 of its 36 beds booked.", events.VerdictSupported},
		{`{"usage": {"used_gb": 14.2, "allowance_gb": 40}}`, "You have used about 14.2 GB of your 40 GB allowance.", events.VerdictSupported},
		{`{"event": "Epee", "capacity": 64, "entries": 61}`, "The Epee event has 61 entries against a capacity of 64.", events.VerdictSupported},
		// A wrong member is still wrong.
		{garage, "The North garage has 230 of its 260 bays taken.", events.VerdictContradicted},
		{zhBoxes, "东仓已装箱360箱（计划400箱）。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
