package memory

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/memory/embed/local"
	"github.com/toolstream/toolstream/memory/embed/use"
)

// TestAParaphraseOfAFewRecordsIsFound runs the memory service on a real
// embedded server as serve does by default (the shipped sentence encoder
// as its embedder, the shipped word vectors as its matcher) for users who
// have told it one or two things, and asks about each in other words.
// Recall by sentence vectors judged a record's cosine against the mean of
// the user's own records, which for one record is its own cosine: nothing
// stood above it, the word vectors found no word in common, and the
// recall came back empty. Judged against the background sentences too
// (background.go), each question finds its record first; a user's
// records never reach another user asking the same.
func TestAParaphraseOfAFewRecordsIsFound(t *testing.T) {
	pe := productEncoders(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := serve(ctx, t, &Service{Embedder: pe.embedder, Matcher: pe.matcher})
	cases := []struct {
		user string
		said []string // message ids t1, t2, …
		ask  string
		want string
	}{
		{"u1", []string{"I volunteer as a lifeguard at the lake every summer."}, "What do I do in the warm months?", "u1-t1"},
		{"u2", []string{"My grandmother taught me to knit when I was nine."}, "Who showed me how to make scarves?", "u2-t1"},
		{"u3", []string{"I'm saving up for a flat near the river.", "Our cat hates the vet."}, "What am I putting money aside for?", "u3-t1"},
		{"u4", []string{"I ride my bike to the office most days."}, "How do I get to work?", "u4-t1"},
		{"u5", []string{"我每周六去游泳。", "我女儿在学钢琴。"}, "我周末做什么运动？", "u5-t1"},
	}
	for i, c := range cases {
		for j, text := range c.said {
			id := c.user + "-t" + string(rune('1'+j))
			out, err := s.message(ctx, &Op{Tenant: "acme", User: c.user, ID: id, Text: text,
				Time: time.Date(2025, 4, 1+j, 9, i, 0, 0, time.UTC).Format(time.RFC3339)})
			if err != nil {
				t.Fatal(err)
			}
			if w := out.(WriteReply); !w.Applied || w.EmbedError != "" {
				t.Fatalf("message %s: %+v", id, w)
			}
		}
	}
	recall := func(user, q string) []string {
		t.Helper()
		a, err := s.recall(ctx, &Op{Tenant: "acme", User: user, Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range a.(RecallOut).Results {
			ids = append(ids, h.ID)
		}
		return ids
	}
	for _, c := range cases {
		if got := recall(c.user, c.ask); len(got) == 0 || got[0] != c.want {
			t.Errorf("%s asked %q: %v, want %s first", c.user, c.ask, got, c.want)
		}
		for _, o := range cases {
			if o.user == c.user {
				continue
			}
			if got := recall(o.user, c.ask); slices.Contains(got, c.want) {
				t.Errorf("%s asked %q and got %s, another user's record", o.user, c.ask, c.want)
			}
		}
	}
}

// TestConcurrentFirstRecallsShareOneBackground: the background is
// embedded on the first recall that asks and kept by the Service, safe
// under recalls that ask at once (run with -race): every caller gets the
// embedder's own vectors of BackgroundTexts, one a sentence, and a later
// call gets the kept ones without embedding again. Another Service, of
// another model, keeps its own.
func TestConcurrentFirstRecallsShareOneBackground(t *testing.T) {
	words, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	want, err := Background(ctx, words)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(BackgroundTexts()) || len(want) == 0 {
		t.Fatalf("%d background vectors of %d sentences", len(want), len(BackgroundTexts()))
	}
	s := &Service{Embedder: words}
	const callers = 8
	got := make(chan [][]float32, callers)
	for range callers {
		go func() { got <- s.background(ctx) }()
	}
	for range callers {
		bg := <-got
		if len(bg) != len(want) {
			t.Fatalf("a first recall got %d background vectors, want %d", len(bg), len(want))
		}
		for i := range bg {
			if !slices.Equal(bg[i], want[i]) {
				t.Fatalf("background vector %d is not the embedder's", i)
			}
		}
	}
	kept := s.background(ctx)
	if again := s.background(ctx); len(kept) == 0 || &again[0] != &kept[0] {
		t.Error("a later recall embedded the background again")
	}

	enc, err := use.New()
	if err != nil {
		t.Fatal(err)
	}
	other := (&Service{Embedder: enc}).background(ctx)
	if len(other) != len(want) || len(other[0]) == len(want[0]) && slices.Equal(other[0], want[0]) {
		t.Errorf("another model's Service took the first one's background: %d vectors of %d", len(other), len(other[0]))
	}
}
