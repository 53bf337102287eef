package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestTheDayAThingCameInIsNotTheDayItIsDue: a claim that a thing was
// taken in (received, 送来, 送检) is judged by the day it came in, not by
// the day it is due back, though the claim's words (送, 来) also name a
// delivery; the due day is still the one a claim about it is judged by.
// The answer is dated Sunday 1 March 2026 (wantVerdicts).
func TestTheDayAThingCameInIsNotTheDayItIsDue(t *testing.T) {
	bike := `{"job": {"bike": "Brompton C", "eta": "2026-03-03", "received": "2026-02-26", "labour_min": 90}}`
	lab := `{"samples": [{"id": "S-11", "eta": "2026-03-04", "received": "2026-02-24", "status": "testing"}, {"id": "S-12", "eta": "2026-03-06", "received": "2026-02-27", "status": "queued"}]}`
	wantVerdicts(t, []verdictCase{
		{bike, "The shop received the Brompton on 26 February.", events.VerdictSupported},
		{bike, "The shop received the Brompton on 25 February.", events.VerdictContradicted},
		{bike, "The Brompton is due back on 3 March.", events.VerdictSupported},
		{lab, "样品S-11是2月24日送检的。", events.VerdictSupported},
		{lab, "样品S-11是2月25日送检的。", events.VerdictContradicted},
		{lab, "样品S-12是2月27日送来的。", events.VerdictSupported},
		{lab, "样品S-12预计3月6日送到。", events.VerdictSupported},
	})
}

// TestADeadlineIsTheDueDateNotThePaymentDate: a claim of a deadline
// (deadline, 截止) binds a due field, though its other words (payment,
// 缴费) name the day a payment was made; the payment day is still the one
// a claim about it is judged by. The answer is dated Sunday 1 March 2026.
func TestADeadlineIsTheDueDateNotThePaymentDate(t *testing.T) {
	dues := `{"invoices": [{"no": "INV-3", "paid_on": "2026-02-20", "amount": 120}, {"no": "INV-4", "paid_on": null, "amount": 80}], "due": "2026-03-05"}`
	wantVerdicts(t, []verdictCase{
		{dues, "The payment deadline is 5 March.", events.VerdictSupported},
		{dues, "The payment deadline is 6 March.", events.VerdictContradicted},
		{dues, "缴费截止日是3月5日。", events.VerdictSupported},
		{dues, "缴费截止日是3月6日。", events.VerdictContradicted},
		{dues, "INV-3 was paid on 20 February.", events.VerdictSupported},
		{dues, "INV-3 was paid on 21 February.", events.VerdictContradicted},
	})
}
