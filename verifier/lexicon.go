package verifier

import (
	"slices"
	"strconv"
	"strings"
)

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
	cueUp     // rose, grew, 增长: a series went up
	cueDown   // fell, dropped, 下降: a series went down
	cueExcept // except, all but, 除了…都: every member but the named one(s)
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
	"universal=all every both entire whole everything everyone none any_of_them all_but all_except",
	"except=except except_for other_than apart_from all_but all_except",
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
	"up": cueUp, "down": cueDown, "except": cueExcept,
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
