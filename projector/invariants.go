package projector

import (
	"encoding/binary"

	"github.com/toolstream/toolstream/internal/invariants"
)

// checkCheckpoint is the runner's checkpoint invariant, checked with
// -tags invariants before a batch commits next as the checkpoint: the view
// holds cp, the checkpoint the runner believes (nothing else wrote the
// view), and next is past it (a batch never moves the checkpoint back nor
// commits an empty one). It reads the view, which is why it is not always
// on.
func (r *Runner) checkCheckpoint(cp, next uint64) {
	v, _, err := getClone(r.db, keyCheckpoint)
	if err != nil {
		invariants.Failf("projector: %s: reading the checkpoint: %v", r.p.Name(), err)
	}
	var stored uint64
	if len(v) == 8 {
		stored = binary.BigEndian.Uint64(v)
	}
	if stored != cp {
		invariants.Failf("projector: %s: the view's checkpoint is %d, the runner's %d", r.p.Name(), stored, cp)
	}
	if next <= cp {
		invariants.Failf("projector: %s: a batch commits checkpoint %d at or before %d", r.p.Name(), next, cp)
	}
}
