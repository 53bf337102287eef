package memory

import (
	"math"
	"sort"
	"time"
)

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

// matched ranks by words and by meaning, after the hard filters: each
// record's own score is the lexical score (read KMax sources deep: a
// record past a shallower depth would score by meaning alone, however
// many of the query's words it has) over the best lexical one plus
// matchWeight times the match score (times quality), plus the sentence
// vectors' standing (addSentences; each record's cosine read with its
// message, readWithItsMessage, and with the turn before it:
// readWithTheTurnBefore), times 1+timeWeight for a
// record that says a time, or whose message does, when the query asks
// when (saidWhen, recall_time.go) and
// again for one said in the day, month or year the query names
// (namedPeriod, recall_period.go);
// then a record about the query takes context from the source said just
// before it (withContext). It reads every active record of the user (the
// value index: at most Config.QuotaPerUser), each loaded and filtered as
// a lexical candidate is. Conflicts are the lexical recall's.
func (rc *recall) matched(terms []qterm) (Result, error) {
	depth := KMax
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
	maxLex := 0.0
	lexOf := map[string]float64{}
	for _, h := range lex.Records {
		maxLex = max(maxLex, h.Score)
		lexOf[h.Record.ID] = h.Score
	}
	vecs, err := rc.storedVectors()
	if err != nil {
		return Result{}, err
	}
	// every record the caller may see, its own score: words and meaning
	var all []Hit
	var cos, qual []float64 // by hit; cos NaN: the record has no vector of the query's model
	var xs [][]float32      // by hit: its vector, or nil
	match := rc.q.Matcher.Prepare(rc.q.Text)
	when := timeWeight > 0 && asksWhen(rc.q.Text)
	if err := rc.eachActive(func(v *Record) {
		if rc.classify(v) != toRecords {
			return
		}
		q := rc.quality(v)
		own := matchWeight * match(spokenText(v)) * q
		if l := lexOf[v.ID]; l > 0 {
			own += l / maxLex
		}
		c := math.NaN()
		var xv []float32
		if x, ok := vecs[v.ID]; ok && x.Version == v.Version {
			c, xv = cosine(rc.q.Vector, x.Vector), x.Vector
		}
		all = append(all, Hit{Record: rc.e.display(v, rc.now), Score: own})
		cos, qual, xs = append(cos, c), append(qual, q), append(xs, xv)
	}); err != nil {
		return Result{}, err
	}
	readWithItsMessage(rc.q.Vector, all, cos, xs)
	read := readWithTheTurnBefore(rc.q.Vector, all, cos, xs)
	addSentences(all, cos, qual, rc.backgroundCosines())
	if when {
		said := saidWhen(all)
		for i := range all {
			if all[i].Score > 0 && said[i] {
				all[i].Score *= 1 + timeWeight
			}
		}
	}
	if p, ok := namedPeriod(rc.q.Text, rc.now); ok {
		for i := range all {
			if all[i].Score > 0 && p.saidIn(all[i].Record.ObservedAt) {
				all[i].Score *= 1 + timeWeight
			}
		}
	}
	withContext(all, read)
	var f fusion
	for _, h := range all {
		if h.Score > 0 {
			f.add(h, h.Score)
		}
	}
	return Result{Records: f.top(rc.limit), Conflicts: lex.Conflicts}, nil
}

// sentenceWeight is the weight of the sentence vectors' ranking
// (Query.Vector: a record's vector recorded at write time, by a sentence
// encoder such as memory/embed/use) beside the lexical one and the
// Matcher's. A record's cosine with the query counts by how far it stands
// above the mean cosine of the user's records with a vector and of the
// background sentences (Query.Background, background.go), over how far
// the best record does: the best scores 1, as the best lexical record does,
// and a record no nearer than the average scores nothing (a sentence
// encoder puts any two sentences at a cosine of 0.1 to 0.3, which says
// nothing). Chosen on LoCoMo (docs/evaluation.md), one of two coarse
// settings tried: at 0.5 recall_any@10 is 0.768 for turns as episodes
// (0.742 with the word vectors alone), 0.681 for messages (0.668); at 1
// 0.753 and 0.663 (the sentence vectors crowd out the words that
// LoCoMo's questions mostly share with their evidence).
const sentenceWeight = 0.5

// storedVectors returns the vectors of the query's model recorded for the
// user's records, by record id (each with the version it was computed
// from); none without a query vector.
func (rc *recall) storedVectors() (map[string]vector, error) {
	if len(rc.q.Vector) == 0 || rc.q.Model == "" {
		return nil, nil
	}
	out := map[string]vector{}
	err := rc.r.Scan(rc.k.vecs(), func(key, value []byte) error {
		v, err := decodeVector(value)
		if err != nil {
			return err
		}
		if v.Model == rc.q.Model && len(v.Vector) == len(rc.q.Vector) {
			out[rc.k.lastComponent(key)] = v
		}
		return nil
	})
	return out, err
}

// backgroundCosines returns the query vector's cosine with each vector
// of the query's Background of its dimension.
func (rc *recall) backgroundCosines() []float64 {
	var out []float64
	for _, b := range rc.q.Background {
		if len(b) == len(rc.q.Vector) && len(b) > 0 {
			if c := cosine(rc.q.Vector, b); !math.IsNaN(c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// addSentences adds to each hit sentenceWeight times its record's
// standing by cosine (see sentenceWeight) times its quality; cos[i] is
// NaN for a hit without a vector, which gains nothing; quality[i] is its
// record's quality. The background's cosines (bg: the query's with the
// background sentences, background.go) count in the mean as records
// that are always there: with hundreds of records they move it little,
// and a user with one record is judged against the background instead
// of against that record's own cosine, which left nothing above the
// mean. The best stays the user's own: the nearest record scores the
// whole weight, as the best lexical record scores 1.
func addSentences(hits []Hit, cos, quality, bg []float64) {
	sum, n, best := 0.0, 0, math.Inf(-1)
	for _, c := range cos {
		if !math.IsNaN(c) {
			sum += c
			n++
			best = max(best, c)
		}
	}
	if n == 0 {
		return
	}
	for _, c := range bg {
		sum += c
		n++
	}
	mean := sum / float64(n)
	if best <= mean {
		return
	}
	for i, c := range cos {
		if math.IsNaN(c) || c <= mean {
			continue
		}
		hits[i].Score += sentenceWeight * (c - mean) / (best - mean) * quality[i]
	}
}

// Context. A turn of a conversation is often understood only with the
// one before it: "Five years already!" answers "how long have you been
// married?", "It taught me self-acceptance" is about the book the turn
// before named. A record said within ctxGap after the records of another
// message (or another record written on its own) takes ctxWeight of
// that source's best score as its context, so the answer is found with
// its question. Only a record that is about the query itself (a word or
// a meaning in common) takes context: nearness in time alone ranks
// nothing. Only records the caller may see lend it (the hard filters
// come first).
//
// What the numbers rest on (docs/evaluation.md, development data): on
// LoCoMo, context from the turn before took turns as episodes from 0.708
// to 0.735 recall_any@10, at ctxWeight 0.5; no other weight was tried.
// ctxGap is not measured by it: LoCoMo's turns are a second apart within
// a session and days apart between sessions, so every gap from a second
// to a day ranks the same. Ten minutes is a pause in a conversation
// (a reply comes within it, a new subject after it), not a fitted value;
// a tenant whose users write slower sees fewer answers with their
// questions, never a wrong record.
const (
	ctxGap    = 10 * time.Minute
	ctxWeight = 0.5
)

// withContext adds to each hit's score ctxWeight times the best score of
// the source said just before its own, if that was within ctxGap. When
// that source ends with a question (an episode that asks: isQuestion),
// each hit of the next source is its answer and scores at least what
// the question scores before questionWeight: "What inspired you?" about
// the query weighs half as a question, and the turn that answers it
// ("A walk by the water at dawn") is what the query asks for, though it
// shares none of its words. On LoCoMo (development data) this took
// recall_any@10 from 0.781 to 0.804 for turns as episodes and from
// 0.692 to 0.707 for messages (docs/evaluation.md); no other share was
// tried. read[i] says hits[i] was read with the turn before it
// (readWithTheTurnBefore: its cosine raised to that of the sum of their
// vectors): that turn's meaning has reached it once, and it takes no
// context from that turn besides, so "My sister lives in Lisbon." said
// just after "I drive a Subaru." does not take the car's standing twice
// and pass it. A record that keeps the question its message answered
// (Record.Context, ReplyEvents) was indexed and embedded with it, so it
// does not stand where the question would (that is the question's
// score a second time); it takes ctxWeight of the turn's best as any
// record does (what else that turn said, which it does not keep). It
// orders hits by the time they were said.
func withContext(hits []Hit, read []bool) {
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := &hits[order[i]].Record, &hits[order[j]].Record
		if a.ObservedAt != b.ObservedAt {
			return a.ObservedAt < b.ObservedAt
		}
		return a.ID < b.ID
	})
	sorted, wasRead := make([]Hit, len(hits)), make([]bool, len(hits))
	for k, i := range order {
		sorted[k] = hits[i]
		wasRead[k] = read != nil && read[i]
	}
	copy(hits, sorted)
	own := make([]float64, len(hits))
	for i := range hits {
		own[i] = hits[i].Score
	}
	// groups of consecutive hits of one source
	type group struct {
		from, to int // hits[from:to]
		best     float64
	}
	var groups []group
	for i := range hits {
		if len(groups) > 0 && source(&hits[groups[len(groups)-1].from].Record) == source(&hits[i].Record) {
			g := &groups[len(groups)-1]
			g.to = i + 1
			g.best = max(g.best, own[i])
			continue
		}
		groups = append(groups, group{from: i, to: i + 1, best: own[i]})
	}
	for n := 1; n < len(groups); n++ {
		prev, g := groups[n-1], groups[n]
		if hits[g.from].Record.ObservedAt-hits[prev.to-1].Record.ObservedAt > int64(ctxGap) {
			continue
		}
		last := &hits[prev.to-1].Record
		asked := own[prev.to-1] > 0 && last.Kind == KindEpisode && isQuestion(last.Text) // a question about nothing asked lends nothing
		for i := g.from; i < g.to; i++ {
			if own[i] > 0 && !(i == g.from && wasRead[i]) {
				hits[i].Score += ctxWeight * prev.best
			}
			if asked && hits[i].Record.Context == "" { // one that keeps the question was indexed and embedded with it
				// the answer to a question about the query: it stands where
				// the question would as a statement (before questionWeight)
				hits[i].Score = max(hits[i].Score, own[prev.to-1]/questionWeight)
			}
		}
	}
}

// readWithTheTurnBefore raises the cosines with the query q of each two
// records said one after the other (of two messages, within ctxGap) to
// that of the sum of their vectors, each where that is higher: a turn is
// read with the one it answers ("Five years already!" after "How long
// have you been married?") and the one it answers with its reply, as a
// sentence encoder reads two sentences together about as the sum of
// their vectors. cos and xs are by hit; a hit without a vector (cos
// NaN) is left alone. It returns, by hit, whether the hit's cosine was
// raised so with the turn before it: that turn's meaning has reached it,
// and it takes no context from that turn besides (withContext). A
// record that keeps the question its message answered (Record.Context)
// was embedded with it (spokenText) and is not raised again: the turn
// before has reached it at the write.
func readWithTheTurnBefore(q []float32, hits []Hit, cos []float64, xs [][]float32) []bool {
	raised := make([]bool, len(hits))
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := &hits[order[a]].Record, &hits[order[b]].Record
		if x.ObservedAt != y.ObservedAt {
			return x.ObservedAt < y.ObservedAt
		}
		return x.ID < y.ID
	})
	var sum []float32
	for k := 1; k < len(order); k++ {
		i, j := order[k], order[k-1]
		a, b := &hits[i].Record, &hits[j].Record
		if xs[i] == nil || xs[j] == nil || source(a) == source(b) || a.ObservedAt-b.ObservedAt > int64(ctxGap) {
			continue
		}
		sum = append(sum[:0], xs[i]...)
		for d, v := range xs[j] {
			sum[d] += v
		}
		c := cosine(q, sum)
		if c > cos[i] && a.Context == "" { // one that keeps its question was embedded with it
			cos[i], raised[i] = c, true
		}
		cos[j] = max(cos[j], c)
	}
	return raised
}

// readWithItsMessage raises the cosine with the query q of each record
// that shares its message (source) with others to that of the sum of
// the vectors of its message's records, where that is higher: the
// writer splits a message into sentences (MessageEvents), each embedded
// alone, and "Yesterday I took the kids to the museum" loses the "it was
// so cool" and the photo said beside it, as an answer loses its
// question. The sum reads the message whole, as a sentence encoder reads
// several sentences about as the sum of their vectors; a sentence that
// says more alone keeps its own. On LoCoMo (development data) messages
// went from 0.722 to 0.727 recall_any@10 (docs/evaluation.md); turns as
// episodes, one record each, are unchanged. cos and xs are by hit; a hit
// without a vector (cos NaN) neither lends nor gains.
func readWithItsMessage(q []float32, hits []Hit, cos []float64, xs [][]float32) {
	bySource := map[string][]int{}
	var order []string
	for i := range hits {
		if xs[i] == nil || hits[i].Record.Message == "" {
			continue
		}
		s := hits[i].Record.Message
		if bySource[s] == nil {
			order = append(order, s)
		}
		bySource[s] = append(bySource[s], i)
	}
	var sum []float32
	for _, s := range order {
		is := bySource[s]
		if len(is) < 2 {
			continue
		}
		sum = append(sum[:0], xs[is[0]]...)
		for _, i := range is[1:] {
			for d, v := range xs[i] {
				sum[d] += v
			}
		}
		c := cosine(q, sum)
		for _, i := range is {
			cos[i] = max(cos[i], c)
		}
	}
}
