package verifier

import (
	"fmt"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// Policy is what a tenant does with an answer that says more than its
// evidence.
type Policy string

const (
	// PolicyAnnotate leaves the answer unchanged; verdicts ride along.
	PolicyAnnotate Policy = "annotate"
	// PolicyRedact replaces every unsupported, contradicted or stale claim with
	// RedactMarker and leaves the rest of the answer intact.
	PolicyRedact Policy = "redact"
	// PolicyBlock withholds the whole answer when any claim is unsupported,
	// contradicted or stale.
	PolicyBlock Policy = "block"
)

// RedactMarker stands in for a removed claim; the claim's sentence-final
// punctuation stays after it.
const RedactMarker = "[removed: not supported by the tool results]"

// ParsePolicy returns the policy named s. It returns ErrUnknownPolicy for
// any other name, so a tenant's configuration is checked when it is read.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case PolicyAnnotate, PolicyRedact, PolicyBlock:
		return p, nil
	}
	return "", fmt.Errorf("verifier: parse policy %q: %w", s, ErrUnknownPolicy)
}

// ApplyPolicy applies p to answer given its report r (from Check on the
// same answer). It returns the answer to show and whether it was withheld;
// a withheld answer is returned as "". An unknown policy fails closed and
// behaves as PolicyBlock. Claims whose offsets do not fit the answer are
// left alone.
func ApplyPolicy(p Policy, answer string, r Report) (repaired string, blocked bool) {
	bad := func(v events.Verdict) bool {
		return v == events.VerdictContradicted || v == events.VerdictUnsupported || v == events.VerdictStale
	}
	switch p {
	case PolicyAnnotate:
		return answer, false
	case PolicyRedact:
		runes := []rune(answer)
		out := make([]rune, 0, len(runes))
		pos := 0
		for _, c := range r.Claims {
			if !bad(c.Verdict) || c.Start < pos || c.End > len(runes) || c.Start >= c.End {
				continue
			}
			out = append(out, runes[pos:c.Start]...)
			out = append(out, []rune(RedactMarker)...)
			// Keep the sentence's own end so the rest still reads.
			end := c.End
			for end > c.Start && strings.ContainsRune(".!?。！？", runes[end-1]) {
				end--
			}
			pos = end
		}
		out = append(out, runes[pos:]...)
		return string(out), false
	default: // PolicyBlock, and unknown policies fail closed
		for _, c := range r.Claims {
			if bad(c.Verdict) {
				return "", true
			}
		}
		return answer, false
	}
}
