package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestAnAveragePerThingQuantifiesNoMembers: 均 in an average per thing
// (日均, 场均, 亩均) divides; it is not the adverb 均 ("all") that would
// check the claim against every row of the list.
func TestAnAveragePerThingQuantifiesNoMembers(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	workers := `{"workers": [{"name": "Zhou Min", "daily_avg_pieces": 410}, {"name": "Lin Tao", "daily_avg_pieces": 325}, {"name": "Gao Fei", "daily_avg_pieces": 298}]}`
	farms := `{"农户": [{"姓名": "邓立新", "亩均产量_斤": 1180}, {"姓名": "许春梅", "亩均产量_斤": 960}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{workers, "Lin Tao日均加工325件。", events.VerdictSupported},
		{workers, "Lin Tao日均加工410件。", events.VerdictContradicted},
		{workers, "Lin Tao averages 325 pieces a day.", events.VerdictSupported},
		{workers, "Lin Tao averages 410 pieces a day.", events.VerdictContradicted},
		{farms, "许春梅亩均产量960斤。", events.VerdictSupported},
		{farms, "许春梅亩均产量1180斤。", events.VerdictContradicted},
		// the adverb 均 still quantifies the rows
		{farms, "两户亩均产量均超过900斤。", events.VerdictSupported},
		{farms, "两户亩均产量均超过1000斤。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestAUniversalAfterOneRowQuantifiesThatRow: 全部 or "all" said after the
// one row the claim names (红糖馒头全部卖完了) quantifies that row's stock or
// work, not the list's members, whose other names would contradict it.
func TestAUniversalAfterOneRowQuantifiesThatRow(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	buns := `{"items": [{"item": "红糖馒头", "stock": 0}, {"item": "葱油花卷", "stock": 14}, {"item": "豆沙包", "stock": 6}]}`
	bunsEn := `{"items": [{"item": "rye loaf", "stock": 0}, {"item": "seeded roll", "stock": 14}, {"item": "milk bun", "stock": 6}]}`
	shows := `{"场次": [{"名称": "昆曲专场", "余票": 0}, {"名称": "评弹专场", "余票": 23}]}`
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{buns, "红糖馒头全部卖完了。", events.VerdictSupported},
		{buns, "葱油花卷全部卖完了。", events.VerdictContradicted},
		{bunsEn, "The rye loaf is all sold out.", events.VerdictSupported},
		{shows, "昆曲专场的票全部售罄。", events.VerdictSupported},
		{shows, "评弹专场的票全部售罄。", events.VerdictContradicted},
		// over the list, the members still decide
		{shows, "两个专场的票都售罄了。", events.VerdictContradicted},
		{buns, "所有品种都卖完了。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}

// TestADiscountInDigitWordsIsItsShare: 八五折, 七五折 name 85 % and 75 % of
// the price, as 8.5折 does, whether a field holds the share (0.85), its
// percentage (85) or what is taken off (0.15); a numeral ending on 五 is no
// half price.
func TestADiscountInDigitWordsIsItsShare(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range []struct {
		result, claim string
		want          events.Verdict
	}{
		{`{"tier": "银卡", "折扣": 0.75}`, "银卡会员打七五折。", events.VerdictSupported},
		{`{"tier": "银卡", "折扣": 0.75}`, "银卡会员打八五折。", events.VerdictContradicted},
		{`{"tier": "银卡", "折扣": 0.75}`, "银卡会员打五折。", events.VerdictContradicted},
		{`{"tier": "silver", "discount_pct": 95}`, "silver会员打九五折。", events.VerdictSupported},
		{`{"tier": "silver", "discount_pct": 95}`, "Silver members pay 95% of the price.", events.VerdictSupported},
		{`{"tier": "silver", "discount_off": 0.15}`, "silver会员打八五折。", events.VerdictSupported},
		{`{"tier": "silver", "discount_off": 0.15}`, "silver会员打九五折。", events.VerdictContradicted},
	} {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
