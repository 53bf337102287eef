package memory

import (
	"slices"
	"testing"
	"time"
)

// TestAKinsFactIsAboutThemBesideTheUsersOwn: a statement about one of the
// user's people (我姨妈属鸡, 我表哥在一家物流公司当司机) is a fact about them,
// slotted by who and attribute, and stands beside the user's own fact of
// the same attribute (我属兔, 我在一家出版社做编辑), superseding nothing; the
// user's own (a zodiac sign, a job said with its workplace, a thing never
// touched) is slotted, and a clause after a kin's that drops its subject
// is the kin's, never the user's.
func TestAKinsFactIsAboutThemBesideTheUsersOwn(t *testing.T) {
	at := time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second string }{
		{"zodiac", "我属兔。", "我姨妈属鸡。"},
		{"job-at-a-workplace", "我在一家出版社做编辑。", "我表哥在一家物流公司当司机。"},
		{"craft-at-a-company", "我在一家动画公司画分镜。", "我舅舅在县城开了一家面馆。"},
		{"kin-first", "我外甥属马。", "我属羊。"},
		{"never-touched", "我滴酒不沾。", "我姑父每顿饭都要喝两杯。"},
	} {
		t.Run(c.name, func(t *testing.T) { keepsBoth(t, c.first, c.second, at, false) })
	}
	read := func(text string) []string {
		var got []string
		for _, o := range (RuleExtractor{}).ExtractAt(text, "", at.UnixNano()) {
			got = append(got, o.Subject+"/"+o.Attribute+"="+o.Value)
		}
		return got
	}
	for _, c := range []struct {
		text string
		want []string
	}{
		{"我姨妈属鸡。", []string{"姨妈/属相=鸡"}},
		{"我属兔。", []string{"identity/属相=兔"}},
		{"我属于慢热的人。", nil},
		{"我表哥在一家物流公司当司机。", []string{"表哥/role=司机"}},
		{"我在一家动画公司画分镜。", []string{"work/role=分镜"}},
		{"我在家画画。", nil},
		// the second clause is the aunt's: her home, not the user's
		{"我舅妈叫欧阳兰芝，一直住在开封老家。", []string{"舅妈/name=欧阳兰芝", "舅妈/home=开封老家"}},
		{"我表姐住在苏州，我住在无锡。", []string{"表姐/home=苏州", "location/home=无锡"}},
		{"我公公是退休的铁路工人。", []string{"my/公公=退休的铁路工人"}},
	} {
		if got := read(c.text); !slices.Equal(got, c.want) {
			t.Errorf("%q: read %v, want %v", c.text, got, c.want)
		}
	}
	// what is said of a kin answers for the kin: a correction of the kin's
	// name supersedes the kin's, not the user's
	supersedes(t, "我表弟叫李小峰。", "其实我表弟叫李晓峰，刚才打错字了。", at, "晓峰")
}
