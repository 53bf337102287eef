package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestANegationAfterAStateWordIsNotItsNegation: a negation said after a
// status word negates what follows it ("in service with no open faults",
// 故障尚未修复), not the status: the status is compared as said. A
// negation before the status word still negates it.
func TestANegationAfterAStateWordIsNotItsNegation(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"units": [{"unit": "Kiln 2", "status": "running", "faults_open": 0}, {"unit": "Kiln 5", "status": "idle", "faults_open": 1}]}`, "Kiln 2 is running with no open faults.", events.VerdictSupported},
		{`{"units": [{"unit": "Kiln 2", "status": "running", "faults_open": 0}, {"unit": "Kiln 5", "status": "idle", "faults_open": 1}]}`, "Kiln 5 is running with no open faults.", events.VerdictContradicted},
		{`{"units": [{"unit": "Kiln 2", "status": "running", "faults_open": 0}, {"unit": "Kiln 5", "status": "idle", "faults_open": 1}]}`, "Kiln 5 is not running.", events.VerdictSupported},
		{`{"pump": "P-7", "state": "standby"}`, "P-7 is on standby and pumps no water.", events.VerdictSupported},
		{`{"pump": "P-7", "state": "running"}`, "P-7 is on standby and pumps no water.", events.VerdictContradicted},
		{`{"pump": "P-7", "state": "running"}`, "P-7 isn't on standby.", events.VerdictSupported},
		{`{"泵": "3号泵", "状态": "停机"}`, "3号泵已停机，没有人值守。", events.VerdictSupported},
		{`{"泵": "3号泵", "状态": "运行中"}`, "3号泵已停机，没有人值守。", events.VerdictContradicted},
		{`{"泵": "3号泵", "状态": "运行中"}`, "3号泵没有停机。", events.VerdictSupported},
		{`{"泵": "3号泵", "状态": "运行中"}`, "3号泵正在运行且没有漏水。", events.VerdictSupported},
		{`{"泵": "3号泵", "状态": "待机"}`, "3号泵正在运行且没有漏水。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
