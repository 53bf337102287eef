package check

import (
	"github.com/toolstream/toolstream/verifier/evidence"
	"time"
)

// CheckIndexed is Check against evidence indexed beforehand: the same
// Report for the same results. It fails only when an index must be
// indexed again from its result and that was not given, or an index read
// back is damaged.
func (c *Checker) CheckIndexed(answer string, evs []*evidence.EvidenceIndex, now time.Time) (Report, error) {
	parts := make([]*evidence.Part, len(evs))
	for i, x := range evs {
		parts[i] = x.P
	}
	ix, err := evidence.Join(parts, now)
	if err != nil {
		return Report{}, err
	}
	defer ix.Release()
	return c.check(answer, ix, now), nil
}

// CheckKept is CheckIndexed for the evidence a projection keeps: the
// indexes of the results, and the calls that failed (Evidence with
// Failed, of which the highest version of each call counts). An index
// that reads back whole but is damaged makes every index be made again
// from its result, which gives the same verdicts; it fails only when a
// result cannot be read.
func (c *Checker) CheckKept(answer string, evs []*evidence.EvidenceIndex, failed []evidence.Evidence, now time.Time) (Report, error) {
	parts := make([]*evidence.Part, len(evs))
	for i, x := range evs {
		parts[i] = x.P
	}
	ix, err := evidence.Join(parts, now)
	if err != nil {
		for i, q := range parts {
			raw, rerr := q.Result()
			if rerr != nil {
				return Report{}, rerr
			}
			e := q.Ev
			e.Result = raw
			parts[i] = evidence.IndexResult(e, evidence.LeavesMax)
		}
		if ix, err = evidence.Join(parts, now); err != nil {
			return Report{}, err
		}
	}
	ix.Failed = evidence.DedupeEvidence(failed)
	defer ix.Release()
	return c.check(answer, ix, now), nil
}
