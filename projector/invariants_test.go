//go:build invariants

package projector

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// counter counts the messages it applies: the smallest projection.
type counter struct{}

func (counter) Name() string       { return "counter" }
func (counter) Subjects() []string { return []string{"ts.model.>"} }
func (counter) Apply(tx *Tx, m *Msg) error {
	return tx.Set([]byte("n"), binary.BigEndian.AppendUint64(nil, m.Seq))
}

// TestCheckpointInvariant (-tags invariants): batches that move the
// checkpoint forward pass the check; a view whose checkpoint another
// writer changed under the runner stops the next batch with a panic that
// says what was found.
func TestCheckpointInvariant(t *testing.T) {
	l, err := NewLocal(t.TempDir(), counter{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.r.Close()
	ctx := context.Background()
	msg := func(seq uint64) *Msg { return &Msg{Seq: seq, Subject: "ts.model.acme.r.i", Time: 1} }
	for seq := uint64(1); seq <= 3; seq++ {
		if _, err := l.Apply(ctx, msg(seq)); err != nil {
			t.Fatal(err)
		}
	}
	// A second writer of the view (what the runner's ownership of its
	// directory rules out) moves the checkpoint.
	if err := l.r.db.Set(keyCheckpoint, binary.BigEndian.AppendUint64(nil, 9), pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	defer func() {
		p := recover()
		if s, _ := p.(string); !strings.Contains(s, "the view's checkpoint is 9, the runner's 3") {
			t.Fatalf("recovered %v, want the checkpoint invariant's panic", p)
		}
	}()
	l.Apply(ctx, msg(4))
	t.Fatal("the batch committed over a checkpoint it did not write")
}
