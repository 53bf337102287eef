package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestAKeyOfAUnitAloneHoldsItsRowsValue: a row's field whose key is its
// unit and nothing else ({"part": …, "cents": 8950}) holds the amount the
// claim gives that row, though a field of the same unit outside the row
// has a word the claim says (a charge, 费); and a tonne, a knot and a
// tonne per hectare in a key are units (coal_stock_t, boat_speed_kn,
// yield_t_ha): the value is looked for there, after conversion, and a
// number joined to the key's word ("ten-year") names the key.
func TestAKeyOfAUnitAloneHoldsItsRowsValue(t *testing.T) {
	garage := `{"repairs": [{"part": "Brake pads", "cents": 8950}, {"part": "Wiper blades", "cents": 2400}], "labour_charge_cents": 12000}`
	menu := `{"菜单": [{"菜": "宫保鸡丁", "fen": 3800}, {"菜": "麻婆豆腐", "fen": 2600}], "服务费_fen": 500}`
	coal := `{"barges": [{"barge": "B-4", "coal_t": 310}, {"barge": "B-7", "coal_t": 295}], "coal_stock_t": 9200}`
	rice := `{"批次": [{"批号": "M1", "大米_t": 12}, {"批号": "M2", "大米_t": 9}], "大米库存_t": 540}`
	boat := `{"passage": {"boat_speed_kn": 7.5, "wind_kn": 18, "distance_nm": 42}}`
	oats := `{"plots": [{"plot": "North", "yield_t_ha": 5.1}, {"plot": "South", "yield_t_ha": 4.6}], "ten_year_mean_t_ha": 4.8}`
	wantVerdicts(t, []verdictCase{
		{garage, "Brake pads cost $89.50.", events.VerdictSupported},
		{garage, "The wiper blades are $24.", events.VerdictSupported},
		{garage, "The wiper blades are $31.", events.VerdictContradicted},
		{menu, "宫保鸡丁38元。", events.VerdictSupported},
		{menu, "麻婆豆腐的价格是26元。", events.VerdictSupported},
		{coal, "The yard holds 9,200 tonnes of coal.", events.VerdictSupported},
		{coal, "The yard holds 9,500 tonnes of coal.", events.VerdictContradicted},
		{rice, "大米库存540吨。", events.VerdictSupported},
		{rice, "大米库存450吨。", events.VerdictContradicted},
		{boat, "The boat makes about 13.9 km/h.", events.VerdictSupported},
		{boat, "船速约13.9公里/小时。", events.VerdictSupported},
		{oats, "The ten-year mean is 4.8 t/ha.", events.VerdictSupported},
		{oats, "The ten-year mean is 5.6 t/ha.", events.VerdictContradicted},
	})
}
