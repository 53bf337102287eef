package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory/embed/local"
	"github.com/toolstream/toolstream/projector"
)

// TestAReplyKeepsTheQuestionsOfTheTurnBefore: ReplyEvents keeps the
// questions the turn before asks, without its speaker's label, as the
// Context of every record the message writes; no record of its own, no
// word of it in a record's text; a turn that asks nothing lends none.
func TestAReplyKeepsTheQuestionsOfTheTurnBefore(t *testing.T) {
	e := NewEngine(Config{}, nil)
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).UnixNano()
	for _, tc := range []struct {
		name, replyTo, text, want string
	}{
		{"en one question", "Melanie: Wow, that looks lovely! What got you started on the cello?",
			"Caroline: A concert my aunt took me to. I still hum that piece.", "What got you started on the cello?"},
		{"en two questions", "How was the trip? Did the kids like the aquarium?", "They loved the sharks.",
			"How was the trip? Did the kids like the aquarium?"},
		{"en no question", "I finally fixed the fence yesterday.", "Nice work, it looked wobbly.", ""},
		{"en no turn before", "", "I moved to Porto in March.", ""},
		{"zh one question", "李娜：太好了！你为什么开始学大提琴？", "王芳：因为小时候听过一场音乐会。我一直记得。", "你为什么开始学大提琴？"},
		{"zh no question", "我昨天修好了篱笆。", "干得好。", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, err := e.MessageEvents("acme", "ann", "m1", tc.text, at)
			if err != nil {
				t.Fatal(err)
			}
			evs, err := e.ReplyEvents("acme", "ann", "m1", tc.text, tc.replyTo, at)
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != len(plain) {
				t.Fatalf("%d records with the turn before, %d without: its question is no record of its own", len(evs), len(plain))
			}
			for i, ev := range evs {
				o := ev.Body.(*events.MemoryObserved).Observation
				if o.Context != tc.want {
					t.Errorf("record %s: context %q, want %q", o.ID, o.Context, tc.want)
				}
				if p := plain[i].Body.(*events.MemoryObserved).Observation; o.Text != p.Text || o.ID != p.ID {
					t.Errorf("record %s %q, without the turn before %s %q", o.ID, o.Text, p.ID, p.Text)
				}
			}
		})
	}
}

// applyReply writes a user's message replying to replyTo as the service
// does and returns the records' ids.
func applyReply(t *testing.T, e *Engine, s applier, tenant, user, id, text, replyTo string, at time.Time) []string {
	t.Helper()
	evs, err := e.ReplyEvents(tenant, user, id, text, replyTo, at.UnixNano())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ev := range evs {
		ev.Kind = ev.Body.Kind()
		if err := s.apply(e, ev); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ev.Body.(*events.MemoryObserved).ID)
	}
	return ids
}

// replyLog writes, for tenant and user, a few messages about other things
// and then answer as a reply to question, one second apart, and returns
// the answer's record ids.
func replyLog(t *testing.T, e *Engine, s applier, tenant, user string, others []string, question, answer string, at time.Time) []string {
	t.Helper()
	for i, o := range others {
		applyReply(t, e, s, tenant, user, fmt.Sprintf("o%d", i), o, "", at.Add(time.Duration(i)*time.Second))
	}
	return applyReply(t, e, s, tenant, user, "answer", answer, question, at.Add(time.Duration(len(others))*time.Second))
}

// replyCases are answers that share no word with the question they answer,
// English and Chinese, with a recall in the question's words and a few
// messages about other things.
var replyCases = []struct {
	name, question, answer, query, word string // word: of the question alone
	others                              []string
}{
	{"en", "Bo: What got you hooked on the cello?", "Ann: A concert my aunt took me to when I was nine.",
		"What got Ann hooked on the cello?", "cello",
		[]string{"Ann: I repainted the kitchen last weekend.", "Ann: My dog Pixel hates thunderstorms.", "Ann: The bakery on our street closed."}},
	{"zh", "李娜：你为什么迷上了大提琴？", "王芳：因为九岁那年姑姑带我去听了一场音乐会。", "王芳为什么迷上了大提琴？", "大提琴",
		[]string{"王芳：上周末我把厨房重新刷了一遍。", "王芳：我的狗很怕打雷。", "王芳：我们街上的面包店关门了。"}},
}

// TestAnAnswerIsFoundByTheQuestionItKeeps: a recall in the words of the
// question finds its answer first, by words alone (no vectors), though the
// answer says none of them; written without the turn before it is not
// found (tried: with ReplyEvents ignoring replyTo this fails).
func TestAnAnswerIsFoundByTheQuestionItKeeps(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range replyCases {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			ids := replyLog(t, e, s, "acme", "ann", tc.others, tc.question, tc.answer, at)
			res, err := e.Recall(s.reader(), Query{Tenant: "acme", User: "ann", Text: tc.query, K: 3, At: at.Add(time.Hour).UnixNano()})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Records) == 0 || !slices.Contains(ids, res.Records[0].Record.ID) {
				t.Fatalf("%q: recalled %v, want the answer %v first", tc.query, hitIDs(res.Records), ids)
			}
			if r := res.Records[0].Record; r.Text != strings.TrimSpace(afterSpeakerKeep(tc.answer, r.Text)) || r.Context == "" {
				t.Errorf("the answer reads %q with context %q: its text is what was said, its question its context", r.Text, r.Context)
			}
		})
	}
}

// afterSpeakerKeep returns got when the answer holds it (a record's text
// is a sentence of its message), else answer.
func afterSpeakerKeep(answer, got string) string {
	if strings.Contains(answer, got) {
		return got
	}
	return answer
}

func hitIDs(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Record.ID)
	}
	return out
}

// TestAQuestionKeptAsContextStaysWithItsUser: the question ann's answer
// keeps reaches no other user's recall (bob of the same tenant, ann of
// another tenant, who have messages of their own), in English and Chinese,
// with the shipped word vectors as the matcher, while ann finds it.
func TestAQuestionKeptAsContextStaysWithItsUser(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	emb, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range replyCases {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			s := newPebbleStore(t)
			ids := replyLog(t, e, s, "acme", "ann", nil, tc.question, tc.answer, at)
			for _, o := range [][2]string{{"acme", "bob"}, {"globex", "ann"}} {
				replyLog(t, e, s, o[0], o[1], tc.others, "", tc.others[0], at)
			}
			for _, o := range [][2]string{{"acme", "ann"}, {"acme", "bob"}, {"globex", "ann"}} {
				res, err := e.Recall(s.reader(), Query{Tenant: o[0], User: o[1], Text: tc.query, K: 10, Matcher: emb,
					At: at.Add(time.Hour).UnixNano()})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range res.Records {
					r := h.Record
					if r.Tenant != o[0] || r.User != o[1] || (o != [2]string{"acme", "ann"} && r.Context != "") {
						t.Errorf("%s/%s recalled %s/%s %s %q (context %q)", o[0], o[1], r.Tenant, r.User, r.ID, r.Text, r.Context)
					}
				}
				if o == [2]string{"acme", "ann"} && (len(res.Records) == 0 || !slices.Contains(ids, res.Records[0].Record.ID)) {
					t.Errorf("ann recalled %v, want her answer %v first", hitIDs(res.Records), ids)
				}
			}
		})
	}
}

// TestForgettingAnAnswerForgetsItsQuestion: forgetting the records of an
// answer forgets the question they keep: no recall in its words finds
// anything, no event that still opens says it once their keys are
// destroyed, and neither the live view nor the rebuilt one holds it.
func TestForgettingAnAnswerForgetsItsQuestion(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range replyCases {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine(Config{}, nil)
			live := newPebbleStore(t)
			var log []*events.Event
			rec := &logRecorder{s: live, log: &log}
			ids := replyLog(t, e, rec, "acme", "ann", tc.others, tc.question, tc.answer, at)
			asked := questionsOf(tc.question)
			if asked == "" {
				t.Fatalf("%q asks nothing", tc.question)
			}
			if _, ok := rawContains(live.reader(), []byte(strings.ToLower(tc.word))); !ok {
				t.Fatalf("the view does not hold %q before the forgetting: the test proves nothing", tc.word)
			}
			destroyed := map[string]bool{}
			for i, id := range ids {
				ev := &events.Event{ID: fmt.Sprintf("forget-%d", i), Tenant: "acme", User: "ann", At: at.Add(time.Hour).UnixNano(),
					Body: &events.MemoryForgotten{ID: id}}
				if err := rec.apply(e, ev); err != nil {
					t.Fatal(err)
				}
				gone, err := e.Forgotten(live.reader(), "acme", "ann", id)
				if err != nil || !slices.Contains(gone, id) {
					t.Fatalf("Forgotten(%s) = %v, %v", id, gone, err)
				}
				for _, g := range gone {
					destroyed["acme|"+events.RecordScope("ann", g)] = true
				}
			}
			res, err := e.Recall(live.reader(), Query{Tenant: "acme", User: "ann", Text: tc.query, K: 10, At: at.Add(2 * time.Hour).UnixNano()})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Records {
				if slices.Contains(ids, h.Record.ID) || h.Record.Context != "" {
					t.Errorf("after forgetting, %q recalled %s %q (context %q)", tc.query, h.Record.ID, h.Record.Text, h.Record.Context)
				}
			}
			for _, l := range log {
				if scope := SealScope(l); scope == "" || !destroyed[l.Tenant+"|"+scope] {
					if o, ok := l.Body.(*events.MemoryObserved); ok && strings.Contains(o.Context, asked) {
						t.Errorf("%s still opens and keeps the question %q", l.ID, o.Context)
					}
				}
			}
			rebuilt := rebuildErased(t, e, log, destroyed)
			for name, s := range map[string]projector.Reader{"live": live.reader(), "rebuilt": rebuilt.reader()} {
				for _, w := range []string{asked, tc.word} {
					if where, ok := rawContains(s, []byte(strings.ToLower(w))); ok {
						t.Errorf("the %s view holds %q of the forgotten question in %s", name, w, where)
					}
				}
			}
		})
	}
}

// logRecorder applies events to a store and keeps them as its log.
type logRecorder struct {
	s   *pebbleStore
	log *[]*events.Event
}

func (r *logRecorder) apply(e *Engine, ev *events.Event) error {
	ev.Kind = ev.Body.Kind()
	*r.log = append(*r.log, ev)
	return r.s.apply(e, ev)
}

// TestARecordKeepingItsQuestionTakesNoSecondShareOfIt: a record that keeps
// the question its message answered (Record.Context) was indexed and
// embedded with it, so it does not stand where the question would
// (withContext) and its cosine is not raised with that turn's
// (readWithTheTurnBefore); it takes ctxWeight of the turn's best as any
// record does. The same record without a context is read with the
// question and stands where it would.
func TestARecordKeepingItsQuestionTakesNoSecondShareOfIt(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).UnixNano()
	for _, context := range []string{"", "What got you hooked on the cello?"} {
		hits := []Hit{
			{Record: Record{ID: "q", Kind: KindEpisode, Text: "What got you hooked on the cello?", ObservedAt: at}, Score: 0.6},
			{Record: Record{ID: "a", Kind: KindEpisode, Text: "A concert my aunt took me to.", Context: context, ObservedAt: at + int64(time.Second)}, Score: 0.2},
		}
		q := []float32{1, 0}
		xs := [][]float32{{1, 0}, {0.6, 0.8}}
		cos := []float64{cosine(q, xs[0]), cosine(q, xs[1])}
		own := cos[1]
		read := readWithTheTurnBefore(q, hits, cos, xs)
		withContext(hits, read)
		raised, score := cos[1] > own, hits[1].Score
		if context == "" && (!raised || score != 0.6/questionWeight) {
			t.Errorf("without a context: cosine %.3f (raised %v), score %.3f; want it read with the question and standing where it would (%.3f)",
				cos[1], raised, score, 0.6/questionWeight)
		}
		if want := 0.2 + ctxWeight*0.6; context != "" && (raised || score != want) {
			t.Errorf("keeping its question: cosine %.3f (raised %v), score %.3f; want %.3f and %.3f (its own and ctxWeight of the turn's best)",
				cos[1], raised, score, own, want)
		}
	}
}
