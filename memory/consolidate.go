package memory

import (
	"slices"
	"strings"
)

// Episodes consolidated into a semantic record. An episode (a turn the
// extractor read no statement from) that names a food or drink (the
// extractor's lexicons, data/words.txt food_lex and drink_lex: "Sushi again
// tonight with Tom") is evidence of a habit; when episodes of
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
// the lexicon writes them ("sushi", "coffee"), each once, in text order.
func episodeObjects(text string) [][2]string {
	var out [][2]string
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '-')
	})
	for i := 0; i < len(words); i++ {
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
			o := [2]string{subject, cand}
			if !slices.Contains(out, o) {
				out = append(out, o)
			}
			if strings.Contains(cand, " ") {
				i++ // its second word is read
			}
			break
		}
	}
	return out
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
	sources, err := x.episodesNaming(object, n)
	if err != nil || len(sources) < EpisodesToConsolidate {
		return err
	}
	r := &Record{Tenant: x.tenant, User: x.user, ID: id, Version: 1, Source: x.event, ObservedAt: n.ObservedAt, LearnedAt: x.at,
		Kind: KindPreference, Subject: subject, Attribute: object, Polarity: Positive, ValidFrom: n.ObservedAt,
		Confidence: consolidatedConfidence, Status: StatusActive, UseCount: len(sources), From: sources,
		Text: "Often mentions " + object + " (consolidated from conversations)"}
	return x.place(r, nil)
}

// episodesNaming returns the ids of the user's current episodes of
// distinct messages that name object, n's last, in key order.
func (x *tx) episodesNaming(object string, n *Record) ([]string, error) {
	var ids []string
	messages := map[string]bool{}
	for _, term := range tokenize(object) {
		err := x.w.Scan(x.k.ixTerm(term), func(key, value []byte) error {
			p, ok := decodePosting(value)
			if !ok || p.status != StatusActive {
				return nil
			}
			id := x.k.lastComponent(key)
			if id == n.ID {
				return nil
			}
			r, err := x.load(id, p.version)
			if err != nil || r == nil || r.Kind != KindEpisode || messages[messageOf(r)] {
				return err
			}
			if !slices.ContainsFunc(episodeObjects(r.Text), func(o [2]string) bool { return o[1] == object }) {
				return nil
			}
			messages[messageOf(r)] = true
			ids = append(ids, r.ID)
			return nil
		})
		if err != nil {
			return nil, err
		}
		break // the object's first term: the lexicon's words are one term each, or their first
	}
	if messages[messageOf(n)] {
		return ids, nil
	}
	return append(ids, n.ID), nil
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
