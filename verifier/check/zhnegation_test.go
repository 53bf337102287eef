package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestChineseNegationOfFlagsAndStates: a Chinese claim's negation (不, 没,
// 未, 尚未, 并未, 从未, 不再, 还没) is read before its predicate is compared
// with a true/false field whose English key names the predicate (booked,
// used, vaccinated, fenced, record broken) or with a state field; in 不是
// A，而是 B the claim states B.
func TestChineseNegationOfFlagsAndStates(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		// a flag named in English, the predicate in Chinese
		{`{"旅行团": "T-9", "bus_booked": true}`, "T-9的大巴还没订好。", events.VerdictContradicted},
		{`{"旅行团": "T-9", "bus_booked": false}`, "T-9的大巴还没订好。", events.VerdictSupported},
		{`{"旅行团": "T-9", "bus_booked": false}`, "T-9的大巴已经订好了。", events.VerdictContradicted},
		{`{"会员": "M-3", "coupon_used": false}`, "M-3的优惠券还没用。", events.VerdictSupported},
		{`{"会员": "M-3", "coupon_used": false}`, "M-3的优惠券已经用了。", events.VerdictContradicted},
		{`{"猫": "米粒", "vaccinated": true}`, "米粒还没打疫苗。", events.VerdictContradicted},
		{`{"猫": "米粒", "vaccinated": false}`, "米粒还没打疫苗。", events.VerdictSupported},
		{`{"工地": "W-4", "site_fenced": false}`, "W-4工地已经围挡起来了。", events.VerdictContradicted},
		{`{"工地": "W-4", "site_fenced": true}`, "W-4工地已经围挡起来了。", events.VerdictSupported},
		{`{"赛事": "S-2", "record_broken": false}`, "S-2打破了纪录。", events.VerdictContradicted},
		{`{"赛事": "S-2", "record_broken": true}`, "S-2打破了纪录。", events.VerdictSupported},
		{`{"会员": "M-5", "birthday_coupon_used": false}`, "M-5的生日券还没用。", events.VerdictSupported},
		{`{"会员": "M-5", "birthday_coupon_used": true}`, "M-5的生日券还没用。", events.VerdictContradicted},
		{`{"会员": "M-5", "voucher_used": false}`, "M-5的代金券已经用掉了。", events.VerdictContradicted},
		// negation words before a state
		{`{"车次": "K-7", "status": "cancelled"}`, "K-7并未取消。", events.VerdictContradicted},
		{`{"车次": "K-7", "status": "scheduled"}`, "K-7并未取消。", events.VerdictSupported},
		{`{"设备": "D-1", "state": "running"}`, "D-1不再运行。", events.VerdictContradicted},
		{`{"设备": "D-1", "state": "stopped"}`, "D-1不再运行。", events.VerdictSupported},
		{`{"设备": "D-1", "state": "running"}`, "D-1从未停机。", events.VerdictSupported},
		// 不是 A，而是 B states B
		{`{"设备": "D-1", "state": "running"}`, "D-1不是停机，而是在运行。", events.VerdictSupported},
		{`{"设备": "D-1", "state": "stopped"}`, "D-1不是停机，而是在运行。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
