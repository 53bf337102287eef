package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/memory/embed"
)

// MessageEvents returns the events that write a user's message into
// memory, made at the writer (the service) rather than in the projection:
// one events.MemoryObserved per statement the extractor reads from text —
// record ids message, message#2, … (messageRecordID), each with its
// sentence as text — and, in the order said, one episode per part of a
// sentence (splitClauses) that is no question and that it reads nothing
// from, so that no word the user stated is dropped (past observationsMax
// records, the rest is one episode: foldOverflow); when it states
// nothing and the message is one such part, one episode of the message's
// id and whole text.
// Every observation names the message (events.Observation.Message). Each is to be sealed under its record's
// own key (SealScope), so that forgetting one record makes exactly its
// text unreadable in the log. Statements whose texts overlap (two read
// from one sentence) share a Sentence: they carry the same words and are
// forgotten together.
//
// The extractor is deterministic, so the same message at the same time
// gives the same events (ids: events.MemoryRequestID with op "message"),
// and the log's duplicate window drops a retried write. It returns an
// error wrapping ErrInvalid for a message id or text that is missing or
// too long.
func (e *Engine) MessageEvents(tenant, user, message, text string, at int64) ([]*events.Event, error) {
	return e.ReplyEvents(tenant, user, message, text, "", at)
}

// ReplyEvents is MessageEvents for a message that replies to the turn
// replyTo (the assistant's, or another speaker's, as said; "" for none):
// the questions replyTo asks (questionsOf) are the Context of each
// record the message writes. "Five years already!" says nothing of a
// marriage alone; kept with "How long have you been married?" it is
// found, matched and embedded as the answer it is (spokenText), and it
// is forgotten with its context, which is sealed under its own key. The
// question is no record of its own: what memory does not keep it never
// has to forget.
func (e *Engine) ReplyEvents(tenant, user, message, text, replyTo string, at int64) ([]*events.Event, error) {
	switch {
	case message == "" || len(message) > IDBytesMax:
		return nil, fmt.Errorf("memory: message of tenant %s: id missing or too long: %w", tenant, ErrInvalid)
	case strings.TrimSpace(text) == "" || len(text) > TextBytesMax:
		return nil, fmt.Errorf("memory: message %q: text missing or too long: %w", message, ErrInvalid)
	}
	speaker, asked := speakerOf(text), questionsOf(replyTo)
	obs := e.extract(text, at)
	if len(obs) > observationsMax {
		obs = obs[:observationsMax]
	}
	var parts []lang.Sentence
	for _, sent := range lang.Sentences(text) {
		parts = append(parts, splitClauses(sent)...)
	}
	var sts []events.Observation
	var partOf []int // each statement's part of text, -1 when none holds its text
	read := make([]bool, len(parts))
	for _, o := range obs {
		o.ID = messageRecordID(message, len(sts)+1)
		o.Sentence = ""
		o.Message = message
		if strings.TrimSpace(o.Text) == "" {
			o.Text = text
		}
		if o.Subject == "" || o.Attribute == "" {
			o.Kind = string(KindEpisode)
		}
		if _, err := e.statement(o, at, false, nil); err != nil {
			continue // the extractor's fault, not the message's: drop that statement
		}
		k := partHolding(parts, o.Text)
		if k >= 0 {
			read[k] = true
		} else {
			for j, p := range parts { // a statement that holds parts (the whole text) reads them
				if strings.Contains(o.Text, p.Text) {
					read[j] = true
				}
			}
		}
		sts = append(sts, o)
		partOf = append(partOf, k)
	}
	// A part the extractor read nothing from (no question, and more than
	// joiners and punctuation) is an episode of its own, in the order said
	// among the statements: what a reader does not slot of a message is
	// never dropped, whether or not another part of its sentence or of
	// the message was read, and each is forgotten alone.
	var out []events.Observation
	next := 0
	unread := func(upto int) {
		for ; next < upto; next++ {
			if read[next] || parts[next].Question || !hasWords(parts[next].Text) {
				continue
			}
			out = append(out, events.Observation{Kind: string(KindEpisode), Text: parts[next].Text, Message: message})
		}
	}
	for i, o := range sts {
		if partOf[i] >= 0 {
			unread(partOf[i])
		}
		out = append(out, o)
	}
	unread(len(parts))
	if len(sts) == 0 && len(out) == 1 {
		out = nil // one sentence that states nothing: the message's whole text, below
	}
	out = foldOverflow(out, message)
	for i := range out {
		out[i].ID = messageRecordID(message, i+1)
	}
	if len(out) == 0 {
		out = append(out, events.Observation{ID: messageRecordID(message, 1), Kind: string(KindEpisode), Text: text,
			Message: message})
	}
	// Statements whose texts overlap form one sentence, named by its first.
	root := make([]int, len(out))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			i = root[i]
		}
		return i
	}
	for i := range out {
		for j := 0; j < i; j++ {
			if strings.Contains(out[i].Text, out[j].Text) || strings.Contains(out[j].Text, out[i].Text) {
				a, b := find(i), find(j)
				root[max(a, b)] = min(a, b)
			}
		}
	}
	size := make([]int, len(out))
	for i := range out {
		size[find(i)]++
	}
	evs := make([]*events.Event, len(out))
	for i, o := range out {
		if r := find(i); size[r] > 1 {
			o.Sentence = out[r].ID
		}
		o.Speaker, o.Context = speaker, asked
		evs[i] = &events.Event{ID: events.MemoryRequestID(tenant, user, "message", o.ID, at), Tenant: tenant, User: user, At: at,
			Body: &events.MemoryObserved{Observation: o}}
	}
	return evs, nil
}

// foldOverflow bounds a message's records to observationsMax without
// dropping any of its words: the records past the last one allowed become
// one episode holding their texts, each once, in the order said (a
// statement there keeps its words and loses its slot).
func foldOverflow(out []events.Observation, message string) []events.Observation {
	if len(out) <= observationsMax {
		return out
	}
	var texts []string
	for _, o := range out[observationsMax-1:] {
		if !slices.Contains(texts, o.Text) {
			texts = append(texts, o.Text)
		}
	}
	out = out[:observationsMax-1]
	return append(out, events.Observation{Kind: string(KindEpisode), Text: strings.Join(texts, " "), Message: message})
}

// contextBytesMax bounds a record's context (events.Observation.Context):
// the questions of the turn before, the last of them kept first.
const contextBytesMax = 512

// questionsOf returns the questions turn asks, in the order asked and
// without its speaker's label ("Melanie: Wow! What inspired you?" asks
// "What inspired you?"): the sentences that end with a question mark (?
// or ？), the last ones kept when they are more than contextBytesMax.
// "" when turn asks nothing: a reply to a statement takes no context.
func questionsOf(turn string) string {
	var qs []string
	n := 0
	for _, s := range lang.Sentences(afterSpeaker(turn)) {
		if s.Question && hasWords(s.Text) {
			qs = append(qs, s.Text)
			n += len(s.Text) + 1
		}
	}
	for len(qs) > 0 && n-1 > contextBytesMax {
		n -= len(qs[0]) + 1
		qs = qs[1:]
	}
	return strings.Join(qs, " ")
}

// partHolding returns the index of the part of a message whose text
// holds t (a statement's text is its part without its end marks), or -1.
func partHolding(parts []lang.Sentence, t string) int {
	for k, p := range parts {
		if strings.Contains(p.Text, t) {
			return k
		}
	}
	return -1
}

// hasWords reports whether t holds a letter or a digit: a part of joiners
// and punctuation alone says nothing to keep.
func hasWords(t string) bool {
	return strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// SealScope is the data-key scope a memory event is sealed under: a
// record's own (events.RecordScope) for the events that carry its text —
// an observation, a correction — so that erasing the record (its key)
// makes every version of it unreadable; the user's ("") for the others,
// which carry none of a record's text (a forgetting names an id).
func SealScope(ev *events.Event) string {
	switch b := ev.Body.(type) {
	case *events.MemoryObserved:
		return events.RecordScope(ev.User, b.ID)
	case *events.MemoryCorrected:
		return events.RecordScope(ev.User, b.ID)
	case *events.MemoryEmbedded:
		return events.RecordScope(ev.User, b.ID) // made from the record's text
	}
	return ""
}

// EmbedEvents returns the events that record the vectors of recs — each
// record's version as given, its text embedded by emb — made at the
// writer at time at, each to be sealed under its record's key
// (SealScope). The projection keeps a vector only while its version is
// the record's current one. Episodes and statements alike are embedded.
func EmbedEvents(ctx context.Context, emb embed.Embedder, tenant, user string, recs []Record, at int64) ([]*events.Event, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	texts := make([]string, len(recs))
	for i := range recs {
		texts[i] = spokenText(&recs[i])
	}
	vs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("memory: embed %d records of tenant %s: %w", len(recs), tenant, err)
	}
	out := make([]*events.Event, len(recs))
	for i, r := range recs {
		op := "embed/" + strconv.Itoa(r.Version)
		out[i] = &events.Event{ID: events.MemoryRequestID(tenant, user, op, r.ID, at), Tenant: tenant, User: user, At: at,
			Body: &events.MemoryEmbedded{ID: r.ID, Version: r.Version, Model: emb.Model(), Vector: vs[i]}}
	}
	return out, nil
}
