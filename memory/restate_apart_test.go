package memory

import (
	"testing"
	"time"
)

// TestTwoFactsSharingAWordDoNotSupersede: a change said about another
// thing that shares one word with a statement of the user (the gym, a
// daughter, 房租, 女儿) is no newer value of that statement's slot.
func TestTwoFactsSharingAWordDoNotSupersede(t *testing.T) {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second string }{
		{"en-gym-buddy", "My gym membership is 45 pounds a month.", "My gym buddy switched to 6 am sessions now."},
		{"en-daughter", "My daughter's school is Oakwood Primary.", "My daughter now takes 2 piano lessons a week."},
		{"en-car", "My car insurance is 600 pounds a year.", "The car park switched to 3 pounds an hour instead."},
		{"en-dentist", "My dentist is Dr Patel on King Street.", "The dentist's receptionist is Maria now."},
		{"zh-invoice", "我的房租是每月三千二。", "房租发票现在改成电子的了。"},
		{"zh-daughter", "我女儿的学校是实验小学。", "我女儿的钢琴课现在改成周六了。"},
		{"zh-coffee", "我早上喝的咖啡是美式。", "公司楼下的咖啡店现在换成了瑞幸。"},
		{"zh-phone", "我的手机号是13800001111。", "我的手机壳现在换成蓝色的了。"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			applyMessage(t, e, s, "u1", "m1", c.first, at)
			applyMessage(t, e, s, "u1", "m2", c.second, at.Add(24*time.Hour))
			old, nu := getRecord(t, e, s, "m1"), getRecord(t, e, s, "m2")
			if !old.Slotted() {
				t.Skipf("the first statement slotted nothing: %+v", old)
			}
			if old.Status != StatusActive {
				t.Errorf("%q superseded %q (%s/%s=%q): now %s/%s=%q", c.second, c.first, old.Subject, old.Attribute, old.Value,
					nu.Subject, nu.Attribute, nu.Value)
			}
		})
	}
}

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
