package verifier

import (
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/projector/projectortest"
)

// TestConformance runs the projection contract's suite on a recorded
// history: twelve labelled cases of the checked set (each a run's results,
// then its answer); responses whose outcome carries the final answer (one
// completed, one cut short, one that called tools); evidence and answers
// scoped by session and by tenant only, and another tenant's, which a
// tenant's answer never sees; a result kept by reference; judge verdicts,
// on an undecided claim of a verified answer, again, on a decided claim,
// and on an answer never verified; constraint checks, on the judged answer,
// again, and on an answer never verified (on the answer's subject, as an
// older log holds them), one on the check subject, and a judge's verdict,
// a verdict and another response's check there (refused);
// an answer without a response id and a message that is not an event. The
// view is made as serve makes it.
func TestConformance(t *testing.T) {
	projectortest.Run(t, projectortest.Subject{
		New:    func() projector.Projection { return NewProjection(ProjectionConfig{}) },
		Record: recordHistory,
	})
}

func recordHistory(t testing.TB) []projectortest.Message {
	var out []projectortest.Message
	for _, m := range projectionLog(t, checkedSet(t)[:12]) {
		out = append(out, projectortest.Message{Subject: m.Subject, Data: m.Data, Time: m.Time})
	}
	last := out[len(out)-1].Time
	add := func(subject func(tenant, name string) (string, error), name string, ev *events.Event) {
		t.Helper()
		subj, err := subject(ev.Tenant, name)
		if err != nil {
			t.Fatal(err)
		}
		ev.At = last
		m, err := projectortest.Event(subj, ev)
		if err != nil {
			t.Fatal(err)
		}
		m.Time = last
		out = append(out, m)
	}
	result, resp, answer, checked := events.ResultSubject, events.ResponseSubject, events.AnswerSubject, events.ConstraintCheckSubject
	stock := []byte(`{"sku":"K-7","name":"Kettle","price":{"amount":12,"currency":"EUR"},"in_stock":4,"ships_in_days":3}`)

	// A response's outcome is a final answer when it completed without
	// calling tools.
	add(resp, "final", &events.Event{ID: "outcome:acme/final", Tenant: "acme", Run: "run0", Response: "final",
		Body: &events.ResponseOutcome{Status: events.StatusCompleted, Text: "The order ships in 3 days and costs 12 EUR."}})
	add(resp, "cut", &events.Event{ID: "outcome:acme/cut", Tenant: "acme", Run: "run0", Response: "cut",
		Body: &events.ResponseOutcome{Status: events.StatusIncomplete, Text: "The order ships"}})
	add(resp, "calling", &events.Event{ID: "outcome:acme/calling", Tenant: "acme", Run: "run0", Response: "calling",
		Body: &events.ResponseOutcome{Status: events.StatusCompleted, Calls: 1, Text: "Let me look that up."}})

	// Evidence scoped by session, by tenant only, and another tenant's
	// under the same session name; a result kept by reference only.
	add(result, "s1", &events.Event{ID: "r-s1", Tenant: "acme", Session: "sess1", CallID: "s1",
		Body: &events.CallSucceeded{Name: "get_item", Key: "sess1/s1", Result: stock}})
	add(result, "u1", &events.Event{ID: "r-u1", Tenant: "acme", CallID: "u1",
		Body: &events.CallSucceeded{Name: "get_item", Key: "u1", Result: []byte(`{"sku":"K-9","name":"Toaster","in_stock":0}`)}})
	add(result, "s1", &events.Event{ID: "r-g1", Tenant: "globex", Session: "sess1", CallID: "s1",
		Body: &events.CallSucceeded{Name: "get_item", Key: "sess1/s1", Result: []byte(`{"sku":"K-7","name":"Kettle","in_stock":40}`)}})
	add(result, "ref", &events.Event{ID: "r-ref", Tenant: "acme", Session: "sess1", CallID: "ref",
		Body: &events.CallSucceeded{Name: "get_item", Key: "sess1/ref"}})
	add(answer, "sess-answer", &events.Event{ID: "a-sess", Tenant: "acme", Session: "sess1", Response: "sess-answer",
		Body: &events.AnswerSubmitted{Text: "The Kettle costs 12 EUR, 40 are in stock and it ships in 3 days."}})
	add(answer, "tenant-answer", &events.Event{ID: "a-tenant", Tenant: "acme", Response: "tenant-answer",
		Body: &events.AnswerSubmitted{Text: "The Toaster is out of stock."}})
	add(answer, "sess-answer", &events.Event{ID: "a-globex", Tenant: "globex", Session: "sess1", Response: "sess-answer",
		Body: &events.AnswerSubmitted{Text: "We have 40 Kettles in stock."}})

	// Judge verdicts: on an undecided claim of a verified answer (its
	// verdicts are stored and emitted again under the judged id), the same
	// verdict published again and one on a claim the checker decided
	// (nothing changes), and on an answer never verified (refused).
	add(answer, "sess-judged", &events.Event{ID: "a-judged", Tenant: "acme", Session: "sess1", Response: "sess-judged",
		Body: &events.AnswerSubmitted{Text: "The Kettle costs 12 EUR. It is fully waterproof."}})
	for i, claim := range []int{1, 1, 0} {
		add(answer, "sess-judged", &events.Event{ID: fmt.Sprintf("j-sess-%d", i), Tenant: "acme", Session: "sess1", Response: "sess-judged",
			Body: &events.JudgeVerdict{Claim: claim, Verdict: events.VerdictContradicted, Reason: "the judge disagrees"}})
	}
	add(answer, "nobody", &events.Event{ID: "j-nobody", Tenant: "acme", Response: "nobody",
		Body: &events.JudgeVerdict{Claim: 0, Verdict: events.VerdictSupported}})

	// A check against the user's constraints: on the judged answer (its
	// second claim violates one; the verdicts are stored and emitted again
	// under the constrained id, the judge's verdict kept), the same check
	// recorded again (nothing changes), and one of an answer never verified
	// (refused).
	check := &events.ConstraintsChecked{AsOf: last, InForce: 1, Violations: []events.ConstraintViolation{
		{Start: 24, End: 48, Constraint: events.ConstraintRef{Record: "m1", Version: 1}, Reason: `names "waterproof"`}}}
	for i := range 2 {
		add(answer, "sess-judged", &events.Event{ID: fmt.Sprintf("c-sess-%d", i), Tenant: "acme", Session: "sess1", Response: "sess-judged", Body: check})
	}
	add(answer, "nobody", &events.Event{ID: "c-nobody", Tenant: "acme", Response: "nobody", Body: check})
	// Those were on the answer's subject, as logs written before checks had
	// their own hold them; a check on its own subject (ts.check) is
	// applied too, and a judge's verdict, a verdict or another response's
	// check there is refused (wrong_subject: the driver, who writes there,
	// publishes no verdict).
	add(checked, "tenant-answer", &events.Event{ID: "c-tenant", Tenant: "acme", Response: "tenant-answer", Body: &events.ConstraintsChecked{
		AsOf: last, InForce: 2, Violations: []events.ConstraintViolation{{Start: 4, End: 10, Constraint: events.ConstraintRef{Record: "m2", Version: 3}}}}})
	add(checked, "sess-judged", &events.Event{ID: "f-judge", Tenant: "acme", Session: "sess1", Response: "sess-judged",
		Body: &events.JudgeVerdict{Claim: 0, Verdict: events.VerdictContradicted, Reason: "forged"}})
	add(checked, "sess-answer", &events.Event{ID: "f-verified", Tenant: "acme", Session: "sess1", Response: "sess-answer",
		Body: &events.AnswerVerified{Blocked: true, Policy: string(PolicyBlock)}})
	add(checked, "sess-answer", &events.Event{ID: "f-other", Tenant: "acme", Session: "sess1", Response: "tenant-answer", Body: check})

	// An answer without a response id, and a message that is not an event.
	add(answer, "none", &events.Event{ID: "a-none", Tenant: "acme", Run: "run0",
		Body: &events.AnswerSubmitted{Text: "The order ships in 3 days."}})
	subj, err := events.AnswerSubject("acme", "final")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, projectortest.Message{Subject: subj, Data: []byte("\x00not an event"), Time: last})
}
