package projector_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// TestRunningAndProgress: Running is true only while Run consumes;
// Progress sees every committed checkpoint, in order, up to the last.
func TestRunningAndProgress(t *testing.T) {
	b := bustest.Start(t)
	var last uint64
	for i := 1; i <= 300; i++ {
		last = publishText(t, b, "acme", "a", i, "x")
	}
	var mu sync.Mutex
	var seen []uint64
	r, err := projector.New(projector.Config{JS: b.JS, Keys: b.Keys, Dir: t.TempDir(), BatchMax: 64, Progress: func(cp uint64) {
		mu.Lock()
		seen = append(seen, cp)
		mu.Unlock()
	}}, tally{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Running() {
		t.Fatal("running before Run")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	waitFor(t, r, last)
	if !r.Running() {
		t.Error("not running while Run consumes")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if r.Running() {
		t.Error("running after Run returned")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 || seen[len(seen)-1] < last || seen[len(seen)-1] != r.Checkpoint() {
		t.Fatalf("progress %v, want several checkpoints up to %d (at least %d)", seen, r.Checkpoint(), last)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("progress went back: %v", seen)
		}
	}
}

// TestViewRows: Rows walks exactly the rows Digest covers (rejections and
// state), in key order, from any key.
func TestViewRows(t *testing.T) {
	b := bustest.Start(t)
	publishText(t, b, "acme", "a", 1, "hello")
	publishText(t, b, "acme", "b", 2, "poison")
	last := publishText(t, b, "globex", "a", 3, "world")
	r, stop := startRunner(t, b, t.TempDir(), tally{}, nil)
	defer stop()
	waitFor(t, r, last)
	v := r.View()
	defer v.Close()
	var keys [][]byte
	var dump bytes.Buffer
	if err := v.Rows(nil, func(k, val []byte) error {
		keys = append(keys, bytes.Clone(k))
		fmt.Fprintf(&dump, "%q = %x\n", k, val)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := v.Dump(&want); err != nil {
		t.Fatal(err)
	}
	if dump.String() != want.String() {
		t.Fatalf("Rows:\n%s\nDump:\n%s", dump.String(), want.String())
	}
	dg, _ := v.Digest()
	if len(keys) != dg.Keys || len(keys) < 3 || !bytes.HasPrefix(keys[0], []byte("r/")) {
		t.Fatalf("%d rows, digest counts %d: %q", len(keys), dg.Keys, keys)
	}
	for i := range keys {
		var from [][]byte
		v.Rows(keys[i], func(k, _ []byte) error { from = append(from, bytes.Clone(k)); return nil })
		if len(from) != len(keys)-i || !bytes.Equal(from[0], keys[i]) {
			t.Errorf("Rows from %q: %q", keys[i], from)
		}
	}
	stopErr := fmt.Errorf("stop")
	n := 0
	if err := v.Rows(nil, func([]byte, []byte) error { n++; return stopErr }); err != stopErr || n != 1 {
		t.Errorf("an error from fn: %v after %d rows", err, n)
	}
}
