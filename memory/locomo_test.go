package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory/embed"
	"github.com/toolstream/toolstream/memory/embed/local"
	"github.com/toolstream/toolstream/memory/embed/use"
)

// TestLoCoMoRecall measures recall on LoCoMo (Maharana et al., 2024:
// ten long conversations of two people, 5,882 turns over up to 35
// sessions, 1,986 questions each with the turns that answer it). The data
// set is CC BY-NC and is not in the repository: get it from the
// snap-research/locomo repository (the locomo10 JSON file in data/, or the directory
// data/multimodal_dialog/locomo10_v2 of data/locomo10.zip: the same
// conversations, one file each) and run
//
//	TOOLSTREAM_LOCOMO=path go test ./memory -run TestLoCoMoRecall -v -count=1
//
// Each conversation is one user's memory, written twice: each turn an
// episode of its own (recall alone is measured), then each turn that
// user's message (Engine.ReplyEvents, the product's write path: the
// extractor splits it into statements, the turn before in its session
// is the turn it replies to, and the default quota
// (QuotaPerUserDefault) applies), and once so without a quota. A turn's text is "Speaker: text",
// with "[shares a photo of …]" when it shares an image, at its session's
// time. Each question is a recall (K 10) at the time of the
// conversation's last turn; it counts as found when any of its evidence
// turns is among the turns (messages) of the records returned
// (recall_any@10). Printed: lexical recall, and hybrid recall with the
// shipped word vectors (memory/embed/local as the Query's Matcher, as the
// service recalls without an embeddings service), per category and
// overall, and without category 5 (questions about things never said,
// whose evidence is the turn they twist).
// It fails when hybrid recall is under lexical recall, or, for turns as
// episodes, under TOOLSTREAM_LOCOMO_MIN when that is set.
func TestLoCoMoRecall(t *testing.T) {
	path := os.Getenv("TOOLSTREAM_LOCOMO")
	if path == "" {
		t.Skip("TOOLSTREAM_LOCOMO is not set: the LoCoMo data set (CC BY-NC) is not in the repository; see the test's doc")
	}
	convs, err := loadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := local.New()
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ found, n int }
	modes := []string{"lexical", "hybrid"}
	var sent *cachedEmbedder
	if os.Getenv("TOOLSTREAM_LOCOMO_SENTENCES") == "1" {
		enc, err := use.New()
		if err != nil {
			t.Fatal(err)
		}
		sent = &cachedEmbedder{Embedder: enc, cache: map[string][]float32{}}
		modes = append(modes, "sentences")
		// TOOLSTREAM_LOCOMO_VECTORS names a file that keeps the vectors
		// between runs (the encoder takes minutes over LoCoMo's texts)
		if f := os.Getenv("TOOLSTREAM_LOCOMO_VECTORS"); f != "" {
			if b, err := os.ReadFile(f); err == nil {
				if err := json.Unmarshal(b, &sent.cache); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
			}
			defer func() {
				b, err := json.Marshal(sent.cache)
				if err == nil {
					err = os.WriteFile(f, b, 0o644)
				}
				if err != nil {
					t.Error(err)
				}
			}()
		}
	}
	// TOOLSTREAM_LOCOMO_MISSES names a file that gets, for each question
	// the last mode misses, its gold turns' ranks and scores (dumpMiss)
	var background [][]float32 // the encoder's, as Service.recall asks for them
	if sent != nil {
		if background, err = Background(context.Background(), sent); err != nil {
			t.Fatal(err)
		}
	}
	var misses *os.File
	if f := os.Getenv("TOOLSTREAM_LOCOMO_MISSES"); f != "" {
		if misses, err = os.Create(f); err != nil {
			t.Fatal(err)
		}
		defer misses.Close()
	}
	// TOOLSTREAM_LOCOMO_QUESTIONS names a file that gets one line for
	// each question and mode (tab-separated: the write, the mode, the
	// conversation, the question's index in its qa list, its category,
	// 1 when found and 0 when missed, the question), so two runs can be
	// diffed question by question
	var questions *os.File
	if f := os.Getenv("TOOLSTREAM_LOCOMO_QUESTIONS"); f != "" {
		if questions, err = os.Create(f); err != nil {
			t.Fatal(err)
		}
		defer questions.Close()
	}
	writes := []string{"episode", "message", "message without quota"}
	if s := os.Getenv("TOOLSTREAM_LOCOMO_WRITES"); s != "" { // some of them, comma-separated
		writes = strings.Split(s, ",")
	}
	for _, write := range writes {
		if !slices.Contains([]string{"episode", "message", "message without quota"}, write) {
			t.Fatalf("TOOLSTREAM_LOCOMO_WRITES: %q is not a way to write", write)
		}
		byCat := map[string]map[int]*tally{}
		took := map[string][]time.Duration{}
		activeMax := 0
		for _, m := range modes {
			byCat[m] = map[int]*tally{}
		}
		for _, c := range convs {
			cfg := Config{}
			if write == "message without quota" {
				cfg.QuotaPerUser = -1
			}
			e := NewEngine(cfg, nil)
			store := newMapStore()
			const tenant = "locomo"
			user := c.id
			var last int64
			for n, turn := range c.turns {
				var evs []*events.Event
				if write != "episode" {
					replyTo := "" // the turn before, in the same session
					if n > 0 && turn.at-c.turns[n-1].at <= int64(ctxGap) {
						replyTo = c.turns[n-1].text
					}
					if evs, err = e.ReplyEvents(tenant, user, turn.id, turn.text, replyTo, turn.at); err != nil {
						t.Fatalf("%s %s: %v", c.id, turn.id, err)
					}
				} else {
					evs = []*events.Event{{ID: "turn-" + turn.id, Tenant: tenant, User: user, At: turn.at,
						Body: &events.MemoryObserved{Observation: events.Observation{ID: turn.id, Kind: string(KindEpisode), Text: turn.text}}}}
				}
				for _, ev := range evs {
					ev.Kind = ev.Body.Kind()
					if err := store.apply(e, ev); err != nil {
						t.Fatalf("%s %s: %v", c.id, turn.id, err)
					}
				}
				last = turn.at
			}
			if sent != nil { // the vectors a service with the encoder records at each write
				recs, err := e.List(store, tenant, user, false)
				if err != nil {
					t.Fatal(err)
				}
				evs, err := EmbedEvents(context.Background(), sent, tenant, user, recs, last)
				if err != nil {
					t.Fatal(err)
				}
				for _, ev := range evs {
					ev.Kind = ev.Body.Kind()
					if err := store.apply(e, ev); err != nil {
						t.Fatal(err)
					}
				}
			}
			if k, err := owner(tenant, user); err == nil {
				if m, err := readMeta(store, k); err == nil {
					activeMax = max(activeMax, m.Active)
				}
			}
			for i, qa := range c.qa {
				if len(qa.evidence) == 0 {
					continue
				}
				for _, m := range modes {
					q := Query{Tenant: tenant, User: user, Text: qa.question, K: 10, At: last}
					if m != "lexical" {
						q.Matcher = emb
					}
					if m == "sentences" {
						vs, err := sent.Embed(context.Background(), []string{qa.question})
						if err != nil {
							t.Fatal(err)
						}
						q.Vector, q.Model, q.Background = vs[0], sent.Model(), background
					}
					t0 := time.Now()
					res, err := e.Recall(store, q)
					if err != nil {
						t.Fatal(err)
					}
					took[m] = append(took[m], time.Since(t0))
					found := false
					for _, h := range res.Records {
						msg, _, _ := strings.Cut(h.Record.ID, "#")
						if qa.evidence[msg] {
							found = true
						}
					}
					tl := byCat[m][qa.category]
					if tl == nil {
						tl = &tally{}
						byCat[m][qa.category] = tl
					}
					tl.n++
					if found {
						tl.found++
					}
					if questions != nil {
						f := 0
						if found {
							f = 1
						}
						if _, err := fmt.Fprintf(questions, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", write, m, c.id, i, qa.category, f, qa.question); err != nil {
							t.Fatal(err)
						}
					}
					if !found && misses != nil && m == modes[len(modes)-1] {
						if err := dumpMiss(misses, e, store, write, c.id, qa, q, res, emb); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
		overall := map[string]float64{}
		for _, m := range modes {
			var cats []int
			for c := range byCat[m] {
				cats = append(cats, c)
			}
			sort.Ints(cats)
			var all, no5 tally
			var line []string
			for _, c := range cats {
				tl := byCat[m][c]
				line = append(line, fmt.Sprintf("cat %d %.3f (%d)", c, float64(tl.found)/float64(tl.n), tl.n))
				all.found += tl.found
				all.n += tl.n
				if c != 5 {
					no5.found += tl.found
					no5.n += tl.n
				}
			}
			overall[m] = float64(all.found) / float64(all.n)
			t.Logf("turns as %s, %-7s recall_any@10 %.3f of %d questions (%.3f without category 5); %s; recall p50 %v (up to %d active records)", write, m, overall[m], all.n,
				float64(no5.found)/float64(no5.n), strings.Join(line, ", "), percentile(took[m], 50).Round(10*time.Microsecond), activeMax)
		}
		if overall["hybrid"] < overall["lexical"] {
			t.Errorf("turns as %s: hybrid recall %.3f is under lexical recall %.3f", write, overall["hybrid"], overall["lexical"])
		}
		if s := os.Getenv("TOOLSTREAM_LOCOMO_MIN"); s != "" && write == "episode" {
			var min float64
			if _, err := fmt.Sscan(s, &min); err != nil {
				t.Fatalf("TOOLSTREAM_LOCOMO_MIN=%q: %v", s, err)
			}
			if overall["hybrid"] < min {
				t.Errorf("turns as episodes: hybrid recall_any@10 %.3f is under TOOLSTREAM_LOCOMO_MIN %.3f", overall["hybrid"], min)
			}
		}
	}
}

// cachedEmbedder embeds each text once (LoCoMo writes the same turns
// three ways), the misses of a call on two goroutines.
type cachedEmbedder struct {
	embed.Embedder
	cache map[string][]float32
}

func (c *cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var miss []string
	for _, s := range texts {
		if _, ok := c.cache[s]; !ok && !slices.Contains(miss, s) {
			miss = append(miss, s)
		}
	}
	half := len(miss) / 2
	var wg sync.WaitGroup
	var errs [2]error
	var got [2][][]float32
	for i, part := range [][]string{miss[:half], miss[half:]} {
		wg.Go(func() { got[i], errs[i] = c.Embedder.Embed(ctx, part) })
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	for i, s := range miss {
		if i < half {
			c.cache[s] = got[0][i]
		} else {
			c.cache[s] = got[1][i-half]
		}
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		out[i] = c.cache[s]
	}
	return out, nil
}

type locomoConv struct {
	id    string
	turns []locomoTurn
	qa    []locomoQA
}

type locomoTurn struct {
	id, text string
	at       int64
}

type locomoQA struct {
	question string
	category int
	evidence map[string]bool
}

// loadLoCoMo reads the locomo10 JSON file (a list of samples, each with
// sample_id, conversation and qa) or a directory of one conversation per
// file (its keys at the top: speaker_a, session_N, …, qa).
func loadLoCoMo(path string) ([]locomoConv, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	type sample struct {
		ID   string                     `json:"sample_id"`
		Conv map[string]json.RawMessage `json:"conversation"`
		QA   json.RawMessage            `json:"qa"`
	}
	var samples []sample
	if fi.IsDir() {
		files, err := filepath.Glob(filepath.Join(path, "*.json"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			samples = append(samples, sample{ID: strings.TrimSuffix(filepath.Base(f), ".json"), Conv: m, QA: m["qa"]})
		}
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &samples); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	var out []locomoConv
	for _, s := range samples {
		c := locomoConv{id: "conv-" + strings.TrimPrefix(s.ID, "conv-")}
		for n := 1; ; n++ {
			raw, ok := s.Conv[fmt.Sprintf("session_%d", n)]
			if !ok {
				if _, more := s.Conv[fmt.Sprintf("session_%d_date_time", n)]; more {
					continue // a session with a date and no turns
				}
				break
			}
			var when string
			_ = json.Unmarshal(s.Conv[fmt.Sprintf("session_%d_date_time", n)], &when)
			at, err := time.Parse("3:04 pm on 2 January, 2006", when)
			if err != nil {
				return nil, fmt.Errorf("%s session %d: date %q: %w", s.ID, n, when, err)
			}
			var turns []struct {
				Speaker string `json:"speaker"`
				DiaID   string `json:"dia_id"`
				Text    string `json:"text"`
				Caption string `json:"blip_caption"`
			}
			if err := json.Unmarshal(raw, &turns); err != nil {
				return nil, fmt.Errorf("%s session %d: %w", s.ID, n, err)
			}
			for i, tu := range turns {
				text := tu.Speaker + ": " + tu.Text
				if tu.Caption != "" {
					text += " [shares " + tu.Caption + "]"
				}
				c.turns = append(c.turns, locomoTurn{id: tu.DiaID, text: text, at: at.Add(time.Duration(i) * time.Second).UnixNano()})
			}
		}
		var qas []struct {
			Question string          `json:"question"`
			Category int             `json:"category"`
			Evidence json.RawMessage `json:"evidence"`
		}
		if err := json.Unmarshal(s.QA, &qas); err != nil {
			return nil, fmt.Errorf("%s qa: %w", s.ID, err)
		}
		for _, q := range qas {
			var ev []string
			_ = json.Unmarshal(q.Evidence, &ev)
			set := map[string]bool{}
			for _, e := range ev {
				// a few entries hold several ids ("D8:6; D9:17")
				for _, id := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
					set[id] = true
				}
			}
			c.qa = append(c.qa, locomoQA{question: q.Question, category: q.Category, evidence: set})
		}
		out = append(out, c)
	}
	return out, nil
}

var (
	_ embed.Embedder = (*local.Words)(nil)
	_ Matcher        = (*local.Words)(nil)
)
