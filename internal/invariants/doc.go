// Package invariants switches Toolstream's expensive self-checks on, as
// Pebble's internal/invariants does: Enabled is a constant, true only in a
// binary built with the invariants build tag (go test -tags invariants),
// so a check written as
//
//	if invariants.Enabled {
//		// read the view again, recount, compare
//	}
//
// costs nothing otherwise: the compiler drops it. A check that fails is an
// impossible state, never bad input (bad input is a typed rejection and
// processing goes on), so Failf panics: under the tag a test that reaches
// such a state stops there, with what was found.
//
// The checks: the projector's checkpoint moves forward from the one its
// view holds, and is the one the runner believes (projector/invariants.go);
// the assembler's response accounting — decided calls at most its calls,
// the display text kept within its bound and equal to the text row while
// the response is open (assembler/invariants.go).
package invariants

import (
	"fmt"
	"strings"
)

// violationPrefix starts the value every Failf panics with.
const violationPrefix = "invariant violated: "

// Failf panics with an invariant's violation.
func Failf(format string, args ...any) {
	panic(fmt.Sprintf(violationPrefix+format, args...))
}

// IsViolation reports whether v, a recovered panic's value, is an
// invariant's violation (Failf): code that contains faults of its own
// (projector's runner) lets it panic on.
func IsViolation(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, violationPrefix)
}
