package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/verifier"
)

// What a model reads in a large result's summary — the count and a
// numeric field's max, beside the first rows — it may say, and the
// verifier binds it to the call's result as the executor wrote it: the
// whole result when it is inline (larger than SummaryMax, within
// ResultInlineMax): the count and the max are supported, a wrong max is
// contradicted. When the result went to the object store the verifier
// reads the excerpt and its cuts, as its projection does: the count binds
// (the cut keeps the array's length); the excerpt holds the first rows
// only, so a claim about the max — true or false — is about rows it may
// have left out and is unsupported, never contradicted by a first row (it
// was, before the verifier knew); a row past the excerpt is unknown, one
// in it is checked as it is. The verifier does not read the summary's
// statistics.
func TestSummarisedResultClaimsBind(t *testing.T) {
	b := bustest.Start(t)
	reg := parseRegistry(t, `
tools:
  - name: orders.list
    side_effect: none
grants:
  - tenant: acme
    permissions: [orders.list]
`)
	results := map[string][]byte{}
	for _, tc := range []struct {
		name string
		rows int
		note int
	}{{"inline", 60, 40}, {"stored", 600, 300}} {
		rows := make([]map[string]any, tc.rows)
		for i := range rows {
			rows[i] = map[string]any{"id": fmt.Sprintf("A%03d", i), "amount": 20 + i%50, "note": strings.Repeat("x", tc.note)}
		}
		rows[tc.rows*2/3]["amount"] = 912
		results[tc.name], _ = json.Marshal(map[string]any{"orders": rows})
	}
	list := newCounter(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
		var a struct{ Which string }
		json.Unmarshal(c.Args, &a)
		return results[a.Which], nil
	})
	startExec(t, b, reg, map[string]executor.Tool{"orders.list": list}, func(c *executor.Config) { c.ResultInlineMax = 16 << 10 })
	checker := verifier.NewChecker(verifier.CheckerConfig{})
	for _, tc := range []struct {
		which string
		count int
	}{{"inline", 60}, {"stored", 600}} {
		t.Run(tc.which, func(t *testing.T) {
			key := publishCall(t, b, callSpec{tenant: "acme", tool: "orders.list", call: tc.which, args: `{"which":"` + tc.which + `"}`})
			o := waitOutcome(t, b, "acme", key)
			if o.ok == nil {
				t.Fatalf("outcome %v", o)
			}
			if stored := o.ok.RawRef != ""; stored != (tc.which == "stored") {
				t.Fatalf("stored in the object store %v, want %v", stored, tc.which == "stored")
			}
			var sum struct {
				Orders struct {
					Count int
					Stats map[string]map[string]json.Number
				}
			}
			if err := json.Unmarshal([]byte(o.ok.Summary), &sum); err != nil {
				t.Fatal(err)
			}
			if sum.Orders.Count != tc.count || sum.Orders.Stats["amount"]["max"] != "912" {
				t.Fatalf("summary %s", o.ok.Summary)
			}
			ev := verifier.Evidence{CallID: tc.which, Name: "orders.list", Version: 1, Result: o.ok.Result, At: time.Unix(0, 0)}
			if o.ok.RawRef != "" {
				ev.Result, ev.Cuts = o.ok.Excerpt, o.ok.Cuts
			}
			answer := fmt.Sprintf("There are %d orders. The largest amount is 912 EUR. The largest amount is 950 EUR.", tc.count)
			want := []events.Verdict{events.VerdictSupported, events.VerdictSupported, events.VerdictContradicted}
			if tc.which == "stored" {
				// The count binds to the whole length; a max, true (912) or
				// false (950 above it, 500 below it), is about rows the
				// excerpt may have left out: never contradicted by its first
				// rows. A row the excerpt does not hold (A450) is unknown; a
				// row it holds (A001, amount 21) is checked as it is, and a
				// superlative of it over the kept rows alone is not borne out.
				answer = fmt.Sprintf("There are %d orders. There are %d orders. The largest amount is 912 EUR. The largest amount is 950 EUR. The largest amount is 500 EUR. "+
					"Order A450 has an amount of 20 EUR. Order A001 has an amount of 21 EUR. Order A001 has an amount of 30 EUR.", tc.count, tc.count+40)
				want = []events.Verdict{events.VerdictSupported, events.VerdictContradicted, events.VerdictUnsupported, events.VerdictUnsupported, events.VerdictUnsupported,
					events.VerdictUnsupported, events.VerdictSupported, events.VerdictContradicted}
			}
			rep := checker.Check(answer, []verifier.Evidence{ev}, time.Unix(0, 0))
			if len(rep.Claims) != len(want) {
				t.Fatalf("claims %+v", rep.Claims)
			}
			for i, c := range rep.Claims {
				if c.Verdict != want[i] {
					t.Errorf("%q: %s (%s), want %s", c.Text, c.Verdict, c.Reason, want[i])
				}
			}
		})
	}
}
