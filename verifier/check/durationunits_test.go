package check

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestDurationInAnotherUnit: a duration claimed in minutes is compared
// with a field kept in seconds (duration_s, 耗时_秒: s and 秒 are key units)
// after conversion, with the tolerance the claim's words state ("about
// 12 minutes" is 11.5-12.5 min, so 734 s is it and 790 s is not), and
// "took" names the duration, not the run's number beside it. A rate
// (词/秒, tokens/s) is not a duration.
func TestDurationInAnotherUnit(t *testing.T) {
	c := NewChecker(CheckerConfig{})
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	run := `{"run":4812,"status":"failed","duration_s":734}`
	build := `{"构建号":1207,"状态":"失败","耗时_秒":412}`
	for _, tc := range []struct {
		answer, result string
		want           events.Verdict
	}{
		{"The run took about 12 minutes.", run, events.VerdictSupported},
		{"The run took 12.2 minutes.", run, events.VerdictSupported},
		{"The run took 734 seconds.", run, events.VerdictSupported},
		{"The run took about 20 minutes.", run, events.VerdictContradicted},
		{"The run took about 12 minutes.", `{"run":4812,"duration_s":790}`, events.VerdictContradicted},
		{"耗时约7分钟。", build, events.VerdictSupported},
		{"耗时412秒。", build, events.VerdictSupported},
		{"耗时约10分钟。", build, events.VerdictContradicted},
		{"推理速度为每秒 45 个词。", `{"推理速度(词/秒)":45}`, events.VerdictSupported},
		{"It generates 45 tokens per second.", `{"speed (tokens/s)":45}`, events.VerdictSupported},
	} {
		r := c.Check(tc.answer, []evidence.Evidence{{CallID: "c1", Name: "t", Version: 1, Result: json.RawMessage(tc.result)}}, now)
		if len(r.Claims) != 1 || r.Claims[0].Verdict != tc.want {
			t.Errorf("%s beside %s: got %+v, want one claim %s", tc.answer, tc.result, r.Claims, tc.want)
		}
	}
}
