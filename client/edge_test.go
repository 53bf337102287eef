package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/projector"
)

// stored is an event of the log and its subject.
type stored struct {
	subject string
	ev      *events.Event
}

// modelEvents reads tenant's model events back from the log, opened.
func modelEvents(ctx context.Context, t *testing.T, b *bus.Bus, tenant string) []stored {
	t.Helper()
	filter, err := events.TenantFilter("model", tenant)
	if err != nil {
		t.Fatal(err)
	}
	var out []stored
	err = b.Read(ctx, logread.Config{Stream: events.StreamModel, Filter: filter}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys)
			if err != nil {
				return err
			}
			out = append(out, stored{m.Subject, ev})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// canonical is an event without what names it (its id, its tenant).
func canonical(subj string, ev *events.Event) string {
	body, _ := json.Marshal(ev.Body)
	subj = strings.Replace(subj, "."+ev.Tenant+".", ".T.", 1)
	return fmt.Sprintf("%s %s u=%s se=%s run=%s st=%s r=%s i=%s c=%s %s", subj, ev.Body.Kind(), ev.User, ev.Session, ev.Run, ev.Step, ev.Response, ev.Item, ev.CallID, body)
}

// posOf is the raw event's position an edge event's id names, as the id
// writes it ("end" for what the stream's end implied).
func posOf(t *testing.T, id string) string {
	_, _, pos, _, ok := events.SplitEdgeEventID(id)
	if !ok {
		t.Fatalf("id %s is no edge event id", id)
	}
	if pos == events.EdgeEnd {
		return "end"
	}
	return strconv.FormatInt(pos, 10)
}

// TestWriterEventsAreIngestsEvents: a Writer publishing per chunk stores,
// for every recorded stream, intact and with a refused line in it, the
// canonical events the ingest projection emits for the same raw events
// published to ts.in: same subjects, envelopes and bodies. Only what
// names them differs: ingest's ids and InputRejected.Seq name the raw
// event's sequence in TS_IN, the edge's its position in its stream.
func TestWriterEventsAreIngestsEvents(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, b, bustest.Admin, client.WithKeys(b.Keys), client.WithClock(func() time.Time { return time.Unix(0, 42) }), client.WithPerChunk())
	for i, rec := range recordings(t) {
		for g, evs := range [][][]byte{rec.events, withGarbage(rec.events)} {
			tenant := fmt.Sprintf("t%d-%d", i, g)
			pub, err := c.Publish(ctx, bytes.NewReader(lines(evs)), client.WithStream(client.Stream{Tenant: tenant, ID: "s1", Format: rec.provider,
				User: "u1", Session: "se", Run: "r", Step: "2"}))
			if err != nil || pub.Raw != len(evs) {
				t.Fatalf("%s: %+v, %v", rec.file, pub, err)
			}
			var edge []string
			for _, s := range modelEvents(ctx, t, b, tenant) {
				if want := fmt.Sprintf("edge:%s/s1/%s/", tenant, posOf(t, s.ev.ID)); !strings.HasPrefix(s.ev.ID, want) || s.ev.At != 42 {
					t.Fatalf("%s: event %s at %d", rec.file, s.ev.ID, s.ev.At)
				}
				edge = append(edge, canonical(s.subject, s.ev))
			}
			ing, err := projector.NewLocal(filepath.Join(t.TempDir(), "ingest"), assembler.NewIngest(assembler.IngestConfig{}))
			if err != nil {
				t.Fatal(err)
			}
			subj, _ := events.IngestSubject(tenant, rec.provider, "s1")
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
				out, err := ing.Apply(ctx, &projector.Msg{Seq: uint64(i + 1), Subject: subj, Time: 42, Header: h, Data: data})
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
			if len(edge) == 0 || !slices.Equal(edge, via) {
				t.Fatalf("%s: at the edge\n%s\nthrough ingest\n%s", rec.file, strings.Join(edge, "\n"), strings.Join(via, "\n"))
			}
		}
	}
}

// TestWriterMergesDeltas: merging (a Writer's default), every recorded
// stream (intact and with a refused line) gives the same events as per
// chunk, except that each run of one call's consecutive argument deltas
// (or an item's text) is one delta holding their bytes, named by the
// first; and reading the stream in any chunks (one byte at a time, half
// reads) or writing it event by event gives the same events with the same
// ids, so a stream written again is deduplicated.
func TestWriterMergesDeltas(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	at := client.WithClock(func() time.Time { return time.Unix(0, 42) })
	perChunk := connect(t, b, bustest.Admin, client.WithKeys(b.Keys), at, client.WithPerChunk())
	merging := connect(t, b, bustest.Admin, client.WithKeys(b.Keys), at)
	var per, merged int
	for i, rec := range recordings(t) {
		for g, evs := range [][][]byte{rec.events, withGarbage(rec.events)} {
			// write publishes the stream to a tenant of its own and reads
			// its events back.
			write := func(name string, c *client.Client, feed func(*client.Writer) error) []*events.Event {
				tenant := fmt.Sprintf("t%d-%d-%s", i, g, name)
				w, err := c.NewWriter(ctx, client.WithStream(client.Stream{Tenant: tenant, ID: "s1", Format: rec.provider, User: "u1"}))
				if err != nil {
					t.Fatal(err)
				}
				if err := feed(w); err != nil {
					t.Fatalf("%s, %s: %v", rec.file, name, err)
				}
				if pub, err := w.Close(ctx); err != nil || pub.Raw != len(evs) {
					t.Fatalf("%s, %s: %+v, %v", rec.file, name, pub, err)
				}
				var out []*events.Event
				for _, s := range modelEvents(ctx, t, b, tenant) {
					s.ev.ID = strings.Replace(s.ev.ID, tenant+"/", "T/", 1)
					out = append(out, s.ev)
				}
				return out
			}
			reader := func(r io.Reader) func(*client.Writer) error {
				return func(w *client.Writer) error { _, err := w.ReadFrom(ctx, r); return err }
			}
			chunks := write("per", perChunk, reader(bytes.NewReader(lines(evs))))
			runs := write("merged", merging, reader(bytes.NewReader(lines(evs))))
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
			for name, feed := range map[string]func(*client.Writer) error{
				"onebyte": reader(iotest.OneByteReader(bytes.NewReader(lines(evs)))),
				"halves":  reader(iotest.HalfReader(bytes.NewReader(lines(evs)))),
				"events": func(w *client.Writer) error {
					for _, ev := range evs {
						if err := w.Write(ctx, ev); err != nil {
							return err
						}
					}
					return nil
				},
			} {
				again := write(name, merging, feed)
				if len(again) != len(runs) {
					t.Fatalf("%s: %s, %d events, want %d", rec.file, name, len(again), len(runs))
				}
				for i := range again {
					if again[i].ID != runs[i].ID || canonical("", again[i]) != canonical("", runs[i]) {
						t.Fatalf("%s: %s, event %d is %s %s, want %s %s", rec.file, name, i, again[i].ID, canonical("", again[i]), runs[i].ID, canonical("", runs[i]))
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
