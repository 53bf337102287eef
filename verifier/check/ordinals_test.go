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

// TestAnOrdinalsNounIsMatchedByKeyConcepts: the noun after an ordinal
// ("the third stop", 第五天, "the 2nd leg", 第2轮) is matched against the
// arrays' keys and the rows' field keys through the concepts keys are
// bound by, not a list of nouns: a Chinese noun meets an English key
// through the lexicon (站 and stop, 天 and day, 轮 and round). An ordinal
// whose noun matches no array's rows names a row the evidence does not
// single out: nothing contradicts the claim (unsupported), though a value
// it has may still support it.
func TestAnOrdinalsNounIsMatchedByKeyConcepts(t *testing.T) {
	// Stops 1-4 carry their number; legs and laps carry none.
	stops := `{"route": "R7", "stops": [{"stop": 1, "passengers": 14}, {"stop": 2, "passengers": 9}, {"stop": 3, "passengers": 22}, {"stop": 4, "passengers": 6}]}`
	days := `{"trip": "Kii peninsula", "days": [{"day": 1, "walk_km": 8.2}, {"day": 2, "walk_km": 11.5}, {"day": 3, "walk_km": 9.7}, {"day": 4, "walk_km": 14.1}, {"day": 5, "walk_km": 12.4}]}`
	legs := `{"legs": [{"from": "LIS", "to": "MAD", "distance_km": 503}, {"from": "MAD", "to": "BCN", "distance_km": 483}, {"from": "BCN", "to": "MRS", "distance_km": 338}]}`
	rounds := `{"golfer": "Ines Varga", "rounds": [{"round": 1, "score": 71}, {"round": 2, "score": 68}, {"round": 3, "score": 74}]}`
	// Nothing here is counted as pitches or 局: an ordinal of them names no
	// row, and a claim with one is contradicted by no field.
	throws := `{"pitcher": "Tomas Lind", "throws": [{"speed_mph": 91}, {"speed_mph": 94}, {"speed_mph": 88}], "max_speed_mph": 94}`
	sets := `{"match": "Ruud v Fritz", "sets": [{"score": "6-4", "minutes": 41}, {"score": "3-6", "minutes": 38}]}`
	// Each row names itself under the noun: the noun counts the rows.
	flights := `{"segments": [{"flight": "TP1018", "departs": "07:40"}, {"flight": "TP2212", "departs": "11:05"}]}`
	slots := `{"slots": [{"time": "1:00 pm", "available": false}, {"time": "3:00 pm", "available": true}]}`
	wantVerdicts(t, []verdictCase{
		{stops, "The third stop had 22 passengers.", events.VerdictSupported},
		{stops, "The third stop had 9 passengers.", events.VerdictContradicted},
		{stops, "第三站有22位乘客。", events.VerdictSupported},
		{stops, "第三站有14位乘客。", events.VerdictContradicted},
		{stops, "第六站有22位乘客。", events.VerdictUnsupported},
		{days, "第五天走了12.4公里。", events.VerdictSupported},
		{days, "第五天走了11.5公里。", events.VerdictContradicted},
		{days, "On the fifth day they walked 12.4 km.", events.VerdictSupported},
		{days, "On the second day they walked 9.7 km.", events.VerdictContradicted},
		{legs, "The 2nd leg is 483 km.", events.VerdictSupported},
		{legs, "The 2nd leg is 503 km.", events.VerdictContradicted},
		{legs, "第二段航程483公里。", events.VerdictSupported},
		{legs, "第二段航程503公里。", events.VerdictContradicted},
		{rounds, "第2轮得了68分。", events.VerdictSupported},
		{rounds, "第2轮得了74分。", events.VerdictContradicted},
		{rounds, "The third round score was 74.", events.VerdictSupported},
		{throws, "The third pitch was 97 mph.", events.VerdictUnsupported},
		{throws, "The second pitch had a speed of 99 mph.", events.VerdictUnsupported},
		{sets, "The second game lasted 45 minutes.", events.VerdictUnsupported},
		{throws, "第三局的球速是90英里每小时。", events.VerdictUnsupported},
		{throws, "His top speed was 97 mph.", events.VerdictContradicted},
		{flights, "The second flight departs at 11:05.", events.VerdictSupported},
		{flights, "The second flight departs at 7:40.", events.VerdictContradicted},
		{slots, "The first available slot is at 3 pm.", events.VerdictSupported},
	})
}
