package events

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Built-in tools are the run driver's own (docs/design.md, "Plans and
// delegation"): the driver offers them to the model beside the registry's,
// the model calls them as any tool, the assembler decides them without the
// registry (CallCompleted.Builtin, with ClientRuns so no executor runs
// them), and the driver that drives the call's run publishes their outcome
// (CallSucceeded or CallFailed under ResultID of the call's key) on a
// subject of its own (BuiltinResultSubject), as an executor would on its. Their names hold only [a-z_], which every provider takes
// as a function name.
const (
	// ToolPlan writes the run's plan (goal, steps with their acceptance
	// evidence, blockers, budget) as a versioned plan write.
	ToolPlan = "toolstream_plan"
	// ToolDelegate starts a child run with its own goal, budget and tools
	// (a subset of the parent's) and returns its answer and evidence.
	ToolDelegate = "toolstream_delegate"
)

// IsBuiltinTool reports whether name is one of the driver's built-in tools.
func IsBuiltinTool(name string) bool { return name == ToolPlan || name == ToolDelegate }

// childRunMax bounds a child run id written in the clear; a longer one is
// its parent's digest.
const childRunMax = 160

// ChildRunID is the id of the child run that the delegate call callID of
// run parent starts: parent~callID, or, when that would be longer than 160
// bytes, sub~ and a digest of both. The same call always names the same
// child (a driver restarted mid-child resumes it, never starts another),
// and two calls never share one (injective: '~' and '%' in the parts are
// escaped as in IdempotencyKey's parts, written %7E and %25).
func ChildRunID(parent, callID string) string {
	esc := func(s string) string {
		var b []byte
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '~':
				b = append(b, "%7E"...)
			case '%':
				b = append(b, "%25"...)
			default:
				b = append(b, s[i])
			}
		}
		return string(b)
	}
	id := esc(parent) + "~" + esc(callID)
	if len(id) <= childRunMax {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sub~" + hex.EncodeToString(sum[:16])
}

// builtinResultToken ends a built-in call's outcome subject.
const builtinResultToken = "builtin"

// BuiltinResultSubject is where the driver publishes the outcome of a
// built-in tool's call with idempotency key call:
// ts.result.<tenant>.<call>.builtin. It is one token longer than any
// executor's outcome subject (ResultSubject, whose last token is the key
// and never holds a '.'), so the driver's role is allowed these subjects
// (ts.result.*.*.builtin) and none of the executor's: a driver's
// credential cannot put an outcome where a real tool's is read first, and
// the executor's message ids there are tagged (OwnedMsgID), so it cannot
// claim one either. Readers of ts.result.> read both; what a built-in
// subject may hold is checked where every event is read
// (CheckBuiltinResultSubject). Logs written before hold built-in outcomes
// on ResultSubject.
func BuiltinResultSubject(tenant, call string) (string, error) {
	return subject("result", tenant, call, builtinResultToken)
}

// resultPrefix starts every outcome's subject.
const resultPrefix = SubjectPrefix + ".result."

// CheckBuiltinResultSubject returns ErrWrongSubject for an event stored on
// a built-in call's outcome subject (BuiltinResultSubject) that is not a
// CallSucceeded or CallFailed of a built-in tool (IsBuiltinTool) whose key
// the subject names. Events on other subjects pass. CheckSubject runs it,
// so every reader refuses an outcome of a real tool written there.
func CheckBuiltinResultSubject(subject string, ev *Event) error {
	rest, ok := strings.CutPrefix(subject, resultPrefix)
	if !ok || strings.Count(rest, ".") != 2 || !strings.HasSuffix(rest, "."+builtinResultToken) {
		return nil
	}
	var name, key string
	switch b := ev.Body.(type) {
	case *CallSucceeded:
		name, key = b.Name, b.Key
	case *CallFailed:
		name, key = b.Name, b.Key
	default:
		kind := ev.Kind
		if ev.Body != nil {
			kind = ev.Body.Kind()
		}
		return fmt.Errorf("%w: %s %q on %s (which holds only built-in tools' outcomes)", ErrWrongSubject, kind, ev.ID, subject)
	}
	if !IsBuiltinTool(name) {
		return fmt.Errorf("%w: an outcome of %q on %s, which holds only built-in tools' outcomes", ErrWrongSubject, name, subject)
	}
	if want, err := BuiltinResultSubject(ev.Tenant, key); err != nil || want != subject {
		return fmt.Errorf("%w: the outcome of %q on %s, another call's subject", ErrWrongSubject, key, subject)
	}
	return nil
}
