package memory

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory/embed/local"
	"github.com/toolstream/toolstream/memory/embed/use"
)

// BenchmarkRecallSentences measures what the sentence encoder adds to a
// recall as the service makes it: one user's episodes (600, about a
// LoCoMo conversation; MEMORY_BENCH_SENTENCE_RECORDS sets another
// number), each with its vector recorded, asked by the shipped word
// vectors alone (Query.Matcher) and, in turns with it, by the word and
// sentence vectors (the query embedded by memory/embed/use, then
// Query.Matcher and Query.Vector). It reports both p50s and their ratio,
// that ratio without the query's embedding (as TestLoCoMoRecall times
// recall), and the cost of embedding one record as a write does.
func BenchmarkRecallSentences(b *testing.B) {
	n := 600
	if s := os.Getenv("MEMORY_BENCH_SENTENCE_RECORDS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	words, err := local.New()
	if err != nil {
		b.Fatal(err)
	}
	enc, err := use.New()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewSource(1))
	who := []string{"I", "My sister", "Our neighbour", "My boss", "We", "My son"}
	did := []string{"went hiking in", "bought a new car in", "started painting lessons in", "adopted a puppy in", "moved to a flat in", "ran a marathon in", "lost a wallet in", "cooked dinner for friends in"}
	where := []string{"Lisbon", "the mountains", "town", "Denver", "the old quarter", "Kyoto", "the suburbs", "Oslo"}
	when := []string{"last week", "yesterday", "in May", "after work", "on Sunday", "this spring"}
	e := NewEngine(Config{QuotaPerUser: -1}, nil)
	store := newMapStore()
	const tenant, user = "acme", "u1"
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).UnixNano()
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("%s %s %s %s.", who[rng.Intn(len(who))], did[rng.Intn(len(did))], where[rng.Intn(len(where))], when[rng.Intn(len(when))])
		ev := &events.Event{ID: "ep-" + strconv.Itoa(i), Tenant: tenant, User: user, At: at,
			Body: &events.MemoryObserved{Observation: events.Observation{ID: "t" + strconv.Itoa(i), Kind: string(KindEpisode), Text: text}}}
		ev.Kind = ev.Body.Kind()
		if err := store.apply(e, ev); err != nil {
			b.Fatal(err)
		}
		at += int64(time.Minute)
	}
	recs, err := e.List(store, tenant, user, false)
	if err != nil {
		b.Fatal(err)
	}
	var write []time.Duration
	for i, r := range recs {
		t0 := time.Now()
		evs, err := EmbedEvents(ctx, enc, tenant, user, recs[i:i+1], at)
		if err != nil {
			b.Fatal(err)
		}
		write = append(write, time.Since(t0))
		for _, ev := range evs {
			ev.Kind = ev.Body.Kind()
			if err := store.apply(e, ev); err != nil {
				b.Fatal(err)
			}
		}
		_ = r
	}
	queries := []string{"Where did my sister go walking?", "Who got a dog?", "When did we relocate?", "Which city did the boss run a race in?", "What did I lose?"}
	var wordsOnly, both, recallOnly []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := Query{Tenant: tenant, User: user, Text: queries[i%len(queries)], K: 10, Matcher: words}
		t0 := time.Now()
		if _, err := e.Recall(store, q); err != nil {
			b.Fatal(err)
		}
		wordsOnly = append(wordsOnly, time.Since(t0))
		t0 = time.Now()
		vs, err := enc.Embed(ctx, []string{q.Text})
		if err != nil {
			b.Fatal(err)
		}
		q.Vector, q.Model = vs[0], enc.Model()
		t1 := time.Now()
		if _, err := e.Recall(store, q); err != nil {
			b.Fatal(err)
		}
		both = append(both, time.Since(t0))
		recallOnly = append(recallOnly, time.Since(t1))
	}
	b.StopTimer()
	w, s := percentile(wordsOnly, 50), percentile(both, 50)
	b.ReportMetric(float64(w.Microseconds()), "words-p50-us")
	b.ReportMetric(float64(s.Microseconds()), "sentences-p50-us")
	b.ReportMetric(float64(s)/float64(w), "p50-ratio")
	b.ReportMetric(float64(percentile(recallOnly, 50))/float64(w), "recall-only-p50-ratio")
	b.ReportMetric(float64(percentile(write, 50).Microseconds()), "embed-record-p50-us")
}
