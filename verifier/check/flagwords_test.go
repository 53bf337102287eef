package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestChineseWordsMeetEnglishFlagKeys: a true/false field whose English key
// names a state any tool may hold (fixed, renewed, reached, genuine, rush,
// published, claimed, checked_in) is met by the Chinese words of that state
// (修好, 续费, 达成, 原装, 加急, 发布, 认领, 签到), the negation read before
// comparing; English claims of the same keys keep their reading.
func TestChineseWordsMeetEnglishFlagKeys(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"船": "渔舟7号", "checks": [{"part": "船舵", "fixed": true}, {"part": "水泵", "fixed": false}]}`, "水泵还没修好。", events.VerdictSupported},
		{`{"船": "渔舟7号", "checks": [{"part": "船舵", "fixed": true}, {"part": "水泵", "fixed": false}]}`, "水泵已经修复了。", events.VerdictContradicted},
		{`{"船": "渔舟7号", "checks": [{"part": "船舵", "fixed": true}, {"part": "水泵", "fixed": false}]}`, "船舵已修复。", events.VerdictSupported},
		{`{"租户": "林女士", "lease": {"ends": "2026-08-31", "renewed": false}}`, "林女士的租约已经续好了。", events.VerdictContradicted},
		{`{"租户": "林女士", "lease": {"ends": "2026-08-31", "renewed": false}}`, "林女士还没续约。", events.VerdictSupported},
		{`{"会员": "K-20", "auto_renew": true}`, "K-20没有开通自动续费。", events.VerdictContradicted},
		{`{"门店": "南门店", "monthly_target_reached": false}`, "南门店本月目标已经达成。", events.VerdictContradicted},
		{`{"门店": "南门店", "monthly_target_reached": false}`, "南门店本月目标没有达成。", events.VerdictSupported},
		{`{"配件": [{"name": "镜头", "genuine": false}]}`, "镜头是原装的。", events.VerdictContradicted},
		{`{"配件": [{"name": "镜头", "genuine": false}]}`, "镜头不是原装的。", events.VerdictSupported},
		{`{"洗衣单": "L-31", "rush": true}`, "L-31不是加急单。", events.VerdictContradicted},
		{`{"公告": "停水通知", "published": false}`, "停水通知已经发布了。", events.VerdictContradicted},
		{`{"失物": "黑色雨伞", "claimed": true}`, "黑色雨伞还没人认领。", events.VerdictContradicted},
		{`{"学员": [{"name": "周宁", "checked_in": false}]}`, "周宁已经签到了。", events.VerdictContradicted},
		{`{"学员": [{"name": "周宁", "checked_in": false}]}`, "周宁还没有签到。", events.VerdictSupported},
		// English keeps its reading
		{`{"boat": "Skylark", "checks": [{"part": "rudder", "fixed": false}]}`, "The rudder has been fixed.", events.VerdictContradicted},
		{`{"tenant": "Ms Lin", "lease": {"renewed": true}}`, "Ms Lin's lease has been renewed.", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
