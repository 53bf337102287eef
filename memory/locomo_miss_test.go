package memory

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// dumpMiss writes to w, for a LoCoMo question recall missed
// (TOOLSTREAM_LOCOMO_MISSES), what it takes to see why: each gold turn's
// text and the turn said before it, its rank (by source) in the fused
// ranking, in the lexical one and by each signal alone (word vectors,
// sentence vector), its scores against the best, whether the question
// asks when and the turn says a time, and the record recall put first.
// It reads the engine as the test left it and changes nothing.
func dumpMiss(w io.Writer, e *Engine, store *mapStore, write, conv string, qa locomoQA, q Query, res Result, m Matcher) error {
	recs, err := e.List(store, q.Tenant, q.User, false)
	if err != nil {
		return err
	}
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].ObservedAt != recs[j].ObservedAt {
			return recs[i].ObservedAt < recs[j].ObservedAt
		}
		return recs[i].ID < recs[j].ID
	})
	turnOf := func(r *Record) string { t, _, _ := strings.Cut(r.ID, "#"); return t }
	// rankOf is the 1-based rank of the first gold source in hits (by
	// source, as K counts), 0 when none is there
	rankOf := func(hits []Hit) (int, float64) {
		seen := map[string]bool{}
		for _, h := range hits {
			s := source(&h.Record)
			if !seen[s] {
				seen[s] = true
			}
			if qa.evidence[turnOf(&h.Record)] {
				return len(seen), h.Score
			}
		}
		return 0, 0
	}
	wide := func(q Query) (Result, error) {
		q.K, q.BudgetTokens = KMax, math.MaxInt32
		return e.Recall(store, q)
	}
	fused, err := wide(q)
	if err != nil {
		return err
	}
	lq := q
	lq.Matcher, lq.Vector, lq.Model = nil, nil, ""
	lex, err := wide(lq)
	if err != nil {
		return err
	}
	fr, fs := rankOf(fused.Records)
	lr, ls := rankOf(lex.Records)
	var best, lbest float64
	if len(fused.Records) > 0 {
		best = fused.Records[0].Score
	}
	if len(lex.Records) > 0 {
		lbest = lex.Records[0].Score
	}
	// each signal alone over every record
	match := m.Prepare(q.Text)
	rc := &recall{e: e, r: store, k: keysFor(q.Tenant, q.User), q: q}
	vecs, err := rc.storedVectors()
	if err != nil {
		return err
	}
	mv := make([]float64, len(recs))
	cv := make([]float64, len(recs))
	sum, n := 0.0, 0
	for i := range recs {
		mv[i] = match(recs[i].Text)
		cv[i] = math.NaN()
		if x, ok := vecs[recs[i].ID]; ok && len(q.Vector) > 0 {
			cv[i] = cosine(q.Vector, x.Vector)
			sum += cv[i]
			n++
		}
	}
	rankBy := func(xs []float64, i int) int {
		r := 1
		for j, x := range xs {
			if x > xs[i] && turnOf(&recs[j]) != turnOf(&recs[i]) {
				r++
			}
		}
		return r
	}
	fmt.Fprintf(w, "== %s %s cat %d when=%v: %s\n", write, conv, qa.category, asksWhen(q.Text), q.Text)
	fmt.Fprintf(w, "   fused rank %d (score %.3f of best %.3f), lexical rank %d (%.3f of %.3f)\n", fr, fs, best, lr, ls, lbest)
	golds := slices.Sorted(func(yield func(string) bool) {
		for k := range qa.evidence {
			if !yield(k) {
				return
			}
		}
	})
	for _, g := range golds {
		for i := range recs {
			if turnOf(&recs[i]) != g {
				continue
			}
			c := "-"
			if !math.IsNaN(cv[i]) {
				c = fmt.Sprintf("%.3f (rank %d, mean %.3f)", cv[i], rankBy(cv, i), sum/float64(max(n, 1)))
			}
			fmt.Fprintf(w, "   gold %s: words %.3f (rank %d), sentence %s, says time %v, %d words: %s\n",
				recs[i].ID, mv[i], rankBy(mv, i), c, saysWhen(recs[i].Text), len(strings.Fields(recs[i].Text)), recs[i].Text)
			if i > 0 {
				fmt.Fprintf(w, "     before %s: %s\n", recs[i-1].ID, recs[i-1].Text)
			}
			if i+1 < len(recs) {
				fmt.Fprintf(w, "     after %s: %s\n", recs[i+1].ID, recs[i+1].Text)
			}
		}
	}
	if len(res.Records) > 0 {
		fmt.Fprintf(w, "   first %s: %s\n", res.Records[0].Record.ID, res.Records[0].Record.Text)
	}
	return nil
}
