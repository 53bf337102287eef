package assembler_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
)

// TestAnErasureDropsTheUsersOpenPreviews: a preview lives in the
// assembler's memory, outside its view, and Reset keeps what is committed
// (a fault must not stop anyone's preview), so an erasure's rebuild would
// leave an erased user's open call's partial arguments in memory until the
// process ends: the call can no longer be read, so nothing ends it. The
// erasure tells the projection whose they were (projector.UserForgetter):
// ann's open previews go, bob's (same tenant) and globex's ann's go on,
// their next delta at the offset it extends.
func TestAnErasureDropsTheUsersOpenPreviews(t *testing.T) {
	type sent struct {
		subject string
		msg     assembler.PreviewMsg
	}
	got := make(chan sent, 64)
	h := newHarness(t, assembler.Config{Preview: func(subject string, data []byte) {
		var m assembler.PreviewMsg
		if err := json.Unmarshal(data, &m); err == nil {
			got <- sent{subject, m}
		}
	}})
	calls := []struct{ tenant, user, item, first, next string }{
		{"acme", "ann", "i-ann", `{"note":"ann's secret 7f3a`, `91"}`},
		{"acme", "bob", "i-bob", `{"city":"北京`, `"}`},
		{"globex", "ann", "i-gann", `{"to":"Ana`, `"}`},
	}
	var last uint64
	for _, c := range calls {
		h.publish(&events.Event{Tenant: c.tenant, User: c.user, Response: "r-" + c.user, Item: c.item, CallID: "call-" + c.item,
			Body: &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "weather"}})
		last = h.publish(&events.Event{Tenant: c.tenant, User: c.user, Response: "r-" + c.user, Item: c.item, Body: &events.ArgumentsDelta{Delta: c.first}})
	}
	h.settle(last)
	if n := h.a.OpenPreviews(); n != 3 {
		t.Fatalf("open previews before the erasure: %d, want 3 (this test would prove nothing)", n)
	}
	for range calls {
		<-got
	}
	tomb, err := h.b.Publish(context.Background(), events.EraseSubjects[events.StreamModel], &events.Event{ID: events.ErasedID("acme", "ann", "", 1),
		Tenant: events.SystemTenant, Body: &events.Erased{Tenant: "acme", User: "ann"}})
	if err != nil {
		t.Fatal(err)
	}
	h.settle(tomb.Sequence)
	if n := h.a.OpenPreviews(); n != 2 {
		t.Errorf("open previews after acme/ann's erasure: %d, want 2 (bob's and globex's ann's)", n)
	}
	for _, c := range calls[1:] {
		last = h.publish(&events.Event{Tenant: c.tenant, User: c.user, Response: "r-" + c.user, Item: c.item, Body: &events.ArgumentsDelta{Delta: c.next}})
	}
	h.settle(last)
	want := map[string]int{"i-bob": len(calls[1].first), "i-gann": len(calls[2].first)}
	for range 2 {
		select {
		case s := <-got:
			if off, ok := want[s.msg.Item]; !ok || s.msg.Offset != off {
				t.Errorf("after the erasure %s: offset %d, want %d (%v)", s.msg.Item, s.msg.Offset, off, ok)
			}
			delete(want, s.msg.Item)
		case <-time.After(10 * time.Second):
			t.Fatalf("previews not sent after the erasure: %v", want)
		}
	}
}
