package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestANegationOfSomethingElseLeavesTheDate: a negation said of the date
// ("not on 20 February", 不是2月20日) contradicts a claim whose date the
// evidence holds; a negation of something else said on that day ("no
// defects were found on 20 February", "has not been serviced since 20
// February", 2月20日以后没有保养过) does not: the matching date is the day
// the claim is about, and what is negated is left to other checks. The answer is dated Sunday 1 March 2026 (wantVerdicts).
func TestANegationOfSomethingElseLeavesTheDate(t *testing.T) {
	lift := `{"lift": {"id": "L-2", "last_service": "2026-02-20", "defects": 0}}`
	zh := `{"电梯": {"编号": "L-2", "上次保养": "2026-02-20", "缺陷": 0}}`
	wantVerdicts(t, []verdictCase{
		{lift, "Lift L-2 was last serviced on 20 February.", events.VerdictSupported},
		{lift, "Lift L-2 was last serviced not on 20 February.", events.VerdictContradicted},
		{lift, "Lift L-2 has not been serviced since 20 February.", events.VerdictUnsupported},
		{zh, "L-2电梯上次保养不是2月20日。", events.VerdictContradicted},
		{zh, "L-2电梯上次保养是2月20日。", events.VerdictSupported},
		{zh, "L-2电梯2月20日以后没有保养过。", events.VerdictUnsupported},
	})
}
