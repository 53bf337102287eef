package constraint

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/internal/lang"
)

// Constraint is one version of a memory record of kind constraint, as
// memory gives it: its slot (subject/attribute=value) and polarity.
type Constraint struct {
	Record    string
	Version   int
	Subject   string // food, drink, general, request, limit, …
	Attribute string // shellfish, call, hotel budget, 打电话, …
	Value     string // after 6pm, 150 euros a night, 晚上六点以后, …
	Negative  bool   // polarity negative: against its attribute
}

// Violation is one sentence of the answer that goes against one
// constraint. Start and End are rune offsets into the answer.
type Violation struct {
	Start, End int
	Record     string
	Version    int
	// Reason says what in the sentence goes against the constraint, in
	// the answer's words only.
	Reason string
}

// Checker checks answers against constraints. The zero value is not
// usable: call New.
type Checker struct {
	items, actions, things  map[string][]string
	actionNames, thingNames []string // the groups' names, sorted: lookups never depend on map order
	negEN, negZH            []string
	overEN, overZH          []string
	leftOutAfter            []string // data/words.txt [left_out_after]
	clauseMarks             []string // data/words.txt [clause]: marks, and words with a space either side
	budget                  []string
}

//go:embed data/words.txt
var wordsTxt []byte

// New returns a Checker with the shipped word tables (data/words.txt).
func New() *Checker {
	c, err := parse(wordsTxt)
	if err != nil {
		panic(fmt.Sprintf("constraint: the shipped word tables: %v", err)) // NB: a build-time file; TestTablesParse holds it
	}
	return c
}

// parse reads the word tables.
func parse(data []byte) (*Checker, error) {
	c := &Checker{items: map[string][]string{}, actions: map[string][]string{}, things: map[string][]string{}}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			continue
		}
		name, rest, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: no '='", n)
		}
		name = strings.ReplaceAll(strings.TrimSpace(name), "_", " ")
		var words []string
		for _, w := range strings.Fields(rest) {
			words = append(words, strings.ToLower(strings.ReplaceAll(w, "_", " ")))
		}
		switch section {
		case "items":
			c.items[name] = append(c.items[name], words...)
		case "actions":
			c.actions[name] = append(c.actions[name], words...)
		case "things":
			c.things[name] = append(c.things[name], words...)
		case "negations":
			if name == "zh" {
				c.negZH = append(c.negZH, words...)
			} else {
				c.negEN = append(c.negEN, words...)
			}
		case "over":
			if name == "zh" {
				c.overZH = append(c.overZH, words...)
			} else {
				c.overEN = append(c.overEN, words...)
			}
		case "budget":
			c.budget = append(c.budget, words...)
		case "left_out_after":
			c.leftOutAfter = append(c.leftOutAfter, words...)
		case "clause":
			for _, w := range words {
				if name == "words" {
					w = " " + w + " "
				}
				c.clauseMarks = append(c.clauseMarks, w)
			}
		default:
			return nil, fmt.Errorf("line %d: no known section", n)
		}
	}
	for n := range c.actions {
		c.actionNames = append(c.actionNames, n)
	}
	for n := range c.things {
		c.thingNames = append(c.thingNames, n)
	}
	slices.Sort(c.actionNames)
	slices.Sort(c.thingNames)
	return c, sc.Err()
}

// sentence is one sentence of the answer: its text, lower-cased (the same
// bytes: lower-casing that changes a rune's length is left undone), and
// its span in runes.
type sentence struct {
	text, lower        string
	startRune, endRune int
}

func sentencesOf(answer string) []sentence {
	var out []sentence
	for _, s := range lang.Sentences(answer) {
		lower := strings.ToLower(s.Text)
		if len(lower) != len(s.Text) {
			lower = s.Text
		}
		start := utf8.RuneCountInString(answer[:s.Start])
		out = append(out, sentence{text: s.Text, lower: lower, startRune: start, endRune: start + utf8.RuneCountInString(s.Text)})
	}
	return out
}

// Check returns the violations of answer against cs, constraints in the
// order given, each constraint's in answer order; nil when none.
func (c *Checker) Check(answer string, cs []Constraint) []Violation {
	if strings.TrimSpace(answer) == "" || len(cs) == 0 {
		return nil
	}
	sents := sentencesOf(answer)
	var out []Violation
	for _, k := range cs {
		for _, s := range sents {
			reason, ok := c.violates(s, k)
			if !ok {
				continue
			}
			out = append(out, Violation{Start: s.startRune, End: s.endRune, Record: k.Record, Version: k.Version, Reason: reason})
		}
	}
	return out
}

func (c *Checker) violates(s sentence, k Constraint) (string, bool) {
	switch {
	case k.Subject == "limit" && !k.Negative:
		return c.overCap(s, k)
	case k.Subject == "request" && k.Negative:
		return c.requested(s, k)
	case k.Subject != "limit" && k.Subject != "request" && k.Negative && k.Attribute != "":
		return c.names(s, k)
	}
	return "", false
}

// names: the sentence names the forbidden item, or one of its kind,
// where nothing leaves it out.
func (c *Checker) names(s sentence, k Constraint) (string, bool) {
	item := strings.ToLower(k.Attribute)
	words := append([]string{item}, c.items[item]...)
	for _, w := range words {
		for _, at := range find(s.lower, w) {
			if c.negated(s.lower, at, len(w)) {
				continue
			}
			return fmt.Sprintf("names %q, which the constraint rules out", s.text[at:at+matchLen(s.lower, at, w)]), true
		}
	}
	return "", false
}

// requested: the sentence does the action the constraint asks not to be
// done, under its condition.
func (c *Checker) requested(s sentence, k Constraint) (string, bool) {
	at, w, ok := c.action(s.lower, strings.ToLower(k.Attribute))
	if !ok {
		return "", false
	}
	cond := strings.ToLower(strings.TrimSpace(k.Value))
	if cond == "" {
		return fmt.Sprintf("%q, which the constraint asks not to be done", s.text[at:at+len(w)]), true
	}
	if after, hour, ok := condition(cond); ok {
		for _, t := range clockTimes(s.text) {
			if after && t.minute > hour || !after && t.minute < hour {
				return fmt.Sprintf("%q at %q, a time the constraint rules out", s.text[at:at+len(w)], t.said), true
			}
		}
		return "", false
	}
	if weekend(cond) {
		if d := weekendDay(s.lower); d != "" {
			return fmt.Sprintf("%q on %q, a day the constraint rules out", s.text[at:at+len(w)], d), true
		}
		return "", false
	}
	if strings.Contains(s.lower, cond) {
		return fmt.Sprintf("%q %q, which the constraint rules out", s.text[at:at+len(w)], cond), true
	}
	return "", false
}

// action finds the constraint's action in the sentence, not negated: for
// each word of the action (its group's words stand for it), a match; the
// position and word of the first.
func (c *Checker) action(lower, act string) (int, string, bool) {
	groups := c.actionGroups(act)
	first, firstW := -1, ""
	for _, g := range groups {
		found := false
		for _, w := range g {
			for _, at := range find(lower, w) {
				if c.negated(lower, at, len(w)) {
					continue
				}
				found = true
				if first < 0 || at < first {
					first, firstW = at, lower[at:at+matchLen(lower, at, w)]
				}
				break
			}
			if found {
				break
			}
		}
		if !found {
			return 0, "", false
		}
	}
	return first, firstW, first >= 0
}

// actionGroups are the word groups an action must all be said with: each
// English word of it (in its group when it has one; "me", "my" dropped),
// or for a CJK action its group, else the action less a leading verb.
func (c *Checker) actionGroups(act string) [][]string {
	if hasCJK(act) {
		for _, name := range c.actionNames {
			if g := c.actions[name]; name == act || contains(g, act) {
				return [][]string{append([]string{name}, g...)}
			}
		}
		g := []string{act}
		for _, verb := range []string{"推荐", "给我", "发", "打", "给", "订"} {
			if rest, ok := strings.CutPrefix(act, verb); ok && rest != "" {
				g = append(g, rest)
				break
			}
		}
		return [][]string{g}
	}
	var out [][]string
	seen := map[string]bool{}
	for _, w := range strings.Fields(act) {
		switch w {
		case "me", "my", "us", "the", "a", "an", "to":
			continue
		}
		name := w
		if _, ok := c.actions[w]; !ok {
			for _, n := range c.actionNames {
				if contains(c.actions[n], w) {
					name = n
					break
				}
			}
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, append([]string{name}, c.actions[name]...))
	}
	return out
}

// overCap: the sentence names the capped thing and an amount of the
// cap's currency above the cap.
func (c *Checker) overCap(s sentence, k Constraint) (string, bool) {
	caps := amounts(k.Value)
	if len(caps) == 0 {
		return "", false
	}
	cap := caps[0]
	thing := c.cappedThing(strings.ToLower(k.Attribute))
	if len(thing) > 0 {
		named := false
		for _, w := range thing {
			if len(find(s.lower, w)) > 0 {
				named = true
				break
			}
		}
		if !named {
			return "", false
		}
	}
	for _, a := range amounts(s.text) {
		if a.value <= cap.value || cap.currency != "" && a.currency != "" && a.currency != cap.currency {
			continue
		}
		if cap.currency != "" && a.currency == "" {
			continue
		}
		if c.saysOver(s.lower, a.at) {
			continue
		}
		return fmt.Sprintf("%q, over the constraint's cap", a.said), true
	}
	return "", false
}

// cappedThing is what a limit's attribute caps, and the words that say
// it: "hotel budget" caps hotel (inn, room, 酒店 …); none for a bare
// "budget".
func (c *Checker) cappedThing(attr string) []string {
	rest := attr
	for _, b := range c.budget {
		rest = strings.ReplaceAll(rest, b, " ")
	}
	rest = strings.Join(strings.Fields(rest), " ")
	if rest == "" {
		return nil
	}
	out := []string{rest}
	for _, name := range c.thingNames {
		if g := c.things[name]; name == rest || contains(g, rest) {
			out = append(out, name)
			out = append(out, g...)
		}
	}
	return out
}

// saysOver reports whether the clause of the amount at byte at, or the
// one after it, says it is over the cap (an option turned down for its
// price).
func (c *Checker) saysOver(lower string, at int) bool {
	from, to := c.clause(lower, at)
	if to < len(lower) {
		_, to = c.clause(lower, min(to+1, len(lower)-1)) // and the clause after it: "190 euros, over your budget"
	}
	return says(lower[from:to], c.overEN, c.overZH)
}

// says reports whether text holds a word of en (a whole word, as find
// reads it) or of zh (anywhere).
func says(text string, en, zh []string) bool {
	for _, w := range en {
		if len(find(text, w)) > 0 {
			return true
		}
	}
	for _, w := range zh {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// negated reports whether a word of the clause before the match at byte at
// (of n bytes) leaves it out, or what follows it does ("shellfish-free",
// "a shellfish allergy", 对海鲜过敏).
func (c *Checker) negated(lower string, at, n int) bool {
	from, to := c.clause(lower, at)
	if says(lower[from:at], c.negEN, c.negZH) {
		return true
	}
	after := strings.TrimLeft(lower[min(at+n, to):to], "s")
	after = strings.TrimLeft(after, " -")
	for _, w := range c.leftOutAfter {
		if strings.HasPrefix(after, w) || hasCJK(w) && strings.Contains(after, w) {
			return true
		}
	}
	return false
}

// clause returns the bytes of the clause around at: from the last clause
// mark before it to the next after it (, ; : — and their CJK forms, and
// the words but, so, because, while: data/words.txt [clause]).
func (c *Checker) clause(lower string, at int) (int, int) {
	from, to := 0, len(lower)
	for _, m := range c.clauseMarks {
		if i := strings.LastIndex(lower[:at], m); i >= 0 && i+len(m) > from {
			from = i + len(m)
		}
		if i := strings.Index(lower[at:], m); i >= 0 && at+i < to {
			to = at + i
		}
	}
	return from, to
}

// find returns the byte offsets where w appears in lower: anywhere for a
// word with a CJK rune, else as a whole word (a plural s or es after it
// allowed).
func find(lower, w string) []int {
	if w == "" {
		return nil
	}
	var out []int
	cjk := hasCJK(w)
	for i := 0; i <= len(lower)-len(w); {
		j := strings.Index(lower[i:], w)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(w)
		if cjk {
			out = append(out, at)
			continue
		}
		if at > 0 {
			r, _ := utf8.DecodeLastRuneInString(lower[:at])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				continue
			}
		}
		end := at + matchLen(lower, at, w)
		if end < len(lower) {
			r, _ := utf8.DecodeRuneInString(lower[end:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				continue
			}
		}
		out = append(out, at)
	}
	return out
}

// matchLen is the length of the match of w at at: w, with a plural es or
// s after it when one follows.
func matchLen(lower string, at int, w string) int {
	end := at + len(w)
	if hasCJK(w) {
		return len(w)
	}
	switch {
	case strings.HasPrefix(lower[end:], "es") && !letterAt(lower, end+2):
		return len(w) + 2
	case strings.HasPrefix(lower[end:], "s") && !letterAt(lower, end+1):
		return len(w) + 1
	}
	return len(w)
}

func letterAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

func hasCJK(s string) bool {
	for _, r := range s {
		if lang.IsCJK(r) {
			return true
		}
	}
	return false
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// A clock time said in a sentence, in minutes after midnight.
type clockTime struct {
	minute int
	said   string
}

var (
	enClock   = regexp.MustCompile(`(?i)\b(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?:[^a-z]|$)`)
	enClock24 = regexp.MustCompile(`\b([01]?\d|2[0-3]):([0-5]\d)\b`)
	zhClock   = regexp.MustCompile(`(早上|上午|中午|下午|晚上|傍晚|凌晨|夜里|夜间)?([0-9]{1,2}|[零一二两三四五六七八九十]{1,3})(?:点|點|时)(半|([0-9]{1,2}|[零一二三四五六七八九十]{1,3})分)?`)
)

// clockTimes returns the clock times a text says, in text order.
func clockTimes(text string) []clockTime {
	type hit struct {
		at int
		t  clockTime
	}
	var hits []hit
	taken := map[int]bool{}
	for _, m := range enClock.FindAllStringSubmatchIndex(text, -1) {
		h, _ := strconv.Atoi(text[m[2]:m[3]])
		mi := 0
		if m[4] >= 0 {
			mi, _ = strconv.Atoi(text[m[4]:m[5]])
		}
		pm := strings.HasPrefix(strings.ToLower(text[m[6]:m[7]]), "p")
		if h > 12 || mi > 59 {
			continue
		}
		if h == 12 {
			h = 0
		}
		if pm {
			h += 12
		}
		hits = append(hits, hit{m[0], clockTime{h*60 + mi, strings.TrimSpace(text[m[0]:m[7]])}})
		taken[m[0]] = true
	}
	for _, m := range enClock24.FindAllStringSubmatchIndex(text, -1) {
		if taken[m[0]] {
			continue
		}
		h, _ := strconv.Atoi(text[m[2]:m[3]])
		mi, _ := strconv.Atoi(text[m[4]:m[5]])
		if rest := strings.ToLower(strings.TrimLeft(text[m[1]:], " ")); strings.HasPrefix(rest, "a") || strings.HasPrefix(rest, "p") {
			continue // read above with its am/pm
		}
		hits = append(hits, hit{m[0], clockTime{h*60 + mi, text[m[0]:m[1]]}})
	}
	for _, m := range zhClock.FindAllStringSubmatchIndex(text, -1) {
		h, ok := zhNumber(text[m[4]:m[5]])
		if !ok || h > 24 {
			continue
		}
		mi := 0
		if m[6] >= 0 {
			if text[m[6]:m[7]] == "半" {
				mi = 30
			} else if v, ok := zhNumber(text[m[8]:m[9]]); ok && v < 60 {
				mi = v
			}
		}
		if m[2] >= 0 {
			switch text[m[2]:m[3]] {
			case "下午", "晚上", "傍晚", "夜里", "夜间":
				if h < 12 {
					h += 12
				}
			case "中午":
				if h < 6 {
					h += 12
				}
			}
		}
		hits = append(hits, hit{m[0], clockTime{h*60 + mi, text[m[0]:m[1]]}})
	}
	// In text order.
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].at < hits[j-1].at; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	out := make([]clockTime, len(hits))
	for i, h := range hits {
		out[i] = h.t
	}
	return out
}

// zhNumber reads 0-99 in digits or in Chinese numerals (七, 十二, 二十).
func zhNumber(s string) (int, bool) {
	if v, err := strconv.Atoi(s); err == nil {
		return v, true
	}
	digit := map[rune]int{'零': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	rs := []rune(s)
	switch {
	case len(rs) == 1 && rs[0] == '十':
		return 10, true
	case len(rs) == 1:
		v, ok := digit[rs[0]]
		return v, ok
	case len(rs) == 2 && rs[0] == '十':
		v, ok := digit[rs[1]]
		return 10 + v, ok
	case len(rs) == 2 && rs[1] == '十':
		v, ok := digit[rs[0]]
		return v * 10, ok
	case len(rs) == 3 && rs[1] == '十':
		a, ok1 := digit[rs[0]]
		b, ok2 := digit[rs[2]]
		return a*10 + b, ok1 && ok2
	}
	return 0, false
}

// condition reads a request's time condition: after (or before) an hour,
// in minutes after midnight ("after 6pm", "past 21:00", 晚上六点以后,
// 早上八点以前).
func condition(cond string) (after bool, minute int, ok bool) {
	ts := clockTimes(cond)
	if len(ts) != 1 {
		return false, 0, false
	}
	switch {
	case strings.Contains(cond, "after") || strings.Contains(cond, "past") || strings.Contains(cond, "later than") ||
		strings.Contains(cond, "以后") || strings.Contains(cond, "之后") || strings.HasSuffix(cond, "后"):
		return true, ts[0].minute, true
	case strings.Contains(cond, "before") || strings.Contains(cond, "earlier than") ||
		strings.Contains(cond, "以前") || strings.Contains(cond, "之前") || strings.HasSuffix(cond, "前"):
		return false, ts[0].minute, true
	}
	return false, 0, false
}

func weekend(cond string) bool {
	return strings.Contains(cond, "weekend") || strings.Contains(cond, "周末") || strings.Contains(cond, "saturday") || strings.Contains(cond, "sunday")
}

// weekendDay returns the first word of the weekend the sentence says.
func weekendDay(lower string) string {
	for _, w := range []string{"weekend", "saturday", "sunday", "sat", "sun", "周末", "周六", "周日", "星期六", "星期日", "星期天", "礼拜六", "礼拜天", "礼拜日"} {
		if len(find(lower, w)) > 0 {
			return w
		}
	}
	return ""
}

// An amount of money said in a text.
type amount struct {
	value    float64
	currency string // EUR, USD, GBP, CNY; "" when none is said
	said     string
	at       int // byte offset
}

var (
	amountBefore = regexp.MustCompile(`([€$£¥￥])\s*(\d[\d,]*(?:\.\d+)?)`)
	amountAfter  = regexp.MustCompile(`(?i)(\d[\d,]*(?:\.\d+)?)\s*(€|\$|£|¥|￥|eur\b|euros?\b|usd\b|dollars?\b|gbp\b|pounds?\b|rmb\b|cny\b|yuan\b|欧元|美元|英镑|人民币|元|块)?`)
	currencies   = map[string]string{"€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "欧元": "EUR",
		"$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "美元": "USD",
		"£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "英镑": "GBP",
		"¥": "CNY", "￥": "CNY", "rmb": "CNY", "cny": "CNY", "yuan": "CNY", "元": "CNY", "块": "CNY", "人民币": "CNY"}
)

// amounts returns the amounts a text says, a currency before or after
// the number; a number that is a clock time or part of a word is none.
func amounts(text string) []amount {
	var out []amount
	taken := map[int]bool{}
	for _, m := range amountBefore.FindAllStringSubmatchIndex(text, -1) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(text[m[4]:m[5]], ",", ""), 64)
		if err != nil {
			continue
		}
		out = append(out, amount{value: v, currency: currencies[text[m[2]:m[3]]], said: text[m[0]:m[1]], at: m[0]})
		taken[m[4]] = true
	}
	for _, m := range amountAfter.FindAllStringSubmatchIndex(text, -1) {
		if taken[m[2]] {
			continue
		}
		if m[2] > 0 {
			r, _ := utf8.DecodeLastRuneInString(text[:m[2]])
			if unicode.IsLetter(r) && !lang.IsCJK(r) || r == '.' || r == ':' || unicode.IsDigit(r) {
				continue
			}
		}
		rest := text[m[3]:]
		if strings.HasPrefix(strings.TrimLeft(strings.ToLower(rest), " "), "pm") || strings.HasPrefix(strings.TrimLeft(strings.ToLower(rest), " "), "am") ||
			strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "点") {
			continue // a clock time
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(text[m[2]:m[3]], ",", ""), 64)
		if err != nil {
			continue
		}
		cur := ""
		if m[4] >= 0 {
			cur = currencies[strings.ToLower(text[m[4]:m[5]])]
		}
		out = append(out, amount{value: v, currency: cur, said: strings.TrimSpace(text[m[0]:m[1]]), at: m[0]})
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].at < out[j-1].at; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
