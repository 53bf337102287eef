package assembler_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/projector/projectortest"
)

// TestSealedIngestEqualsClearIngest: ingest with SealRaw copies each raw
// event into a sealed copy and normalises the copy when it reads it back.
// Fed the batch workload (three interleaved streams, held, repeated and
// refused events, an end) with each copy arriving some messages after its
// raw event and a few copies relayed twice, it emits exactly the model
// events (subjects, ids, bodies) and rejections of ingest normalising the
// raw events as they come. A replay that finds the raw events deleted,
// only their copies at the same sequences, has the live view's digest and
// emits the same model events again.
func TestSealedIngestEqualsClearIngest(t *testing.T) {
	ctx := context.Background()
	msgs := batchWorkload(t)
	for _, m := range msgs {
		if strings.HasSuffix(m.Subject, ".s2") {
			m.Header.Del(assembler.HeaderSeq) // globex's stream unnumbered: applied as it comes, repeats too
		}
	}
	modelOf := func(out []projector.Emitted, into *strings.Builder) []projector.Emitted {
		var copies []projector.Emitted
		for _, e := range out {
			if e.Event.Kind == events.KindRawSealed {
				copies = append(copies, e)
				continue
			}
			fmt.Fprintf(into, "%s %s %s %+v\n", e.Subject, e.Event.ID, e.Event.Kind, e.Event.Body)
		}
		return copies
	}
	open := func(cfg assembler.IngestConfig) *projector.Local {
		l, err := projector.NewLocal(filepath.Join(t.TempDir(), "ingest"), assembler.NewIngest(cfg))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	apply := func(l *projector.Local, m *projector.Msg) []projector.Emitted {
		t.Helper()
		out, err := l.Apply(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	asMsg := func(e projector.Emitted, seq uint64) *projector.Msg {
		t.Helper()
		m, err := projectortest.Event(e.Subject, e.Event)
		if err != nil {
			t.Fatal(err)
		}
		return &projector.Msg{Seq: seq, Subject: m.Subject, Time: e.Event.At, Header: m.Header, Data: m.Data}
	}

	// In the clear: the raw events normalised as they come.
	var want strings.Builder
	clearIngest := open(assembler.IngestConfig{})
	rng := rand.New(rand.NewPCG(3, 4))
	var seq uint64
	var live []*projector.Msg // the sealed ingest's input, in log order
	var pending []projector.Emitted
	sealed := open(assembler.IngestConfig{SealRaw: true})
	var got strings.Builder
	copiesLogged := 0
	flush := func(n int) {
		for _, c := range pending[:n] {
			seq++
			m := asMsg(c, seq)
			live = append(live, m)
			if len(modelOf(apply(sealed, m), &got)) != 0 {
				t.Fatal("a sealed copy was copied again")
			}
			copiesLogged++
			if rng.IntN(10) == 0 { // relayed again after its duplicate window
				seq++
				again := asMsg(c, seq)
				live = append(live, again)
				modelOf(apply(sealed, again), &got)
			}
		}
		pending = pending[n:]
	}
	for _, m := range msgs {
		c := *m
		c.Seq = seq + 1
		modelOf(apply(clearIngest, &c), &want)
		seq++
		s := *m
		s.Seq = seq
		live = append(live, &s)
		copies := modelOf(apply(sealed, &s), &got)
		if len(copies) != 1 || copies[0].Event.ID != events.RawSealedID(strings.Split(m.Subject, ".")[2], seq) {
			t.Fatalf("raw event %d: copies %v", seq, copies)
		}
		pending = append(pending, copies...)
		if rng.IntN(3) == 0 {
			flush(rng.IntN(len(pending) + 1))
		}
	}
	flush(len(pending))
	if got.String() != want.String() {
		t.Fatalf("sealed ingest emitted\n%s\nin the clear\n%s", got.String(), want.String())
	}
	if copiesLogged != len(msgs) || want.Len() == 0 {
		t.Fatalf("%d copies of %d raw events, %d bytes of model events", copiesLogged, len(msgs), want.Len())
	}
	liveDigest, err := sealed.Runner().Digest()
	if err != nil {
		t.Fatal(err)
	}
	wantRj, _ := clearIngest.Runner().Rejections()
	gotRj, _ := sealed.Runner().Rejections()
	if len(gotRj) != len(wantRj) || len(wantRj) == 0 {
		t.Fatalf("rejections sealed %v, in the clear %v", gotRj, wantRj)
	}

	// A replay: the raw events were deleted, their copies are read.
	replay := open(assembler.IngestConfig{SealRaw: true})
	var again strings.Builder
	for _, m := range live {
		if strings.HasPrefix(m.Subject, "ts.in.") {
			continue
		}
		c := *m
		modelOf(apply(replay, &c), &again)
	}
	d, err := replay.Runner().Digest()
	if err != nil {
		t.Fatal(err)
	}
	if d != liveDigest {
		t.Fatalf("replay's view %v, live's %v", d, liveDigest)
	}
	if !bytes.Equal([]byte(again.String()), []byte(want.String())) {
		t.Fatalf("replay emitted\n%s\nwant\n%s", again.String(), want.String())
	}
}
