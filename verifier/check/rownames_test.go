package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
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
