package client_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logread"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/projector"
)

type recording struct {
	file, provider string
	events         [][]byte
}

// recordings are the recorded provider streams of testdata/streams.
func recordings(t testing.TB) []recording {
	t.Helper()
	b, err := os.ReadFile("../testdata/streams/MANIFEST.json")
	if err != nil {
		t.Fatal(err)
	}
	var m []struct{ File, Provider string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var out []recording
	for _, e := range m {
		f, err := os.Open(filepath.Join("../testdata/streams", e.File))
		if err != nil {
			t.Fatal(err)
		}
		r := recording{file: e.File, provider: e.Provider}
		if r.provider == "other" {
			r.provider = "auto"
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
				r.events = append(r.events, bytes.Clone(line))
			}
		}
		f.Close()
		out = append(out, r)
	}
	return out
}

// withGarbage is a recording's raw events with a line that is not JSON
// after the third: a refused raw event, which aborts the open calls.
func withGarbage(evs [][]byte) [][]byte {
	if len(evs) < 3 {
		return evs
	}
	return append(slices.Clone(evs[:3]), append([][]byte{[]byte("{not json")}, evs[3:]...)...)
}

func lines(evs [][]byte) []byte { return append(bytes.Join(evs, []byte("\n")), '\n') }

// connect is a client of b's embedded server as id.
func connect(t testing.TB, b *bus.Bus, id auth.Identity, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.Connect(context.Background(), append([]client.Option{client.WithURL(b.ClientURL()),
		client.WithCredsFile(bustest.Creds(t, b, id))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestWriterPublishesWhatIngestWould runs every recorded stream, with a
// refused line in it, through a real server: written by a producer's
// identity event by event and from a reader (normalised here, sealed,
// straight to ts.model), in a window and in atomic batches, and written
// raw (the server's ingest normalises). The assembler decides the same
// calls and responses from all; the normalised events are all sealed and
// none reaches ts.in; writing a stream again stores nothing twice.
func TestWriterPublishesWhatIngestWould(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n := stack.NewNode(b, t.TempDir(), nil)
	t.Cleanup(func() { n.Stop() })
	for _, p := range []projector.Projection{assembler.NewIngest(assembler.IngestConfig{}), assembler.New(assembler.Config{})} {
		if _, err := n.Start(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	ways := []string{"window-each", "window-reader", "batches-each", "batches-reader", "raw"}
	published := map[string]int{}
	for _, way := range ways {
		tenant := strings.ReplaceAll(way, "-", "")
		c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: tenant},
			client.WithAtomicBatches(strings.HasPrefix(way, "batches")), client.WithPublishWindow(7))
		for i, rec := range recordings(t) {
			opts := []client.StreamOption{client.WithStream(client.Stream{Tenant: tenant, ID: fmt.Sprint("s", i), Format: rec.provider}),
				client.WithUser("u1"), client.WithSession("se"), client.WithRun("r", "2")}
			if way == "raw" {
				opts = append(opts, client.WithRaw())
			}
			write := func() client.Published {
				w, err := c.NewWriter(ctx, opts...)
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(way, "each") {
					for _, ev := range withGarbage(rec.events) {
						if err := w.Write(ctx, ev); err != nil {
							t.Fatalf("%s, %s: %v", way, rec.file, err)
						}
					}
				} else if _, err := w.ReadFrom(ctx, bytes.NewReader(lines(withGarbage(rec.events)))); err != nil {
					t.Fatalf("%s, %s: %v", way, rec.file, err)
				}
				pub, err := w.Close(ctx)
				if err != nil || pub.Raw != len(rec.events)+1 || pub.Model == 0 || pub.Last == 0 || pub.Stream == "" {
					t.Fatalf("%s, %s: %+v, %v", way, rec.file, pub, err)
				}
				// Last is a sequence of Stream: the stream that stored the events.
				if st, err := b.JS.Stream(ctx, pub.Stream); err != nil {
					t.Fatalf("%s, %s: stream %s: %v", way, rec.file, pub.Stream, err)
				} else if _, err := st.GetMsg(ctx, pub.Last); err != nil {
					t.Fatalf("%s, %s: seq %d of %s: %v", way, rec.file, pub.Last, pub.Stream, err)
				}
				if again, err := w.Close(ctx); again != pub || err != nil {
					t.Fatalf("%s, %s: closed again %+v, %v", way, rec.file, again, err)
				}
				if err := w.Write(ctx, rec.events[0]); !errors.Is(err, client.ErrBadInput) {
					t.Fatalf("%s: a write after Close: %v", way, err)
				}
				return pub
			}
			pub := write()
			if again := write(); again.Model != pub.Model {
				t.Fatalf("%s, %s: again %+v, first %+v", way, rec.file, again, pub)
			}
			published[tenant] += pub.Model
		}
	}
	for _, name := range []string{assembler.IngestName, assembler.Name} {
		if err := n.Settle(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := b.ReadEvents(ctx, []string{"ts.call.>", "ts.resp.>"})
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
	raw := got["raw"]
	slices.Sort(raw)
	if len(raw) < len(recordings(t)) {
		t.Fatalf("through ingest: %s", strings.Join(raw, "\n"))
	}
	for _, way := range ways[:4] {
		tenant := strings.ReplaceAll(way, "-", "")
		edge := got[tenant]
		slices.Sort(edge)
		if !slices.Equal(edge, raw) {
			t.Fatalf("%s: from the edge\n%s\nthrough ingest\n%s", way, strings.Join(edge, "\n"), strings.Join(raw, "\n"))
		}
	}
	stored := map[string]int{}
	err = b.Read(ctx, logread.Config{Stream: events.StreamModel}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			ev, err := events.Envelope(m.Data)
			if err != nil || !strings.HasPrefix(ev.Tenant, "window") && !strings.HasPrefix(ev.Tenant, "batches") {
				continue
			}
			stored[ev.Tenant]++
			if ev.Sealed == "" || ev.User != "u1" || ev.Run != "r" || ev.Step != "2" || ev.Session != "se" {
				t.Fatalf("%s (%s): sealed %q, envelope %s/%s/%s/%s", ev.ID, ev.Kind, ev.Sealed, ev.User, ev.Session, ev.Run, ev.Step)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, way := range ways[:4] {
		tenant := strings.ReplaceAll(way, "-", "")
		if stored[tenant] == 0 || stored[tenant] != published[tenant] {
			t.Fatalf("%s: %d model events in the log, %d published once (the second time adds none)", way, stored[tenant], published[tenant])
		}
	}
	err = b.Read(ctx, logread.Config{Stream: events.StreamIn}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			if !strings.HasPrefix(m.Subject, "ts.in.raw.") {
				t.Fatalf("a normalising writer published %s", m.Subject)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriterSSE: events given by their SSE fields, one by one, are the
// events of the stream read whole: an Anthropic stream whose data lost
// its "type" takes it from the event name either way.
func TestWriterSSE(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	c := connect(t, b, bustest.Admin, client.WithClock(func() time.Time { return time.Unix(0, 42) }))
	var rec recording
	for _, r := range recordings(t) {
		if r.provider == "anthropic" {
			rec = r
			break
		}
	}
	var sse bytes.Buffer
	w, err := c.NewWriter(ctx, client.WithStream(client.Stream{Tenant: "each", ID: "s", Format: "anthropic", User: "u"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range rec.events {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(ev, &m); err != nil {
			t.Fatal(err)
		}
		var name string
		json.Unmarshal(m["type"], &name)
		delete(m, "type")
		data, _ := json.Marshal(m)
		fmt.Fprintf(&sse, "event: %s\ndata: %s\n\n", name, data)
		if err := w.WriteSSE(ctx, name, data); err != nil {
			t.Fatal(err)
		}
	}
	each, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := c.Publish(ctx, &sse, client.WithStream(client.Stream{Tenant: "whole", ID: "s", Format: "anthropic", User: "u"}))
	if err != nil || whole != each && whole.Model != each.Model {
		t.Fatalf("whole %+v, each %+v: %v", whole, each, err)
	}
	bodies := map[string][]string{}
	err = b.Read(ctx, logread.Config{Stream: events.StreamModel}, func(batch []*logread.Msg) error {
		for _, m := range batch {
			ev, err := events.DecodeAtWith(m.Subject, m.Data, b.Keys)
			if err != nil {
				return err
			}
			j, _ := json.Marshal(ev.Body)
			bodies[ev.Tenant] = append(bodies[ev.Tenant], string(ev.Kind)+string(j))
		}
		return nil
	})
	if err != nil || len(bodies["each"]) < 3 || !slices.Equal(bodies["each"], bodies["whole"]) {
		t.Fatalf("event by event\n%s\nwhole\n%s\n%v", strings.Join(bodies["each"], "\n"), strings.Join(bodies["whole"], "\n"), err)
	}
	if slices.ContainsFunc(bodies["each"], func(s string) bool { return strings.HasPrefix(s, string(events.KindInputRejected)) }) {
		t.Fatalf("an event was refused: %s", strings.Join(bodies["each"], "\n"))
	}
}

// TestWriterRefuses: what a writer cannot start is ErrBadInput, and a
// producer writing for another tenant is ErrPermissionDenied.
func TestWriterRefuses(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, client.WithPublishTimeout(time.Second))
	for name, s := range map[string]client.Stream{
		"no tenant":      {ID: "s"},
		"bad tenant":     {Tenant: "a.b", ID: "s"},
		"no id":          {Tenant: "acme"},
		"unknown format": {Tenant: "acme", ID: "s", Format: "telepathy"},
	} {
		if _, err := c.NewWriter(ctx, client.WithStream(s)); !errors.Is(err, client.ErrBadInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := c.NewWriter(ctx, client.WithFormat("telepathy")); !errors.Is(err, client.ErrBadInput) {
		t.Errorf("WithFormat: %v", err)
	}
	raw := []byte(`{"type":"response.created","response":{"id":"resp_1"}}` + "\n")
	for _, s := range []client.Stream{{Tenant: "other", ID: "s", User: "u"}, {Tenant: "other", ID: "s", Raw: true}} {
		_, err := c.Publish(ctx, bytes.NewReader(raw), client.WithStream(s))
		if !errors.Is(err, client.ErrPermissionDenied) {
			t.Errorf("another tenant's stream (raw %v): %v", s.Raw, err)
		}
	}
	if _, err := c.Publish(ctx, bytes.NewReader(raw), client.WithStream(client.Stream{Tenant: "acme", ID: "s", User: "u"})); err != nil {
		t.Fatal(err)
	}
}

// TestWriterWithoutMsgIDs: a window writer WithoutMsgIDs publishes its
// model events with no Nats-Msg-Id, so the server keeps no duplicate entry
// for them (a stream written twice is stored twice: the promise is for a
// log only this writer writes, once); a writer in atomic batches, which
// retries with its ids, keeps them even so, and the same stream written
// twice is stored once.
func TestWriterWithoutMsgIDs(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec := recordings(t)[0]
	for _, batches := range []bool{false, true} {
		tenant := fmt.Sprint("nomsgids", batches)
		c := connect(t, b, auth.Identity{Role: auth.RoleProducer, Tenant: tenant}, client.WithoutMsgIDs(), client.WithAtomicBatches(batches))
		var first client.Published
		for i := range 2 {
			pub, err := c.Publish(ctx, bytes.NewReader(lines(rec.events)), client.WithStream(client.Stream{Tenant: tenant, ID: "s", Format: rec.provider}))
			if err != nil || pub.Model == 0 {
				t.Fatalf("batches %v, write %d: %+v, %v", batches, i, pub, err)
			}
			first = pub
		}
		stored, withID := 0, 0
		err := b.Read(ctx, logread.Config{Stream: events.StreamModel, Subjects: []string{"ts.model." + tenant + ".>"}}, func(batch []*logread.Msg) error {
			for _, m := range batch {
				stored++
				if m.Header.Get("Nats-Msg-Id") != "" {
					withID++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !batches && (stored != 2*first.Model || withID != 0):
			t.Fatalf("window: %d stored (%d with a message id), want %d without", stored, withID, 2*first.Model)
		case batches && (stored != first.Model || withID != stored):
			t.Fatalf("batches: %d stored (%d with a message id), want %d, each with its id", stored, withID, first.Model)
		}
	}
}
