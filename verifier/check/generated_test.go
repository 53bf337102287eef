package check

import (
	"encoding/json"
	"flag"
	"fmt"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Evaluating as a stranger would: TestGeneratedDomains makes up domains the
// checker has never seen — entity and attribute names are random
// pronounceable words (or random ideographs), fields are typed (money in
// major units and in minor units (*_cents, *_pence for pounds), dates,
// counts and lists, identifiers,
// measurements in a unit with a reference range beside them, flags and
// statuses) — and answers in English and Chinese that state each field
// truthfully (rounded within the precision written, in a paraphrased or
// converted unit, negated where the flag is false) or with one planted
// error of a kind: a wrong number, a wrong date, a flipped polarity or
// status, another entity's value, a fact the evidence does not hold.
// Every field sits beside decoys of other types with values equal to the
// claim's (a step count equal to a distance, a day count equal to the
// date's day, a range's low bound equal to a wrong value), so a claim bound
// to the wrong field shows. Half the results name their entity under a
// made-up noun of its kind that the tool's name also says ({"netrex":
// "Fedrosu"} from get_netrex), as real tools do (a hotel under "hotel"),
// the other half under "name" from a tool called lookup.
//
// It prints, per kind and language, how true claims and planted errors are
// judged, and fails when the rate of true claims called contradicted
// exceeds genFalseContradictedMax, the precision or recall of contradicted
// falls under its bound, or the recall of one kind in one language under
// genKindRecallMin. Seeded and deterministic; -gen.n sets
// the number of answers (default 400), -gen.seed the seed, -gen.v lists
// every miss.
//
//	go test ./verifier/check -run TestGeneratedDomains -v
//	go test ./verifier/check -run TestGeneratedDomains -v -gen.n 5000 -gen.seed 7

var (
	genN    = flag.Int("gen.n", 400, "answers TestGeneratedDomains makes up")
	genSeed = flag.Uint64("gen.seed", 1, "seed of TestGeneratedDomains")
	genV    = flag.Bool("gen.v", false, "TestGeneratedDomains lists every miss")
)

// genFalseContradictedMax bounds the share of true generated claims the
// checker calls contradicted at -gen.n 400, seed 1 (0.111 before binding;
// 0.000 after, also at -gen.n 3000 and seeds 2, 3).
const genFalseContradictedMax = 0.015

// genPrecisionMin and genRecallMin bound the precision of contradicted and
// the recall of planted errors as contradicted (0.68 and 0.82 before
// binding; 0.99 and 0.97 after).
const (
	genPrecisionMin = 0.95
	genRecallMin    = 0.92
)

// genKindRecallMin bounds the recall of planted errors as contradicted for
// each kind and language apart, so that a binding mistake confined to one
// kind (another entity's value supported when the entity's name is under a
// key no rule lists: 0.76 in Chinese without nameKey) fails the test
// though the overall figure holds. Chinese status claims are bounded too
// since the status classes are generic (0.32 before, 1.00 after).
const genKindRecallMin = 0.85

// genLabel is what a generated claim is: true, a planted contradiction,
// or a fact the evidence does not hold.
type genLabel int

const (
	genTrue genLabel = iota
	genWrong
	genMadeUp
	genModal_ // a possibility the evidence does not bear out: never contradicted
)

type genClaim struct {
	kind  string
	label genLabel
	text  string
	at    int // rune offset of the stated value in the answer
}

type genCase struct {
	lang   string
	tool   string // the tool's name: lookup, or one naming the entity's kind
	result map[string]any
	answer string
	claims []genClaim
	evs    string
}

type gen struct {
	r    *rand.Rand
	used map[string]bool
}

var (
	genOnsets = []string{"b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "kl", "st", "tr", "gr"}
	genVowels = []string{"a", "e", "i", "o", "u"}
	genHanzi  = []rune("鸠尧珂岚璐骁翎琰珀瑶岑桦逍汐澜芮琛瑾缇筠麒昙翊珩玹")
)

// word makes up a pronounceable word of 2–3 syllables, new in this case.
func (g *gen) word() string {
	for {
		var b strings.Builder
		n := 2 + g.r.IntN(2)
		for range n {
			b.WriteString(genOnsets[g.r.IntN(len(genOnsets))])
			b.WriteString(genVowels[g.r.IntN(len(genVowels))])
		}
		if g.r.IntN(2) == 0 {
			b.WriteString([]string{"n", "r", "l", "x", "m"}[g.r.IntN(5)])
		}
		w := b.String()
		if len(w) >= 5 && !g.used[w] {
			g.used[w] = true
			return w
		}
	}
}

// hanzi makes up a two-ideograph word, new in this case.
func (g *gen) hanzi() string {
	for {
		w := string([]rune{genHanzi[g.r.IntN(len(genHanzi))], genHanzi[g.r.IntN(len(genHanzi))]})
		if !g.used[w] {
			g.used[w] = true
			return w
		}
	}
}

func title(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

// genAttr is an attribute's name in the answer and in its keys.
type genAttr struct{ say, key string }

func (g *gen) attr(lang string) genAttr {
	if lang == "zh" {
		w := g.hanzi()
		return genAttr{w, w}
	}
	w := g.word()
	return genAttr{w, w}
}

// sentence is a claim being written: text with the value's position.
type sentence struct {
	kind  string
	label genLabel
	pre   string
	value string
	post  string
}

func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

func (g *gen) num(lang string, v float64, dec int) string {
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if lang == "en" {
		return groupThousands(s)
	}
	return s
}

// off returns v moved by 12–45 % (a planted wrong number).
func (g *gen) off(v float64) float64 {
	d := 0.12 + 0.33*g.r.Float64()
	if g.r.IntN(2) == 0 {
		return v * (1 - d)
	}
	return v * (1 + d)
}

func round(v float64, dec int) float64 {
	p := math.Pow(10, float64(dec))
	return math.Round(v*p) / p
}

// genUnit is a measurement unit: its key suffix and ways to write it.
type genUnit struct {
	suffix string
	en     []string
	zh     []string
	lo, hi float64
	// alt, when set, is another unit the claim may convert to.
	alt       *genUnit
	altFactor float64
	// imp, when set, is a unit of another system the claim may convert
	// to by a factor that is no power of ten, rounded and hedged
	// ("about 12.4 miles", 约88.2磅).
	imp       *genUnit
	impFactor float64
}

var (
	genMeter = &genUnit{suffix: "m", en: []string{"m", "meters"}, zh: []string{"米"}}
	genGram  = &genUnit{suffix: "g", en: []string{"g", "grams"}, zh: []string{"克"}}
	genMile  = &genUnit{suffix: "mi", en: []string{"miles", "mi"}, zh: []string{"英里"}}
	genPound = &genUnit{suffix: "lb", en: []string{"lb", "pounds"}, zh: []string{"磅"}}
	genUnits = []*genUnit{
		{suffix: "km", en: []string{"km", "kilometers", "kilometres"}, zh: []string{"公里", "千米"}, lo: 1, hi: 90, alt: genMeter, altFactor: 1000, imp: genMile, impFactor: 1 / 1.609344},
		{suffix: "kg", en: []string{"kg", "kilograms"}, zh: []string{"公斤", "千克"}, lo: 0.5, hi: 400, alt: genGram, altFactor: 1000, imp: genPound, impFactor: 1 / 0.45359237},
		{suffix: "hours", en: []string{"hours", "h"}, zh: []string{"小时"}, lo: 1, hi: 60},
		{suffix: "minutes", en: []string{"minutes", "min"}, zh: []string{"分钟"}, lo: 2, hi: 300},
		{suffix: "pct", en: []string{"%", " percent"}, zh: []string{"%"}, lo: 1, hi: 99},
		{suffix: "ml", en: []string{"mL", "milliliters"}, zh: []string{"毫升"}, lo: 5, hi: 900},
		{suffix: "mg", en: []string{"mg", "milligrams"}, zh: []string{"毫克"}, lo: 1, hi: 800},
	}
)

// genZhWeekdays are the weekdays' Chinese names after 周, Sunday first.
var genZhWeekdays = []string{"日", "一", "二", "三", "四", "五", "六"}

// genNow is the time of every generated answer: Monday 1 June 2026.
var genNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

var genMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

// genState is a two-valued state a flag or status holds, in both languages.
// A status field holds the state's word in capitals or one of its
// opposites (off).
type genState struct {
	en, enNot string
	// Chinese ways to say it holds and that it does not: the first is
	// the canonical word; the others are paraphrases a claim may use
	// (还没准备好, 审批通过), negations by 未, 没, 还没, 尚未.
	zh, zhNot []string
	off       []string
}

var genStates = []genState{
	{"ready", "not ready yet", []string{"已就绪", "准备好了", "已经准备好"}, []string{"还没有就绪", "还没准备好", "未就绪", "没有准备好"}, []string{"NOT_READY"}},
	{"confirmed", "not confirmed", []string{"已确认"}, []string{"未确认", "还没确认", "尚未确认"}, []string{"PENDING", "UNCONFIRMED"}},
	{"enabled", "not enabled", []string{"已启用", "已开启"}, []string{"未启用", "还没启用", "已停用"}, []string{"DISABLED"}},
	{"active", "not active", []string{"有效"}, []string{"无效", "已失效"}, []string{"INACTIVE"}},
	{"approved", "not approved yet", []string{"已批准", "审批通过", "已经批准了"}, []string{"尚未批准", "还没批准", "未通过审批", "审批中"}, []string{"PENDING", "REJECTED"}},
	{"paid", "not paid yet", []string{"已支付", "已付款"}, []string{"未支付", "还没付款", "尚未支付"}, []string{"UNPAID", "PENDING"}},
	{"running", "not running", []string{"运行中", "正在运行"}, []string{"已停止", "停机", "没有运行"}, []string{"STOPPED", "OFFLINE"}},
}

// genModal are the words that make a claim a possibility, not a statement
// ("may be approved", 可能已批准): a planted state behind one must not be
// called contradicted.
var genModal = map[string][]string{"en": {"may be ", "might be ", "could be "}, "zh": {"可能", "也许", "或许"}}

// record makes one entity's fields and the sentences about them.
func (g *gen) makeCase(lang string) genCase {
	g.used = map[string]bool{}
	ent := title(g.word())
	other := title(g.word())
	// The entity's name is under "name", or under a made-up noun of its
	// kind that the tool's name also says (get_<kind>: {"<kind>": …}), as
	// a hotel's is under "hotel" in get_hotel: no rule lists the noun.
	tool, nameKey := "lookup", "name"
	if g.r.IntN(2) == 0 {
		kind := g.attr(lang).key
		if lang == "zh" {
			kind = g.word()
		}
		tool, nameKey = []string{"get_", "find_", "lookup_"}[g.r.IntN(3)]+kind, kind
	}
	rec := map[string]any{nameKey: ent}
	otherRec := map[string]any{nameKey: other}
	var ss []sentence
	// The ways a sentence names an attribute of the entity and states it.
	of := func(a genAttr) string {
		if lang == "zh" {
			return []string{ent + "的" + a.say, ent + "的" + a.say, ent + a.say}[g.r.IntN(3)]
		}
		return []string{"The " + a.say + " of " + ent, ent + "'s " + a.say, "For " + ent + ", the " + a.say}[g.r.IntN(3)]
	}
	is := func() string {
		if lang == "zh" {
			return []string{"为", "是", "为 "}[g.r.IntN(3)]
		}
		return []string{" is ", " is ", " stands at "}[g.r.IntN(3)]
	}
	end := "."
	if lang == "zh" {
		end = "。"
	}
	label := func() genLabel {
		// a third of the claims carry a planted error
		if g.r.IntN(3) == 0 {
			return genWrong
		}
		return genTrue
	}
	cur := []string{"USD", "EUR", "CNY", "GBP"}[g.r.IntN(4)]
	minor := "_cents"
	if cur == "GBP" {
		minor = "_pence"
	}
	kinds := []string{"money_cents", "money", "measure", "range", "date", "weekday", "count", "list", "identifier", "flag", "status", "entity"}
	g.r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	kinds = kinds[:5+g.r.IntN(3)]
	for _, k := range kinds {
		a := g.attr(lang)
		lb := label()
		switch k {
		case "money_cents", "money":
			cents := 100 + g.r.IntN(900000)
			v := float64(cents) / 100
			rec["currency"] = cur
			if k == "money_cents" {
				rec[a.key+minor] = cents
			} else {
				rec[a.key] = v
			}
			// a decoy: a count equal to the amount in minor units' digits
			rec[g.attr(lang).key+"_count"] = int(v)
			say, dec, about := v, 2, ""
			if v >= 20 && g.r.IntN(4) == 0 {
				// rounded to a whole amount, hedged: "about $1,235", 约1235元
				say, dec, about = round(v, 0), 0, map[string]string{"en": "about ", "zh": "约"}[lang]
			}
			if lb == genWrong {
				say = round(g.off(v), dec)
			}
			var val string
			switch {
			case lang == "zh" && cur == "CNY":
				val = g.num(lang, say, dec) + "元"
			case lang == "zh" && cur == "USD":
				val = g.num(lang, say, dec) + "美元"
			case lang == "zh" && cur == "GBP":
				val = g.num(lang, say, dec) + "英镑"
			case lang == "zh":
				val = g.num(lang, say, dec) + "欧元"
			case cur == "USD":
				val = "$" + g.num(lang, say, dec)
			case cur == "EUR":
				val = "€" + g.num(lang, say, dec)
			case cur == "GBP":
				val = "£" + g.num(lang, say, dec)
			default:
				val = g.num(lang, say, dec) + " CNY"
			}
			ss = append(ss, sentence{k, lb, of(a) + is() + about, val, end})
		case "measure", "range":
			u := genUnits[g.r.IntN(len(genUnits))]
			v := round(u.lo+(u.hi-u.lo)*g.r.Float64(), 2)
			if k == "range" {
				// the value beside its reference range: {"value", "unit",
				// "ref_low", "ref_high"}; a wrong claim says the low bound.
				lo := round(v*(1.2+g.r.Float64()), 1)
				if g.r.IntN(2) == 0 {
					lo = round(v*(0.3+0.4*g.r.Float64()), 1)
				}
				hi := round(lo*(2+g.r.Float64()), 1)
				rec[a.key] = map[string]any{"value": v, "unit": u.suffix, "ref_low": lo, "ref_high": hi}
				say := v
				dec := 2
				if lb == genWrong {
					say, dec = lo, 1
				}
				ss = append(ss, sentence{k, lb, of(a) + is(), g.num(lang, say, dec) + g.unitWord(lang, u), end})
				continue
			}
			rec[a.key+"_"+u.suffix] = v
			// decoys: a count and a measurement of another unit
			rec[g.attr(lang).key+"_count"] = int(math.Round(v * 1000))
			rec[g.attr(lang).key+"_total"] = round(v*10, 1)
			say, dec := v, 2
			word := g.unitWord(lang, u)
			about := ""
			switch g.r.IntN(5) {
			case 0: // rounded within what is written
				dec = 1
				say = round(v, 1)
			case 4: // rounded to a whole number, hedged
				dec = 0
				say = round(v, 0)
				about = map[string]string{"en": "about ", "zh": "约"}[lang]
			case 1:
				if u.alt != nil {
					say, dec = round(v*u.altFactor, 0), 0
					word = g.unitWord(lang, u.alt)
				}
			case 2:
				if u.imp != nil {
					say, dec = round(v*u.impFactor, 1), 1
					word = g.unitWord(lang, u.imp)
					about = map[string]string{"en": "about ", "zh": "约"}[lang]
				}
			}
			if lb == genWrong {
				say = round(g.off(say), dec)
			}
			ss = append(ss, sentence{k, lb, of(a) + is() + about, g.num(lang, say, dec) + word, end})
		case "date":
			d := time.Date(2026, time.Month(1+g.r.IntN(12)), 1+g.r.IntN(28), 0, 0, 0, 0, time.UTC)
			rec[a.key+"_date"] = d.Format("2006-01-02")
			// a decoy count equal to the day of the month
			rec[g.attr(lang).key+"_days"] = d.Day()
			if lb == genWrong {
				d = d.AddDate(0, 0, 3+g.r.IntN(40))
			}
			var val string
			if lang == "zh" {
				val = fmt.Sprintf("%d年%d月%d日", d.Year(), d.Month(), d.Day())
				ss = append(ss, sentence{k, lb, ent + "的" + a.say + "日期是", val, end})
			} else {
				val = fmt.Sprintf("%s %d, %d", genMonths[d.Month()-1], d.Day(), d.Year())
				ss = append(ss, sentence{k, lb, "The " + a.say + " date of " + ent + " is ", val, end})
			}
		case "weekday":
			// a day up to six days before or after the answer's (genNow,
			// a Monday), said by its weekday: "last Thursday", "on
			// Thursday", 上周四 (weeks start on Monday), 周四; a wrong
			// claim names another weekday.
			n := 1 + g.r.IntN(6)
			if g.r.IntN(2) == 0 {
				n = -n
			}
			d := genNow.AddDate(0, 0, n)
			rec[a.key+"_date"] = d.Format("2006-01-02")
			rec[g.attr(lang).key+"_days"] = d.Day() // a decoy count equal to the day
			wd := d.Weekday()
			if lb == genWrong {
				wd = (wd + time.Weekday(1+g.r.IntN(6))) % 7
			}
			var val string
			switch {
			case lang == "zh" && n < 0:
				val = "上周" + genZhWeekdays[wd]
			case lang == "zh":
				val = []string{"周", "本周", "星期"}[g.r.IntN(3)] + genZhWeekdays[wd]
			case n < 0:
				val = []string{"last ", "on "}[g.r.IntN(2)] + wd.String()
			default:
				val = []string{"this ", "on "}[g.r.IntN(2)] + wd.String()
			}
			if lang == "zh" {
				ss = append(ss, sentence{k, lb, ent + "的" + a.say + "日期是", val, end})
			} else {
				ss = append(ss, sentence{k, lb, "The " + a.say + " date of " + ent + " is ", val, end})
			}
		case "count", "list":
			n := 2 + g.r.IntN(40)
			if k == "list" {
				n = 2 + g.r.IntN(6)
				items := make([]any, n)
				for i := range items {
					items[i] = map[string]any{"label": title(g.word())}
				}
				rec[a.key] = items
			} else {
				rec[a.key+"_count"] = n
			}
			// a decoy measurement equal to the count
			rec[g.attr(lang).key+"_kg"] = float64(n)
			say := n
			if lb == genWrong {
				say = n + 1 + g.r.IntN(5)
			}
			if lang == "zh" {
				ss = append(ss, sentence{k, lb, ent + "有", strconv.Itoa(say), "个" + a.say + end})
			} else {
				ss = append(ss, sentence{k, lb, ent + " has ", strconv.Itoa(say), " " + a.say + "s" + end})
			}
		case "identifier":
			code := fmt.Sprintf("%c%c-%05d", 'A'+g.r.IntN(26), 'A'+g.r.IntN(26), g.r.IntN(100000))
			rec[a.key+"_number"] = code
			// a decoy identifier of another shape
			rec[g.attr(lang).key] = fmt.Sprintf("%d%c", 1+g.r.IntN(40), 'A'+g.r.IntN(6))
			say := code
			if lb == genWrong {
				b := []byte(code)
				i := 3 + g.r.IntN(5)
				b[i] = '0' + (b[i]-'0'+1+byte(g.r.IntN(8)))%10
				say = string(b)
			}
			if lang == "zh" {
				ss = append(ss, sentence{k, lb, ent + "的" + a.say + "编号是", say, end})
			} else {
				ss = append(ss, sentence{k, lb, "The " + a.say + " number of " + ent + " is ", say, end})
			}
		case "flag", "status":
			st := genStates[g.r.IntN(len(genStates))]
			holds := g.r.IntN(2) == 0
			if k == "flag" {
				rec[a.key+"_"+strings.Fields(st.en)[0]] = holds
			} else {
				s := st.off[g.r.IntN(len(st.off))]
				if holds {
					s = strings.ToUpper(st.en)
				}
				rec[a.key+"_status"] = s
			}
			says := holds
			if lb == genWrong {
				says = !holds
			}
			w := map[bool]string{true: st.en, false: st.enNot}[says]
			if lang == "zh" {
				ws := map[bool][]string{true: st.zh, false: st.zhNot}[says]
				w = ws[g.r.IntN(len(ws))]
				ss = append(ss, sentence{k, lb, ent + "的" + a.say, w, end})
			} else {
				ss = append(ss, sentence{k, lb, "The " + a.say + " of " + ent + " is ", w, end})
			}
			if k == "status" && holds && g.r.IntN(2) == 0 {
				// a made-up claim the unrelated status must not support
				b := g.attr(lang)
				if lang == "zh" {
					ss = append(ss, sentence{"made-up", genMadeUp, ent + "的" + b.say, st.zh[0], end})
				} else {
					ss = append(ss, sentence{"made-up", genMadeUp, "The " + b.say + " of " + ent + " is ", st.en, end})
				}
			}
			if g.r.IntN(3) == 0 {
				// the opposite state said as a possibility: modality is
				// read before comparing, so it is no contradiction
				b := g.attr(lang)
				key := b.key + "_status"
				if k == "flag" {
					key = b.key + "_" + strings.Fields(st.en)[0]
					rec[key] = holds
				} else {
					rec[key] = rec[a.key+"_status"]
				}
				m := genModal[lang][g.r.IntN(len(genModal[lang]))]
				if lang == "zh" {
					ws := map[bool][]string{true: st.zh, false: st.zhNot}[!holds]
					ss = append(ss, sentence{"modal", genModal_, ent + "的" + b.say + m, ws[g.r.IntN(len(ws))], end})
				} else {
					w := map[bool]string{true: st.en, false: strings.TrimPrefix(st.enNot, "not ")}[!holds]
					if !holds {
						ss = append(ss, sentence{"modal", genModal_, "The " + b.say + " of " + ent + " " + m, w, end})
					} else {
						ss = append(ss, sentence{"modal", genModal_, "The " + b.say + " of " + ent + " " + m + "not ", w, end})
					}
				}
			}
		case "entity":
			// the same attribute of two entities; a wrong claim gives the
			// other's value
			u := genUnits[g.r.IntN(len(genUnits))]
			v := round(u.lo+(u.hi-u.lo)*g.r.Float64(), 1)
			w := round(g.off(v), 1)
			rec[a.key+"_"+u.suffix] = v
			otherRec[a.key+"_"+u.suffix] = w
			say := v
			if lb == genWrong {
				say = w
			}
			ss = append(ss, sentence{k, lb, of(a) + is(), g.num(lang, say, 1) + g.unitWord(lang, u), end})
		}
	}
	if g.r.IntN(3) == 0 {
		// a made-up identifier beside the evidence's own (a seat, a code)
		b := g.attr(lang)
		code := fmt.Sprintf("%c%c-%05d", 'A'+g.r.IntN(26), 'A'+g.r.IntN(26), g.r.IntN(100000))
		if lang == "zh" {
			ss = append(ss, sentence{"made-up", genMadeUp, ent + "的" + b.say + "号码是", code, end})
		} else {
			ss = append(ss, sentence{"made-up", genMadeUp, "The " + b.say + " number of " + ent + " is ", code, end})
		}
	}
	if g.r.IntN(2) == 0 {
		// a made-up measurement: an attribute the evidence does not have
		u := genUnits[g.r.IntN(len(genUnits))]
		b := g.attr(lang)
		v := round(u.lo+(u.hi-u.lo)*g.r.Float64(), 1)
		ss = append(ss, sentence{"made-up", genMadeUp, of(b) + is(), g.num(lang, v, 1) + g.unitWord(lang, u), end})
	}
	g.r.Shuffle(len(ss), func(i, j int) { ss[i], ss[j] = ss[j], ss[i] })
	var result map[string]any
	if len(otherRec) > 1 {
		result = map[string]any{"items": []any{rec, otherRec}}
	} else {
		result = rec
	}
	gc := genCase{lang: lang, tool: tool, result: result}
	var ans strings.Builder
	pos := 0
	for i, s := range ss {
		if i > 0 {
			if lang == "en" {
				ans.WriteByte(' ')
				pos++
			}
		}
		text := s.pre + s.value + s.post
		at := pos + len([]rune(s.pre))
		ans.WriteString(text)
		pos += len([]rune(text))
		gc.claims = append(gc.claims, genClaim{kind: s.kind, label: s.label, text: text, at: at})
	}
	gc.answer = ans.String()
	b, _ := json.Marshal(result)
	gc.evs = string(b)
	return gc
}

func (g *gen) unitWord(lang string, u *genUnit) string {
	if lang == "zh" {
		return u.zh[g.r.IntN(len(u.zh))]
	}
	w := u.en[g.r.IntN(len(u.en))]
	if w == "%" || strings.HasPrefix(w, " ") {
		return w
	}
	return " " + w
}

// genTally counts verdicts of one kind of claim.
type genTally struct {
	n                                    int
	supported, contradicted, unsupported int
}

func (t *genTally) add(v events.Verdict) {
	t.n++
	switch v {
	case events.VerdictSupported:
		t.supported++
	case events.VerdictContradicted:
		t.contradicted++
	case events.VerdictUnsupported, events.VerdictStale:
		t.unsupported++
	}
}

func TestGeneratedDomains(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(*genSeed, 0x70015))}
	c := NewChecker(CheckerConfig{})
	now := genNow
	tallies := map[string]*genTally{} // label/kind/lang
	tally := func(k string) *genTally {
		if tallies[k] == nil {
			tallies[k] = &genTally{}
		}
		return tallies[k]
	}
	labels := []string{"true", "wrong", "made-up", "modal"}
	for i := range *genN {
		lang := "en"
		if i%3 == 2 {
			lang = "zh"
		}
		gc := g.makeCase(lang)
		rep := c.Check(gc.answer, []evidence.Evidence{{CallID: "c1", Name: gc.tool, Version: 1, Result: json.RawMessage(gc.evs)}}, now)
		for _, cl := range gc.claims {
			v, why := events.Verdict("missing"), ""
			for _, rc := range rep.Claims {
				if rc.Start <= cl.at && cl.at < rc.End {
					v, why = rc.Verdict, rc.Reason
					break
				}
			}
			lb := labels[cl.label]
			for _, k := range []string{lb + "/" + cl.kind + "/" + lang, lb + "/all/" + lang, lb + "/all/all"} {
				tally(k).add(v)
			}
			miss := cl.label == genTrue && v != events.VerdictSupported ||
				cl.label == genWrong && v != events.VerdictContradicted ||
				cl.label == genMadeUp && v != events.VerdictUnsupported ||
				cl.label == genModal_ && v == events.VerdictContradicted
			if *genV && miss {
				t.Logf("%s %s %s: %s (%s)\n\tclaim: %s\n\tevidence: %s", lb, cl.kind, lang, v, why, cl.text, gc.evs)
			}
		}
	}
	keys := make([]string, 0, len(tallies))
	for k := range tallies {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%-30s %5s %9s %12s %11s\n", "label/kind/language", "n", "supported", "contradicted", "unsupported")
	for _, k := range keys {
		x := tallies[k]
		fmt.Fprintf(&b, "%-30s %5d %9.3f %12.3f %11.3f\n", k, x.n, ratio(x.supported, x.n), ratio(x.contradicted, x.n), ratio(x.unsupported, x.n))
	}
	tr, wr, mu, md := tally("true/all/all"), tally("wrong/all/all"), tally("made-up/all/all"), tally("modal/all/all")
	flagged := tr.contradicted + wr.contradicted + mu.contradicted + md.contradicted
	fmt.Fprintf(&b, "true claims called contradicted: %.3f (%d/%d)\n", ratio(tr.contradicted, tr.n), tr.contradicted, tr.n)
	fmt.Fprintf(&b, "precision of contradicted: %.3f (%d/%d)\n", ratio(wr.contradicted, flagged), wr.contradicted, flagged)
	fmt.Fprintf(&b, "recall of planted errors as contradicted: %.3f (%d/%d); as contradicted or unsupported: %.3f\n",
		ratio(wr.contradicted, wr.n), wr.contradicted, wr.n, ratio(wr.contradicted+wr.unsupported, wr.n))
	fmt.Fprintf(&b, "made-up facts called supported: %.3f (%d/%d)\n", ratio(mu.supported, mu.n), mu.supported, mu.n)
	fmt.Fprintf(&b, "true claims called supported: %.3f (%d/%d)\n", ratio(tr.supported, tr.n), tr.supported, tr.n)
	fmt.Fprintf(&b, "possibilities (modal states) called contradicted: %.3f (%d/%d)\n", ratio(md.contradicted, md.n), md.contradicted, md.n)
	t.Log("\n" + b.String())
	if r := ratio(md.contradicted, md.n); r > genFalseContradictedMax {
		t.Errorf("%.3f of possibilities called contradicted (bound %.3f)", r, genFalseContradictedMax)
	}
	if r := ratio(tr.contradicted, tr.n); r > genFalseContradictedMax {
		t.Errorf("%.3f of true claims called contradicted (bound %.3f)", r, genFalseContradictedMax)
	}
	if p := ratio(wr.contradicted, flagged); p < genPrecisionMin {
		t.Errorf("precision of contradicted %.3f (bound %.3f)", p, genPrecisionMin)
	}
	if r := ratio(wr.contradicted, wr.n); r < genRecallMin {
		t.Errorf("recall of planted errors as contradicted %.3f (bound %.3f)", r, genRecallMin)
	}
	for _, k := range keys {
		x := tallies[k]
		if !strings.HasPrefix(k, "wrong/") || strings.Contains(k, "/all/") || x.n < 15 {
			continue
		}
		if r := ratio(x.contradicted, x.n); r < genKindRecallMin {
			t.Errorf("%s: recall of planted errors as contradicted %.3f (bound %.3f)", k, r, genKindRecallMin)
		}
	}
}
