package events

import (
	"crypto/sha256"
	"encoding/hex"
)

// Built-in tools are the run driver's own (docs/design.md, "Plans and
// delegation"): the driver offers them to the model beside the registry's,
// the model calls them as any tool, the assembler decides them without the
// registry (CallCompleted.Builtin, with ClientRuns so no executor runs
// them), and the driver that drives the call's run publishes their outcome
// (CallSucceeded or CallFailed under ResultID of the call's key), as an
// executor would. Their names hold only [a-z_], which every provider takes
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
