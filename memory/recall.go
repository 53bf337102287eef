package memory

import (
	"github.com/toolstream/toolstream/internal/lang"

	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// Query asks for one user's memories.
type Query struct {
	Tenant, User string
	Text         string   // what the memories should be about; empty: the most valuable ones
	At           int64    // query time, Unix ns: validity and recency are judged then; 0 = the user's latest event time
	AsOf         int64    // if set: what held at AsOf, as it was known then (learnt by then, valid then, not yet superseded)
	K            int      // messages whose records to return at most (a record of a message already returned does not count; KMax records in all); 0 = Config.K; capped at KMax
	History      bool     // also superseded, expired and cold records (the current version of each)
	Scopes       []string // permission scopes the caller holds
	// Vector, if set, is the query's embedding by Model (memory/embed):
	// records with a vector of that model are ranked by it too, and the
	// two rankings are fused (hybrid recall). Ignored with AsOf or
	// History. Without it recall is lexical.
	Vector []float32
	Model  string
	// Background, if set, holds the vectors by Model of the background
	// sentences (Background, background.go): recall by Vector counts a
	// record's cosine by how far it stands above the user's records and
	// these together, so a user with one or two records is not judged
	// against their own few. Nil: against the user's records alone.
	Background [][]float32
	// Matcher, if set, scores each active record's text against Text by
	// meaning (memory/embed/local: word vectors); that ranking is fused
	// with the lexical one (matched). It takes the place of Vector.
	// Ignored with AsOf or History.
	Matcher Matcher
	// BudgetTokens bounds the estimated tokens (EstimateTokens) of the
	// records' texts returned, best first; the first record is always
	// returned. 0: Config.RecallBudgetBytes bounds them instead.
	BudgetTokens int
}

// Result is what a recall found. Records are ranked best first. Conflicts
// are the records about the query that need confirmation: two statements
// of one slot made at the same time, which Toolstream will not order.
type Result struct {
	Records   []Hit
	Conflicts []Hit
}

// Hit is one recalled record and its score.
type Hit struct {
	Record Record
	Score  float64
}

// Recall returns the records of q.User of q.Tenant that are about q.Text.
//
// Hard filters come first — tenant, user, permission (a record with a
// Permission is returned only to a caller whose Scopes hold it), validity
// at the query time, status (active; needs_confirmation go to Conflicts) —
// then ranking: BM25 over the text and slot (through the inverted index,
// so only the posting lists of the query's terms are read), times quality
// (confidence, recency with Config.HalfLife, use, and a live constraint
// over a preference), then again with the words the best record lends
// (feedback: at most fbTerms more posting lists, each read only while
// its word stays rare), bounded by K and Config.RecallBudgetBytes. With
// History, superseded, expired and cold records are returned too; with
// AsOf, the versions that held at AsOf as known then.
//
// It returns ErrNoTenant or ErrNoUser for a query without a tenant or
// user: never "all tenants". Other errors come from r.
func (e *Engine) Recall(r projector.Reader, q Query) (Result, error) {
	k, err := owner(q.Tenant, q.User)
	if err != nil {
		return Result{}, fmt.Errorf("memory: recall: %w", err)
	}
	m, err := readMeta(r, k)
	if err != nil {
		return Result{}, err
	}
	rc := &recall{e: e, r: r, k: k, q: q, m: m, now: q.At, limit: q.K}
	if rc.now == 0 {
		rc.now = m.Clock
	}
	if q.AsOf != 0 {
		rc.now = q.AsOf
	}
	if rc.limit <= 0 {
		rc.limit = e.cfg.K
	}
	rc.limit = min(rc.limit, KMax)
	terms := queryTerms(q.Text)
	var res Result
	switch {
	case q.Matcher != nil && q.AsOf == 0 && !q.History:
		res, err = rc.matched(terms)
	case len(q.Vector) > 0 && q.Model != "" && q.AsOf == 0 && !q.History:
		res, err = rc.hybrid(terms)
	case len(terms) == 0:
		res, err = rc.browse()
	default:
		res, err = rc.search(terms)
	}
	if err != nil {
		return Result{}, err
	}
	if q.BudgetTokens > 0 {
		res.Records = budgetTokens(res.Records, q.BudgetTokens)
	} else {
		res.Records = e.budget(res.Records)
	}
	return res, nil
}

// Get returns the current version of record id, with the observations
// consolidated into it (MergedFrom). It returns ErrNotFound,
// ErrNoTenant or ErrNoUser; for a forgotten id, ErrForgotten (which is also
// ErrNotFound) and a record with only its id and status forgotten.
func (e *Engine) Get(r projector.Reader, tenant, user, id string) (Record, error) {
	vs, clock, err := e.versionsOf(r, tenant, user, id)
	if errors.Is(err, ErrForgotten) {
		return Record{Tenant: tenant, User: user, ID: id, Status: StatusForgotten}, err
	}
	if err != nil {
		return Record{}, err
	}
	d := e.display(vs[len(vs)-1], clock)
	k := keysFor(tenant, user)
	err = r.Scan(k.aliases(id), func(key, _ []byte) error {
		d.MergedFrom = append(d.MergedFrom, k.lastComponent(key))
		return nil
	})
	return d, err
}

// History returns every version of record id, oldest first. It returns
// ErrNotFound, ErrForgotten, ErrNoTenant or ErrNoUser.
func (e *Engine) History(r projector.Reader, tenant, user, id string) ([]Record, error) {
	vs, clock, err := e.versionsOf(r, tenant, user, id)
	if err != nil {
		return nil, err
	}
	out := make([]Record, len(vs))
	for i, v := range vs {
		out[i] = e.display(v, clock)
	}
	return out, nil
}

func (e *Engine) versionsOf(r projector.Reader, tenant, user, id string) ([]*Record, int64, error) {
	k, err := owner(tenant, user)
	if err != nil {
		return nil, 0, fmt.Errorf("memory: get %q: %w", id, err)
	}
	if id, err = statementID(r, k, id); err != nil { // "<m>#1" is "<m>"
		return nil, 0, err
	}
	vs, err := versions(r, k, id)
	if err != nil {
		return nil, 0, err
	}
	if len(vs) == 0 {
		var e idEntry
		if b, ok, err := r.Get(k.id(id)); err != nil {
			return nil, 0, err
		} else if ok && decodeInto(b, &e) == nil && (e.Tomb || e.Erased) {
			return nil, 0, fmt.Errorf("memory: get %q of tenant %s: %w", id, tenant, ErrForgotten)
		}
		return nil, 0, fmt.Errorf("memory: get %q of tenant %s: %w", id, tenant, ErrNotFound)
	}
	m, err := readMeta(r, k)
	return vs, m.Clock, err
}

// List returns the current version of every record of the user, by id:
// the active ones and those that need confirmation, or, with
// includeInactive, every one (superseded, expired, cold). It returns
// ErrNoTenant or ErrNoUser.
func (e *Engine) List(r projector.Reader, tenant, user string, includeInactive bool) ([]Record, error) {
	k, err := owner(tenant, user)
	if err != nil {
		return nil, fmt.Errorf("memory: list: %w", err)
	}
	m, err := readMeta(r, k)
	if err != nil {
		return nil, err
	}
	var out []Record
	err = heads(r, k, func(h *Record) error {
		d := e.display(h, m.Clock)
		if includeInactive || d.Status == StatusActive || d.Status == StatusNeedsConfirmation {
			out = append(out, d)
		}
		return nil
	})
	return out, err
}

// owner checks a query's tenant and user and returns their keys.
func owner(tenant, user string) (keys, error) {
	if tenant == "" {
		return keys{}, ErrNoTenant
	}
	if err := events.ValidTenant(tenant); err != nil {
		return keys{}, fmt.Errorf("%w: %w", ErrNoTenant, err)
	}
	if user == "" {
		return keys{}, ErrNoUser
	}
	return keysFor(tenant, user), nil
}

func readMeta(r projector.Reader, k keys) (meta, error) {
	var m meta
	b, ok, err := r.Get(k.meta())
	if err != nil || !ok {
		return m, err
	}
	return m, decodeInto(b, &m)
}

// heads calls fn with the current version of every record, by id.
func heads(r projector.Reader, k keys, fn func(*Record) error) error {
	var last *Record
	err := r.Scan(k.recAll(), func(_, value []byte) error {
		rec, err := decodeRecord(value)
		if err != nil {
			return err
		}
		if last != nil && last.ID != rec.ID {
			if err := fn(last); err != nil {
				return err
			}
		}
		last = rec
		return nil
	})
	if err != nil || last == nil {
		return err
	}
	return fn(last)
}

// coldAt reports whether a record last said or recalled at touched has
// gone cold by now: Config.ColdAfter has passed without a statement or a
// recall hit. A constraint never goes cold by time: it keeps the user
// safe until lifted or ended.
func (e *Engine) coldAt(constraint bool, touched, now int64) bool {
	return e.cfg.ColdAfter > 0 && !constraint && touched <= now-int64(e.cfg.ColdAfter)
}

// display is the record as a reader sees it at now: a record whose validity
// ended is expired even before an event swept it, and an open-ended one
// ("these days") last said a review time ago or more needs confirmation
// (ReviewAt says since when). The review time is the tenant's policy, read
// at the query: changing it needs no replay.
func (e *Engine) display(r *Record, now int64) Record {
	d := *r
	live := d.Status == StatusActive || d.Status == StatusNeedsConfirmation || d.Status == StatusCold
	if live && d.ValidUntil != 0 && d.ValidUntil <= now {
		d.Status = StatusExpired
		return d
	}
	if d.Status == StatusActive && e.coldAt(d.Kind == KindConstraint, d.touched(), now) {
		d.Status = StatusCold
		return d
	}
	if d.OpenEnded {
		d.ReviewAt = d.ObservedAt + int64(e.ReviewAfter(d.Tenant))
		if d.Status == StatusActive && d.ReviewAt <= now {
			d.Status = StatusNeedsConfirmation
		}
	}
	return d
}

type recall struct {
	e     *Engine
	r     projector.Reader
	k     keys
	q     Query
	m     meta
	now   int64
	limit int
}

const (
	drop = iota
	toRecords
	toConflicts
)

// classify applies the hard filters to one record version: drop it, or
// return it as a record or a conflict.
func (rc *recall) classify(v *Record) int {
	if v.Permission != "" && !slices.Contains(rc.q.Scopes, v.Permission) {
		return drop
	}
	switch {
	case rc.q.AsOf != 0:
		if !v.heldAt(rc.q.AsOf) {
			return drop
		}
	case rc.q.History:
	default:
		if !v.validAt(rc.now) || v.Status != StatusActive && v.Status != StatusNeedsConfirmation ||
			rc.e.coldAt(v.Kind == KindConstraint, v.touched(), rc.now) {
			return drop
		}
	}
	if v.Status == StatusNeedsConfirmation {
		return toConflicts
	}
	return toRecords
}

// quality weighs a record by confidence, recency, use and, for a live
// constraint, its precedence over preferences; it is in (0, 1.875].
func (rc *recall) quality(v *Record) float64 {
	live := v.Status == StatusActive
	if rc.q.AsOf != 0 {
		live = v.heldAt(rc.q.AsOf) // in force then, whatever lifted it since
	}
	return quality(v.Confidence, v.touched(), v.UseCount, v.Kind == KindConstraint && live,
		v.Kind == KindEpisode && isQuestion(v.Text), rc.now, rc.e.cfg.HalfLife)
}

// questionWeight is the weight of an episode that asks something.
const questionWeight = 0.5

func quality(confidence float64, observedAt int64, useCount int, liveConstraint, question bool, now int64, halfLife time.Duration) float64 {
	age := max(now-observedAt, 0)
	// relevance leads: age takes at most a quarter off, so an old turn that
	// answers the question still beats a new one that merely shares a word
	recency := 0.75 + 0.25*math.Exp2(-float64(age)/float64(halfLife))
	conf := 0.5 + 0.5*confidence
	use := 1 + math.Min(0.5, 0.1*math.Log1p(float64(max(useCount-1, 0))))
	kind := 1.0
	if liveConstraint {
		// in force until lifted or its validity ends: it does not fade with
		// age, and it ranks over a preference of the same relevance
		kind, recency = 1.25, 1
	}
	if question {
		kind = questionWeight
	}
	return conf * recency * use * kind
}

// scorer holds the collection statistics of one query.
type scorer struct {
	terms []qterm
	dfs   []int
	n     int
	avgdl float64
}

// score is the BM25 score of a document given its terms.
func (s *scorer) score(tf map[string]int, dl int) float64 {
	var sum float64
	for i, t := range s.terms {
		if f := tf[t.term]; f > 0 {
			sum += t.w * bm25(f, dl, idf(s.dfs[i], s.n), s.avgdl)
		}
	}
	return sum
}

func docScore(s *scorer, v *Record) float64 {
	terms, dl := docTerms(v)
	tf := make(map[string]int, len(terms))
	for _, t := range terms {
		tf[t.term] = t.tf
	}
	return s.score(tf, dl)
}

// cand is a record of the user that has some of the query's terms.
type cand struct {
	id    string
	p     posting // of its current version
	bm    float64 // BM25
	score float64 // BM25 times quality
}

// candHeap pops the best candidate first (score, then id).
type candHeap []*cand

func (h candHeap) Len() int { return len(h) }
func (h candHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score
	}
	if h[i].p.observedAt != h[j].p.observedAt {
		return h[i].p.observedAt > h[j].p.observedAt // recency breaks ties
	}
	return h[i].id < h[j].id
}

// repeats reports whether v is an episode that says word for word what a
// record already recalled says: the same turn said again adds nothing to
// an answer and would push other records out of the top K.
func repeats(hits []Hit, v *Record) bool {
	if v.Kind != KindEpisode {
		return false
	}
	for _, h := range hits {
		if h.Record.Kind == KindEpisode && strings.EqualFold(strings.TrimSpace(h.Record.Text), strings.TrimSpace(v.Text)) {
			return true
		}
	}
	return false
}
func (h candHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)   { *h = append(*h, x.(*cand)) }
func (h *candHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// search ranks the records that contain the query's terms. It reads only
// the posting lists of those terms; a posting carries everything the
// ranking needs, so only the records returned (and those with a
// permission to check) are loaded. AsOf loads every version of every
// candidate: it is an audit, not the hot path.
func (rc *recall) search(terms []qterm) (Result, error) {
	if rc.m.Docs == 0 {
		return Result{}, nil
	}
	s := &scorer{terms: terms, dfs: make([]int, len(terms)), n: rc.m.Docs, avgdl: float64(rc.m.Len) / float64(rc.m.Docs)}
	if s.avgdl == 0 {
		s.avgdl = 1
	}
	defaultMode := rc.q.AsOf == 0 && !rc.q.History
	var cands []*cand
	byID := map[string]*cand{} // by escaped id
	type hit struct {
		id string // escaped
		p  posting
	}
	var hits []hit
	// accumulate adds the BM25 of s.terms[from:] to the candidates,
	// reading the posting list of each term; a term lent by feedback
	// (from nq on) counts only where it tells records apart (fbIdfMin).
	nq := len(s.terms)
	dfMax := fbDfMax(s.n)
	tooCommon := errors.New("too common")
	accumulate := func(from int) error {
		for i := from; i < len(s.terms); i++ {
			t := s.terms[i]
			hits = hits[:0]
			prefix := rc.k.ixTerm(t.term)
			err := rc.r.Scan(prefix, func(key, value []byte) error {
				s.dfs[i]++
				if i >= nq && s.dfs[i] > dfMax {
					return tooCommon // a lent word that does not tell records apart: read no further
				}
				p, ok := decodePosting(value)
				if !ok {
					return fmt.Errorf("memory: bad posting %q", key)
				}
				if defaultMode && (p.status != StatusActive || p.validFrom > rc.now ||
					p.validUntil != 0 && p.validUntil <= rc.now || rc.e.coldAt(p.constraint, p.observedAt, rc.now)) {
					return nil
				}
				hits = append(hits, hit{string(key[len(prefix):]), p})
				return nil
			})
			if err == tooCommon {
				continue
			}
			if err != nil {
				return err
			}
			w := idf(s.dfs[i], s.n)
			for _, h := range hits {
				c := byID[h.id]
				if c == nil {
					c = &cand{id: unesc(h.id), p: h.p}
					byID[h.id] = c
					cands = append(cands, c)
				}
				c.bm += t.w * bm25(h.p.tf, h.p.dl, w, s.avgdl)
			}
		}
		return nil
	}
	if err := accumulate(0); err != nil {
		return Result{}, err
	}
	if rc.q.AsOf != 0 {
		return rc.searchAsOf(s, cands)
	}
	rescore := func() {
		for _, c := range cands {
			c.score = c.bm * quality(c.p.confidence, c.p.observedAt, c.p.useCount,
				c.p.constraint && c.p.status == StatusActive, c.p.question, rc.now, rc.e.cfg.HalfLife)
		}
	}
	rescore()
	exp, err := rc.feedback(s, cands)
	if err != nil {
		return Result{}, err
	}
	if len(exp) > 0 {
		n := len(s.terms)
		s.terms = append(s.terms, exp...)
		s.dfs = append(s.dfs, make([]int, len(exp))...)
		if err := accumulate(n); err != nil {
			return Result{}, err
		}
		rescore()
	}
	h := candHeap(cands)
	heap.Init(&h)
	var records, conflicts []Hit
	pick := newPicker(rc.limit)
	for h.Len() > 0 && (!pick.done || !defaultMode && len(conflicts) < rc.limit) {
		c := heap.Pop(&h).(*cand)
		conflict := c.p.status == StatusNeedsConfirmation
		if conflict && len(conflicts) >= rc.limit || !conflict && pick.done {
			continue // its list is full: no need to load it
		}
		v, err := load(rc.r, rc.k, c.id, c.p.version)
		if err != nil {
			return Result{}, err
		}
		if v == nil {
			return Result{}, fmt.Errorf("memory: posting of %q v%d has no record", c.id, c.p.version)
		}
		switch rc.classify(v) {
		case toRecords:
			if pick.done || repeats(records, v) || !pick.take(v) {
				continue
			}
			records = append(records, Hit{Record: rc.e.display(v, rc.now), Score: c.score})
		case toConflicts:
			conflicts = append(conflicts, Hit{Record: rc.e.display(v, rc.now), Score: c.score})
		}
	}
	if defaultMode {
		var err error
		q := &scorer{terms: s.terms[:nq], dfs: s.dfs[:nq], n: s.n, avgdl: s.avgdl} // the query's own words
		if conflicts, err = rc.openConflicts(q); err != nil {
			return Result{}, err
		}
	}
	return Result{Records: records, Conflicts: conflicts}, nil
}

// rrfK is the constant of reciprocal rank fusion (Cormack, Clarke and
// Büttcher, 2009): a record's fused score is the sum over the rankings it
// is in of 1/(rrfK + its rank), so neither BM25's scale nor the cosine's
// decides alone.
const rrfK = 60

// hybrid ranks by words and by vector, after the hard filters, and fuses
// the two rankings. The vector ranking reads the user's vectors of the
// query's model whose record version is current; each record it ranks is
// loaded and filtered as a lexical candidate is, then weighed by the
// cosine times quality.
func (rc *recall) hybrid(terms []qterm) (Result, error) {
	depth := min(max(3*rc.limit, 30), KMax)
	var lex Result
	if len(terms) > 0 {
		sub := *rc
		sub.limit = depth
		var err error
		if lex, err = sub.search(terms); err != nil {
			return Result{}, err
		}
	} else {
		var err error
		if lex.Conflicts, err = rc.openConflicts(nil); err != nil {
			return Result{}, err
		}
	}
	type vref struct {
		id  string
		vec vector
	}
	var refs []vref
	err := rc.r.Scan(rc.k.vecs(), func(key, value []byte) error {
		v, err := decodeVector(value)
		if err != nil {
			return err
		}
		if v.Model == rc.q.Model && len(v.Vector) == len(rc.q.Vector) {
			refs = append(refs, vref{rc.k.lastComponent(key), v})
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	var sem []Hit
	for _, f := range refs {
		cos := cosine(rc.q.Vector, f.vec.Vector)
		if cos <= 0 {
			continue
		}
		v, err := load(rc.r, rc.k, f.id, f.vec.Version)
		if err != nil {
			return Result{}, err
		}
		if v == nil || rc.classify(v) != toRecords {
			continue
		}
		sem = insertHit(sem, Hit{Record: rc.e.display(v, rc.now), Score: cos * rc.quality(v)}, depth)
	}
	var f fusion
	for _, list := range [][]Hit{lex.Records, sem} {
		for rank, h := range list {
			f.add(h, 1/float64(rrfK+rank+1))
		}
	}
	return Result{Records: f.top(rc.limit), Conflicts: lex.Conflicts}, nil
}

// fusion sums the scores several rankings give each record, keeping the
// order records were first seen in for ties.
type fusion struct {
	byID  map[string]*Hit
	order []string
}

// add adds s to h's record's fused score.
func (f *fusion) add(h Hit, s float64) {
	if f.byID == nil {
		f.byID = map[string]*Hit{}
	}
	got := f.byID[h.Record.ID]
	if got == nil {
		c := h
		c.Score = 0
		got = &c
		f.byID[h.Record.ID] = got
		f.order = append(f.order, h.Record.ID)
	}
	got.Score += s
}

// top returns the best limit records by fused score, a record that
// repeats one already taken left out.
func (f *fusion) top(limit int) []Hit {
	out := make([]Hit, 0, len(f.order))
	for _, id := range f.order {
		out = append(out, *f.byID[id])
	}
	sort.Slice(out, func(i, j int) bool { return hitLess(out[i], out[j]) })
	var records []Hit
	pick := newPicker(limit)
	for _, h := range out {
		if !repeats(records, &h.Record) && pick.take(&h.Record) {
			records = append(records, h)
		}
	}
	return records
}

// cosine is the cosine similarity of a and b (0 if either is zero).
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// searchAsOf ranks every version of the candidates that held at q.AsOf,
// each by its own text.
func (rc *recall) searchAsOf(s *scorer, cands []*cand) (Result, error) {
	sort.Slice(cands, func(i, j int) bool { return cands[i].id < cands[j].id })
	var res Result
	for _, c := range cands {
		vs, err := versions(rc.r, rc.k, c.id)
		if err != nil {
			return Result{}, err
		}
		for _, v := range vs {
			where := rc.classify(v)
			if where == drop {
				continue
			}
			bm := docScore(s, v)
			if bm <= 0 {
				continue
			}
			h := Hit{Record: rc.e.display(v, rc.now), Score: bm * rc.quality(v)}
			if where == toConflicts {
				res.Conflicts = insertHit(res.Conflicts, h, rc.limit)
			} else {
				res.Records = insertHit(res.Records, h, KMax)
			}
		}
	}
	res.Records = rc.pick(res.Records)
	return res, nil
}

// openConflicts returns the records that need confirmation and are about
// the query (all of them when s is nil).
func (rc *recall) openConflicts(s *scorer) ([]Hit, error) {
	var out []Hit
	var refs []struct {
		id string
		v  int
	}
	err := rc.r.Scan(rc.k.cfs(), func(key, value []byte) error {
		v, _ := uvarint(value)
		refs = append(refs, struct {
			id string
			v  int
		}{rc.k.lastComponent(key), v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, ref := range refs {
		v, err := load(rc.r, rc.k, ref.id, ref.v)
		if err != nil {
			return nil, err
		}
		if v == nil || rc.classify(v) != toConflicts {
			continue
		}
		score := 1.0
		if s != nil {
			if score = docScore(s, v); score <= 0 {
				continue
			}
		}
		out = insertHit(out, Hit{Record: rc.e.display(v, rc.now), Score: score * rc.quality(v)}, rc.limit)
	}
	return out, nil
}

// browse answers a query without terms: the most valuable records.
// eachActive calls fn with each active record of the user, loaded at its
// current version: the active records are exactly the quota's value
// index. Browsing and recall by meaning both read them so.
func (rc *recall) eachActive(fn func(v *Record)) error {
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
		return err
	}
	for _, f := range refs {
		v, err := load(rc.r, rc.k, f.id, f.v)
		if err != nil {
			return err
		}
		if v != nil {
			fn(v)
		}
	}
	return nil
}

func (rc *recall) browse() (Result, error) {
	var res Result
	add := func(v *Record) {
		switch rc.classify(v) {
		case toRecords:
			res.Records = insertHit(res.Records, Hit{Record: rc.e.display(v, rc.now), Score: rc.quality(v)}, KMax)
		case toConflicts:
			res.Conflicts = insertHit(res.Conflicts, Hit{Record: rc.e.display(v, rc.now), Score: rc.quality(v)}, rc.limit)
		}
	}
	if rc.q.AsOf == 0 && !rc.q.History {
		if err := rc.eachActive(add); err != nil {
			return Result{}, err
		}
		var err error
		res.Conflicts, err = rc.openConflicts(nil)
		res.Records = rc.pick(res.Records)
		return res, err
	}
	err := rc.r.Scan(rc.k.recAll(), func(_, value []byte) error {
		v, err := decodeRecord(value)
		if err != nil {
			return err
		}
		if rc.q.AsOf != 0 {
			add(v)
		}
		return nil
	})
	if err != nil || rc.q.AsOf != 0 {
		res.Records = rc.pick(res.Records)
		return res, err
	}
	err = heads(rc.r, rc.k, func(h *Record) error { add(h); return nil })
	res.Records = rc.pick(res.Records)
	return res, err
}

// pick keeps the ranked hits of the first rc.limit sources (picker).
func (rc *recall) pick(hits []Hit) []Hit {
	p := newPicker(rc.limit)
	out := hits[:0]
	for _, h := range hits {
		if p.take(&h.Record) {
			out = append(out, h)
		}
	}
	return out
}

// insertHit inserts h into hits, ranked by score then id, keeping at most
// limit.
func insertHit(hits []Hit, h Hit, limit int) []Hit {
	i := sort.Search(len(hits), func(i int) bool { return hitLess(h, hits[i]) })
	if i >= limit {
		return hits
	}
	hits = slices.Insert(hits, i, h)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

func hitLess(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Record.ObservedAt != b.Record.ObservedAt {
		return a.Record.ObservedAt > b.Record.ObservedAt
	}
	if a.Record.ID != b.Record.ID {
		return a.Record.ID < b.Record.ID
	}
	return a.Record.Version < b.Record.Version
}

// budget keeps the hits, best first, whose texts fit in the recall budget;
// the first always does.
func (e *Engine) budget(hits []Hit) []Hit {
	b := e.cfg.RecallBudgetBytes
	if b < 0 {
		return hits
	}
	var out []Hit
	used := 0
	for _, h := range hits {
		n := len(h.Record.Text)
		if len(out) > 0 && used+n > b {
			continue
		}
		used += n
		out = append(out, h)
	}
	return out
}

// budgetTokens keeps the hits, best first, whose texts' estimated tokens
// fit in budget; the first always does.
func budgetTokens(hits []Hit, budget int) []Hit {
	var out []Hit
	used := 0
	for _, h := range hits {
		n := EstimateTokens(h.Record.Text)
		if len(out) > 0 && used+n > budget {
			continue
		}
		used += n
		out = append(out, h)
	}
	return out
}

// EstimateTokens estimates how many tokens a model's tokenizer makes of
// text, without one (tokenizers differ by model): a CJK character is a
// token, a word of other letters or digits a token per four bytes begun,
// and any other visible character a token. It is deterministic and errs
// high for English prose (about 1.3 tokens a word where GPT-style
// tokenizers make 1.2–1.3).
func EstimateTokens(text string) int {
	n, word := 0, 0
	flush := func() {
		if word > 0 {
			n += (word + 3) / 4
			word = 0
		}
	}
	for _, r := range text {
		switch {
		case lang.IsCJK(r):
			flush()
			n++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			word += utf8.RuneLen(r)
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			n++
		}
	}
	flush()
	return n
}

// scanRecall is recall by a full scan of the user's records, without the
// index: the baseline the index is measured against and checked by. It
// answers default-mode queries with text only.
func (e *Engine) scanRecall(r projector.Reader, q Query) (Result, error) {
	k, err := owner(q.Tenant, q.User)
	if err != nil {
		return Result{}, err
	}
	terms := queryTerms(q.Text)
	if len(terms) == 0 || q.History || q.AsOf != 0 {
		return Result{}, errors.New("memory: scanRecall answers default-mode text queries only")
	}
	m, err := readMeta(r, k)
	if err != nil {
		return Result{}, err
	}
	rc := &recall{e: e, r: r, k: k, q: q, m: m, now: q.At, limit: q.K}
	if rc.now == 0 {
		rc.now = m.Clock
	}
	if rc.limit <= 0 {
		rc.limit = e.cfg.K
	}
	rc.limit = min(rc.limit, KMax)
	type doc struct {
		r  *Record
		tf map[string]int
		dl int
	}
	var docs []doc
	s := &scorer{terms: terms, dfs: make([]int, len(terms))}
	total := 0
	err = heads(r, k, func(h *Record) error {
		ts, dl := docTerms(h)
		tf := make(map[string]int, len(ts))
		for _, t := range ts {
			tf[t.term] = t.tf
		}
		for i, t := range terms {
			if tf[t.term] > 0 {
				s.dfs[i]++
			}
		}
		total += dl
		docs = append(docs, doc{h, tf, dl})
		return nil
	})
	if err != nil || len(docs) == 0 {
		return Result{}, err
	}
	s.n, s.avgdl = len(docs), float64(total)/float64(len(docs))
	if s.avgdl == 0 {
		s.avgdl = 1
	}
	rank := func() (res Result, all []Hit) {
		for _, d := range docs {
			where := rc.classify(d.r)
			if where == drop {
				continue
			}
			bm := s.score(d.tf, d.dl)
			if bm <= 0 {
				continue
			}
			h := Hit{Record: rc.e.display(d.r, rc.now), Score: bm * rc.quality(d.r)}
			if where == toConflicts {
				res.Conflicts = insertHit(res.Conflicts, h, rc.limit)
			} else {
				all = insertHit(all, h, len(docs))
			}
		}
		return res, all
	}
	res, all := rank()
	var lenders []lender
	for _, h := range all[:min(len(all), fbDocs)] {
		lenders = append(lenders, lender{h.Record.Text, h.Score})
	}
	if exp := lent(s.terms, lenders); len(exp) > 0 {
		for _, t := range exp {
			df := 0
			for _, d := range docs {
				if d.tf[t.term] > 0 {
					df++
				}
			}
			if df <= fbDfMax(s.n) {
				s.terms = append(s.terms, t)
				s.dfs = append(s.dfs, df)
			}
		}
		_, all = rank() // conflicts stay those about the query's own words
	}
	pick := newPicker(rc.limit)
	for _, h := range all {
		if !repeats(res.Records, &h.Record) && pick.take(&h.Record) {
			res.Records = append(res.Records, h)
		}
	}
	res.Records = e.budget(res.Records)
	return res, nil
}

// Pseudo-relevance feedback (relevance models, Lavrenko and Croft 2001;
// RM3): the best records of a first ranking lend their other words to the
// query at a lower weight, so that a turn which names the same thing in
// other words — a later session's change of plans ("the Kyoto trip moved
// to July" for "when are we flying to Kyoto?"), a dish named in one turn
// and its recipe in another — is found. Only records the caller may see
// (the hard filters) lend words.
const (
	fbDocs   = 1   // records that lend words
	fbTerms  = 16  // words they lend at most
	fbWeight = 0.5 // the weight of the words lent, at most (a query's own words weigh 1)
	fbIdfMin = 4   // a word lent counts only if at most about one record in 55 has it
)

// fbDfMax is the most records of n a lent word may be in: its idf is
// then at least fbIdfMin.
func fbDfMax(n int) int {
	e := math.Exp(fbIdfMin)
	return int(math.Floor((float64(n) + 1 - e/2) / e))
}

// feedback returns the expansion terms of the first ranking of cands
// (lent): the best fbDocs records the caller may see lend their words.
// A question the user asked lends too: "give me a quick paella recipe"
// names the dish their own turns are about.
func (rc *recall) feedback(s *scorer, cands []*cand) ([]qterm, error) {
	order := slices.Clone(cands)
	h := candHeap(order)
	sort.Slice(order, h.Less)
	var lenders []lender
	for _, c := range order {
		if len(lenders) == fbDocs || c.score <= 0 {
			break
		}
		v, err := load(rc.r, rc.k, c.id, c.p.version)
		if err != nil {
			return nil, err
		}
		if v != nil && rc.classify(v) == toRecords {
			lenders = append(lenders, lender{v.Text, c.score})
		}
	}
	return lent(s.terms, lenders), nil
}

// lender is a record of a first ranking that lends its words: its text
// and score.
type lender struct {
	text  string
	score float64
}

// lent returns the words the lenders (best first) lend a query of terms:
// each word of a lender's text (not its slot) that is not the query's,
// weighed by its share of the text and the lender's score relative to the
// best; the fbTerms heaviest, the heaviest at fbWeight, ties to the longer
// word (a CJK bigram over a character: the more specific), then by word.
func lent(query []qterm, lenders []lender) []qterm {
	inQuery := make(map[string]bool, len(query))
	for _, t := range query {
		inQuery[t.term] = true
	}
	weight := map[string]float64{}
	for _, l := range lenders {
		words := tokenize(l.text)
		for _, w := range words {
			if !inQuery[w] {
				weight[w] += l.score / lenders[0].score / float64(len(words))
			}
		}
	}
	out := make([]qterm, 0, len(weight))
	for t, w := range weight {
		out = append(out, qterm{t, w})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].w != out[j].w {
			return out[i].w > out[j].w
		}
		if len(out[i].term) != len(out[j].term) {
			return len(out[i].term) > len(out[j].term)
		}
		return out[i].term < out[j].term
	})
	out = out[:min(len(out), fbTerms)]
	if len(out) > 0 {
		top := out[0].w
		for i := range out {
			out[i].w = fbWeight * out[i].w / top
		}
	}
	return out
}
