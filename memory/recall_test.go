package memory

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// TestCrossTenantAndUserRecallEmpty: a recall sees one user of one tenant,
// at every k and in every mode.
func TestCrossTenantAndUserRecallEmpty(t *testing.T) {
	e := NewEngine(Config{}, nil)
	s := newPebbleStore(t)
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	var texts []string
	for i, text := range []string{"I am allergic to peanuts", "I live in Paris", "We hiked to the lake",
		"I love spicy food", "我对花生过敏", "The meeting moved to Friday 42"} {
		texts = append(texts, text)
		ev := &events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "acme", User: "u1", At: at + int64(i),
			Body: &events.UserMessage{ID: fmt.Sprintf("m%d", i), Text: text}}
		if err := s.apply(e, ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, text := range append(texts, "", strings.Join(texts, " ")) {
		for k := 1; k <= 20; k++ {
			for _, o := range [][2]string{{"beta", "u1"}, {"acme", "u2"}, {"acme", "U1"}, {"acme-x", "u1"}, {"acm", "u1"}} {
				for _, q := range []Query{
					{Tenant: o[0], User: o[1], Text: text, K: k},
					{Tenant: o[0], User: o[1], Text: text, K: k, History: true, Scopes: []string{"hr"}},
					{Tenant: o[0], User: o[1], Text: text, K: k, AsOf: at + 10},
				} {
					res, err := e.Recall(s.reader(), q)
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Records)+len(res.Conflicts) > 0 {
						t.Fatalf("%+v sees %v", q, res)
					}
				}
			}
			res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "u1", Text: text, K: k, History: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Records {
				if h.Record.Tenant != "acme" || h.Record.User != "u1" {
					t.Fatalf("acme/u1 sees %s/%s", h.Record.Tenant, h.Record.User)
				}
			}
		}
	}
	for _, q := range []Query{{User: "u1", Text: "peanuts"}, {Tenant: "acme", Text: "peanuts"}, {Tenant: "a/b", User: "u1"}} {
		if _, err := e.Recall(s.reader(), q); !errors.Is(err, ErrNoTenant) && !errors.Is(err, ErrNoUser) {
			t.Errorf("%+v: %v", q, err)
		}
	}
	if _, err := e.List(s.reader(), "", "u1", true); !errors.Is(err, ErrNoTenant) {
		t.Error(err)
	}
	if _, err := e.Get(s.reader(), "acme", "", "m0"); !errors.Is(err, ErrNoUser) {
		t.Error(err)
	}
}

// TestRecallMatchesFullScan checks the index against the baseline: on
// random histories, indexed recall returns exactly what a full scan of the
// user's records ranks first, with the same scores.
func TestRecallMatchesFullScan(t *testing.T) {
	queries := []string{"recommend a dish", "where do I live", "spicy food", "coffee or tea", "辣", "推荐一道菜",
		"peanuts allergy", "Paris Berlin", "again"}
	for i, w := range genWords {
		if i%3 == 0 {
			queries = append(queries, w+" "+genWords[len(w)%len(genWords)])
		}
	}
	for _, seed := range []uint64{11} {
		e := NewEngine(Config{QuotaPerUser: 40, RecallBudgetBytes: 400}, nil)
		s := newMapStore()
		evs := genEvents(seed, 600)
		applyAll(t, e, s, evs)
		for _, o := range [][2]string{{"acme", "u1"}, {"acme", "u2"}, {"beta", "u1"}} {
			for _, text := range queries {
				if len(queryTerms(text)) == 0 {
					continue
				}
				for i, k := range []int{1, 4, 50} {
					for _, at := range []int64{0, evs[len(evs)/2].At} {
						for _, scopes := range [][]string{nil, {"hr"}}[i%2:] {
							q := Query{Tenant: o[0], User: o[1], Text: text, K: k, At: at, Scopes: scopes}
							got, err := e.Recall(s, q)
							if err != nil {
								t.Fatal(err)
							}
							want, err := e.scanRecall(s, q)
							if err != nil {
								t.Fatal(err)
							}
							if g, w := hitsString(got), hitsString(want); g != w {
								t.Fatalf("%+v:\nindex: %s\n scan: %s", q, g, w)
							}
						}
					}
				}
			}
		}
	}
}

func hitsString(r Result) string {
	var b strings.Builder
	for _, h := range r.Records {
		fmt.Fprintf(&b, "%s=%v ", h.Record.Ref(), h.Score)
	}
	b.WriteString("| ")
	for _, h := range r.Conflicts {
		fmt.Fprintf(&b, "%s=%v ", h.Record.Ref(), h.Score)
	}
	return b.String()
}

func TestRecallBudgetAndK(t *testing.T) {
	e := NewEngine(Config{RecallBudgetBytes: 60}, nil)
	s := newMapStore()
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i := 0; i < 30; i++ {
		text := fmt.Sprintf("We talked about the lake, turn %d", i)
		if i == 3 {
			text = "We talked about the lake " + strings.Repeat("and the lake ", 10)
		}
		ev := &events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "acme", User: "u1", At: at + int64(i),
			Body: &events.MemoryObserved{Observation: events.Observation{ID: fmt.Sprintf("t%02d", i), Kind: "episode", Text: text}}}
		if err := s.apply(e, ev); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.Recall(s, Query{Tenant: "acme", User: "u1", Text: "lake", K: 25})
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	for i, h := range res.Records {
		used += len(h.Record.Text)
		if i > 0 && used > 60 {
			t.Fatalf("budget exceeded: %d bytes", used)
		}
	}
	if len(res.Records) == 0 || res.Records[0].Record.ID != "t03" {
		t.Fatalf("the best record always comes first: %v", hitsString(res))
	}
	e2 := NewEngine(Config{RecallBudgetBytes: -1}, nil)
	for _, k := range []int{1, 5, 25, 1000} {
		res, err := e2.Recall(s, Query{Tenant: "acme", User: "u1", Text: "lake", K: k})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(k, 30); len(res.Records) != want {
			t.Fatalf("k=%d: %d records", k, len(res.Records))
		}
		if !sort.SliceIsSorted(res.Records, func(i, j int) bool { return hitLess(res.Records[i], res.Records[j]) }) {
			t.Fatalf("k=%d: not ranked", k)
		}
	}
}

// --- benchmarks: recall through the index against a full scan, over
// 100,000 records of one user in a real Pebble.

// benchRecords is the fixture's size; MEMORY_BENCH_RECORDS overrides it
// for quick runs.
var benchRecords = func() int {
	if n, err := strconv.Atoi(os.Getenv("MEMORY_BENCH_RECORDS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}()

type benchFixture struct {
	e        *Engine
	db       *pebble.DB
	r        projector.Reader
	queries  []Query
	scanP50  time.Duration
	scanP99  time.Duration
	buildDur time.Duration
}

var (
	benchOnce sync.Once
	bench     *benchFixture
)

func benchSetup(b *testing.B) *benchFixture {
	if testing.Short() {
		b.Skip("builds 100,000 records")
	}
	benchOnce.Do(func() { bench = buildBench(b) })
	if bench == nil {
		b.Fatal("fixture failed")
	}
	return bench
}

func buildBench(b *testing.B) *benchFixture {
	start := time.Now()
	rng := rand.New(rand.NewSource(1))
	vocab := make([]string, 5000)
	for i := range vocab {
		// letters only (a digit would split the word), ending in 'q' so
		// that neither stop words nor stemming touch them
		w := []byte{'k'}
		for n := i; ; n /= 26 {
			w = append(w, byte('a'+n%26))
			if n < 26 {
				break
			}
		}
		vocab[i] = string(append(w, 'q'))
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	e := NewEngine(Config{QuotaPerUser: -1}, nil)
	// shared by every benchmark of the run, so not closed by the first one
	db, err := pebble.Open("", &pebble.Options{FS: vfs.NewMem(), Logger: quietLogger{}})
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	batch := db.NewIndexedBatch()
	for i := range benchRecords {
		var body events.Body
		if i%10 == 0 {
			body = &events.UserMessage{ID: fmt.Sprintf("m%d", i), Text: fmt.Sprintf("I love %s %s",
				vocab[zipf.Uint64()], genFoods[i%8])}
		} else {
			n := 8 + rng.Intn(12)
			ws := make([]string, n)
			for j := range ws {
				ws[j] = vocab[zipf.Uint64()]
			}
			body = &events.MemoryObserved{Observation: events.Observation{ID: fmt.Sprintf("t%d", i), Kind: "episode",
				Text: strings.Join(ws, " ")}}
		}
		ev := &events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "acme", User: "u1", At: at + int64(i)*int64(time.Minute), Body: body}
		if err := e.Apply(rw{r: batch, b: batch}, ev); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			if err := batch.Commit(pebble.NoSync); err != nil {
				b.Fatal(err)
			}
			batch = db.NewIndexedBatch()
		}
	}
	if err := batch.Commit(pebble.NoSync); err != nil {
		b.Fatal(err)
	}
	// a steady state, as a long-running store would be
	if err := db.Compact(context.Background(), []byte("acme/"), []byte("acme0"), true); err != nil {
		b.Fatal(err)
	}
	f := &benchFixture{e: e, db: db, r: rw{r: db}}
	for i := 0; i < 50; i++ {
		// two or three words of middle frequency, as a question would have
		n := 2 + i%2
		ws := make([]string, n)
		for j := range ws {
			ws[j] = vocab[20+rng.Intn(1000)]
		}
		f.queries = append(f.queries, Query{Tenant: "acme", User: "u1", Text: strings.Join(ws, " "), K: 10})
	}
	f.queries = append(f.queries, Query{Tenant: "acme", User: "u1", Text: "recommend a dish", K: 10})
	// the index answers exactly what a full scan answers
	var scan []time.Duration
	for _, q := range f.queries[:6] {
		t0 := time.Now()
		want, err := e.scanRecall(f.r, q)
		if err != nil {
			b.Fatal(err)
		}
		scan = append(scan, time.Since(t0))
		got, err := e.Recall(f.r, q)
		if err != nil {
			b.Fatal(err)
		}
		if hitsString(got) != hitsString(want) {
			b.Fatalf("%q: index and scan differ:\n%s\n%s", q.Text, hitsString(got), hitsString(want))
		}
	}
	f.scanP50, f.scanP99 = percentile(scan, 50), percentile(scan, 99)
	f.buildDur = time.Since(start)
	b.Logf("fixture: %d records built in %v; full scan p50 %v p99 %v", benchRecords, f.buildDur, f.scanP50, f.scanP99)
	return f
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(min(i, len(s))-1, 0)]
}

// BenchmarkRecall measures recall through the index over 100,000 records of
// one user and reports its p50/p99 and their ratio to a full scan.
func BenchmarkRecall(b *testing.B) {
	f := benchSetup(b)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := f.e.Recall(f.r, f.queries[i%len(f.queries)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	p50, p99 := percentile(lat, 50), percentile(lat, 99)
	b.ReportMetric(float64(p50.Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(p99.Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(p50)/float64(f.scanP50), "p50-ratio")
	b.ReportMetric(float64(p99)/float64(f.scanP99), "p99-ratio")
}

// BenchmarkRawScan measures only reading every record of the user, without
// decoding or scoring them: the floor of any full scan.
func BenchmarkRawScan(b *testing.B) {
	f := benchSetup(b)
	k := keysFor("acme", "u1")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := f.r.Scan(k.recAll(), func(_, v []byte) error { n += len(v); return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFullScan measures the same queries answered by scanning every
// record of the user.
func BenchmarkFullScan(b *testing.B) {
	f := benchSetup(b)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := f.e.scanRecall(f.r, f.queries[i%len(f.queries)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 50).Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(percentile(lat, 99).Nanoseconds()), "p99-ns")
}

// TestEpisodeRetrieval: a conversation's turns are recalled by what a
// question asks, the turn that answers it among the first three.
func TestEpisodeRetrieval(t *testing.T) {
	turns := []string{
		"Hey Mel! Good to see you! How have you been?",
		"I went to a LGBTQ support group yesterday and it was so powerful.",
		"Wow, that's cool, Caroline! What happened that was so awesome?",
		"The transgender stories were so inspiring! I was so happy and thankful for all the support.",
		"I'm thinking of working in counseling and mental health, helping people with similar issues.",
		"I ran a charity race for mental health last Saturday, 20 May 2023.",
		"We painted a sunrise over the lake together with the kids.",
		"My kids love dinosaurs, we went to the natural history museum.",
		"I'm planning to go camping in the mountains next month.",
		"Melanie has been playing the clarinet since she was a kid.",
		"I adopted a puppy named Oscar two weeks ago!",
		"Did you see the new pottery class schedule? Mine starts on Tuesday.",
		"我们上周去了杭州西湖，风景特别美。",
		"The meeting with the adoption agency went well; they approved our application.",
	}
	questions := []struct {
		q    string
		want int
	}{
		{"When did Caroline go to the LGBTQ support group?", 1},
		{"What career is Caroline considering?", 4},
		{"When did Melanie run a charity race?", 5},
		{"What did Melanie paint?", 6},
		{"What do Melanie's kids like?", 7},
		{"Where is she going camping?", 8},
		{"What instrument does Melanie play?", 9},
		{"What is the name of the puppy?", 10},
		{"When does the pottery class start?", 11},
		{"上周去了哪里？", 12},
		{"How did the adoption agency meeting go?", 13},
	}
	e := NewEngine(Config{}, nil)
	s := newMapStore()
	at := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC).UnixNano()
	for i, text := range turns {
		ev := &events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "conv1", User: "caroline", At: at + int64(i)*int64(24*time.Hour),
			Body: &events.UserMessage{ID: fmt.Sprintf("D1:%d", i), Text: text}}
		if err := s.apply(e, ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range questions {
		res, err := e.Recall(s, Query{Tenant: "conv1", User: "caroline", Text: q.q, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("D1:%d", q.want)
		found := false
		for _, h := range res.Records {
			found = found || h.Record.ID == want || h.Record.Origin == want
		}
		if !found {
			t.Errorf("%q: want %s in %s", q.q, want, hitsString(res))
		}
	}
}

func TestOpBudgetTokens(t *testing.T) {
	q, err := (&Op{Tenant: "acme", User: "u", Query: "x", BudgetTokens: 64}).ToQuery()
	if err != nil || q.BudgetTokens != 64 {
		t.Fatalf("ToQuery: %+v, %v", q, err)
	}
	if _, err := (&Op{Tenant: "acme", User: "u", BudgetTokens: -1}).ToQuery(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a negative budget: %v, want ErrInvalid", err)
	}
}
