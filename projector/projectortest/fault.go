package projectortest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// checkFault: a fault of the projection's own code on a message (a panic,
// injected after the message was applied in full, in the projection's
// memory and in its Tx) is that message's rejection alone. The view, the
// rejections and what is emitted are those of the same log in which the
// message was rejected before anything of it was applied (the control):
// applied synchronously in one batch, live through the embedded server in
// batches of three (the fault lands at another point of a batch), and in a
// replay from sequence 1 (replay equals live).
func checkFault(t *testing.T, c *conformance) {
	var applied []uint64 // what reaches Apply: an erasure's tombstone does not
	for _, m := range c.stored {
		if !slices.Contains(slices.Collect(maps.Values(events.EraseSubjects)), m.Subject) {
			applied = append(applied, m.Seq)
		}
	}
	at := map[uint64]bool{} // every seventh: some land where memory shows
	for i := 3; i < len(applied); i += 7 {
		at[applied[i]] = true
	}
	faulty, control, base := c.s, c.s, c.s.New
	faulty.New = func() projector.Projection { return withFaults(base(), at, true) }
	control.New = func() projector.Projection { return withFaults(base(), at, false) }
	want := apply(t, control, c.stored, 0, true)
	for seq := range at {
		if !rejected(want, seq) {
			t.Fatalf("the control did not reject seq %d", seq)
		}
	}
	same(t, "a fault applied in one batch", apply(t, faulty, c.stored, 0, true), want)
	l, err := projector.NewLocal(t.TempDir(), faulty.New())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Apply(context.Background(), fresh(c.stored)...); !errors.Is(err, projector.ErrFault) || l.Runner().Stats().Faults != uint64(len(at)) {
		t.Fatalf("%d faults injected: Local said %v, the runner counted %d", len(at), err, l.Runner().Stats().Faults)
	}
	kept := c.s
	defer func() { c.s = kept }()
	c.s = faulty
	live := c.run(t, projector.Config{Dir: filepath.Join(t.TempDir(), "view"), BatchMax: 3}, c.last)
	same(t, "a fault live", live, want)
	d, err := projector.Replay(context.Background(), projector.Config{JS: c.b.JS, Keys: c.b.Keys, Dir: filepath.Join(t.TempDir(), "replay")}, faulty.New(), c.last)
	if err != nil {
		t.Fatal(err)
	}
	if d.Sum != live.digest.Sum || d.Keys != live.digest.Keys {
		t.Fatalf("a fault: replay from 1 differs from live:\n replay %v\n live   %v", d, live.digest)
	}
}

// rejected reports whether o rejected seq with its injected fault.
func rejected(o outcome, seq uint64) bool {
	for _, rj := range o.rejections {
		if rj.Seq == seq && strings.Contains(rj.Reason, faultValue(seq)) {
			return true
		}
	}
	return false
}

// faulty is a projection whose Apply faults at the sequences at: with
// panics, it applies the message in full and then panics; without, it
// rejects the message with the same fault before applying anything.
type faulty struct {
	projector.Projection
	at     map[uint64]bool
	panics bool
}

func faultValue(seq uint64) string { return fmt.Sprintf("a fault injected at seq %d", seq) }

func (f *faulty) Apply(tx *projector.Tx, m *projector.Msg) error {
	if !f.at[m.Seq] {
		return f.Projection.Apply(tx, m)
	}
	if !f.panics {
		return &projector.FaultError{Value: faultValue(m.Seq)}
	}
	_ = f.Projection.Apply(tx, m) // its memory and its Tx hold the message
	panic(faultValue(m.Seq))
}

// withFaults wraps p in a faulty that keeps p's optional interfaces, and
// only those: the runner treats the wrapper as it treats p.
func withFaults(p projector.Projection, at map[uint64]bool, panics bool) projector.Projection {
	f := &faulty{Projection: p, at: at, panics: panics}
	fl, _ := p.(projector.Flusher)
	rs, _ := p.(projector.Resetter)
	rj, _ := p.(projector.Rejecter)
	type (
		F = projector.Flusher
		R = projector.Resetter
		J = projector.Rejecter
	)
	switch {
	case fl != nil && rs != nil && rj != nil:
		return struct {
			*faulty
			F
			R
			J
		}{f, fl, rs, rj}
	case fl != nil && rs != nil:
		return struct {
			*faulty
			F
			R
		}{f, fl, rs}
	case fl != nil && rj != nil:
		return struct {
			*faulty
			F
			J
		}{f, fl, rj}
	case rs != nil && rj != nil:
		return struct {
			*faulty
			R
			J
		}{f, rs, rj}
	case fl != nil:
		return struct {
			*faulty
			F
		}{f, fl}
	case rs != nil:
		return struct {
			*faulty
			R
		}{f, rs}
	case rj != nil:
		return struct {
			*faulty
			J
		}{f, rj}
	}
	return f
}
