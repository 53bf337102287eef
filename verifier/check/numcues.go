package check

import "github.com/toolstream/toolstream/internal/lang"

// ---- the words around a claimed number -------------------------------------

// attachNumberCues gives each number the cues written next to it: about
// 20, more than 10, 3 天以内, 20 左右, and the noun after it.
func (rd *reading) attachNumberCues() {
	for k := range rd.nums {
		m := &rd.nums[k]
		if m.free {
			// "free shipping": the word after names what is free.
			for i := range rd.words {
				if w := &rd.words[i]; w.start >= m.end && w.info != nil && len(w.info.concepts) > 0 {
					m.head, m.headEnd = w.info.concepts, w.end
					break
				}
			}
			continue
		}
		prevWords, nextWords := 0, 0
		for i := len(rd.words) - 1; i >= 0 && prevWords < 3; i-- {
			w := &rd.words[i]
			if w.end > m.start {
				continue
			}
			prevWords++
			c := w.cues()
			if c&cueApprox != 0 {
				m.approx = true
			}
			if b := c & (cueGT | cueGE | cueLT | cueLE); b != 0 && m.bound == 0 {
				m.bound = firstBound(b)
			}
			if c&cueStop == 0 && w.info != nil && len(w.info.concepts) > 0 && prevWords > 1 {
				break
			}
		}
		if m.start > 0 {
			switch rd.norm[m.start-1] {
			case '~', '≈':
				m.approx = true
			case '>':
				m.bound = cueGT
			case '<':
				m.bound = cueLT
			case '≥':
				m.bound = cueGE
			case '≤':
				m.bound = cueLE
			}
		}
		if m.end < len(rd.norm) && rd.norm[m.end] == '+' {
			m.bound = cueGE
		}
		if c, ok := measureConcepts[m.unitWord]; ok {
			m.head = c
		}
		if m.unitWord == "折" {
			m.head = []string{"price", "discount"}
		}
		// The words just before the number, back to the previous number or
		// subject: "商品 A 可用库存 12 件", "weighs about 4.4 lb".
		from := max(0, m.start-16)
		for _, o := range rd.nums {
			if o.end <= m.start && o.headEnd > from {
				from = min(o.headEnd, m.start) // "1 bag up to 23 kg": bag is 1's
			}
		}
		for _, sp := range rd.named.spans {
			if sp[1] <= m.start && sp[1] > from {
				from = sp[1]
			}
		}
		m.local = dedupe(append(rd.conceptsIn(from, m.start), m.head...))
		for i := len(rd.words) - 1; i >= 0; i-- {
			w := &rd.words[i]
			if w.end > m.start || w.start < from {
				continue
			}
			c := rd.conceptsIn(w.start, w.end)
			if len(c) == 0 {
				continue
			}
			m.near = c
			// A compound: 促销价 (a one-ideograph head), "sale price".
			if i > 0 {
				p := &rd.words[i-1]
				if p.start >= from && (w.cjk && w.end-w.start == 1 && p.cjk || !w.cjk && !p.cjk && p.info != nil && len(p.info.concepts) > 0 && p.end+1 == w.start) {
					m.near = dedupe(append(c, rd.conceptsIn(p.start, p.end)...))
				}
			}
			break
		}
		headDone := false
		for i := range rd.words {
			w := &rd.words[i]
			if w.start < m.end || nextWords >= 4 {
				continue
			}
			if w.info == nil || w.info.cues&cueStop == 0 || nextWords == 0 {
				nextWords++ // stop words ("的", "of") do not count
			}
			c := w.cues()
			switch {
			case c&cueAfterGE != 0:
				m.bound = cueGE
			case w.s == "左右" || w.s == "上下" || w.s == "or so":
				m.approx = true
			case w.s == "多" && nextWords == 1 && w.start <= m.end+1:
				m.bound = cueGT // "3000多条": more than 3000
			case c&cueLE != 0 && (w.cjk || w.s == "or less"):
				m.bound = cueLE
			}
			if w.start < len(rd.used) && rd.used[w.start] || headDone {
				continue
			}
			if w.info != nil && w.info.cues&cueStop != 0 && len(w.info.concepts) == 0 {
				continue
			}
			// The first word after the number that is not a stop word is its
			// noun, if anything is: "30 in stock", "$348 … with free
			// shipping" has none.
			headDone = true
			if m.headWord == "" {
				m.headWord = w.s // "三个班", "3 warehouses": what is counted
			}
			if w.info != nil && len(w.info.concepts) > 0 && m.head == nil {
				m.head, m.headEnd = w.info.concepts, w.end
			} else if w.info == nil && !w.cjk && m.head == nil && nextWords <= 2 {
				m.head = wordConcepts(w.s)
				if m.head != nil {
					m.headEnd = w.end
				}
			} else if w.info == nil && w.cjk && m.head == nil && nextWords <= 2 {
				// 200 元违约金: the unknown words after the number, as bigrams.
				e := w.end
				for e < len(rd.norm) && lang.IsCJK(rd.norm[e]) && !rd.used[e] && e-w.start < 6 {
					if l := zhLex[string(rd.norm[e])]; l != nil && l.cues&cueStop != 0 {
						break
					}
					e++
				}
				if c := segmentCJK(rd.norm[w.start:e]); e-w.start >= 2 {
					m.head, m.headEnd = c, e
				}
			}
		}
	}
}

func firstBound(b cue) cue {
	for _, c := range []cue{cueGT, cueGE, cueLT, cueLE} {
		if b&c != 0 {
			return c
		}
	}
	return 0
}

// measureConcepts say what a Chinese measure word counts: 2 人 are guests.
var measureConcepts = func() map[string][]string {
	m := map[string][]string{}
	for _, l := range langData.Lines("measure concepts") {
		for _, w := range l.Words {
			m[w] = append(m[w], l.Name)
		}
	}
	return m
}()

// feeWords name a charge: "no fee", 不收手续费 state a price of zero.
var feeWords = langData.Set("fee words")
