package memory

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestErasingARecordErasesWhatWasMergedIntoItAndForgottenBefore: a
// statement b said again is merged into the record a that first said it;
// a is corrected to say something else, so the same statement said once
// more (c) is a record of its own; b is forgotten without erasure (memory
// run; a log written before erasure), then a is forgotten and erased. A
// rebuild in which a's events no longer open but b's still do made b a
// record, merged c into it, and b's forgetting then took c, which the
// user never forgot: the rebuild kept other statements than the live
// view. Erasing a now destroys the keys of the forgettings of what was
// merged into a (Forgotten), so b does not open in the rebuild either,
// and replay equals live. Each case names what erasing a erases and the
// records left.
func TestErasingARecordErasesWhatWasMergedIntoItAndForgottenBefore(t *testing.T) {
	day := func(d int) int64 { return time.Date(2024, 4, d, 0, 0, 0, 0, time.UTC).UnixNano() }
	e := NewEngine(Config{QuotaPerUser: -1}, nil)
	love := func(id string, d int, attr, text string) *events.Event {
		return observedEv("u1", day(d), events.Observation{ID: id, Kind: "preference", Subject: "drink",
			Attribute: attr, Polarity: "positive", Text: text})
	}
	correct := func(id string, d int, attr, text string) *events.Event {
		return correctedEv("u1", day(d), 1, events.Observation{ID: id, Kind: "preference", Subject: "drink",
			Attribute: attr, Polarity: "positive", Text: text})
	}
	msg := func(id string, d int, text string) []*events.Event {
		evs, err := e.MessageEvents("acme", "u1", id, text, day(d))
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	one := func(evs ...*events.Event) []*events.Event { return evs }
	cases := []struct {
		name   string
		log    []*events.Event
		erase  string   // the forgetting erased (the others are not)
		erased []string // what erasing it erases
		left   []string // records alive at the end
	}{
		{"en said twice, corrected, said again", one(
			love("a", 1, "coffee", "I love coffee zq1q"),
			love("b", 2, "coffee", "I love coffee zq2q"),
			correct("a", 3, "tea", "actually I love tea zq3q"),
			love("c", 4, "coffee", "I love coffee zq4q"),
			forgottenEv("u1", "b", day(5)),
			forgottenEv("u1", "a", day(6))),
			"a", []string{"a", "b"}, []string{"c"}},
		{"zh said in two messages beside an episode, corrected, said again", slices.Concat(
			msg("m1", 1, "我喜欢喝咖啡。"),
			msg("m2", 2, "我喜欢喝咖啡。上周去了一趟西湖zq2q。"),
			one(correct("m1", 3, "tea", "其实我喜欢喝茶 zq3q")),
			msg("m3", 4, "我真的喜欢喝咖啡。"),
			one(forgottenEv("u1", "m2", day(5)), forgottenEv("u1", "m1", day(6)))),
			"m1", []string{"m1", "m2"}, []string{"m2#2", "m3"}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			live, erased := replayEqualsLiveErasing(t, e, c.log, func(ev *events.Event) bool {
				return ev.Body.(*events.MemoryForgotten).ID == c.erase
			})
			if got := erased["u1/"+c.erase]; !slices.Equal(got, c.erased) {
				t.Errorf("erasing %s erased %v, want %v", c.erase, got, c.erased)
			}
			recs, err := e.List(live.reader(), "acme", "u1", true)
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			for _, r := range recs {
				left = append(left, r.ID)
			}
			slices.Sort(left)
			if !slices.Equal(left, c.left) {
				t.Errorf("records left %v, want %v", left, c.left)
			}
		})
	}
}
