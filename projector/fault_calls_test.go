package projector_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// memo keeps what a batch changes in memory and writes it when the batch
// ends (a Flusher that can be put back: a Resetter), and refuses text
// "poison" with a typed event (a Rejecter) that it also counts in memory.
// Text starting with "boom-" makes one of its calls panic after it changed
// its memory: boom-apply its Apply, boom-reject its Reject (the text is
// refused first), boom-flush the Flush of a batch that holds it.
type memo struct {
	loaded     bool
	n, refused byte
	items      map[string]string // changed by the batch: Flush writes them
}

func newMemo() *memo { return &memo{items: map[string]string{}} }

func (*memo) Name() string       { return "memo" }
func (*memo) Subjects() []string { return []string{"ts.model.>"} }

func (p *memo) load(tx *projector.Tx) error {
	if p.loaded {
		return nil
	}
	for k, dst := range map[string]*byte{"n": &p.n, "refused": &p.refused} {
		v, _, err := tx.Get([]byte(k))
		if err != nil {
			return err
		}
		*dst = 0
		if len(v) == 1 {
			*dst = v[0]
		}
	}
	p.loaded = true
	return nil
}

func memoText(m *projector.Msg) (*events.Event, string, error) {
	ev, err := m.Event()
	if err != nil {
		return nil, "", err
	}
	td, ok := events.As[*events.TextDelta](ev)
	if !ok {
		return nil, "", fmt.Errorf("%w: memo wants text deltas", events.ErrBadInput)
	}
	return ev, td.Text, nil
}

func (p *memo) Apply(tx *projector.Tx, m *projector.Msg) error {
	ev, text, err := memoText(m)
	if err != nil {
		return err
	}
	if strings.HasPrefix(text, "poison") || strings.HasPrefix(text, "boom-reject") {
		return fmt.Errorf("%w: refused %q", events.ErrBadInput, text)
	}
	if err := p.load(tx); err != nil {
		return err
	}
	p.n++
	p.items[ev.Item] = text
	if strings.HasPrefix(text, "boom-apply") {
		panic("memo: apply " + text)
	}
	return nil
}

func (p *memo) Reject(_ context.Context, tx *projector.Tx, m *projector.Msg, reason error) error {
	if err := p.load(tx); err != nil {
		return err
	}
	p.refused++
	if err := tx.Emit("ts.ctl._system.rejected", &events.Event{
		ID: fmt.Sprintf("rejected:%d", m.Seq), Tenant: events.SystemTenant,
		Body: &events.ItemAborted{Reason: events.ReasonMalformedEvent, Detail: reason.Error()},
	}); err != nil {
		return err
	}
	if _, text, _ := memoText(m); strings.HasPrefix(text, "boom-reject") {
		panic("memo: reject " + text)
	}
	return nil
}

func (p *memo) Flush(_ context.Context, tx *projector.Tx) error {
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range p.items {
			if !yield(k) {
				return
			}
		}
	}) {
		if strings.HasPrefix(p.items[k], "boom-flush") {
			panic("memo: flush " + p.items[k])
		}
		if err := tx.Set([]byte("item/"+k), []byte(p.items[k])); err != nil {
			return err
		}
	}
	clear(p.items)
	if !p.loaded { // the counts are not in memory: nothing changed them
		return nil
	}
	if err := tx.Set([]byte("n"), []byte{p.n}); err != nil {
		return err
	}
	return tx.Set([]byte("refused"), []byte{p.refused})
}

func (p *memo) Reset() {
	p.loaded = false
	clear(p.items)
}

// rejectPanics is tally (nothing in memory) whose Reject panics, after it
// emitted its typed event, on text "poison-boom".
type rejectPanics struct{ tally }

func (p rejectPanics) Reject(ctx context.Context, tx *projector.Tx, m *projector.Msg, reason error) error {
	if err := p.tally.Reject(ctx, tx, m, reason); err != nil {
		return err
	}
	if _, text, _ := memoText(m); text == "poison-boom" {
		panic("tally: reject " + text)
	}
	return nil
}

// A panic in any call the runner makes into a projection (Apply, Reject,
// Flush) costs the message it happened on alone, live through the
// embedded server in batches of three and in a replay from 1: the message
// is rejected with a *FaultError (counted in Stats.Faults, its row saying
// what faulted), what the call wrote, emitted or left in memory is gone,
// every other message is applied, and replay equals live. Without the
// runner's containment of Reject and Flush, the boom-reject, poison-boom
// and boom-flush rows panic the test binary.
func TestAFaultInAnyCallCostsItsMessageAlone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		new     func() projector.Projection
		texts   []string
		faulted []string // the texts whose messages fault
		rowSays string   // what the faulted messages' rejection rows say
		typed   int      // typed rejection events relayed
		view    map[string]string
	}{
		{name: "reject of a resetter", new: func() projector.Projection { return newMemo() },
			texts:   []string{"a", "b", "poison", "boom-reject", "c"},
			faulted: []string{"boom-reject"}, rowSays: "(and its Reject: ", typed: 1,
			view: map[string]string{"n": "\x03", "refused": "\x01", "item/0": "a", "item/1": "b", "item/4": "c"}},
		{name: "flush of a resetter", new: func() projector.Projection { return newMemo() },
			texts:   []string{"a", "b", "boom-flush", "c", "d"},
			faulted: []string{"boom-flush"}, rowSays: "memo: flush boom-flush", typed: 1,
			view: map[string]string{"n": "\x04", "refused": "\x01", "item/0": "a", "item/1": "b", "item/3": "c", "item/4": "d"}},
		{name: "apply, reject and flush", new: func() projector.Projection { return newMemo() },
			texts:   []string{"a", "poison", "boom-apply", "boom-reject", "b", "boom-flush", "boom-reject2", "c"},
			faulted: []string{"boom-apply", "boom-reject", "boom-flush", "boom-reject2"}, typed: 3,
			view: map[string]string{"n": "\x03", "refused": "\x03", "item/0": "a", "item/4": "b", "item/7": "c"}},
		{name: "reject of a projection without memory", new: func() projector.Projection { return rejectPanics{} },
			texts:   []string{"a", "poison", "poison-boom", "b"},
			faulted: []string{"poison-boom"}, rowSays: "tally: reject poison-boom", typed: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bustest.Start(t)
			seqOf := map[string]uint64{}
			var last uint64
			for i, text := range tc.texts {
				last = publishText(t, b, "acme", fmt.Sprint(i), i, text)
				seqOf[text] = last
			}
			r, stop := startRunner(t, b, filepath.Join(t.TempDir(), "live"), tc.new(), func(c *projector.Config) { c.BatchMax = 3 })
			waitFor(t, r, last)
			s := r.Stats()
			if s.Faults != uint64(len(tc.faulted)) {
				t.Errorf("stats %+v, want %d faults", s, len(tc.faulted))
			}
			for _, text := range tc.faulted {
				rj, ok, err := r.Rejection(seqOf[text])
				if err != nil || !ok || !strings.Contains(rj.Reason, projector.ErrFault.Error()) || !strings.Contains(rj.Reason, tc.rowSays) || rj.Code != events.ReasonMalformedEvent {
					t.Errorf("rejection of %s (seq %d): %+v %v %v, want a fault saying %q", text, seqOf[text], rj, ok, err, tc.rowSays)
				}
			}
			if got := emitted(t, b, "ts.ctl._system.rejected"); len(got) != tc.typed {
				t.Errorf("typed rejection events %v, want %d (a faulted Reject's is dropped)", got, tc.typed)
			}
			v := r.View()
			for k, want := range tc.view {
				if got, _, err := v.Get([]byte(k)); err != nil || string(got) != want {
					t.Errorf("view %s = %q (%v), want %q", k, got, err, want)
				}
			}
			for i := range tc.texts {
				k := fmt.Sprintf("item/%d", i)
				if _, ok := tc.view[k]; !ok && tc.view != nil {
					if got, ok, _ := v.Get([]byte(k)); ok {
						t.Errorf("view %s = %q: a refused or faulted message's write was kept", k, got)
					}
				}
			}
			v.Close()
			live, err := r.Digest()
			if err != nil {
				t.Fatal(err)
			}
			stop()
			d, err := projector.Replay(context.Background(), projector.Config{JS: b.JS, Keys: b.Keys, Dir: filepath.Join(t.TempDir(), "replay")}, tc.new(), last)
			if err != nil {
				t.Fatal(err)
			}
			if d.Sum != live.Sum || d.Keys != live.Keys {
				t.Fatalf("replay from 1 differs from live:\n replay %v\n live   %v", d, live)
			}
		})
	}
}

// flushAlways panics in every Flush: the fault is no message's, so the
// runner stops with ErrFault (after it rejected the first message and
// Flush faulted without it) instead of rejecting every message.
type flushAlways struct{ *memo }

func (flushAlways) Flush(context.Context, *projector.Tx) error { panic("flush always") }

func TestAFlushThatAlwaysFaultsStopsTheRunner(t *testing.T) {
	l, err := projector.NewLocal(t.TempDir(), flushAlways{newMemo()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var msgs []*projector.Msg
	for seq := uint64(1); seq <= 3; seq++ {
		data, err := events.Encode(&events.Event{ID: fmt.Sprint(seq), Tenant: "acme", Item: "i", Body: &events.TextDelta{Text: "a"}})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, &projector.Msg{Seq: seq, Subject: "ts.model.acme.r.i", Time: 1, Data: data})
	}
	if _, err := l.Apply(context.Background(), msgs...); !errors.Is(err, projector.ErrFault) || !strings.Contains(err.Error(), "without the message") {
		t.Fatalf("a Flush that always faults: %v, want the runner stopped with ErrFault", err)
	}
	if cp := l.Runner().Checkpoint(); cp != 0 {
		t.Fatalf("checkpoint %d, want 0: nothing committed", cp)
	}
}
