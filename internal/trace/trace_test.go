package trace_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/trace"
)

// logStory publishes, on a real embedded server, the model events of one
// call (opened, three argument deltas, done) normalised from raw events
// 7–11, its CallCompleted with their provenance and its CallSucceeded; and
// a second response whose call has the same provider call id and was
// rejected. It returns the key of the first call.
func logStory(t *testing.T, ctx context.Context, b *bus.Bus, tenant string) string {
	t.Helper()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	pub := func(subj string, ev *events.Event) uint64 {
		t.Helper()
		ev.Tenant = tenant
		ack, err := b.Publish(ctx, subj, ev)
		if err != nil {
			t.Fatal(err)
		}
		return ack.Sequence
	}
	model := func(resp, item string, n int, body events.Body) uint64 {
		subj, err := events.ModelSubject(tenant, resp, item)
		if err != nil {
			t.Fatal(err)
		}
		return pub(subj, &events.Event{ID: events.ModelEventID(tenant, resp, uint64(7+n), 0), Response: resp, Item: item, CallID: "call_1",
			At: t0.Add(time.Duration(n) * time.Millisecond).UnixNano(), Body: body})
	}
	first := model("r1", "i1", 0, &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "lookup"})
	model("r1", "i1", 1, &events.ArgumentsDelta{Delta: `{"sku":`})
	model("r1", "i1", 2, &events.ArgumentsDelta{Delta: `"A`})
	model("r1", "i1", 3, &events.ArgumentsDelta{Delta: `1"}`})
	last := model("r1", "i1", 4, &events.ArgumentsDone{})

	callSubj, err := events.CallSubject(tenant, "lookup")
	if err != nil {
		t.Fatal(err)
	}
	done := &events.Event{ID: events.CompletedID(tenant, "r1", "i1"), Response: "r1", Item: "i1", CallID: "call_1", At: t0.Add(10 * time.Millisecond).UnixNano(),
		Body: &events.CallCompleted{Name: "lookup", Arguments: []byte(`{"sku":"A1"}`), From: events.Provenance{FirstSeq: first, LastSeq: last, Deltas: 3, Bytes: 12}}}
	pub(callSubj, done)
	key := executor.CallKey(done)
	resSubj, err := events.ResultSubject(tenant, key)
	if err != nil {
		t.Fatal(err)
	}
	pub(resSubj, &events.Event{ID: events.ExecutionID("succeeded", key, 1), Response: "r1", Item: "i1", CallID: "call_1", At: t0.Add(30 * time.Millisecond).UnixNano(),
		Body: &events.CallSucceeded{Name: "lookup", Key: key, Summary: "12 in stock", Attempts: 1}})

	// Another response reuses the provider call id; its call was rejected.
	pub(callSubj, &events.Event{ID: events.RejectedID(tenant, "r2", "i9"), Response: "r2", Item: "i9", CallID: "call_1", At: t0.Add(time.Second).UnixNano(),
		Body: &events.CallRejected{Name: "lookup", Reason: events.ReasonInvalidJSON}})
	return key
}

func TestCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := bustest.Start(t)
	key := logStory(t, ctx, b, "acme")

	tests := []struct {
		name, tenant, id, response string
		wantErr                    error
		outcome, result, item      string
		kinds                      []events.Kind
	}{
		{name: "by call id, picked by response", tenant: "acme", id: "call_1", response: "r1", outcome: "completed", result: "succeeded", item: "i1",
			kinds: []events.Kind{events.KindOutputItemAdded, events.KindArgumentsDelta, events.KindArgumentsDelta, events.KindArgumentsDelta, events.KindArgumentsDone, events.KindCallCompleted, events.KindCallSucceeded}},
		{name: "by item id", tenant: "acme", id: "i9", outcome: "rejected", item: "i9", kinds: []events.Kind{events.KindCallRejected}},
		{name: "ambiguous", tenant: "acme", id: "call_1", wantErr: trace.ErrAmbiguous},
		{name: "unknown id", tenant: "acme", id: "nope", wantErr: trace.ErrNotFound},
		{name: "another tenant", tenant: "other", id: "call_1", wantErr: trace.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := trace.Call(ctx, b, tc.tenant, tc.id, tc.response)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tr.Outcome != tc.outcome || tr.Result != tc.result || tr.Item != tc.item {
				t.Errorf("outcome %q result %q item %q, want %q %q %q", tr.Outcome, tr.Result, tr.Item, tc.outcome, tc.result, tc.item)
			}
			var kinds []events.Kind
			for _, st := range tr.Steps {
				kinds = append(kinds, events.Kind(st.Kind))
			}
			if len(kinds) != len(tc.kinds) {
				t.Fatalf("steps %v, want %v", kinds, tc.kinds)
			}
			for i := range kinds {
				if kinds[i] != tc.kinds[i] {
					t.Fatalf("steps %v, want %v", kinds, tc.kinds)
				}
			}
		})
	}

	var amb *trace.AmbiguousError
	if _, err := trace.Call(ctx, b, "acme", "call_1", ""); !errors.As(err, &amb) || len(amb.Calls) != 2 || amb.Calls[0] != "r1/i1" {
		t.Errorf("ambiguous: %v", err)
	}

	// The completed call: its provenance, its raw events, its timings and
	// its text, the deltas folded into one line.
	tr, err := trace.Call(ctx, b, "acme", "i1", "")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Key != key || tr.Tool != "lookup" || tr.CallID != "call_1" {
		t.Errorf("key %q tool %q call %q", tr.Key, tr.Tool, tr.CallID)
	}
	if bl := tr.Built; bl == nil || bl.Deltas != 3 || bl.Bytes != 12 || bl.RawFirst != 7 || bl.RawLast != 11 {
		t.Errorf("built %+v, want 3 deltas, 12 bytes, raw 7–11", tr.Built)
	}
	var marks []string
	for _, tm := range tr.Timings {
		marks = append(marks, tm.From+"→"+tm.To+"="+tm.Event.String())
	}
	if got, want := strings.Join(marks, " "), "item opened→completion signal=4ms completion signal→decided=6ms decided→result=20ms item opened→result=30ms"; got != want {
		t.Errorf("timings\n got %s\nwant %s", got, want)
	}
	var out bytes.Buffer
	if err := tr.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"call call_1 (tenant acme)",
		"outcome: completed → succeeded",
		"built from 3 argument deltas, 12 bytes, model seq",
		"normalised from raw provider events seq 7–11",
		"3 argument deltas, 12 bytes",
		"succeeded after 1 attempt(s): 12 in stock",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "argument delta, ") {
		t.Errorf("deltas not folded:\n%s", out.String())
	}
}
