package assembler_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// A normalised model event the assembler cannot read, in the middle of a
// call's deltas, ends that call CallIncomplete stream_failed: its bytes
// may have been among the deltas, so it never completes without them
// (invariants 1 and 9). The event stays in the log with its rejection row;
// the response's other calls, and the same tenant's other responses, go
// on as if nothing happened; a call whose first event is the unreadable
// one is ended too, its later events changing nothing; replay equals live.
func TestAnUnreadableModelEventEndsItsCallTyped(t *testing.T) {
	key, err := registry.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Parse([]byte(`tools:
  - name: search
    version: 1
    input_schema: {type: object, properties: {q: {type: string}}, additionalProperties: false}
    permission: p
grants:
  - tenant: acme
    permissions: [p]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		garble  func(t *testing.T, delta []byte) []byte
		outcome string // in the rejection row
	}{
		{"bad msgpack", func(*testing.T, []byte) []byte { return []byte{0xc1, 0xc1, 'x', 0x00} }, "malformed"},
		{"unknown kind", func(t *testing.T, d []byte) []byte {
			k := []byte(events.KindArgumentsDelta)
			if !bytes.Contains(d, k) {
				t.Fatalf("the encoded delta does not hold its kind %q", k)
			}
			return bytes.Replace(d, k, []byte("model.arguments_delt4"), 1) // same length: the envelope stays valid msgpack
		}, "model.arguments_delt4"},
		{"truncated body", func(_ *testing.T, d []byte) []byte { return d[:len(d)-4] }, "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := assembler.Config{AcceptRegistry: registry.Accepter[assembler.Validator](key.Trust())}
			h := newHarness(t, cfg)
			if _, err := registry.Publish(context.Background(), registry.PublishConfig{JS: h.b.JS, Key: key, Source: "test"}, reg); err != nil {
				t.Fatal(err)
			}
			garbage := func(resp, item, text string) uint64 {
				ev := &events.Event{ID: "garbled:" + item, Tenant: "acme", Response: resp, Item: item, Body: &events.ArgumentsDelta{Delta: text}}
				data, err := events.Encode(ev)
				if err != nil {
					t.Fatal(err)
				}
				subj, err := events.ModelSubject("acme", resp, item)
				if err != nil {
					t.Fatal(err)
				}
				ack, err := h.b.JS.Publish(context.Background(), subj, tc.garble(t, data))
				if err != nil {
					t.Fatal(err)
				}
				return ack.Sequence
			}
			lines := func(ls ...string) (last uint64) {
				for _, l := range ls {
					last = h.publish(parseLine(t, "acme", l))
				}
				return last
			}
			lines("start r1", "added r1 i1 name=search", `delta r1 i1 -- {"q": "weather `,
				"added r1 i2 name=search", `delta r1 i2 -- {"q": "北京`)
			bad := garbage("r1", "i1", `in Paris`)
			badFirst := garbage("r1", "i3", `{"q": "天气"}`) // the call's first event
			last := lines(`delta r1 i1 -- "}`, "done r1 i1", `delta r1 i2 -- 天气"}`, "done r1 i2",
				"added r1 i3 name=search", "done r1 i3", "completed r1",
				"start r2", "added r2 i1 name=search", `delta r2 i1 -- {"q": "news"}`, "done r2 i1", "completed r2")
			h.settle(last)
			got := render(h.emitted())
			for _, want := range []string{
				`call.incomplete r1/i1 name=search order=0 reason=stream_failed partial="{\"q\": \"weather "`,
				`call.completed r1/i2 name=search order=1 args={"q":"北京天气"}`,
				`call.incomplete r1/i3 name= order=2 reason=stream_failed partial=""`,
				`call.completed r2/i1 name=search order=0 args={"q":"news"}`,
			} {
				if !strings.Contains(got, want+"\n") {
					t.Errorf("missing %s\nemitted:\n%s", want, got)
				}
			}
			if n := strings.Count(got, "call.completed ") + strings.Count(got, "call.incomplete ") + strings.Count(got, "call.rejected "); n != 4 {
				t.Errorf("want four call events, one per call:\n%s", got)
			}
			for _, seq := range []uint64{bad, badFirst} {
				rj, ok, err := h.r.Rejection(seq)
				if err != nil || !ok || !strings.Contains(rj.Reason, tc.outcome) {
					t.Errorf("rejection of seq %d: %+v %v %v, want one saying %q", seq, rj, ok, err, tc.outcome)
				}
			}
			if r := h.replay(); r != "replay equals live\n" {
				t.Fatal(r)
			}
		})
	}
}
