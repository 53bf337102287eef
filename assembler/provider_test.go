package assembler_test

import (
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/events"
)

// A response's outcome says which provider format it came from, so that
// the runs projection writes the round's tool results in that shape; a
// response that named none says none.
func TestOutcomeCarriesTheProvider(t *testing.T) {
	h := newHarness(t, assembler.Config{})
	var last uint64
	for i, ev := range []*events.Event{
		{Tenant: "acme", Response: "r1", Body: &events.ResponseStarted{Provider: "anthropic", Model: "m"}},
		{Tenant: "acme", Response: "r1", Body: &events.ResponseCompleted{StopReason: "end_turn"}},
		{Tenant: "acme", Response: "r2", Body: &events.ResponseCompleted{}},
	} {
		ev.ID, ev.At = "p"+string(rune('0'+i)), int64(i+1)
		last = h.publish(ev)
	}
	h.settle(last)
	got := map[string]string{}
	for _, ev := range h.emitted() {
		if o, ok := events.As[*events.ResponseOutcome](ev); ok {
			got[ev.Response] = o.Provider
		}
	}
	if got["r1"] != "anthropic" || got["r2"] != "" || len(got) != 2 {
		t.Fatalf("providers on the outcomes: %v, want r1 anthropic and r2 none", got)
	}
}
