package memory

import "testing"

func TestExtractChinese(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"我喜欢吃辣", "preference food/spicy positive"},
		{"我很喜欢吃辣的", "preference food/spicy positive"},
		{"我爱喝咖啡", "preference drink/coffee positive"},
		{"我最爱吃火锅", "preference food/hotpot positive"},
		{"我喜欢爬山", "preference general/爬山 positive"},
		{"我讨厌香菜", "preference food/cilantro negative"},
		{"我不喜欢吃海鲜", "preference food/seafood negative"},
		{"我不想吃辣", "preference food/spicy negative"}, // a refusal states a taste; 想 alone is a wish
		{"我不想再喝咖啡了", "preference drink/coffee negative"},
		{"我不能吃辣", "constraint food/spicy negative"},
		{"我最近不能吃辣", "constraint food/spicy negative"},
		{"我这几天不能吃辣的东西", "constraint food/spicy negative"},
		{"我不吃猪肉", "constraint food/pork negative"},
		{"我不喝酒", "constraint drink/alcohol negative"},
		{"我对花生过敏", "constraint food/peanut negative"},
		{"我对猫过敏", "constraint general/猫 negative"},
		{"我不再对花生过敏了", "constraint food/peanut positive"},
		{"我是素食者", "constraint food/meat negative"},
		{"我吃素", "constraint food/meat negative"},
		{"我又能吃辣了！", "constraint food/spicy positive"},
		{"我现在可以吃辣了", "constraint food/spicy positive"},
		{"我住在上海", "fact location/home=上海 positive"},
		{"我搬到了北京", "fact location/home=北京 positive"},
		{"我在腾讯工作", "fact work/employer=腾讯 positive"},
		{"我是四川人", "fact location/origin=四川 positive"},
		{"我叫小明", "fact identity/name=小明 positive"},
		{"我喜欢吃辣，但是最近不能吃", "preference food/spicy positive; constraint food/spicy negative"},
		{"我喜欢吃辣，但是最近不能吃了。我住在成都", "preference food/spicy positive; constraint food/spicy negative; fact location/home=成都 positive"},
		// habits, changes of habit, work, activities
		{"我每周喝两次奶茶", "fact drink/milk tea=每周两次 positive"},
		{"我一般喝绿茶", "fact drink/tea=green tea positive"},
		{"我戒掉了奶茶", "constraint drink/milk tea negative"},
		{"我从腾讯离职了", "fact work/employer=腾讯 negative"},
		{"我从来不熬夜", "fact activity/熬夜 negative"},
		{"好消息，我现在能吃海鲜了", "constraint food/seafood positive"},
		{"其实我正在控盐", "constraint food/盐 negative"},
		{"去年我搬到了广州", "fact location/home=广州 positive"},
		{"可惜我对芒果过敏", "constraint general/芒果 negative"},
		// someone else's, hypothetical, or asked
		{"我妈不吃猪肉", ""},
		{"我的朋友喜欢寿司", ""},
		{"如果我能吃辣就好了", ""},
		{"我打算搬到北京", ""},
		{"我该不该戒咖啡", ""},
		{"你喜欢吃辣吗？", ""},
		{"我喜欢吃辣吗", ""},
		{"我爱你", ""},
		{"我们昨天去爬山了", ""},
		{"今天天气很好", ""},
		{"但是不能吃", ""},
	} {
		if got := extractAll(c.text, ""); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

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
