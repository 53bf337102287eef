package events_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestOwnedMsgIDIsTaggedOnOneWritersSubjects: on the executor's outcome
// and execution subjects, and the operators' decisions, a keyed id is a tag (no other role, whose key
// differs, makes the same, and the plain id is not it); the same key
// makes the same tag (a republish is still a duplicate); elsewhere, and
// without a key, it is MsgID's.
func TestOwnedMsgIDIsTaggedOnOneWritersSubjects(t *testing.T) {
	k1, k2 := events.DeriveMsgIDKey([]byte("executor")), events.DeriveMsgIDKey([]byte("driver"))
	key := events.IdempotencyKey("acme", "run", "step", "c1")
	result, _ := events.ResultSubject("acme", key)
	exec, _ := events.ExecSubject("acme", key)
	approval, _ := events.ApprovalSubject("acme", key)
	answer, _ := events.AnswerSubject("acme", "r1")
	for _, tc := range []struct {
		subject, id string
		tagged      bool
	}{
		{result, events.ResultID(key), true},
		{exec, events.StartedID(key, 1), true},
		{exec, events.ApprovalRequestedID(key), true},
		{approval, events.ApprovalID(key), true}, // an operator's decision: sec13's claim
		{answer, "verified:r1", false},
	} {
		got := events.OwnedMsgID(k1, tc.subject, tc.id)
		if tc.tagged != strings.HasPrefix(got, events.MsgIDTagPrefix) || tc.tagged == (got == tc.id) {
			t.Errorf("OwnedMsgID(%s, %s) = %q, tagged %v", tc.subject, tc.id, got, tc.tagged)
		}
		if again := events.OwnedMsgID(k1, tc.subject, tc.id); again != got {
			t.Errorf("OwnedMsgID(%s, %s) is %q, then %q", tc.subject, tc.id, got, again)
		}
		if other := events.OwnedMsgID(k2, tc.subject, tc.id); tc.tagged && other == got {
			t.Errorf("two keys make one id %q on %s", got, tc.subject)
		}
		if plain := events.OwnedMsgID(nil, tc.subject, tc.id); plain != tc.id {
			t.Errorf("OwnedMsgID without a key = %q, want %q", plain, tc.id)
		}
	}
}

// TestBuiltinResultSubjectHoldsBuiltinOutcomesOnly: a built-in outcome's
// subject is one token longer than the executor's; every reader
// (CheckSubject) takes there only a built-in tool's outcome of the key it
// names, and takes anything on the executor's subject.
func TestBuiltinResultSubjectHoldsBuiltinOutcomesOnly(t *testing.T) {
	key := events.IdempotencyKey("acme", "run", "step", "c1")
	other := events.IdempotencyKey("acme", "run", "step", "c2")
	result, _ := events.ResultSubject("acme", key)
	builtin, err := events.BuiltinResultSubject("acme", key)
	if err != nil || builtin != result+".builtin" {
		t.Fatalf("BuiltinResultSubject = %q, %v; want %q", builtin, err, result+".builtin")
	}
	ok := func(name, k string) events.Body { return &events.CallSucceeded{Name: name, Key: k} }
	failed := func(name, k string) events.Body {
		return &events.CallFailed{Name: name, Key: k, Error: events.ErrValidation}
	}
	for _, tc := range []struct {
		name    string
		subject string
		body    events.Body
		refused bool
	}{
		{"plan's outcome", builtin, ok(events.ToolPlan, key), false},
		{"delegate's failure", builtin, failed(events.ToolDelegate, key), false},
		{"a real tool's outcome", builtin, ok("refund", key), true},
		{"a real tool's failure", builtin, failed("refund", key), true},
		{"another key's outcome", builtin, ok(events.ToolPlan, other), true},
		{"not an outcome", builtin, &events.ExecutionStarted{Name: events.ToolPlan, Key: key}, true},
		{"the executor's subject", result, ok("refund", key), false},
		{"a built-in outcome on the executor's subject (older logs)", result, ok(events.ToolPlan, key), false},
	} {
		ev := &events.Event{ID: events.ResultID(key), Tenant: "acme", Body: tc.body}
		err := events.CheckSubject(tc.subject, ev)
		if refused := errors.Is(err, events.ErrWrongSubject); refused != tc.refused || (!tc.refused && err != nil) {
			t.Errorf("%s: CheckSubject = %v, want refused %v", tc.name, err, tc.refused)
		}
	}
}
