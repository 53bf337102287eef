package check

import (
	"time"
)

// CheckIndexed is Check against evidence indexed beforehand: the same
// Report for the same results. It fails only when an index must be
// indexed again from its result and that was not given, or an index read
// back is damaged.
func (c *Checker) CheckIndexed(answer string, evidence []*EvidenceIndex, now time.Time) (Report, error) {
	parts := make([]*part, len(evidence))
	for i, x := range evidence {
		parts[i] = x.p
	}
	ix, err := join(parts, now)
	if err != nil {
		return Report{}, err
	}
	defer ix.release()
	return c.check(answer, ix, now), nil
}

// CheckKept is CheckIndexed for the evidence a projection keeps: the
// indexes of the results, and the calls that failed (Evidence with
// Failed, of which the highest version of each call counts). An index
// that reads back whole but is damaged makes every index be made again
// from its result, which gives the same verdicts; it fails only when a
// result cannot be read.
func (c *Checker) CheckKept(answer string, evidence []*EvidenceIndex, failed []Evidence, now time.Time) (Report, error) {
	parts := make([]*part, len(evidence))
	for i, x := range evidence {
		parts[i] = x.p
	}
	ix, err := join(parts, now)
	if err != nil {
		for i, q := range parts {
			raw, rerr := q.result()
			if rerr != nil {
				return Report{}, rerr
			}
			e := q.ev
			e.Result = raw
			parts[i] = indexResult(e, leavesMax)
		}
		if ix, err = join(parts, now); err != nil {
			return Report{}, err
		}
	}
	ix.failed = dedupeEvidence(failed)
	defer ix.release()
	return c.check(answer, ix, now), nil
}
