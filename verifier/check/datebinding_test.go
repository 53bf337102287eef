package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestADateBindsOnlyAFieldItNames: a claimed date is compared with a date
// field whose key the claim's words name, or with the only date field of
// what it is about. A date field the claim names outside its subject is
// the one it is about, and a field the claim names that is null holds no
// date to contradict it with.
func TestADateBindsOnlyAFieldItNames(t *testing.T) {
	order := `{"order": {"id": "A-17", "ordered_at": "2026-05-01", "shipped_at": "2026-05-03"}}`
	one := `{"order": {"id": "A-17", "ordered_at": "2026-05-01", "total": 40}}`
	zh := `{"订单": {"编号": "A-17", "下单日期": "2026-05-01", "付款日期": "2026-05-02"}}`
	pet := `{"patient": {"name": "Biscuit", "dob": "2019-06-02"}, "visit": {"date": "2026-03-11", "weight_kg": 18.6}}`
	next := `{"account": "Bean Cafe", "last_delivery": "2026-05-29", "next_delivery": null}`
	wantVerdicts(t, []verdictCase{
		// the field the claim names
		{order, "The order shipped on May 3, 2026.", events.VerdictSupported},
		{order, "The order shipped on May 4, 2026.", events.VerdictContradicted},
		{zh, "付款日期是5月2日。", events.VerdictSupported},
		{zh, "付款日期是5月5日。", events.VerdictContradicted},
		// the only date field of the object
		{one, "Order A-17 is dated May 1, 2026.", events.VerdictSupported},
		{one, "Order A-17 is dated May 6, 2026.", events.VerdictContradicted},
		// a date the claim names outside its subject's object
		{pet, "Biscuit was seen at the visit on March 11, 2026.", events.VerdictSupported},
		{pet, "Biscuit was seen at the visit on March 12, 2026.", events.VerdictContradicted},
		// the field the claim names is null
		{next, "The next delivery is booked for June 5, 2026.", events.VerdictUnsupported},
		{next, "The last delivery was on May 29, 2026.", events.VerdictSupported},
		{next, "The last delivery was on May 27, 2026.", events.VerdictContradicted},
	})
}

// TestAWeekdayMeansTheDayItNames: a weekday is read with the words that
// place it (last Wednesday, 上周三, Monday of last week), a weekday alone
// may be the one just gone, and a weekday beside a date names that date's
// day. The answer is dated Sunday 1 March 2026 (wantVerdicts).
func TestAWeekdayMeansTheDayItNames(t *testing.T) {
	boiler := `{"boiler": {"serial": "K-88", "serviced_on": "2026-02-25"}}`
	lastWeek := `{"boiler": {"serial": "K-88", "serviced_on": "2026-02-16"}}`
	zh := `{"锅炉": {"编号": "K-88", "检修日期": "2026-02-18"}}`
	fair := `{"fair": {"title": "Seed Swap", "date": "2026-03-14"}}`
	zhFair := `{"集市": {"名称": "换种集市", "日期": "2026-03-14"}}`
	visit := `{"member": "Ola Brandt", "last_visit": "2026-02-22"}`
	wantVerdicts(t, []verdictCase{
		{boiler, "The boiler was serviced last Wednesday.", events.VerdictSupported},
		{boiler, "The boiler was serviced on Wednesday.", events.VerdictSupported},
		{boiler, "The boiler was serviced last Thursday.", events.VerdictContradicted},
		{lastWeek, "The boiler was serviced on Monday of last week.", events.VerdictSupported},
		{zh, "锅炉上周三检修过。", events.VerdictSupported},
		{zh, "锅炉上周五检修过。", events.VerdictContradicted},
		{fair, "The Seed Swap is on Saturday 14 March.", events.VerdictSupported},
		{fair, "The Seed Swap is on Saturday 21 March.", events.VerdictContradicted},
		{zhFair, "换种集市在3月14日周六举行。", events.VerdictSupported},
		{visit, "Ola Brandt's last visit was last weekend.", events.VerdictSupported},
		{visit, "Ola Brandt的上次到访是上周末。", events.VerdictSupported},
	})
}
