package evidence

import (
	"errors"
)

// EvidenceIndex is one tool result indexed for checking: its values with
// their pointers, the concepts its keys name, its subjects, the numbers
// and dates written in its text. Indexing costs a walk of the result's
// JSON; an index does not depend on the answers it is later checked with,
// so it can be made once, when the result arrives, kept
// (MarshalBinary), and read back for every answer
// (UnmarshalEvidenceIndex), which costs a fraction of decoding the JSON.
// The verifier projection keeps one per result in its view.
//
// An EvidenceIndex is not changed by checks: any number of goroutines may
// check answers against one at once.
type EvidenceIndex struct {
	P *Part
}

// IndexEvidence indexes one result. A result that is not JSON gives an
// index that checks skip, as Check skips the result.
func IndexEvidence(e Evidence) *EvidenceIndex {
	return &EvidenceIndex{P: IndexResult(e, LeavesMax)}
}

// MarshalBinary encodes the index; the same index always gives the same
// bytes.
func (x *EvidenceIndex) MarshalBinary() ([]byte, error) { return MarshalPart(x.P) }

// ErrIndexFormat is returned by UnmarshalEvidenceIndex for an index encoded
// by another version of the verifier: index the result again.
var ErrIndexFormat = ErrPartFormat

// UnmarshalEvidenceIndex reads an index MarshalBinary encoded. result is
// the result's JSON, which a check needs only when the answer's evidence
// is larger than a check reads (the result is then indexed again, in
// part); it may be nil, and CheckIndexed then fails for such evidence. It
// returns ErrIndexFormat for another format and an error for damaged
// bytes. The index reads data as it is used (no copy is made): the caller
// must not change data afterwards.
func UnmarshalEvidenceIndex(data, result []byte) (*EvidenceIndex, error) {
	p, err := UnmarshalPart(data, func() ([]byte, error) {
		if result == nil {
			return nil, errors.New("verifier: the result of an evidence index is needed and was not given")
		}
		return result, nil
	})
	if err != nil {
		return nil, err
	}
	return &EvidenceIndex{P: p}, nil
}

// ReadEvidenceIndex reads the index of e that MarshalBinary encoded as
// data, as a projection keeps it beside e: e's Result indexes it again when
// a check needs more of it, and e's At, FreshFor and Cuts, which the index
// does not keep, are the index's. It returns ErrIndexFormat for another
// format and an error for damaged bytes; the caller then indexes e again
// (IndexEvidence), which gives the same verdicts. data must not change
// afterwards.
func ReadEvidenceIndex(data []byte, e Evidence) (*EvidenceIndex, error) {
	result := e.Result
	p, err := UnmarshalPart(data, func() ([]byte, error) { return result, nil })
	if err != nil {
		return nil, err
	}
	p.Ev.At, p.Ev.FreshFor, p.Ev.Cuts, p.Ev.Stats = e.At, e.FreshFor, e.Cuts, e.Stats // NB: kept beside the index, not in it
	return &EvidenceIndex{P: p}, nil
}

// LatestEvidence keeps, of several results with one call id, the one with
// the highest version (the later one on a tie), in the order the calls
// first appear: the evidence Check counts.
func LatestEvidence(in []Evidence) []Evidence { return DedupeEvidence(in) }
