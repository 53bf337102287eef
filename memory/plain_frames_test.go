package memory

import (
	"strings"
	"testing"
	"time"
)

// A constraint or a liking said in plain words is read as one, in English
// and Chinese: a refusal or an avoidance of the user's (steering clear,
// not lending anyone, a thing put first and then refused: 羊肉我从来不吃), a
// request never to accept a thing for the user, one to be left out of it,
// a thing said not to be the user's, a liking in idiom (a sucker for, 百吃
// 不厌) or said with how it is had, and a lift told by another (医生说我
// 可以恢复吃…, …给我解禁了). Its validity is read with it ("until", an
// adverb of the clause, 这阵子). What states no such thing stays unread.
func TestPlainConstraintAndLikingFrames(t *testing.T) {
	at := time.Date(2031, 3, 1, 12, 0, 0, 0, time.UTC)
	type want struct {
		kind, pol, about string
		open, until      bool
	}
	cases := []struct {
		say  string
		want *want // nil: no constraint, preference or favourite read
	}{
		// avoidance and refusal frames
		{"I'm steering clear of roundabouts until the clutch is fixed.", &want{"constraint", "negative", "roundabout", false, false}},
		{"I'm temporarily steering clear of toll roads.", &want{"constraint", "negative", "toll road", true, false}},
		{"These days I'm not lending anybody my car.", &want{"constraint", "negative", "lend", true, false}},
		{"I'm not seeing anyone at the moment.", nil},
		{"Count me out of pub quizzes for now.", &want{"constraint", "negative", "pub quiz", true, false}},
		{"Keep me off the early shifts.", &want{"constraint", "negative", "early shift", false, false}},
		{"Line dancing isn't really my thing.", &want{"preference", "negative", "line dancing", false, false}},
		{"Karaoke is not for me.", &want{"preference", "negative", "karaoke", false, false}},
		// a request never to accept a thing for the user
		{"Never say yes on my behalf to murder-mystery dinners.", &want{"constraint", "negative", "murder-mystery dinner", false, false}},
		{"Please don't sign me up for any charity runs.", &want{"constraint", "negative", "charity run", false, false}},
		{"Please say yes to the invitation.", nil},
		// an end said first
		{"Until the 30th of April please don't book me any dinners out - I'm saving up.", &want{"constraint", "negative", "book", false, true}},
		// likings in idiom or with how they are had
		{"I'm a sucker for custard tarts.", &want{"preference", "positive", "custard tart", false, false}},
		{"I can't get enough of cold-water swimming.", &want{"preference", "positive", "cold-water swimming", false, false}},
		{"I love toasted crumpets with a thick layer of butter on top.", &want{"preference", "positive", "toasted crumpet", false, false}},
		// Chinese: a thing put first, then refused; refusals stressed
		{"羊肉我从来不吃。", &want{"constraint", "negative", "lamb", false, false}},
		{"这阵子我胃不好，炸鸡烧烤这些东西我都不吃。", &want{"constraint", "negative", "炸鸡烧烤", true, false}},
		{"奶茶我已经戒了。", &want{"constraint", "negative", "milk tea", false, false}},
		{"我再也不喝汽水了。", &want{"constraint", "negative", "汽水", false, false}},
		{"这件事我不知道。", nil},
		{"明天我不去了。", nil},
		// Chinese: likings beside each other, and in idiom
		{"饺子我百吃不厌。", &want{"preference", "positive", "饺子", false, false}},
		{"瓜子我一次能吃一大盘，可榴莲我却一口都不想碰。", &want{"preference", "negative", "榴莲", false, false}},
		{"瓜子我一次能吃一大盘，可榴莲我却一口都不想碰。", &want{"preference", "positive", "瓜子", false, false}},
		// Chinese: a lift told by another, or said as a ban undone
		{"医生说我可以恢复喝豆浆了。", &want{"constraint", "positive", "豆浆", false, false}},
		{"蹦极给我解禁了。", &want{"constraint", "positive", "蹦极", false, false}},
	}
	for _, c := range cases {
		name := c.say
		if c.want != nil {
			name += " " + c.want.about
		}
		t.Run(name, func(t *testing.T) {
			obs := RuleExtractor{}.ExtractAt(c.say, "", at.UnixNano())
			if c.want == nil {
				for _, o := range obs {
					if o.Kind == string(KindConstraint) || o.Kind == string(KindPreference) {
						t.Errorf("read %s %s/%s %s from a sentence that states none", o.Kind, o.Subject, o.Attribute, o.Polarity)
					}
				}
				return
			}
			var got []string
			for _, o := range obs {
				got = append(got, o.Kind+" "+o.Subject+"/"+o.Attribute+"="+o.Value+" "+o.Polarity)
				if o.Kind != c.want.kind || o.Polarity != c.want.pol || !strings.Contains(o.Attribute+" "+o.Value, c.want.about) {
					continue
				}
				if o.OpenEnded != c.want.open || (o.ValidUntil != 0) != c.want.until {
					t.Errorf("validity: open %v until %d; want open %v, an end %v", o.OpenEnded, o.ValidUntil, c.want.open, c.want.until)
				}
				return
			}
			t.Errorf("want a %s %s of %q; read %q", c.want.pol, c.want.kind, c.want.about, got)
		})
	}
}

// A favourite replaced in idiom supersedes the old one of its kind, with
// the audit links both ways: the old one said to be dethroned beside the
// new "number one", or, in Chinese, put off its place by the new one
// (X把Y挤下了…); the old one may be named short (牛油锅 for 牛油麻辣锅).
func TestAFavouriteReplacedInIdiom(t *testing.T) {
	at := time.Date(2031, 5, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, first, second, want string }{
		{"dethroned", "Earl Grey has always been my favourite tea.", "Sorry Earl Grey, you've been dethroned - lapsang is my number one now.", "lapsang"},
		{"number one", "My favourite biscuit is the bourbon.", "Bourbon, you've lost your crown: ginger nuts are my number one biscuit now.", "ginger nuts"},
		{"zh put off its place", "我最喜欢的早点是豆浆油条。", "现在煎饼果子把豆浆油条挤下去了。", "煎饼果子"},
		{"zh named short", "我最喜欢的面是红烧牛肉面。", "最近酸菜面取代了红烧面。", "酸菜面"},
	} {
		t.Run(c.name, func(t *testing.T) { supersedes(t, c.first, c.second, at, c.want) })
	}
	for _, text := range []string{
		"The champion was dethroned in the final round.",
		"我哥把我挤下了座位。",
	} {
		for _, o := range (RuleExtractor{}).ExtractAt(text, "", at.UnixNano()) {
			if o.Subject == "favorite" {
				t.Errorf("%q: read a favourite %s=%q", text, o.Attribute, o.Value)
			}
		}
	}
}
