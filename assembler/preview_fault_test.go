package assembler_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/projector"
)

// faultAt is the assembler with a fault of its own code injected at the
// sequences at: the message is applied in full (the assembler's memory and
// its Tx hold it), then Apply panics. The runner resets the assembler and
// applies the batch again without the message (projector/fault.go).
type faultAt struct {
	*assembler.Assembler
	at map[uint64]bool
}

func (f *faultAt) Apply(tx *projector.Tx, m *projector.Msg) error {
	if !f.at[m.Seq] {
		return f.Assembler.Apply(tx, m)
	}
	_ = f.Assembler.Apply(tx, m)
	panic("a fault injected at a delta")
}

// TestAPreviewGoesOutOnceThroughAFault: a fault of the assembler's on one
// tenant's delta, in a batch that holds another tenant's deltas, sends no
// preview byte twice and stops no one's preview. Two tenants' calls are
// opened and previewed; then, the runner stopped, each tenant's next
// deltas are stored interleaved, one of globex's faults, and the runner
// (the same projection: previews live in its memory) applies them in one
// batch: dropped after the fault, reset, applied again without it. On the
// preview subjects (core NATS, the embedded server) every call's deltas
// arrive once each, in order, at the offsets they extend: acme's are all
// its arguments, globex's all but the faulted delta, which its view does
// not hold either; acme's completed arguments are its preview's bytes.
func TestAPreviewGoesOutOnceThroughAFault(t *testing.T) {
	var h *harness
	h = newHarness(t, assembler.Config{Preview: func(subject string, data []byte) { h.b.Conn.Publish(subject, data) }})
	b := h.b
	sub, err := b.Conn.SubscribeSync(events.PreviewPrefix + ".>")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	h.stop()
	p := &faultAt{Assembler: h.a, at: map[uint64]bool{}}
	type callOf struct {
		tenant, item string
		args         []string // its deltas; the first two go in the first batch
		fresh        bool     // opened in the second batch: all its deltas are there
	}
	// English and Chinese arguments, as deltas. acme's second call is
	// opened in the batch that faults, before the fault: what is applied
	// again of it is all of it.
	calls := []callOf{
		{"acme", "i", []string{`{"city":`, `"Paris",`, `"note":"`, `bring an umbrella`, `","days":`, `3}`}, false},
		{"globex", "i", []string{`{"city":`, `"北京",`, `"note":"`, `带上雨伞`, `","days":`, `5}`}, false},
		{"acme", "j", []string{`{"to":`, `"Ana",`, `"body":"`, `see you at 6`, `","cc":`, `[]}`}, true},
	}
	open := func(c callOf) {
		h.publish(&events.Event{Tenant: c.tenant, Response: "r", Item: c.item, CallID: "call-" + c.tenant + c.item,
			Body: &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "weather"}})
	}
	delta := func(c callOf, d string) uint64 {
		return h.publish(&events.Event{Tenant: c.tenant, Response: "r", Item: c.item, Body: &events.ArgumentsDelta{Delta: d}})
	}
	h.run(p)
	var last uint64
	for _, c := range calls[:2] {
		open(c)
	}
	for i := range 2 {
		for _, c := range calls[:2] {
			last = delta(c, c.args[i])
		}
	}
	h.settle(last)
	h.stop()
	open(calls[2])
	faulted := ""
	for i := range len(calls[0].args) {
		for k, c := range calls {
			if i < 2 && !c.fresh {
				continue
			}
			seq := delta(c, c.args[i])
			if k == 1 && i == 3 {
				p.at[seq], faulted = true, c.args[i]
			}
		}
	}
	for _, c := range calls {
		h.publish(&events.Event{Tenant: c.tenant, Response: "r", Item: c.item, Body: &events.ArgumentsDone{}})
	}
	for _, tn := range []string{"acme", "globex"} {
		last = h.publish(&events.Event{Tenant: tn, Response: "r", Body: &events.ResponseCompleted{}})
	}
	h.run(p)
	h.settle(last)
	if st := h.r.Stats(); st.Faults != 1 {
		t.Fatalf("faults: %d, want the one injected", st.Faults)
	}
	if err := b.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	got := map[string][]assembler.PreviewMsg{}
	for {
		m, err := sub.NextMsg(500 * time.Millisecond)
		if err == nats.ErrTimeout {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var pm assembler.PreviewMsg
		if err := json.Unmarshal(m.Data, &pm); err != nil {
			t.Fatal(err)
		}
		got[pm.Tenant+"/"+pm.Item] = append(got[pm.Tenant+"/"+pm.Item], pm)
	}
	want := map[string]string{}
	for k, c := range calls {
		w := strings.Join(c.args, "")
		if k == 1 {
			// The fault ends globex's call where it happened (its Reject:
			// the call must not complete without the faulted delta's
			// bytes), so its preview ends there too.
			w = w[:strings.Index(w, faulted)]
		}
		want[c.tenant+"/"+c.item] = w
	}
	for _, c := range calls {
		key := c.tenant + "/" + c.item
		var text strings.Builder
		for i, pm := range got[key] {
			if pm.Offset != text.Len() {
				t.Errorf("%s: preview %d at offset %d after %d bytes (%q): a delta repeated or lost", key, i, pm.Offset, text.Len(), text.String())
			}
			text.WriteString(pm.Delta)
		}
		if text.String() != want[key] {
			t.Errorf("%s: the preview's deltas are %q, want %q, each once", key, text.String(), want[key])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	evs, err := bustest.WaitEvents(ctx, b, []string{"ts.call.>"}, func(evs []*events.Event) bool { return len(evs) >= 3 })
	if err != nil {
		t.Fatal(err)
	}
	ended := map[string]string{}
	for _, ev := range evs {
		ended[ev.Tenant+"/"+ev.Item] = string(ev.Kind)
		if cc, ok := events.As[*events.CallCompleted](ev); ok && string(cc.Arguments) != want[ev.Tenant+"/"+ev.Item] {
			t.Errorf("%s/%s: the call completed with %s, its preview showed %s", ev.Tenant, ev.Item, cc.Arguments, want[ev.Tenant+"/"+ev.Item])
		}
		if ci, ok := events.As[*events.CallIncomplete](ev); ok && ci.Reason != events.ReasonStreamFailed {
			t.Errorf("%s/%s: incomplete %q, want %q", ev.Tenant, ev.Item, ci.Reason, events.ReasonStreamFailed)
		}
	}
	// Invariant 1: the faulted delta's call is never completed without it.
	if ended["globex/i"] != string(events.KindCallIncomplete) {
		t.Errorf("globex/i, whose delta faulted, ended %q, want %q", ended["globex/i"], events.KindCallIncomplete)
	}
	for _, k := range []string{"acme/i", "acme/j"} {
		if ended[k] != string(events.KindCallCompleted) {
			t.Errorf("%s ended %q, want %q", k, ended[k], events.KindCallCompleted)
		}
	}
}
