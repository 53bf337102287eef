package projector_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// TestReplayAsTheReaderSealsNothing: `toolstream replay` reads as the
// reader, which may open data keys but never ask for one to seal with
// (tsv.keys.seal is the processors' and the operator's). A replay drops what
// the projection emits, so it must not seal it either: a view whose live run
// emitted events sealed under a scope the replay never opened (here the
// tenant's user-less scope; through serve, one model event a producer wrote
// that no projection can read) is rebuilt by the reader and equals the live
// one. Before, each such emit asked the keys service to seal as the reader,
// was refused by the server, and the replay failed on the timeout.
func TestReplayAsTheReaderSealsNothing(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	var last uint64
	for i := 1; i <= 5; i++ {
		subj, _ := events.ModelSubject("acme", "r1", "i1")
		// In the clear, as an event no key opens: the replay has opened no
		// key of acme's when the projection emits.
		data, err := events.Encode(&events.Event{ID: fmt.Sprintf("in:%d", i), Tenant: "acme", Item: "i1", At: int64(i),
			Body: &events.TextDelta{Index: i, Text: "x"}})
		if err != nil {
			t.Fatal(err)
		}
		ack, err := b.JS.Publish(ctx, subj, data)
		if err != nil {
			t.Fatal(err)
		}
		last = ack.Sequence
	}
	r, stop := startRunner(t, b, filepath.Join(t.TempDir(), "live"), tally{}, nil)
	waitFor(t, r, last)
	live, err := r.Digest()
	if err != nil {
		t.Fatal(err)
	}
	stop()

	opts, err := b.UserOptions(auth.Identity{Role: auth.RoleReader})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := bus.OpenWithKeys(ctx, bus.Config{NATSURL: b.ClientURL(), Options: opts, Identity: auth.Identity{Role: auth.RoleReader}})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	rebuilt, err := projector.Replay(ctx, projector.Config{JS: reader.JS, Keys: reader.Keys, Dir: filepath.Join(t.TempDir(), "replay")}, tally{}, live.Seq)
	if err != nil {
		t.Fatalf("replay as the reader: %v", err)
	}
	if rebuilt != live {
		t.Fatalf("replayed %v, live %v", rebuilt, live)
	}
}
