package local

import (
	"strings"
	"testing"
)

// The shipped class table parses, and a bad line or a class named twice is
// refused with the line's number.
func TestZHClassesParse(t *testing.T) {
	tab, err := loadZH()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.names) < 20 || len(tab.words) < 300 {
		t.Errorf("%d classes, %d words: the table is cut short", len(tab.names), len(tab.words))
	}
	for _, bad := range []string{"pet 狗 猫", "= 狗", "pet =", "pet = 狗\npet = 猫"} {
		if _, err := parseZH(bad); err == nil || !strings.Contains(err.Error(), "line") {
			t.Errorf("%q: %v, want an error naming the line", bad, err)
		}
	}
}

// A query names a class by its longest word, and a record meets it by any
// word of the class; a Chinese query with no class word, or an English
// record, scores 0 from the table.
func TestZHClassesMatch(t *testing.T) {
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tab, _ := loadZH()
	names := func(cs []int) (out []string) {
		for _, c := range cs {
			out = append(out, tab.names[c])
		}
		return out
	}
	if got := strings.Join(names(tab.queryClasses("我在练小提琴")), " "); got != "instrument" {
		t.Errorf("小提琴 names %q, want instrument only", got)
	}
	for _, tc := range []struct {
		query, doc string
		want       bool
	}{
		{"我的车是什么牌子？", "我开的是特斯拉。", true},
		{"我的车是什么牌子？", "我养了一只柯基。", false},
		{"我会什么乐器？", "我每天练钢琴。", true},
		{"我在哪个国家？", "我在东京工作。", false},
		{"我去过日本吗？", "我们去年在京都玩了一周。", true},
		{"你好", "我开的是特斯拉。", false},
		{"我的车是什么牌子？", "I drive a Tesla.", false},
	} {
		if got := w.Match(tc.query, tc.doc) > 0; got != tc.want {
			t.Errorf("Match(%q, %q) > 0 = %v, want %v", tc.query, tc.doc, got, tc.want)
		}
	}
	// deterministic and in [0, 1]
	a, b := w.Match("我的车是什么牌子？", "我开的是特斯拉。"), w.Match("我的车是什么牌子？", "我开的是特斯拉。")
	if a != b || a <= 0 || a > 1 {
		t.Errorf("Match %v then %v", a, b)
	}
}
