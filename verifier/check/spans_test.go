package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestSpanBetweenTwoFields: a duration no field states is the span
// between two times of day of its row, the two ends of a range in one
// string or the days between two dates of one object; a span that
// matches supports it (to the minute, within half a unit of weeks, months
// or years), a field of the whole that does not hold it (a time limit, a
// slot length) is not what it is about and leaves it unsupported, and a
// row with one span contradicts a claim naming that row. A field the
// claim names by the noun the number measures, a field of its own row,
// and one holding the same number in another unit still decide.
func TestSpanBetweenTwoFields(t *testing.T) {
	grooming := `{"salon":"Tidy Paws","max_stay_minutes":120,"slot_minutes":30,"visits":[{"dog":"Biscuit","checked_in":"10:05","collected":"11:35"},{"dog":"Pepper","checked_in":"12:10","collected":"12:55"}]}`
	jiazheng := `{"公司":"安家家政","响应时限_分钟":60,"工单":[{"单号":"JZ-301","下单时间":"08:20","上门时间":"09:10","完工时间":"11:40"},{"单号":"JZ-305","下单时间":"13:05","上门时间":"13:50","完工时间":"14:35"}]}`
	canteen := `{"食堂":"北区食堂","窗口":[{"名称":"面档","营业时间":"10:00-14:30"},{"名称":"粥档","营业时间":"06:30-09:00"}]}`
	permits := `{"council":"Ashbury","permits":[{"permit":"P-77","site":"Mill Yard","applied":"2026-01-05","granted":"2026-01-19"},{"permit":"P-81","site":"Quay Street","applied":"2026-01-12","granted":"2026-02-20"}]}`
	lease := `{"unit":"Kiln 4","starts":"2024-03-01","ends":"2027-02-28","rent_months_paid":24}`
	zhDates := `{"申请人":"邵明","递交日期":"2026-01-06","办结日期":"2026-02-03","承诺办结天数":30}`
	volunteers := `{"volunteers":{"hours":436,"from":"2026-02-16","to":"2026-02-22"}}`
	wantVerdicts(t, []verdictCase{
		{grooming, "Biscuit stayed an hour and a half.", events.VerdictSupported},
		{grooming, "Pepper was there for 45 minutes.", events.VerdictSupported},
		{grooming, "Pepper was there for 70 minutes.", events.VerdictContradicted},
		{grooming, "Slots are 40 minutes long.", events.VerdictContradicted},
		{jiazheng, "JZ-301的阿姨下单后50分钟就上门了。", events.VerdictSupported},
		{jiazheng, "JZ-301做了两个半小时。", events.VerdictSupported},
		{jiazheng, "JZ-305的阿姨45分钟就干完了。", events.VerdictSupported},
		{jiazheng, "阿姨35分钟就上门了。", events.VerdictUnsupported},
		{canteen, "面档中午营业四个半小时。", events.VerdictSupported},
		{canteen, "粥档早上营业两个半小时。", events.VerdictSupported},
		{permits, "P-77 was granted 14 days after it was applied for.", events.VerdictSupported},
		{permits, "Mill Yard's permit took two weeks.", events.VerdictSupported},
		{permits, "Quay Street waited 39 days for its permit.", events.VerdictSupported},
		{lease, "The lease runs for three years.", events.VerdictSupported},
		{zhDates, "邵明的申请28天就办结了。", events.VerdictSupported},
		{zhDates, "承诺办结时限是30天。", events.VerdictSupported},
		{zhDates, "承诺办结时限是20天。", events.VerdictContradicted},
		{volunteers, "Volunteers gave 436 days last week.", events.VerdictContradicted},
	})
}

// TestEndFromADateAndADayCount: an end date no field holds is its
// object's date plus a day count beside it (issued and valid_days), as
// well as that count from today.
func TestEndFromADateAndADayCount(t *testing.T) {
	voucher := `{"voucher":"V-12","issued":"2026-02-10","valid_days":60,"value_pence":2500}`
	zh := `{"券号":"Q-88","领取日期":"2026-02-20","有效天数":15}`
	wantVerdicts(t, []verdictCase{
		{voucher, "The voucher is valid until 11 April.", events.VerdictSupported},
		{voucher, "The voucher was issued on 10 February.", events.VerdictSupported},
		{voucher, "The voucher is valid for 60 days.", events.VerdictSupported},
		{zh, "这张券3月7日前有效。", events.VerdictSupported},
	})
}

// TestDateOfARowTheClaimDoesNotName: a date the claim's words bind to one
// row of a list that the claim does not name, while a date of the whole
// holds the claimed day, is not the claim's (another row's, another
// event's): unsupported, not contradicted. A day no date in scope holds,
// or a row the claim names, still contradicts.
func TestDateOfARowTheClaimDoesNotName(t *testing.T) {
	// wantVerdicts' now is 2026-03-01: tomorrow is 2 March, yesterday 28 February.
	rinks := `{"club":"Elm Curling","date":"2026-03-02","sheets":[{"sheet":"A","bookings":[{"from":"18:00","to":"20:00","team":"Rocks"}]},{"sheet":"C","status":"closed","reopens":"2026-03-16"}]}`
	bakery := `{"店":"麦香坊","日期":"2026-02-28","到货":[{"品名":"高筋面粉","袋数":40,"状态":"已入库"},{"品名":"黄油","袋数":6,"状态":"在途","预计到货":"2026-03-03"}]}`
	wantVerdicts(t, []verdictCase{
		{rinks, "Tomorrow the sheets are reopened for league play.", events.VerdictUnsupported},
		{rinks, "Sheet C reopens on 16 March.", events.VerdictSupported},
		{rinks, "Sheet C reopens on 9 March.", events.VerdictContradicted},
		{bakery, "昨天进了40袋高筋面粉。", events.VerdictSupported},
		{bakery, "昨天到了一批货。", events.VerdictUnsupported},
		{bakery, "黄油预计3月3日到货。", events.VerdictSupported},
		{bakery, "黄油预计3月5日到货。", events.VerdictContradicted},
	})
}
