package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestADateBindsTheFieldOfItsEvent: a claimed date is the day of the event
// the claim's words name (shipped, arrived, reduced, 播种, 到期), and binds
// the date field whose key names that event (words.txt's [event verbs]
// and [event keys]) before the other dates of its object: a day another
// event's field holds contradicts it. A claim saying two events ("the
// payment arrived") binds the fields of either, and one saying none is
// bound as before.
func TestADateBindsTheFieldOfItsEvent(t *testing.T) {
	crate := `{"crate": {"ref": "FL-88", "ordered_on": "2026-02-02", "dispatched_on": "2026-02-04", "received_on": "2026-02-07"}}`
	house := `{"listing": {"ref": "H-31", "listed_on": "2026-01-05", "reduced_on": "2026-02-20", "asking": 410000}}`
	seedlings := `{"批次": {"编号": "M-7", "播种日期": "2026-01-02", "采收日期": "2026-02-20"}}`
	permit := `{"permit": {"no": "QP-4471", "issued": "2026-01-10", "expires": "2026-03-03"}}`
	remit := `{"remittance": {"payer": "Orrin Mills", "paid_on": "2026-02-01", "received_on": "2026-02-03"}}`
	wantVerdicts(t, []verdictCase{
		{crate, "FL-88 was dispatched on February 4.", events.VerdictSupported},
		{crate, "FL-88 was dispatched on February 7.", events.VerdictContradicted},
		{crate, "FL-88 arrived on February 7.", events.VerdictSupported},
		{crate, "FL-88 arrived on February 4.", events.VerdictContradicted},
		{crate, "FL-88 was ordered on February 2.", events.VerdictSupported},
		{house, "H-31 was reduced on February 20.", events.VerdictSupported},
		{house, "H-31 was reduced on January 5.", events.VerdictContradicted},
		{house, "H-31 was listed on February 20.", events.VerdictContradicted},
		{seedlings, "M-7是1月2日播种的。", events.VerdictSupported},
		{seedlings, "M-7是2月20日播种的。", events.VerdictContradicted},
		{seedlings, "M-7在2月20日采收。", events.VerdictSupported},
		{permit, "Permit QP-4471 expires on March 3.", events.VerdictSupported},
		{permit, "Permit QP-4471 expires on January 10.", events.VerdictContradicted},
		{permit, "许可证QP-4471在1月10日到期。", events.VerdictContradicted},
		// two events said: the field of either may be the claim's
		{remit, "Orrin Mills's payment arrived on February 3.", events.VerdictSupported},
		{remit, "Orrin Mills's payment arrived on February 1.", events.VerdictSupported},
		{remit, "Orrin Mills's payment arrived on February 5.", events.VerdictContradicted},
	})
}
