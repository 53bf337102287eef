package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestFeedbackDfMax checks fbDfMax against idf: a word is lent exactly
// when its idf is at least fbIdfMin.
func TestFeedbackDfMax(t *testing.T) {
	for n := 1; n <= 5000; n++ {
		m := fbDfMax(n)
		if m >= 1 && idf(m, n) < fbIdfMin-1e-9 {
			t.Fatalf("n=%d: df %d allowed with idf %.4f", n, m, idf(m, n))
		}
		if m+1 <= n && idf(m+1, n) >= fbIdfMin+1e-9 {
			t.Fatalf("n=%d: df %d refused with idf %.4f", n, m+1, idf(m+1, n))
		}
	}
	if fbDfMax(20) > 0 {
		t.Fatalf("a store of 20 records lends words (fbDfMax %d)", fbDfMax(20))
	}
}

// TestFeedbackFindsTheUpdate: a later session's change of plans shares no
// word with the question but the place with the turn the question matches;
// that turn lends it ("kyoto"). A turn the caller may not see lends
// nothing: the change of plans is not found through it. 150 other turns
// make a store where "kyoto" tells records apart (fbDfMax).
func TestFeedbackFindsTheUpdate(t *testing.T) {
	base := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)
	topics := []string{"the garden", "my taxes", "a new laptop", "the car", "the kitchen", "my calendar", "the piano",
		"a spreadsheet", "the budget", "a presentation", "the holidays", "a refund", "the schedule", "my closet", "a job offer"}
	verbs := []string{"Tell me about", "I was thinking about", "We talked about", "I need to sort out", "Let's plan",
		"Remind me about", "I keep forgetting", "Someone asked about", "I read about", "Nothing new on"}
	obs := func(id, text, perm string, at time.Time) *events.Event {
		return &events.Event{ID: "e-" + id, Tenant: "acme", User: "u1", At: at.UnixNano(), Kind: events.KindMemoryObserved,
			Body: &events.MemoryObserved{Observation: events.Observation{ID: id, Kind: "episode", Text: text, Permission: perm}}}
	}
	var fillers []*events.Event
	for _, v := range verbs {
		for _, tp := range topics {
			fillers = append(fillers, obs(fmt.Sprintf("f%03d", len(fillers)), v+" "+tp+".", "", base.Add(time.Duration(len(fillers))*time.Hour)))
		}
	}
	question := "What month did we book the flights for?"
	for _, tc := range []struct {
		name, perm string
		found      bool
	}{{"visible", "", true}, {"hidden", "travel", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine(Config{QuotaPerUser: -1}, nil)
			s := newMapStore()
			applyAll(t, e, s, append(slices.Clone(fillers),
				obs("trip", "My sister and I booked flights to Kyoto for October.", tc.perm, base.Add(200*time.Hour)),
				obs("update", "We had to push the Kyoto trip back to July.", "", base.Add(300*time.Hour))))
			q := Query{Tenant: "acme", User: "u1", Text: question, K: 10}
			res, err := e.Recall(s, q)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range res.Records {
				if h.Record.ID == "update" {
					found = true
				}
				if h.Record.ID == "trip" && tc.perm != "" {
					t.Fatal("a record the caller may not see was returned")
				}
			}
			if found != tc.found {
				t.Fatalf("update found %v, want %v: %s", found, tc.found, hitsString(res))
			}
			want, err := e.scanRecall(s, q)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := hitsString(res), hitsString(want); g != w {
				t.Fatalf("index and scan differ:\n%s\n%s", g, w)
			}
		})
	}
}
