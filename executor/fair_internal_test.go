package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestATenantAloneUsesTheSlotsNobodyElseHolds: past its share a tenant's
// input is taken while a whole share stays unheld for the others; a
// tenant that comes then still gets its share, and past it is refused.
func TestATenantAloneUsesTheSlotsNobodyElseHolds(t *testing.T) {
	h := newHeld(16, 2) // a share of 4 slots
	if h.max != 4 {
		t.Fatalf("share %d, want 4", h.max)
	}
	for i := range 12 {
		if !h.take("flood", true) {
			t.Fatalf("flood's input %d refused with %d slots unheld", i+1, 16-i)
		}
	}
	if h.take("flood", true) {
		t.Fatal("flood took a slot of the share left to the others")
	}
	for i := range 4 {
		if !h.take("quiet", true) {
			t.Fatalf("quiet's input %d refused within its share", i+1)
		}
	}
	if h.take("quiet", true) {
		t.Fatal("quiet went past its share with no slot unheld")
	}
	h.give("flood")
	if h.take("flood", true) {
		t.Fatal("flood, past its share, took the slot it gave back while quiet holds its share")
	}
	if !h.take("third", true) {
		t.Fatal("a third tenant was refused a free slot within its share")
	}
	for range 4 {
		h.give("quiet")
	}
	if h.all != 12 {
		t.Fatalf("held %d in all, want 12", h.all)
	}
}

// TestOnlyImmediateToolsBorrowPastTheShare: a tenant whose tool may hold
// its slot for its whole timeout stops at its share with every other slot
// free, so any number of tenants that come later each find a share; the
// same tenant's Immediate calls then borrow up to all but a share.
func TestOnlyImmediateToolsBorrowPastTheShare(t *testing.T) {
	h := newHeld(16, 2) // a share of 4 slots
	for i := range 4 {
		if !h.take("flood", false) {
			t.Fatalf("flood's input %d refused within its share", i+1)
		}
	}
	if h.take("flood", false) {
		t.Fatal("flood's slow call borrowed a slot past its share")
	}
	if !h.take("flood", true) {
		t.Fatal("flood's Immediate call refused with 12 slots unheld")
	}
	for _, tenant := range []string{"second", "third"} {
		for i := range 4 {
			if !h.take(tenant, false) {
				t.Fatalf("%s's input %d refused within its share", tenant, i+1)
			}
		}
	}
	if h.take("flood", true) {
		t.Fatalf("flood's Immediate call borrowed with %d of 16 slots held, leaving less than a share", h.all)
	}
}

// TestImmediateTokensAreTheImmediateToolsNames: the set fairly consults
// is the subject tokens of the Immediate Go tools, by name.
func TestImmediateTokensAreTheImmediateToolsNames(t *testing.T) {
	quick := ImmediateFunc(func(context.Context, Call) (json.RawMessage, error) { return nil, nil })
	slow := ToolFunc(func(context.Context, Call) (json.RawMessage, error) { return nil, nil })
	got := immediateTokens(map[string]Tool{"noop": quick, "lookup@2": quick, "a.b": quick, "fetch": slow})
	want := map[string]bool{"noop": true, "lookup": true, events.Token("a.b"): true}
	if !maps.Equal(got, want) {
		t.Fatalf("immediate tokens %v, want %v", got, want)
	}
}

// TestTwoTenantsInEitherOrderEachKeepAShare: whether the quiet tenant
// holds none, one, three or a whole share of inputs before the other
// floods, the flood holds at most all but a share of the slots less what
// the quiet one holds (and at least its own share), the quiet one is then
// taken up to its share and refused past it, and a slot the flood gives
// back is taken by it again only while a share stays unheld.
func TestTwoTenantsInEitherOrderEachKeepAShare(t *testing.T) {
	const slots, parallel = 16, 2 // a share of 4 slots
	for _, quietFirst := range []int{0, 1, 3, 4} {
		t.Run(fmt.Sprintf("quiet holds %d first", quietFirst), func(t *testing.T) {
			h := newHeld(slots, parallel)
			for i := range quietFirst {
				if !h.take("quiet", true) {
					t.Fatalf("quiet's input %d refused with nobody else about", i+1)
				}
			}
			flood := 0
			for h.take("flood", true) {
				if flood++; flood > slots {
					t.Fatal("flood took more inputs than there are slots")
				}
			}
			if want := slots - h.max - quietFirst; flood != max(want, h.max) {
				t.Fatalf("flood holds %d with quiet holding %d, want %d", flood, quietFirst, max(want, h.max))
			}
			quiet := quietFirst
			for quiet < h.max {
				if !h.take("quiet", true) {
					t.Fatalf("quiet's input %d refused within its share (flood holds %d)", quiet+1, flood)
				}
				quiet++
			}
			if h.take("quiet", true) {
				t.Fatalf("quiet took an input past its share with %d of %d slots held", h.all, slots)
			}
			h.give("flood")
			if h.take("flood", true) && slots-h.all < h.max {
				t.Fatalf("flood took back a slot leaving %d unheld, less than a share", slots-h.all)
			}
		})
	}
}
