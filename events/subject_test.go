package events_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

func TestSubjectsCarryTheTenant(t *testing.T) {
	s, err := events.ModelSubject("acme", "resp.1", "fc 1")
	if err != nil {
		t.Fatal(err)
	}
	if s != "ts.model.acme.~cmVzcC4x.~ZmMgMQ" {
		t.Fatalf("ModelSubject = %q", s)
	}
	tenant, err := events.SubjectTenant(s)
	if err != nil || tenant != "acme" {
		t.Fatalf("SubjectTenant = %q, %v", tenant, err)
	}
	if _, err := events.CallSubject("", "x"); !errors.Is(err, events.ErrInvalidTenant) {
		t.Fatalf("CallSubject without tenant: %v", err)
	}
}

func TestTokenIsInjective(t *testing.T) {
	ids := []string{"", "~", "a", "a.b", "a*", "a>", "~YQ", "日本", "fc_1", "resp_04", "x y"}
	seen := map[string]string{}
	for _, id := range ids {
		tok := events.Token(id)
		if prev, ok := seen[tok]; ok {
			t.Fatalf("%q and %q share token %q", prev, id, tok)
		}
		seen[tok] = id
		back, err := events.Untoken(tok)
		if err != nil || back != id {
			t.Fatalf("Untoken(Token(%q)) = %q, %v", id, back, err)
		}
	}
}

func TestDecodeAtRefusesAnotherTenantsSubject(t *testing.T) {
	data, err := events.Encode(&events.Event{ID: "e1", Tenant: "acme", Response: "r", Item: "i", Body: &events.TextDelta{Text: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	for subject, want := range map[string]error{
		"ts.model.acme.r.i":   nil,
		"ts.model.acme.r.i.3": nil, // a partitioned model subject
		"ts.model.beta.r.i":   events.ErrTenantMismatch,
		"ts.model._system.x":  events.ErrTenantMismatch,
		"ts":                  events.ErrMalformed,
		"other.model.acme.r":  events.ErrMalformed,
	} {
		_, err := events.DecodeAt(subject, data)
		if !errors.Is(err, want) || (want != nil && !errors.Is(err, events.ErrBadInput)) {
			t.Errorf("events.DecodeAt(%s) = %v, want %v (bad input)", subject, err, want)
		}
	}
	if events.ReasonOf(fmt.Errorf("x: %w", events.ErrTenantMismatch)) != events.ReasonTenantMismatch || events.ReasonOf(events.ErrMalformed) != events.ReasonMalformedEvent || events.ReasonOf(errors.New("io")) != "" {
		t.Error("events.ReasonOf does not name the reasons")
	}
}

// A constraint check has a subject of its own, ts.check.<tenant>.<response>,
// in the stream of the answers it is read beside (TS_OUT), so a role may
// be allowed to record checks without being allowed to publish verdicts.
func TestConstraintCheckSubject(t *testing.T) {
	s, err := events.ConstraintCheckSubject("acme", "resp.1")
	if err != nil || s != "ts.check.acme.~cmVzcC4x" {
		t.Fatalf("ConstraintCheckSubject = %q, %v", s, err)
	}
	if _, err := events.ConstraintCheckSubject("", "r"); !errors.Is(err, events.ErrInvalidTenant) {
		t.Fatalf("ConstraintCheckSubject without tenant: %v", err)
	}
	if st, err := events.StreamOf(s); err != nil || st != events.StreamOut {
		t.Fatalf("StreamOf(%s) = %s, %v; want %s", s, st, err, events.StreamOut)
	}
	if st, err := events.StreamOfAll([]string{events.AllAnswers, events.AllChecks}); err != nil || st != events.StreamOut {
		t.Fatalf("answers and checks in %s, %v; want one stream, %s", st, err, events.StreamOut)
	}
	found := false
	for _, sub := range events.StreamSubjects[events.StreamOut] {
		found = found || sub == events.AllChecks
	}
	if !found {
		t.Fatalf("%s's subjects %v lack %s", events.StreamOut, events.StreamSubjects[events.StreamOut], events.AllChecks)
	}
	if answer, _ := events.AnswerSubject("acme", "resp.1"); answer == s {
		t.Fatal("a check shares the answer's subject")
	}
}

// TestCheckSubjectHoldsOnlyChecks: a check subject carries a constraint
// check of the response it names, and nothing else: a verdict, a judge's
// verdict or an answer there, or a check of another response, is refused
// (wrong_subject, bad input), since the role that may record checks may
// not publish those. Elsewhere nothing is refused by this rule: a check
// on the answer's subject is how logs written before checks had their own
// subject hold them.
func TestCheckSubjectHoldsOnlyChecks(t *testing.T) {
	check, _ := events.ConstraintCheckSubject("acme", "r1")
	answer, _ := events.AnswerSubject("acme", "r1")
	ev := func(response string, b events.Body) *events.Event {
		return &events.Event{ID: "e", Tenant: "acme", Response: response, Body: b}
	}
	cc := &events.ConstraintsChecked{InForce: 1}
	for _, c := range []struct {
		subject string
		ev      *events.Event
		refused bool
	}{
		{check, ev("r1", cc), false},
		{answer, ev("r1", cc), false}, // an older log's check
		{answer, ev("r1", &events.AnswerVerified{}), false},
		{answer, ev("r1", &events.JudgeVerdict{}), false},
		{check, ev("r1", &events.AnswerVerified{Blocked: true}), true},
		{check, ev("r1", &events.JudgeVerdict{Claim: 0, Verdict: events.VerdictSupported}), true},
		{check, ev("r1", &events.AnswerSubmitted{Text: "x"}), true},
		{check, ev("r2", cc), true},
		{check, ev("", cc), true},
		{check, &events.Event{ID: "e", Tenant: "acme", Response: "r1", Kind: events.KindJudgeVerdict}, true},
	} {
		err := events.CheckConstraintsSubject(c.subject, c.ev)
		switch {
		case !c.refused && err != nil:
			t.Errorf("%T on %s (response %q): %v, want accepted", c.ev.Body, c.subject, c.ev.Response, err)
		case c.refused && (!errors.Is(err, events.ErrWrongSubject) || !errors.Is(err, events.ErrBadInput) ||
			events.ReasonOf(err) != events.ReasonWrongSubject):
			t.Errorf("%T on %s (response %q): %v, want %v (bad input, reason %s)", c.ev.Body, c.subject, c.ev.Response, err,
				events.ErrWrongSubject, events.ReasonWrongSubject)
		}
	}
}

// ParseModelSubject reads back what ModelSubject wrote, partitioned or
// not, ids that need encoding (Chinese, dots) included; any other subject
// is malformed.
func TestParseModelSubjectReversesModelSubject(t *testing.T) {
	for _, tc := range []struct{ resp, item, suffix string }{
		{"r1", "i1", ""},
		{"resp.1", "调用 一", ""},
		{"r1", "", ""},
		{"r1", "i1", ".3"},
	} {
		subj, err := events.ModelSubject("acme", tc.resp, tc.item)
		if err != nil {
			t.Fatal(err)
		}
		tenant, resp, item, err := events.ParseModelSubject(subj + tc.suffix)
		if err != nil || tenant != "acme" || resp != tc.resp || item != tc.item {
			t.Errorf("%s: %q %q %q %v", subj+tc.suffix, tenant, resp, item, err)
		}
	}
	for _, subj := range []string{"ts.call.acme.search", "ts.model.acme.r1", "ts.model.acme.r1.i1.2.x", "ts.model.acme.~!!.i1"} {
		if _, _, _, err := events.ParseModelSubject(subj); !errors.Is(err, events.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", subj, err)
		}
	}
}

// TestSubjectsBoundTheirIDs: a subject past SubjectBytesMax (an id of a
// producer's, a model's or a client's that is too long; the NATS server
// closes the connection of a client that sends a subject past its 4 KiB
// control line) is refused by every builder as malformed input; one at
// the bound is built.
func TestSubjectsBoundTheirIDs(t *testing.T) {
	long, fits := strings.Repeat("x", 5000), strings.Repeat("y", 900)
	for name, build := range map[string]func(id string) (string, error){
		"model":   func(id string) (string, error) { return events.ModelSubject("acme", "r1", id) },
		"ingest":  func(id string) (string, error) { return events.IngestSubject("acme", "openai-chat", id) },
		"result":  func(id string) (string, error) { return events.ResultSubject("acme", id) },
		"run":     func(id string) (string, error) { return events.RunSubject("acme", id) },
		"memory":  func(id string) (string, error) { return events.MemorySubject("acme", id) },
		"gateway": func(id string) (string, error) { return events.GatewaySubject("acme", "chat", id) },
		"preview": func(id string) (string, error) { return events.PreviewSubject("acme", "r1", id) },
		"encoded": func(id string) (string, error) { return events.ModelSubject("acme", "r1", "é"+id[:800]) }, // base64: 4/3 as long
	} {
		if s, err := build(long); !errors.Is(err, events.ErrSubjectTooLong) || !errors.Is(err, events.ErrBadInput) {
			t.Errorf("%s with an id of 5000 bytes: %d bytes, %v; want ErrSubjectTooLong", name, len(s), err)
		}
		s, err := build(fits)
		if name == "encoded" {
			if !errors.Is(err, events.ErrSubjectTooLong) {
				t.Errorf("%s: %d bytes, %v; want ErrSubjectTooLong", name, len(s), err)
			}
			continue
		}
		if err != nil || len(s) > events.SubjectBytesMax {
			t.Errorf("%s with an id of 900 bytes: %d bytes, %v", name, len(s), err)
		}
	}
}
