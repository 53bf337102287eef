package memory

import (
	"slices"
	"testing"
)

// TestALikingAndADistasteInOneSentence: what a thing does to the user that
// says they dislike it ("X makes me gag", [effects] distaste) is a negative
// preference for X, kept beside a liking said in the same sentence; said of
// another person, it is none of the user's.
func TestALikingAndADistasteInOneSentence(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string // kind subject/attribute polarity, in any order
	}{
		{"I love mangoes, but papaya makes me gag.", []string{"preference food/mango positive", "preference general/papaya negative"}},
		{"Olives make me gag.", []string{"preference food/olive negative"}},
		{"Raw celery turns my stomach.", []string{"preference general/raw celery negative"}},
		{"My brother says olives make him gag.", nil},
	} {
		var got []string
		for _, o := range (RuleExtractor{}).ExtractAt(c.text, "", 0) {
			if o.Subject != "" {
				got = append(got, o.Kind+" "+o.Subject+"/"+o.Attribute+" "+o.Polarity)
			}
		}
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", c.text, got, want)
		}
	}
}
