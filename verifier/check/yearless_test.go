package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestADateWithNoYearMayBeTheYearGoneOrToCome: "20 July" said with no
// year may be the July gone or the July to come, whichever is nearer the
// answer's day; the evidence decides which, and a differing month or day
// still contradicts. A weekday beside it names the year it is. The answer
// is dated Sunday 1 March 2026 (wantVerdicts): 20 July 2025 is further
// back than 20 July 2026 is ahead, 14 October 2026 further ahead than 14
// October 2025 is back.
func TestADateWithNoYearMayBeTheYearGoneOrToCome(t *testing.T) {
	hives := `{"apiary": {"site": "North Meadow", "last_harvest": "2025-07-20", "hives": 12}}`
	kiln := `{"kiln": {"id": "K2", "next_firing": "2026-10-14", "cone": 6}}`
	orchard := `{"果园": {"名称": "东坡果园", "采收日期": "2025-08-09", "产量_kg": 840}}`
	expo := `{"展会": {"名称": "茶博会", "开幕日期": "2026-11-03", "展位": 320}}`
	wantVerdicts(t, []verdictCase{
		// the date gone, nearer as the date to come
		{hives, "North Meadow was last harvested on 20 July.", events.VerdictSupported},
		{hives, "North Meadow was last harvested on July 22.", events.VerdictContradicted},
		{orchard, "东坡果园是8月9日采收的。", events.VerdictSupported},
		{orchard, "东坡果园是8月11日采收的。", events.VerdictContradicted},
		// the date to come, nearer as the date gone
		{kiln, "Kiln K2's next firing is on October 14.", events.VerdictSupported},
		{kiln, "Kiln K2's next firing is on 16 October.", events.VerdictContradicted},
		{expo, "茶博会11月3日开幕。", events.VerdictSupported},
		{expo, "茶博会11月5日开幕。", events.VerdictContradicted},
		// a weekday names the year: Sunday 20 July is 2025's, Monday 20 July 2026's
		{hives, "North Meadow was last harvested on Sunday 20 July.", events.VerdictSupported},
		{hives, "North Meadow was last harvested on Monday 20 July.", events.VerdictContradicted},
		{expo, "茶博会11月3日周二开幕。", events.VerdictSupported},
		{expo, "茶博会11月3日周一开幕。", events.VerdictContradicted},
	})
}
