package memory

import (
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/memory/embed/local"
)

// A question about time ranks first the record that says when; the same
// records asked about otherwise rank as before.
func TestRecallWhenFindsTheTime(t *testing.T) {
	words, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2025, 6, 2, 18, 0, 0, 0, time.UTC)
	applyMessage(t, e, s, "u1", "when", "We went camping by the lake two weekends ago.", at)
	applyMessage(t, e, s, "u1", "love", "We love camping by the lake with the kids.", at.Add(24*time.Hour))
	first := func(q string) string {
		t.Helper()
		res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", Text: q, K: 2, Matcher: words})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) != 2 {
			t.Fatalf("%q: %d records, want both", q, len(res.Records))
		}
		return res.Records[0].Record.ID
	}
	for q, want := range map[string]string{
		"When did we go camping by the lake?": "when",
		"我们什么时候去 camping by the lake?":        "when",
		"Do we like camping by the lake?":     "love",
		"Tell me about camping by the lake.":  "love",
	} {
		if got := first(q); got != want {
			t.Errorf("%q: %s first, want %s", q, got, want)
		}
	}
	for text, want := range map[string]bool{"last Friday": true, "in 2022": true, "上周去的": true, "by the lake": false, "12345": false,
		"I walked 5000 steps": false, "I may go hiking": false, "in May": true, "May 5": true, "last may we moved": true} {
		if saysWhen(text) != want {
			t.Errorf("saysWhen(%q) = %v", text, !want)
		}
	}
}

// The time words read from the shared language data are the words the
// list held before it was data: every month and weekday by its full name
// and the days named from today, and no abbreviation that is a word of
// its own.
func TestTimeWordsFromLanguageData(t *testing.T) {
	for _, w := range []string{"january", "may", "september", "december", "monday", "sunday", "yesterday", "today", "tonight", "tomorrow",
		"ago", "weekends", "lately", "autumn", "until", "evening"} {
		if !timeWords[w] {
			t.Errorf("%q is not a time word", w)
		}
	}
	for _, w := range []string{"mar", "sat", "sun", "wed", "jan", "day after tomorrow", "日", "上周"} {
		if timeWords[w] {
			t.Errorf("%q is a time word", w)
		}
	}
	for _, w := range []string{"上周", "去年", "晚上", "之前", "最近"} {
		if !slices.Contains(zhTimeWords, w) {
			t.Errorf("%q is not a Chinese time word", w)
		}
	}
}

// "when" asks about time only in a question no other question word opens:
// "How did I feel when …?" asks how, and the record that says a time is
// not weighed up for it; the phrases that ask about time ask it wherever
// they stand, in English and Chinese.
func TestAWhenThatOpensAClauseAsksNoTime(t *testing.T) {
	for q, want := range map[string]bool{
		"When did we go camping by the lake?":          true,
		"Do you remember when we met?":                 true,
		"And when is the dentist?":                     true,
		"Since when do you drink tea?":                 true,
		"How long did you stay when you were in Rome?": true,
		"What did Sam give me when we met in Leeds?":   false,
		"How did I feel when I moved to Oslo?":         false,
		"Where were you when the storm hit?":           false,
		"Who looked after the cat when I was away?":    false,
		"What year did I start the band?":              true,
		"我们什么时候去露营？":                                   true,
		"你在北京的时候住在哪里？":                                 false,
		"我搬家的时候谁帮了我？":                                  false,
		"我的签证多久到期？":                                    true,
	} {
		if got := asksWhen(q); got != want {
			t.Errorf("asksWhen(%q) = %v, want %v", q, got, want)
		}
	}
	words, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, said, felt, query string
	}{
		{"en", "We adopted the puppy last March.", "I felt so nervous about adopting the puppy.", "How did I feel when we adopted the puppy?"},
		{"zh", "我们去年三月搬到了奥斯陆。", "搬到奥斯陆以后我好几个星期都觉得很孤单。", "搬到奥斯陆的时候我感觉怎么样？"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, hits := recallAfterTwo(t, words, "said", tc.said, "felt", tc.felt, tc.query)
			if len(hits) == 0 || hits[0].Record.ID != "felt" {
				t.Errorf("%q: records %v, want the feeling first", tc.query, hitIDs(hits))
			}
		})
	}
}

// A question about time weighs a record whose message says the time in
// another sentence as one that says it: the writer splits "We went
// camping … . That was two weekends ago." into two records, and the first
// is the one about the query.
func TestATimeSaidBesideARecordInItsMessageCounts(t *testing.T) {
	words, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, told, love, query string
	}{
		{"en", "We went camping by the lake. That was two weekends ago.", "We always love to go camping by the lake with the kids.",
			"When did we go camping by the lake?"},
		{"zh", "我们在湖边露营过。那是上周末的事。", "我们很喜欢去湖边露营。", "我们什么时候去湖边露营？"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, hits := recallAfterTwo(t, words, "told", tc.told, "love", tc.love, tc.query)
			if len(ids) != 2 {
				t.Fatalf("records %v, want one per sentence", ids)
			}
			if len(hits) == 0 || hits[0].Record.Message != "told" {
				t.Errorf("%q: records %v, want the message that says when first", tc.query, hitIDs(hits))
			}
		})
	}
}

// recallAfterTwo writes message first (id a) and, a day later, second
// (id b) for one user on a real Pebble store, and returns the records
// of the first and what a recall of query (K 2, by m) finds.
func recallAfterTwo(t *testing.T, m Matcher, a, first, b, second, query string) ([]string, []Hit) {
	t.Helper()
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2025, 6, 2, 18, 0, 0, 0, time.UTC)
	ids := applyMessage(t, e, s, "u1", a, first, at)
	applyMessage(t, e, s, "u1", b, second, at.Add(24*time.Hour))
	res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", Text: query, K: 2, Matcher: m})
	if err != nil {
		t.Fatal(err)
	}
	return ids, res.Records
}
