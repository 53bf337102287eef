package constraint

import (
	"strings"
	"testing"
)

// Each answer against each constraint, as memory reads the user's
// statement (the slots below are what memory's extractor gives for the
// statement in the comment): violated or not, and why.
func TestCheck(t *testing.T) {
	calls := Constraint{Record: "c1", Version: 1, Subject: "request", Attribute: "call", Value: "after 6pm", Negative: true}               // Don't call me after 6pm.
	shellfish := Constraint{Record: "s1", Version: 2, Subject: "food", Attribute: "shellfish", Negative: true}                             // I'm allergic to shellfish.
	hotel := Constraint{Record: "h1", Version: 1, Subject: "limit", Attribute: "hotel budget", Value: "150 euros a night"}                 // My hotel budget is capped at 150 euros a night.
	zhCalls := Constraint{Record: "z1", Version: 1, Subject: "request", Attribute: "打电话", Value: "晚上六点以后", Negative: true}                 // 晚上六点以后别给我打电话。
	seafood := Constraint{Record: "z2", Version: 1, Subject: "food", Attribute: "seafood", Negative: true}                                 // 我对海鲜过敏。
	zhHotel := Constraint{Record: "z3", Version: 1, Subject: "limit", Attribute: "酒店预算", Value: "每晚500元"}                                  // 我的酒店预算每晚不超过500元。
	weekends := Constraint{Record: "w1", Version: 1, Subject: "request", Attribute: "email invoice", Value: "on weekends", Negative: true} // Stop emailing me invoices on weekends.
	lifted := Constraint{Record: "s1", Version: 3, Subject: "food", Attribute: "shellfish"}                                                // I can eat shellfish again.
	for _, tc := range []struct {
		answer string
		c      Constraint
		want   string // "" for no violation, else a part of the reason
	}{
		{"I'll book the 7pm call with Dana.", calls, `"7pm"`},
		{"I booked the call for 7:30 p.m. tomorrow.", calls, `7:30 p.m.`},
		{"I'll book the call at 19:00.", calls, `19:00`},
		{"I'll book the 5pm call with Dana.", calls, ""},
		{"I won't call you after 6pm; the 7pm slot is free.", calls, ""},
		{"The weather at 7pm is mild.", calls, ""},
		{"Try the shrimp, it's the house special.", shellfish, `"shrimp"`},
		{"You could order the crab cakes.", shellfish, `"crab`},
		{"Since you're allergic to shellfish, try the chicken.", shellfish, ""},
		{"The menu has a shellfish-free paella.", shellfish, ""},
		{"Avoid the prawns, pick the salad.", shellfish, ""},
		{"No oysters tonight, but the lobster roll is worth it.", shellfish, `"lobster`},
		{"Skip the oysters because the lobster roll is better.", shellfish, `"lobster`},
		{"不要点生蚝，但是龙虾很新鲜。", seafood, `虾"`},
		{"Try the shrimp.", lifted, ""},
		{"The Hotel Lumen costs 190 € a night.", hotel, `190 €`},
		{"I found a hotel at €140 a night.", hotel, ""},
		{"The Grand Hotel is 190 euros, over your budget, so I picked the Lumen at 140 euros.", hotel, ""},
		{"The flight costs 190 €.", hotel, ""},
		{"我帮你约了晚上七点的电话会议。", zhCalls, `晚上七点`},
		{"我帮你约了下午五点的电话会议。", zhCalls, ""},
		{"推荐你试试这家店的清蒸虾。", seafood, `"虾"`},
		{"因为你对海鲜过敏，我推荐鸡肉。", seafood, ""},
		{"我为你预订了每晚680元的酒店。", zhHotel, `680元`},
		{"我为你预订了每晚450元的酒店。", zhHotel, ""},
		{"I'll email the invoice on Saturday.", weekends, `saturday`},
		{"I'll email the invoice on Monday.", weekends, ""},
	} {
		vs := New().Check(tc.answer, []Constraint{tc.c})
		got := ""
		if len(vs) > 0 {
			got = vs[0].Reason
			if vs[0].Record != tc.c.Record || vs[0].Version != tc.c.Version || vs[0].Start != 0 || vs[0].End != len([]rune(tc.answer)) {
				t.Errorf("%q: violation %+v does not name the sentence and the constraint", tc.answer, vs[0])
			}
		}
		if (got == "") != (tc.want == "") || !strings.Contains(strings.ToLower(got), strings.ToLower(tc.want)) {
			t.Errorf("%q against %s/%s=%s: %q, want %q", tc.answer, tc.c.Subject, tc.c.Attribute, tc.c.Value, got, tc.want)
		}
	}
}

// The span of a violation is its sentence's, in runes, in a longer answer.
func TestViolationSpans(t *testing.T) {
	answer := "天气很好。推荐你试试龙虾。Then relax."
	vs := New().Check(answer, []Constraint{{Record: "r", Version: 1, Subject: "food", Attribute: "shellfish", Negative: true}})
	if len(vs) != 1 {
		t.Fatalf("violations %+v, want one", vs)
	}
	if got := string([]rune(answer)[vs[0].Start:vs[0].End]); got != "推荐你试试龙虾。" {
		t.Errorf("span %d-%d is %q", vs[0].Start, vs[0].End, got)
	}
}

func TestTablesParse(t *testing.T) {
	if _, err := parse(wordsTxt); err != nil {
		t.Fatal(err)
	}
	if _, err := parse([]byte("[nowhere]\na = b\n")); err == nil {
		t.Error("an unknown section was read")
	}
}
