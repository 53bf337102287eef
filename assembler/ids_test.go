package assembler_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
)

// Response and item ids are any strings. Two calls whose ids, joined
// with '/' (event ids) or 0x00 (state keys), used to be one string each
// keep their own buffer and each gets its own CallCompleted: none is
// dropped as the other's duplicate (invariants 2, 4 and 9); nor do they
// share a live preview.
func TestCallsWhoseIDsJoinAlikeStayApart(t *testing.T) {
	var mu sync.Mutex
	var previews []assembler.PreviewMsg
	h := newHarness(t, assembler.Config{Preview: func(_ string, data []byte) {
		var m assembler.PreviewMsg
		if err := json.Unmarshal(data, &m); err != nil {
			t.Error(err)
		}
		mu.Lock()
		previews = append(previews, m)
		mu.Unlock()
	}})
	calls := []struct{ resp, item, args string }{
		{"a/b", "c", `{"n":1}`},
		{"a", "b/c", `{"n":2}`},
		{"x\x00y", "z", `{"n":3}`},
		{"x", "y\x00z", `{"n":4}`},
	}
	for _, c := range calls {
		h.publish(&events.Event{Tenant: "acme", Response: c.resp, Item: c.item, CallID: "call",
			Body: &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "note"}})
	}
	for _, part := range []func(string) string{
		func(a string) string { return a[:4] },
		func(a string) string { return a[4:] },
	} {
		for _, c := range calls { // interleaved: a shared buffer would mix them
			h.publish(&events.Event{Tenant: "acme", Response: c.resp, Item: c.item, Body: &events.ArgumentsDelta{Delta: part(c.args)}})
		}
	}
	var last uint64
	for _, c := range calls {
		last = h.publish(&events.Event{Tenant: "acme", Response: c.resp, Item: c.item, Body: &events.ArgumentsDone{}})
	}
	h.settle(last)

	got := map[[2]string]string{}
	ids := map[string]bool{}
	for _, ev := range h.emitted() {
		cc, ok := events.As[*events.CallCompleted](ev)
		if !ok {
			t.Errorf("%s %q/%q: %s", ev.Kind, ev.Response, ev.Item, render([]*events.Event{ev}))
			continue
		}
		got[[2]string{ev.Response, ev.Item}] = string(cc.Arguments)
		if ids[ev.ID] {
			t.Errorf("two calls completed under the id %q", ev.ID)
		}
		ids[ev.ID] = true
	}
	for _, c := range calls {
		if a := got[[2]string{c.resp, c.item}]; a != c.args {
			t.Errorf("call %q/%q completed with %q, want %q", c.resp, c.item, a, c.args)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(previews) != 2*len(calls) {
		t.Errorf("%d previews, want %d", len(previews), 2*len(calls))
	}
	for _, m := range previews {
		if m.Invalid || m.Offset != 0 && !m.Closed {
			t.Errorf("preview of %q/%q at %d (%q): invalid=%v closed=%v: two calls share a parser", m.Response, m.Item, m.Offset, m.Delta, m.Invalid, m.Closed)
		}
	}
}

// A call whose item id holds the bytes a state key escapes (0x00, 0x01)
// and that its response's end leaves open ends as CallIncomplete under
// its own item id with its partial bytes kept for audit, as any other
// call does: the item read back from the call row's key is unescaped, and
// the argument row is found by the key it was written under.
func TestAnOpenCallWithAnEscapedItemKeepsItsPartial(t *testing.T) {
	h := newHarness(t, assembler.Config{})
	items := []string{"plain", "y\x00z", "y\x01z"}
	for _, item := range items {
		h.publish(&events.Event{Tenant: "acme", Response: "r", Item: item, CallID: "call",
			Body: &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "note"}})
		h.publish(&events.Event{Tenant: "acme", Response: "r", Item: item, Body: &events.ArgumentsDelta{Delta: `{"n":"` + item}})
	}
	h.settle(h.publish(&events.Event{Tenant: "acme", Response: "r", Body: &events.ResponseCompleted{}}))
	got := map[string]string{}
	for _, ev := range h.emitted() {
		if ci, ok := events.As[*events.CallIncomplete](ev); ok {
			got[ev.Item] = string(ci.Partial)
		}
	}
	for _, item := range items {
		if want := `{"n":"` + item; got[item] != want {
			t.Errorf("call %q ended incomplete with partial %q, want %q", item, got[item], want)
		}
	}
}

// Two tenants' calls of the same response id and item id, interleaved,
// are two calls: each tenant's CallCompleted carries its own arguments,
// under its own tenant, and one tenant's end of the response leaves the
// other's call open (the open calls are cached by tenant, response and
// item; a response's end drops only its tenant's).
func TestTheSameIDsOfTwoTenantsAreTwoCalls(t *testing.T) {
	h := newHarness(t, assembler.Config{})
	tenants := []string{"acme", "globex"}
	for _, tn := range tenants {
		h.publish(&events.Event{Tenant: tn, Response: "r", Item: "i", CallID: "call",
			Body: &events.OutputItemAdded{Type: events.ItemFunctionCall, Name: "note"}})
	}
	for _, part := range []string{`{"t":"`, "", `"}`} {
		for _, tn := range tenants {
			if part == "" {
				part = tn
			}
			h.publish(&events.Event{Tenant: tn, Response: "r", Item: "i", Body: &events.ArgumentsDelta{Delta: part}})
			if part == tn {
				part = ""
			}
		}
	}
	// acme's response ends first: globex's call, still open, is not dropped.
	h.publish(&events.Event{Tenant: "acme", Response: "r", Item: "i", Body: &events.ArgumentsDone{}})
	h.publish(&events.Event{Tenant: "acme", Response: "r", Body: &events.ResponseCompleted{}})
	h.publish(&events.Event{Tenant: "globex", Response: "r", Item: "i", Body: &events.ArgumentsDelta{Delta: ""}})
	h.publish(&events.Event{Tenant: "globex", Response: "r", Item: "i", Body: &events.ArgumentsDone{}})
	h.settle(h.publish(&events.Event{Tenant: "globex", Response: "r", Body: &events.ResponseCompleted{}}))
	got := map[string][]string{}
	for _, ev := range h.emitted() {
		if cc, ok := events.As[*events.CallCompleted](ev); ok {
			got[ev.Tenant] = append(got[ev.Tenant], string(cc.Arguments))
		}
	}
	for _, tn := range tenants {
		if want := `{"t":"` + tn + `"}`; len(got[tn]) != 1 || got[tn][0] != want {
			t.Errorf("tenant %s: CallCompleted arguments %q, want one, %s", tn, got[tn], want)
		}
	}
}
