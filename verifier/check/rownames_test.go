package check

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// TestARowNamedByItsOwnNameBindsIt: a claim naming a row by its own name
// field (a key that names its object, name or title, or the key of the
// array's own noun: team of teams) is about that row. Another row's
// value that the claim also names (a region, a city) is something it
// says of the named row, not a second subject: "The Oslo office is in
// the West region" is contradicted by Oslo's own region, not supported
// by Bergen's, and unsupported where Oslo has none. And a name one
// row holds as its own and another as an attribute names the first:
// "Denver has 7 wins" beside the team Denver and the Lions of the city
// Denver is about the team.
func TestARowNamedByItsOwnNameBindsIt(t *testing.T) {
	offices := `{"offices": [{"name": "Oslo", "staff": 41, "region": "East"}, {"name": "Bergen", "staff": 28, "region": "West"}, {"name": "Tromsø", "staff": 12, "region": "North"}]}`
	someRegions := `{"offices": [{"name": "Oslo", "staff": 41}, {"name": "Bergen", "staff": 28, "region": "West"}]}`
	teams := `{"teams": [{"team": "Lions", "city": "Denver", "wins": 12}, {"team": "Denver", "city": "Austin", "wins": 7}]}`
	branches := `{"branches": [{"title": "Kowloon", "district": "Yau Tsim Mong", "tellers": 6}, {"title": "Shatin", "district": "Sha Tin", "tellers": 9}]}`
	zhOffices := `{"办公室": [{"名称": "奥斯陆", "员工": 41, "地区": "东部"}, {"名称": "卑尔根", "员工": 28, "地区": "西部"}]}`
	wantVerdicts(t, []verdictCase{
		{offices, "The Oslo office has 41 staff.", events.VerdictSupported},
		{offices, "The Oslo office has 28 staff.", events.VerdictContradicted},
		{offices, "The Oslo office is in the East region.", events.VerdictSupported},
		{offices, "The Oslo office is in the West region.", events.VerdictContradicted},
		{offices, "The Oslo office has more staff than the West office.", events.VerdictSupported},
		{someRegions, "The Oslo office is in the West region.", events.VerdictUnsupported},
		{teams, "Denver has 7 wins.", events.VerdictSupported},
		{teams, "Denver has 12 wins.", events.VerdictContradicted},
		{teams, "The Lions have 12 wins.", events.VerdictSupported},
		{branches, "The Shatin branch has 9 tellers.", events.VerdictSupported},
		{branches, "The Shatin branch is in Yau Tsim Mong.", events.VerdictContradicted},
		{zhOffices, "奥斯陆办公室有41名员工。", events.VerdictSupported},
		{zhOffices, "奥斯陆办公室在西部。", events.VerdictContradicted},
	})
}

// TestAnOwnNameKeyEndsAKeyHoweverJoined: a key ending in a subject key
// suffix names its row whether its parts are joined by _, - or camel
// case (office_name, office-name, officeName), and a Chinese key ending
// in one (办公室名称) as 名称 alone does: "The Oslo office is in the West
// region" is about Oslo, and contradicted by its East, under each.
func TestAnOwnNameKeyEndsAKeyHoweverJoined(t *testing.T) {
	var cases []verdictCase
	for _, key := range []string{"office_name", "office-name", "officeName"} {
		offices := `{"offices": [{"` + key + `": "Oslo", "staff": 41, "region": "East"}, {"` + key + `": "Bergen", "staff": 28, "region": "West"}, {"` + key + `": "Tromsø", "staff": 12, "region": "North"}]}`
		cases = append(cases,
			verdictCase{offices, "The Oslo office is in the West region.", events.VerdictContradicted},
			verdictCase{offices, "The Oslo office is in the East region.", events.VerdictSupported})
	}
	zh := `{"办公室": [{"办公室名称": "奥斯陆", "员工": 41, "地区": "东部"}, {"办公室名称": "卑尔根", "员工": 28, "地区": "西部"}]}`
	cases = append(cases,
		verdictCase{zh, "奥斯陆办公室在西部。", events.VerdictContradicted},
		verdictCase{zh, "奥斯陆办公室在东部。", events.VerdictSupported})
	wantVerdicts(t, cases)
}

// TestAnEarlierRowsValueBindsNoLaterRow: a claim about a later row —
// named by its label, or continued through a pronoun — is not bound to
// a value of the same kind in an earlier row. "It has 12 stops" after
// a sentence about the South route, which has no stops, is not
// supported by the North route's 12 (the wider reading of a pronoun
// takes another row only by a field the named row has too, or one the
// claim names a value of); "Leg 2 takes 5 hours" is not compared with the
// leg's own number 2 (the label names the row; it is no value), and
// with no hours of its own leg 2 leaves the claim unsupported.
func TestAnEarlierRowsValueBindsNoLaterRow(t *testing.T) {
	routes := `{"routes": [{"route": "North", "stops": 12, "km": 31}, {"route": "South", "km": 28}]}`
	zhRoutes := `{"线路": [{"名称": "北线", "站数": 12, "公里": 31}, {"名称": "南线", "公里": 28}]}`
	legs := `{"legs": [{"leg": 1, "km": 503, "hours": 5}, {"leg": 2, "km": 483}]}`
	prices := `{"regions": [{"region": "EU", "price_eur": 30}, {"region": "Japan", "price_jpy": 3600}]}`
	for _, tc := range []struct {
		result, answer string
		want           []events.Verdict
	}{
		{routes, "The South route is 28 km long. It has 12 stops.", []events.Verdict{events.VerdictSupported, events.VerdictUnsupported}},
		{zhRoutes, "南线长28公里。它有12个站。", []events.Verdict{events.VerdictSupported, events.VerdictUnsupported}},
		{routes, "The North route is 31 km long. It has 12 stops.", []events.Verdict{events.VerdictSupported, events.VerdictSupported}},
		{legs, "Leg 2 takes 5 hours.", []events.Verdict{events.VerdictUnsupported}},
		{legs, "Leg 1 takes 5 hours.", []events.Verdict{events.VerdictSupported}},
		{legs, "Leg 2 covers 503 km.", []events.Verdict{events.VerdictContradicted}},
		// A row the claim names something of is still read ("Japan").
		{prices, "In the EU it costs €30. In Japan it sells for ¥3,600.", []events.Verdict{events.VerdictSupported, events.VerdictSupported}},
	} {
		got := checkAnswer(t, tc.result, tc.answer)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q beside %s: %v, want %v", tc.answer, tc.result, got, tc.want)
		}
	}
}

// checkAnswer checks an answer of several claims against one result.
func checkAnswer(t *testing.T, result, answer string) []events.Verdict {
	t.Helper()
	ev := []evidence.Evidence{{CallID: "c1", Name: "tool", Version: 1, Result: json.RawMessage(result)}}
	rep := NewChecker(CheckerConfig{}).Check(answer, ev, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	var out []events.Verdict
	for _, cl := range rep.Claims {
		out = append(out, cl.Verdict)
	}
	return out
}
