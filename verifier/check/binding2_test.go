package check

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestClaimsKeepInitialsAndDates: a full stop after an initial ends no
// claim before a name, one before a sentence opener does, and a date's
// comma between its day and year splits nothing.
func TestClaimsKeepInitialsAndDates(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   []string
	}{
		{"The certificate was signed by K. Osei. It expires in May.", []string{"The certificate was signed by K. Osei.", "It expires in May."}},
		{"It docks at Pier B. The crossing takes an hour.", []string{"It docks at Pier B.", "The crossing takes an hour."}},
		{"Her blood type is O. She can donate.", []string{"Her blood type is O.", "She can donate."}},
		{"The audit of March 3, 2025 lists four findings.", []string{"The audit of March 3, 2025 lists four findings."}},
		{"我最喜欢的作家是J. K. Rowling。", []string{"我最喜欢的作家是J. K. Rowling。"}},
	} {
		var got []string
		for _, c := range SplitClaims(tc.answer) {
			got = append(got, c.Text)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %q, want %q", tc.answer, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: got %q, want %q", tc.answer, got, tc.want)
				break
			}
		}
	}
}

// TestBindingIsNotAmbiguous: a number the claim's words bind to one field
// is not contradicted by it while another field in scope, whose words the
// claim shares, holds the number; and fen keys count the yuan's minor unit.
func TestBindingIsNotAmbiguous(t *testing.T) {
	wantVerdicts(t, []verdictCase{
		// the yuan's minor unit as keys write it in pinyin
		{`{"deposit_fen": 125000, "status": "held"}`, "押金是1250元。", events.VerdictSupported},
		{`{"deposit_fen": 125000, "status": "held"}`, "押金是125000元。", events.VerdictContradicted},
		{`{"item": {"unit_price_fen": 2350, "qty": 4}}`, "单价为23.5元。", events.VerdictSupported},
		// a field the claim shares words with holds the value: not contradicted
		{`{"meter": {"odometer_km": 48210, "previous_odometer_km": 47390}}`, "The previous odometer reading was 47,390 km.", events.VerdictSupported},
		{`{"meter": {"odometer_km": 48210, "previous_odometer_km": 47390}}`, "The odometer reads 48,210 km.", events.VerdictSupported},
		{`{"meter": {"odometer_km": 48210, "previous_odometer_km": 47390}}`, "The odometer reads 49,210 km.", events.VerdictContradicted},
		{`{"sales": {"total_cny": 52000000, "first_week_cny": 18000000}}`, "首周销售额1800万元。", events.VerdictSupported},
		{`{"level_litres": 1820, "previous_level_litres": 1375}`, "The previous level was 1,375 litres.", events.VerdictUnsupported},
		{`{"票房": {"累计_元": 952000000, "首日_元": 61000000}}`, "首日票房6100万元。", events.VerdictSupported},
	})
}

// TestAYearIsNoPartOfACode: a year in a date is the date's, though a code
// of the evidence starts with the same digits.
func TestAYearIsNoPartOfACode(t *testing.T) {
	r := `{"permit": {"permit_no": "2024-881-03", "issued": "2024-06-02"}}`
	wantVerdicts(t, []verdictCase{
		{r, "It was issued on June 2, 2024.", events.VerdictSupported},
		{r, "Permit 2024-881-03 was issued on June 2, 2024.", events.VerdictSupported},
		{r, "It was issued on June 9, 2024.", events.VerdictContradicted},
	})
}

// TestRowLabelsAndKeyWordsAreNoValues: a year the scope holds labels a
// row, and a number written as a word of a key ("five-year") names the
// field; neither is a value to contradict.
func TestRowLabelsAndKeyWordsAreNoValues(t *testing.T) {
	wantVerdicts(t, []verdictCase{
		{`{"seasons": [{"year": 2022, "goals": 14}, {"year": 2023, "goals": 19}], "ten_year_avg_goals": 16.5}`, "The ten-year average is 16.5 goals.", events.VerdictSupported},
		{`{"seasons": [{"year": 2022, "goals": 14}, {"year": 2023, "goals": 19}], "ten_year_avg_goals": 16.5}`, "The ten-year average is 18.5 goals.", events.VerdictContradicted},
		{`{"seasons": [{"year": 2022, "goals": 14}, {"year": 2023, "goals": 19}], "ten_year_avg_goals": 16.5}`, "In 2023 she scored 19 goals.", events.VerdictSupported},
		{`{"readings": [{"year": 2021, "rain_mm": 612}, {"year": 2022, "rain_mm": 540}], "normal_rain_mm": 580}`, "The 2022 rainfall was 540 mm.", events.VerdictSupported},
		// a true value of the year's row: the year names the row (rowByLabel)
		{`{"crop": "oats", "harvests": [{"year": 2021, "yield_t_ha": 3.1}, {"year": 2022, "yield_t_ha": 3.4}], "decade_mean_t_ha": 3.3}`, "The 2022 yield was 3.4 t/ha.", events.VerdictSupported},
		{`{"crop": "oats", "harvests": [{"year": 2021, "yield_t_ha": 3.1}, {"year": 2022, "yield_t_ha": 3.4}], "decade_mean_t_ha": 3.3}`, "The 2021 yield was 3.9 t/ha.", events.VerdictContradicted},
	})
}

// TestAStatusVerbOfAnAmountIsNoState: "paid €320", "charged $40" state an
// amount, not the state of a status field beside it.
func TestAStatusVerbOfAnAmountIsNoState(t *testing.T) {
	r := `{"claim": {"status": "pending", "allowance_minor": 4500, "currency": "GBP"}}`
	wantVerdicts(t, []verdictCase{
		{r, "The nurse is paid £45 a night.", events.VerdictSupported},
		{r, "The nurse is paid £54 a night.", events.VerdictUnsupported}, // no field is named: not decided, and no status
		{r, "The claim has been paid.", events.VerdictContradicted},
	})
}

// TestOutOfIsAScale: the number after "out of" is the scale of the one
// before it, not a value of that one's field.
func TestOutOfIsAScale(t *testing.T) {
	r := `{"test": {"max_marks": 80}, "result": {"final_marks": 61.5, "raw_marks": 66, "late": true}}`
	wantVerdicts(t, []verdictCase{
		{r, "Her final mark was 61.5 out of 80.", events.VerdictSupported},
		{r, "Her final mark was 63.5 out of 80.", events.VerdictContradicted},
	})
}

// TestOverBetweenTwoNumbersIsAcross: "212.7 hours over 188 cycles" is the
// hours across the cycles, not more than 188 of them; "over" before the
// only number is a bound still.
func TestOverBetweenTwoNumbersIsAcross(t *testing.T) {
	wantVerdicts(t, []verdictCase{
		{`{"boats": [{"name": "Kestrel", "engine_hours": 310.2, "trips": 244}]}`, "Kestrel ran 310.2 engine hours over 244 trips.", events.VerdictSupported},
		{`{"boats": [{"name": "Kestrel", "engine_hours": 310.2, "trips": 244}]}`, "Kestrel ran 310.2 engine hours over 260 trips.", events.VerdictContradicted},
		{`{"delay_min": 150}`, "The delay is over 2 hours.", events.VerdictSupported},
		{`{"delay_min": 90}`, "The delay is over 2 hours.", events.VerdictContradicted},
	})
}

// TestAnIntegerIsWrittenToTheUnit: an integer whose last digit is not zero
// states its value to the unit (a unit either way: it may be cut); a round
// one or an "about" keeps the relative tolerance.
func TestAnIntegerIsWrittenToTheUnit(t *testing.T) {
	r := `{"player": {"name": "Okafor", "rating": 2311, "games": 412}, "engine_hours": 212.7}`
	wantVerdicts(t, []verdictCase{
		{r, "Okafor is rated 2311.", events.VerdictSupported},
		{r, "Okafor is rated 2318.", events.VerdictContradicted},
		{r, "Okafor is rated about 2300.", events.VerdictSupported},
		{r, "Okafor has played 413 games.", events.VerdictSupported},
		{r, "Okafor has played 417 games.", events.VerdictContradicted},
		{r, "The engine has run 212 hours.", events.VerdictSupported},
	})
}

// TestABoundIsNoReading: a value that is the bound of a reference range
// beside the row's reading is checked against the reading; a claim that
// names the bound, and a row whose high is no bound of a reading (a day's
// high), keep theirs.
func TestABoundIsNoReading(t *testing.T) {
	wantVerdicts(t, []verdictCase{
		{`{"tests": [{"name": "ferritin", "value": 14, "unit": "ng/mL", "ref_low": 30, "ref_high": 400}]}`, "Ferritin was 30 ng/mL.", events.VerdictContradicted},
		{`{"tests": [{"name": "ferritin", "value": 14, "unit": "ng/mL", "ref_low": 30, "ref_high": 400}]}`, "Ferritin was 14 ng/mL.", events.VerdictSupported},
		{`{"tests": [{"name": "ferritin", "value": 14, "unit": "ng/mL", "ref_low": 30, "ref_high": 400}]}`, "The lower limit for ferritin is 30 ng/mL.", events.VerdictSupported},
		{`{"week": [{"day": "Thu", "high": 71, "low": 55}]}`, "Thursday's high is 71.", events.VerdictSupported},
	})
}

// verdictCase is a claim beside one tool result and the verdict it gets.
type verdictCase struct {
	result, claim string
	want          events.Verdict
}

// wantVerdicts checks each case's claim beside its result on a Checker of
// the default config, as of 2026-03-01 12:00 UTC.
func wantVerdicts(t *testing.T, cases []verdictCase) {
	t.Helper()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewChecker(CheckerConfig{})
	for _, tc := range cases {
		if got, why := checkOne(t, c, tc.result, tc.claim, now); got != tc.want {
			t.Errorf("%q beside %s: %s (%s), want %s", tc.claim, tc.result, got, why, tc.want)
		}
	}
}
