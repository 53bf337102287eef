package memory

import (
	"math"
	"testing"
	"time"
)

// TestAQuantityCorrectedInOtherUnitsSupersedes: a correction that says
// which quantity it is not ("…, not 135 cm", 不是40斤) replaces the
// statement that said that amount in other units or words ("135
// centimetres", 四十斤), slotted or kept as an episode, with both audit
// links; the new value is the quantity of the same dimension the
// correction says. An amount of another dimension, or one the user never
// said, replaces nothing.
func TestAQuantityCorrectedInOtherUnitsSupersedes(t *testing.T) {
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, first, second, want string
	}{
		{"en-episode-words", "The rug we picked out is 240 centimetres long.",
			"My mistake - the rug is two metres and a half long, not 240 cm.", "two metres and a half"},
		{"en-slot-metres", "My bookshelf is 180 cm tall.",
			"Sorry, my bookshelf is 2 metres tall, not 180 centimetres.", "2 metres"},
		{"en-mass-words", "The parcel I'm sending weighs 1500 grams.",
			"My mistake - the parcel is three kilos, not 1.5 kg.", "three kilos"},
		{"zh-jin-kg", "我家狗狗的体重是三十斤。", "刚才那个数不对，狗狗体重是18公斤，不是15公斤。", "18公斤"},
		{"zh-digits-numerals", "我的鱼缸是一米二长的。", "我说错了，鱼缸是1.5米，不是120厘米。", "1.5米"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	for _, c := range []struct{ name, first, second string }{
		{"en-other-dimension", "My bookshelf is 180 cm tall.", "Sorry, the box is 3 kilos, not 180 grams."},
		{"en-amount-never-said", "My bookshelf is 180 cm tall.", "Sorry, my desk is 2 metres wide, not 150 cm."},
		{"zh-other-dimension", "我家狗狗的体重是三十斤。", "我说错了，狗窝是80厘米，不是30厘米。"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := sayTwo(t, c.first, c.second, at)
			if old := getRecord(t, e, s, "m1"); old.Status != StatusActive {
				t.Errorf("%q replaced by %q: %+v", c.first, c.second, old)
			}
		})
	}
}

// TestQuantitiesAreReadWithTheirUnits: an amount is read from digits or
// number words and its unit, English or Chinese, and two amounts are the
// same when they name one value of one dimension.
func TestQuantitiesAreReadWithTheirUnits(t *testing.T) {
	for _, c := range []struct {
		text string
		base float64 // in the dimension's base unit; 0: none read
	}{
		{"135 centimetres", 1.35},
		{"a metre and a half", 1.5},
		{"two and a half metres", 2.5},
		{"135cm", 1.35},
		{"1,000 mg", 1},
		{"five hundred milligrams", 0.5},
		{"a hundred grams", 100},
		{"四十斤", 20000},
		{"23公斤", 23000},
		{"23 kg", 23000},
		{"一米五", 1.5},
		{"三斤半", 1750},
		{"the 9th", 0},
		{"at 7pm", 0},
		{"3月17号", 0},
	} {
		qs := quantitiesIn(c.text)
		switch {
		case c.base == 0 && len(qs) > 0:
			t.Errorf("%q: read %+v, want no amount", c.text, qs)
		case c.base != 0 && (len(qs) != 1 || math.Abs(qs[0].base()-c.base) > 1e-9*c.base):
			t.Errorf("%q: read %+v, want one amount of %v", c.text, qs, c.base)
		}
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"135 cm", "135 centimetres", true},
		{"1.5 m", "a metre and a half", true},
		{"四十斤", "20公斤", true},
		{"40斤", "四十斤", true},
		{"135 cm", "135 kg", false},
		{"20 dollars", "20 euros", false},
	} {
		qa, oka := wholeQuantity(c.a)
		qb, okb := wholeQuantity(c.b)
		if !oka || !okb || qa.same(qb) != c.same {
			t.Errorf("%q and %q: read %v %v, same %v, want %v", c.a, c.b, oka, okb, qa.same(qb), c.same)
		}
	}
}
