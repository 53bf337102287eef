package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/memory/embed/local"
)

// TestTheAnswerToAQuestionStandsWhereItsQuestionWould: a question said
// in a conversation that is about the query ("What inspired your
// painting of the lake?") weighs less as a question, and the turn said
// next, its answer, shares none of the query's words ("A walk by the
// water at dawn."); the answer is recalled where the question would
// stand as a statement, above records that merely share a word. Across a
// pause the next turn answers nothing and gains nothing.
func TestTheAnswerToAQuestionStandsWhereItsQuestionWould(t *testing.T) {
	words, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gap    time.Duration
		answer bool
	}{{30 * time.Second, true}, {2 * time.Hour, false}} {
		t.Run(fmt.Sprint(tc.gap), func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			at := time.Date(2025, 5, 2, 18, 0, 0, 0, time.UTC)
			applyMessage(t, e, s, "u1", "sold", "I sold my first painting at the fair.", at)
			applyMessage(t, e, s, "u1", "lake", "The lake froze early this winter.", at.Add(time.Hour))
			applyMessage(t, e, s, "u1", "brushes", "My new brushes arrived for painting class.", at.Add(2*time.Hour))
			applyMessage(t, e, s, "u1", "fence", "Painting the fence took all weekend.", at.Add(2*time.Hour+10*time.Minute))
			applyMessage(t, e, s, "u1", "harbour", "Her painting of the harbour won a prize.", at.Add(2*time.Hour+20*time.Minute))
			applyMessage(t, e, s, "u1", "cabin", "The cabin by the lake inspired me.", at.Add(2*time.Hour+30*time.Minute))
			applyMessage(t, e, s, "u1", "asked", "What inspired your painting of the lake?", at.Add(3*time.Hour))
			applyMessage(t, e, s, "u1", "walk", "A walk by the water at dawn, honestly.", at.Add(3*time.Hour+tc.gap))
			res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", Text: "What inspired the painting of the lake?", K: 3, Matcher: words})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Records {
				got = append(got, h.Record.ID)
			}
			if in := slices.Contains(got, "walk"); in != tc.answer {
				t.Errorf("records %v: the answer among the first three %v, want %v (said %v after the question)", got, in, tc.answer, tc.gap)
			}
		})
	}
}
