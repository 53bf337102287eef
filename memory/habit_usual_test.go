package memory

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAChineseHabitSaidByTheTimeItIsKept: 周末 said first and alone after 我
// (我周末在体育馆打羽毛球, 我周末去钓鱼) is a habit of the activity, its
// place left out of the slot; this or next weekend, a plan (要, 打算) or a
// thing done once (了) is none, and a message of three statements keeps
// the habit as its own record when another is forgotten.
func TestAChineseHabitSaidByTheTimeItIsKept(t *testing.T) {
	at := time.Date(2026, 6, 6, 20, 0, 0, 0, time.UTC)
	for _, c := range []struct{ text, slot string }{
		{"我周末在体育馆打羽毛球。", "打羽毛球"},
		{"我周末去钓鱼。", "钓鱼"},
		{"我节假日在图书馆当志愿者。", "当志愿者"},
		{"我这周末去杭州。", ""},
		{"我下周末要去杭州。", ""},
		{"我周末打算去钓鱼。", ""},
		{"我周末去了趟杭州。", ""},
	} {
		slot := ""
		for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", at.UnixNano()) {
			if o.Subject == plainHabit {
				slot = o.Attribute
			}
		}
		if slot != c.slot {
			t.Errorf("%q: habit %q, want %q", c.text, slot, c.slot)
		}
	}
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	applyMessage(t, e, s, "u1", "m1", "我养了两只龙猫。我的门禁卡号是55120937。我周末在体育馆打羽毛球。", at)
	forget := &events.Event{ID: "f1", Tenant: "acme", User: "u1", At: at.Add(time.Minute).UnixNano(),
		Body: &events.MemoryForgotten{ID: "m1#2"}}
	forget.Kind = forget.Body.Kind()
	if err := s.apply(e, forget); err != nil {
		t.Fatal(err)
	}
	if where, ok := rawContains(s.reader(), []byte("55120937")); ok {
		t.Errorf("the forgotten card number is still in %s", where)
	}
	if r := getRecord(t, e, s, "m1#3"); r.Subject != plainHabit || r.Status != StatusActive {
		t.Errorf("the habit after the middle statement is forgotten: %+v", r)
	}
}
