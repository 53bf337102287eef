package bench

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory"
	"github.com/toolstream/toolstream/projector"
)

// MemoryFixture is one user's long-term memory of many records, built
// through the memory projection (projector.Local: the runner's own apply
// and commit path, without a bus), and the questions asked of it.
type MemoryFixture struct {
	Engine  *memory.Engine
	Queries []memory.Query
	Records int
	Build   time.Duration

	local *projector.Local
}

var benchFoods = []string{"spicy food", "sushi", "peanuts", "coffee", "tea", "garlic", "seafood", "pizza"}

// NewMemoryFixture builds records records of user u1 of tenant acme in dir:
// every tenth a preference stated in a user message, the others episodes of
// 8 to 20 words drawn from a Zipf vocabulary of 5,000 words; one simulated
// minute apart. Queries are 50 questions of two or three middle-frequency
// words and one that names no stored word. Deterministic (seeded).
func NewMemoryFixture(ctx context.Context, dir string, records int) (*MemoryFixture, error) {
	start := time.Now()
	rng := rand.New(rand.NewSource(1))
	vocab := make([]string, 5000)
	for i := range vocab {
		// letters only, ending in 'q', so that neither stop words nor
		// stemming touch them
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
	e := memory.NewEngine(memory.Config{QuotaPerUser: -1}, nil)
	l, err := projector.NewLocal(dir, memory.NewProjection(e))
	if err != nil {
		return nil, err
	}
	f := &MemoryFixture{Engine: e, Records: records, local: l}
	subj, _ := events.MemorySubject("acme", "u1")
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	const batchMax = 1000
	var batch []*projector.Msg
	for i := range records {
		var body events.Body
		if i%10 == 0 {
			body = &events.UserMessage{ID: fmt.Sprintf("m%d", i), Text: fmt.Sprintf("I love %s %s", vocab[zipf.Uint64()], benchFoods[i%len(benchFoods)])}
		} else {
			ws := make([]string, 8+rng.Intn(12))
			for j := range ws {
				ws[j] = vocab[zipf.Uint64()]
			}
			body = &events.MemoryObserved{Observation: events.Observation{ID: fmt.Sprintf("t%d", i), Kind: "episode", Text: strings.Join(ws, " ")}}
		}
		data, err := events.Encode(&events.Event{ID: fmt.Sprintf("e%d", i), Tenant: "acme", User: "u1", At: at + int64(i)*int64(time.Minute), Body: body})
		if err != nil {
			l.Close()
			return nil, err
		}
		batch = append(batch, &projector.Msg{Seq: uint64(i + 1), Subject: subj, Time: at, Data: data})
		if len(batch) == batchMax || i == records-1 {
			if _, err := l.Apply(ctx, batch...); err != nil {
				l.Close()
				return nil, err
			}
			batch = batch[:0]
		}
	}
	if rj, err := l.Runner().Rejections(); err != nil || len(rj) > 0 {
		l.Close()
		return nil, fmt.Errorf("bench: memory fixture: %d rejections: %v", len(rj), err)
	}
	// a steady state, as a long-running store would be
	if err := l.Runner().DB().Compact(ctx, []byte("s/acme/"), []byte("s/acme0"), true); err != nil {
		l.Close()
		return nil, err
	}
	for i := 0; i < 50; i++ {
		ws := make([]string, 2+i%2)
		for j := range ws {
			ws[j] = vocab[20+rng.Intn(1000)]
		}
		f.Queries = append(f.Queries, memory.Query{Tenant: "acme", User: "u1", Text: strings.Join(ws, " "), K: 10})
	}
	f.Queries = append(f.Queries, memory.Query{Tenant: "acme", User: "u1", Text: "recommend a dish", K: 10})
	f.Build = time.Since(start)
	return f, nil
}

// View returns a snapshot of the fixture's view; close it.
func (f *MemoryFixture) View() *projector.View { return f.local.Runner().View() }

// Close closes the fixture's view.
func (f *MemoryFixture) Close() error { return f.local.Close() }

// Recall times one recall of query i (modulo the queries).
func (f *MemoryFixture) Recall(r projector.Reader, i int) (time.Duration, error) {
	t0 := time.Now()
	_, err := f.Engine.Recall(r, f.Queries[i%len(f.Queries)])
	return time.Since(t0), err
}

// Scan times the full scan a recall without the index would start with:
// every active record of the user read and decoded (Engine.List), before
// any scoring. It is a floor under any scan-based recall.
func (f *MemoryFixture) Scan(r projector.Reader) (time.Duration, error) {
	t0 := time.Now()
	recs, err := f.Engine.List(r, "acme", "u1", false)
	if err == nil && len(recs) == 0 && f.Records > 0 {
		err = fmt.Errorf("bench: full scan found no records")
	}
	return time.Since(t0), err
}

// MemoryResult holds recall and full-scan latency samples.
type MemoryResult struct {
	Records      int
	Build        time.Duration
	Recall, Scan []time.Duration
}

// MemoryRecall builds a fixture of records records in dir and measures it
// (Measure).
func MemoryRecall(ctx context.Context, dir string, records, samples int) (MemoryResult, error) {
	f, err := NewMemoryFixture(ctx, dir, records)
	if err != nil {
		return MemoryResult{}, err
	}
	defer f.Close()
	return f.Measure(ctx, samples)
}

// Measure takes samples recall latencies and max(5, samples/10) (at most
// 50) full-scan latencies on one snapshot of the fixture.
func (f *MemoryFixture) Measure(ctx context.Context, samples int) (MemoryResult, error) {
	v := f.View()
	defer v.Close()
	res := MemoryResult{Records: f.Records, Build: f.Build}
	for i := range max(samples, 1) {
		d, err := f.Recall(v, i)
		if err != nil {
			return res, err
		}
		res.Recall = append(res.Recall, d)
	}
	for range min(max(5, samples/10), 50) {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		d, err := f.Scan(v)
		if err != nil {
			return res, err
		}
		res.Scan = append(res.Scan, d)
	}
	return res, nil
}
