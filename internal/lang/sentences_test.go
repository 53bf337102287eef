package lang

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestSentences(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string // "?" at the end of a want marks a question
	}{
		{"plain", "I like tea. I hate coffee.", []string{"I like tea.", "I hate coffee."}},
		{"lower case chat", "i like tea. i hate coffee", []string{"i like tea.", "i hate coffee"}},
		{"question", "Can you help? I need a hotel!", []string{"Can you help??", "I need a hotel!"}},
		{"initial in a name", "My favourite author is Ursula K. Le Guin. I reread her every year.",
			[]string{"My favourite author is Ursula K. Le Guin.", "I reread her every year."}},
		{"several initials", "I grew up reading J. R. R. Tolkien and loved it.", []string{"I grew up reading J. R. R. Tolkien and loved it."}},
		{"a letter that ends a sentence", "I take vitamin C. It helps.", []string{"I take vitamin C.", "It helps."}},
		{"a unit that ends in a capital", "Nitrate was 8.7 mg/L. E. coli was not found.", []string{"Nitrate was 8.7 mg/L.", "E. coli was not found."}},
		{"a Latin name after an ideograph", "我最喜欢的作家是J. K. Rowling。我对花生过敏。", []string{"我最喜欢的作家是J. K. Rowling。", "我对花生过敏。"}},
		{"an initial after an opening bracket", "The author (J. K. Rowling) wrote it.", []string{"The author (J. K. Rowling) wrote it."}},
		{"a code that ends in a capital", "Pick Plan-B. It is cheaper.", []string{"Pick Plan-B.", "It is cheaper."}},
		{"title", "Dr. Chen said I should rest. Mrs. Li agreed.", []string{"Dr. Chen said I should rest.", "Mrs. Li agreed."}},
		{"a title of another language", "I wrote to Srta. P. Alvarenga yesterday. We met Dott. Rinaldi at noon.",
			[]string{"I wrote to Srta. P. Alvarenga yesterday.", "We met Dott. Rinaldi at noon."}},
		{"an initial that is a numbering word too", "Ask Sr. P. Q. Ibarra. He knows.", []string{"Ask Sr. P. Q. Ibarra.", "He knows."}},
		{"a name before an initial that opens", "I met Bob. A. Ng was there too.", []string{"I met Bob.", "A. Ng was there too."}},
		{"latin abbreviation", "I avoid nuts, e.g. almonds and cashews. Also dairy.",
			[]string{"I avoid nuts, e.g. almonds and cashews.", "Also dairy."}},
		{"i.e. before a capital", "Call my office, i.e. Acme. Not my phone.", []string{"Call my office, i.e. Acme.", "Not my phone."}},
		{"dotted abbreviation mid sentence", "I moved to the U.S. in 2019 and like it.", []string{"I moved to the U.S. in 2019 and like it."}},
		{"dotted abbreviation at the end", "I moved to the U.S. Then I found a job.", []string{"I moved to the U.S.", "Then I found a job."}},
		{"numbering", "I live at No. 5 Elm Street. It is quiet.", []string{"I live at No. 5 Elm Street.", "It is quiet."}},
		{"page", "See p. 12 for details.", []string{"See p. 12 for details."}},
		{"decimal", "The rate is 3.5 percent. That is high.", []string{"The rate is 3.5 percent.", "That is high."}},
		{"number at the end", "It costs 3.5. it was cheap", []string{"It costs 3.5.", "it was cheap"}},
		{"version and domain", "Version 1.2 of example.com works", []string{"Version 1.2 of example.com works"}},
		{"time", "I wake at 7 a.m. every day. Then I run.", []string{"I wake at 7 a.m. every day.", "Then I run."}},
		{"etc at the end", "I bought pens, paper etc. I also bought ink.", []string{"I bought pens, paper etc.", "I also bought ink."}},
		{"etc mid sentence", "pens, paper etc. are on the desk", []string{"pens, paper etc. are on the desk"}},
		{"company", "I work at Acme Inc. and like it.", []string{"I work at Acme Inc. and like it."}},
		{"vs", "It was Lakers vs. Celtics last night.", []string{"It was Lakers vs. Celtics last night."}},
		{"quote closes", `She said "stop." Then she left.`, []string{`She said "stop."`, "Then she left."}},
		{"question in quotes", `He asked "why?" I had no answer.`, []string{`He asked "why?"?`, "I had no answer."}},
		{"ellipsis before lower case", "I don't know... maybe tea.", []string{"I don't know... maybe tea."}},
		{"ellipsis before an opener", "I don't know... Anyway, tea.", []string{"I don't know...", "Anyway, tea."}},
		{"semicolon", "I like tea; I hate coffee", []string{"I like tea;", "I hate coffee"}},
		{"line break", "first line\nsecond line", []string{"first line", "second line"}},
		{"exclamation run", "Wow!! Great?!", []string{"Wow!!", "Great?!?"}},
		{"no end", "no end here", []string{"no end here"}},
		{"empty", "  \n . ", []string{"."}},
		{"chinese", "我最近海鲜过敏。其实我现在更喜欢普洱！你呢？", []string{"我最近海鲜过敏。", "其实我现在更喜欢普洱！", "你呢？?"}},
		{"chinese semicolon", "我不吃辣；我喜欢甜的", []string{"我不吃辣；", "我喜欢甜的"}},
		{"chinese quote", "他说“别等我。”我就走了。", []string{"他说“别等我。”", "我就走了。"}},
		{"chinese decimal", "预算是3.5万。到月底为止。", []string{"预算是3.5万。", "到月底为止。"}},
		{"ascii stop before ideograph", "I like 普洱.我也喜欢龙井", []string{"I like 普洱.", "我也喜欢龙井"}},
		{"mixed", "My doctor is Dr. Wang. 她说我不能喝酒。OK?", []string{"My doctor is Dr. Wang.", "她说我不能喝酒。", "OK??"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, s := range Sentences(c.text) {
				if c.text[s.Start:s.End] != s.Text {
					t.Errorf("offsets %d:%d give %q, not %q", s.Start, s.End, c.text[s.Start:s.End], s.Text)
				}
				w := s.Text
				if s.Question {
					w += "?"
				}
				got = append(got, w)
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("Sentences(%q)\n got %q\nwant %q", c.text, got, c.want)
			}
		})
	}
}

func TestSentenceTablesRefuseMalformedLines(t *testing.T) {
	schema := "abbreviations = words +lower title numbered terminal\n"
	for _, bad := range []string{"title dr", "unknown = x", "title = Dr", "title = dr.", "title = dr dr"} {
		fsys := fstest.MapFS{"schema.txt": {Data: []byte(schema)}, "s.txt": {Data: []byte("[abbreviations]\n" + bad + "\n")}}
		if _, err := Load(fsys); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
	if st := newSentenceTables(Default()); !st.title["dr"] || !st.numbered["no"] || !st.terminal["etc"] || !st.opener["it"] {
		t.Fatalf("sentence tables: %v", st)
	}
}
