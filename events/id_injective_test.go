package events

import (
	"slices"
	"strings"
	"testing"
)

// oldID is id as it was before its parts were escaped: the parts joined
// with a bare '/'.
func oldID(kind, tenant string, parts ...string) string {
	return kind + ":" + tenant + "/" + strings.Join(parts, "/")
}

// splitID reverses id: ok is false for a string id never writes.
func splitID(s string) (kind, tenant string, parts []string, ok bool) {
	kind, rest, found := strings.Cut(s, ":")
	if !found {
		return "", "", nil, false
	}
	fields := strings.Split(rest, "/")
	tenant, fields = fields[0], fields[1:]
	for _, f := range fields {
		if f == "-" {
			parts = append(parts, "")
			continue
		}
		parts = append(parts, unescapeKeyPart.Replace(f))
	}
	if id(kind, tenant, parts...) != s {
		return "", "", nil, false
	}
	return kind, tenant, parts, true
}

// Every id builder: two causes that shared an id under the bare '/' join
// now have two ids; builders that were injective already (one free part,
// or free parts followed only by numbers) stay so, and escaping adds no
// collision of its own ('%', "" and "-").
func TestIDBuildersAreInjective(t *testing.T) {
	type pair struct {
		name       string
		a, b       string // the ids of two causes
		oldA, oldB string // their ids before escaping
	}
	collided := []pair{
		{"CompletedID", CompletedID("acme", "a/b", "c"), CompletedID("acme", "a", "b/c"),
			oldID("completed", "acme", "a/b", "c"), oldID("completed", "acme", "a", "b/c")},
		{"RejectedID", RejectedID("acme", "r/1", "i"), RejectedID("acme", "r", "1/i"),
			oldID("rejected", "acme", "r/1", "i"), oldID("rejected", "acme", "r", "1/i")},
		{"IncompleteID", IncompleteID("acme", "r/", "i"), IncompleteID("acme", "r", "/i"),
			oldID("incomplete", "acme", "r/", "i"), oldID("incomplete", "acme", "r", "/i")},
		{"VerifiedID and JudgedID", VerifiedID("acme", "r/judged/1"), JudgedID("acme", "r", 1),
			// the verifier wrote VerifiedID + "/judged/<n>"
			oldID("verified", "acme", "r/judged/1"), oldID("verified", "acme", "r") + "/judged/1"},
		{"MemoryRequestID", MemoryRequestID("acme", "u/forget/x", "forget", "y", 5), MemoryRequestID("acme", "u", "forget", "x/forget/y", 5),
			oldID("mem-svc", "acme", "u/forget/x", "forget", "y", "5"), oldID("mem-svc", "acme", "u", "forget", "x/forget/y", "5")},
	}
	for _, p := range collided {
		if p.oldA != p.oldB {
			t.Errorf("%s: the pair did not collide before (%q, %q): pick one that did", p.name, p.oldA, p.oldB)
		}
		if p.a == p.b {
			t.Errorf("%s: two causes share the id %q", p.name, p.a)
		}
	}
	distinct := []struct{ name, a, b string }{
		{"ModelEventID", ModelEventID("acme", "s/7", 3, 0), ModelEventID("acme", "s", 7, 3)},
		{"EdgeEventID", EdgeEventID("acme", "s/7", 3, 0), EdgeEventID("acme", "s", 7, 3)},
		{"EdgeEventID and ModelEventID", EdgeEventID("acme", "s", 7, 0), ModelEventID("acme", "s", 7, 0)},
		{"ResponseOutcomeID", ResponseOutcomeID("acme", "r%2Fx"), ResponseOutcomeID("acme", "r/x")},
		{"JudgedID", JudgedID("acme", "r/judged/1", 2), JudgedID("acme", "r", 12)},
		{"VerifiedID and ConstrainedID", VerifiedID("acme", "r/constraints"), ConstrainedID("acme", "r")},
		{"ConstrainedID and JudgedID", ConstrainedID("acme", "r/judged"), JudgedID("acme", "r", 0)},
		{"MemoryOpID", MemoryOpID("acme", "u/1", 2), MemoryOpID("acme", "u", 12)},
		{"JudgeVerdictID", JudgeVerdictID("acme", "r/1", 2), JudgeVerdictID("acme", "r", 12)},
		{"empty and dash", CompletedID("acme", "", "i"), CompletedID("acme", "-", "i")},
		{"empty and %2D", CompletedID("acme", "%2D", "i"), CompletedID("acme", "-", "i")},
		{"ExecutionID", ExecutionID("started", "acme/-/s/c#1", 2), ExecutionID("started", "acme/-/s/c", 12)},
		{"ConflictID", ConflictID("acme/-/s/c#1", 2), ConflictID("acme/-/s/c", 12)},
	}
	for _, d := range distinct {
		if d.a == d.b {
			t.Errorf("%s: two causes share the id %q", d.name, d.a)
		}
	}

	// Ordinary ids are byte for byte what they were (Nats-Msg-Ids of events
	// already in the log and the duplicate window keep matching).
	ordinary := []struct{ got, want string }{
		{CompletedID("acme", "resp_1", "call_1"), "completed:acme/resp_1/call_1"},
		{RejectedID("acme", "chatcmpl-9x", "choice0.tool1.2"), "rejected:acme/chatcmpl-9x/choice0.tool1.2"},
		{IncompleteID("t1", "msg_01", "toolu_01:x"), "incomplete:t1/msg_01/toolu_01:x"},
		{ModelEventID("acme", "r1", 2, 0), "model:acme/r1/2/0"},
		{EdgeEventID("acme", "s1", 2, 0), "edge:acme/s1/2/0"},
		{ResponseOutcomeID("acme", "r 1"), "response:acme/r 1"},
		{VerifiedID("acme", "resp_1"), "verified:acme/resp_1"},
		{JudgedID("acme", "resp_1", 3), "verified:acme/resp_1/judged/3"},
		{MemoryOpID("acme", "u1", 4), "mem:acme/u1/4"},
		{JudgeVerdictID("acme", "resp_1", 3), "judge:acme/resp_1/3"},
		{MemoryRequestID("acme", "u1", "forget", "m2#2", 17), "mem-svc:acme/u1/forget/m2#2/17"},
	}
	for _, o := range ordinary {
		if o.got != o.want {
			t.Errorf("ordinary id %q, was %q", o.got, o.want)
		}
	}
}

// partsOf picks 0 to 3 of a, b, c by n.
func partsOf(n uint8, a, b, c string) []string { return []string{a, b, c}[:n%4] }

// Distinct tuples of parts give distinct ids, and an id gives its parts
// back.
func FuzzIDIsInjective(f *testing.F) {
	seeds := [][7]string{
		{"a/b", "c", "", "a", "b/c", ""},
		{"", "x", "", "-", "x", ""},
		{"%2F", "", "", "/", "", ""},
		{"%", "2F", "", "%2", "F", ""},
		{"r/judged/1", "", "", "r", "judged", "1"},
		{"a%2Db", "", "", "a-b", "", ""},
	}
	for _, s := range seeds {
		f.Add(uint8(2), s[0], s[1], s[2], uint8(2), s[3], s[4], s[5])
		f.Add(uint8(1), s[0], s[1], s[2], uint8(3), s[3], s[4], s[5])
	}
	f.Fuzz(func(t *testing.T, na uint8, a1, a2, a3 string, nb uint8, b1, b2, b3 string) {
		pa, pb := partsOf(na, a1, a2, a3), partsOf(nb, b1, b2, b3)
		ia, ib := id("k", "acme", pa...), id("k", "acme", pb...)
		if (ia == ib) != slices.Equal(pa, pb) {
			t.Fatalf("parts %q and %q: ids %q and %q", pa, pb, ia, ib)
		}
		kind, tenant, got, ok := splitID(ia)
		if !ok || kind != "k" || tenant != "acme" || !slices.Equal(got, pa) {
			t.Fatalf("splitID(%q) = %q %q %q %v, want parts %q", ia, kind, tenant, got, ok, pa)
		}
	})
}

// An edge event's id gives its parts back, and nothing else passes for
// one.
func TestSplitEdgeEventID(t *testing.T) {
	for _, c := range []struct {
		stream string
		pos    int64
		n      int
	}{{"s1", 0, 0}, {"a/b", 7, 3}, {"", 1, 2}, {"-", 3, 0}, {"50%", 12, 1}, {"s1", EdgeEnd, 0}, {"end", EdgeEnd, 2}} {
		tenant, stream, pos, n, ok := SplitEdgeEventID(EdgeEventID("acme", c.stream, c.pos, c.n))
		if !ok || tenant != "acme" || stream != c.stream || pos != c.pos || n != c.n {
			t.Errorf("%+v: got %q %q %d %d %v", c, tenant, stream, pos, n, ok)
		}
	}
	for _, bad := range []string{"model:acme/s/1/0", "edge:acme/s/1", "edge:acme/s/x/0", "edge:acme/a%2Db/1/0", "edge:/s/1/0", "edge:acme/s/-1/0", "edge:acme/s/End/0"} {
		if _, _, _, _, ok := SplitEdgeEventID(bad); ok {
			t.Errorf("%q passed for an edge event id", bad)
		}
	}
}
