package memory

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestServiceConsolidatesEpisodes: through the memory service on a real
// server (messages sealed in the log, the projection running), episodes
// of three messages naming sushi become one semantic record with the
// episodes as provenance, which a recall finds; another tenant's user of
// the same name, with two such episodes, has none and adds nothing to
// it; forgetting a source through the service (two left) forgets the
// record.
func TestServiceConsolidatesEpisodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := serve(ctx, t, &Service{})
	e, r := s.Engine, s.Runner
	say := func(tenant, id, text string) {
		t.Helper()
		if _, err := s.message(ctx, &Op{Tenant: tenant, User: "u1", ID: id, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	const id = "episodes:food/sushi"
	consolidated := func(tenant string) *Record {
		t.Helper()
		v := r.View()
		defer v.Close()
		recs, err := e.List(v, tenant, "u1", false)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			if rec.ID == id {
				return &rec
			}
		}
		return nil
	}
	say("acme", "m1", "Sushi again tonight with Tom.")
	say("globex", "g1", "Sushi at the airport.")
	say("acme", "m2", "We grabbed sushi after the movie.")
	say("globex", "g2", "Sushi for lunch.")
	if rec := consolidated("acme"); rec != nil {
		t.Fatalf("two messages consolidated (with another tenant's?): %+v", rec)
	}
	say("acme", "m3", "Sushi with the team for Friday lunch.")
	rec := consolidated("acme")
	if rec == nil || !slices.Equal(rec.From, []string{"m1", "m2", "m3"}) || rec.Kind != KindPreference || rec.Subject != "food" || rec.Attribute != "sushi" {
		t.Fatalf("after three messages: %+v, want food/sushi from m1, m2, m3", rec)
	}
	if rec := consolidated("globex"); rec != nil {
		t.Errorf("globex's user has a consolidated record of two episodes: %+v", rec)
	}
	out, err := s.recall(ctx, &Op{Tenant: "acme", User: "u1", Query: "what food do I like?"})
	if err != nil {
		t.Fatal(err)
	}
	if res := out.(RecallOut); !slices.ContainsFunc(res.Results, func(h RecallHit) bool { return h.ID == id }) {
		t.Errorf("a recall of what the user likes does not find the consolidated record: %+v", res.Results)
	}
	if _, err := s.write(ctx, &Op{Op: "forget", Tenant: "acme", User: "u1", ID: "m2"}); err != nil {
		t.Fatal(err)
	}
	if rec := consolidated("acme"); rec != nil {
		t.Errorf("a source forgotten, two left: the record is still there: %+v", rec)
	}
}

// TestEpisodeObjectsReadNamesOfTwoWords: an episode names a food or drink
// of two words as the lexicons write it (ice_cream, hot_pot, milk_tea),
// not by its last word ("ice cream" is no cream, "milk tea" no tea), and
// a plural of one as the thing; a name after a negation in its clause
// ("Skipped coffee", "Didn't have any pizza") is none.
func TestEpisodeObjectsReadNamesOfTwoWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want [][2]string
	}{
		{"Hot pot again with the team, then ice creams.", [][2]string{{"food", "hot pot"}, {"food", "ice cream"}}},
		{"Milk tea after class.", [][2]string{{"drink", "milk tea"}}},
		{"Sushi again tonight with Tom.", [][2]string{{"food", "sushi"}}},
		{"Coffee, then a long walk for coffee beans.", [][2]string{{"drink", "coffee"}, {"food", "bean"}}},
		// a name after a negation in its clause is no mention
		{"Skipped coffee this morning, sushi for lunch.", [][2]string{{"food", "sushi"}}},
		{"Didn't have any pizza, but ramen was great.", [][2]string{{"food", "ramen"}}},
		{"No sushi tonight.", nil},
	} {
		if got := episodeObjects(c.text); !slices.Equal(got, c.want) {
			t.Errorf("episodeObjects(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestEpisodeObjectsReadChineseNames: a Chinese episode's foods and drinks
// are read by segmenting it with the Chinese lexicon, longest name first
// (奶茶 is no 茶, 普洱茶 no 普洱), in the slot a Chinese statement of them
// holds; a name of one ideograph only after its verb (喝茶, not 茶几 or
// 酒店), and none after a negation (没喝, 不吃).
func TestEpisodeObjectsReadChineseNames(t *testing.T) {
	for _, c := range []struct {
		text string
		want [][2]string
	}{
		{"周五和同事去吃火锅，然后喝奶茶。", [][2]string{{"food", "hotpot"}, {"drink", "milk tea"}}},
		{"下午泡了一壶普洱茶。", [][2]string{{"drink", "普洱茶"}}},
		{"在茶几上放了本书，住的酒店很好。", nil},
		{"喝了茶，又吃鱼。", [][2]string{{"drink", "tea"}, {"food", "fish"}}},
		{"今天没喝奶茶，也不吃火锅，没再喝咖啡。", nil},
		{"Sushi, then 寿司 again.", [][2]string{{"food", "sushi"}}},
		// an amount between the verb and a name of one ideograph
		{"下午喝了一杯茶，晚上吃了两块鱼。", [][2]string{{"drink", "tea"}, {"food", "fish"}}},
		{"喝点茶再走。", [][2]string{{"drink", "tea"}}},
		{"今天没喝一口茶，一杯茶几乎没动。", nil},
	} {
		if got := episodeObjects(c.text); !slices.Equal(got, c.want) {
			t.Errorf("episodeObjects(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
