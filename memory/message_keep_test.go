package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
)

// TestEverySentenceOfAMessageIsKept: a message some of whose sentences the
// extractor slots and some not keeps every one that is no question, each
// in exactly one record (or one sentence of records: two statements read
// from one sentence share it), and forgetting any one record erases its
// text alone: the other records stay, and the view rebuilt from the log
// with its key destroyed equals the live view (replayEqualsLive). Before,
// a sentence the extractor read nothing from was dropped whenever another
// sentence of the message was slotted: stored nowhere.
func TestEverySentenceOfAMessageIsKept(t *testing.T) {
	day := time.Date(2024, 6, 3, 9, 0, 0, 0, time.UTC).UnixNano()
	many := []string{"I live in Porto."}
	for i := range 19 {
		many = append(many, fmt.Sprintf("The ferry number %d left late today.", i+1))
	}
	cases := []struct {
		name, text string
		slotted    int // records of the message with a slot, at least
	}{
		{"en a fact, then an evening", "I live in Porto. We watched the fireworks from the old bridge last night.", 1},
		{"en an evening, then a fact", "The kettle broke again this morning. My favourite tea is oolong.", 1},
		{"en a constraint between two episodes", "We walked along the canal after lunch. I'm allergic to peanuts. Then it drizzled all afternoon.", 1},
		{"en a question is not kept, the rest is", "I hate mushrooms. Did you see the match? My cousin scored twice.", 1},
		{"en more sentences than records", strings.Join(many, " "), 1},
		{"zh a fact, then an evening", "我住在成都。昨天晚上我们去江边看了一场烟花。", 1},
		{"zh an evening, then a preference", "今天公司停电了，大家都早早下班。我最喜欢的水果是芒果。", 1},
		{"zh a constraint between two episodes", "周末和表哥去爬了青城山。我对花生过敏。下山的时候下起了小雨。", 1},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			e := NewEngine(Config{QuotaPerUser: -1}, nil)
			evs, err := e.MessageEvents("acme", "u1", "m1", c.text, day)
			if err != nil {
				t.Fatal(err)
			}
			var obs []events.Observation
			slotted := 0
			for _, ev := range evs {
				o := ev.Body.(*events.MemoryObserved).Observation
				obs = append(obs, o)
				if o.Subject != "" {
					slotted++
				}
			}
			if slotted < c.slotted {
				t.Fatalf("%d statements slotted, want %d or more: %+v", slotted, c.slotted, obs)
			}
			// every part that is no question is in exactly one record, or
			// in records of one sentence
			for _, s := range lang.Sentences(c.text) {
				for _, p := range splitClauses(s) {
					if p.Question {
						for _, o := range obs {
							if strings.Contains(o.Text, strings.TrimRight(p.Text, "?？")) {
								t.Errorf("the question %q is kept in %s", p.Text, o.ID)
							}
						}
						continue
					}
					var in []string
					sentence := map[string]bool{}
					for _, o := range obs {
						if strings.Contains(o.Text, strings.TrimRightFunc(p.Text, unicode.IsPunct)) {
							in = append(in, o.ID)
							sentence[o.Sentence] = true
						}
					}
					if len(in) == 0 {
						t.Errorf("%q is in no record of %+v", p.Text, obs)
					} else if len(in) > 1 && (len(sentence) != 1 || sentence[""]) {
						t.Errorf("%q is in records %v of different sentences", p.Text, in)
					}
				}
			}
			if len(obs) > observationsMax {
				t.Errorf("%d records, want at most %d", len(obs), observationsMax)
			}
			// forgetting each record erases its sentence alone
			for _, o := range obs {
				log := append(slices.Clone(evs), forgottenEv("u1", o.ID, day+int64(time.Hour)))
				live, erased := replayEqualsLive(t, e, log)
				want := []string{o.ID}
				if o.Sentence != "" {
					want = nil
					for _, p := range obs {
						if p.Sentence == o.Sentence {
							want = append(want, p.ID)
						}
					}
				}
				slices.Sort(want)
				if got := erased["u1/"+o.ID]; !slices.Equal(got, want) {
					t.Errorf("forgetting %s erased %v, want %v", o.ID, got, want)
				}
				for _, p := range obs {
					if slices.Contains(want, p.ID) {
						continue
					}
					if h, err := e.History(live.reader(), "acme", "u1", p.ID); err != nil || len(h) == 0 {
						t.Errorf("forgetting %s took %s too (%v)", o.ID, p.ID, err)
					}
				}
			}
		})
	}
}
