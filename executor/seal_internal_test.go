package executor

import (
	"context"
	"errors"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
)

// TestBadKeyWithholdsTheOutcome: the executor's outcome for a user whose
// stored key is one byte (corruption) is written with its body withheld
// (the executor used to panic encoding it), reads as bad_key, and another
// user's outcome is sealed as ever.
func TestBadKeyWithholdsTheOutcome(t *testing.T) {
	ctx := context.Background()
	b := bustest.Start(t)
	kv, err := b.JS.KeyValue(ctx, keys.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k._YWNtZQ.u._YW5u", []byte{1}); err != nil { // acme's ann
		t.Fatal(err)
	}
	e := &Executor{cfg: Config{Keys: b.Keys}}
	for _, user := range []string{"ann", "bob"} {
		ev := &events.Event{ID: "r:" + user, Tenant: "acme", User: user, Body: &events.CallSucceeded{Name: "t", Result: []byte(`{"secret":1}`)}}
		data, err := e.encode(ev)
		if err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		_, err = events.DecodeWith(data, b.Keys)
		switch {
		case user == "ann" && (!errors.Is(err, events.ErrBadKey) || events.ReasonOf(err) != events.ReasonBadKey):
			t.Fatalf("ann's outcome reads %v, want bad_key", err)
		case user == "bob" && err != nil:
			t.Fatalf("bob's outcome: %v", err)
		}
	}
}
