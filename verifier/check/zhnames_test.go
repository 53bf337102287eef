package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestAChineseNameSaidWithoutItsPlaceBindsItsRow: a Chinese name said
// without its first two ideographs (兰亭书社 of 绍兴兰亭书社) names its row
// when no other shares the rest; what is cut holding a numeral (二号) is
// another row's name, not a shorter form.
func TestAChineseNameSaidWithoutItsPlaceBindsItsRow(t *testing.T) {
	loans := `{"借用": [{"单位": "嘉兴南湖书院", "状态": "已批准"}, {"单位": "绍兴兰亭书社", "状态": "待审"}]}`
	named := `{"单位": [{"name": "嘉兴南湖书院", "座位": 48}, {"name": "绍兴兰亭书社", "座位": 30}]}`
	wantVerdicts(t, []verdictCase{
		{loans, "南湖书院的申请已获批准。", events.VerdictSupported},
		{loans, "兰亭书社的申请已获批准。", events.VerdictContradicted},
		{named, "兰亭书社有30个座位。", events.VerdictSupported},
		{named, "兰亭书社有48个座位。", events.VerdictContradicted},
	})
}
