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
