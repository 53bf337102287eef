package memory

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolstream/toolstream/internal/lang"
)

// Episodes consolidated into a semantic record. An episode (a turn the
// extractor read no statement from) that names a food or drink (the
// extractor's lexicons, data/words.txt food_lex and drink_lex: "Sushi again
// tonight with Tom"; in Chinese the names of zhFoodNames, read by
// segmenting the text: 周五和同事去吃火锅) is evidence of a habit; when episodes of
// EpisodesToConsolidate or more messages of one user name the same one,
// they are consolidated into one semantic record: a preference for it
// (food/sushi or drink/coffee, positive), at a confidence below what a
// statement gets, its text saying what it was read from, its provenance
// the episodes' ids (Record.From). Each later episode naming it is added
// to the provenance (and its use), as a statement said again reinforces
// its record.
//
// What the user says outranks what is inferred: no record is consolidated
// into a slot any statement holds or held (a record of any kind, current
// or not), and a newer statement of the slot supersedes the consolidated
// record as it supersedes any older one ("I don't like sushi any more").
//
// Erasure reaches it: the record's text and slot are read from its
// sources, so forgetting a source takes it out of the provenance, and a
// record left with fewer sources than EpisodesToConsolidate is forgotten
// with it; an erased user's or episode's view is rebuilt from a log whose
// erased episodes no longer open, so the record is made again from what is
// left, or not at all. Deterministic: the episodes are found by the index
// of the object's term and taken in key order.

// EpisodesToConsolidate is how many episodes of distinct messages must
// name a food or drink before they are consolidated into a record. Why
// three, argued from what the record claims and not from any set's
// figures: the record says a habit, and one mention is an event, two
// may be one occasion told twice (the plan, then the meal); a third is
// the least that repeats a repetition. It also keeps erasure honest: no
// record ever rests on one source, so forgetting any one episode of a
// record that just formed forgets it too.
const EpisodesToConsolidate = 3

// consolidatedConfidence is a consolidated record's confidence: below an
// extracted statement's (0.8), so a statement of the slot outranks it.
const consolidatedConfidence = 0.5

// consolidatedID is the id of the record consolidated into a slot.
func consolidatedID(subject, attribute string) string {
	return "episodes:" + subject + "/" + attribute
}

// episodeObjects returns the foods and drinks an episode's text names, as
// the lexicon writes them ("sushi", "coffee"), each once: the English names
// in text order, then the Chinese ones (episodeObjectsZH).
func episodeObjects(text string) [][2]string {
	out := episodeObjectsEN(text)
	for _, o := range episodeObjectsZH(text) {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// enEpisodeNot are data/words.txt's [en words] episode_not: a name after
// one of them in its clause is no mention of a habit ("Skipped coffee this
// morning", "Didn't have any sushi").
var enEpisodeNot = wordSet("en words", "episode_not")

// episodeObjectsEN returns the foods and drinks the English words of an
// episode name, each once, in text order; a name after a negation in its
// clause (enEpisodeNot; a clause ends at punctuation or a clause_end word)
// is left out.
func episodeObjectsEN(text string) [][2]string {
	var out [][2]string
	add := func(o [2]string) {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	for _, clause := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return strings.ContainsRune(",.;:!?()", r) }) {
		for _, o := range clauseObjectsEN(clause) {
			add(o)
		}
	}
	return out
}

// clauseObjectsEN returns the foods and drinks a clause of an episode
// names, in text order, none after a negation.
func clauseObjectsEN(clause string) [][2]string {
	var out [][2]string
	add := func(o [2]string) { out = append(out, o) }
	words := strings.FieldsFunc(clause, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '-')
	})
	negated := false
	for i := 0; i < len(words); i++ {
		switch {
		case clauseEnd[words[i]]:
			negated = false
		case enEpisodeNot[words[i]]:
			negated = true
		}
		if negated {
			continue
		}
		cands := []string{words[i], singular(words[i])}
		if i+1 < len(words) {
			// a name of two words first, as the lexicons write them
			// (ice_cream, hot_pot, milk_tea): "ice cream" is no "cream"
			two := words[i] + " " + words[i+1]
			cands = append([]string{two, words[i] + " " + singular(words[i+1])}, cands...)
		}
		for _, cand := range cands {
			var subject string
			switch {
			case foodLex[cand]:
				subject = "food"
			case drinkLex[cand]:
				subject = "drink"
			default:
				continue
			}
			if cand == "food" || cand == "drink" || cand == "water" {
				break // says nothing of a habit
			}
			add([2]string{subject, cand})
			if strings.Contains(cand, " ") {
				i++ // its second word is read
			}
			break
		}
	}
	return out
}

// zhFoodNames is every Chinese name of a food or drink an episode is read
// for, and its slot: data/words.txt's [zh lexicon] (火锅 → food/hotpot, 奶茶
// → drink/milk tea), so an episode holds the slot a Chinese statement of
// the thing holds, and then the Chinese words of data/statements.txt's
// [kinds] whose kind is a food or a drink by the English lexicons (普洱, a
// tea → drink/普洱; 芒果, a fruit → food/芒果), named as a statement of them
// names them (我喜欢喝普洱: drink/普洱). zhFoodLexicon segments an episode's
// Chinese text by them (lang.Lexicon: forward longest match, so 普洱茶 is
// read as itself and 奶茶 is no 茶). zhFoodSurfaces is the other way: the
// Chinese names of each slot, for finding the episodes that name it.
// Built once from the embedded data and never changed.
var zhFoodNames, zhFoodLexicon, zhFoodSurfaces = zhFoodNamesOf()

func zhFoodNamesOf() (map[string][2]string, *lang.Lexicon, map[[2]string][]string) {
	names := map[string][2]string{}
	var words []string
	add := func(w string, o [2]string) {
		if _, ok := names[w]; ok || !hasHan(w) {
			return
		}
		names[w] = o
		words = append(words, w)
	}
	for _, e := range zhLexicon {
		if e.subject == "food" || e.subject == "drink" {
			add(e.zh, [2]string{e.subject, e.en})
		}
	}
	for _, l := range memData.Lines("kinds") {
		kind := spaced(l.Name)
		subject := ""
		switch {
		case drinkLex[kind]:
			subject = "drink"
		case foodLex[kind]:
			subject = "food"
		default:
			continue
		}
		for _, w := range l.Words {
			add(w, [2]string{subject, w})
		}
	}
	surfaces := map[[2]string][]string{}
	for _, w := range words {
		surfaces[names[w]] = append(surfaces[names[w]], w)
	}
	return names, lang.NewLexicon(words), surfaces
}

// zhEpisodeVerbs may take a Chinese name of one ideograph as their object
// (喝茶, 吃鱼, 吃辣); zhNegations before a name (with its verb) say it was not
// had (没喝奶茶, 不吃火锅). Both data/words.txt's [zh words].
var (
	zhEpisodeVerbs = wordList("zh words", "consume")
	zhNegations    = wordList("zh words", "not")
)

// episodeObjectsZH returns the foods and drinks the Chinese text of an
// episode names, each once, in text order. A name of one ideograph counts
// only as the object of a verb of eating or drinking (喝茶, not 茶几; 吃鱼,
// not 鱿鱼 read alone): as a word it is too often part of another (酒店,
// 肌肉). A name after a negation (没喝奶茶, 今天不吃火锅) is no mention of a
// habit.
func episodeObjectsZH(text string) [][2]string {
	var out [][2]string
	rs := []rune(text)
	for _, m := range zhFoodLexicon.Segment(rs) {
		before := strings.TrimSuffix(zhAmountBefore(rs, m.Start), "了") // 喝了茶, 喝了一杯茶
		verb := false
		for _, v := range zhEpisodeVerbs {
			if b, ok := strings.CutSuffix(before, v); ok {
				before, verb = strings.TrimSuffix(b, "再"), true // 没再喝奶茶
				break
			}
		}
		if utf8.RuneCountInString(m.Word) == 1 && !verb || hasAnySuffix(before, zhNegations) {
			continue
		}
		if o := zhFoodNames[m.Word]; !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// zhPortions are data/words.txt's [zh words] portion: the measure words
// of an amount had (杯, 碗, 口, 点), which Chinese puts, after a numeral or
// alone, between a verb and its object (喝了一杯茶, 吃碗面, 喝点酒).
var zhPortions = wordList("zh words", "portion")

// zhAmountBefore returns the text before rune i of rs without the amount
// that ends it: a portion word (zhPortions) and the numeral or digits
// before it (喝了一杯 → 喝了, 吃两碗 → 吃, 喝点 → 喝). Text ending in no
// portion word is returned whole.
func zhAmountBefore(rs []rune, i int) string {
	before := string(rs[:i])
	for _, p := range zhPortions {
		if b, ok := strings.CutSuffix(before, p); ok {
			r := []rune(b)
			j := len(r)
			for j > 0 && (lang.Default().IsZhNumeral(r[j-1]) || r[j-1] >= '0' && r[j-1] <= '9') {
				j--
			}
			return string(r[:j])
		}
	}
	return before
}

// episodeSurfaces are the names under which an episode may name object:
// the object as the English lexicon writes it (unless it is Chinese) and
// its Chinese names.
func episodeSurfaces(subject, object string) []string {
	var out []string
	if !hasHan(object) {
		out = append(out, object)
	}
	return append(out, zhFoodSurfaces[[2]string{subject, object}]...)
}

// consolidate adds the episode n to the record of each food or drink it
// names, or makes that record once enough episodes name it.
func (x *tx) consolidate(n *Record) error {
	if n.Kind != KindEpisode || n.Status != StatusActive {
		return nil
	}
	for _, o := range episodeObjects(n.Text) {
		if err := x.consolidateInto(n, o[0], o[1]); err != nil {
			return err
		}
	}
	return nil
}

func (x *tx) consolidateInto(n *Record, subject, object string) error {
	id := consolidatedID(subject, object)
	probe := &Record{ID: id, Kind: KindPreference, Subject: subject, Attribute: object}
	h, err := x.head(id)
	if err != nil {
		return err
	}
	if h != nil {
		if !holding(h.Status) || slices.Contains(h.From, n.ID) {
			return nil // superseded by a statement, or this episode is in it
		}
		h2 := clone(h)
		h2.From = append(slices.Clone(h.From), n.ID)
		h2.UseCount++
		if n.ObservedAt > h2.ObservedAt {
			h2.ObservedAt = n.ObservedAt
		}
		return x.save(h, true, h2, true)
	}
	if e, err := x.idEntry(id); err != nil || e != nil {
		return err // forgotten before: made again only by a rebuild
	}
	// The slot is the user's to state: taken by any record, now or before.
	holders, err := x.holders(probe)
	if err != nil || len(holders) > 0 {
		return err
	}
	taken := false
	if err := x.w.Scan(x.k.pastOf(probe), func([]byte, []byte) error { taken = true; return nil }); err != nil || taken {
		return err
	}
	sources, err := x.episodesNaming(subject, object, n)
	if err != nil || len(sources) < EpisodesToConsolidate {
		return err
	}
	r := &Record{Tenant: x.tenant, User: x.user, ID: id, Version: 1, Source: x.event, ObservedAt: n.ObservedAt, LearnedAt: x.at,
		Kind: KindPreference, Subject: subject, Attribute: object, Polarity: Positive, ValidFrom: n.ObservedAt,
		Confidence: consolidatedConfidence, Status: StatusActive, UseCount: len(sources), From: sources,
		Text: consolidatedText(subject, object, n.Text)}
	return x.place(r, nil)
}

// episodesNaming returns the ids of the user's current episodes of
// distinct messages that name subject/object, in either language, n's
// last, the others in key order (of one message, its first).
func (x *tx) episodesNaming(subject, object string, n *Record) ([]string, error) {
	found := map[string]*Record{}
	for _, name := range episodeSurfaces(subject, object) {
		terms := tokenize(name)
		if len(terms) == 0 {
			continue
		}
		// the name's last term: an English name's word (or its second),
		// a Chinese name's last pair of ideographs, the rarest of its terms
		err := x.w.Scan(x.k.ixTerm(terms[len(terms)-1]), func(key, value []byte) error {
			p, ok := decodePosting(value)
			if !ok || p.status != StatusActive {
				return nil
			}
			id := x.k.lastComponent(key)
			if id == n.ID || found[id] != nil {
				return nil
			}
			r, err := x.load(id, p.version)
			if err != nil || r == nil || r.Kind != KindEpisode {
				return err
			}
			if slices.Contains(episodeObjects(r.Text), [2]string{subject, object}) {
				found[id] = r
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	rs := slices.SortedFunc(maps.Values(found), func(a, b *Record) int { return strings.Compare(esc(a.ID), esc(b.ID)) })
	var ids []string
	messages := map[string]bool{}
	for _, r := range rs {
		if !messages[messageOf(r)] {
			messages[messageOf(r)] = true
			ids = append(ids, r.ID)
		}
	}
	if messages[messageOf(n)] {
		return ids, nil
	}
	return append(ids, n.ID), nil
}

// consolidatedText is a consolidated record's text, in the language the
// episode that made it names the thing in: "Often mentions sushi
// (consolidated from conversations)", or, named by a Chinese name only,
// 经常提到火锅（从对话中归纳）.
func consolidatedText(subject, object, episode string) string {
	if !hasHan(object) && slices.Contains(episodeObjectsEN(episode), [2]string{subject, object}) {
		return "Often mentions " + object + " (consolidated from conversations)"
	}
	for _, w := range zhFoodSurfaces[[2]string{subject, object}] {
		if strings.Contains(episode, w) {
			return "经常提到" + w + "（从对话中归纳）"
		}
	}
	return "Often mentions " + object + " (consolidated from conversations)"
}

// messageOf names the message a record was read from (its own id when it
// names none).
func messageOf(r *Record) string {
	switch {
	case r.Message != "":
		return r.Message
	case r.Origin != "":
		return r.Origin
	}
	return r.ID
}

// unconsolidate takes the forgotten ids out of the provenance of the
// user's consolidated records, and forgets a record left with fewer than
// EpisodesToConsolidate sources.
func (x *tx) unconsolidate(forgotten []string) error {
	var touched []*Record
	err := heads(x.w, x.k, func(h *Record) error {
		if slices.ContainsFunc(h.From, func(id string) bool { return slices.Contains(forgotten, id) }) {
			touched = append(touched, h)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var drop []string
	for _, h := range touched {
		h2 := clone(h)
		h2.From = slices.DeleteFunc(slices.Clone(h.From), func(id string) bool { return slices.Contains(forgotten, id) })
		if len(h2.From) < EpisodesToConsolidate {
			drop = append(drop, h.ID)
			continue
		}
		h2.UseCount = len(h2.From)
		if err := x.save(h, true, h2, true); err != nil {
			return err
		}
	}
	for _, id := range drop {
		if err := x.forget(id); err != nil {
			return err
		}
	}
	return nil
}
