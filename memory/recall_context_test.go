package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/memory/embed/local"
)

// A turn is recalled with the one said just before it: the answer that
// says "it" is found through the turn that named what "it" is. Nearness
// alone ranks nothing, and turns said hours apart lend nothing.
func TestRecallTakesContext(t *testing.T) {
	words, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gap     time.Duration
		context bool
	}{{time.Minute, true}, {2 * time.Hour, false}} {
		t.Run(fmt.Sprint(tc.gap), func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			at := time.Date(2025, 5, 2, 18, 0, 0, 0, time.UTC)
			applyMessage(t, e, s, "u1", "coffee", "I make coffee every morning.", at)
			applyMessage(t, e, s, "u1", "studio", "We finally went to the pottery studio downtown.", at.Add(time.Hour))
			applyMessage(t, e, s, "u1", "bowl", "I shaped a clay bowl there, so proud of it.", at.Add(time.Hour+tc.gap))
			applyMessage(t, e, s, "u1", "cold", "Brr, freezing outside.", at.Add(time.Hour+tc.gap+time.Minute))
			res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", Text: "What did I make at the pottery studio?", K: 4, Matcher: words})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Records {
				got = append(got, h.Record.ID)
			}
			if len(got) < 3 || got[0] != "studio" {
				t.Fatalf("records %v, want the studio first", got)
			}
			if slices.Contains(got, "cold") {
				t.Errorf("records %v: a turn about nothing asked came by nearness alone", got)
			}
			if bowlFirst := slices.Index(got, "bowl") < slices.Index(got, "coffee"); bowlFirst != tc.context {
				t.Errorf("records %v: the bowl before the coffee %v, want %v (said %v after the studio)", got, bowlFirst, tc.context, tc.gap)
			}
		})
	}
}
