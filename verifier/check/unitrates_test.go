package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestACountFieldCountsInItsSiblingUnit: a stock field (on_hand, qty)
// beside "unit": "kg" holds kilograms, so a claim of kilograms left is
// judged against it, not against the bound beside it (par) that alone
// took the unit before.
func TestACountFieldCountsInItsSiblingUnit(t *testing.T) {
	zh := `{"shelves": [{"item": "黑芝麻", "unit": "kg", "on_hand": 12.5, "par": 20}, {"item": "燕麦", "unit": "kg", "on_hand": 31, "par": 25}]}`
	en := `{"bins": [{"item": "rolled oats", "unit": "kg", "on_hand": 12.5, "par": 20}, {"item": "barley", "unit": "kg", "on_hand": 31, "par": 25}]}`
	wantVerdicts(t, []verdictCase{
		{zh, "黑芝麻还剩12.5公斤。", events.VerdictSupported},
		{zh, "燕麦有31公斤。", events.VerdictSupported},
		{zh, "黑芝麻还剩14公斤。", events.VerdictContradicted},
		{en, "We have 12.5 kg of rolled oats left.", events.VerdictSupported},
		{en, "We have 17 kg of rolled oats left.", events.VerdictContradicted},
	})
}

// TestADurationInTwoUnitsIsOneDuration: "2 h 15 min", 一小时四十五分钟
// are one duration, the parts added, never a part compared alone.
func TestADurationInTwoUnitsIsOneDuration(t *testing.T) {
	en := `{"hikes": [{"trail": "Ridge Loop", "moving_time_min": 135}, {"trail": "Lake Path", "moving_time_min": 50}]}`
	secs := `{"shift": "night", "mean_wait_s": 383}`
	zh := `{"classes": [{"name": "太极", "length_min": 105}, {"name": "瑜伽", "length_min": 45}]}`
	wantVerdicts(t, []verdictCase{
		{en, "The Ridge Loop took 2 h 15 min.", events.VerdictSupported},
		{en, "The Ridge Loop took two hours and 15 minutes.", events.VerdictSupported},
		{en, "The Ridge Loop took 2 h 30 min.", events.VerdictContradicted},
		{secs, "The mean wait was 6 minutes 23 seconds.", events.VerdictSupported},
		{secs, "The mean wait was 6 minutes 50 seconds.", events.VerdictContradicted},
		{zh, "太极课一小时四十五分钟。", events.VerdictSupported},
		{zh, "太极课一小时零五分钟。", events.VerdictContradicted},
		{zh, "太极课一小时十五分钟。", events.VerdictContradicted},
	})
}

// TestARateIsJudgedPerWhatItIsPer: a field holding a rate (day_rate_cents,
// price_fen_per_kg) is not about a total the claim states, nor a total's
// field about a rate (每平方米30元); a rate per another unit of the same
// measure is converted (每斤 against per kg), and one per the same unit is
// judged as any value.
func TestARateIsJudgedPerWhatItIsPer(t *testing.T) {
	en := `{"hire": [{"item": "scaffold tower", "days": 4, "day_rate_cents": 2750}, {"item": "plate compactor", "days": 2, "day_rate_cents": 4100}]}`
	zh := `{"orders": [{"buyer": "吴芳", "weight_kg": 6, "price_fen_per_kg": 1800}, {"buyer": "郑涛", "weight_kg": 3, "price_fen_per_kg": 2400}]}`
	jin := `{"lots": [{"seller": "钱伯", "fen_per_kg": 3000}]}`
	total := `{"account": "3-201", "area_m2": 86.4, "fee_yuan": 2592}`
	wantVerdicts(t, []verdictCase{
		{en, "Four days of the scaffold tower come to $110.", events.VerdictUnsupported},
		{en, "The plate compactor costs $41 a day.", events.VerdictSupported},
		{en, "The plate compactor costs $45 a day.", events.VerdictContradicted},
		{zh, "郑涛的每公斤24元。", events.VerdictSupported},
		{zh, "郑涛的每公斤26元。", events.VerdictContradicted},
		{jin, "钱伯的每斤15元。", events.VerdictSupported},
		{jin, "钱伯的每斤18元。", events.VerdictContradicted},
		{total, "按每平方米30元收费。", events.VerdictUnsupported},
		{total, "一共收费2592元。", events.VerdictSupported},
	})
}

// TestAKeyScaleOrUnitSaidInOtherWords: keys scale their values by 10k and
// wan (water_10k_t, total_wan_yuan, like 万元), and UK gallons are
// imperial ones (4.546 L), not US gallons.
func TestAKeyScaleOrUnitSaidInOtherWords(t *testing.T) {
	mag := `{"month": "2026-02", "total_10k_t": 4.6}`
	wan := `{"total_wan_yuan": 3.845}`
	gal := `{"tank_litres": 4500}`
	wantVerdicts(t, []verdictCase{
		{mag, "2月合计4.6万吨。", events.VerdictSupported},
		{mag, "2月合计5.1万吨。", events.VerdictContradicted},
		{wan, "合计约3.8万元。", events.VerdictSupported},
		{wan, "合计约4.6万元。", events.VerdictContradicted},
		{gal, "The tank holds about 990 UK gallons.", events.VerdictSupported},
		{gal, "The tank holds about 1,200 imperial gallons.", events.VerdictContradicted},
	})
}
