package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestANegationOfAnotherThingLeavesTheFlag: a true/false field is read
// with the polarity of the words that name it, not with a negation said
// after them of something its key does not name ("a newcomer with no
// badge yet" beside newcomer: true); a negation of the flag's own word
// ("not a newcomer"), and one of a fee (read as a price of zero), still
// count as before, and so does "not", which negates the predicate
// ("breakfast is not available").
func TestANegationOfAnotherThingLeavesTheFlag(t *testing.T) {
	members := `{"members":[{"name":"Ada Rhee","newcomer":true,"badge_no":null},{"name":"Bo Lind","newcomer":false,"badge_no":"B-118"}]}`
	rooms := `{"rooms":[{"room":"Cedar","refundable":true,"breakfast":false},{"room":"Maple","refundable":false,"breakfast":true}]}`
	wantVerdicts(t, []verdictCase{
		{members, "Ada Rhee is a newcomer with no badge yet.", events.VerdictSupported},
		{members, "Bo Lind is a newcomer with no badge yet.", events.VerdictContradicted},
		{members, "Ada Rhee is not a newcomer.", events.VerdictContradicted},
		{members, "Bo Lind is not a newcomer.", events.VerdictSupported},
		{rooms, "Cedar is refundable with no breakfast.", events.VerdictSupported},
		{rooms, "Maple is refundable with no breakfast.", events.VerdictContradicted},
		{rooms, "Maple is not refundable.", events.VerdictSupported},
		{rooms, "Cedar's breakfast is not available.", events.VerdictSupported},
		{rooms, "Cedar is refundable at no extra cost.", events.VerdictSupported},
		{rooms, "Maple is refundable at no extra cost.", events.VerdictContradicted},
	})
}
