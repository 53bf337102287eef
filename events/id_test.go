package events_test

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// Two different calls never share an idempotency key, and a key says which
// call it is.
func TestIdempotencyKeyIsInjective(t *testing.T) {
	type call struct{ tenant, run, step, id string }
	calls := []call{
		{"acme", "x/y", "z", "c"}, {"acme", "x", "y/z", "c"}, // the collision of the old key
		{"acme", "", "s", "c"}, {"acme", "-", "s", "c"}, {"acme", "%2D", "s", "c"},
		{"acme", "a%2Fb", "s", "c"}, {"acme", "a/b", "s", "c"}, {"acme", "a%b", "s", "c"},
		{"acme", "", "", "c"}, {"acme", "", "-", "c"}, {"acme", "r", "s", "c/"}, {"acme", "r", "s/c", ""},
		{"acme", "run.1", "step 2", "call_é"}, {"globex", "x/y", "z", "c"},
	}
	seen := map[string]call{}
	for _, c := range calls {
		k := events.IdempotencyKey(c.tenant, c.run, c.step, c.id)
		if prev, dup := seen[k]; dup {
			t.Fatalf("%+v and %+v share the key %q", prev, c, k)
		}
		seen[k] = c
		tenant, run, step, id, ok := events.SplitIdempotencyKey(k)
		if !ok || (call{tenant, run, step, id}) != c {
			t.Fatalf("SplitIdempotencyKey(%q) = %q %q %q %q %v, want %+v", k, tenant, run, step, id, ok, c)
		}
	}
	// Ordinary ids are written as they are.
	if k := events.IdempotencyKey("acme", "", "resp_1", "call_1"); k != "acme/-/resp_1/call_1" {
		t.Fatalf("key = %q", k)
	}
	for _, bad := range []string{"acme/x/y/z/c", "acme/a%2Db/s/c", "acme/%/s/c", "acme/a/s", "a.b/r/s/c", "acme/%2f/s/c", ""} {
		if _, _, _, _, ok := events.SplitIdempotencyKey(bad); ok {
			t.Fatalf("SplitIdempotencyKey(%q) accepted a key IdempotencyKey never writes", bad)
		}
	}
}
