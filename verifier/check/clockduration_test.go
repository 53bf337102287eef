package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestDurationWrittenAsAClock: a time said as h:mm:ss, m:ss with minutes
// no hour of the day has, or with a fraction of a second (1:02:05, 38:07,
// 1:23.412) is a duration in seconds, compared after conversion with a
// field in s or ms and exact to its last digit; a time of day (14:30)
// stays one.
func TestDurationWrittenAsAClock(t *testing.T) {
	riders := `{"riders":[{"rider":"Ilse Varga","time_s":3725,"climb_s":1460},{"rider":"Noor Haddad","time_s":3802,"climb_s":1391}]}`
	laps := `{"laps":[{"driver":"Kai Brandt","best_lap_ms":83412},{"driver":"Rui Sato","best_lap_ms":84020}]}`
	chips := `{"finishers":[{"name":"Ola Berg","chip_time_s":2287},{"name":"Ida Lund","chip_time_s":2410}]}`
	bus := `{"bus":"N4","departs":"14:30","updated":"2026-12-07T10:15:30Z"}`
	zh := `{"选手":[{"姓名":"林海","成绩_秒":3725},{"姓名":"周岚","成绩_秒":3802}]}`
	wantVerdicts(t, []verdictCase{
		{riders, "Ilse Varga's time was 1:02:05.", events.VerdictSupported},
		{riders, "Ilse Varga's time was 1:03:05.", events.VerdictContradicted},
		{riders, "Ilse Varga's time was 1:02:50.", events.VerdictContradicted}, // 45 s off: not within 1 %
		{laps, "Kai Brandt's best lap was 1:23.412.", events.VerdictSupported},
		{laps, "Kai Brandt's best lap was 1:24.412.", events.VerdictContradicted},
		{laps, "Rui Sato's best lap was 1:24.02.", events.VerdictSupported},
		{chips, "Ola Berg's chip time was 38:07.", events.VerdictSupported},
		{chips, "Ola Berg's chip time was 38:47.", events.VerdictContradicted},
		{bus, "It departs at 14:30.", events.VerdictSupported},
		{bus, "It departs at 15:30.", events.VerdictContradicted},
		{zh, "林海的成绩是1:02:05。", events.VerdictSupported},
		{zh, "林海的成绩是1:05:05。", events.VerdictContradicted},
		{zh, "周岚的成绩是63:22。", events.VerdictSupported},
	})
}

// TestBoundOfTheFieldItNames: a bound ("under 26 minutes", 不到26分钟) is
// checked against the field of the row whose key the claim names (the
// paddle: paddle_s, not total_s); a word every field's key shares ("took":
// a duration) names none of them, and a bound that fails for one of
// several fields the claim names none of and holds for another is
// unsupported, not contradicted (one that fails for all of them is).
func TestBoundOfTheFieldItNames(t *testing.T) {
	teams := `{"teams":[{"team":"Kestrel","paddle_s":1520,"carry_s":410,"total_s":1930},{"team":"Osprey","paddle_s":1610,"carry_s":380,"total_s":1990}]}`
	zh := `{"队伍":[{"队名":"红队","划船_秒":1520,"搬运_秒":410,"总计_秒":1930}]}`
	wantVerdicts(t, []verdictCase{
		{teams, "Kestrel's paddle took under 26 minutes.", events.VerdictSupported},
		{teams, "Kestrel's paddle took under 25 minutes.", events.VerdictContradicted},
		{teams, "Kestrel finished in under 30 minutes.", events.VerdictUnsupported},
		{teams, "Kestrel finished in under 5 minutes.", events.VerdictContradicted},
		{teams, "Osprey's carry took over 6 minutes.", events.VerdictSupported},
		{teams, "Osprey's carry took over 7 minutes.", events.VerdictContradicted},
		{zh, "红队划船用时不到26分钟。", events.VerdictSupported},
		{zh, "红队划船用时不到25分钟。", events.VerdictContradicted},
		{zh, "红队用时不到30分钟。", events.VerdictUnsupported},
		{zh, "红队用时不到5分钟。", events.VerdictContradicted},
	})
}
