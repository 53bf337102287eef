package check_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/verifier/check"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// BenchmarkCheckDatesAgainstDates is the shape of the date budget case of
// cmd/toolstream's TestInputBudgets, at a size given in KiB: an array of
// n dates as the evidence, an answer of claims each stating a date and a
// duration (the checker checks ClaimsMax of them). The work per claim
// is bounded by fieldsWeighedMax, not by the array: the ns/claim of the
// sizes must level off once the array holds that many dates. Each claim
// ranks the array's dates as the siblings of the first (siblingJudge), so
// a profile of the largest size shows what a claim pays per field.
func BenchmarkCheckDatesAgainstDates(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	for _, kib := range []int{16, 64, 256} {
		b.Run(strconv.Itoa(kib)+"KiB", func(b *testing.B) {
			n := kib << 10
			unit := `"2026-12-01",`
			result := `{"eta":[` + strings.Repeat(unit, n/len(unit)) + `"2026-12-02"]}`
			sentence := "It arrives on 2026-12-03, in 2 days. "
			answer := strings.Repeat(sentence, n/len(sentence))
			ev := []evidence.Evidence{{CallID: "c", Name: "n", Result: json.RawMessage(result)}}
			c := check.NewChecker(check.CheckerConfig{})
			now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
			claims := len(check.SplitClaims(answer))
			if claims > 1000 {
				claims = 1000
			}
			b.ResetTimer()
			for b.Loop() {
				c.Check(answer, ev, now)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(claims), "ns/claim")
		})
	}
}

// BenchmarkCheckRowsAgainstClaims is the shape of the budget cases of
// cmd/toolstream's TestInputBudgets that hold rows of numbers against
// claims of one number each, at a size given in KiB: an array of n rows,
// each with two fields of one kind (money amounts, durations,
// identifiers), as the evidence, and an answer of claims each stating a value of that kind (the
// checker checks ClaimsMax of them). The work per claim is bounded by
// fieldsWeighedMax fields, not by the array: the ns/claim of the sizes must
// level off once the array holds that many fields of the claim's kind.
func BenchmarkCheckRowsAgainstClaims(b *testing.B) {
	if testing.Short() {
		b.Skip("benchmark")
	}
	for _, shape := range []struct{ name, row, last, sentence string }{
		{"amounts", `{"id":"A1","amount":120.5,"total_amount":99,"currency":"EUR"},`, `{"id":"B2","amount":7,"total_amount":8,"currency":"EUR"}`, "The total amount is 130.50 EUR. "},
		{"durations", `{"id":"A1","duration_min":45,"delay_hours":2},`, `{"id":"B2","duration_min":4,"delay_hours":1}`, "The trip takes 50 minutes with a delay of 3 hours. "},
		{"identifiers", `{"order_id":"A1234","invoice_no":98765,"amount":12},`, `{"order_id":"B2","invoice_no":1,"amount":2}`, "Order A1235 has invoice number 98766. "},
	} {
		for _, kib := range []int{16, 64, 256} {
			b.Run(shape.name+"/"+strconv.Itoa(kib)+"KiB", func(b *testing.B) {
				n := kib << 10
				result := `{"rows":[` + strings.Repeat(shape.row, n/len(shape.row)) + shape.last + `]}`
				answer := strings.Repeat(shape.sentence, n/len(shape.sentence))
				ev := []evidence.Evidence{{CallID: "c", Name: "n", Result: json.RawMessage(result)}}
				c := check.NewChecker(check.CheckerConfig{})
				now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
				claims := min(len(check.SplitClaims(answer)), 1000)
				b.ResetTimer()
				for b.Loop() {
					c.Check(answer, ev, now)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(claims), "ns/claim")
			})
		}
	}
}
