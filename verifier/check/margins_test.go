package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestAMarginIsTheDifferenceOfTwoSides: a contest's margin ("won by 7
// goals", "lost to Fernhill by 17 pins", 领先12分, 赢了3球) is the
// difference of the two sides' scores — two fields of one object, the
// only two it has or two whose keys share a word — never one side's score
// nor another field that happens to hold the number. It is contradicted
// only when one pair of sides is in question.
func TestAMarginIsTheDifferenceOfTwoSides(t *testing.T) {
	const match = `{"match": {"date": "2026-02-20", "home": "Otters", "away": "Herons", "goals": {"home": 31, "away": 24}}, "players": [{"name": "Ada Quill", "goals": 9}, {"name": "Bo Renn", "goals": 7}]}`
	const games = `{"games": [{"opponent": "Lakeside", "pins_for": 812, "pins_against": 790}, {"opponent": "Fernhill", "pins_for": 744, "pins_against": 761}]}`
	const 比赛 = `{"比赛": {"主队": "红星", "客队": "蓝天", "比分": {"主队": 88, "客队": 76}}}`
	const quiz = `{"teams": [{"rank": 1, "team": "Owls", "points": 88.5}, {"rank": 2, "team": "Foxes", "points": 80.0}]}`
	const two = `{"final": {"score": {"home": 5, "away": 2}, "corners": {"home": 9, "away": 3}}}`
	wantVerdicts(t, []verdictCase{
		{match, "The Otters won by 7 goals.", events.VerdictSupported},
		{match, "The Otters beat the Herons by 7 goals.", events.VerdictSupported},
		// 9 is a player's goals, not the margin
		{match, "The Otters beat the Herons by 9 goals.", events.VerdictContradicted},
		{games, "Against Fernhill they lost by 17 pins.", events.VerdictSupported},
		{games, "They beat Lakeside by 22 pins.", events.VerdictSupported},
		// the row named has one pair of sides: 22 is the other row's margin
		{games, "Against Fernhill they lost by 22 pins.", events.VerdictContradicted},
		{比赛, "红星领先12分。", events.VerdictSupported},
		{比赛, "红星赢了12分。", events.VerdictSupported},
		{比赛, "红星赢了15分。", events.VerdictContradicted},
		// two pairs of sides: the one the margin is of is not named
		{two, "The home side won by 3.", events.VerdictSupported},
		{two, "The home side won by 4.", events.VerdictUnsupported},
		// one field the claim names in two rows of a list
		{quiz, "The Owls beat the Foxes by 8.5 points.", events.VerdictSupported},
		{quiz, "The Owls beat the Foxes by 6.5 points.", events.VerdictUnsupported},
		// a plain score is still a value
		{比赛, "红星得了88分。", events.VerdictSupported},
	})
}

// TestARateBindsToARateField: a rate the claim states ("€90 per 10
// grams", "40 pots a day") is judged by a field that is a rate per the
// same thing, not by a field of no rate that holds what it is per (grams)
// or counts the same things (a queue's pots); the number after "per" is
// what the rate is per, no value of a field.
func TestARateBindsToARateField(t *testing.T) {
	const saffron = `{"lots": [{"buyer": "Casa Oro", "grams": 40, "price_cents_per_10g": 9000}, {"buyer": "Mira Foods", "grams": 120, "price_cents_per_10g": 8500}]}`
	const kiln = `{"queue": [{"job": "K1", "pots": 14}, {"job": "K2", "pots": 9}], "kiln_capacity_pots_per_day": 40}`
	const 茶 = `{"批次": [{"买家": "甲茶馆", "克数": 300, "价格_fen_per_100g": 4500}]}`
	wantVerdicts(t, []verdictCase{
		{saffron, "Casa Oro paid €90 per 10 grams.", events.VerdictSupported},
		{saffron, "Casa Oro paid €95 per 10 grams.", events.VerdictUnsupported},
		{saffron, "Casa Oro bought 40 grams.", events.VerdictSupported},
		{kiln, "The kiln can fire 40 pots a day.", events.VerdictSupported},
		{kiln, "The kiln can fire 30 pots a day.", events.VerdictContradicted},
		{kiln, "Job K1 has 14 pots.", events.VerdictSupported},
		// another row's rate is no binding of the row the claim names
		{saffron, "Mira Foods paid €90 per 10 grams.", events.VerdictUnsupported},
		{茶, "甲茶馆的价格是每100克45元。", events.VerdictSupported},
	})
}

// TestARaceTimeKeepsItsHundredths: 1分52秒46 is 112.46 seconds (分 before
// seconds is the minute; the digits right after 秒 are its hundredths),
// judged by the time field to its last digit.
func TestARaceTimeKeepsItsHundredths(t *testing.T) {
	const 赛 = `{"成绩": [{"选手": "王小川", "成绩_s": 95.37}, {"选手": "李青", "成绩_s": 96.1}]}`
	wantVerdicts(t, []verdictCase{
		{赛, "王小川以1分35秒37获胜。", events.VerdictSupported},
		{赛, "王小川以1分36秒37获胜。", events.VerdictContradicted},
		{赛, "李青用时1分36秒10。", events.VerdictSupported},
		{赛, "李青用时1分36秒1。", events.VerdictSupported},
	})
}
