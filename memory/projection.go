package memory

import (
	"cmp"
	"errors"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// Name is the memory projection's name.
const Name = "memory"

// Projection applies memory events (ts.mem.<tenant>.<user>) to the view
// through an Engine. Everything the engine decides is a function of the
// events and their event times, so a replay rebuilds the same records,
// indexes and tombstones (invariants 6 and 8).
type Projection struct {
	Engine *Engine
}

var _ projector.Projection = (*Projection)(nil)

// NewProjection returns the memory projection over e.
func NewProjection(e *Engine) *Projection { return &Projection{Engine: e} }

// Name implements projector.Projection.
func (*Projection) Name() string { return Name }

// Subjects implements projector.Projection.
func (*Projection) Subjects() []string { return []string{events.AllMemory} }

// Apply implements projector.Projection. Bad input and stale corrections
// come back wrapping events.ErrBadInput: the machinery records them as
// rejected with their reason and goes on.
//
// An event whose key was destroyed (events.ErrErased) is read by its
// envelope alone: an erased record's observation or correction leaves the
// mark of an erased id (Engine.ApplyErased); any other is skipped.
func (p *Projection) Apply(tx *projector.Tx, m *projector.Msg) error {
	ev, err := m.Event()
	if errors.Is(err, events.ErrErased) {
		env, eerr := events.Envelope(m.Data)
		if eerr != nil || events.CheckSubject(m.Subject, env) != nil {
			return err
		}
		if ok, eerr := p.Engine.ApplyErased(tx, env); eerr != nil || !ok {
			return cmp.Or(eerr, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	return p.Engine.Apply(tx, ev)
}

// Subject is where memory events of a user go.
func Subject(tenant, user string) (string, error) { return events.MemorySubject(tenant, user) }
