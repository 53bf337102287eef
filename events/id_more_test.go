package events

import "testing"

// TestMovedIDsKeepTheirForm: the builders that came from their callers
// write exactly what the callers wrote, so ids already in a log, a view or
// a duplicate window stay equal.
func TestMovedIDsKeepTheirForm(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{RawEventID("acme", "req_1", 7), "raw:acme/req_1/7"},
		{RawEndID("acme", "req_1"), "raw:acme/req_1/end"},
		{TickID(1700000000000000000), "tick:1700000000000000000"},
		{RegistryChangedID("ab12", 0), "registry:ab12/0"},
		{SeqCausation(42), "seq:42"},
		{ResultID("acme/run/1/call"), "result:acme/run/1/call#0"},
		{ApprovalID("acme/run/1/call"), "approval:acme/run/1/call#0"},
		{ApprovalRequestedID("acme/run/1/call"), "approval_requested:acme/run/1/call#0"},
		{StartedID("acme/run/1/call", 3), "started:acme/run/1/call#3"},
		{MessageID(12, [4]byte{0xde, 0xad, 0xbe, 0xef}), "msg-12-deadbeef"},
	} {
		if c.got != c.want {
			t.Errorf("%s, want %s", c.got, c.want)
		}
	}
}

func TestSplitModelEventID(t *testing.T) {
	for _, resp := range []string{"resp_1", "", "-", "a/b", "50%"} {
		id := ModelEventID("acme", resp, 17, 2)
		tenant, r, seq, n, ok := SplitModelEventID(id)
		if !ok || tenant != "acme" || r != resp || seq != 17 || n != 2 {
			t.Errorf("%s: %q %q %d %d %v", id, tenant, r, seq, n, ok)
		}
	}
	for _, id := range []string{"edge:acme/r/1/0", "model:acme/r/x/0", "model:acme/r/1", "model:acme/r%2D/1/0", "model:a.b/r/1/0"} {
		if _, _, _, _, ok := SplitModelEventID(id); ok {
			t.Errorf("%s split", id)
		}
	}
}
