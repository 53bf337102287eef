package memory

import (
	"fmt"
	"testing"
	"time"

	"github.com/toolstream/toolstream/memory/embed/local"
)

// TestNamedPeriod reads the day, month or year a question names, at a
// query time of 10 June 2024, and names none where the query names no
// date or one that does not exist.
func TestNamedPeriod(t *testing.T) {
	now := time.Date(2024, 6, 10, 15, 0, 0, 0, time.UTC).UnixNano()
	day := func(y int, m time.Month, d int) timeSpan {
		s := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return timeSpan{s.UnixNano(), s.AddDate(0, 0, 1).UnixNano()}
	}
	month := func(y int, m time.Month) timeSpan {
		s := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return timeSpan{s.UnixNano(), s.AddDate(0, 1, 0).UnixNano()}
	}
	year := func(y int) timeSpan {
		s := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return timeSpan{s.UnixNano(), s.AddDate(1, 0, 0).UnixNano()}
	}
	for _, c := range []struct {
		query string
		want  timeSpan
		ok    bool
	}{
		{"What did John organize with his friends on May 8, 2022?", day(2022, 5, 8), true},
		{"Why did Jolene get the new plant on 30 August, 2023?", day(2023, 8, 30), true},
		{"What movie did Tim watch on 8th December, 2023?", day(2023, 12, 8), true},
		{"what did I eat on the 3rd of March", day(2024, 3, 3), true},
		{"what did I buy on July 4", day(2023, 7, 4), true}, // July 4 of 2024 is still to come
		{"What was she working on in January 2023?", month(2023, 1), true},
		{"Did Andrew have a dog during March 2023?", month(2023, 3), true},
		{"where did we go in March", month(2024, 3), true},
		{"what did I plan last September", month(2023, 9), true},
		{"What charity event did John organize in 2024?", year(2024), true},
		{"what happened on 2022-05-08", day(2022, 5, 8), true},
		{"我2023年3月去了哪里？", month(2023, 3), true},
		{"我3月8日吃了什么？", day(2024, 3, 8), true},
		{"I may go hiking, where?", timeSpan{}, false},
		{"How many steps is 5000 steps?", timeSpan{}, false},
		{"What did I do on April 31, 2023?", timeSpan{}, false},
		{"What is my favourite movie?", timeSpan{}, false},
	} {
		got, ok := namedPeriod(c.query, now)
		if ok != c.ok || got != c.want {
			t.Errorf("namedPeriod(%q) = %v %v, want %v %v", c.query, got, ok, c.want, c.ok)
		}
	}
}

// TestADateNamedRecallsWhatWasSaidThen: two turns alike but for when
// they were said; a question that names the day of one (or the week
// before it was told) ranks that one first, a question naming no date
// the newer, and a date said of neither ranks as no date does.
func TestADateNamedRecallsWhatWasSaidThen(t *testing.T) {
	words, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	may := time.Date(2022, 5, 8, 14, 0, 0, 0, time.UTC)
	june := time.Date(2022, 6, 20, 14, 0, 0, 0, time.UTC)
	applyMessage(t, e, s, "u1", "may", "We had a big tournament at the club with friends.", may)
	applyMessage(t, e, s, "u1", "june", "We had a big tournament at the park with friends.", june)
	for _, c := range []struct{ query, first string }{
		{"What tournament did we have on May 8, 2022?", "may"},
		{"What tournament did we have in May 2022?", "may"},
		{"What tournament did we have on 3 May, 2022?", "may"}, // told within the week after
		{"What tournament did we have on 20 June, 2022?", "june"},
		{"What tournament did we have?", "june"},
		{"What tournament did we have in 2019?", "june"},
	} {
		res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", Text: c.query, K: 2, Matcher: words, At: june.Add(time.Hour).UnixNano()})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) == 0 || res.Records[0].Record.ID != c.first {
			var got []string
			for _, h := range res.Records {
				got = append(got, fmt.Sprintf("%s %.3f", h.Record.ID, h.Score))
			}
			t.Errorf("%q: records %v, want %s first", c.query, got, c.first)
		}
	}
}
