package memory

import (
	"github.com/toolstream/toolstream/internal/lang"

	"encoding/binary"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/memory/lexical"
)

// The inverted index: one posting "<t>/<u>/ix/<term>/<id>" per term of a
// record's current version, whatever its status, so that recall reads the
// posting lists of the query's terms and loads only the records that can
// make the top K, never every record of the user. A posting's value carries
// what the default hard filters and BM25 need without loading the record:
// status, version, term frequency, document length and validity window.
//
// Terms come from tokenize: lower-cased, English stop words dropped, Porter
// stemming, numbers kept (leading zeros dropped, "1,000" = "1000"),
// CJK as single characters and character bigrams. A record's slot (subject,
// attribute, value) is indexed with its text at slotWeight times the
// weight, which is how a slot match counts in the ranking.

const (
	bm25K1     = 1.2
	bm25B      = 0.75
	slotWeight = 2
	termMax    = 64 // bytes; longer terms are cut
	expandW    = 0.5
)

// posting is the value of an index key. Besides what BM25 needs it
// carries what the hard filters and quality need, so that recall ranks
// candidates exactly without loading them and loads only those it returns.
type posting struct {
	status     Status
	version    int
	tf, dl     int
	validFrom  int64
	validUntil int64
	constraint bool // the record is a constraint
	permission bool // the record has a permission: load it to check the caller's scopes
	question   bool // an episode that asks something (isQuestion): it weighs less
	confidence float64
	observedAt int64 // last said or recalled (Record.touched)
	useCount   int
}

func postingOf(r *Record, tf, dl int) posting {
	return posting{status: r.Status, version: r.Version, tf: tf, dl: dl, validFrom: r.ValidFrom,
		validUntil: r.ValidUntil, constraint: r.Kind == KindConstraint, permission: r.Permission != "",
		question:   r.Kind == KindEpisode && isQuestion(r.Text),
		confidence: r.Confidence, observedAt: r.touched(), useCount: r.UseCount}
}

var statusCodes = []Status{"", StatusActive, StatusNeedsConfirmation, StatusCold, StatusSuperseded, StatusExpired}

func statusCode(s Status) byte {
	for i, c := range statusCodes {
		if c == s {
			return byte(i)
		}
	}
	return 0
}

func encodePosting(p posting) []byte {
	var flags byte
	if p.constraint {
		flags |= 1
	}
	if p.permission {
		flags |= 2
	}
	if p.question {
		flags |= 4
	}
	b := []byte{statusCode(p.status), flags}
	b = putUvarint(b, uint64(p.version))
	b = putUvarint(b, uint64(p.tf))
	b = putUvarint(b, uint64(p.dl))
	b = binary.AppendVarint(b, p.validFrom)
	b = binary.AppendVarint(b, p.validUntil)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.confidence))
	b = binary.AppendVarint(b, p.observedAt)
	b = putUvarint(b, uint64(p.useCount))
	return b
}

func decodePosting(b []byte) (posting, bool) {
	var p posting
	if len(b) < 2 || int(b[0]) >= len(statusCodes) || b[0] == 0 {
		return p, false
	}
	p.status, p.constraint, p.permission, p.question = statusCodes[b[0]], b[1]&1 != 0, b[1]&2 != 0, b[1]&4 != 0
	b = b[2:]
	uv := func() int {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return -1
		}
		b = b[n:]
		return int(v)
	}
	sv := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	p.version, p.tf, p.dl = uv(), uv(), uv()
	p.validFrom, p.validUntil = sv(), sv()
	if len(b) < 8 {
		return p, false
	}
	p.confidence = math.Float64frombits(binary.LittleEndian.Uint64(b))
	b = b[8:]
	p.observedAt = sv()
	p.useCount = uv()
	return p, b != nil && p.version >= 0 && p.tf >= 0 && p.dl >= 0 && p.useCount >= 0
}

// isQuestion reports whether a turn asks something of the assistant: it
// ends with a question mark or 吗, or opens with a request ("give me",
// "can you", "help me", 帮我, 给我 …). What the user asks an assistant is
// seldom what the assistant must remember about them, so such an episode
// weighs questionWeight in recall.
func isQuestion(text string) bool {
	t := strings.TrimRight(text, " \t\r\n\"')”」)）")
	if strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？") || strings.HasSuffix(t, "吗") {
		return true
	}
	t = strings.ToLower(strings.TrimLeft(t, " \t\r\n\"'“「(（"))
	for _, p := range requestOpeners {
		if strings.HasPrefix(t, p) && (len(t) == len(p) || !unicode.IsLetter(rune(t[len(p)])) || p[len(p)-1] >= 0x80) {
			return true
		}
	}
	return false
}

// requestOpeners open a request to the assistant.
var requestOpeners = []string{"can you", "could you", "would you", "will you", "please", "give me", "tell me",
	"show me", "help me", "remind me", "let me know", "recommend", "suggest", "explain", "summarize",
	"summarise", "translate", "write", "draft", "make me", "list", "find me",
	"帮我", "给我", "请", "推荐", "提醒我", "告诉我", "解释", "总结", "翻译", "写一", "列一", "你能", "能不能"}

// termFreq is one term of a document and how often it occurs.
type termFreq struct {
	term string
	tf   int
}

// docTerms returns the record's index terms, sorted, and its length.
func docTerms(r *Record) ([]termFreq, int) {
	counts := map[string]int{}
	for _, t := range tokenize(spokenText(r)) {
		counts[t]++
	}
	if r.Slotted() {
		for _, s := range []string{r.Subject, r.Attribute, r.Value} {
			for _, t := range tokenize(s) {
				counts[t] += slotWeight
			}
		}
	}
	out := make([]termFreq, 0, len(counts))
	dl := 0
	for t, n := range counts {
		out = append(out, termFreq{t, n})
		dl += n
	}
	sort.Slice(out, func(i, j int) bool { return out[i].term < out[j].term })
	return out, dl
}

// qterm is one term of a query and its weight.
type qterm struct {
	term string
	w    float64
}

// queryTerms returns the query's distinct terms in the order they first
// appear, then expansions (a topic word's subject, a Chinese word's English
// slot attribute) at a lower weight.
func queryTerms(text string) []qterm {
	var out []qterm
	seen := map[string]bool{}
	add := func(t string, w float64) {
		if !seen[t] {
			seen[t] = true
			out = append(out, qterm{t, w})
		}
	}
	toks := tokenize(text)
	for _, t := range toks {
		add(t, 1)
	}
	for _, t := range toks {
		if s, ok := topicOf[t]; ok {
			add(s, expandW)
		}
	}
	for _, e := range zhLexicon {
		if strings.Contains(text, e.zh) {
			for _, t := range tokenize(e.en) { // as the slot is indexed
				add(t, expandW)
			}
		}
	}
	return out
}

// topicOf maps a query term to the slot subject it evokes, so that
// "recommend a dish" reaches records about food.
var topicOf = func() map[string]string {
	topics := []struct {
		subject string
		words   []string
	}{
		{"food", []string{"food", "dish", "meal", "eat", "restaurant", "recipe", "cook", "cuisine", "lunch",
			"dinner", "breakfast", "snack", "menu", "hungry", "dine", "diet", "菜", "吃", "饭", "餐"}},
		{"drink", []string{"drink", "beverage", "bar", "thirsty", "喝", "饮料"}},
		{"location", []string{"live", "city", "home", "address", "move", "town", "country", "neighborhood", "住", "城市"}},
		{"work", []string{"work", "job", "company", "employer", "office", "career", "工作", "公司", "上班"}},
	}
	m := map[string]string{}
	for _, tp := range topics {
		for _, w := range tp.words {
			m[stem(strings.ToLower(w))] = stem(tp.subject)
		}
	}
	return m
}()

func idf(df, n int) float64 {
	return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5))
}

func bm25(tf, dl int, idf, avgdl float64) float64 {
	f := float64(tf)
	return idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(dl)/avgdl))
}

// tokenize splits text into index terms; see the package comment of the
// index above.
func tokenize(text string) []string {
	var out []string
	rs := []rune(strings.ToLower(text))
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case lang.IsCJK(r):
			j := i
			for j < len(rs) && lang.IsCJK(rs[j]) {
				j++
			}
			out = appendCJK(out, rs[i:j])
			i = j
		case unicode.IsDigit(r):
			var b strings.Builder
			j := i
			for j < len(rs) {
				c := rs[j]
				if unicode.IsDigit(c) {
					b.WriteRune(c)
				} else if (c == '.' || c == ',') && j+1 < len(rs) && unicode.IsDigit(rs[j+1]) && j > i {
					if c == '.' {
						b.WriteRune(c)
					}
				} else {
					break
				}
				j++
			}
			out = append(out, normNumber(b.String()))
			i = j
		case unicode.IsLetter(r):
			var b strings.Builder
			j := i
			for j < len(rs) {
				c := rs[j]
				if unicode.IsLetter(c) && !lang.IsCJK(c) || unicode.Is(unicode.Mn, c) {
					b.WriteRune(c)
				} else if (c == '\'' || c == '’') && j+1 < len(rs) && unicode.IsLetter(rs[j+1]) && !lang.IsCJK(rs[j+1]) {
					// "don't" = "dont", "mom's" = "moms" (stemmed to "mom")
				} else {
					break
				}
				j++
			}
			if w := b.String(); !stopWords[w] {
				out = append(out, cut(stem(w)))
			}
			i = j
		default:
			i++
		}
	}
	return out
}

func appendCJK(out []string, rs []rune) []string {
	for _, r := range rs {
		if !cjkStop[r] {
			out = append(out, string(r))
		}
	}
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, string(rs[i:i+2]))
	}
	return out
}

func cut(t string) string {
	if len(t) <= termMax {
		return t
	}
	n := termMax
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return t[:n]
}

func normNumber(s string) string {
	i := 0
	for i+1 < len(s) && s[i] == '0' && s[i+1] != '.' {
		i++
	}
	return cut(s[i:])
}

// stem is the English stemmer of index terms (lexical.Stem, Porter's):
// "loves", "loved", "loving", "love" → "love"; "adoption", "adopted" →
// "adopt"; "recommendation" → "recommend". Non-ASCII words are kept.
func stem(w string) string { return lexical.Stem(w) }

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are arent as at
		be because been before being below between both but by can cannot cant could couldnt
		did didnt do does doesnt doing dont down during each few for from further had hadnt has hasnt
		have havent having he hed hell hes her here heres hers herself him himself his how hows
		i id ill im ive if in into is isnt it its itself just lets me more most mustnt my myself
		no nor not of off on once only or other ought our ours ourselves out over own same shall shant
		she shed shell shes should shouldnt so some such than that thats the their theirs them themselves
		then there theres these they theyd theyll theyre theyve this those through to too under until up
		very was wasnt we wed were weve werent what whats when whens where wheres which while who whos
		whom why whys will with wont would wouldnt you youd youll youre youve your yours yourself
		yourselves s t st nd rd th`) {
		m[w] = true
	}
	return m
}()

var cjkStop = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range "的了是我你他她它在和也就都而及与着或一个吗呢吧啊呀哦嗯这那" {
		m[r] = true
	}
	return m
}()
