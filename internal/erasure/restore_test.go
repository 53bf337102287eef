package erasure_test

import (
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/keys"
)

func TestErased(t *testing.T) {
	erased := erasure.Erased([]*events.Event{
		{ID: "e1", Tenant: "acme", Body: &events.Erased{Tenant: "acme", User: "ann"}},
		{ID: "e2", Tenant: "acme", Body: &events.Erased{Tenant: "acme", User: "bob", Record: "car"}},
		{ID: "m1", Tenant: "acme", User: "cy", Body: &events.UserMessage{ID: "m1", Text: "not a tombstone"}},
	})
	for _, tc := range []struct {
		o    keys.Owner
		want bool
	}{
		{keys.Owner{Tenant: "acme", User: "ann"}, true},
		{keys.Owner{Tenant: "acme", User: "ann", Record: "car"}, true}, // a user's erasure covers the records
		{keys.Owner{Tenant: "acme", User: "bob", Record: "car"}, true},
		{keys.Owner{Tenant: "acme", User: "bob", Record: "bike"}, false},
		{keys.Owner{Tenant: "acme", User: "bob"}, false}, // a record's erasure leaves the user's key
		{keys.Owner{Tenant: "globex", User: "ann"}, false},
		{keys.Owner{Tenant: "acme", User: "cy"}, false},
	} {
		if got := erased(tc.o); got != tc.want {
			t.Errorf("erased(%+v) = %v, want %v", tc.o, got, tc.want)
		}
	}
}
