package check

import (
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
	"math/rand/v2"
	"strings"
	"testing"
)

// A time pattern's gate must hold for every text its regexp matches in
// (but "in days", only in texts with a digit): the gates only spare texts
// the regexps. Checked on every claim of the
// labelled set, every string value of its evidence, and texts made for
// each pattern.
func TestTimeGatesHoldWhereRegexpsMatch(t *testing.T) {
	texts := []string{
		"2024-05-03", "on 2024/5/3", "5月3日", "5月3号到", "may 3, 2024", "3 may 2024", "on 5/3/2024",
		"in 3 days", "3 days later", "3 days from now", "三天后", "at 3pm", "at 10:30 a.m.", "15:45", "下午3点半",
		"at noon", "midnight", "today", "tonight", "tomorrow", "the day after tomorrow", "this morning", "明天",
		"大后天", "friday", "next monday", "this sunday", "下周五", "星期三", "礼拜天", "next weekend", "周末",
		"ships wednesday", "wednesdays", "sundays and mondays", "dec 31", "september 3", "augusta 3",
	}
	for _, cc := range checkedSet(t) {
		for _, c := range cc.rep.Claims {
			texts = append(texts, c.Text)
		}
		for _, e := range cc.rc.Evidences() {
			texts = append(texts, string(e.Result))
		}
	}
	for _, text := range texts {
		s := string(lang.Normalize(text))
		digits := strings.ContainsAny(s, "0123456789")
		for _, p := range evidence.TimePatterns {
			if !p.Re.MatchString(s) || p.Name == "in days" && !digits {
				continue // NB: "in days" is read only in a text with a digit (三天后 alone is not)
			}
			if !p.Gate(&evidence.TimeGate{S: s, Digits: digits}) {
				t.Errorf("%s: the gate refuses %q, which its regexp matches", p.Name, s)
			}
		}
	}
}

// A gate holds only for a text whose mask holds one of its pattern's
// needs: the masks only spare texts the gates. Checked on the labelled
// set's texts and on texts made of the words the gates look for.
func TestTimeGatesNeedWhatTheyLookFor(t *testing.T) {
	var texts []string
	for _, cc := range checkedSet(t) {
		for _, c := range cc.rep.Claims {
			texts = append(texts, string(lang.Normalize(c.Text)))
		}
	}
	pieces := []string{"0", "7", ":", "/", "-", ".", " ", "in ", "in", "a", "p", "m", "am", "p.m.", "day", "days", "later", "from now",
		"noon", "midnight", "midday", "today", "tonight", "tomorrow", "yesterday", "this", "weekend", "monday", "sunday", "may", "dec",
		"月", "日", "号", "点", "时", "明", "今", "后", "昨", "前", "周", "星期", "礼拜", "末", "天", "x"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		m := evidence.TextMask(s)
		for _, p := range evidence.TimePatterns {
			if p.Gate(&evidence.TimeGate{S: s, Digits: strings.ContainsAny(s, "0123456789")}) && !evidence.MaskHolds(m, p.Needs) {
				t.Fatalf("%s: the gate holds for %q, whose mask %#x holds none of its needs", p.Name, s, m)
			}
		}
	}
}

// hasMonthName and hasWeekdayName, which scan a text once, say what
// looking for each name in it says.
func TestNameScansSayWhatContainsSays(t *testing.T) {
	months := []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
	weekdays := []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
	any := func(s string, ws []string) bool {
		for _, w := range ws {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	pieces := append(append([]string{"day", "days", " ", "x", "ja", "n", "mon", "sun", "dec", "ma", "y", "satur", "周"}, months...), weekdays...)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := evidence.HasMonthName(s), any(s, months); got != want {
			t.Fatalf("hasMonthName(%q) = %v, want %v", s, got, want)
		}
		if got, want := evidence.HasWeekdayName(s), any(s, weekdays); got != want {
			t.Fatalf("hasWeekdayName(%q) = %v, want %v", s, got, want)
		}
	}
}
