package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestStatusWordsOfMoreClasses: a claim's state word and a field's enum
// value are related through classes of state that no earlier rule read —
// an outcome of a check (pass, fail), the health of a part (working
// normally, faulty), a graded condition (excellent to poor), whether work
// has started, a pledge redeemed or forfeited, the wind's direction to a
// course, and Chinese short forms of approval (已批, 未批) — in English
// and Chinese: another value of the class contradicts, the same value
// supports, and a negation is read before comparing.
func TestStatusWordsOfMoreClasses(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		// outcome of a check
		{`{"kiln": "K-2", "inspection": "pass"}`, "Kiln K-2 failed inspection.", events.VerdictContradicted},
		{`{"kiln": "K-2", "inspection": "pass"}`, "Kiln K-2 passed inspection.", events.VerdictSupported},
		{`{"units": [{"tag": "Q-1", "result": "fail"}, {"tag": "Q-2", "result": "pass"}]}`, "Q-1 passed its check.", events.VerdictContradicted},
		{`{"units": [{"tag": "Q-1", "result": "fail"}, {"tag": "Q-2", "result": "pass"}]}`, "Q-2 passed its check.", events.VerdictSupported},
		// health of a part
		{`{"beacon": "B-7", "horn": "faulty"}`, "The horn on beacon B-7 is working normally.", events.VerdictContradicted},
		{`{"beacon": "B-7", "horn": "functioning"}`, "The horn on beacon B-7 is faulty.", events.VerdictContradicted},
		{`{"beacon": "B-7", "horn": "functioning"}`, "The horn on beacon B-7 is working normally.", events.VerdictSupported},
		{`{"设备": "水泵2号", "状态": "损坏"}`, "水泵2号工作正常。", events.VerdictContradicted},
		{`{"设备": "水泵2号", "状态": "工作正常"}`, "水泵2号已经损坏。", events.VerdictContradicted},
		// a graded condition
		{`{"lot": "Vase 12", "condition": "fair"}`, "Vase 12 is in excellent condition.", events.VerdictContradicted},
		{`{"lot": "Vase 12", "condition": "excellent"}`, "Vase 12 is in excellent condition.", events.VerdictSupported},
		{`{"lot": "Vase 12", "grade": "poor"}`, "Vase 12 was graded good.", events.VerdictContradicted},
		{`{"藏品": "青花瓶", "品相": "较差"}`, "青花瓶品相极好。", events.VerdictContradicted},
		{`{"藏品": "青花瓶", "品相": "良好"}`, "青花瓶品相良好。", events.VerdictSupported},
		// whether work has started
		{`{"jobs": [{"name": "Mural", "status": "not started"}, {"name": "Fresco", "status": "in progress"}]}`, "Work on the Mural has started.", events.VerdictContradicted},
		{`{"jobs": [{"name": "Mural", "status": "not started"}, {"name": "Fresco", "status": "in progress"}]}`, "Work on the Fresco is underway.", events.VerdictSupported},
		{`{"jobs": [{"name": "Mural", "status": "not started"}, {"name": "Fresco", "status": "in progress"}]}`, "The Fresco has not started yet.", events.VerdictContradicted},
		{`{"工程": [{"名称": "东墙", "状态": "未开工"}, {"名称": "西墙", "状态": "进行中"}]}`, "东墙已经开工了。", events.VerdictContradicted},
		{`{"工程": [{"名称": "东墙", "状态": "未开工"}, {"名称": "西墙", "状态": "进行中"}]}`, "西墙还没开始。", events.VerdictContradicted},
		// a pledge redeemed or forfeited
		{`{"pledges": [{"item": "Brass sextant", "status": "forfeited"}, {"item": "Silver flute", "status": "redeemed"}]}`, "The brass sextant was redeemed.", events.VerdictContradicted},
		{`{"pledges": [{"item": "Brass sextant", "status": "forfeited"}, {"item": "Silver flute", "status": "redeemed"}]}`, "The silver flute was redeemed.", events.VerdictSupported},
		{`{"当票": [{"物品": "银壶", "状态": "绝当"}, {"物品": "铜镜", "状态": "已赎回"}]}`, "银壶已经赎回了。", events.VerdictContradicted},
		// the wind to a course
		{`{"race": "R-3", "wind": "headwind"}`, "Race R-3 was run with a tailwind.", events.VerdictContradicted},
		{`{"赛程": "第二轮", "风向": "顺风"}`, "第二轮是逆风。", events.VerdictContradicted},
		{`{"赛程": "第二轮", "风向": "顺风"}`, "第二轮是顺风。", events.VerdictSupported},
		// Chinese short forms of approval
		{`{"申请": [{"编号": "A-1", "审批": "未批"}, {"编号": "A-2", "审批": "已批"}]}`, "A-1已获批准。", events.VerdictContradicted},
		{`{"申请": [{"编号": "A-1", "审批": "未批"}, {"编号": "A-2", "审批": "已批"}]}`, "A-2已获批准。", events.VerdictSupported},
		// operating normally is the health of a part as well as its operation
		{`{"unit": "PV-2", "status": "fault"}`, "Unit PV-2 is operating normally.", events.VerdictContradicted},
		{`{"unit": "PV-2", "status": "running"}`, "Unit PV-2 is operating normally.", events.VerdictSupported},
		{`{"设备": "PV-2", "状态": "故障"}`, "PV-2正常运行。", events.VerdictContradicted},
		// pending is not ready; under contract is not available
		{`{"sample": "S-4", "status": "pending"}`, "The results for S-4 are ready.", events.VerdictContradicted},
		{`{"sample": "S-4", "status": "ready"}`, "The results for S-4 are ready.", events.VerdictSupported},
		{`{"unit": "Loft 5", "status": "under_contract"}`, "Loft 5 is still available.", events.VerdictContradicted},
		// enrollment
		{`{"member": "Ada K.", "enrollment_status": "enrolled"}`, "Ada K. has withdrawn.", events.VerdictContradicted},
		{`{"member": "Ada K.", "enrollment_status": "withdrawn"}`, "Ada K. has withdrawn.", events.VerdictSupported},
		{`{"学员": "小周", "状态": "在读"}`, "小周已经退课了。", events.VerdictContradicted},
		// a count before the state word says how many, a time says when
		{`{"build": "B-12", "status": "failed", "tests_passed": 412}`, "412 tests passed.", events.VerdictSupported},
		{`{"build": "B-12", "status": "failed", "tests_passed": 412}`, "Build B-12 passed.", events.VerdictContradicted},
		{`{"pieces": [{"title": "Ave", "status": "not started"}], "rehearsal_start": "18:30"}`, "The rehearsal started at 6:30 pm.", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestPayingAndBookingAreStatesOfTheirClass: the plain Chinese verbs of
// paying (交了, 缴纳) state settlement, as 已支付 does, and being booked
// (booked, reserved, 被订) or free to book (空闲, 空着) states
// availability, so a negation is read before the flag or the enum is
// compared, in English and Chinese.
func TestPayingAndBookingAreStatesOfTheirClass(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"户号": "A-17", "paid": false}`, "A-17的水费已经交了。", events.VerdictContradicted},
		{`{"户号": "A-17", "paid": false}`, "A-17的水费还没有缴纳。", events.VerdictSupported},
		{`{"户号": "A-17", "paid": true}`, "A-17的水费已经缴纳。", events.VerdictSupported},
		{`{"户号": "A-17", "paid": true}`, "A-17的水费还没交。", events.VerdictContradicted},
		{`{"rooms": [{"room": "琴房3", "status": "空闲"}, {"room": "琴房4", "status": "已预订"}]}`, "琴房3已经被订了。", events.VerdictContradicted},
		{`{"rooms": [{"room": "琴房3", "status": "空闲"}, {"room": "琴房4", "status": "已预订"}]}`, "琴房3还空着。", events.VerdictSupported},
		{`{"rooms": [{"room": "Studio 3", "status": "vacant"}, {"room": "Studio 4", "status": "reserved"}]}`, "Studio 3 is reserved.", events.VerdictContradicted},
		{`{"rooms": [{"room": "Studio 3", "status": "vacant"}, {"room": "Studio 4", "status": "reserved"}]}`, "Studio 4 is available.", events.VerdictContradicted},
		{`{"rooms": [{"room": "Studio 3", "status": "vacant"}, {"room": "Studio 4", "status": "reserved"}]}`, "Studio 4 is not available.", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestPlainChineseWordsOfApprovalAndDoneWork: 通过 (approved, as
// 已通过) and the done forms of work said by its result (修好, 办好, 做好:
// completed, as 已完成) are states of their class, so 没有通过 and 还没修好
// are read as negations before the flag or the enum is compared.
func TestPlainChineseWordsOfApprovalAndDoneWork(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"申请": [{"人": "孙女士", "approved": true}, {"人": "钱先生", "approved": false}]}`, "孙女士的申请没有通过。", events.VerdictContradicted},
		{`{"申请": [{"人": "孙女士", "approved": true}, {"人": "钱先生", "approved": false}]}`, "钱先生的申请没有通过。", events.VerdictSupported},
		{`{"申请": [{"人": "孙女士", "approved": true}, {"人": "钱先生", "approved": false}]}`, "孙女士的申请通过了。", events.VerdictSupported},
		{`{"工单": [{"物品": "台灯", "状态": "已完成"}, {"物品": "收音机", "状态": "待处理"}]}`, "台灯还没修好。", events.VerdictContradicted},
		{`{"工单": [{"物品": "台灯", "状态": "已完成"}, {"物品": "收音机", "状态": "待处理"}]}`, "台灯已经修好了。", events.VerdictSupported},
		{`{"业务": [{"名称": "过户", "状态": "已完成"}]}`, "过户还没办好。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestAStateOfValidityIsReadFromAnEndDate: with no field stating whether
// a thing is valid, a day named by an end date key (expires, 到期日) does:
// past, the thing has lapsed; today or later, it has not. The negation is
// read before comparing; a date of no end (joined) says nothing.
func TestAStateOfValidityIsReadFromAnEndDate(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	members := `{"members": [{"name": "Ana", "expires": "2027-06-30"}, {"name": "Ben", "expires": "2026-11-30"}]}`
	zh := `{"会员": [{"姓名": "李梅", "到期日": "2027-06-30"}, {"姓名": "王强", "到期日": "2026-11-30"}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{members, "Ben's card is still valid.", events.VerdictContradicted},
		{members, "Ben's card has expired.", events.VerdictSupported},
		{members, "Ana's card is still valid.", events.VerdictSupported},
		{members, "Ana's card has expired.", events.VerdictContradicted},
		{members, "Ana's card has not expired.", events.VerdictSupported},
		{zh, "王强的会员卡还在有效期内。", events.VerdictContradicted},
		{zh, "王强的会员卡已经过期了。", events.VerdictSupported},
		{zh, "李梅的会员卡已经过期了。", events.VerdictContradicted},
		{`{"members": [{"name": "Ana", "joined": "2025-06-30"}]}`, "Ana's card has expired.", events.VerdictUnsupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestWordsOfAStateInAnotherSense: 通过 before what a thing goes through
// (通过银行转账, 通过隧道: "via, through") states no approval; only 通过了 and
// its negations (没有通过, 还没通过) do, in English and Chinese.
func TestWordsOfAStateInAnotherSense(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"申请": [{"人": "孙女士", "approved": false, "渠道": "银行转账"}]}`, "孙女士的申请是通过银行转账提交的。", events.VerdictSupported},
		{`{"退款": [{"订单": "A17", "approved": false, "方式": "支付宝"}]}`, "A17的退款会通过支付宝退回。", events.VerdictSupported},
		{`{"路线": [{"名称": "环线", "经过": "隧道", "approved": false}]}`, "环线通过隧道。", events.VerdictSupported},
		{`{"application": {"approved": false, "channel": "post"}}`, "The application went through the post.", events.VerdictSupported},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
