package memory

import (
	"testing"
	"time"
)

// TestStateIsNoRefusal: a sentence about what happens to the user (a
// trouble that stopped, a thing received, a symptom gone), said with "any
// more" or 不…了, refuses nothing: no negative constraint is read from it.
// Found by review (rev11) of 732421a; the first six rows are its, three of
// which failed there.
func TestStateIsNoRefusal(t *testing.T) {
	at := time.Date(2031, 2, 3, 9, 0, 0, 0, time.UTC)
	for _, text := range []string{
		"I'm not getting any more emails from the bank.",
		"I'm not having any more trouble with my knee.",
		"I'm not expecting any new parcels this week.",
		"I'm not receiving any extra overtime pay.",
		"这阵子我不饿了。",
		"这两周我不咳嗽了。",
		"I'm not hearing any more complaints from the neighbours.",
		"I'm not having trouble with my back these days.",
		"最近我不失眠了。",
		"这个月我不过敏了。",
	} {
		for _, o := range (RuleExtractor{}).ExtractAt(text, "", at.UnixNano()) {
			if o.Kind == string(KindConstraint) && o.Polarity == string(Negative) {
				t.Errorf("%q: read a negative constraint %s/%s; it states what happens, it refuses nothing", text, o.Subject, o.Attribute)
			}
		}
	}
}
