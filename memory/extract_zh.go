package memory

import (
	"strings"

	"github.com/toolstream/toolstream/events"
)

// The Chinese half of RuleExtractor: "我喜欢 / 我爱 / 我不能 / 我不吃 /
// 我对…过敏 / 我讨厌 / 我住在 …". A clause after a first clause with 我 may
// drop it ("我喜欢吃辣，但是最近不能吃"), and a dropped object is the previous
// statement's. Objects in zhLexicon take its English attribute, so "我不能吃辣"
// and "I can't eat spicy food" hold the same slot, food/spicy.

// zhEntry maps a Chinese object to its slot.
type zhEntry struct{ zh, en, subject string }

// zhLexicon is ordered: longer words first, so the longest match wins.
var zhLexicon = []zhEntry{
	{"乳制品", "dairy", "food"}, {"辣椒", "chili", "food"}, {"辛辣", "spicy", "food"}, {"海鲜", "seafood", "food"},
	{"花生", "peanut", "food"}, {"坚果", "nut", "food"}, {"牛奶", "milk", "drink"}, {"鸡蛋", "egg", "food"},
	{"猪肉", "pork", "food"}, {"牛肉", "beef", "food"}, {"羊肉", "lamb", "food"}, {"鸡肉", "chicken", "food"},
	{"甜食", "sweets", "food"}, {"咖啡", "coffee", "drink"}, {"啤酒", "beer", "drink"}, {"香菜", "cilantro", "food"},
	{"面条", "noodle", "food"}, {"米饭", "rice", "food"}, {"寿司", "sushi", "food"}, {"火锅", "hotpot", "food"},
	{"麸质", "gluten", "food"}, {"巧克力", "chocolate", "food"}, {"酒精", "alcohol", "drink"},
	{"奶茶", "milk tea", "drink"}, {"辣", "spicy", "food"}, {"鱼", "fish", "food"}, {"虾", "shrimp", "food"},
	{"糖", "sugar", "food"}, {"茶", "tea", "drink"}, {"酒", "alcohol", "drink"}, {"肉", "meat", "food"},
}

type zhPattern struct {
	prefix   string
	kind     Kind
	polarity Polarity
	hint     string // "eat", "drink" or ""
}

// zhPatterns are tried in order: a negation before the word it negates.
var zhPatterns = []zhPattern{
	{"不能再吃", KindConstraint, Negative, "eat"}, {"不能吃", KindConstraint, Negative, "eat"},
	{"不可以吃", KindConstraint, Negative, "eat"}, {"不敢吃", KindConstraint, Negative, "eat"},
	{"吃不了", KindConstraint, Negative, "eat"}, {"不吃", KindConstraint, Negative, "eat"},
	{"不能喝", KindConstraint, Negative, "drink"}, {"不可以喝", KindConstraint, Negative, "drink"},
	{"喝不了", KindConstraint, Negative, "drink"}, {"不喝", KindConstraint, Negative, "drink"},
	{"不能碰", KindConstraint, Negative, ""}, {"不碰", KindConstraint, Negative, ""},
	{"忌口", KindConstraint, Negative, "eat"}, {"戒了", KindConstraint, Negative, ""}, {"戒", KindConstraint, Negative, ""},
	{"又能吃", KindConstraint, Positive, "eat"}, {"又可以吃", KindConstraint, Positive, "eat"},
	{"能吃", KindConstraint, Positive, "eat"}, {"可以吃", KindConstraint, Positive, "eat"},
	{"又能喝", KindConstraint, Positive, "drink"}, {"能喝", KindConstraint, Positive, "drink"},
	{"可以喝", KindConstraint, Positive, "drink"},
	{"不太喜欢吃", KindPreference, Negative, "eat"}, {"不喜欢吃", KindPreference, Negative, "eat"},
	{"不喜欢喝", KindPreference, Negative, "drink"}, {"不太喜欢", KindPreference, Negative, ""},
	{"不喜欢", KindPreference, Negative, ""}, {"不爱吃", KindPreference, Negative, "eat"},
	{"不爱喝", KindPreference, Negative, "drink"}, {"不爱", KindPreference, Negative, ""},
	{"讨厌吃", KindPreference, Negative, "eat"}, {"讨厌", KindPreference, Negative, ""},
	{"受不了", KindPreference, Negative, ""},
	{"最喜欢吃", KindPreference, Positive, "eat"}, {"喜欢吃", KindPreference, Positive, "eat"},
	{"喜欢喝", KindPreference, Positive, "drink"}, {"爱吃", KindPreference, Positive, "eat"},
	{"爱喝", KindPreference, Positive, "drink"}, {"最喜欢", KindPreference, Positive, ""},
	{"喜欢", KindPreference, Positive, ""}, {"喜爱", KindPreference, Positive, ""},
	{"热爱", KindPreference, Positive, ""}, {"偏爱", KindPreference, Positive, ""}, {"爱", KindPreference, Positive, ""},
}

var (
	zhConnectors = []string{"但是", "不过", "可是", "而且", "并且", "所以", "其实", "然后", "还有", "但", "而"}
	zhAdverbs    = []string{"最近", "这几天", "这些天", "这段时间", "近来", "目前", "现在", "暂时", "一直", "真的",
		"非常", "特别", "超级", "比较", "也", "还", "很", "超", "都", "挺", "真", "已经", "最"}
	zhParticles = []string{"了", "的", "啦", "呢", "吧", "啊", "呀", "哦", "喔"}
	zhPronouns  = map[string]bool{"它": true, "这个": true, "那个": true, "这些": true, "那些": true, "这": true, "那": true}
	zhPeople    = map[string]bool{"你": true, "你们": true, "他": true, "她": true, "他们": true, "她们": true, "大家": true}
)

func extractZH(text string) []events.Observation {
	var out []events.Observation
	sents, questions := sentences(text)
	for si, sent := range sents {
		if questions[si] || strings.HasSuffix(sent, "吗") {
			continue
		}
		sawWo := false
		for _, clause := range strings.FieldsFunc(sent, func(r rune) bool { return r == '，' || r == ',' }) {
			body := trimAny(strings.TrimSpace(clause), zhConnectors)
			if strings.HasPrefix(body, "我") && !strings.HasPrefix(body, "我们") {
				body, sawWo = strings.TrimPrefix(body, "我"), true
			} else if !sawWo {
				continue
			}
			var prev *events.Observation
			if len(out) > 0 {
				prev = &out[len(out)-1]
			}
			if o, ok := matchZH(trimAny(body, zhAdverbs), prev); ok {
				o.Text = sent
				out = append(out, o)
			}
		}
	}
	return out
}

// matchZH reads one clause after its 我 (or with 我 dropped).
func matchZH(body string, prev *events.Observation) (events.Observation, bool) {
	// allergies: 对X过敏, 对X不过敏了, 不再对X过敏, X过敏
	if i := strings.Index(body, "过敏"); i >= 0 {
		x := body[:i]
		pol := Negative
		if strings.HasPrefix(x, "不再") {
			pol, x = Positive, strings.TrimPrefix(x, "不再")
		}
		x = strings.TrimPrefix(x, "对")
		if strings.HasSuffix(x, "不") {
			pol, x = Positive, strings.TrimSuffix(x, "不")
		}
		return zhSlotted(x, "", KindConstraint, pol, prev)
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
		for _, p := range []string{"工作", "上班"} {
			if i := strings.Index(body, p); i > len("在") {
				return zhFact(body[len("在"):i], "work", "employer")
			}
		}
	}
	if strings.HasPrefix(body, "是") && strings.HasSuffix(body, "人") {
		return zhFact(strings.TrimSuffix(strings.TrimPrefix(body, "是"), "人"), "location", "origin")
	}
	for _, p := range []string{"的名字是", "名字叫", "叫"} {
		if strings.HasPrefix(body, p) {
			return zhFact(strings.TrimPrefix(body, p), "identity", "name")
		}
	}
	for _, p := range zhPatterns {
		if strings.HasPrefix(body, p.prefix) {
			return zhSlotted(strings.TrimPrefix(body, p.prefix), p.hint, p.kind, p.polarity, prev)
		}
	}
	return events.Observation{}, false
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
	for _, s := range []string{"吃", "喝", "一点", "任何"} {
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
