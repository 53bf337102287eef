package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestADiscountInTenthsReadsEitherShare: 打七折 is 70 % of the price paid,
// and a discount field may hold the share paid or the share taken off;
// either bears the claim out, and a share that is neither contradicts it.
func TestADiscountInTenthsReadsEitherShare(t *testing.T) {
	off := `{"salon": "剪艺", "weekday_discount_pct": 20}`
	paid := `{"salon": "剪艺", "vip_discount_pct": 90}`
	wantVerdicts(t, []verdictCase{
		{off, "工作日打八折。", events.VerdictSupported},
		{off, "工作日打六折。", events.VerdictContradicted},
		{paid, "会员打九折。", events.VerdictSupported},
		{paid, "会员打七折。", events.VerdictContradicted},
	})
}

// TestAValueBoundByItsUnitAloneIsNotContradicted: a claim whose words
// name no field, bound to one by its unit only, is not contradicted by
// that field when another field of the unit in its scope holds its value:
// the claim may be about that one, in words its key does not use.
func TestAValueBoundByItsUnitAloneIsNotContradicted(t *testing.T) {
	zh := `{"pool": "碧波游泳馆", "fees": {"adult_fen": 4500, "junior_fen": 2500}, "locker_deposit_fen": 1000}`
	en := `{"bakery": "Rye & Co", "prices": {"loaf_cents": 450, "bun_cents": 120}, "box_deposit_cents": 300}`
	// a field the claim names by its key is judged as before
	pay := `{"writer": "Ana Vaz", "gross_cents": 44465, "fee_cents": 6670, "net_cents": 37795}`
	wantVerdicts(t, []verdictCase{
		{zh, "少儿票25元。", events.VerdictUnsupported},
		{zh, "柜子押金10元。", events.VerdictSupported},
		{en, "A cinnamon swirl is $1.20.", events.VerdictUnsupported},
		{en, "The box deposit is $3.", events.VerdictSupported},
		{en, "The box deposit is $4.", events.VerdictContradicted},
		{pay, "Her net is $444.65.", events.VerdictContradicted},
	})
}

// TestAPendingStatusBearsOutATrueNegation: a status led by a pending word
// (待付款, awaiting_payment) says that what follows has not happened, so a
// claim that it has not is supported and one that it has is contradicted.
func TestAPendingStatusBearsOutATrueNegation(t *testing.T) {
	zh := `{"orders": [{"buyer": "周敏", "status": "待付尾款"}, {"buyer": "钱坤", "status": "已完成"}]}`
	en := `{"orders": [{"buyer": "Ines Moor", "status": "awaiting_payment"}, {"buyer": "Tal Ruiz", "status": "completed"}]}`
	wantVerdicts(t, []verdictCase{
		{zh, "周敏还没有付尾款。", events.VerdictSupported},
		{zh, "周敏尚未付尾款。", events.VerdictSupported},
		{zh, "周敏已经付了尾款。", events.VerdictContradicted},
		{en, "Ines Moor has not paid yet.", events.VerdictSupported},
		{en, "Ines Moor has paid.", events.VerdictContradicted},
	})
}

// TestANegatedPaymentOfAFeeIsNotAFreeFee: "has not paid the deposit",
// 还没付定金 negate the paying, not the charge: beside a status that says
// the payment is still to come they are supported, where "no deposit",
// 不收定金 state a charge of zero.
func TestANegatedPaymentOfAFeeIsNotAFreeFee(t *testing.T) {
	zh := `{"orders": [{"buyer": "周敏", "status": "待付定金", "deposit_fen": 20000}, {"buyer": "钱坤", "status": "已完成", "deposit_fen": 20000}]}`
	free := `{"hostel": "Kite Hill", "deposit_cents": 0}`
	en := `{"lets": [{"tenant": "Ines Moor", "status": "awaiting_deposit", "deposit_cents": 90000}, {"tenant": "Tal Ruiz", "status": "active", "deposit_cents": 90000}]}`
	wantVerdicts(t, []verdictCase{
		{zh, "周敏还没有付定金。", events.VerdictSupported},
		{zh, "周敏尚未支付定金。", events.VerdictSupported},
		{zh, "周敏已经付了定金。", events.VerdictContradicted},
		{zh, "周敏的订单不收定金。", events.VerdictContradicted},
		{en, "Ines Moor has not paid the deposit yet.", events.VerdictSupported},
		{en, "Ines Moor has paid the deposit.", events.VerdictContradicted},
		// no need to pay is a charge of zero
		{free, "入住无需支付押金。", events.VerdictSupported},
		{free, "No deposit is needed.", events.VerdictSupported},
	})
}
