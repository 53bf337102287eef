package events_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestOwnedMsgIDIsTaggedOnOneWritersSubjects: on every kind of TS_CALLS,
// TS_OUT and TS_MEM (the executor's outcomes and execution events, the
// operators' decisions, the assembler's calls and response outcomes, the
// verifier's verdicts, the driver's checks, run and memory events) and in
// TS_IN and TS_MODEL, a keyed id is a tag (no other role, whose key
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
	call, _ := events.CallSubject("acme", "weather")
	resp, _ := events.ResponseSubject("acme", "r1")
	check, _ := events.ConstraintCheckSubject("acme", "r1")
	run, _ := events.RunSubject("acme", "run1")
	mem, _ := events.MemorySubject("acme", "u1")
	model, _ := events.ModelSubject("acme", "r1", "i1")
	gw, _ := events.GatewaySubject("acme", "chat", "s1")
	for _, tc := range []struct {
		subject, id string
		tagged      bool
	}{
		{result, events.ResultID(key), true},
		{exec, events.StartedID(key, 1), true},
		{exec, events.ApprovalRequestedID(key), true},
		{approval, events.ApprovalID(key), true}, // an operator's decision: sec13's claim
		{call, events.CompletedID("acme", "r1", "i1"), true},
		{resp, events.ResponseOutcomeID("acme", "r1"), true},
		{answer, events.VerifiedID("acme", "r1"), true},
		{check, events.ConstraintsCheckedID("acme", "r1"), true},
		{run, events.RoundSettledID("acme", "run1", "r1"), true},
		{run, events.RunMessageID("acme", "run1", "m1"), true},
		{mem, events.MemoryOpID("acme", "u1", 1), true},
		{model, "model:acme/r1/1/0", true},                       // MsgID's tag, as before
		{gw, events.StreamPromptID("acme", "chat", "s1"), false}, // the admin's alone
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
