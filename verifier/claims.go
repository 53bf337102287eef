package verifier

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Claim is one atomic statement of an answer. Start and End are rune
// offsets into the answer, [Start, End), and Text is exactly those runes.
type Claim struct {
	Text       string
	Start, End int
}

// SplitClaims splits an answer into atomic claims: lines and list items,
// then sentences, then clauses joined by a conjunction or a comma when both
// sides read as clauses of their own. Chinese clauses split at 。！？；，
// and at 但是, 而且, 并且 (和 only between two clauses). Decimals (3.5),
// thousands separators (1,234) and abbreviations (e.g., Dr., U.S.) do not
// split. Claims keep their sentence-final punctuation; separators and the
// conjunctions themselves belong to no claim. Claims with no letter, digit
// or ideograph are dropped.
func SplitClaims(answer string) []Claim {
	r := []rune(answer)
	var out []Claim
	lineStart := 0
	for i := 0; i <= len(r); i++ {
		if i == len(r) || r[i] == '\n' {
			out = splitLine(r, lineStart, i, out)
			lineStart = i + 1
		}
	}
	return out
}

// splitLine splits one line [s, e) of r.
func splitLine(r []rune, s, e int, out []Claim) []Claim {
	s = skipSpace(r, s, e)
	s = skipListMarker(r, s, e)
	start := s
	for i := s; i < e; i++ {
		end, ok := sentenceEnd(r, i, e)
		if !ok {
			continue
		}
		out = splitClauses(r, start, end, out)
		start = end
		i = end - 1
	}
	return splitClauses(r, start, e, out)
}

func skipSpace(r []rune, s, e int) int {
	for s < e && unicode.IsSpace(r[s]) {
		s++
	}
	return s
}

// skipListMarker skips a bullet, a number or letter label ("1.", "2)",
// "a)", "（3）"), a markdown heading or quote marker at the start of a line.
func skipListMarker(r []rune, s, e int) int {
	if s >= e {
		return s
	}
	switch r[s] {
	case '-', '*', '•', '·', '+', '>', '#', '–', '—', '▪', '◦':
		i := s
		for i < e && (r[i] == r[s] || r[i] == '#') {
			i++
		}
		if i < e && unicode.IsSpace(r[i]) {
			return skipSpace(r, i, e)
		}
		return s
	case '(', '（':
		i := s + 1
		for i < e && unicode.IsDigit(r[i]) {
			i++
		}
		if i > s+1 && i < e && (r[i] == ')' || r[i] == '）') {
			return skipSpace(r, i+1, e)
		}
		return s
	}
	i := s
	for i < e && i-s < 3 && unicode.IsDigit(r[i]) {
		i++
	}
	if i == s && i+1 < e && unicode.IsLower(r[i]) && r[i+1] == ')' {
		i++
	}
	if i > s && i < e && (r[i] == '.' || r[i] == ')' || r[i] == '、' || r[i] == '．') {
		if i+1 == e || unicode.IsSpace(r[i+1]) || (r[i] != '.' && r[i] != '．') {
			// "3.5 kg" is a decimal, not a label: a label's dot is followed by space.
			return skipSpace(r, i+1, e)
		}
	}
	return s
}

// abbreviations never end a sentence ("e.g.", "Dr.", "U.S.").
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "dr": true, "mr": true, "mrs": true,
	"ms": true, "prof": true, "st": true, "inc": true, "ltd": true, "co": true, "no": true,
	"approx": true, "est": true, "jan": true, "feb": true, "mar": true, "apr": true, "jun": true,
	"jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"u.s": true, "u.k": true, "a.m": true, "p.m": true, "fig": true, "eq": true, "al": true,
	"corp": true, "jr": true, "sr": true, "mt": true, "cf": true, "ca": true, "nr": true,
	"vol": true, "min": true, "hr": true, "hrs": true, "qty": true, "pcs": true, "dept": true,
}

// sentenceEnd reports whether a sentence ends at r[i] and where the next
// one starts (after trailing quotes and brackets).
func sentenceEnd(r []rune, i, e int) (int, bool) {
	c := r[i]
	switch c {
	case '。', '！', '？', '；', ';', '!', '?', '…':
	case '.', '．':
		if !periodEnds(r, i, e) {
			return 0, false
		}
	default:
		return 0, false
	}
	j := i + 1
	for j < e && strings.ContainsRune(".!?。！？…", r[j]) {
		j++
	}
	for j < e && strings.ContainsRune("\"')]}”’）】」』", r[j]) {
		j++
	}
	if c == '!' || c == '?' || c == ';' || c == '…' {
		if j < e && !unicode.IsSpace(r[j]) && !isCJK(r[j]) {
			return 0, false
		}
	}
	return j, true
}

// periodEnds decides whether the ASCII or full-width period at r[i] ends a
// sentence.
func periodEnds(r []rune, i, e int) bool {
	if i+1 < e && unicode.IsDigit(r[i+1]) {
		return false // 3.5, v1.2
	}
	// What follows: end of line, or space then a capital, digit, ideograph
	// or quote. A lower-case word after the period means an abbreviation.
	j := i + 1
	for j < e && strings.ContainsRune("\"')]}”’）", r[j]) {
		j++
	}
	lowerNext := false
	if j < e {
		if !unicode.IsSpace(r[j]) && !isCJK(r[j]) {
			return false
		}
		k := skipSpace(r, j, e)
		lowerNext = k < e && unicode.IsLower(r[k])
	}
	// The word before the period.
	w := i
	for w > 0 && (unicode.IsLetter(r[w-1]) || r[w-1] == '.') && !isCJK(r[w-1]) {
		w--
	}
	if lowerNext {
		// A lower-case word after the period: an abbreviation ("approx.
		// 3"), unless the period ends a plain word of three letters or more
		// ("on test. w/o pretraining …").
		word := strings.ToLower(string(r[w:i]))
		if len([]rune(word)) < 3 || strings.Contains(word, ".") || abbreviations[word] {
			return false
		}
	}
	word := strings.ToLower(string(r[w:i]))
	if word == "" {
		return true
	}
	if abbreviations[word] || abbreviations[strings.Trim(word, ".")] {
		// "12 ms. Ours …", "5 min. Then …": a unit after a number ends
		// the sentence; "Ms. Lee" does not.
		if b := w - 1; b > 0 && r[b] == ' ' && unicode.IsDigit(r[b-1]) || w > 0 && unicode.IsDigit(r[w-1]) {
			if _, ok := unitWords[word]; ok {
				return true
			}
		}
		switch word {
		case "etc":
			return true
		case "no", "min", "hr", "hrs", "qty", "pcs", "est", "approx":
			// "No. 5", "approx. 20": an abbreviation before a number.
			k := skipSpace(r, i+1, e)
			return k >= e || !unicode.IsDigit(r[k])
		}
		return false
	}
	// "J. R. Smith": an initial followed by another initial.
	if len([]rune(word)) == 1 && unicode.IsUpper(r[w]) {
		k := skipSpace(r, i+1, e)
		if k+1 < e && unicode.IsUpper(r[k]) && r[k+1] == '.' {
			return false
		}
	}
	return true
}

// splitCand is a place where a sentence may split into two clauses.
type splitCand struct {
	pos, next int // the left clause ends at pos, the right starts at next
	kind      int
}

const (
	splitHard  = iota // always: ， and ;
	splitComma        // English comma: both sides must be clauses
	splitAnd          // and, 和: both sides must be clauses
	splitBut          // but, 但是: the right side must be a clause
)

// splitClauses splits the sentence [s, e) into clauses and appends them.
func splitClauses(r []rune, s, e int, out []Claim) []Claim {
	cands := clauseCandidates(r, s, e)
	start := s
	for k, c := range cands {
		if c.pos <= start {
			continue
		}
		rightEnd := e
		for _, n := range cands[k+1:] {
			if n.pos > c.next {
				rightEnd = n.pos
				break
			}
		}
		split := false
		switch c.kind {
		case splitHard:
			split = true
		case splitComma, splitAnd:
			split = clauseLike(r, start, c.pos) && clauseLike(r, c.next, rightEnd)
		case splitBut:
			split = hasContent(r, start, c.pos) && clauseLike(r, c.next, rightEnd)
		}
		if split {
			out = appendClaim(r, start, c.pos, out)
			start = c.next
		}
	}
	return appendClaim(r, start, e, out)
}

var (
	enAnd = map[string]bool{"and": true}
	enBut = map[string]bool{"but": true, "while": true, "whereas": true, "although": true, "though": true, "however": true}
)

// clauseCandidates lists the split points of [s, e) in order.
func clauseCandidates(r []rune, s, e int) []splitCand {
	var out []splitCand
	for i := s; i < e; i++ {
		c := r[i]
		switch {
		case c == '，' || c == ';' || c == '；':
			next := skipSpace(r, i+1, e)
			if n, _, ok := zhConjunctionAt(r, next, e); ok {
				next = skipSpace(r, n, e)
			}
			out = append(out, splitCand{i, next, splitHard})
		case c == ',' && !(i > s && i+1 < e && unicode.IsDigit(r[i-1]) && unicode.IsDigit(r[i+1])):
			next := skipSpace(r, i+1, e)
			kind := splitComma
			if w, n := wordAt(r, next, e); enAnd[w] || enBut[w] {
				next = skipSpace(r, n, e)
				if enBut[w] {
					kind = splitBut
				}
			}
			out = append(out, splitCand{i, next, kind})
			i = next - 1
		case c == ' ' && i+1 < e && unicode.IsLetter(r[i+1]):
			w, n := wordAt(r, i+1, e)
			if (enAnd[w] && !betweenGuard(r, s, i)) || enBut[w] {
				kind := splitAnd
				if enBut[w] {
					kind = splitBut
				}
				if n < e && unicode.IsSpace(r[n]) {
					out = append(out, splitCand{i, skipSpace(r, n, e), kind})
					i = n - 1
				}
			}
		case isCJK(c):
			if n, but, ok := zhConjunctionAt(r, i, e); ok && i > s {
				if !but && (digitNear(r, i-1, s, -1) && digitNear(r, n, e, 1)) {
					continue
				}
				kind := splitAnd
				if but {
					kind = splitBut
				}
				out = append(out, splitCand{i, skipSpace(r, n, e), kind})
				i = n - 1
			}
		}
	}
	return out
}

// wordAt returns the lower-case ASCII word starting at i and its end.
func wordAt(r []rune, i, e int) (string, int) {
	j := i
	for j < e && j-i < 12 && (r[j] < 128 && unicode.IsLetter(r[j])) {
		j++
	}
	if j < e && j-i < 12 && unicode.IsLetter(r[j]) {
		return "", i
	}
	return strings.ToLower(string(r[i:j])), j
}

// betweenGuard reports a range in progress ("between 3 and 5").
func betweenGuard(r []rune, s, i int) bool {
	lo := max(s, i-24)
	t := strings.ToLower(string(r[lo:i]))
	return strings.Contains(t, "between ") || strings.Contains(t, "from ")
}

// digitNear reports whether the first non-space rune from i in direction
// dir (bounded by lim) is a digit.
func digitNear(r []rune, i, lim, dir int) bool {
	for ; i >= 0 && i < len(r) && (dir < 0 && i >= lim || dir > 0 && i < lim); i += dir {
		if r[i] == ' ' {
			continue
		}
		return unicode.IsDigit(r[i])
	}
	return false
}

// clauseVerbs mark an English clause.
var clauseVerbs = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "has": true,
	"have": true, "had": true, "will": true, "would": true, "can": true, "could": true,
	"may": true, "might": true, "should": true, "must": true, "does": true, "do": true,
	"did": true, "costs": true, "cost": true, "weighs": true, "ships": true, "arrives": true,
	"includes": true, "contains": true, "offers": true, "remains": true, "comes": true,
	"takes": true, "sells": true, "stays": true, "reaches": true, "gets": true, "holds": true,
	"shows": true, "needs": true, "runs": true, "lasts": true, "leaves": true, "departs": true,
	"goes": true, "starts": true, "ends": true, "expires": true, "totals": true, "equals": true,
	"rises": true, "falls": true, "drops": true, "outperforms": true, "achieves": true,
	"scores": true, "yields": true, "gives": true, "supports": true, "requires": true,
	"isn't": true, "aren't": true, "won't": true, "can't": true, "doesn't": true, "don't": true,
	"hasn't": true, "haven't": true, "wasn't": true, "didn't": true, "'s": true,
}

// clauseLike reports whether [s, e) reads as a clause of its own: it has
// a number, or a verb (English) or a predicate character (Chinese).
func clauseLike(r []rune, s, e int) bool {
	words, cjk, nums := 0, 0, 0
	verb := false
	for i := s; i < e; {
		c := r[i]
		switch {
		case unicode.IsDigit(c):
			// A number makes a clause ("costs $5", "3 到 5 天"), but not a
			// lone one: "December 31, 2024" stays whole.
			nums++
			for i < e && (unicode.IsDigit(r[i]) || r[i] == '.' || r[i] == ',') {
				i++
			}
		case isCJK(c):
			cjk++
			if strings.ContainsRune(zhPredicateRunes, c) {
				verb = true
			}
			if zhNumeralRune(c) && i+1 < e && zhMeasureRune(r[i+1]) {
				return true
			}
			i++
		case unicode.IsLetter(c) || c == '\'':
			j := i
			for j < e && (unicode.IsLetter(r[j]) || r[j] == '\'') && !isCJK(r[j]) {
				j++
			}
			w := strings.ToLower(string(r[i:j]))
			words++
			if clauseVerbs[w] || (len(w) > 4 && strings.HasSuffix(w, "ed")) || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "'s") {
				verb = true
			}
			i = j
		default:
			i++
		}
	}
	if nums > 0 && words+cjk+nums >= 2 {
		return true
	}
	return verb && (words >= 2 || cjk >= 2 || words+cjk >= 2)
}

// hasContent reports whether [s, e) has a letter, digit or ideograph.
func hasContent(r []rune, s, e int) bool {
	for i := s; i < e; i++ {
		if unicode.IsLetter(r[i]) || unicode.IsDigit(r[i]) {
			return true
		}
	}
	return false
}

// appendClaim trims [s, e) and appends it as a claim if it has content.
func appendClaim(r []rune, s, e int, out []Claim) []Claim {
	for s < e && (unicode.IsSpace(r[s]) || strings.ContainsRune(",，;；:：、-–—*", r[s])) {
		s++
	}
	for e > s && (unicode.IsSpace(r[e-1]) || strings.ContainsRune(",，;；:：、*", r[e-1])) {
		e--
	}
	if s >= e || !hasContent(r, s, e) {
		return out
	}
	return append(out, Claim{Text: string(r[s:e]), Start: s, End: e})
}

// isCJK reports an ideograph or kana (one token each).
func isCJK(c rune) bool {
	if c < 0x2E80 {
		return false
	}
	return unicode.Is(unicode.Han, c) || unicode.Is(unicode.Hiragana, c) || unicode.Is(unicode.Katakana, c) || unicode.Is(unicode.Hangul, c)
}

// normRune folds full-width ASCII to ASCII and upper to lower case; it
// never changes the number of runes, so offsets survive normalisation.
func normRune(c rune) rune {
	switch {
	case c >= 0xFF01 && c <= 0xFF5E:
		c -= 0xFEE0
	case c == 0x3000:
		c = ' '
	case c == '−' || c == '–' || c == '—':
		c = '-'
	case c == '’' || c == '‘':
		c = '\''
	}
	return unicode.ToLower(c)
}

// normalize returns the normalised runes of s (same length as []rune(s)).
func normalize(s string) []rune {
	r := []rune(s)
	for i, c := range r {
		r[i] = normRune(c)
	}
	return r
}

// token is one token of normalised text: a run of letters and digits (with
// inner decimal points and apostrophes), or one ideograph.
type token struct {
	s          string
	start, end int // rune offsets
	cjk        bool
}

// tokenize splits normalised runes into tokens.
func tokenize(r []rune) []token {
	var out []token
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case isCJK(c):
			out = append(out, token{s: string(c), start: i, end: i + 1, cjk: true})
			i++
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			j := i + 1
			for j < len(r) {
				d := r[j]
				if (unicode.IsLetter(d) || unicode.IsDigit(d)) && !isCJK(d) {
					j++
					continue
				}
				if (d == '.' || d == ',') && j+1 < len(r) && unicode.IsDigit(r[j-1]) && unicode.IsDigit(r[j+1]) {
					j++
					continue
				}
				if d == '\'' && j+1 < len(r) && unicode.IsLetter(r[j+1]) && !isCJK(r[j+1]) {
					j++
					continue
				}
				if d == '+' && (j+1 == len(r) || !unicode.IsLetter(r[j+1]) && !unicode.IsDigit(r[j+1])) {
					j++ // "S24+", "C++": the plus is part of the name
					continue
				}
				break
			}
			out = append(out, token{s: string(r[i:j]), start: i, end: j})
			i = j
		default:
			i++
		}
	}
	return out
}

// ---- reading a claim: the lexicon --------------------------------------

// cue is what a word signals about the claim around it.
type cue uint64

const (
	cueNeg         cue = 1 << iota // not, 不, 没有
	cueNegLex                      // a negative state in one word: out of stock, 缺货
	cuePlain                       // contains a negation character but does not negate (非常)
	cueApprox                      // about, 约, 左右
	cueUniversal                   // all, every, 全部, 都
	cueExistential                 // some, 部分
	cueExclusive                   // only, 只, 仅
	cueAlways                      // always, never, 总是
	cueCertain                     // definitely, guaranteed, 一定
	cueDerive                      // total, difference, 一共, 平均
	cueMore                        // more, higher, 贵 (with 比)
	cueLess                        // less, cheaper, 便宜
	cueMost                        // most, highest, 最贵
	cueLeast                       // least, cheapest, 最便宜
	cueThan                        // than, 比
	cueGT                          // more than, 超过 (before a number)
	cueGE                          // at least, 至少
	cueLT                          // less than, 不到
	cueLE                          // up to, within, 以内 (after a number too)
	cueAfterGE                     // 以上, "or more" (after a number)
	cueNonAssert                   // greetings, opinions, discourse (only if nothing is checkable)
	cueOffer                       // offers of help: never checkable
	cueHedge                       // estimated, expected, 预计
	cuePronoun                     // it, they, 它, 该
	cueStop                        // no content
	cueFree                        // free, 免费: a price of zero
	cueFuture                      // will, 将
	cueRespectively
	cueUp   // rose, grew, 增长: a series went up
	cueDown // fell, dropped, 下降: a series went down
)

// catValue is a value of a closed category: an order status, a weather
// condition. Within a class values exclude each other; rank orders an
// order's progress (a shipped claim holds for a delivered order).
type catValue struct {
	class, value string
	rank         int
	neg          bool // the word states the negation (未发货)
}

type lexInfo struct {
	concepts []string
	cues     cue
	cats     []catValue
}

var enConcepts = []string{
	"stock=stock stocks inventory qty quantity quantities available availability avail onhand left remaining remain remains instock in_stock units_left supply out_of_stock sold_out unavailable",
	"price=price prices priced pricing cost costs costing fee fees charge charges charged msrp rate rates expensive cheap cheaper cheapest pricey pricier priciest costlier dollars fare fares deposit surcharge surcharges",
	"original=original regular list msrp",
	"surcharge=surcharge surcharges",
	"subtotal=subtotal",
	"total=total totals sum overall altogether combined subtotal grand",
	"discount=discount discounts discounted off savings saving save saves saved coupon promo sale",
	"weight=weight weighs weigh weighing weighed heavy heavier heaviest lighter lightest",
	"temperature=temperature temperatures temp temps warm warmer warmest hot hotter hottest cold colder coldest cool cooler coolest feels_like",
	"high=high highs max maximum peak highest",
	"low=low lows min minimum lowest at_night overnight 夜间",
	"accuracy=accuracy accurate acc",
	"speed=speed speeds throughput",
	"average=average mean avg",
	"employee=employee employees staff headcount workforce personnel",
	"humidity=humidity humid",
	"wind=wind winds windy gust gusts",
	"chance=chance chances probability likelihood precipitation precip pop odds prob",
	"uv=uv",
	"index=index",
	"alert=alert alerts warning warnings advisory advisories",
	"delivery=deliver delivers delivered delivering delivery deliveries arrive arrives arrived arriving arrival eta reach reaches reached land lands landing landed",
	"ship=ship ships shipped shipment shipments dispatch dispatched dispatches sent transit",
	"shipping=shipping postage freight",
	"carrier=carrier courier via logistics",
	"order=order orders ordered purchase purchased purchases",
	"refund=refund refunds refundable refunded return returns returnable returned",
	"rating=rating ratings rated stars star score scores",
	"review=review reviews reviewed",
	"distance=distance far away",
	"duration=duration takes take taking long lasts fast faster fastest quick quicker quickest slow slower slowest soonest",
	"booking=booking bookings booked book reservation reservations reserved reserve",
	"room=room rooms suite suites",
	"guest=guest guests people persons adults adult party passenger passengers traveler travelers",
	"night=night nights nightly",
	"seat=seat seats tickets ticket",
	"flight=flight flights",
	"depart=depart departs departure departing leaves takeoff",
	"checkin=checkin check_in",
	"checkout=checkout check_out",
	"breakfast=breakfast",
	"warranty=warranty warranties",
	"color=color colour colors colours",
	"size=size sizes",
	"capacity=capacity",
	"battery=battery",
	"location=location located city warehouse store branch address",
	"status=status state",
	"created=placed created",
	"payment=payment paid pay pays unpaid",
	"open=open opens opened closed closure closures close",
	"cancel=cancel cancels cancellation cancellations cancellable cancelable",
	"installment=installment installments",
	"user=user users seat_licenses",
	"count=count number",
	"tax=tax taxes vat",
	"balance=balance",
	"revenue=revenue revenues income",
	"sales=sales sold",
	"profit=profit profits",
	"growth=growth grew grow grows increase increased increases rise rose rising gain gains",
	"item=item items product products goods",
	"percent=percent percentage share",
	"ratio=ratio proportion fraction rate",
}

// enUnitConcepts name units in keys and claims the way unitConceptNames
// does, so that eta_hours meets "3 hours".
var enUnitConcepts = []string{
	"hour=hour hours hr hrs", "minute=minute minutes mins", "day=day days", "week=week weeks",
	"second=second seconds secs", "month=month months", "year=year years",
	"kg=kg kgs kilogram kilograms kilo kilos", "lb=lb lbs pound pounds", "km=km kms kilometer kilometers kilometre kilometres",
	"mi=mi mile miles", "cm=cm centimeter centimeters", "mm=mm", "percent=pct",
}

var enCues = []string{
	"neg=not no non never none nothing nobody cannot without neither nor nowhere isn't aren't wasn't weren't doesn't don't didn't hasn't haven't hadn't won't wouldn't can't couldn't shouldn't no_longer",
	"neglex=unavailable out_of_stock sold_out closed closure closures disabled deactivated inactive is_off turned_off switched_off",
	"approx=about around approximately approx roughly nearly almost circa ~ close_to or_so estimated",
	"universal=all every both entire whole everything everyone none any_of_them",
	"existential=some several certain a_few",
	"exclusive=only solely exclusively",
	"always=always never forever constantly invariably every_time at_all_times",
	"certain=definitely certainly guaranteed guarantee guarantees surely undoubtedly absolutely assuredly promise promised for_sure without_fail",
	"derive=total totals sum combined together altogether overall net difference more less fewer higher lower increase increased increases decrease decreased decreases drop dropped drops rise rose risen fall fell gain gained grew growth change changed margin gap saving savings save saves off discount times twice double half average mean cheaper costlier improve improves improved improvement raise raises raised reduce reduces reduced comes_to bringing",
	"more=more higher greater larger bigger heavier warmer hotter longer exceeds outperforms outperform outperformed beats surpasses better pricier costlier farther later taller more_expensive slower",
	"less=less fewer lower smaller cheaper lighter colder cooler shorter worse earlier sooner faster less_expensive underperforms",
	"most=most highest greatest largest biggest heaviest warmest hottest longest best priciest latest slowest",
	"least=least fewest lowest smallest cheapest lightest coldest coolest shortest worst earliest fastest soonest",
	"than=than versus vs compared outperforms outperform outperformed beats surpasses underperforms",
	"gt=more_than greater_than over above exceed exceeds exceeded exceeding",
	"ge=at_least no_less_than minimum_of not_less_than",
	"lt=less_than fewer_than under below",
	"le=at_most up_to no_more_than within maximum_of not_more_than or_less",
	"after_ge=or_more",
	"nonassert=hello hi hey thanks welcome sorry glad hope recommend recommended suggest suggestion opinion think believe consider perhaps i_think i_believe i_recommend i_suggest in_my_opinion good_choice great_choice good_news here_is here_are here's as_follows below_is best_regards",
	"offer=let_me_know feel_free thank_you would_you_like do_you_want shall_i can_i_help happy_to_help hope_this_helps if_you_need if_you_have anything_else i_can i_could i'll i_will let_me you're_welcome have_a_nice_day have_a_great_day good_morning good_afternoon if_you'd_like if_you_want don't_hesitate please_let",
	"hedge=estimated estimate est expected expect expects eta forecast forecasted predicted projected likely probability chance tentative tentatively anticipated planned approx possible possibly potential",
	"pronoun=it its they their them this that these those he she",
	"future=will shall 'll going_to expected_to",
	"free=free complimentary",
	"respectively=respectively",
	"up=increase increased increases increasing rise rises rose risen rising grow grows grew grown growing improve improves improved improving gain gains gained climb climbs climbed",
	"down=decrease decreased decreases decreasing fall falls fell fallen falling drop drops dropped dropping decline declines declined declining shrink shrinks shrank worsen worsened",
	"stop=each the a an of to in on at for with from and or is are was were be been being has have had do does did it's its this that these those there here as then so such your you we our us i me my he she they them their his her which who whom what when where how also just now currently yet still very really quite please note per into onto get gets got can could would should may might must shall will 'll 's have has come comes came go goes make makes made according based following result results information info details summary update latest current currently today's right as_of over just show shows showed one",
}

// categories: class/value/rank=words. A word prefixed by ! states the
// negation of the value (未发货 is "not shipped").
var categories = []string{
	"order/pending/1=pending awaiting_payment 待付款 待支付",
	"order/processing/2=processing being_processed being_prepared preparing 处理中 备货中 待发货",
	"order/shipped/3=shipped dispatched 已发货 已发出 已寄出 已出库 发货了 发货 !未发货 !没发货 !没有发货 !尚未发货 !还没发货 !还未发货",
	"order/in_transit/4=in_transit on_the_way on_its_way en_route transit 运输中 在途 途中 运送中 在路上",
	"order/out_for_delivery/5=out_for_delivery 派送中 派件中 正在派送 配送中",
	"order/delivered/6=delivered arrived 已送达 已签收 已妥投 已到达 已收货 送达了 已经到达 已经送达 已经签收 已经送到 !未送达 !未签收",
	"order/cancelled/0=cancelled canceled 已取消 取消了",
	"order/returned/0=returned 已退货",
	"payment/paid/2=paid 已支付 已付款 已付",
	"payment/unpaid/1=unpaid 未支付 未付款",
	"payment/refunded/3=refunded 已退款 退款成功",
	"booking/confirmed/2=confirmed 已确认 确认 预订成功",
	"booking/pending/1=pending unconfirmed 待确认",
	"booking/cancelled/0=cancelled canceled 已取消",
	"booking/waitlisted/1=waitlisted 候补",
	"weather/clear/0=sunny clear fair 晴 晴天 晴朗 晴好",
	"weather/dry/0=dry 干燥",
	"weather/cloudy/0=cloudy overcast partly_cloudy mostly_cloudy clouds 多云 阴 阴天 少云 多云转晴",
	"weather/rain/0=rain rainy raining showers shower drizzle light_rain heavy_rain 雨 小雨 中雨 大雨 暴雨 阵雨 下雨 降雨 有雨",
	"weather/storm/0=thunderstorm thunderstorms storm storms 雷阵雨 雷雨 雷暴",
	"weather/snow/0=snow snowy snowing 雪 小雪 大雪 下雪 中雪",
	"weather/fog/0=fog foggy mist misty haze 雾 大雾 霾",
}

// lexConcepts holds every concept name of the lexicon.
var lexConcepts = map[string]bool{}

var (
	enLex     = map[string]*lexInfo{}
	enPhrases = map[string][][]string{} // first word -> phrases (words), longest first
	zhLex     = map[string]*lexInfo{}
	zhMaxLen  = 1
)

var cueNames = map[string]cue{
	"neg": cueNeg, "neglex": cueNegLex, "plain": cuePlain, "approx": cueApprox,
	"universal": cueUniversal, "existential": cueExistential, "exclusive": cueExclusive,
	"always": cueAlways, "certain": cueCertain, "derive": cueDerive, "more": cueMore,
	"less": cueLess, "most": cueMost, "least": cueLeast, "than": cueThan, "gt": cueGT,
	"ge": cueGE, "lt": cueLT, "le": cueLE, "after_ge": cueAfterGE, "nonassert": cueNonAssert,
	"offer": cueOffer, "hedge": cueHedge, "pronoun": cuePronoun, "stop": cueStop,
	"free": cueFree, "future": cueFuture, "respectively": cueRespectively,
	"up": cueUp, "down": cueDown,
}

func init() {
	add := func(word string, f func(*lexInfo)) {
		word = strings.ReplaceAll(word, "_", " ")
		if isCJK([]rune(word)[0]) {
			l := zhLex[word]
			if l == nil {
				l = &lexInfo{}
				zhLex[word] = l
			}
			f(l)
			zhMaxLen = max(zhMaxLen, len([]rune(word)))
			return
		}
		l := enLex[word]
		if l == nil {
			l = &lexInfo{}
			enLex[word] = l
			if ws := strings.Fields(word); len(ws) > 1 {
				enPhrases[ws[0]] = append(enPhrases[ws[0]], ws)
			}
		}
		f(l)
	}
	for _, tables := range [][]string{enConcepts, zhLexicon} {
		for _, line := range tables {
			name, words, _ := strings.Cut(line, "=")
			lexConcepts[name] = true
			for _, w := range strings.Fields(words) {
				add(w, func(l *lexInfo) { l.concepts = append(l.concepts, name) })
			}
		}
	}
	for _, tables := range [][]string{enCues, zhCues} {
		for _, line := range tables {
			name, words, _ := strings.Cut(line, "=")
			c := cueNames[name]
			for _, w := range strings.Fields(words) {
				add(w, func(l *lexInfo) { l.cues |= c })
			}
		}
	}
	for _, line := range categories {
		head, words, _ := strings.Cut(line, "=")
		parts := strings.Split(head, "/")
		rank, _ := strconv.Atoi(parts[2])
		for _, w := range strings.Fields(words) {
			neg := strings.HasPrefix(w, "!")
			w = strings.TrimPrefix(w, "!")
			cv := catValue{class: parts[0], value: parts[1], rank: rank, neg: neg}
			add(w, func(l *lexInfo) { l.cats = append(l.cats, cv) })
		}
	}
	// Chinese unit words name what they measure (每公斤 is about kg).
	for w, u := range unitWords {
		if r := []rune(w); len(r) >= 2 && isCJK(r[0]) {
			for _, c := range unitConceptNames(u) {
				add(w, func(l *lexInfo) { l.concepts = dedupe(append(l.concepts, c)) })
			}
		}
	}
	for _, tables := range [][]string{enUnitConcepts} {
		for _, line := range tables {
			name, words, _ := strings.Cut(line, "=")
			for _, w := range strings.Fields(words) {
				add(w, func(l *lexInfo) { l.concepts = append(l.concepts, name) })
			}
		}
	}
	for k, ps := range enPhrases {
		slices.SortStableFunc(ps, func(a, b []string) int { return len(b) - len(a) })
		enPhrases[k] = ps
	}
}

// stem strips English inflections so that "ships", "shipped" and
// "shipping" meet "ship" (lexicon words are looked up first).
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	case w == "daily":
		return "day"
	case n > 5 && strings.HasSuffix(w, "ly") && !strings.HasSuffix(w, "ily"):
		return w[:n-2]
	case n > 5 && strings.HasSuffix(w, "ing"):
		return undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed"):
		return undouble(w[:n-2])
	}
	return w
}

func undouble(w string) string {
	if n := len(w); n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// negPrefixed returns the positive word of un-/non-/in- words whose
// positive is in the lexicon ("unpaid" → "paid"), or "".
func negPrefixed(w string) string {
	for _, p := range []string{"non", "un", "in"} {
		if rest, ok := strings.CutPrefix(w, p); ok && len(rest) > 3 {
			rest = strings.TrimPrefix(rest, "-")
			if l := enLex[rest]; l != nil && len(l.concepts) > 0 {
				return rest
			}
			if l := enLex[stem(rest)]; l != nil && len(l.concepts) > 0 && p != "in" {
				return stem(rest)
			}
		}
	}
	return ""
}

// wordConcepts returns the concepts of one English word or lexicon word:
// its lexicon concepts, else its stem; nothing for numbers and stop words.
func wordConcepts(w string) []string {
	if l := enLex[w]; l != nil {
		if len(l.concepts) > 0 {
			return l.concepts
		}
		if l.cues&(cueStop|cueNeg) != 0 {
			return nil
		}
	}
	if l := zhLex[w]; l != nil {
		if len(l.concepts) > 0 {
			return l.concepts
		}
		if l.cues != 0 {
			return nil
		}
		return []string{w}
	}
	if w == "" || w[0] >= '0' && w[0] <= '9' {
		return nil
	}
	if isCJK([]rune(w)[0]) {
		return []string{w}
	}
	s := stem(w)
	if l := enLex[s]; l != nil {
		if len(l.concepts) > 0 {
			return l.concepts
		}
		if len(l.cats) > 0 {
			return []string{s} // "cleared" is a word to cover, not a stop word
		}
		return nil
	}
	if p := negPrefixed(w); p != "" {
		return enLex[p].concepts
	}
	return []string{truncStem(s)}
}

// truncStem cuts an unknown word's stem to six letters, a crude lemma that
// lets accurate meet accuracy and operating meet operation.
func truncStem(s string) string {
	if len(s) > 6 && s[0] < 128 {
		return s[:6]
	}
	return s
}

// conceptsOf returns the concepts of a JSON key or tool name.
func conceptsOf(key string) []string {
	var out []string
	parts := keyParts(key)
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		// Multi-word lexicon entries spelled as keys: out_of_stock, check_in.
		if ps, ok := enPhrases[p]; ok {
			matched := false
			for _, ph := range ps {
				if i+len(ph) <= len(parts) && slices.Equal(parts[i:i+len(ph)], ph) {
					out = append(out, enLex[strings.Join(ph, " ")].concepts...)
					i += len(ph) - 1
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		r := []rune(p)
		if isCJK(r[0]) {
			for _, w := range segmentCJK(r) {
				out = append(out, wordConcepts(w)...)
			}
			continue
		}
		out = append(out, wordConcepts(p)...)
	}
	return dedupe(out)
}

func dedupe(s []string) []string {
	if len(s) < 2 {
		return s
	}
	out := s[:0:0]
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// segmentCJK splits a run of ideographs into lexicon words by longest
// match; unknown ideographs pair up as bigrams (or stand alone).
func segmentCJK(r []rune) []string {
	var out []string
	var unknown []rune
	flush := func() {
		switch len(unknown) {
		case 0:
		case 1:
			out = append(out, string(unknown))
		default:
			for i := 0; i+1 < len(unknown); i++ {
				out = append(out, string(unknown[i:i+2]))
			}
		}
		unknown = unknown[:0]
	}
	for i := 0; i < len(r); {
		n := min(zhMaxLen, len(r)-i)
		for ; n > 0; n-- {
			if _, ok := zhLex[string(r[i:i+n])]; ok {
				break
			}
		}
		if n == 1 {
			// A one-ideograph cue word (小, 大) with no concept pairs up with
			// its neighbours like an unknown one: 大桌 and 小桌 differ.
			if l := zhLex[string(r[i])]; len(l.concepts) == 0 && len(l.cats) == 0 && l.cues&(cueStop|cueNeg) == 0 {
				n = 0
			}
		}
		if n == 0 {
			unknown = append(unknown, r[i])
			i++
			continue
		}
		flush()
		out = append(out, string(r[i:i+n]))
		i += n
	}
	flush()
	return out
}

// textConcepts returns the concepts of a text's words (string values).
func textConcepts(r []rune, toks []token) []string {
	var out []string
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		if !tk.cjk {
			out = append(out, wordConcepts(tk.s)...)
			continue
		}
		j := i
		for j < len(toks) && toks[j].cjk && (j == i || toks[j].start == toks[j-1].end) {
			j++
		}
		for _, w := range segmentCJK(r[tk.start:toks[j-1].end]) {
			out = append(out, wordConcepts(w)...)
		}
		i = j - 1
	}
	return out
}

// cword is one word of a claim: an English word or phrase, a number, or a
// Chinese lexicon word (or unknown ideograph).
type cword struct {
	s          string
	start, end int
	info       *lexInfo
	cjk        bool
}

func (w *cword) cues() cue {
	if w.info == nil {
		return 0
	}
	return w.info.cues
}

// claimWords splits a claim's normalised runes into words, matching
// English phrases and Chinese lexicon words longest first.
func claimWords(r []rune) []cword { return claimWordsOf(r, tokenize(r)) }

// claimWordsOf is claimWords over tokens already made.
func claimWordsOf(r []rune, toks []token) []cword {
	var out []cword
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		if tk.cjk {
			j := i
			for j < len(toks) && toks[j].cjk && (j == i || toks[j].start == toks[j-1].end) {
				j++
			}
			pos := tk.start
			for _, w := range segmentCJKKeep(r[tk.start:toks[j-1].end]) {
				n := len([]rune(w))
				out = append(out, cword{s: w, start: pos, end: pos + n, info: zhLex[w], cjk: true})
				pos += n
			}
			i = j - 1
			continue
		}
		if ps, ok := enPhrases[tk.s]; ok {
			matched := false
			for _, ph := range ps {
				if i+len(ph) > len(toks) {
					continue
				}
				ok := true
				for k, w := range ph {
					if toks[i+k].s != w {
						ok = false
						break
					}
				}
				if ok {
					s := strings.Join(ph, " ")
					out = append(out, cword{s: s, start: tk.start, end: toks[i+len(ph)-1].end, info: enLex[s]})
					i += len(ph) - 1
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		info := enLex[tk.s]
		if info == nil {
			if s := stem(tk.s); enLex[s] != nil && len(enLex[s].concepts) > 0 {
				info = enLex[s]
			}
		}
		out = append(out, cword{s: tk.s, start: tk.start, end: tk.end, info: info})
	}
	return out
}

// segmentCJKKeep is segmentCJK without bigrams: unknown ideographs stay
// single, so words tile the run and keep their offsets.
func segmentCJKKeep(r []rune) []string {
	var out []string
	for i := 0; i < len(r); {
		n := min(zhMaxLen, len(r)-i)
		for ; n > 1; n-- {
			if _, ok := zhLex[string(r[i:i+n])]; ok {
				break
			}
		}
		out = append(out, string(r[i:i+n]))
		i += n
	}
	return out
}

// categoriesOf returns the closed-category values an evidence string
// states ("in_transit", "Light rain", "已发货"): the whole value if it is a
// category word, else every category word inside it.
func categoriesOf(s string) []catValue {
	if len(s) > 60 || s == "" {
		return nil
	}
	s = strings.Map(func(c rune) rune {
		if c == '_' || c == '-' {
			return ' '
		}
		return c
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if l := enLex[s]; l != nil && len(l.cats) > 0 {
		return l.cats
	}
	if l := zhLex[s]; l != nil && len(l.cats) > 0 {
		return l.cats
	}
	// "多云转小雨": cloudy turning to rain — both hold.
	var out []catValue
	for _, w := range claimWords([]rune(s)) {
		if w.info != nil {
			for _, c := range w.info.cats {
				if !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// findSubjects finds the evidence subjects (names, ids, titles) the claim
// mentions, longest first, and makes them the claim's scope.
func (cx *claimCtx) findSubjects() {
	ix := cx.ix
	toks := cx.toks
	keys := make([]string, len(toks))
	for i, t := range toks {
		keys[i] = subjectKey(t.s)
	}
	orig := []rune(cx.cl.Text)
	type hit struct {
		s, e    int // token indexes
		nodes   []int32
		partial bool
		name    string
	}
	var hits []hit
	for pass := 0; pass < 2; pass++ {
		// Pass 0: whole names and codes; pass 1: distinctive parts of names
		// where no whole name matched.
		for i := 0; i < len(toks); i++ {
			if cx.used[toks[i].start] {
				continue
			}
			var best hit
			for _, se := range ix.subjects[keys[i]] {
				if se.partial != (pass == 1) {
					continue
				}
				n := len(se.toks)
				if i+n > len(toks) || n < best.e-best.s {
					continue
				}
				ok := true
				for k := 0; k < n; k++ {
					if toks[i+k].s != se.toks[k] && keys[i+k] != se.keys[k] || cx.used[toks[i+k].start] ||
						k > 0 && !toks[i+k].cjk && toks[i+k].start > toks[i+k-1].end+3 {
						ok = false
						break
					}
				}
				if !ok || !cx.subjectCase(toks, i, n, orig, se) {
					continue
				}
				if n > best.e-best.s {
					best = hit{s: i, e: i + n, partial: se.partial, name: se.exact}
				}
				if !slices.Contains(best.nodes, se.node) {
					best.nodes = append(best.nodes, se.node)
				}
			}
			if best.e > best.s {
				for k := toks[best.s].start; k < toks[best.e-1].end; k++ {
					cx.used[k] = true
				}
				hits = append(hits, best)
				i = best.e - 1
			}
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.s - b.s })
	for k, h := range hits {
		s, e := toks[h.s].start, toks[h.e-1].end
		nodes := append([]int32(nil), h.nodes...)
		sortUnique(&nodes)
		// "1月到3月", "from A to C": the members between two named ones.
		if k > 0 && len(cx.groups) > 0 && isRangeJoin(cx.norm[cx.spans[len(cx.spans)-1][1]:s]) {
			prev := cx.groups[len(cx.groups)-1]
			for _, between := range ix.membersBetween(prev, nodes) {
				cx.groups = append(cx.groups, []int32{between})
				cx.names = append(cx.names, "")
				cx.scope = append(cx.scope, between)
				cx.spans = append(cx.spans, [2]int{s, s})
			}
		}
		cx.groups = append(cx.groups, nodes)
		cx.names = append(cx.names, h.name)
		cx.spans = append(cx.spans, [2]int{s, e})
		cx.scope = append(cx.scope, nodes...)
	}
	if len(hits) > 0 {
		cx.scoped, cx.ownSubjects = true, true
		cx.scope = ix.mostSpecific(cx.scope)
	}
	cx.unknown = cx.unknownIdentifier(toks, orig)
}

// mostSpecific keeps the innermost of nested subjects: "order 123's item
// A" is about A.
func (ix *index) mostSpecific(scope []int32) []int32 {
	sortUnique(&scope)
	var keep []int32
	for _, a := range scope {
		inner := false
		for _, b := range scope {
			if a != b && ix.ancestorOf(a, b) {
				inner = true
			}
		}
		if !inner {
			keep = append(keep, a)
		}
	}
	return keep
}

// isRangeJoin reports the text between two subjects of a range.
func isRangeJoin(r []rune) bool {
	switch strings.TrimSpace(string(r)) {
	case "到", "至", "-", "~", "to", "through", "thru", "—", "–":
		return true
	}
	return false
}

// membersBetween returns the collection members strictly between the
// members holding a and b.
func (ix *index) membersBetween(a, b []int32) []int32 {
	for _, cl := range ix.colls {
		ia, ib := -1, -1
		for i, m := range cl.members {
			for _, x := range a {
				if ix.ancestorOf(m, x) {
					ia = i
				}
			}
			for _, x := range b {
				if ix.ancestorOf(m, x) {
					ib = i
				}
			}
		}
		if ia >= 0 && ib >= 0 {
			lo, hi := min(ia, ib), max(ia, ib)
			return slices.Clone(cl.members[lo+1 : hi])
		}
	}
	return nil
}

// subjectCase guards one-letter and common-word subjects: "A" must be
// written in capitals, and not be the article starting a sentence.
func (cx *claimCtx) subjectCase(toks []token, i, n int, orig []rune, se subjEntry) bool {
	if n != 1 || len([]rune(toks[i].s)) > 2 || toks[i].cjk {
		return true
	}
	t := toks[i]
	w := string(orig[t.start:t.end])
	if strings.ToLower(w) == w && strings.ToUpper(se.exact) != se.exact {
		return true
	}
	if strings.ToUpper(w) != w {
		return false
	}
	if w == "A" || w == "I" {
		// "A customer …": the article. "A has 12", "Item A" name the item.
		if i == 0 && i+1 < len(toks) {
			next := toks[i+1].s
			return clauseVerbs[next] || next == "costs" || next == "is" || next == "and" || next == "or"
		}
	}
	return true
}

// classNouns precede an identifier: item C, 商品 C, order 555.
var classNouns = map[string]bool{
	"item": true, "product": true, "option": true, "plan": true, "model": true, "sku": true,
	"order": true, "booking": true, "reservation": true, "flight": true, "room": true,
	"warehouse": true, "store": true, "variant": true, "package": true,
	"商": true, "品": true, "号": true, "款": true, "单": true, "型": true,
}

// unknownIdentifier returns an identifier the claim names that no evidence
// value knows ("Item C" when only A and B were returned), or "".
func (cx *claimCtx) unknownIdentifier(toks []token, orig []rune) string {
	ix := cx.ix
	for i, t := range toks {
		if cx.used[t.start] {
			continue
		}
		w := string(orig[t.start:t.end])
		isID := false
		switch {
		case len(w) == 1 && w[0] >= 'A' && w[0] <= 'Z' && i > 0 && classNouns[toks[i-1].s]:
			isID = w != "A" || toks[i-1].s != "品" && toks[i-1].s != "item"
			if w == "A" {
				isID = true
			}
		case len(t.s) >= 4 && digitCount(t.s) >= 3 && strings.ContainsAny(t.s, "abcdefghijklmnopqrstuvwxyz") && !strings.Contains(t.s, ".") && !isNumberWithUnit(t.s):
			isID = true // C300, X2000: a code, not PM2.5
		case len(t.s) >= 4 && isAllDigits(t.s) && i > 0 && (classNouns[toks[i-1].s] || t.start > 0 && cx.norm[t.start-1] == '#'):
			isID = true
		}
		if !isID {
			continue
		}
		if _, ok := ix.values[t.s]; ok {
			continue
		}
		if _, ok := ix.subjects[t.s]; ok {
			continue
		}
		if len(ix.byValue[t.s]) > 0 {
			continue
		}
		return w
	}
	return ""
}

func digitCount(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

func isAllDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// isNumberWithUnit reports tokens such as "12kg" or "5pm".
func isNumberWithUnit(s string) bool {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return false
	}
	rest := s[i:]
	_, ok := unitWords[rest]
	return ok || rest == "am" || rest == "pm" || rest == "st" || rest == "nd" || rest == "rd" || rest == "th" || rest == "x" || rest == "k"
}

// ---- reading a claim against the evidence index -----------------------------

// readWords collects the claim's cues, negations, categories and content
// concepts from the words outside subjects, dates and numbers.
func (cx *claimCtx) readWords() {
	var unknownRun []rune
	flush := func() {
		for _, c := range segmentCJK(unknownRun) {
			cx.concepts = append(cx.concepts, c)
		}
		unknownRun = unknownRun[:0]
	}
	for i := range cx.words {
		w := &cx.words[i]
		if w.start < len(cx.used) && cx.used[w.start] {
			flush()
			continue
		}
		if i > 0 && cx.words[i-1].s == "per" {
			continue // "points per game": a rate's denominator names no field
		}
		info := w.info
		if w.cjk && len(w.s) <= 3 && info != nil && len(info.concepts) == 0 && info.cues&(cueStop|cueNeg) == 0 && len(info.cats) == 0 {
			// A one-ideograph cue word (小, 高) is still part of the words
			// around it: 小桌 is a small table.
			unknownRun = append(unknownRun, []rune(w.s)...)
			cx.cues |= info.cues
			continue
		}
		if info == nil && !w.cjk {
			if p := negPrefixed(w.s); p != "" {
				cx.negs++
				cx.concepts = append(cx.concepts, enLex[p].concepts...)
				continue
			}
		}
		if info == nil {
			if w.cjk {
				unknownRun = append(unknownRun, []rune(w.s)...)
				continue
			}
			flush()
			cx.concepts = append(cx.concepts, wordConcepts(w.s)...)
			continue
		}
		flush()
		cx.cues |= info.cues
		if info.cues&cueNeg != 0 && info.cues&cuePlain == 0 {
			cx.negs++
		}
		if info.cues&cueNegLex != 0 {
			cx.negs++
		}
		if len(info.cats) > 0 {
			cx.cats = append(cx.cats, catMention{cats: info.cats, start: w.start})
		}
		cx.concepts = append(cx.concepts, info.concepts...)
		if info.cues&cueFree != 0 {
			cx.nums = append(cx.nums, numMention{start: w.start, end: w.end, unit: &unit{name: "money", dim: dimCurrency, factor: 1}, mag: 1, free: true})
		}
	}
	flush()
	// Chinese words the longest-match path cut apart (仓库存 holds 仓库
	// and 库存) still name their concepts.
	cx.concepts = append(cx.concepts, cx.cjkConcepts(0, len(cx.norm))...)
	// "no restocking fee", 退货不收取手续费: the negation is of the fee.
	for i := range cx.words {
		w := &cx.words[i]
		if c := w.cues(); c&cueNeg == 0 || c&cuePlain != 0 {
			continue
		}
		for j := i + 1; j < len(cx.words) && j <= i+3; j++ {
			if feeWords[cx.words[j].s] {
				cx.negs--
				cx.nums = append(cx.nums, numMention{start: cx.words[j].start, end: cx.words[j].end, unit: &unit{name: "money", dim: dimCurrency, factor: 1}, mag: 1, free: true})
				break
			}
		}
	}
	// A year the evidence uses as a field name ("in 2023" of a table with a
	// 2023 column) names the field; it is not a value to find.
	nums := cx.nums[:0]
	for _, m := range cx.nums {
		if k := strconv.Itoa(int(m.v)); !m.free && m.unit == nil && m.decimals == 0 && m.v >= 1900 && m.v <= 2100 && !m.isRange && cx.ix.keys[k] != nil {
			cx.concepts = append(cx.concepts, k)
			continue
		}
		nums = append(nums, m)
	}
	cx.nums = nums
	cx.concepts = dedupe(cx.concepts)
	slices.Sort(cx.concepts)
}

// cjkConcepts returns the concepts of every lexicon word of two or more
// ideographs inside [s, e) that no subject, date or number took and that
// the longest-match words cut across (仓库存 holds 库存; 总金额 is one word
// and does not also say 金额).
func (cx *claimCtx) cjkConcepts(s, e int) []string {
	var out []string
	r := cx.norm
	inWord := func(i, n int) bool {
		for _, w := range cx.words {
			if w.cjk && w.info != nil && w.start <= i && i+n <= w.end {
				return true
			}
		}
		return false
	}
	for i := s; i < e; i++ {
		if !isCJK(r[i]) || cx.used[i] {
			continue
		}
		for n := 2; n <= zhMaxLen && i+n <= e; n++ {
			if cx.used[i+n-1] || !isCJK(r[i+n-1]) {
				break
			}
			if l := zhLex[string(r[i:i+n])]; l != nil && !inWord(i, n) {
				out = append(out, l.concepts...)
			}
		}
	}
	return out
}

// conceptsIn returns the concepts of the words inside [s, e).
func (cx *claimCtx) conceptsIn(s, e int) []string {
	var out []string
	for _, w := range cx.words {
		if w.start < s || w.end > e || w.start < len(cx.used) && cx.used[w.start] {
			continue
		}
		if w.info != nil {
			out = append(out, w.info.concepts...)
		} else if !w.cjk {
			out = append(out, wordConcepts(w.s)...)
		}
	}
	out = append(out, cx.cjkConcepts(s, e)...)
	return dedupe(out)
}

// hasWord reports whether the claim has one of the words ws.
func (cx *claimCtx) hasWord(ws ...string) bool {
	for _, w := range cx.words {
		if slices.Contains(ws, w.s) {
			return true
		}
	}
	return false
}

// findValues finds the evidence string values the claim names (longest
// first, outside subjects) and takes their runes.
func (cx *claimCtx) findValues() {
	ix := cx.ix
	toks := cx.toks
	for i := 0; i < len(toks); i++ {
		if cx.used[toks[i].start] {
			continue
		}
		var best []int32
		bestN := 0
		for _, ve := range ix.values[toks[i].s] {
			n := len(ve.toks)
			if i+n > len(toks) || n < bestN {
				continue
			}
			ok := true
			for k := 0; k < n; k++ {
				if toks[i+k].s != ve.toks[k] || cx.used[toks[i+k].start] {
					ok = false
					break
				}
			}
			if !ok || !cx.mentionable(&ix.leaves[ve.leaf]) {
				continue
			}
			if n > bestN {
				best, bestN = nil, n
			}
			best = append(best, ve.leaf)
		}
		if bestN == 0 {
			continue
		}
		for k := i; k < i+bestN; k++ {
			for r := toks[k].start; r < toks[k].end; r++ {
				cx.used[r] = true
			}
		}
		i += bestN - 1
		cx.values = append(cx.values, best)
	}
}

// mentionable reports string values distinctive enough to count as named
// when they appear in a claim.
func (cx *claimCtx) mentionable(lf *leaf) bool {
	if lf.subjKey || len(lf.cat) > 0 || lf.hasDay {
		return false
	}
	r := []rune(lf.str)
	if len(r) < 2 || !isCJK(r[0]) && len(r) < 3 {
		return false
	}
	if isAllDigits(lf.str) && len(lf.str) < 5 || unitOfValue(lf.str) != nil {
		return false // "600519", a code, may be named; "12" is a number
	}
	if l := enLex[lf.str]; l != nil && l.cues != 0 {
		return false
	}
	if l := zhLex[lf.str]; l != nil && l.cues != 0 {
		return false
	}
	switch lf.str {
	case "true", "false", "yes", "no", "none", "null", "n/a", "ok":
		return false
	}
	return true
}
