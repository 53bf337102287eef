package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestANegationCharacterInsideANounNegatesNothing: 非 of 非洲 (Africa) or
// 无 of 无人机 (a drone) is no negation, and a test's finding (阴性,
// 阳性, 未检出) is a state of its own.
func TestANegationCharacterInsideANounNegatesNothing(t *testing.T) {
	lab := `{"检测": {"样品": "S-12", "项目": "非洲马瘟", "结果": "阴性"}}`
	drone := `{"巡检": {"编号": "XJ-3", "无人机": "已返航", "结果": "阳性"}}`
	wantVerdicts(t, []verdictCase{
		{lab, "非洲马瘟检测结果为阴性。", events.VerdictSupported},
		{lab, "非洲马瘟检测结果为阳性。", events.VerdictContradicted},
		{lab, "S-12未检出非洲马瘟。", events.VerdictSupported},
		{drone, "XJ-3无人机巡检结果为阳性。", events.VerdictSupported},
		{drone, "XJ-3无人机巡检结果为阴性。", events.VerdictContradicted},
	})
}
