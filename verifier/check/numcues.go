package check

import (
	"strings"

	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// ---- the words around a claimed number -------------------------------------

// attachNumberCues gives each number the cues written next to it: about
// 20, more than 10, 3 天以内, 20 左右, and the noun after it.
func (rd *reading) attachNumberCues() {
	for k := range rd.nums {
		m := &rd.nums[k]
		if m.Free {
			// "free shipping": the word after names what is free.
			for i := range rd.words {
				if w := &rd.words[i]; w.Start >= m.End && w.Info != nil && len(w.Info.Concepts) > 0 {
					m.Head, m.HeadEnd = w.Info.Concepts, w.End
					break
				}
			}
			continue
		}
		prevWords, nextWords := 0, 0
		apart := false // a word of content or a stop mark between a word and the number
		// "under a 3,000-foot waiver": a number joined to its unit by a
		// hyphen is part of a noun's name; a bound word with a word
		// between bounds the noun, not the number.
		named := m.Unit != nil && strings.Contains(string(rd.norm[m.Start:m.End]), "-")
		for i := len(rd.words) - 1; i >= 0 && prevWords < 3; i-- {
			w := &rd.words[i]
			if w.End > m.Start {
				continue
			}
			prevWords++
			c := w.Cues()
			if c&evidence.CueApprox != 0 {
				m.Approx = true
			}
			apart = apart || !w.Cjk && strings.ContainsAny(string(rd.norm[w.End:m.Start]), ":;,")
			if b := c & (evidence.CueGT | evidence.CueGE | evidence.CueLT | evidence.CueLE); b != 0 && m.Bound == 0 && !apart {
				m.Bound = firstBound(b)
			}
			// "under budget at $2,500", "ran over: $4,125": a bound word
			// with a noun or a colon between it and the number bounds
			// the noun, or nothing, not the number.
			apart = apart || !w.Cjk && c&(evidence.CueGT|evidence.CueGE|evidence.CueLT|evidence.CueLE|evidence.CueApprox) == 0 &&
				(w.Info == nil || len(w.Info.Concepts) > 0 || named)
			if c&evidence.CueStop == 0 && w.Info != nil && len(w.Info.Concepts) > 0 && prevWords > 1 {
				break
			}
		}
		if m.Start > 0 {
			switch rd.norm[m.Start-1] {
			case '~', '≈':
				m.Approx = true
			case '>':
				m.Bound = evidence.CueGT
			case '<':
				m.Bound = evidence.CueLT
			case '≥':
				m.Bound = evidence.CueGE
			case '≤':
				m.Bound = evidence.CueLE
			}
		}
		if m.End < len(rd.norm) && rd.norm[m.End] == '+' {
			m.Bound = evidence.CueGE
		}
		if c, ok := measureConcepts[m.UnitWord]; ok {
			m.Head = c
		}
		if m.UnitWord == "折" {
			m.Head = []string{"price", "discount"}
		}
		// The words just before the number, back to the previous number or
		// subject: "商品 A 可用库存 12 件", "weighs about 4.4 lb".
		from := max(0, m.Start-16)
		for _, o := range rd.nums {
			if o.End <= m.Start && o.HeadEnd > from {
				from = min(o.HeadEnd, m.Start) // "1 bag up to 23 kg": bag is 1's
			}
		}
		for _, sp := range rd.named.Spans {
			if sp[1] <= m.Start && sp[1] > from {
				from = sp[1]
			}
		}
		m.Local = evidence.Dedupe(append(rd.conceptsIn(from, m.Start), m.Head...))
		for i := len(rd.words) - 1; i >= 0; i-- {
			w := &rd.words[i]
			if w.End > m.Start || w.Start < from {
				continue
			}
			c := rd.conceptsIn(w.Start, w.End)
			if len(c) == 0 {
				continue
			}
			m.Near = c
			// A compound: 促销价 (a one-ideograph head), "sale price".
			if i > 0 {
				p := &rd.words[i-1]
				if p.Start >= from && (w.Cjk && w.End-w.Start == 1 && p.Cjk || !w.Cjk && !p.Cjk && p.Info != nil && len(p.Info.Concepts) > 0 && p.End+1 == w.Start) {
					m.Near = evidence.Dedupe(append(c, rd.conceptsIn(p.Start, p.End)...))
				}
			}
			break
		}
		headDone := false
		for i := range rd.words {
			w := &rd.words[i]
			if w.Start < m.End || nextWords >= 4 {
				continue
			}
			if w.Info == nil || w.Info.Cues&evidence.CueStop == 0 || nextWords == 0 {
				nextWords++ // stop words ("的", "of") do not count
			}
			c := w.Cues()
			switch {
			case c&evidence.CueAfterGE != 0:
				m.Bound = evidence.CueGE
			case w.S == "左右" || w.S == "上下" || w.S == "or so":
				m.Approx = true
			case w.S == "多" && nextWords == 1 && w.Start <= m.End+1:
				m.Bound = evidence.CueGT // "3000多条": more than 3000
			case c&evidence.CueLE != 0 && (w.Cjk || w.S == "or less"):
				m.Bound = evidence.CueLE
			}
			if w.Start < len(rd.used) && rd.used[w.Start] || headDone {
				continue
			}
			if w.Info != nil && w.Info.Cues&evidence.CueStop != 0 && len(w.Info.Concepts) == 0 {
				continue
			}
			// The first word after the number that is not a stop word is its
			// noun, if anything is: "30 in stock", "$348 … with free
			// shipping" has none.
			headDone = true
			if m.HeadWord == "" {
				m.HeadWord = w.S // "三个班", "3 warehouses": what is counted
			}
			if w.Info != nil && len(w.Info.Concepts) > 0 && m.Head == nil {
				m.Head, m.HeadEnd = w.Info.Concepts, w.End
			} else if w.Info == nil && !w.Cjk && m.Head == nil && nextWords <= 2 {
				m.Head = evidence.WordConcepts(w.S)
				if m.Head != nil {
					m.HeadEnd = w.End
				}
			} else if w.Info == nil && w.Cjk && m.Head == nil && nextWords <= 2 {
				// 200 元违约金: the unknown words after the number, as bigrams.
				e := w.End
				for e < len(rd.norm) && lang.IsCJK(rd.norm[e]) && !rd.used[e] && e-w.Start < 6 {
					if l := evidence.ZhLex[string(rd.norm[e])]; l != nil && l.Cues&evidence.CueStop != 0 {
						break
					}
					e++
				}
				if c := evidence.SegmentCJK(rd.norm[w.Start:e]); e-w.Start >= 2 {
					m.Head, m.HeadEnd = c, e
				}
			}
		}
	}
}

func firstBound(b evidence.Cue) evidence.Cue {
	for _, c := range []evidence.Cue{evidence.CueGT, evidence.CueGE, evidence.CueLT, evidence.CueLE} {
		if b&c != 0 {
			return c
		}
	}
	return 0
}

// measureConcepts say what a Chinese measure word counts: 2 人 are guests.
var measureConcepts = conceptsByWord("measure concepts")

// conceptsByWord returns a section of concept lines (concept = words) as
// each word's concepts.
func conceptsByWord(section string) map[string][]string {
	m := map[string][]string{}
	for _, l := range evidence.LangData.Lines(section) {
		for _, w := range l.Words {
			m[w] = append(m[w], l.Name)
		}
	}
	return m
}

// feeWords name a charge: "no fee", 不收手续费 state a price of zero.
var feeWords = evidence.LangData.Set("fee words")

// payVerbs are words.txt's [pay verbs]: between a negation and a fee word
// they take the negation (还没付定金 is the paying not done, no price of zero).
var payVerbs = evidence.LangData.Set("pay verbs")

// noNeedWords are words.txt's [no need words]: after a negation or as one
// (无需), a pay verb after them is no act negated ("no need to pay a
// deposit" is a deposit of zero).
var noNeedWords = evidence.LangData.Set("no need words")

// saysPaying reports whether Chinese word w holds a pay verb (没交, 未付).
func saysPaying(w string) bool {
	for v := range payVerbs {
		if r := []rune(v); lang.IsCJK(r[0]) && strings.Contains(w, v) {
			return true
		}
	}
	return false
}
