package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestStateWordsAreReadThroughTheirClass: a claim's state word and a
// field's enum value or flag are related through the lexicon's classes
// (operation, activation, validity, inclusion, compliance, plan, schedule),
// in English and Chinese alike: another value of the class contradicts,
// the same value or a synonym supports, and a negation is read before
// comparing. A key asking whether (是否达标) states no negation.
func TestStateWordsAreReadThroughTheirClass(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		// operation: idle, standby, in service
		{`{"unit": "Press 4", "state": "idle"}`, "Press 4 is running.", events.VerdictContradicted},
		{`{"unit": "Press 4", "state": "idle"}`, "Press 4 is stopped.", events.VerdictSupported},
		{`{"unit": "Press 4", "state": "idle"}`, "Press 4 is not running.", events.VerdictSupported},
		{`{"unit": "Press 4", "mode": "standby"}`, "Press 4 is in service.", events.VerdictContradicted},
		{`{"unit": "Press 4", "state": "operational"}`, "Press 4 is in service.", events.VerdictSupported},
		{`{"unit": "Press 4", "state": "running"}`, "Press 4 is idle.", events.VerdictContradicted},
		{`{"机组": "3号机组", "状态": "待机"}`, "3号机组正在运转。", events.VerdictContradicted},
		{`{"机组": "3号机组", "state": "idle"}`, "3号机组正在运行。", events.VerdictContradicted},
		{`{"机组": "3号机组", "state": "running"}`, "3号机组处于闲置状态。", events.VerdictContradicted},
		// activation: suspended
		{`{"licence": "L-20", "status": "suspended"}`, "Licence L-20 is active.", events.VerdictContradicted},
		{`{"licence": "L-20", "status": "suspended"}`, "Licence L-20 is suspended.", events.VerdictSupported},
		{`{"会员": "K-5", "status": "active"}`, "会员K-5已暂停。", events.VerdictContradicted},
		{`{"会员": "K-5", "status": "paused"}`, "会员K-5已暂停。", events.VerdictSupported},
		// validity
		{`{"voucher": "V-8", "status": "expired"}`, "Voucher V-8 is still valid.", events.VerdictContradicted},
		{`{"voucher": "V-8", "status": "valid"}`, "Voucher V-8 has expired.", events.VerdictContradicted},
		{`{"vouchers": [{"code": "V-8", "valid": true}, {"code": "V-9", "valid": false}]}`, "Voucher V-8 has expired.", events.VerdictContradicted},
		{`{"vouchers": [{"code": "V-8", "valid": true}, {"code": "V-9", "valid": false}]}`, "Voucher V-9 has expired.", events.VerdictSupported},
		{`{"凭证": "V-8", "status": "expired"}`, "凭证V-8仍然有效。", events.VerdictContradicted},
		{`{"凭证": "V-8", "valid": false}`, "凭证V-8已过期。", events.VerdictSupported},
		// inclusion
		{`{"tier": "Lite", "backups": "excluded"}`, "Backups are included in the Lite tier.", events.VerdictContradicted},
		{`{"tier": "Lite", "backups": "included"}`, "Backups are excluded from the Lite tier.", events.VerdictContradicted},
		{`{"tier": "Lite", "backups": "included"}`, "Backups are included in the Lite tier.", events.VerdictSupported},
		// compliance
		{`{"batch": "B-2", "result": "超标"}`, "B-2批次达标。", events.VerdictContradicted},
		{`{"batch": "B-2", "result": "合格"}`, "B-2批次不合格。", events.VerdictContradicted},
		{`{"batch": "B-2", "result": "合格"}`, "B-2批次达标。", events.VerdictSupported},
		{`{"batch": "B-2", "result": "noncompliant"}`, "Batch B-2 is compliant.", events.VerdictContradicted},
		{`{"批次": "B-2", "是否达标": true}`, "B-2批次达标。", events.VerdictSupported},
		{`{"批次": "B-2", "是否达标": false}`, "B-2批次达标。", events.VerdictContradicted},
		// plan and schedule
		{`{"stops": [{"date": "2026-02-03", "kind": "planned"}, {"date": "2026-02-10", "kind": "forced"}]}`, "The first stop was forced.", events.VerdictContradicted},
		{`{"stops": [{"date": "2026-02-03", "kind": "planned"}, {"date": "2026-02-10", "kind": "forced"}]}`, "The stop on February 10 was unplanned.", events.VerdictSupported},
		{`{"talks": [{"title": "Night Sky", "status": "cancelled"}, {"title": "Tide Pools", "status": "scheduled"}]}`, "Tide Pools was called off.", events.VerdictContradicted},
		{`{"talks": [{"title": "Night Sky", "status": "cancelled"}, {"title": "Tide Pools", "status": "scheduled"}]}`, "Night Sky was called off.", events.VerdictSupported},
		{`{"talks": [{"title": "Night Sky", "status": "cancelled"}, {"title": "Tide Pools", "status": "scheduled"}]}`, "Tide Pools was cancelled.", events.VerdictContradicted},
		{`{"讲座": [{"名称": "星空", "状态": "已取消"}, {"名称": "潮汐", "状态": "照常举行"}]}`, "潮汐讲座已取消。", events.VerdictContradicted},
		{`{"讲座": [{"名称": "星空", "状态": "已取消"}, {"名称": "潮汐", "状态": "延期"}]}`, "潮汐讲座如期举行。", events.VerdictContradicted},
		// an alarm is an alert: a negated claim is true by false or an empty list
		{`{"设备": "D-3", "alarm": false}`, "设备D-3没有告警。", events.VerdictSupported},
		{`{"设备": "D-3", "alarm": true}`, "设备D-3没有告警。", events.VerdictContradicted},
		{`{"设备": "D-3", "alarms": []}`, "设备D-3没有报警。", events.VerdictSupported},
		{`{"rack": "R-1", "alarms": ["fan"]}`, "There are no alarms on rack R-1.", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
