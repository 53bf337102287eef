package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestADerivedValueIsComputedOrUnsupported: a number the claim says is
// computed — a total over rows, a value of goods (count × unit price), an
// average per game or head, a net weight — is computed from the fields it
// names and their rows, never compared with the nearest field of its unit;
// a wrong total is contradicted only when the rows summed are unambiguous.
func TestADerivedValueIsComputedOrUnsupported(t *testing.T) {
	kilns := `{"studio": "Redbank", "kilns": [{"kiln": "K1", "firings": 14}, {"kiln": "K2", "firings": 9}, {"kiln": "K3", "firings": 5}]}`
	zhShifts := `{"班组": [{"班组号": "甲班", "人数": 12}, {"班组号": "乙班", "人数": 15}, {"班组号": "丙班", "人数": 9}]}`
	zhTeas := `{"订单": [{"品名": "白毫银针", "数量_盒": 400, "单价_fen": 16500}, {"品名": "寿眉", "数量_盒": 900, "单价_fen": 6800}]}`
	darts := `{"players": [{"player": "Moira Quinn", "legs": 8, "legs_won": 6, "points": 2704}, {"player": "Dev Anand", "legs": 8, "legs_won": 2, "points": 2240}]}`
	zhChess := `{"队伍": [{"队名": "青松", "轮次": 5, "总分": 17.5}, {"队名": "白鹭", "轮次": 5, "总分": 11}]}`
	zhGrain := `{"车辆": [{"车牌": "鲁B·77310", "毛重_kg": 41280, "皮重_kg": 15930}, {"车牌": "鲁B·20846", "毛重_kg": 38800, "皮重_kg": 16110}]}`
	lorries := `{"loads": [{"ticket": "T-881", "gross_kg": 18420, "tare_kg": 11960}]}`
	jars := `{"lines": [{"item": "Honey jar", "qty": 12, "unit_price_pence": 650}, {"item": "Beeswax bar", "qty": 20, "unit_price_pence": 275}]}`
	runOperationCases(t, []operationCase{
		// totals over rows
		{kilns, "Redbank's kilns ran 28 firings in all.", events.VerdictSupported},
		{kilns, "Redbank's kilns ran 31 firings in all.", events.VerdictContradicted},
		{zhShifts, "三个班组一共36人。", events.VerdictSupported},
		{zhShifts, "三个班组一共40人。", events.VerdictContradicted},
		// a total of unit prices is none: the lines' products add up
		{jars, "Altogether the order comes to £133.", events.VerdictSupported},
		{jars, "Altogether the order comes to £140.", events.VerdictUnsupported},
		// products: count × unit price in one row
		{zhTeas, "寿眉这单货值6.12万元。", events.VerdictSupported},
		{zhTeas, "寿眉这单货值6.6万元。", events.VerdictUnsupported},
		// averages per game
		{zhChess, "青松队场均得3.5分。", events.VerdictSupported},
		{zhChess, "青松队场均得5分。", events.VerdictUnsupported},
		{darts, "Moira Quinn scored 338 points per leg.", events.VerdictSupported},
		// net weight: gross − tare, and a wrong one contradicted when
		// gross and tare are the row's only weights
		{zhGrain, "鲁B·77310这车净重25.35吨。", events.VerdictSupported},
		{zhGrain, "鲁B·77310这车净重23.5吨。", events.VerdictContradicted},
		{lorries, "Ticket T-881 netted 6,460 kg.", events.VerdictSupported},
		{lorries, "Ticket T-881 netted 6,900 kg.", events.VerdictContradicted},
		// a field that states the computed value decides as any field
		{`{"kilns": [{"kiln": "K1", "firings": 14}, {"kiln": "K2", "firings": 9}], "total_firings": 23}`, "The kilns ran 25 firings in all.", events.VerdictContradicted},
	})
}
