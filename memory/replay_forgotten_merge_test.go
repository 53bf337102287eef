package memory

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestReplayEqualsLiveAfterAForgottenMerge guards invariant 6 (replay
// equals live) where a statement merged into a record that is forgotten
// later: the live view forgets the merged statement with the record, and
// a statement said after the forgetting stands where the view rebuilt by
// replay (the forgotten ids' keys destroyed, as erasure does) puts it.
// Each case applies its log live, erasing after every forgetting the ids
// Forgotten names, then rebuilds from the same log (rebuildErased) and
// compares every id's entry (alive, merged into which record, or gone)
// and every record's status, version and links.
func TestReplayEqualsLiveAfterAForgottenMerge(t *testing.T) {
	day := func(d int) int64 { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC).UnixNano() }
	obs := func(id string, d int, attr, pol, text string) *events.Event {
		return &events.Event{ID: "ev-" + id, Kind: events.KindMemoryObserved, Tenant: "acme", User: "u1", At: day(d),
			Body: &events.MemoryObserved{Observation: events.Observation{ID: id, Kind: "preference", Subject: "drink",
				Attribute: attr, Polarity: pol, Text: text}}}
	}
	correct := func(id string, d, version int, attr, pol, text string) *events.Event {
		return &events.Event{ID: fmt.Sprintf("ev-correct-%s-%d", id, d), Kind: events.KindMemoryCorrected, Tenant: "acme", User: "u1", At: day(d),
			Body: &events.MemoryCorrected{ExpectedVersion: version, Observation: events.Observation{ID: id, Kind: "preference",
				Subject: "drink", Attribute: attr, Polarity: pol, Text: text}}}
	}
	forget := func(id string, d int) *events.Event {
		return &events.Event{ID: fmt.Sprintf("forget-%s-%d", id, d), Kind: events.KindMemoryForgotten, Tenant: "acme", User: "u1", At: day(d),
			Body: &events.MemoryForgotten{ID: id}}
	}
	e := NewEngine(Config{QuotaPerUser: -1}, nil)
	msg := func(id string, d int, text string) []*events.Event {
		evs, err := e.MessageEvents("acme", "u1", id, text, day(d))
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	cat := func(parts ...[]*events.Event) []*events.Event { return slices.Concat(parts...) }
	one := func(evs ...*events.Event) []*events.Event { return evs }
	cases := []struct {
		name string
		log  []*events.Event
	}{
		// The shape the review described, smallest: b merges into a, a
		// is forgotten (b with it), then c says it again.
		{"merged then forgotten then said again", one(
			obs("a", 1, "coffee", "negative", "I hate coffee zq1q"),
			obs("b", 2, "coffee", "negative", "I hate coffee, truly zq2q"),
			forget("a", 3),
			obs("c", 4, "coffee", "negative", "I hate coffee again zq3q"))},
		// Two records come to say the same (z stated, a corrected into
		// it); c merges into the first in key order (a); a is forgotten;
		// d says it again and has only z left to merge into.
		{"two records say the same, the first forgotten", one(
			obs("z", 1, "coffee", "negative", "I hate coffee zq1q"),
			obs("a", 2, "tea", "positive", "I love tea zq2q"),
			correct("a", 3, 1, "coffee", "negative", "no, I hate coffee zq3q"),
			obs("c", 4, "coffee", "negative", "I hate coffee, truly zq4q"),
			forget("a", 5),
			obs("d", 6, "coffee", "negative", "I hate coffee still zq5q"))},
		// As above, the later record forgotten instead, and the merge said
		// again before and after.
		{"two records say the same, the second forgotten", one(
			obs("z", 1, "coffee", "negative", "I hate coffee zq1q"),
			obs("a", 2, "tea", "positive", "I love tea zq2q"),
			correct("a", 3, 1, "coffee", "negative", "no, I hate coffee zq3q"),
			obs("c", 4, "coffee", "negative", "I hate coffee, truly zq4q"),
			forget("z", 5),
			obs("d", 6, "coffee", "negative", "I hate coffee still zq5q"),
			forget("a", 7),
			obs("f", 8, "coffee", "negative", "I hate coffee for ever zq6q"))},
		// Superseded and said again: c merges into a (current again over
		// b); b, which a superseded, is forgotten; then a; then d.
		{"revived record forgotten after what it superseded", one(
			obs("a", 1, "coffee", "positive", "I love coffee zq1q"),
			obs("b", 2, "coffee", "negative", "I hate coffee zq2q"),
			obs("c", 3, "coffee", "positive", "I love coffee again zq3q"),
			forget("b", 4),
			obs("d", 5, "coffee", "negative", "I hate coffee now zq4q"),
			forget("a", 6),
			obs("f", 7, "coffee", "positive", "I love coffee after all zq5q"))},
		// Statements read from messages (records m1, m1#2, ...), merging
		// across messages; the first message's first record forgotten
		// (its other records stay), then said again.
		{"message statements merged then forgotten", cat(
			msg("m1", 1, "I hate pizza and I love coffee, zq1q"),
			msg("m2", 2, "I love coffee, zq2q. I hate pizza and I love tea, zq3q"),
			one(forget("m1#2", 3)),
			msg("m3", 4, "I love coffee, zq4q. I hate pizza, zq5q"),
			one(forget("m2#2", 5)),
			msg("m4", 6, "I hate pizza and I love coffee, zq6q"))},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			live := newPebbleStore(t)
			destroyed := map[string]bool{}
			var log []*events.Event
			for _, ev := range c.log {
				log = append(log, ev)
				if err := live.apply(e, ev); err != nil {
					t.Fatalf("apply %s: %v", ev.ID, err)
				}
				f, ok := ev.Body.(*events.MemoryForgotten)
				if !ok {
					continue
				}
				gone, err := e.Forgotten(live.reader(), ev.Tenant, ev.User, f.ID)
				if err != nil || !slices.Contains(gone, f.ID) {
					t.Fatalf("Forgotten(%s) = %v, %v", f.ID, gone, err)
				}
				for _, id := range gone {
					destroyed[ev.Tenant+"|"+events.RecordScope(ev.User, id)] = true
				}
			}
			rebuilt := rebuildErased(t, e, log, destroyed)
			l, r := viewOf(t, e, live), viewOf(t, e, rebuilt)
			if !maps.Equal(l, r) {
				var diff []string
				for k, v := range l {
					if r[k] != v {
						diff = append(diff, fmt.Sprintf("%s: live %q, rebuilt %q", k, v, r[k]))
					}
				}
				for k, v := range r {
					if _, ok := l[k]; !ok {
						diff = append(diff, fmt.Sprintf("%s: live none, rebuilt %q", k, v))
					}
				}
				slices.Sort(diff)
				t.Fatalf("the rebuilt view differs from the live view:\n%s", strings.Join(diff, "\n"))
			}
			for _, ev := range log {
				if scope := SealScope(ev); scope != "" && destroyed[ev.Tenant+"|"+scope] {
					for _, m := range regexp.MustCompile(`zq[0-9]+q`).FindAllString(bodyText(ev), -1) {
						for name, s := range map[string]*pebbleStore{"live": live, "rebuilt": rebuilt} {
							if where, ok := rawContains(s.reader(), []byte(m)); ok {
								t.Fatalf("%s was forgotten, but the %s view holds %q in %s", ev.ID, name, m, where)
							}
						}
					}
				}
			}
			checkConsistent(t, e, mapOf(rebuilt.reader()))
		})
	}
}

// viewOf returns what a view says of acme/u1's ids, in a form two views
// compare by: each id alive (merged into which record, in which sentence)
// or gone (forgotten or erased: a live tombstone and a rebuilt one differ
// only in the erasure mark), and each record's current version, status
// and links.
func viewOf(t *testing.T, e *Engine, s *pebbleStore) map[string]string {
	out := map[string]string{}
	k := keysFor("acme", "u1")
	err := s.reader().Scan(k.ids(), func(key, v []byte) error {
		var ie idEntry
		if err := decodeInto(v, &ie); err != nil {
			return err
		}
		switch {
		case ie.Tomb || ie.Erased:
			out["id "+string(key)] = "gone"
		default:
			out["id "+string(key)] = fmt.Sprintf("alive alias=%s", ie.Alias)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := e.List(s.reader(), "acme", "u1", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		out["record "+r.ID] = fmt.Sprintf("v%d %s %s/%s %s by=%s over=%v observed=%d confidence=%.4f uses=%d",
			r.Version, r.Status, r.Subject, r.Attribute, r.Polarity, r.SupersededBy, r.Supersedes, r.ObservedAt, r.Confidence, r.UseCount)
	}
	return out
}
