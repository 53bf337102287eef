package memory

import "testing"

// TestExtractSameSlotAcrossLanguages: a statement and its translation hold
// the same slot, so one supersedes the other.
func TestExtractSameSlotAcrossLanguages(t *testing.T) {
	for _, p := range [][2]string{
		{"I can't eat spicy food", "我不能吃辣"},
		{"I am allergic to peanuts", "我对花生过敏"},
		{"I love coffee", "我爱喝咖啡"},
		{"I don't eat pork", "我不吃猪肉"},
	} {
		en, zh := extractAll(p[0], "en"), extractAll(p[1], "zh")
		if en != zh || en == "" {
			t.Errorf("%q → %q, %q → %q", p[0], en, p[1], zh)
		}
	}
}
