package memory

import (
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestACorrectionOfAValueSaidInAnEpisode: a statement first kept as an
// episode ("I'm taking the ferry to Bergen on Sunday", 我买了后天去青岛的
// 火车票) and then corrected by the value it held ("no wait, … Stavanger,
// not Bergen", 车票是去日照的，不是青岛) is a statement of a value after
// all: it takes the slot said/<its clause>, holding the replaced value as
// it wrote it, and the correction is the newer value of that slot, which
// supersedes it with the audit links both ways. A correction naming a
// value no episode of the user's holds, or one only another user said,
// changes nothing; forgotten, the correction gives the episode back as
// it was.
func TestACorrectionOfAValueSaidInAnEpisode(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second, want, old string
	}{
		{"en-no-wait", "I'm taking the ferry to Bergen on Sunday for the conference.",
			"No wait, I'm taking the ferry to Stavanger, not Bergen - I misread the ticket.", "Stavanger", "Bergen"},
		{"en-sorry-meant", "We're staying at the Harbour Hotel next week.",
			"Sorry, I meant the Quay Hotel, not the Harbour Hotel.", "Quay Hotel", "Harbour Hotel"},
		{"zh-subject-before-is", "我约了周四下午去看牙医。", "不对，我记错了，看牙是周五，不是周四。", "周五", "周四"},
		{"zh-verb-before-value", "我买了后天去青岛的火车票。", "我看错了，车票是去日照的，不是青岛。", "日照", "青岛"},
		{"zh-user-before-is", "我健身一直在城东那家馆。", "说错了，我健身是在城西那家，不是城东。", "城西", "城东"},
	} {
		t.Run(c.name, func(t *testing.T) {
			supersedes(t, c.first, c.second, at, c.want)
			e, s := sayTwo(t, c.first, c.second, at)
			if old := getRecord(t, e, s, "m1"); old.Subject != saidSubject || old.Value != c.old {
				t.Errorf("the corrected episode %s/%s=%q, want %s/… = %q", old.Subject, old.Attribute, old.Value, saidSubject, c.old)
			}

			// forgetting the correction gives the episode back
			var corr string
			for _, id := range []string{"m2", "m2#2"} {
				if r, err := e.Get(s.reader(), "acme", "u1", id); err == nil && r.Slotted() {
					corr = id
				}
			}
			forget := &events.Event{ID: "f1", Tenant: "acme", User: "u1", At: at.Add(48 * time.Hour).UnixNano(),
				Body: &events.MemoryForgotten{ID: corr}}
			forget.Kind = forget.Body.Kind()
			if err := s.apply(e, forget); err != nil {
				t.Fatal(err)
			}
			if r := getRecord(t, e, s, "m1"); r.Slotted() || r.Kind != KindEpisode || r.Status != StatusActive {
				t.Errorf("after forgetting %s: %s %s/%s=%q %s, want an active episode", corr, r.Kind, r.Subject, r.Attribute,
					r.Value, r.Status)
			}
		})
	}
	for _, c := range []struct{ name, first, second string }{
		{"en-another-value", "I'm taking the ferry to Bergen on Sunday.", "No wait, Stavanger, not Oslo."},
		{"zh-another-value", "我买了后天去青岛的火车票。", "我看错了，是去日照的，不是烟台。"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			if r := getRecord(t, e, s, "m1"); r.Slotted() || r.Status != StatusActive {
				t.Errorf("an episode holding no replaced value: %s %s/%s=%q %s, want it kept as it was", r.Kind,
					r.Subject, r.Attribute, r.Value, r.Status)
			}
		})
	}
	t.Run("another-user", func(t *testing.T) {
		e := NewEngine(Config{}, nil)
		s := newPebbleStore(t)
		applyMessage(t, e, s, "u2", "m1", "I'm taking the ferry to Bergen on Sunday.", at)
		applyMessage(t, e, s, "u1", "m2", "No wait, I'm taking the ferry to Stavanger, not Bergen.", at.Add(time.Hour))
		r, err := e.Get(s.reader(), "acme", "u2", "m1")
		if err != nil || r.Slotted() || r.Status != StatusActive {
			t.Errorf("another user's episode: %+v, %v; want it kept as it was", r, err)
		}
		if r := getRecord(t, e, s, "m2"); r.Slotted() {
			t.Errorf("a correction of a value the user never said: %s/%s=%q, want an episode", r.Subject, r.Attribute, r.Value)
		}
	})
}

// TestACorrectionThatNamesOnlyItsNewValue: a correction that gives only
// its new value ("Sorry, I meant Thursday", "Scratch that, it's 41",
// 应该是江滨路，我刚才说反了, 不好意思，我看错了，应该是21号) is the newer value of
// the slot of the statement the user said last, which it supersedes with
// the audit links both ways. It corrects nothing when what was said last
// holds no value (a ban, an episode), or a value of another kind told by
// what it holds (a rent of 900 pounds is no day), and apology words with
// no new value ("Sorry, I'm late", 今天我看错了路) are no correction.
func TestACorrectionThatNamesOnlyItsNewValue(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second, want string }{
		{"en-i-meant", "My dentist appointment is on Wednesday.", "Sorry, I meant Thursday.", "Thursday"},
		{"en-scratch-that", "My locker number is 14.", "Scratch that, it's 41 - I read it upside down.", "41"},
		{"zh-lead-first", "我的新家在滨江路。", "应该是江滨路，我刚才说反了。", "江滨路"},
		{"zh-cue-first", "我的车位是B区12号。", "不好意思，我看错了，应该是21号。", "21号"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	for _, c := range []struct {
		name string
		said []string
	}{
		{"en-ban-said-last", []string{"I'm allergic to peanuts.", "Sorry, I meant Thursday."}},
		{"en-another-kind", []string{"My rent is 900 pounds a month.", "Sorry, I meant Thursday."}},
		{"en-episode-said-last", []string{"My dentist appointment is on Wednesday.", "I had pasta with Tom today.", "Sorry, I meant Thursday."}},
		{"en-no-value", []string{"My dentist appointment is on Wednesday.", "Sorry, I'm late."}},
		{"zh-ban-said-last", []string{"我对花生过敏。", "我说错了，应该是周四。"}},
		{"zh-no-value", []string{"我的牙医预约在周三。", "今天我看错了路，走到了别的小区。"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			for i, text := range c.said {
				applyMessage(t, e, s, "u1", fmt.Sprintf("m%d", i+1), text, at.Add(time.Duration(i)*time.Hour))
			}
			if r := getRecord(t, e, s, "m1"); r.Status != StatusActive || len(r.Supersedes) != 0 {
				t.Errorf("%s/%s=%q %s, want it kept as it was", r.Subject, r.Attribute, r.Value, r.Status)
			}
			if r := getRecord(t, e, s, fmt.Sprintf("m%d", len(c.said))); r.Slotted() {
				t.Errorf("the last %q: %s/%s=%q, want an episode", c.said[len(c.said)-1], r.Subject, r.Attribute, r.Value)
			}
		})
	}
}
