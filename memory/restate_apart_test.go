package memory

import (
	"testing"
	"time"
)

// TestARestatementOfAnotherUserSupersedesNothing: u2's restatement does not
// touch u1's slot.
func TestARestatementOfAnotherUserSupersedesNothing(t *testing.T) {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second string }{
		{"en", "My gym membership is 45 pounds a month.", "They put prices up, so make it 52 pounds for the gym going forward."},
		{"zh", "我的房租是每月三千二。", "房东涨价了，房租现在是每月三千五。"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			applyMessage(t, e, s, "u1", "m1", c.first, at)
			applyMessage(t, e, s, "u2", "m2", c.second, at.Add(24*time.Hour))
			if old := getRecord(t, e, s, "m1"); old.Status != StatusActive {
				t.Errorf("another user's restatement ended u1's %+v", old)
			}
		})
	}
}
