package projector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// flushCounter counts its messages in memory, read from the view once,
// and writes the count when a batch ends: a Flusher. It panics on seq 2
// after counting it.
type flushCounter struct {
	n      byte
	loaded bool
}

func (*flushCounter) Name() string       { return "flushcounter" }
func (*flushCounter) Subjects() []string { return []string{"ts.model.>"} }
func (f *flushCounter) Apply(tx *Tx, m *Msg) error {
	if !f.loaded {
		v, _, err := tx.Get([]byte("n"))
		if err != nil {
			return err
		}
		f.n, f.loaded = 0, true
		if len(v) == 1 {
			f.n = v[0]
		}
	}
	f.n++
	if m.Seq == 2 {
		panic("a fault of the projection's")
	}
	return nil
}
func (f *flushCounter) Flush(_ context.Context, tx *Tx) error {
	return tx.Set([]byte("n"), []byte{f.n})
}

// resetCounter is a flushCounter that can be put back: Reset drops what
// it counted and reads the view again.
type resetCounter struct{ *flushCounter }

func (r resetCounter) Reset() { r.loaded = false }

func threeMsgs() []*Msg {
	var out []*Msg
	for seq := uint64(1); seq <= 3; seq++ {
		out = append(out, &Msg{Seq: seq, Subject: "ts.model.acme.r.i", Time: 1})
	}
	return out
}

// A fault of a Flusher's with Reset: its memory is put back (the count
// read again from the view), so the faulted message is not counted,
// though it was counted in memory before it panicked; it is rejected as a
// fault, counted, and Local says so.
func TestAFaultOfAResetterIsPutBack(t *testing.T) {
	l, err := NewLocal(t.TempDir(), resetCounter{&flushCounter{}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Apply(context.Background(), threeMsgs()...); !errors.Is(err, ErrFault) || !strings.Contains(err.Error(), "a fault of the projection's") {
		t.Fatalf("Local after a fault: %v, want ErrFault with the panic's value", err)
	}
	v := l.Runner().View()
	defer v.Close()
	if n, _, err := v.Get([]byte("n")); err != nil || len(n) != 1 || n[0] != 2 {
		t.Fatalf("count %v (%v), want 2: the faulted message is not counted", n, err)
	}
	if s := l.Runner().Stats(); s.Checkpoint != 3 || s.Applied != 2 || s.Rejected != 1 || s.Faults != 1 {
		t.Fatalf("stats %+v, want checkpoint 3, 2 applied, 1 rejected, 1 fault", s)
	}
	rj, ok, err := l.Runner().Rejection(2)
	if err != nil || !ok || !strings.Contains(rj.Reason, "a fault of the projection's") {
		t.Fatalf("rejection of seq 2: %+v %v %v", rj, ok, err)
	}
}

// A Flusher without Reset cannot be put back: its fault stops the runner,
// nothing committed, rather than commit memory that may hold part of the
// message.
func TestAFaultOfAFlusherWithoutResetStops(t *testing.T) {
	l, err := NewLocal(t.TempDir(), &flushCounter{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Apply(context.Background(), threeMsgs()...); !errors.Is(err, ErrFault) || !strings.Contains(err.Error(), "no Resetter") {
		t.Fatalf("a Flusher without Reset faulted: %v, want the runner stopped", err)
	}
	if cp := l.Runner().Checkpoint(); cp != 0 {
		t.Fatalf("checkpoint %d after a fault that could not be put back, want 0", cp)
	}
}

// sender sends each message it applies out of the log after its batch
// commits (Tx.AfterCommit) and keeps its count for Flush in memory, put
// back by Reset. It panics on seq 2 and refuses seq 4 (bad input), both
// after asking to send them.
type sender struct {
	sent []uint64
	*flushCounter
}

func (s *sender) Apply(tx *Tx, m *Msg) error {
	tx.AfterCommit(func() { s.sent = append(s.sent, m.Seq) })
	if m.Seq == 4 {
		return fmt.Errorf("%w: refused", events.ErrBadInput)
	}
	return s.flushCounter.Apply(tx, m)
}

func (s *sender) Reset() { s.loaded = false }

// What a projection sends after a commit goes out once per message the
// view holds: not for a message whose fault dropped its batch (the batch
// is applied again without it, and what the others send goes out once),
// not for a refused one, not before the commit, and not in a replay.
func TestAfterCommitRunsOncePerCommittedMessage(t *testing.T) {
	var msgs []*Msg
	for seq := uint64(1); seq <= 5; seq++ {
		msgs = append(msgs, &Msg{Seq: seq, Subject: "ts.model.acme.r.i", Time: 1})
	}
	for _, tc := range []struct {
		mode Mode
		want []uint64
	}{
		{ModeHold, []uint64{1, 3, 5}},
		{ModeLive, []uint64{1, 3, 5}},
		{ModeReplay, nil},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			s := &sender{flushCounter: &flushCounter{}}
			r, err := New(Config{Dir: t.TempDir(), Mode: tc.mode, local: true}, s)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var before uint64 // the last batch's last sequence
			r.cfg.Hooks = &Hooks{AfterCommit: func(last uint64) {
				if n := len(s.sent); n > 0 && s.sent[n-1] > before {
					t.Errorf("sent %v before the batch to %d committed", s.sent, last)
				}
				before = last
			}}
			if err := r.applyMsgs(context.Background(), msgs); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(s.sent) != fmt.Sprint(tc.want) {
				t.Fatalf("sent %v, want %v", s.sent, tc.want)
			}
			if st := r.Stats(); st.Checkpoint != 5 || st.Faults != 1 || st.Rejected != 2 {
				t.Fatalf("stats %+v, want checkpoint 5, 1 fault, 2 rejected", st)
			}
		})
	}
}
