package memory

import (
	"testing"
	"time"
)

// TestTheUsersStarSignAndJobAtANamedSchool: 我是…座 is the user's star sign
// (identity/星座), beside which a relative's sign is the relative's and
// never replaces it; a craft done at an organisation named without a
// counter (县城中学教化学) is the user's job, but one done at a school or a
// library in general is none.
func TestTheUsersStarSignAndJobAtANamedSchool(t *testing.T) {
	at := time.Date(2026, 3, 2, 20, 0, 0, 0, time.UTC)
	e, s := sayTwo(t, "我是金牛座。", "我妹妹是射手座。", at)
	mine, hers := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
	if mine.Subject != "identity" || mine.Value != "金牛座" || mine.Status != StatusActive {
		t.Errorf("the user's sign: %+v", mine)
	}
	if hers.Subject == mine.Subject || hers.Value != "射手座" || hers.Status != StatusActive {
		t.Errorf("the sister's sign: %+v, want it hers, beside the user's", hers)
	}
	for _, c := range []struct {
		text string
		role string // "": no job
	}{
		{"我在镇上中学教物理。", "物理"},
		{"我在一所小学教音乐。", "音乐"},
		{"我在学校写作业。", ""},
		{"我在市图书馆写论文。", ""},
		{"我是天秤座的。", ""},
	} {
		role := ""
		for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", at.UnixNano()) {
			if o.Subject == "work" && o.Attribute == "role" {
				role = o.Value
			}
		}
		if role != c.role {
			t.Errorf("%q: job %q, want %q", c.text, role, c.role)
		}
	}
}
