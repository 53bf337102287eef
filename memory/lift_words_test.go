package memory

import (
	"testing"
	"time"
)

// TestABanToldByAnotherAndItsLiftInNewWords: a ban another tells the user
// (医生让我别…, 医生不让我…) is the user's ban; it is lifted when the user
// says it is no longer to be kept away from (不用再躲着…了) or may be had
// freely (可以放开吃…了), and only the ban of the same thing is.
func TestABanToldByAnotherAndItsLiftInNewWords(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ban, lift string
		lifts     bool
	}{
		{"最近胃不好，医生让我别吃火锅。", "胃好了，我可以放开吃火锅了。", true},
		{"医生不让我喝酒。", "医生说我可以喝酒了。", true},
		{"大夫叫我先别吃海鲜。", "体检没问题，我又能吃海鲜了。", true},
		{"我膝盖受伤了，别约我去爬山。", "膝盖好了，我不用再躲着爬山了。", true},
		{"医生让我别吃火锅。", "我可以放开吃海鲜了。", false},
	} {
		t.Run(c.lift, func(t *testing.T) {
			e, s := sayTwo(t, c.ban, c.lift, at)
			ban, lift := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
			if ban.Kind != KindConstraint || ban.Polarity != Negative {
				t.Fatalf("%q: want a ban, got %s %s/%s %s", c.ban, ban.Kind, ban.Subject, ban.Attribute, ban.Polarity)
			}
			if lifted := ban.Status == StatusSuperseded && ban.SupersededBy == lift.Ref(); lifted != c.lifts {
				t.Errorf("%q after %q: ban %s/%s %s, lift %s %s/%s %s; lifted %v, want %v", c.lift, c.ban,
					ban.Subject, ban.Attribute, ban.Status, lift.Kind, lift.Subject, lift.Attribute, lift.Status, lifted, c.lifts)
			}
		})
	}
	// an instruction that is no ban, and a request to the assistant said
	// before 让我, are read as before
	for _, c := range []struct{ text, want string }{
		{"医生让我多喝水。", ""},
		{"我同事让我别给她打电话。", ""},
		{"别让我吃辣。", "constraint food/spicy negative"},
	} {
		got := ""
		for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", at.UnixNano()) {
			if o.Kind == string(KindConstraint) {
				got = o.Kind + " " + o.Subject + "/" + o.Attribute + " " + o.Polarity
			}
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
	}
}
