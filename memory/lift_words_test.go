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
		t.Run(c.lift, func(t *testing.T) { checkLift(t, c.ban, c.lift, c.lifts, at) })
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

// checkLift says ban, then lift at at, as one user, and checks that the
// first is a ban and that the second supersedes it exactly when lifts.
func checkLift(t *testing.T, ban, lift string, lifts bool, at time.Time) {
	t.Helper()
	e, s := sayTwo(t, ban, lift, at)
	b, l := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
	if b.Kind != KindConstraint || b.Polarity != Negative {
		t.Fatalf("%q: want a ban, got %s %s/%s %s", ban, b.Kind, b.Subject, b.Attribute, b.Polarity)
	}
	if lifted := b.Status == StatusSuperseded && b.SupersededBy == l.Ref(); lifted != lifts {
		t.Errorf("%q after %q: ban %s/%s %s, lift %s %s/%s %s; lifted %v, want %v", lift, ban,
			b.Subject, b.Attribute, b.Status, l.Kind, l.Subject, l.Attribute, l.Status, lifted, lifts)
	}
}
