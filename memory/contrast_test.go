package memory

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
)

// TestALikingAndADislikeOfTwoThingsAreTwoStatements: a liking and, after a
// word of contrast ("but", 可, 可是, 但是, …), a taste of another thing read
// alone — what it does to the user, or in Chinese the thing said first and
// then disliked or declined — are two statements: two records of opposite
// polarity, each on its own slot with its own text, so forgetting one keeps
// the other. A contrast that says no taste of its own ("but only dried
// ones") cuts nothing.
func TestALikingAndADislikeOfTwoThingsAreTwoStatements(t *testing.T) {
	// said is a record's thing (held in its attribute), polarity and text
	type said struct{ thing, polarity, text string }
	for _, c := range []struct {
		text string
		want []said // in the order said
		gone string // a word only the second statement says
	}{
		{"I'm crazy about blood oranges, but kumquats make me gag.", []said{
			{"blood orange", "positive", "I'm crazy about blood oranges"},
			{"kumquat", "negative", "kumquats make me gag"}}, "kumquat"},
		{"I adore sea bass, but mackerel puts me right off.", []said{
			{"sea bass", "positive", "I adore sea bass"},
			{"mackerel", "negative", "mackerel puts me right off"}}, "mackerel"},
		{"I love figs, but only dried ones.", []said{
			{"fig", "positive", "I love figs, but only dried ones"}}, ""},
		{"我特别爱吃山药，可是秋葵我一口都咽不下去。", []said{
			{"山药", "positive", "我特别爱吃山药"},
			{"秋葵", "negative", "秋葵我一口都咽不下去"}}, "秋葵"},
		{"我每天都喝一杯豆浆，不过米浆我是真的喝不惯。", []said{
			{"豆浆", "positive", "我每天都喝一杯豆浆"},
			{"米浆", "negative", "米浆我是真的喝不惯"}}, "米浆"},
		{"我喜欢坐高铁，绿皮车就免了。", []said{
			{"坐高铁", "positive", "我喜欢坐高铁"},
			{"绿皮车", "negative", "绿皮车就免了"}}, "绿皮车"},
	} {
		e := NewEngine(Config{}, nil)
		s := newPebbleStore(t)
		at := time.Date(2025, 3, 2, 9, 0, 0, 0, time.UTC)
		ids := applyMessage(t, e, s, "u1", "m1", c.text, at)
		var got []said
		for _, id := range ids {
			r, err := e.Get(s.reader(), "acme", "u1", id)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, said{r.Attribute, string(r.Polarity), r.Text})
		}
		if !slices.EqualFunc(got, c.want, func(g, w said) bool {
			return strings.Contains(g.thing, w.thing) && g.polarity == w.polarity && g.text == w.text
		}) {
			t.Errorf("%q:\n got %q\nwant %q", c.text, got, c.want)
			continue
		}
		if len(ids) < 2 {
			continue
		}
		// forgetting the dislike keeps the liking, and no word of the dislike
		forget := &events.Event{ID: "f1", Tenant: "acme", User: "u1", At: at.Add(time.Hour).UnixNano(),
			Body: &events.MemoryForgotten{ID: ids[1]}}
		forget.Kind = forget.Body.Kind()
		if err := s.apply(e, forget); err != nil {
			t.Fatal(err)
		}
		if where, ok := rawContains(s.reader(), []byte(c.gone)); ok {
			t.Errorf("%q: the forgotten dislike's %q is still in %s", c.text, c.gone, where)
		}
		if r, err := e.Get(s.reader(), "acme", "u1", ids[0]); err != nil || r.Status != StatusActive {
			t.Errorf("%q: the liking after the dislike's forgetting: %+v, %v", c.text, r, err)
		}
	}
}
