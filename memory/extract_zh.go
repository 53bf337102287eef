package memory

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolstream/toolstream/events"
)

// The Chinese half of RuleExtractor: "我喜欢 / 我爱 / 我不能 / 我不吃 /
// 我对…过敏 / 我讨厌 / 我住在 …". A clause after a first clause with 我 may
// drop it ("我喜欢吃辣，但是最近不能吃"), and a dropped object is the previous
// statement's. Objects in zhLexicon take its English attribute, so "我不能吃辣"
// and "I can't eat spicy food" hold the same slot, food/spicy.

// zhEntry maps a Chinese object to its slot.
type zhEntry struct{ zh, en, subject string }

// zhLexicon is data/words.txt's [zh lexicon], in its order: longer words
// first, so the longest match wins.
var zhLexicon = zhLexiconOf()

type zhPattern struct {
	prefix   string
	kind     Kind
	polarity Polarity
	hint     string // "eat", "drink" or ""
}

// zhPatterns are data/words.txt's [zh patterns], tried in order: a negation
// before the word it negates.
var zhPatterns = zhPatternsOf()

// zhHabitVerbs: 喝 / 吃 / 去 / 用 / 学 / 练 with a frequency or amount is a
// habit (a fact); 喝 and 吃 of a known food or drink are one without.
var zhHabitVerbs = []struct{ verb, hint, subject string }{
	{"喝", "drink", ""}, {"吃", "eat", ""}, {"去", "", "activity"}, {"用", "", ""}, {"学", "", "study"}, {"练", "", "activity"},
}

// zhActivities are what 不 + activity denies as a fact (我不抽烟), as "I don't
// smoke" does.
var zhActivities = memData.Words("zh words", "activities")

// zhKin open a clause about someone else: 我老婆不吃辣 is the wife's.
var zhKin = memData.Words("zh words", "kin")

// zhContact name contact details and secrets (手机号, 地址).
var zhContact = memData.Words("zh words", "contact")

// zhFineWords say a thing is fine (没问题, 没事); with 了, fine again.
var zhFineWords = memData.Words("zh words", "fine")

// zhDurations are the amounts of time a habit takes (一小时, 二十分钟).
var zhDurations = memData.Words("zh words", "durations")

// zhWorkOn and zhWorkOff start and end the working day (上班, 下班).
var (
	zhWorkOn  = memData.Words("zh words", "work_on")
	zhWorkOff = memData.Words("zh words", "work_off")
)

// zhNeeds are the words that say the user needs a thing (一定要, 必须).
var zhNeeds = memData.Words("zh words", "need")

// zhUnable are the complements after a verb that say the user cannot (爬不了).
var zhUnable = memData.Words("zh words", "unable")

// zhEnded are the words after a restraint that say it is over (控糖结束了).
var zhEnded = memData.Words("zh words", "ended")

// zhAllergyCues name an allergy (过敏); zhNoLonger before it (不再, 已经不)
// and zhHealed after it (好了, 治好了) say it is over: zhAllergy.
var (
	zhAllergyCues = wordList("zh words", "allergy")
	zhNoLonger    = wordList("zh words", "no_longer")
	zhHealed      = wordList("zh words", "healed")
)

// zhBounds are the time words that bound a constraint (这周在控糖 holds a week).
var zhBounds = zhBoundsOf()

// zhQuantity reads a leading amount (一杯, 三次, 两瓶) and a period word
// before it (一周, 每天) and returns both.
var zhNumerals = "一二两三四五六七八九十几半0123456789"
var zhMeasures = "杯瓶次碗个顿块片罐口趟回"
var zhPeriods = memData.Words("zh words", "periods")

var (
	zhConnectors = memData.Words("zh words", "connectors")
	zhAdverbs    = memData.Words("zh words", "adverbs")
	zhParticles  = memData.Words("zh words", "particles")
	zhPronouns   = wordSet("zh words", "pronouns")
	zhPeople     = wordSet("zh words", "people")
)

func extractZH(text string, at int64) []events.Observation {
	var out []events.Observation
	sents, questions, things := sentencesMarked(text)
	for si, sent := range sents {
		if questions[si] || strings.HasSuffix(sent, "吗") || zhAsked(sent) {
			continue
		}
		start := len(out)
		if o, ok := matchCorrectionZH(sent); ok {
			o.Text = sent // 是安达，不是顺达: correction.go
			out = append(out, o)
			continue
		}
		if o, ok := matchAmendZH(sent); ok {
			o.Text = sent // 我说错了，应该是周四: correction.go
			out = append(out, o)
			continue
		}
		if things[si] {
			// a thing of the speaker's said after a comma without a subject:
			// 我新家在…，单元门密码是6092 (statementParts)
			if o, ok := thingFactZH(sent); ok {
				headSlot(&o)
				o.Text = sent
				out = append(out, o)
			}
			continue
		}
		if obs := matchCleftZH(sent); len(obs) > 0 {
			for _, o := range obs {
				headSlot(&o)
				o.Text = sent
				out = append(out, o)
			}
			continue
		}
		sawWo := false
		kin := "" // whose the clause before was, when one of the user's people
		// a speaker's label ("张伟：") is no clause of what they say
		for ci, clause := range strings.FieldsFunc(afterSpeaker(sent), func(r rune) bool { return r == '，' || r == ',' || r == '、' }) {
			var prev *events.Observation
			if len(out) > start {
				prev = &out[len(out)-1]
			}
			add := func(o events.Observation) {
				headSlot(&o)
				o.Text = sent
				out = append(out, o)
			}
			raw := strings.TrimSpace(clause)
			body := zhUnwilling(raw)
			if zhHypothetical(body) {
				sawWo = false
				continue
			}
			if o, ok := matchLimitZH(raw); ok {
				add(o)
				continue
			}
			if o, ok := zhSurname(raw); ok {
				add(o) // 我姓钱; 帮我卖房的那个中介姓闫: the agent's
				continue
			}
			body = trimAny(trimAny(body, zhConnectors), zhAdverbs)
			if i := strings.Index(body, "我"); i > 0 && zhTimePrefix(body[:i]) {
				body = body[i:] // 到月底我都不喝奶茶, 3月20号之前我…
			}
			body = zhToldBan(body)
			if i := strings.Index(body, "说我"); i > 0 {
				// reported speech about the user: 医生说我最近不能喝咖啡
				body = trimAny(body[i+len("说"):], zhAdverbs)
			}
			dropped := false // the clause has no subject: in Chinese, the speaker's
			if k := kin; k != "" {
				kin = ""
				if !strings.Contains(body, "我") {
					// 我婆婆叫欧阳秀英，一直住在洛阳老家: the clause after a kin's
					// without a subject is the kin's too
					if o, _, ok := zhKinFact(k + body); ok {
						kin = k
						add(o)
					}
					continue
				}
			}
			if o, ok := zhTopicRefusal(body, prev); ok {
				sawWo = true
				add(o) // the thing put first: 腊肉这些东西我都不吃
				continue
			}
			if strings.HasPrefix(body, "我") && !strings.HasPrefix(body, "我们") {
				body, sawWo = strings.TrimPrefix(body, "我"), true
				if o, ok := matchMyIsZH(body); ok {
					add(o)
					continue
				}
				if b, ok := strings.CutPrefix(body, "的"); ok {
					if o, ok := zhAllergy(b, prev); ok && o.Polarity == string(Positive) {
						add(o) // the user's own allergy over: 我的花生过敏好了
						continue
					}
				}
				if hasAnyPrefix(body, zhKin) {
					sawWo = false // 我老婆…, 我的手机号…: not a statement about the user's tastes
					if o, who, ok := zhKinFact(body); ok {
						kin = who
						add(o) // 我妈属龙: the mother's, 妈/属相
					}
					continue
				}
			} else if !sawWo {
				if i := strings.Index(body, "我"); i > 0 && !strings.HasPrefix(body[i:], "我们") && !hasAnyPrefix(body, zhKin) && !hasAnyPrefix(body, zhSubjects) &&
					!containsAny(body, cues.zhAddressee) { // 给我发…没问题了: a request's lift, read as one
					if o, ok := zhFineAgain(body[:i] + trimAny(body[i+len("我"):], zhAdverbs)); ok {
						sawWo = true
						add(o) // the thing put before 我: 海鲜我现在可以吃了
						continue
					}
				}
				if o, ok := zhDoneForMe(body); ok {
					add(o) // 每年帮我报税的是小周会计
					continue
				}
				if hasAnyPrefix(body, zhKin) || hasAnyPrefix(body, zhSubjects) || strings.Contains(raw, "我") && !strings.Contains(raw, "给我") && !strings.Contains(raw, "让我") && !strings.Contains(raw, "跟我") && !zhAsksOfMe(raw) {
					continue
				}
				dropped = true
			}
			if b := trimAny(zhTrimTimes(body), zhWhen); hasAnyPrefix(b, zhLike) && !dropped {
				body = b // a liking said after when: 我周末喜欢去爬山 (a ban keeps its when)
			}
			if o, ok := matchFavoriteZH(body); ok {
				add(o)
				continue
			}
			if o, ok := matchEndedZH(body, prev); ok {
				add(o)
				continue
			}
			if o, ok := zhFineAgain(body); ok && !hasAnyPrefix(body, zhKin) && !hasAnyPrefix(body, zhSubjects) {
				add(o) // a lift, in any clause: 脱敏治疗做完了，跟猫待在一起也没事了
				continue
			}
			o, ok := matchZH(trimAny(body, zhAdverbs), prev)
			if ok && dropped && (ci > 0 || o.Kind != string(KindConstraint)) {
				ok = false // without a subject only a first clause's constraint is read as the user's (最近海鲜过敏)
			}
			if !ok {
				o, ok = matchRequestZH(raw, prev)
			}
			if !ok && sawWo && !dropped {
				o, ok = zhRefrain(body, zhBounded(sent, at))
			}
			if ok {
				add(o)
			}
		}
		var ttl int64
		for _, b := range zhBounds {
			if strings.Contains(sent, b.w) {
				ttl = b.ttl
				break
			}
		}
		if ttl == 0 {
			ttl = countedBoundZH(sent)
		}
		setValidity(out[start:], ttl, validUntilZH(sent, at), validFrom(nil, sent, at), containsAny(sent, cues.zhOpen))
		setStart(out[start:], startOf(nil, sent, at))
	}
	return out
}

// zhBounded reports whether sent says how long its statement holds: a
// bound (zh bounds), a counted one, an end, a start or an open validity.
func zhBounded(sent string, at int64) bool {
	for _, b := range zhBounds {
		if strings.Contains(sent, b.w) {
			return true
		}
	}
	return countedBoundZH(sent) != 0 || validUntilZH(sent, at) != 0 || validFrom(nil, sent, at) != 0 ||
		startOf(nil, sent, at) != 0 || containsAny(sent, cues.zhOpen)
}

// zhTimePrefix reports whether s, said before 我, is a time of validity:
// 到月底, 年底之前, 到3月20号为止, 这段时间.
func zhTimePrefix(s string) bool {
	if containsAny(s, cues.zhForbid) || strings.Contains(s, "让") {
		return false // 月底以前别让我…: a request, read as one
	}
	return containsAny(s, cues.zhUntil) || containsAny(s, cues.zhEndYear) || containsAny(s, cues.zhEndMonth) ||
		countedBoundZH(s) > 0 || containsAny(s, cues.zhFromNextMonth) || containsAny(s, cues.zhFromNextWeek) ||
		containsAny(s, cues.zhOpen) || zhDate.MatchString(s) || hasAnySuffix(s, []string{"之前", "以前", "为止", "前"}) ||
		strings.HasPrefix(s, "从") && hasAnySuffix(s, []string{"开始", "起"}) // 从这个月开始我…
}

// matchCleftZH reads a correction whose thing is put after 的是: 我过敏的是阿司匹林，
// 不是布洛芬 — the verb phrase after 我 read of the thing (过敏 of 对…过敏), and of
// the thing after 不是 with the other polarity, so the misspoken one is
// lifted, not kept. Only with 不是 (a bare 我喜欢的是… is read as before).
func matchCleftZH(sent string) []events.Observation {
	clauses := strings.FieldsFunc(sent, func(r rune) bool { return r == '，' || r == ',' })
	for ci := 0; ci+1 < len(clauses); ci++ {
		c := strings.TrimSpace(clauses[ci])
		i := strings.Index(c, "的是")
		w := strings.LastIndex(c[:max(i, 0)], "我")
		if i < 0 || w < 0 {
			continue
		}
		vp, x := c[w+len("我"):i], c[i+len("的是"):]
		next := strings.TrimSpace(clauses[ci+1])
		y, ok := strings.CutPrefix(strings.TrimPrefix(next, "而"), "不是")
		if !ok || vp == "" || x == "" || y == "" {
			continue
		}
		read := func(thing string) (events.Observation, bool) {
			if o, ok := matchZH(vp+thing, nil); ok {
				return o, true
			}
			return matchZH("对"+thing+vp, nil) // 过敏 of 对X过敏
		}
		o, ok := read(x)
		if !ok {
			continue
		}
		out := []events.Observation{o}
		if n, ok := read(y); ok && n.Kind == o.Kind && n.Attribute != o.Attribute {
			n.Polarity = string(Positive)
			if o.Polarity == string(Positive) {
				n.Polarity = string(Negative)
			}
			out = append(out, n)
		}
		return out
	}
	return nil
}

// zhAsksOfMe reports a request whose object is the user: a forbidding cue
// before the clause's first 我 (周末别约我出去玩, 不要叫我起床), or a
// permission before an addressee that ends with it (飞盘又可以算我了,
// 聚餐又可以叫我了: the request given back).
func zhAsksOfMe(s string) bool {
	i := strings.Index(s, "我")
	if i <= 0 {
		return false
	}
	if containsAny(s[:i], cues.zhForbid) {
		return true
	}
	// only the addressee ends the clause: 以后可以叫我老王 gives a name, not a request back
	return containsAny(s[:i], cues.zhAllow) && hasAnySuffix(s[:i+len("我")], cues.zhAddressee) &&
		strings.Trim(s[i+len("我"):], "了吧啦呢啊。！!") == ""
}

// zhSubjects open a clause about someone or something else than the
// speaker: 他, 你, 这家店….
var zhSubjects = memData.Words("zh words", "subjects")

// matchFavoriteZH reads a favourite: 更喜欢普洱 (a comparative preference:
// the new favourite), 最喜欢的咖啡是拿铁 (the favourite of a kind). Adverbs
// before them (现在, 其实) are dropped; 更 and 最 are what they say.
func matchFavoriteZH(body string) (events.Observation, bool) {
	if o, ok := matchDethroneZH(body); ok {
		return o, true
	}
	// the favourite's cue, after nothing but adverbs (现在, 其实, 还是)
	b, at := body, -1
	for _, p := range append(append([]string{}, cues.zhPrefer...), "最喜欢", "最爱", "喜欢的") {
		if i := strings.Index(body, p); i >= 0 && (at < 0 || i < at) && trimAny(body[:i], zhAdverbs) == "" {
			at = i
		}
	}
	if at < 0 {
		return events.Observation{}, false
	}
	b = body[at:]
	for _, p := range []string{"最喜欢的", "最爱的", "喜欢的"} {
		if rest, ok := strings.CutPrefix(b, p); ok {
			if y, ok := strings.CutPrefix(rest, "是"); ok {
				return favorite(zhObject(y)) // 最喜欢的是普洱
			}
			if x, y, ok := strings.Cut(rest, "是"); ok && x != "" && y != "" {
				o, ok := favorite(zhObject(y))
				o.Attribute = favoriteKind(x)
				return o, ok
			}
		}
	}
	for _, p := range append(append([]string{}, cues.zhPrefer...), "最喜欢", "最爱") {
		if rest, ok := strings.CutPrefix(b, p); ok {
			if strings.HasPrefix(rest, "的") {
				return events.Observation{}, false // 最喜欢的运动 without what it is
			}
			rest = strings.TrimPrefix(strings.TrimPrefix(rest, "喝"), "吃")
			x := zhObject(rest)
			if x == "" || zhPronouns[x] || zhPeople[x] || utf8.RuneCountInString(x) > 10 {
				return events.Observation{}, false
			}
			return favorite(x)
		}
	}
	return events.Observation{}, false
}

func containsAny(s string, ws []string) bool {
	for _, w := range ws {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// zhAsked reports a question without its mark: 要不要, 是不是, 能不能 …
func zhAsked(s string) bool {
	for _, m := range memData.Words("zh words", "asked") {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// zhUnwilling reads 不想 / 不太想 / 不想再 (do not want to) as a dislike
// (不喜欢): unlike 想 (a wish), a refusal states a taste.
func zhUnwilling(s string) string {
	for _, w := range memData.Words("zh words", "unwilling") {
		if i := strings.Index(s, w); i >= 0 {
			return s[:i] + "不喜欢" + s[i+len(w):]
		}
	}
	return s
}

// zhHypothetical reports a clause that states nothing: a condition, a
// wish or a plan (如果…, 想尝尝, 打算, 考虑).
func zhHypothetical(s string) bool {
	for _, m := range memData.Words("zh words", "hypothetical") {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// clausesZH splits s at the runes of seps, as strings.FieldsFunc does,
// except at a colon between digits, the colon of a clock time (6:30起床).
func clausesZH(s, seps string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if !strings.ContainsRune(seps, r) {
			continue
		}
		if (r == ':' || r == '：') && i > 0 && isDigitByte(s[i-1]) && clockMinutes(s[i+utf8.RuneLen(r):]) {
			continue
		}
		if i > start {
			out = append(out, s[start:i])
		}
		start = i + utf8.RuneLen(r)
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

var (
	zhTold        = memData.Words("zh words", "told")
	zhToldNot     = memData.Words("zh words", "told_not")
	zhPeopleWords = memData.Words("zh words", "people")
)

// zhToldBan reads a ban another tells the user (zh words: told, told_not)
// as the user's own: 医生让我别吃火锅 as 我别吃火锅, 医生不让我喝酒 as 我不能喝酒.
// Only a ban of the user's own: 医生让我多喝水 stays as said, and so do a
// request to the assistant (别让我吃辣: the ban is said before 让我) and a
// ban about another person (我妹妹让我别给她打电话).
func zhToldBan(body string) string {
	for _, t := range zhToldNot {
		if i := strings.Index(body, t); i > 0 && !containsAny(body[:i], cues.zhForbid) && !containsAny(body[i+len(t):], zhPeopleWords) {
			return "我不能" + body[i+len(t):]
		}
	}
	for _, t := range zhTold {
		i := strings.Index(body, t)
		if i <= 0 || containsAny(body[:i], cues.zhForbid) || strings.HasSuffix(body[:i], "不") {
			continue
		}
		rest := strings.TrimPrefix(trimAny(body[i+len(t):], zhAdverbs), "先") // 叫我先别…
		if hasAnyPrefix(rest, cues.zhForbid) && !containsAny(rest, zhPeopleWords) {
			return "我" + rest
		}
	}
	return body
}

// matchZH reads one clause after its 我 (or with 我 dropped).
func matchZH(body string, prev *events.Observation) (events.Observation, bool) {
	if o, ok := zhWorkHours(body); ok {
		return o, true
	}
	if o, ok := zhAllergy(body, prev); ok {
		return o, true
	}
	for _, veg := range []string{"是素食主义者", "是素食者", "吃素", "是纯素"} {
		if strings.HasPrefix(body, veg) {
			return events.Observation{Kind: string(KindConstraint), Subject: "food", Attribute: "meat",
				Polarity: string(Negative), Confidence: confStrong}, true
		}
	}
	for _, p := range []string{"住在", "搬到了", "搬到", "搬去"} {
		if strings.HasPrefix(body, p) {
			return zhFact(strings.TrimPrefix(body, p), "location", "home")
		}
	}
	if strings.HasPrefix(body, "在") {
		if o, ok := zhJob(body[len("在"):]); ok {
			return o, true
		}
		for _, p := range []string{"工作", "上班"} {
			if i := strings.Index(body, p); i > len("在") {
				return zhFact(body[len("在"):i], "work", "employer")
			}
		}
		body = strings.TrimPrefix(strings.TrimPrefix(body, "正"), "在") // 在控糖: progressive
	}
	body = strings.TrimPrefix(body, "正在")
	// 从阿里离职了, 离开了腾讯: the employer ends
	if strings.HasPrefix(body, "从") {
		for _, p := range []string{"离职", "辞职", "出来"} {
			if i := strings.Index(body, p); i > len("从") {
				o, ok := zhFact(body[len("从"):i], "work", "employer")
				o.Polarity = string(Negative)
				return o, ok
			}
		}
	}
	for _, a := range zhActivities {
		for _, neg := range []string{"不", "从不", "从来不", "不再"} {
			if body == neg+a || strings.HasPrefix(body, neg+a) && len([]rune(body)) <= len([]rune(neg+a))+1 {
				return events.Observation{Kind: string(KindFact), Subject: "activity", Attribute: a,
					Polarity: string(Negative), Confidence: confWeak}, true
			}
		}
	}
	for _, p := range []string{"是做", "是干", "是搞"} {
		// 我是做外贸的, 我是搞装修的: the trade the user is in
		if x, ok := strings.CutPrefix(strings.TrimRight(body, "。！!. "), p); ok && strings.HasSuffix(x, "的") {
			if x = strings.TrimSuffix(x, "的"); utf8.RuneCountInString(x) >= 2 && utf8.RuneCountInString(x) <= zhJobMax && hasHanOnly(x) {
				return events.Observation{Kind: string(KindFact), Subject: "work", Attribute: "role", Value: x,
					Polarity: string(Positive), Confidence: confStrong}, true
			}
		}
	}
	if x, ok := strings.CutPrefix(body, "是"); ok {
		// 我是一名注册会计师: a qualification, each its own slot (matchCredentialEN)
		x = strings.TrimRight(trimAny(x, []string{"一名", "一个", "一位"}), "。！!. ")
		if hasAnyPrefix(x, zhCredentials) && utf8.RuneCountInString(x) <= zhActivityMax && !strings.ContainsAny(x, "，,") {
			return events.Observation{Kind: string(KindFact), Subject: "qualification", Attribute: x,
				Polarity: string(Positive), Confidence: confStrong}, true
		}
	}
	if x, ok := strings.CutSuffix(strings.TrimPrefix(body, "是"), "人"); ok && strings.HasPrefix(body, "是") &&
		!strings.Contains(x, "的") && !hasAnySuffix(x, zhPersonKinds) {
		// 我是上海人; 是退休的铁路工人, 是个好人 say what kind of person, no place
		return zhFact(strings.TrimSuffix(strings.TrimPrefix(body, "是"), "人"), "location", "origin")
	}
	if x, ok := strings.CutPrefix(strings.TrimRight(body, "。！!. 的"), "属"); ok && slices.Contains(zhZodiac, x) {
		// 我属虎: the user's zodiac sign ([zh words] zodiac)
		return events.Observation{Kind: string(KindFact), Subject: "identity", Attribute: "属相", Value: x,
			Polarity: string(Positive), Confidence: confStrong}, true
	}
	if x, ok := strings.CutPrefix(strings.TrimRight(body, "。！!. 的"), "是"); ok && zhStarSign(x) {
		// 我是天蝎座: the user's star sign ([zh words] star_sign)
		return events.Observation{Kind: string(KindFact), Subject: "identity", Attribute: zhSign[0], Value: x,
			Polarity: string(Positive), Confidence: confStrong}, true
	}
	for _, p := range []string{"的名字是", "名字叫", "叫"} {
		if strings.HasPrefix(body, p) {
			return zhFact(strings.TrimPrefix(body, p), "identity", "name")
		}
	}
	for _, p := range zhPatterns {
		if rest, ok := strings.CutPrefix(body, p.prefix); ok && !strings.HasPrefix(rest, "得") {
			// 得 after the verb says how it went (恢复得很好), not what
			if p.kind == KindFact && saysSchedule(rest) {
				// 改成每周游两次, 改成隔天: a new schedule of a habit, not a
				// new thing; the restatement reads it (restate.go)
				return events.Observation{}, false
			}
			return zhSlotted(rest, p.hint, p.kind, p.polarity, prev)
		}
	}
	if o, ok := zhCannot(body); ok {
		return o, true
	}
	if o, ok := zhNeed(body); ok {
		return o, true
	}
	return zhHabit(body)
}

// zhAllergy reads an allergy (zh words: allergy): 对X过敏, X过敏 a ban of X;
// and its lift, said as no longer (zh words: no_longer) before 对 or
// before 过敏 (不再对X过敏, 已经不对X过敏了, 对X已经不过敏了) or as healed
// after it (X过敏已经好了, 对X过敏治好了: zh words healed). Adverbs between
// the thing and the cue are no part of the thing.
func zhAllergy(body string, prev *events.Observation) (events.Observation, bool) {
	cue := ""
	i := -1
	for _, c := range zhAllergyCues {
		if j := strings.Index(body, c); j >= 0 && (i < 0 || j < i) {
			cue, i = c, j
		}
	}
	if i < 0 {
		return events.Observation{}, false
	}
	x, after := body[:i], body[i+len(cue):]
	pol := Negative
	if hasAnyPrefix(trimAny(after, zhAdverbs), zhHealed) {
		pol = Positive // 过敏已经好了
	}
	if j := strings.LastIndex(x, "对"); j >= 0 {
		if hasAnySuffix(trimAnySuffix(x[:j], zhAdverbs), zhNoLonger) {
			pol = Positive // 已经不对X过敏了
		}
		x = x[j+len("对"):]
	} else {
		x = trimAny(x, zhAdverbs)
		for _, w := range zhNoLonger {
			if y, ok := strings.CutPrefix(x, w); ok && y != "" {
				pol, x = Positive, y // without its 对: 不再花生过敏
				break
			}
		}
	}
	x = trimAnySuffix(x, zhAdverbs)
	for _, w := range zhNoLonger {
		if y, ok := strings.CutSuffix(x, w); ok {
			pol, x = Positive, trimAnySuffix(y, zhAdverbs) // 对X(已经)不过敏了
			break
		}
	}
	return zhSlotted(x, "", KindConstraint, pol, prev)
}

// trimAnySuffix trims any of suffixes off the end of s, repeatedly.
func trimAnySuffix(s string, suffixes []string) string {
	for changed := true; changed; {
		changed = false
		for _, p := range suffixes {
			if strings.HasSuffix(s, p) && s != p {
				s, changed = strings.TrimSpace(strings.TrimSuffix(s, p)), true
			}
		}
	}
	return s
}

// zhResume are the words between 可以 and a verb that say the user does it
// again (接着, 继续).
var zhResume = memData.Words("zh words", "resume")

// zhTopicAgain reads a thing put first that the user may do again with a
// verb of one character, s without its 了: 碗可以接着洗 (碗我可以接着洗了), 重物能
// 继续搬: a lift of the activity, the verb and the thing (洗碗).
func zhTopicAgain(s string) (events.Observation, bool) {
	for _, m := range []string{"可以", "能"} {
		i := strings.LastIndex(s, m)
		if i <= 0 {
			continue
		}
		v := []rune(trimAny(s[i+len(m):], zhResume))
		if len(v) != 1 || !unicode.Is(unicode.Han, v[0]) || strings.ContainsRune("吃喝是说", v[0]) {
			return events.Observation{}, false
		}
		x := s[:i]
		for _, w := range []string{"都", "也", "又", "再"} {
			x = strings.TrimSuffix(x, w)
		}
		x = zhObject(x)
		if n := utf8.RuneCountInString(x); n < 1 || n > zhActivityMax-1 || !unicode.Is(unicode.Han, []rune(x)[0]) ||
			zhPronouns[x] || zhPeople[x] || strings.Contains(x, "我") || strings.Contains(x, "你") {
			return events.Observation{}, false
		}
		return events.Observation{Kind: string(KindConstraint), Subject: "activity", Attribute: string(v) + x,
			Polarity: string(Positive), Confidence: confWeak}, true
	}
	return events.Observation{}, false
}

// zhFineAgain reads a thing said to be fine again: 爬楼梯都没问题了, 跟猫待在一起也
// 没事了 (a lift of the activity), 甜点也可以吃了, 酒又能喝了 (of the food or drink
// put first). Only with the 了 of a change: 爬楼梯没问题 states an ability,
// not a lift.
func zhFineAgain(body string) (events.Observation, bool) {
	s := strings.TrimSpace(body)
	if !strings.HasSuffix(s, "了") {
		return events.Observation{}, false
	}
	s = strings.TrimSuffix(s, "了")
	hint := ""
	cue := ""
	for _, c := range zhFineWords {
		if strings.HasSuffix(s, c) && len(c) > len(cue) {
			cue = c
		}
	}
	for _, v := range []struct{ verb, hint string }{{"吃", "eat"}, {"喝", "drink"}} {
		for _, m := range []string{"可以", "能"} {
			if c := m + v.verb; strings.HasSuffix(s, c) && len(c) > len(cue) {
				cue, hint = c, v.hint
			}
		}
	}
	if cue == "" {
		return zhTopicAgain(s)
	}
	x := strings.TrimSuffix(s, cue)
	if strings.HasSuffix(x, "不") || strings.HasSuffix(x, "没") || strings.HasSuffix(x, "别") {
		return events.Observation{}, false // 不能吃了: a ban, read as one
	}
	for changed := true; changed; {
		changed = false
		if b := trimAnySuffix(trimAny(x, zhAdverbs), zhAdverbs); b != x {
			x, changed = b, true // 坚果已经没问题了
		}
		for _, w := range []string{"都", "也", "又", "再"} {
			if strings.HasSuffix(x, w) {
				x, changed = strings.TrimSuffix(x, w), true
			}
		}
		if b := trimAnySuffix(x, cues.zhAddressee); b != x && b != "" {
			x, changed = b, true // 漂流给我解禁了: whom the thing is fine for
		}
	}
	x = zhObject(x)
	if n := utf8.RuneCountInString(x); n < 1 || n > zhActivityMax || !unicode.Is(unicode.Han, []rune(x)[0]) ||
		zhPronouns[x] || zhPeople[x] || strings.Contains(x, "我") || strings.Contains(x, "你") {
		return events.Observation{}, false
	}
	subject, attr := zhSlot(x, hint)
	if hint == "" && subject == "general" {
		subject = "activity"
	}
	return events.Observation{Kind: string(KindConstraint), Subject: subject, Attribute: attr,
		Polarity: string(Positive), Confidence: confWeak}, true
}

var zhClock = regexp.MustCompile(`^(早上|上午|中午|下午|晚上)?([零一二两三四五六七八九十]{1,3}|[0-9]{1,2})点(半|[0-9]{1,2}分)?`)

// zhWorkHours reads the user's working hours (每天九点上班, 改成十点上班了, 六点下班):
// the fact work/hours, as "I start work at 9" is, whose value is the time
// and the verb (九点上班), so newer hours supersede the old; the day's end
// alone (六点下班) is work/hours end, as "I finish work at 5" is.
func zhWorkHours(body string) (events.Observation, bool) {
	s := body
	for changed := true; changed; {
		changed = false
		for _, p := range append(append([]string{}, zhPeriods...), "改成", "改为", "都是", "都", "要", "一般", "通常") {
			if strings.HasPrefix(s, p) {
				s, changed = strings.TrimPrefix(s, p), true
			}
		}
	}
	m := zhClock.FindString(s)
	if m == "" {
		return events.Observation{}, false
	}
	rest := strings.TrimSuffix(strings.TrimSuffix(s[len(m):], "了"), "的")
	for _, v := range zhWorkOn {
		if rest == v {
			return events.Observation{Kind: string(KindFact), Subject: "work", Attribute: "hours", Value: m + v,
				Polarity: string(Positive), Confidence: confStrong}, true
		}
	}
	for _, v := range zhWorkOff {
		if rest == v {
			return events.Observation{Kind: string(KindFact), Subject: "work", Attribute: "hours end", Value: m + v,
				Polarity: string(Positive), Confidence: confStrong}, true
		}
	}
	return events.Observation{}, false
}

// zhNeed reads what the user needs (订酒店一定要无障碍房间, 必须要靠过道的座位): a
// constraint for the thing after the cue (zh words: need), as "I must …"
// is one to do it. A thing of one ideograph (一定要去) is none.
func zhNeed(body string) (events.Observation, bool) {
	for _, c := range zhNeeds {
		i := strings.Index(body, c)
		if i < 0 {
			continue
		}
		x := zhObject(strings.TrimSpace(body[i+len(c):]))
		for changed := true; changed; {
			changed = false
			for _, p := range zhParticles {
				if strings.HasSuffix(x, p) && x != p {
					x, changed = strings.TrimSuffix(x, p), true
				}
			}
		}
		if n := utf8.RuneCountInString(x); n < 2 || n > zhActivityMax || !unicode.Is(unicode.Han, []rune(x)[0]) || zhPronouns[x] || zhPeople[x] {
			return events.Observation{}, false
		}
		return events.Observation{Kind: string(KindConstraint), Subject: "general", Attribute: x,
			Polarity: string(Positive), Confidence: confWeak}, true
	}
	return events.Observation{}, false
}

// zhActivityMax bounds an activity's ideographs (爬楼梯, 提重物).
const zhActivityMax = 8

// zhCannot reads a verb's potential complement of inability: 爬不了楼梯,
// 走不动远路, 提不了重物 — a constraint against the activity, the verb with its
// object (爬楼梯); the complements are data (zh words: unable).
func zhCannot(body string) (events.Observation, bool) {
	rs := []rune(body)
	if len(rs) < 4 || !unicode.Is(unicode.Han, rs[0]) {
		return events.Observation{}, false
	}
	rest := string(rs[1:])
	for _, c := range zhUnable {
		x, ok := strings.CutPrefix(rest, c)
		if !ok {
			continue
		}
		x = zhObject(strings.TrimSpace(x))
		for changed := true; changed; {
			changed = false
			for _, p := range zhParticles {
				if strings.HasSuffix(x, p) && x != p {
					x, changed = strings.TrimSuffix(x, p), true
				}
			}
		}
		if x == "" || !unicode.Is(unicode.Han, []rune(x)[0]) || utf8.RuneCountInString(x) > zhActivityMax || zhPronouns[x] || zhPeople[x] {
			return events.Observation{}, false
		}
		return events.Observation{Kind: string(KindConstraint), Subject: "activity", Attribute: string(rs[0]) + x,
			Polarity: string(Negative), Confidence: confWeak}, true
	}
	return events.Observation{}, false
}

var (
	zhRefrainCues  = cueZH("requests", "refrain")
	zhRefrainMarks = cueZH("requests", "refrain_marks")
	zhRefrainNot   = cueZH("requests", "refrain_not")
	// zhUndergone: what happens to the user (咳嗽, 收到), which no one refuses
	zhUndergone = cueZH("requests", "refrain_undergone")
)

// zhRefrain reads a refusal the user says of themself, body after its 我:
// (a time of day) 不/不再 + a verb phrase + 了 (到年底我不接新的装修活了, 这阵子
// 我晚上不出门遛狗了) is a constraint against the verb phrase when bounded
// (the sentence says how long it holds) or when the phrase has a mark of
// more (新的), which is dropped from its name.
func zhRefrain(body string, bounded bool) (events.Observation, bool) {
	body = strings.TrimRight(body, "。！!. ")
	x, ok := strings.CutSuffix(body, "了")
	if !ok {
		return events.Observation{}, false
	}
	x = trimAny(trimAny(trimAny(x, zhAdverbs), zhHabitTime), zhAdverbs) // 晚上不出门…: the time of day is no part of the activity
	for _, c := range zhRefrainCues {
		rest, ok := strings.CutPrefix(x, c)
		if !ok {
			continue
		}
		if rest == "" || hasAnyPrefix(rest, zhRefrainNot) || hasAnyPrefix(rest, zhUndergone) {
			return events.Observation{}, false
		}
		marked := false
		for _, m := range zhRefrainMarks {
			if strings.Contains(rest, m) {
				rest, marked = strings.ReplaceAll(rest, m, ""), true
			}
		}
		n := utf8.RuneCountInString(rest)
		if !bounded && !marked || n < 2 || n > zhActivityMax || !unicode.Is(unicode.Han, []rune(rest)[0]) ||
			strings.ContainsAny(rest, "，,") || zhPronouns[rest] || zhPeople[rest] {
			return events.Observation{}, false
		}
		return events.Observation{Kind: string(KindConstraint), Subject: "activity", Attribute: rest,
			Polarity: string(Negative), Confidence: confWeak}, true
	}
	return events.Observation{}, false
}

// zhHabit reads a habit: 每天早上都要喝一杯咖啡, 一周去三次健身房,
// 一周只能去一次健身房. The frequency and amount are the value, so a new
// frequency supersedes the old one.
func zhHabit(body string) (events.Observation, bool) {
	period := ""
	for changed := true; changed; {
		changed = false
		for _, p := range zhPeriods {
			if strings.HasPrefix(body, p) {
				period, body, changed = p, strings.TrimPrefix(body, p), true
			}
		}
		if b := trimAny(body, append([]string{"都要", "要", "只能", "只", "会", "大概", "差不多", "基本上"}, zhAdverbs...)); b != body {
			body, changed = b, true
		}
	}
	for _, v := range zhHabitVerbs {
		if !strings.HasPrefix(body, v.verb) {
			continue
		}
		rest := strings.TrimPrefix(body, v.verb)
		amount, rest := zhAmount(rest)
		if period == "" && amount == "" {
			amount, _ = zhAmount(body) // 去三次 … read after the object? keep none
		}
		x := zhObject(rest)
		if x == "" || len([]rune(x)) > 8 || zhPeople[x] {
			return events.Observation{}, false
		}
		subject, attr := zhSlot(x, v.hint)
		if subject == "general" && v.subject != "" {
			subject = v.subject
		}
		known := subject == "food" || subject == "drink"
		for _, e := range zhLexicon {
			if x == e.zh {
				known = true
			}
		}
		if period == "" && amount == "" && (!known || v.verb == "去" || v.verb == "用") {
			return events.Observation{}, false
		}
		return events.Observation{Kind: string(KindFact), Subject: subject, Attribute: attr, Value: period + amount,
			Polarity: string(Positive), Confidence: confStrong}, true
	}
	return events.Observation{}, false
}

// zhPointers point at someone before their name (那个, 这位).
var zhPointers = memData.Words("zh words", "pointers")

// zhSurname reads a surname given with 姓: the user's (我姓钱, 我其实姓钱:
// identity/surname) or someone's the clause names before it, a kin of
// the user's or a person said after the last 的 (我妈姓李: 妈/surname;
// 帮我卖房的那个中介姓闫: 中介/surname), so that a question about the
// user never takes theirs. A surname said of a pronoun alone (他姓严)
// names nobody memory can tell: none.
func zhSurname(clause string) (events.Observation, bool) {
	c := strings.TrimSpace(strings.TrimRight(clause, "。！!.了的啦呢吧啊 "))
	i := strings.LastIndex(c, "姓")
	if i <= 0 || strings.HasSuffix(c[:i], "不") || strings.HasSuffix(c[:i], "什么") {
		return events.Observation{}, false
	}
	name := zhNamed(c[i:])
	if name == "" || strings.Contains(c[:i], "是") {
		return events.Observation{}, false
	}
	who := trimAny(trimAny(c[:i], zhConnectors), zhAdverbs)
	if r, ok := strings.CutPrefix(who, "我"); ok {
		if trimAny(trimAny(trimAny(r, zhConnectors), zhAdverbs), zhConnectors) == "" {
			return events.Observation{Kind: string(KindFact), Subject: "identity", Attribute: "surname", Value: name,
				Polarity: string(Positive), Confidence: confStrong}, true
		}
		who = strings.TrimPrefix(r, "的")
	}
	if j := strings.LastIndex(who, "的"); j >= 0 {
		who = who[j+len("的"):]
	}
	who = trimAny(trimAny(who, zhPointers), zhAdverbs)
	if n := utf8.RuneCountInString(who); n == 0 || n > 4 || zhPronouns[who] || strings.ContainsAny(who, "他她你它") || !hasHanOnly(who) {
		return events.Observation{}, false
	}
	return events.Observation{Kind: string(KindFact), Subject: who, Attribute: "surname", Value: name,
		Polarity: string(Positive), Confidence: confStrong}, true
}

// zhKinFactSubjects are the subjects of the user's own facts that a kin's
// statement keeps as a fact about the kin: who they are (name, zodiac,
// origin), their work and where they live. A kin's tastes, bans and
// habits (我老婆不吃辣, 我妈每天早上跑步) stay unslotted, kept as said.
var zhKinFactSubjects = map[string]bool{"identity": true, "work": true, "location": true}

// zhKinIsMax bounds the runes of what one of the user's people is said to
// be (我岳父是…).
const zhKinIsMax = 20

// zhKinFact reads a statement about one of the user's people, said as
// what follows 我 (妈属龙, 发小在黑龙江边境当边防兵, 婆婆叫欧阳秀英): the
// clause after the kin's name read as the user's own would be (matchZH),
// kept as a fact about them, slotted by who and attribute (妈/属相,
// 发小/role, 婆婆/name), so that it never supersedes, nor answers for, the user's
// own slot. Its value is what the rules read, or the clause when they read
// only a thing. Only who they are, their work and their home are read so
// (zhKinFactSubjects): a kin's taste or ban is no slot. What they are, said
// with 是 and read by no rule, is my/<who> (我岳父是退休的老师: my/岳父).
func zhKinFact(body string) (events.Observation, string, bool) {
	who := ""
	for _, k := range zhKinNames {
		if strings.HasPrefix(body, k) && len(k) > len(who) {
			who = k
		}
	}
	rest := trimAny(strings.TrimPrefix(body[len(who):], "的"), zhAdverbs)
	if who == "" || rest == "" {
		return events.Observation{}, "", false
	}
	o, ok := matchZH(rest, nil)
	if x, is := strings.CutPrefix(rest, "是"); !ok && is {
		// 我岳父是退休的中学数学老师: what they are, my/岳父
		if x = strings.TrimRight(x, "。！!.了啦呢吧啊 "); x != "" && utf8.RuneCountInString(x) <= zhKinIsMax {
			return events.Observation{Kind: string(KindFact), Subject: plainMine, Attribute: who, Value: x,
				Polarity: string(Positive), Confidence: confStrong}, who, true
		}
	}
	if !ok || o.Attribute == "" || !zhKinFactSubjects[o.Subject] {
		return events.Observation{}, "", false
	}
	v := o.Value
	if v == "" {
		v = strings.TrimRight(rest, "。！!.了的啦呢吧啊 ")
	}
	return events.Observation{Kind: string(KindFact), Subject: who, Attribute: o.Attribute, Value: v,
		Polarity: o.Polarity, Confidence: confStrong}, who, true
}

// zhAmount reads a leading amount: 一杯, 三次, 两瓶.
func zhAmount(s string) (string, string) {
	rs := []rune(s)
	i := 0
	for i < len(rs) && strings.ContainsRune(zhNumerals, rs[i]) {
		i++
	}
	if i == 0 || i >= len(rs) {
		return "", s
	}
	for _, d := range zhDurations {
		if rest, ok := strings.CutPrefix(string(rs[i:]), d); ok {
			return string(rs[:i]) + d, rest // 一小时, 半个小时, 二十分钟
		}
	}
	if !strings.ContainsRune(zhMeasures, rs[i]) {
		return "", s
	}
	return string(rs[:i+1]), string(rs[i+1:])
}

// zhSlotted builds an observation whose slot comes from the object x; an
// empty or pronoun object takes the previous statement's slot.
func zhSlotted(x, hint string, kind Kind, pol Polarity, prev *events.Observation) (events.Observation, bool) {
	o := events.Observation{Kind: string(kind), Polarity: string(pol), Confidence: confStrong}
	x = zhObject(x)
	if x == "" || zhPronouns[x] {
		if prev == nil || prev.Subject == "" {
			return o, false
		}
		o.Subject, o.Attribute = prev.Subject, prev.Attribute
		return o, true
	}
	if len([]rune(x)) > 12 || zhPeople[x] {
		return o, false
	}
	o.Subject, o.Attribute = zhSlot(x, hint)
	return o, true
}

var (
	zhJobVerb  = memData.Words("zh words", "job_verb")
	zhJobLead  = memData.Words("zh words", "job_lead")
	zhJobEnd   = strings.Join(memData.Words("zh words", "job_end"), "")
	zhJobCraft = memData.Words("zh words", "job_craft")
	zhJobOrg   = memData.Words("zh words", "job_org")
	zhZodiac   = memData.Words("zh words", "zodiac")
	zhSign     = wordList("zh words", "star_sign")
	// zhPersonKinds end X of X人 where it is a kind of person, not a
	// place (工人, 好人)
	zhPersonKinds = memData.Words("zh words", "person_kind")
)

// zhJobMax bounds the runes of a role zhJob reads.
const zhJobMax = 6

// zhJob reads a job said with where it is done, after 我在: 一家幼儿园当老师
// (work/role = 老师), 珠海一家会展公司做策划. The workplace is said with a
// counter ([zh words] job_lead), or the role ends as a role's name does
// (job_end): 家做饭 and 健身房做运动 state no job. A craft's verb
// (job_craft: 一家游戏公司画原画) says a job only where the place, said
// with a counter or named (zhNamedOrg: 县城中学教化学), ends as an
// organisation's name (job_org).
func zhJob(s string) (events.Observation, bool) {
	i, n := -1, 0
	for _, v := range zhJobVerb {
		if j := strings.Index(s, v); j > 0 && (i < 0 || j < i) {
			i, n = j, len(v)
		}
	}
	craft := false
	for _, v := range zhJobCraft {
		for from := 0; ; {
			// each place the verb is said: 画 of 动画公司 is the workplace's
			j := strings.Index(s[from:], v)
			if j < 0 {
				break
			}
			j += from
			if j > 0 && (i < 0 || j < i) && hasAnySuffix(s[:j], zhJobOrg) {
				i, n, craft = j, len(v), true
				break
			}
			from = j + len(v)
		}
	}
	if i < 0 {
		return events.Observation{}, false
	}
	place, role := s[:i], strings.TrimRight(s[i+n:], "了的呢啊")
	r := []rune(role)
	counted := containsAnyOf(place, zhJobLead) || craft && zhNamedOrg(place)
	if len(r) == 0 || len(r) > zhJobMax || strings.IndexFunc(role, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) >= 0 ||
		!counted && (craft || !strings.ContainsRune(zhJobEnd, r[len(r)-1])) || craft && len(r) < 2 {
		return events.Observation{}, false
	}
	return events.Observation{Kind: string(KindFact), Subject: "work", Attribute: "role", Value: role,
		Polarity: string(Positive), Confidence: confStrong}, true
}

// zhNamedOrg reports whether place names one organisation by its name
// without a counter: an organisation's word of two characters or more
// (job_org: 中学, 公司) after a name of its own (县城中学, 星海公司); 学校 or
// 图书馆 alone may be anywhere a craft is done, and says no job.
func zhNamedOrg(place string) bool {
	for _, o := range zhJobOrg {
		if utf8.RuneCountInString(o) >= 2 && strings.HasSuffix(place, o) && utf8.RuneCountInString(place) >= utf8.RuneCountInString(o)+2 {
			return true
		}
	}
	return false
}

func zhFact(x, subject, attr string) (events.Observation, bool) {
	x = zhObject(x)
	if x == "" || len([]rune(x)) > 20 {
		return events.Observation{}, false
	}
	return events.Observation{Kind: string(KindFact), Subject: subject, Attribute: attr, Value: x,
		Polarity: string(Positive), Confidence: confStrong}, true
}

// zhObject strips what is not the object: particles, "东西", "食物".
func zhObject(x string) string {
	x = strings.TrimSpace(x)
	for changed := true; changed; {
		changed = false
		for _, s := range append([]string{"东西", "食物", "这几天", "最近", "了"}, zhParticles...) {
			if strings.HasSuffix(x, s) && x != s {
				x, changed = strings.TrimSuffix(x, s), true
			}
		}
	}
	for _, s := range []string{"吃", "喝", "看", "听", "玩", "一点", "任何"} {
		x = strings.TrimPrefix(x, s)
	}
	if x == "了" || x == "的" {
		return ""
	}
	return x
}

// zhSlot maps a Chinese object to a slot through zhLexicon (exact, then the
// longest word it contains); other objects keep their Chinese text.
func zhSlot(x, hint string) (subject, attr string) {
	subject = "general"
	switch hint {
	case "eat":
		subject = "food"
	case "drink":
		subject = "drink"
	}
	for _, e := range zhLexicon {
		if x == e.zh {
			return e.subject, e.en
		}
	}
	for _, e := range zhLexicon {
		if strings.Contains(x, e.zh) && len([]rune(x)) <= len([]rune(e.zh))+1 {
			return e.subject, e.en
		}
	}
	for _, e := range zhLexicon {
		if strings.Contains(x, e.zh) && subject == "general" {
			subject = e.subject
			break
		}
	}
	return subject, x
}

func trimAny(s string, prefixes []string) string {
	for changed := true; changed; {
		changed = false
		for _, p := range prefixes {
			if strings.HasPrefix(s, p) {
				s, changed = strings.TrimSpace(strings.TrimPrefix(s, p)), true
			}
		}
	}
	return s
}

// headSlot files a habit of a kind of food or drink (燕麦奶 → oat milk) under
// its head (drink/milk = oat milk), as the English habits are, so that a
// new kind supersedes the old one in either language.
func headSlot(o *events.Observation) {
	if o.Kind != string(KindFact) || o.Subject != "food" && o.Subject != "drink" {
		return
	}
	i := strings.LastIndexByte(o.Attribute, ' ')
	if i < 0 || drinkLex[o.Attribute] || foodLex[o.Attribute] {
		return
	}
	head := o.Attribute[i+1:]
	if !drinkLex[head] && !foodLex[head] {
		return
	}
	if o.Value == "" {
		o.Value = o.Attribute
	} else {
		o.Value = o.Attribute + ", " + o.Value
	}
	o.Attribute = head
}

// matchMyIsZH reads 的X是Y after 我 (我的车是一辆白色的比亚迪) as the fact
// my/X = Y, as "my car is a white Subaru" is read: X of one to six
// characters with no 是 of its own and no negation (我的腿不是很舒服); Y, the thing or the name, without a
// measure word before it (一辆, 一个). A kin's word as X (我的老婆是…) or a
// favourite (我的最爱是…) is read elsewhere or not at all, and contact
// details (我的手机号是…: zhContact) are no fact memory slots.
//
// Without 的, or after a verb and 的 (a relative clause), a thing of the
// user's said as zhThing reads it is such a fact too: 我老家在成都市
// (my/老家 = 成都市), 我选的婚纱店是米兰婚纱 (my/婚纱店 = 米兰婚纱).
func matchMyIsZH(body string) (events.Observation, bool) {
	rest, ok := strings.CutPrefix(body, "的")
	if !ok {
		if v, r, ok := strings.Cut(body, "的"); ok && v != "" && utf8.RuneCountInString(v) <= 4 &&
			!strings.ContainsAny(v, "不没是在") && !strings.Contains(v, "喜欢") && !strings.Contains(v, "爱") {
			body = r // 我选的婚纱店是…: the relative clause names the thing
		}
		return thingFactZH(body)
	}
	if i, j := strings.Index(rest, "在"), strings.Index(rest, "是"); i >= 0 && (j < 0 || i < j) {
		return thingFactZH(rest) // 我的新办公室在南京路100号
	}
	x, y, ok := strings.Cut(rest, "是")
	if !ok || x == "" || len([]rune(x)) > 6 || hasAnyPrefix(x, zhKin) || strings.Contains(x, "最") || strings.Contains(x, "喜欢") ||
		containsAny(x, zhContact) || strings.ContainsAny(x, "不没") {
		return events.Observation{}, false
	}
	y = strings.TrimRight(y, "。！. ")
	for _, m := range []string{"一辆", "一个", "一只", "一条", "一台", "一位", "一家", "一部", "一座", "一所", "一名"} {
		y = strings.TrimPrefix(y, m)
	}
	if y == "" || strings.HasPrefix(y, "不") {
		return events.Observation{}, false
	}
	return zhFact(y, "my", x)
}

// matchEndedZH reads "<a restraint> is over" (控糖结束了, 戒酒告一段落了) as
// the lift of the constraint the restraint states: the clause without its
// ending, read as 我在<restraint>, must be a constraint against something,
// and the lift is that constraint with the other polarity (it supersedes
// the restraint's record of the same slot).
func matchEndedZH(body string, prev *events.Observation) (events.Observation, bool) {
	b := strings.TrimRight(body, "。！!. ")
	for _, e := range zhEnded {
		x, ok := strings.CutSuffix(b, e)
		if !ok || x == "" {
			continue
		}
		o, ok := matchZH("在"+x, prev)
		if !ok || o.Kind != string(KindConstraint) || o.Polarity != string(Negative) {
			return events.Observation{}, false
		}
		o.Polarity = string(Positive)
		return o, true
	}
	return events.Observation{}, false
}

// thingFactZH reads a clause of zhThing as the user's fact my/X = Y, unless
// X is a kin (read elsewhere) or a contact detail.
func thingFactZH(c string) (events.Observation, bool) {
	x, y, ok := zhThing(c)
	if !ok || hasAnyPrefix(x, zhKin) || containsAny(x, zhContact) || strings.Contains(x, "最") {
		return events.Observation{}, false
	}
	if i := strings.Index(y, "不是"); i > 0 {
		y = strings.TrimRight(y[:i], "，, ") // 工位在五楼，不是三楼: what it is not is no part of it
	}
	return zhFact(y, "my", x)
}

// zhCredentials open what the user is by a qualification (我是注册会计师).
var zhCredentials = memData.Words("zh words", "credentials")

// zhDoneForMe reads "<what is done for me>的是Y" (每年帮我报税的是小周会计,
// 给我剪头发的是Tony) as the fact my/<what is done> = Y: the verb phrase holds
// an addressee (cues: addressee, 帮我, 给我, …), which is dropped with a
// period before it (每年).
func zhDoneForMe(body string) (events.Observation, bool) {
	v, y, ok := strings.Cut(body, "的是")
	if !ok || y == "" || !containsAny(v, cues.zhAddressee) {
		return events.Observation{}, false
	}
	for _, a := range cues.zhAddressee {
		v = strings.Replace(v, a, "", 1)
	}
	v = trimAny(trimAny(v, zhPeriods), zhAdverbs)
	n := utf8.RuneCountInString(v)
	if n < 1 || n > 6 || strings.ContainsFunc(v, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) ||
		strings.ContainsAny(v, "不没") {
		return events.Observation{}, false
	}
	return zhFact(strings.TrimRight(y, "。！!. "), "my", v)
}

// zhSignRunes is the length of a star sign's name (天蝎座, 双鱼座).
const zhSignRunes = 3

// zhStarSign reports whether x names a star sign: three characters, the
// last a suffix of [zh words] star_sign (座).
func zhStarSign(x string) bool {
	if utf8.RuneCountInString(x) != zhSignRunes || !hasHanOnly(x) {
		return false
	}
	return slices.ContainsFunc(zhSign[1:], func(suf string) bool { return strings.HasSuffix(x, suf) })
}

// zhRefuse are the words after 我 that refuse the thing put before it
// (data/statements.txt [plain] zh_refuse).
var zhRefuse = wordList("plain", "zh_refuse")

// zhTopicRefusal reads a refusal whose thing is put before the user: 羊肉我
// 从来不吃, 咸菜腊肉这些腌的东西我都不吃, 可乐我戒了. It is read as the same
// refusal said in order (我不吃羊肉), so both hold one slot; only a refusal
// (a negative constraint, or a negative fact of what the user does) is
// read so, and the thing must be a name: no person, time or pronoun.
func zhTopicRefusal(body string, prev *events.Observation) (events.Observation, bool) {
	i := strings.Index(body, "我")
	if i <= 0 || strings.HasPrefix(body[i:], "我们") {
		return events.Observation{}, false
	}
	thing := strings.TrimSpace(body[:i])
	if n := utf8.RuneCountInString(thing); n < 2 || n > zhThingMax || !hasHanOnly(thing) || zhPronouns[thing] || zhPeople[thing] ||
		hasAnyPrefix(thing, zhKin) || hasAnyPrefix(thing, zhSubjects) || containsAny(thing, cues.zhForbid) || zhTimePrefix(thing) ||
		strings.ContainsAny(thing, "你他她它") {
		return events.Observation{}, false
	}
	rest := trimAny(body[i+len("我"):], zhAdverbs)
	if !hasAnyPrefix(rest, zhRefuse) {
		return events.Observation{}, false
	}
	verb := rest
	for changed := true; changed; {
		changed = false
		for _, p := range zhParticles {
			if v, ok := strings.CutSuffix(verb, p); ok && v != "" && !hasAnySuffix(verb, zhRefuse) {
				verb, changed = v, true
			}
		}
	}
	o, ok := matchZH(verb+thing, prev)
	if !ok || o.Polarity != string(Negative) || o.Kind != string(KindConstraint) && o.Subject != "activity" {
		return events.Observation{}, false
	}
	return o, true
}

// zhThingMax bounds the ideographs of a thing put before the user's
// refusal of it (咸菜腊肉这些腌的东西: ten), as zhSlotted bounds a thing.
const zhThingMax = 12

// zhDethrone are the verbs of a thing putting another off its place
// ([favorites] zh_dethrone).
var zhDethrone = wordList("favorites", "zh_dethrone")

// matchDethroneZH reads X把Y挤下了头把交椅, X取代了Y: X is the user's new
// favourite, of no kind said (favorite/general), so that the writer gives
// it the kind of the current favourite its sentence names, Y, and it
// supersedes that one, as matchDethroneEN's reading does.
func matchDethroneZH(body string) (events.Observation, bool) {
	for _, v := range zhDethrone {
		i := strings.Index(body, v)
		if i <= 0 {
			continue
		}
		x := body[:i]
		if j := strings.Index(x, "把"); j > 0 {
			x = x[:j] // 菌汤锅把牛油锅挤下了: the one that put the other off
		}
		x = zhObject(trimAny(x, zhAdverbs))
		if n := utf8.RuneCountInString(x); n < 2 || n > zhActivityMax || !hasHanOnly(x) || zhPronouns[x] || zhPeople[x] ||
			hasAnyPrefix(x, zhKin) || hasAnyPrefix(x, zhSubjects) || strings.ContainsAny(x, "我你他她它") {
			return events.Observation{}, false
		}
		o, ok := favorite(x)
		o.Attribute = "general"
		return o, ok
	}
	return events.Observation{}, false
}
