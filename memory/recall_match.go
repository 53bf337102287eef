package memory

// Matcher scores how well a record's text answers a query by meaning, in
// [0, 1], the same for the same texts (memory/embed/local.Words: each
// query word's nearest word of the text by the shipped word vectors). An
// Embedder that is also a Matcher needs no vectors recorded: recall
// scores the record texts themselves at the query.
type Matcher interface {
	// Prepare reads query once and returns its scorer of texts.
	Prepare(query string) func(text string) float64
}

// matchWeight is the weight of the meaning ranking against the lexical
// one, whose best record scores 1. Chosen on LoCoMo (docs/evaluation.md)
// with an earlier Match (floor 0.5, every word): recall_any@10 was 0.684
// at 0.3 (0.681 lexical), 0.670 at 0.6, and 0.657 by reciprocal rank
// fusion (equal weights). Word vectors find a paraphrase, but alone they
// rank worse than words (0.574), so they add to the lexical ranking
// rather than vote as its equal.
const matchWeight = 0.3

// matched ranks by words and by meaning, after the hard filters, and
// adds the two scores: the lexical score over the best lexical one, and
// matchWeight times the match score (times quality). The meaning ranking
// reads every active record of the user (the value index: at most
// Config.QuotaPerUser), each loaded and filtered as a lexical candidate
// is. Conflicts are the lexical recall's.
func (rc *recall) matched(terms []qterm) (Result, error) {
	depth := min(max(3*rc.limit, 30), KMax)
	var lex Result
	var err error
	if len(terms) > 0 {
		sub := *rc
		sub.limit = depth
		if lex, err = sub.search(terms); err != nil {
			return Result{}, err
		}
	} else if lex.Conflicts, err = rc.openConflicts(nil); err != nil {
		return Result{}, err
	}
	type ref struct {
		id string
		v  int
	}
	var refs []ref
	if err := rc.r.Scan(rc.k.vals(), func(key, value []byte) error {
		v, _ := uvarint(value)
		refs = append(refs, ref{rc.k.lastComponent(key), v})
		return nil
	}); err != nil {
		return Result{}, err
	}
	var sem []Hit
	match := rc.q.Matcher.Prepare(rc.q.Text)
	for _, f := range refs {
		v, err := load(rc.r, rc.k, f.id, f.v)
		if err != nil {
			return Result{}, err
		}
		if v == nil || rc.classify(v) != toRecords {
			continue
		}
		m := match(v.Text)
		if m <= 0 {
			continue
		}
		sem = insertHit(sem, Hit{Record: rc.e.display(v, rc.now), Score: m * rc.quality(v)}, depth)
	}
	maxLex := 0.0
	for _, h := range lex.Records {
		maxLex = max(maxLex, h.Score)
	}
	var f fusion
	for _, h := range lex.Records {
		f.add(h, h.Score/maxLex)
	}
	for _, h := range sem {
		f.add(h, matchWeight*h.Score)
	}
	return Result{Records: f.top(rc.limit), Conflicts: lex.Conflicts}, nil
}
