package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestAnOrdinalBindsTheRowItNames: an ordinal before the noun of an
// array's rows — "the fourth week", "the 2nd batch", 第四周, 第2季度,
// 三号仓 — picks the row whose own field of that noun holds its number
// (week: 4, whatever its position), or, when the rows carry no such
// number and the array is named by the noun, the row at that position. A
// claim right about that row is supported, one wrong about it is
// contradicted; an ordinal that names no row leaves the claim unbound:
// unsupported, never contradicted. An ordinal that is a row's value
// ("first class") names that row as a subject, not the first position.
func TestAnOrdinalBindsTheRowItNames(t *testing.T) {
	// Weeks 3 to 6: week 4 is the second row, so a position would be wrong.
	weeks := `{"weeks": [{"week": 3, "orders": 120}, {"week": 4, "orders": 88}, {"week": 5, "orders": 143}, {"week": 6, "orders": 101}]}`
	// Batches carry no number: their position picks them.
	batches := `{"batches": [{"weight_kg": 40, "grade": "A"}, {"weight_kg": 52, "grade": "A"}, {"weight_kg": 47, "grade": "B"}, {"weight_kg": 65, "grade": "A"}]}`
	quarters := `{"quarters": [{"quarter": 1, "orders": 410}, {"quarter": 2, "orders": 530}, {"quarter": 3, "orders": 620}, {"quarter": 4, "orders": 740}]}`
	stores := `{"warehouses": [{"warehouse": 1, "stock": 310}, {"warehouse": 3, "stock": 275}, {"warehouse": 4, "stock": 198}]}`
	ranks := `{"ranking": [{"rank": 1, "team": "Lions", "points": 30}, {"rank": 2, "team": "Bears", "points": 27}, {"rank": 3, "team": "Owls", "points": 22}, {"rank": 4, "team": "Hawks", "points": 19}]}`
	// "first" is a row's value here, not its position.
	classes := `{"classes": [{"class": "economy", "price_usd": 420}, {"class": "business", "price_usd": 1300}, {"class": "first", "price_usd": 2900}]}`
	wantVerdicts(t, []verdictCase{
		{weeks, "The fourth week had 88 orders.", events.VerdictSupported},
		{weeks, "The fourth week had 143 orders.", events.VerdictContradicted},
		{weeks, "The 4th week had 88 orders.", events.VerdictSupported},
		{weeks, "第四周有88个订单。", events.VerdictSupported},
		{weeks, "第四周有120个订单。", events.VerdictContradicted},
		{weeks, "The ninth week had 88 orders.", events.VerdictUnsupported},
		{weeks, "The first week had 88 orders.", events.VerdictUnsupported},
		{batches, "The fourth batch weighs 65 kg.", events.VerdictSupported},
		{batches, "The 2nd batch weighs 52 kg.", events.VerdictSupported},
		{batches, "The 4th batch weighs 40 kg.", events.VerdictContradicted},
		{batches, "第4批重65公斤。", events.VerdictSupported},
		{batches, "第四批重52公斤。", events.VerdictContradicted},
		{batches, "The sixth batch weighs 65 kg.", events.VerdictUnsupported},
		{quarters, "Third quarter orders were 620.", events.VerdictSupported},
		{quarters, "第4季度的订单有740个。", events.VerdictSupported},
		{quarters, "Fourth-quarter orders were 740.", events.VerdictSupported},
		{quarters, "4th-quarter orders were 620.", events.VerdictContradicted},
		{quarters, "The fourth quarter's orders were 530.", events.VerdictContradicted},
		{stores, "三号仓的库存是275件。", events.VerdictSupported},
		{stores, "三号仓的库存是198件。", events.VerdictContradicted},
		{stores, "二号仓的库存是275件。", events.VerdictUnsupported},
		{ranks, "第四名得了19分。", events.VerdictSupported},
		{ranks, "The team in fourth place has 27 points.", events.VerdictContradicted},
		{ranks, "第九名得了19分。", events.VerdictUnsupported},
		{classes, "First class costs $2,900.", events.VerdictSupported},
		{classes, "The second class costs $1,300.", events.VerdictSupported},
	})
}
