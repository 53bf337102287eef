package memory

import (
	"strings"
	"testing"
	"time"
)

// TestASecondPropertyOfAThingIsKept: two properties of one thing of the
// user's (what it is, where it is from, its colour, a size said with its
// adjective) are two slots, both kept; a newer value of one property
// supersedes that property only; the user's own measure (我身高…, "I'm …
// tall") is a fact of theirs, another's is not.
func TestASecondPropertyOfAThingIsKept(t *testing.T) {
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second string }{
		{"en-make-then-colour", "My scooter is a Vespa.", "My scooter is mint green."},
		{"en-origin-then-size", "My rug is from Habitat.", "My rug is 160 cm long."},
		{"en-size-then-make", "My desk is 140 cm wide.", "My desk is a Bekant."},
		{"en-two-sizes", "My desk is 140 cm wide.", "My desk is 75 cm high."},
		{"zh-two-measures", "我身高一米七五。", "我体重七十二公斤。"},
	} {
		t.Run(c.name, func(t *testing.T) { keepsBoth(t, c.first, c.second, at, true) })
	}
	for _, c := range []struct{ name, first, second, want string }{
		{"en-colour-again", "My scooter is mint green.", "My scooter is black now, I had it resprayed.", "black"},
		{"en-size-again", "My desk is 140 cm wide.", "My desk is 160 cm wide.", "160"},
		{"en-height", "I'm 1.75 m tall.", "I'm 1.76 m tall.", "1.76"},
		{"zh-measure-again", "我体重七十二公斤。", "我体重六十八公斤。", "六十八"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			old := getRecord(t, e, s, "m1")
			if !old.Slotted() || old.Status != StatusSuperseded || old.SupersededBy == "" {
				t.Fatalf("want m1 slotted and superseded: %+v", old)
			}
			nu := getRecord(t, e, s, refID(old.SupersededBy))
			if nu.Message != "m2" || nu.Attribute != old.Attribute || !strings.Contains(nu.Value, c.want) {
				t.Errorf("superseded by %s/%s=%q of %s; want m2's %s holding %q", nu.Subject, nu.Attribute, nu.Value, nu.Message,
					old.Attribute, c.want)
			}
		})
	}
	for _, text := range []string{"My sister is 1.70 m tall.", "我妹妹身高一米六。", "My car is from 2015."} {
		for _, o := range (RuleExtractor{}).ExtractAt(text, "", at.UnixNano()) {
			if o.Subject == plainMine {
				t.Errorf("%q: a fact of the user's %s/%s=%q", text, o.Subject, o.Attribute, o.Value)
			}
		}
	}
}
