package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier"
)

// What a model reads in a large result's summary — the count and a
// numeric field's max, beside the first rows — it may say, and the
// verifier binds it to the call's result as the executor wrote it: the
// whole result when it is inline (larger than SummaryMax, within
// ResultInlineMax): the count and the max are supported, a wrong max is
// contradicted. When the result went to the object store the verifier's
// projection reads the excerpt, its cuts and the summary's statistics: the
// count binds to the whole length, the max to the statistics (it was
// contradicted by the excerpt's first row before), a row past the excerpt
// is unknown, one in it is checked as it is.
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
			answer := fmt.Sprintf("There are %d orders. The largest amount is 912 EUR. The largest amount is 950 EUR.", tc.count)
			want := []events.Verdict{events.VerdictSupported, events.VerdictSupported, events.VerdictContradicted}
			if tc.which == "stored" {
				// Through the verifier's projection, which reads the
				// excerpt, its cuts and the summary's statistics. The count
				// binds to the whole length; a max, true (912) or false
				// (950 above it, 500 below it), to the summary's max of the
				// field, not to the excerpt's first rows. A row the excerpt
				// does not hold (A450) is unknown; a row it holds (A001,
				// amount 21) is checked as it is.
				answer = fmt.Sprintf("There are %d orders. There are %d orders. The largest amount is 912 EUR. The largest amount is 950 EUR. The largest amount is 500 EUR. "+
					"Order A450 has an amount of 20 EUR. Order A001 has an amount of 21 EUR. Order A001 has an amount of 30 EUR. 最大金额是 912 欧元。最大金额是 950 欧元。", tc.count, tc.count+40)
				want = []events.Verdict{events.VerdictSupported, events.VerdictContradicted, events.VerdictSupported, events.VerdictContradicted, events.VerdictContradicted,
					events.VerdictUnsupported, events.VerdictSupported, events.VerdictContradicted, events.VerdictSupported, events.VerdictContradicted}
				claims := verifyStored(t, b, key, answer)
				if len(claims) != len(want) {
					t.Fatalf("claims %+v", claims)
				}
				for i, c := range claims {
					if c.Verdict != want[i] {
						t.Errorf("%q: %s (%s), want %s", c.Text, c.Verdict, c.Reason, want[i])
					}
				}
				return
			}
			ev := verifier.Evidence{CallID: tc.which, Name: "orders.list", Version: 1, Result: o.ok.Result, At: time.Unix(0, 0)}
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

// verifyStored applies the call's outcome event as the executor published
// it and an answer to a verifier projection and returns its claims.
func verifyStored(t *testing.T, b *bus.Bus, key, answer string) []events.ClaimVerdict {
	t.Helper()
	subj, _ := events.ResultSubject("acme", key)
	raw := lastOn(t, b, subj)
	l, err := projector.NewLocal(filepath.Join(t.TempDir(), "v"), verifier.NewProjection(verifier.ProjectionConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ev, err := events.Decode(raw.Data)
	if err != nil {
		t.Fatal(err)
	}
	asubj, _ := events.AnswerSubject("acme", "resp1")
	data, err := events.Encode(&events.Event{ID: "a1", Tenant: "acme", Run: ev.Run, Session: ev.Session, Response: "resp1", At: time.Now().UnixNano(),
		Body: &events.AnswerSubmitted{Text: answer}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Apply(context.Background(), &projector.Msg{Seq: 1, Subject: subj, Data: raw.Data}, &projector.Msg{Seq: 2, Subject: asubj, Data: data}); err != nil {
		t.Fatal(err)
	}
	view := l.Runner().View()
	defer view.Close()
	v, err := verifier.Get(view, "acme", "resp1")
	if err != nil {
		t.Fatal(err)
	}
	return v.Verified.Claims
}
