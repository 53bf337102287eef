package memory

import (
	"strings"
	"testing"
	"time"
)

// A refusal of more of an activity ("I'm not taking on any new clients")
// and keeping away from a thing ("I'm staying away from the pool") are
// constraints against it, with the validity said beside them; a plain
// "I'm not …" without a mark of more states nothing that lasts. In Chinese,
// 不/不再 + a verb phrase + 了 is one when the sentence bounds it or the
// phrase has a mark of more (新的).
func TestRefusalOfMoreIsAConstraint(t *testing.T) {
	at := time.Date(2031, 2, 3, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		text string
		want string // a word of the constraint's attribute; "" = no constraint
		// validity: "until" (an end by the calendar), "ttl" (a counted
		// length), "open" (no end said) or "" (none)
		validity string
	}{
		{"Right now I'm not accepting any new piano pupils.", "pupils", "open"},
		{"For the next two weeks I'm not signing up for any extra volunteer rotas.", "rotas", "ttl"},
		{"I'm not ordering any more takeaway until the end of April.", "takeaway", "until"},
		{"I'm staying away from the sauna for the next ten days.", "sauna", "ttl"},
		{"I'm keeping away from energy drinks these days.", "energy", "open"},
		{"I'm not picking up any extra shifts at the bakery.", "shifts", ""},
		{"到下个月底我不接新的装修活了。", "装修活", "until"},
		{"这阵子我晚上不出门遛狗了，太冷。", "遛狗", "open"},
		{"这两周我不骑车上班了。", "骑车上班", "ttl"},
		{"我不接新的学生了。", "学生", ""},
		{"I'm not working today.", "", ""},
		{"我不知道了。", "", ""},
		{"我不太舒服了。", "", ""},
		{"我不去了。", "", ""},
		{"我不等他了。", "", ""},
		{"I'm not sure about any of it.", "", ""},
		{"I'm not going to any concerts.", "", ""},
		{"I'm not feeling any better.", "", ""},
	} {
		var got []string
		found := false
		for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", at.UnixNano()) {
			got = append(got, o.Kind+" "+o.Subject+"/"+o.Attribute+" "+o.Polarity)
			if o.Kind != string(KindConstraint) || o.Polarity != string(Negative) || c.want == "" ||
				!strings.Contains(o.Attribute, c.want) {
				continue
			}
			found = true
			v := ""
			switch {
			case o.ValidUntil > at.UnixNano():
				v = "until"
			case o.TTL > 0:
				v = "ttl"
			case o.OpenEnded:
				v = "open"
			}
			if v != c.validity {
				t.Errorf("%q: validity %q, want %q (%+v)", c.text, v, c.validity, o)
			}
		}
		if found != (c.want != "") {
			t.Errorf("%q: read %v, want a negative constraint naming %q", c.text, got, c.want)
		}
	}
}
