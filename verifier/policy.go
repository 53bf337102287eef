package verifier

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolstream/toolstream/events"
	"go.yaml.in/yaml/v3"
)

// Policy is what a tenant does with an answer that says more than its
// evidence.
type Policy string

const (
	// PolicyAnnotate leaves the answer unchanged; verdicts ride along.
	PolicyAnnotate Policy = "annotate"
	// PolicyRedact replaces every unsupported, contradicted or stale claim
	// (or one that violates a constraint of the user) with
	// RedactMarker and leaves the rest of the answer intact.
	PolicyRedact Policy = "redact"
	// PolicyBlock withholds the whole answer when any claim is unsupported,
	// contradicted, stale or violates a constraint of the user.
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
		return v == events.VerdictContradicted || v == events.VerdictUnsupported || v == events.VerdictStale ||
			v == events.VerdictViolatesConstraint
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

// Policies are the tenants' policies as a file gives them (serve and
// replay --verify-policy FILE), YAML or JSON:
//
//	default: annotate
//	tenants:
//	  acme: redact
//	  globex: block
//
// A tenant not listed has the default (annotate when none is given).
type Policies struct {
	Default Policy
	Tenants map[string]Policy
}

// ParsePolicies reads a policy file. A name that is not a policy is
// ErrUnknownPolicy, a tenant that is not valid events.ErrBadInput, and a
// field it does not know an error: a typo never leaves a tenant on a
// policy it did not ask for.
func ParsePolicies(data []byte) (Policies, error) {
	var f struct {
		Default string            `yaml:"default"`
		Tenants map[string]string `yaml:"tenants"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return Policies{}, fmt.Errorf("verifier: policy file: %w: %v", events.ErrBadInput, err)
	}
	out := Policies{Default: PolicyAnnotate}
	if f.Default != "" {
		p, err := ParsePolicy(f.Default)
		if err != nil {
			return Policies{}, fmt.Errorf("default: %w", err)
		}
		out.Default = p
	}
	for tenant, name := range f.Tenants {
		if err := events.ValidTenant(tenant); err != nil {
			return Policies{}, fmt.Errorf("verifier: policy file: tenant %q: %w: %v", tenant, events.ErrBadInput, err)
		}
		p, err := ParsePolicy(name)
		if err != nil {
			return Policies{}, fmt.Errorf("tenant %s: %w", tenant, err)
		}
		if out.Tenants == nil {
			out.Tenants = map[string]Policy{}
		}
		out.Tenants[tenant] = p
	}
	return out, nil
}
