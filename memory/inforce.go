package memory

import (
	"fmt"

	"github.com/toolstream/toolstream/projector"
)

// InForce returns the user's constraints that held at at (Unix
// nanoseconds), as known then: for each record of kind constraint, the
// version learnt by at, valid at at and not yet superseded or ended then
// (a lifted, corrected or expired constraint is not in force; a forgotten
// one is in no view). Ordered by record id. What the verifier checks an
// answer against (the answer's event time as at); only the tenant's and
// user's own records are read. It returns ErrNoTenant or ErrNoUser without
// them.
func (e *Engine) InForce(r projector.Reader, tenant, user string, at int64) ([]Record, error) {
	k, err := owner(tenant, user)
	if err != nil {
		return nil, fmt.Errorf("memory: constraints in force: %w", err)
	}
	var out []Record
	err = r.Scan(k.recAll(), func(_, value []byte) error {
		rec, err := decodeRecord(value)
		if err != nil {
			return err
		}
		if rec.Kind != KindConstraint || rec.Status == StatusForgotten || !rec.heldAt(at) {
			return nil
		}
		out = append(out, *rec)
		return nil
	})
	return out, err
}
