package assembler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/bus/bustest"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/logread"
	"github.com/toolstream/toolstream/node"
	"github.com/toolstream/toolstream/projector"
)

// withGarbage is a recording's raw events with a line that is not JSON
// after the third: a refused raw event, which aborts the open calls.
func withGarbage(evs [][]byte) [][]byte {
	if len(evs) < 3 {
		return evs
	}
	return append(slices.Clone(evs[:3]), append([][]byte{[]byte("{not json")}, evs[3:]...)...)
}

func lines(evs [][]byte) []byte { return append(bytes.Join(evs, []byte("\n")), '\n') }

// TestEdgeEventsAreIngestsEvents: normalising at the edge (EdgeEvents)
// gives, for every recorded stream, intact and with a refused line in it,
// the canonical events the ingest projection emits for the same raw events
// published to ts.in: same subjects, envelopes and bodies. Only what names
// them differs: ingest's ids and InputRejected.Seq name the raw event's
// sequence in TS_IN, the edge's its position in its stream.
func TestEdgeEventsAreIngestsEvents(t *testing.T) {
	for _, rec := range recordings(t) {
		for _, evs := range [][][]byte{rec.events, withGarbage(rec.events)} {
			s := assembler.RawStream{Tenant: "acme", Format: rec.provider, Stream: "s1", User: "u1", Session: "se", Run: "r", Step: "2"}
			var edge []string
			n, err := assembler.EdgeEvents(s, bytes.NewReader(lines(evs)), assembler.EdgeOptions{Now: func() time.Time { return time.Unix(0, 42) }}, func(subj string, ev *events.Event) error {
				if want := fmt.Sprintf("edge:acme/s1/%d/", posOf(t, ev.ID)); !strings.HasPrefix(ev.ID, want) || ev.At != 42 {
					t.Fatalf("%s: event %s at %d", rec.file, ev.ID, ev.At)
				}
				edge = append(edge, canonical(subj, ev))
				return nil
			})
			if err != nil || n != len(evs) {
				t.Fatalf("%s: EdgeEvents read %d of %d: %v", rec.file, n, len(evs), err)
			}
			ing, err := projector.NewLocal(filepath.Join(t.TempDir(), "ingest"), assembler.NewIngest(assembler.IngestConfig{}))
			if err != nil {
				t.Fatal(err)
			}
			subj, _ := events.IngestSubject("acme", rec.provider, "s1")
			var via []string
			for i := 0; i <= len(evs); i++ {
				h := nats.Header{}
				for k, v := range map[string]string{assembler.HeaderSeq: strconv.Itoa(i), assembler.HeaderUser: "u1", assembler.HeaderSession: "se", assembler.HeaderRun: "r", assembler.HeaderStep: "2"} {
					h.Set(k, v)
				}
				var data []byte
				if i == len(evs) {
					h.Set(assembler.HeaderEnd, "1")
				} else {
					data = evs[i]
				}
				out, err := ing.Apply(context.Background(), &projector.Msg{Seq: uint64(i + 1), Subject: subj, Time: 42, Header: h, Data: data})
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range out {
					if r, ok := e.Event.Body.(*events.InputRejected); ok {
						r.Seq-- // ingest names the raw event by its TS_IN sequence (i+1 here)
					}
					via = append(via, canonical(e.Subject, e.Event))
				}
			}
			ing.Close()
			if !slices.Equal(edge, via) {
				t.Fatalf("%s: at the edge\n%s\nthrough ingest\n%s", rec.file, strings.Join(edge, "\n"), strings.Join(via, "\n"))
			}
		}
	}
}

// TestMergedEdgeEvents: with Merge, every recorded stream (intact and with
// a refused line) gives the same events as without, except that each run
// of one call's consecutive argument deltas is one delta holding their
// bytes, named by the first; and reading the stream in any chunks (one byte
// at a time, half reads) gives the same events with the same ids, so a
// stream published again is deduplicated as before.
func TestMergedEdgeEvents(t *testing.T) {
	var per, merged int
	for _, rec := range recordings(t) {
		for _, evs := range [][][]byte{rec.events, withGarbage(rec.events)} {
			s := assembler.RawStream{Tenant: "acme", Format: rec.provider, Stream: "s1", User: "u1"}
			read := func(r io.Reader, merge bool) []*events.Event {
				var out []*events.Event
				n, err := assembler.EdgeEvents(s, r, assembler.EdgeOptions{Now: func() time.Time { return time.Unix(0, 42) }, Merge: merge},
					func(_ string, ev *events.Event) error { out = append(out, ev); return nil })
				if err != nil || n != len(evs) {
					t.Fatalf("%s: EdgeEvents read %d of %d: %v", rec.file, n, len(evs), err)
				}
				return out
			}
			chunks := read(bytes.NewReader(lines(evs)), false)
			runs := read(bytes.NewReader(lines(evs)), true)
			per, merged = per+len(chunks), merged+len(runs)
			// Merge the unmerged events by hand: the merged must be that.
			var want []string
			var held *events.Event
			var heldBytes string
			flush := func() {
				if held != nil {
					want = append(want, held.ID+" "+fmt.Sprintf("%s %s %s %s %q", deltaKey(held), held.Response, held.Item, held.CallID, heldBytes))
					held = nil
				}
			}
			for _, ev := range chunks {
				if d, ok := deltaOf(ev); ok {
					if held != nil && held.Response == ev.Response && held.Item == ev.Item && held.CallID == ev.CallID && deltaKey(held) == deltaKey(ev) {
						heldBytes += d
						continue
					}
					flush()
					held, heldBytes = ev, d
					continue
				}
				flush()
				want = append(want, ev.ID+" "+canonical("", ev))
			}
			flush()
			var got []string
			for _, ev := range runs {
				if d, ok := deltaOf(ev); ok {
					got = append(got, ev.ID+" "+fmt.Sprintf("%s %s %s %s %q", deltaKey(ev), ev.Response, ev.Item, ev.CallID, d))
					continue
				}
				got = append(got, ev.ID+" "+canonical("", ev))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: merged\n%s\nwant\n%s", rec.file, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for name, r := range map[string]io.Reader{"one byte": iotest.OneByteReader(bytes.NewReader(lines(evs))), "halves": iotest.HalfReader(bytes.NewReader(lines(evs)))} {
				again := read(r, true)
				if len(again) != len(runs) {
					t.Fatalf("%s: read %s, %d events, want %d", rec.file, name, len(again), len(runs))
				}
				for i := range again {
					if again[i].ID != runs[i].ID || canonical("", again[i]) != canonical("", runs[i]) {
						t.Fatalf("%s: read %s, event %d is %s %s, want %s %s", rec.file, name, i, again[i].ID, canonical("", again[i]), runs[i].ID, canonical("", runs[i]))
					}
				}
			}
		}
	}
	if merged >= per {
		t.Fatalf("merging left %d events of %d", merged, per)
	}
	t.Logf("the recordings: %d model events per chunk, %d merged", per, merged)
}

// deltaOf is the bytes of a delta event.
func deltaOf(ev *events.Event) (string, bool) {
	switch d := ev.Body.(type) {
	case *events.ArgumentsDelta:
		return d.Delta, true
	case *events.TextDelta:
		return d.Text, true
	}
	return "", false
}

// deltaKey is what a delta must share with the next to be merged with it,
// besides its call or item.
func deltaKey(ev *events.Event) string {
	if d, ok := ev.Body.(*events.TextDelta); ok {
		return fmt.Sprintf("text#%d", d.Index)
	}
	return string(ev.Body.Kind())
}

func posOf(t *testing.T, id string) int {
	parts := strings.Split(id, "/")
	n, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil {
		t.Fatalf("id %s: %v", id, err)
	}
	return n
}

// canonical is an event without what names it.
func canonical(subj string, ev *events.Event) string {
	body, _ := json.Marshal(ev.Body)
	return fmt.Sprintf("%s %s u=%s se=%s run=%s st=%s r=%s i=%s c=%s %s", subj, ev.Body.Kind(), ev.User, ev.Session, ev.Run, ev.Step, ev.Response, ev.Item, ev.CallID, body)
}

// TestProducerPublishesWhatIngestWould runs every recorded stream through a
// real server twice: published by a Producer (normalised at the edge,
// sealed, straight to ts.model) and verbatim to ts.in (ingest normalises).
// The assembler decides the same calls and responses from both; the
// producer's events are all sealed, none of them reaches ts.in, its
// arguments are in no message of the log in the clear, and publishing the
// same stream again adds nothing. Both ways of keeping order (a window,
// atomic batches) are tried.
func TestProducerPublishesWhatIngestWould(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := node.New(b, t.TempDir(), nil)
	t.Cleanup(func() { n.Stop() })
	for _, p := range []projector.Projection{assembler.NewIngest(assembler.IngestConfig{}), assembler.New(assembler.Config{})} {
		if _, err := n.Start(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	modes := map[string]assembler.OrderMode{"window": assembler.OrderWindow, "batches": assembler.OrderBatches}
	published, stored := map[string]int{}, map[string]int{}
	for mode, order := range modes {
		p, err := assembler.NewProducer(assembler.ProducerConfig{JS: b.JS, Keys: b.Keys, Ordered: order, Window: 7})
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range recordings(t) {
			s := assembler.RawStream{Tenant: "edge" + mode, Format: rec.provider, Stream: fmt.Sprint("s", i), User: "u1"}
			pub, err := p.Publish(ctx, s, bytes.NewReader(lines(withGarbage(rec.events))))
			if err != nil || pub.Raw != len(rec.events)+1 || pub.Model == 0 || pub.Last == 0 {
				t.Fatalf("%s, %s: %+v, %v", mode, rec.file, pub, err)
			}
			again, err := p.Publish(ctx, s, bytes.NewReader(lines(withGarbage(rec.events))))
			if err != nil || again.Model != pub.Model {
				t.Fatalf("%s, %s: again %+v, %v", mode, rec.file, again, err)
			}
			published[s.Tenant] += pub.Model
			s.Tenant = "raw" + mode
			if _, _, err := assembler.PublishRaw(ctx, b.JS, s, bytes.NewReader(lines(withGarbage(rec.events)))); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{assembler.IngestName, assembler.Name} {
		if err := n.Settle(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := node.ReadAll(ctx, b, []string{"ts.call.>", "ts.resp.>"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, ev := range evs {
		if l, ok := assembler.LineOf(ev); ok {
			tenant := l.Tenant
			l.Tenant = ""
			j, _ := json.Marshal(l)
			got[tenant] = append(got[tenant], string(j))
		}
	}
	for mode := range modes {
		edge, raw := got["edge"+mode], got["raw"+mode]
		slices.Sort(edge)
		slices.Sort(raw)
		if len(edge) < len(recordings(t)) || !slices.Equal(edge, raw) {
			t.Fatalf("%s: from the edge\n%s\nthrough ingest\n%s", mode, strings.Join(edge, "\n"), strings.Join(raw, "\n"))
		}
	}
	// The producer's events: sealed, on ts.model only, no plaintext.
	var model int
	err = b.Read(ctx, logread.Config{Stream: events.StreamModel}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			ev, err := events.Envelope(m.Data)
			if err != nil || !strings.HasPrefix(ev.Tenant, "edge") {
				continue
			}
			model++
			stored[ev.Tenant]++
			if ev.Sealed == "" || bytes.Contains(m.Data, []byte("San Francisco")) || bytes.Contains(m.Data, []byte("Boston")) {
				t.Fatalf("%s (%s) is in the clear", ev.ID, ev.Kind)
			}
		}
		return nil
	})
	if err != nil || model == 0 || !maps.Equal(stored, published) {
		t.Fatalf("model events of the producer: %v in the log, %v published once (the second time adds none): %v", stored, published, err)
	}
	err = b.Read(ctx, logread.Config{Stream: events.StreamIn}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			if strings.HasPrefix(m.Subject, "ts.in.edge") {
				t.Fatalf("the producer published %s", m.Subject)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
