package check

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestARowNamedIsJudgedByItsOwnFields: a claim continuing the row the
// sentence before named (through a pronoun), or naming a row by a value
// only that row has in a field other rows share values of, is judged by
// that row's fields: another row's value of the same field does not
// support it, and the row's own different value contradicts it. A row
// whose field is of another unit than the claim's number (an amount in
// euros, the claim's in yen) is still left for the row that fits. No
// supported claim cites a field of another row than the one it names
// (crossRowSupport).
func TestARowNamedIsJudgedByItsOwnFields(t *testing.T) {
	sup, con := events.VerdictSupported, events.VerdictContradicted
	tanks := `{"tanks": [{"label": "T-North", "level_pct": 82, "temp_c": 14}, {"label": "T-South", "level_pct": 35, "temp_c": 19}]}`
	zhTanks := `{"仓位": [{"名称": "甲仓", "温度": 4, "湿度": 60}, {"名称": "乙仓", "温度": 8, "湿度": 75}]}`
	crew := `{"crew": [{"name": "Mara Quill", "role": "lead", "shifts": 5}, {"name": "Otto Fenn", "role": "assistant", "shifts": 3}]}`
	tutors := `{"sessions": [{"tutor": "Ines", "topic": "algebra", "online": true, "hours": 2}, {"tutor": "Bram", "topic": "optics", "online": false, "hours": 3}, {"tutor": "Ines", "topic": "genetics", "online": true, "hours": 2}]}`
	zhTutors := `{"课程": [{"老师": "林芳", "线上": true}, {"老师": "周强", "线上": false}, {"老师": "林芳", "线上": true}]}`
	fares := `{"fares": [{"zone": "Inner", "fare": 30, "currency": "EUR"}, {"zone": "Outer", "fare": 3600, "currency": "JPY"}]}`
	checkRowCases(t, []rowCase{
		// a pronoun continues the row the sentence before named
		{tanks, "T-North is at 82%. It is at 19 °C.", []events.Verdict{sup, con}},
		{tanks, "T-North is at 82%. It is at 14 °C.", []events.Verdict{sup, sup}},
		{tanks, "T-South is at 35%. Its temperature is 14 °C.", []events.Verdict{sup, con}},
		{crew, "Mara Quill is the lead. She worked 3 shifts.", []events.Verdict{sup, con}},
		{crew, "Mara Quill is the lead. She worked 5 shifts.", []events.Verdict{sup, sup}},
		{zhTanks, "甲仓温度4度。它的湿度是75%。", []events.Verdict{sup, con}},
		{zhTanks, "甲仓温度4度。它的湿度是60%。", []events.Verdict{sup, sup}},
		// a value only its row has, though other rows share theirs
		{tutors, "Bram teaches online.", []events.Verdict{con}},
		{tutors, "Ines teaches online.", []events.Verdict{sup}},
		{zhTutors, "周强的课是线上课。", []events.Verdict{con}},
		{zhTutors, "周强的课不是线上的。", []events.Verdict{sup}},
		// a row whose field is of another unit leaves the claim to the row that fits
		{fares, "The Inner zone costs €30. It costs ¥3,600 too.", []events.Verdict{sup, sup}},
		{fares, "The Inner zone costs €30. It costs €36 on Sundays.", []events.Verdict{sup, con}},
	})
}

// TestANewSentenceNamingARowByAValueIsAboutThatRow: a sentence that names
// a row by a value only that row has (a renter, a customer: no key of a
// name) is about that row, though the sentence before it named another:
// another row's value of the field it states does not support it. A
// pronoun before the value ("Its renter is …") still continues the row
// before; one after it ("Kit Ames took his out") does not.
func TestANewSentenceNamingARowByAValueIsAboutThatRow(t *testing.T) {
	sup, con := events.VerdictSupported, events.VerdictContradicted
	kayaks := `{"rentals": [{"boat": "Heron", "renter": "Dana Pike", "hours": 3, "paddles": 2}, {"boat": "Osprey", "renter": "Lou Marsh", "hours": 5, "paddles": 1}, {"boat": "Teal", "renter": "Kit Ames", "hours": 2, "paddles": 2}]}`
	cleaners := `{"订单": [{"送洗人": "孙丽", "件数": 4, "金额": 96, "状态": "已取"}, {"送洗人": "吴涛", "件数": 2, "金额": 58, "状态": "待取"}, {"送洗人": "郑敏", "件数": 6, "金额": 150, "状态": "清洗中"}]}`
	checkRowCases(t, []rowCase{
		{kayaks, "The Heron is out for 3 hours. Lou Marsh rented a boat for 2 hours.", []events.Verdict{sup, con}},
		{kayaks, "The Heron is out for 3 hours. Lou Marsh rented a boat for 5 hours.", []events.Verdict{sup, sup}},
		{kayaks, "The Osprey is out for 5 hours. Kit Ames took his out with 1 paddle.", []events.Verdict{sup, con}},
		{kayaks, "The Osprey is out for 5 hours. Kit Ames took his out with 2 paddles.", []events.Verdict{sup, sup}},
		{kayaks, "The Heron is out for 3 hours. Its renter is Lou Marsh.", []events.Verdict{sup, con}},
		{cleaners, "孙丽送洗了4件。吴涛的金额是96元。", []events.Verdict{sup, con}},
		{cleaners, "孙丽送洗了4件。吴涛的金额是58元。", []events.Verdict{sup, sup}},
		{cleaners, "郑敏送洗了6件。吴涛送洗了4件。", []events.Verdict{sup, con}},
		{cleaners, "郑敏送洗了6件。吴涛送洗了2件。", []events.Verdict{sup, sup}},
	})
}

// rowCase is an answer beside one tool result and the verdicts of its
// claims, in order.
type rowCase struct {
	result, answer string
	want           []events.Verdict
}

// checkRowCases checks each case's answer against its result: its claims'
// verdicts are the case's, and no supported claim cites a field of another
// row than the one it names (crossRowSupport).
func checkRowCases(t *testing.T, cases []rowCase) {
	t.Helper()
	for _, tc := range cases {
		ev := []evidence.Evidence{{CallID: "c1", Name: "tool", Version: 1, Result: json.RawMessage(tc.result)}}
		rep := NewChecker(CheckerConfig{}).Check(tc.answer, ev, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		var got []events.Verdict
		for _, cl := range rep.Claims {
			got = append(got, cl.Verdict)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q beside %s: %v, want %v", tc.answer, tc.result, got, tc.want)
		}
		for _, cv := range crossRowSupport(rep, ev) {
			t.Errorf("%q beside %s: %q is supported by another row than the one it names: %v", tc.answer, tc.result, cv.Text, cv.Evidence)
		}
	}
}

// TestTwoValuesOfTwoRowsArePairedWrongly: a claim naming one row by a
// value of one field and stating another row's value of another field
// ("The Yamaha U3 is in Hall 1", Hall 1 being the Steinway's room) pairs
// what the rows keep apart: the row its first value names is its row,
// whose own field contradicts it; both values of one row support it.
func TestTwoValuesOfTwoRowsArePairedWrongly(t *testing.T) {
	sup, con := events.VerdictSupported, events.VerdictContradicted
	tunings := `{"visits": [{"client": "Harlow School", "piano": "Steinway B", "room": "Hall 1"}, {"client": "Mrs Okafor", "piano": "Yamaha U3", "room": "Lounge"}, {"client": "St Jude's", "piano": "Bechstein A", "room": "Chapel"}]}`
	garments := `{"订单": [{"单号": "X-1", "面料": "羊绒", "工艺": "干洗"}, {"单号": "X-2", "面料": "真丝", "工艺": "手洗"}, {"单号": "X-3", "面料": "羽绒", "工艺": "水洗"}]}`
	checkRowCases(t, []rowCase{
		{tunings, "The Yamaha U3 is in Hall 1.", []events.Verdict{con}},
		{tunings, "The Yamaha U3 is in the Lounge.", []events.Verdict{sup}},
		{tunings, "Mrs Okafor's piano is a Bechstein A.", []events.Verdict{con}},
		{tunings, "Mrs Okafor's piano is a Yamaha U3.", []events.Verdict{sup}},
		{garments, "羊绒围巾是手洗的。", []events.Verdict{con}},
		{garments, "真丝衬衫是手洗的。", []events.Verdict{sup}},
		{garments, "羊绒面料的衣服是手洗的。", []events.Verdict{con}},
		{garments, "羽绒服是水洗的。", []events.Verdict{sup}},
	})
}
