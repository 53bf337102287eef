package memory

import (
	"testing"
	"time"
)

// TestAFavouriteThatNamesTheOneItReplaces: a favourite of no kind the
// tables know ("I prefer Carcassonne over Catan these days", 我现在更喜欢琵琶
// 了，二胡听腻了; 迷上了X is a liking that puts X first) takes the kind of the user's current favourite its sentence
// names beside it, whole or a Chinese name by its end (月季 for 重瓣月季),
// and so supersedes it with the audit links both ways; "my
// new favourite podcast is …" is the favourite podcast. Favourites of two
// kinds stay side by side.
func TestAFavouriteThatNamesTheOneItReplaces(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second, want string }{
		{"en-prefer-over", "My favourite board game is Catan.", "These days I prefer Carcassonne over Catan.", "Carcassonne"},
		{"en-new-favourite", "My favourite podcast is Radiolab.", "My new favourite podcast is Serial.", "Serial"},
		{"zh-more-than-named", "我最喜欢的乐器是二胡。", "我现在更喜欢琵琶了，二胡听腻了。", "琵琶"},
		{"zh-hooked-named-short", "我最喜欢的花是重瓣月季。", "这阵子迷上了铃兰，月季只能排第二了。", "铃兰"},
		{"zh-hooked-named-whole", "我最喜欢的游戏是围棋。", "我最近迷上了桥牌，围棋没那么爱了。", "桥牌"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	for _, c := range []struct{ name, first, second string }{
		{"en-two-kinds", "My favourite board game is Catan.", "My favourite podcast is Serial."},
		{"zh-two-kinds", "我最喜欢的乐器是二胡。", "我最喜欢的季节是秋天。"},
	} {
		t.Run(c.name, func(t *testing.T) { keepsBoth(t, c.first, c.second, at, true) })
	}
}
