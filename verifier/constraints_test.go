package verifier

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// A recorded constraint check is applied to the verdict it names: the
// claim it overlaps violates_constraint, naming the record and version,
// its evidence verdict kept in the reason; the tenant's block policy
// withholds the answer; the verdict is published again under
// ConstrainedID, marked checked; a second record of the check changes
// nothing, and a check of an answer never verified is bad input. The
// check is read on its own subject (ts.check), and on the answer's, where
// logs written before it had one hold it.
func TestConstraintsCheckedApplies(t *testing.T) {
	for name, subject := range map[string]func(tenant, response string) (string, error){
		"check subject": events.ConstraintCheckSubject, "answer subject (an older log)": events.AnswerSubject} {
		t.Run(name, func(t *testing.T) { testConstraintsCheckedApplies(t, subject) })
	}
}

func testConstraintsCheckedApplies(t *testing.T, checkSubject func(tenant, response string) (string, error)) {
	at := time.Date(2024, 5, 3, 0, 0, 0, 0, time.UTC).UnixNano()
	var msgs []*projector.Msg
	add := func(ev *events.Event, subj string) {
		t.Helper()
		data, err := events.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, &projector.Msg{Seq: uint64(len(msgs) + 1), Subject: subj, Time: ev.At, Data: data})
	}
	subj, _ := events.ResultSubject("acme", "c1")
	add(&events.Event{ID: "r1", Tenant: "acme", Run: "run1", CallID: "c1", At: at,
		Body: &events.CallSucceeded{Name: "get_item", Key: "run1/c1", Result: []byte(`{"name":"Kettle","price":{"amount":12,"currency":"EUR"}}`)}}, subj)
	answer := "The Kettle costs 12 EUR. I'd suggest the shrimp."
	subj, _ = events.AnswerSubject("acme", "resp1")
	add(&events.Event{ID: "a1", Tenant: "acme", Run: "run1", Response: "resp1", At: at, Body: &events.AnswerSubmitted{Text: answer}}, subj)
	check := &events.ConstraintsChecked{AsOf: at, InForce: 2, Violations: []events.ConstraintViolation{
		{Start: 25, End: 48, Constraint: events.ConstraintRef{Record: "m7", Version: 2}, Reason: `names "shrimp"`},
		{Start: 40, End: 90, Constraint: events.ConstraintRef{Record: "bad", Version: 1}}, // past the answer's end: ignored
	}}
	csubj, _ := checkSubject("acme", "resp1")
	for i := range 2 {
		add(&events.Event{ID: events.ConstraintsCheckedID("acme", "resp1") + fmt.Sprint("#", i), Tenant: "acme", Run: "run1", Response: "resp1",
			At: at + 1, Body: check}, csubj)
	}
	l, err := projector.NewLocal(filepath.Join(t.TempDir(), "v"), NewProjection(ProjectionConfig{DefaultPolicy: PolicyBlock}))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var ids []string
	for _, m := range msgs {
		out, err := l.Apply(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range out {
			ids = append(ids, e.Event.ID)
		}
	}
	if want := []string{events.VerifiedID("acme", "resp1"), events.ConstrainedID("acme", "resp1")}; !slices.Equal(ids, want) {
		t.Fatalf("emitted %v, want %v", ids, want)
	}
	v, err := Get(l.Runner().View(), "acme", "resp1")
	if err != nil {
		t.Fatal(err)
	}
	cl := v.Verified.Claims
	if len(cl) != 2 || cl[0].Verdict != events.VerdictSupported || cl[1].Verdict != events.VerdictViolatesConstraint ||
		cl[1].Constraint == nil || *cl[1].Constraint != (events.ConstraintRef{Record: "m7", Version: 2}) ||
		cl[1].Reason != `violates constraint m7@2: names "shrimp" (against the evidence: not_checkable)` {
		t.Fatalf("claims %+v", cl)
	}
	if !v.Verified.Blocked || !v.Verified.ConstraintsChecked || v.Verified.Constraints != 2 {
		t.Errorf("verdict %+v: want blocked, checked against 2", v.Verified)
	}
	// Annotate lets it through with the verdict; redact removes the claim.
	if got, blocked := ApplyPolicy(PolicyRedact, answer, Report{Claims: cl}); blocked || got != "The Kettle costs 12 EUR. "+RedactMarker+"." {
		t.Errorf("redact: %q %v", got, blocked)
	}

	// A check of an answer never verified is bad input.
	subj2, _ := checkSubject("acme", "resp2")
	data, _ := events.Encode(&events.Event{ID: "x", Tenant: "acme", Response: "resp2", At: at, Body: check})
	out, err := l.Apply(context.Background(), &projector.Msg{Seq: uint64(len(msgs) + 1), Subject: subj2, Time: at, Data: data})
	if err != nil && !errors.Is(err, events.ErrBadInput) {
		t.Fatal(err)
	}
	if _, gerr := Get(l.Runner().View(), "acme", "resp2"); len(out) != 0 || !errors.Is(gerr, ErrNotVerified) {
		t.Errorf("a check of an answer never verified: emitted %d, verdict %v", len(out), gerr)
	}
}

// The check subject holds checks only: the role that records checks
// there (run mode's driver) may not publish verdicts, so a verdict, a
// judge's verdict or an answer published on it, or a check of another
// response than the subject's, is refused (wrong_subject): it emits
// nothing and the verdict, its undecided claim and the answers stay as
// they were. The same judge's verdict on the answer's subject (where the
// judge publishes) is applied, so the claim was one a verdict decides.
func TestCheckSubjectCarriesNoVerdict(t *testing.T) {
	at := time.Date(2024, 5, 3, 0, 0, 0, 0, time.UTC).UnixNano()
	l, err := projector.NewLocal(filepath.Join(t.TempDir(), "v"), NewProjection(ProjectionConfig{DefaultPolicy: PolicyBlock}))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seq := uint64(0)
	apply := func(subject func(tenant, response string) (string, error), response string, ev *events.Event) (uint64, []projector.Emitted) {
		t.Helper()
		subj, err := subject("acme", response)
		if err != nil {
			t.Fatal(err)
		}
		data, err := events.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		seq++
		out, err := l.Apply(context.Background(), &projector.Msg{Seq: seq, Subject: subj, Time: at, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		return seq, out
	}
	rsubj := func(tenant, call string) (string, error) { return events.ResultSubject(tenant, call) }
	apply(rsubj, "c1", &events.Event{ID: "r1", Tenant: "acme", Run: "run1", CallID: "c1", At: at,
		Body: &events.CallSucceeded{Name: "get_item", Key: "run1/c1", Result: []byte(`{"name":"Kettle","price":{"amount":12,"currency":"EUR"}}`)}})
	apply(events.AnswerSubject, "resp1", &events.Event{ID: "a1", Tenant: "acme", Run: "run1", Response: "resp1", At: at,
		Body: &events.AnswerSubmitted{Text: "The Kettle costs 12 EUR. It is fully waterproof."}})
	before, err := Get(l.Runner().View(), "acme", "resp1")
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Undecided) == 0 {
		t.Fatalf("the answer has no undecided claim for a judge's verdict: %+v", before)
	}
	claim := before.Undecided[0]
	judge := &events.JudgeVerdict{Claim: claim, Verdict: events.VerdictContradicted, Reason: "forged"}
	forged := []struct {
		what     string
		response string
		ev       *events.Event
	}{
		{"a judge's verdict", "resp1", &events.Event{ID: "f1", Tenant: "acme", Run: "run1", Response: "resp1", At: at, Body: judge}},
		{"a verdict", "resp1", &events.Event{ID: "f2", Tenant: "acme", Run: "run1", Response: "resp1", At: at,
			Body: &events.AnswerVerified{Faithfulness: 0, Blocked: true, Policy: string(PolicyBlock)}}},
		{"an answer", "resp9", &events.Event{ID: "f3", Tenant: "acme", Run: "run1", Response: "resp9", At: at,
			Body: &events.AnswerSubmitted{Text: "The Kettle costs 12 EUR."}}},
		{"another response's check", "resp1", &events.Event{ID: "f4", Tenant: "acme", Run: "run1", Response: "resp2", At: at,
			Body: &events.ConstraintsChecked{InForce: 1, Violations: []events.ConstraintViolation{{Start: 0, End: 10, Constraint: events.ConstraintRef{Record: "m", Version: 1}}}}}},
	}
	for _, f := range forged {
		n, out := apply(events.ConstraintCheckSubject, f.response, f.ev)
		if len(out) != 0 {
			t.Errorf("%s on the check subject emitted %d events", f.what, len(out))
		}
		rej, ok, err := l.Runner().Rejection(n)
		if err != nil || !ok || rej.Code != events.ReasonWrongSubject {
			t.Errorf("%s on the check subject: rejection %+v, %v, %v; want %s", f.what, rej, ok, err, events.ReasonWrongSubject)
		}
	}
	after, err := Get(l.Runner().View(), "acme", "resp1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(after.Undecided, before.Undecided) || after.Judged != 0 || after.Verified.Blocked != before.Verified.Blocked ||
		after.Verified.Claims[claim].Verdict != before.Verified.Claims[claim].Verdict {
		t.Errorf("the verdict after the forged events: %+v, want %+v", after, before)
	}
	for _, r := range []string{"resp2", "resp9"} {
		if _, err := Get(l.Runner().View(), "acme", r); !errors.Is(err, ErrNotVerified) {
			t.Errorf("%s: %v, want no verdict", r, err)
		}
	}
	// The same judge's verdict where a judge publishes it decides the claim.
	if _, out := apply(events.AnswerSubject, "resp1", &events.Event{ID: "j1", Tenant: "acme", Run: "run1", Response: "resp1", At: at, Body: judge}); len(out) != 1 {
		t.Fatalf("the judge's verdict on the answer's subject emitted %d events, want 1", len(out))
	}
	if v, _ := Get(l.Runner().View(), "acme", "resp1"); v.Judged != 1 || v.Verified.Claims[claim].Verdict != events.VerdictContradicted {
		t.Errorf("the judge's verdict on the answer's subject: %+v", v)
	}
}

// A violation that overlaps no claim is a claim of its own, after the
// others, so the undecided claims' indexes keep meaning the same claims.
func TestConstraintViolationWithoutAClaim(t *testing.T) {
	answer := []rune("One. Two.")
	r := Report{Claims: []events.ClaimVerdict{{Text: "One.", Start: 0, End: 4, Verdict: events.VerdictUnsupported}}, Undecided: []int{0}}
	got := ApplyConstraintViolations(r, answer, []events.ConstraintViolation{{Start: 5, End: 9, Constraint: events.ConstraintRef{Record: "m", Version: 1}}})
	if len(got.Claims) != 2 || got.Claims[1].Text != "Two." || got.Claims[1].Verdict != events.VerdictViolatesConstraint || !slices.Equal(got.Undecided, []int{0}) {
		t.Errorf("%+v", got)
	}
}
