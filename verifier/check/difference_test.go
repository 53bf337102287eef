package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestADifferenceIsNotJudgedByOneOperand: a number stated as a difference
// ("2.8 m below full", "$450 over budget", "up 120 units", 比上周增加了120件,
// 多了) is the difference of two fields the claim names, supported when
// they give it; else it is unsupported, never contradicted by one of the
// operands. A plain value beside a change word ("rose to 820") is still a
// value.
func TestADifferenceIsNotJudgedByOneOperand(t *testing.T) {
	const tank = `{"tanks": [{"tank": "A", "level_m": 41.2, "full_level_m": 44.0}]}`
	const budget = `{"project": "P1", "budget_usd": 12000, "spent_usd": 12450}`
	const stock = `{"shop": "S", "stock": 820, "stock_last_week": 700}`
	const 库存 = `{"门店": "S", "库存": 820, "上周库存": 700}`
	wantVerdicts(t, []verdictCase{
		{tank, "Tank A is 2.8 m below full.", events.VerdictSupported},
		{tank, "Tank A is 3.8 m below full.", events.VerdictUnsupported},
		{budget, "P1 is $450 over budget.", events.VerdictSupported},
		{budget, "P1 is $650 over budget.", events.VerdictUnsupported},
		{stock, "Stock is up 120 units from last week.", events.VerdictSupported},
		{stock, "Stock is up 150 units from last week.", events.VerdictUnsupported},
		{stock, "Stock rose to 820 units.", events.VerdictSupported},
		{stock, "Stock rose to 850 units.", events.VerdictContradicted},
		{库存, "库存比上周增加了120件。", events.VerdictSupported},
		{库存, "库存比上周增加了150件。", events.VerdictUnsupported},
		{库存, "库存比上周多了150件。", events.VerdictUnsupported},
		{库存, "库存为850件。", events.VerdictContradicted},
		// a field holding the change is the difference itself
		{`{"股票": [{"名称": "甲", "收盘价": 12.5, "涨跌": 0.3}]}`, "甲的收盘价上涨了0.5元。", events.VerdictContradicted},
		// both operands bound, one field in each of two rows named
		{`{"teams": [{"team": "Reds", "points": 71}, {"team": "Blues", "points": 64}]}`, "The Reds have 7 points more than the Blues.", events.VerdictSupported},
		{`{"teams": [{"team": "Reds", "points": 71}, {"team": "Blues", "points": 64}]}`, "The Reds have 9 points more than the Blues.", events.VerdictContradicted},
	})
}
