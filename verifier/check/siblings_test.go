package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestSiblingFieldsOfOneKindBindOnlyByName: an object with two or more
// fields of the claim's kind (two amounts, two dates, a date and a day
// count) binds the claim to one only when its words name that field's key
// better than every sibling's; else a value a sibling holds is supported
// when the claim names it and unsupported when not, and a value none holds
// is unsupported: never contradicted by a field the claim did not choose.
// A field the claim names alone still contradicts.
func TestSiblingFieldsOfOneKindBindOnlyByName(t *testing.T) {
	const acct = `{"member": "M-3", "deposit_fen": 3000000, "credit_limit_fen": 10000000, "spent_fen": 4521000}`
	const order = `{"order": "R-12", "subtotal_cents": 40000, "tax_cents": 8000, "total_cents": 48000}`
	const kiln = `{"kilns": [{"kiln": "K1", "initial_temp": 1240, "temp": 980}, {"kiln": "K2", "firing_start_temp": 1180, "now_temp": 870}]}`
	const petition = `{"case_no": "K-9", "petition": {"petition_due": "2026-04-10", "petition_filed": "2026-04-08"}}`
	const tender = `{"tender": "T-1", "bid_deadline": "2026-05-01T10:00:00+08:00", "duration_days": 60}`
	wantVerdicts(t, []verdictCase{
		// named by no word of either key: a sibling's value is no contradiction
		{acct, "信用额度为10万元。", events.VerdictUnsupported},
		{acct, "账户里有10万元。", events.VerdictUnsupported},
		{acct, "The line of credit is ¥100,000.", events.VerdictSupported},
		// a key the claim names wholly still decides
		{acct, "押金为3万元。", events.VerdictSupported},
		{acct, "押金为5万元。", events.VerdictContradicted},
		{acct, "The deposit is ¥50,000.", events.VerdictContradicted},
		// a component named after "including" is not what the number is
		{order, "Order R-12 comes to $480 including tax.", events.VerdictSupported},
		{order, "Tax adds $80.", events.VerdictSupported},
		{order, "Tax adds $90.", events.VerdictContradicted},
		{order, "The total is $490.", events.VerdictContradicted},
		// a qualifier opposite to the key's: "initial" is not the current value
		{kiln, "K2 is at 870 now; its starting temp was 1180.", events.VerdictSupported},
		{`{"kilns": [{"kiln": "K2", "current_temp_c": 870, "sp": 1180}]}`, "K2 started at an initial temperature of 1180 °C.", events.VerdictUnsupported},
		{`{"kilns": [{"kiln": "K2", "current_temp_c": 870, "sp": 1180}]}`, "K2 is currently at 880 °C.", events.VerdictContradicted},
		{`{"窑": [{"编号": "K2", "当前温度": 870, "sp": 1180}]}`, "K2的初始温度是1180度。", events.VerdictUnsupported},
		// a date beside a sibling date of the other side (filed, not due)
		{petition, "The petitioner filed the petition on 8 April.", events.VerdictSupported},
		{petition, "The petitioner filed the petition on 8 April, two days early.", events.VerdictSupported},
		{petition, "The petition was due on 10 April.", events.VerdictSupported},
		{petition, "The petition was due on 12 April.", events.VerdictContradicted},
		// a deadline beside a duration field of the same object
		{tender, "投标截止时间是5月1日上午10点。", events.VerdictSupported},
		{tender, "The bid deadline is May 1 at 10 am.", events.VerdictSupported},
	})
}
