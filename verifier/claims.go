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
	if j < e {
		if !unicode.IsSpace(r[j]) && !isCJK(r[j]) {
			return false
		}
		k := skipSpace(r, j, e)
		if k < e && unicode.IsLower(r[k]) {
			return false
		}
	}
	// The word before the period.
	w := i
	for w > 0 && (unicode.IsLetter(r[w-1]) || r[w-1] == '.') && !isCJK(r[w-1]) {
		w--
	}
	word := strings.ToLower(string(r[w:i]))
	if word == "" {
		return true
	}
	if abbreviations[word] || abbreviations[strings.Trim(word, ".")] {
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
	words, cjk := 0, 0
	verb := false
	for i := s; i < e; {
		c := r[i]
		switch {
		case unicode.IsDigit(c):
			return hasContent(r, s, e)
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
	"price=price prices priced pricing cost costs costing fee fees charge charges charged msrp rate rates expensive cheap cheaper cheapest pricey pricier priciest costlier dollars fare fares deposit",
	"original=original regular list msrp",
	"subtotal=subtotal",
	"total=total totals sum overall altogether combined subtotal grand",
	"discount=discount discounts discounted off savings saving save saves saved coupon promo sale",
	"weight=weight weighs weigh weighing weighed heavy heavier heaviest lighter lightest",
	"temperature=temperature temperatures temp temps warm warmer warmest hot hotter hottest cold colder coldest cool cooler coolest feels_like",
	"high=high highs max maximum peak highest",
	"low=low lows min minimum lowest",
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
	"duration=duration takes take taking long lasts",
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
	"ratio=ratio proportion fraction",
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
	"neglex=unavailable out_of_stock sold_out closed closure closures",
	"approx=about around approximately approx roughly nearly almost circa ~ close_to or_so estimated",
	"universal=all every both entire whole everything everyone none any_of_them",
	"existential=some several certain a_few",
	"exclusive=only solely exclusively",
	"always=always never forever constantly invariably every_time at_all_times",
	"certain=definitely certainly guaranteed guarantee guarantees surely undoubtedly absolutely assuredly promise promised for_sure without_fail",
	"derive=total totals sum combined together altogether overall net difference more less fewer higher lower increase increased increases decrease decreased decreases drop dropped drops rise rose risen fall fell gain gained grew growth change changed margin gap saving savings save saves off discount times twice double half average mean cheaper costlier improve improves improved improvement raise raises raised reduce reduces reduced comes_to bringing",
	"more=more higher greater larger bigger heavier warmer hotter longer exceeds outperforms outperform outperformed beats surpasses better pricier costlier farther later taller more_expensive",
	"less=less fewer lower smaller cheaper lighter colder cooler shorter worse earlier sooner faster less_expensive underperforms",
	"most=most highest greatest largest biggest heaviest warmest hottest longest best priciest latest",
	"least=least fewest lowest smallest cheapest lightest coldest coolest shortest worst earliest fastest soonest",
	"than=than versus vs compared outperforms outperform outperformed beats surpasses underperforms",
	"gt=more_than greater_than over above exceeds exceeding",
	"ge=at_least no_less_than minimum_of not_less_than",
	"lt=less_than fewer_than under below",
	"le=at_most up_to no_more_than within maximum_of not_more_than or_less",
	"after_ge=or_more",
	"nonassert=hello hi hey thanks welcome sorry glad hope recommend recommended suggest suggestion opinion think believe consider perhaps i_think i_believe i_recommend i_suggest in_my_opinion good_choice great_choice good_news here_is here_are here's as_follows below_is best_regards",
	"offer=let_me_know feel_free thank_you would_you_like do_you_want shall_i can_i_help happy_to_help hope_this_helps if_you_need if_you_have anything_else i_can i_could i'll i_will let_me you're_welcome have_a_nice_day have_a_great_day good_morning good_afternoon if_you'd_like if_you_want don't_hesitate please_let",
	"hedge=estimated estimate est expected expect expects eta forecast forecasted predicted projected likely probability chance tentative tentatively anticipated planned approx",
	"pronoun=it its they their them this that these those he she",
	"future=will shall 'll going_to expected_to",
	"free=free complimentary",
	"respectively=respectively",
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
	"weather/cloudy/0=cloudy overcast partly_cloudy mostly_cloudy clouds 多云 阴 阴天 少云 多云转晴",
	"weather/rain/0=rain rainy raining showers shower drizzle light_rain heavy_rain 雨 小雨 中雨 大雨 暴雨 阵雨 下雨 降雨 有雨",
	"weather/storm/0=thunderstorm thunderstorms storm storms 雷阵雨 雷雨 雷暴",
	"weather/snow/0=snow snowy snowing 雪 小雪 大雪 下雪 中雪",
	"weather/fog/0=fog foggy mist misty haze 雾 大雾 霾",
}

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
		return nil
	}
	if p := negPrefixed(w); p != "" {
		return enLex[p].concepts
	}
	return []string{s}
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
func claimWords(r []rune) []cword {
	toks := tokenize(r)
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
// category word, else the first category word inside it.
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
	for _, w := range claimWords([]rune(s)) {
		if w.info != nil && len(w.info.cats) > 0 {
			return w.info.cats
		}
	}
	return nil
}
