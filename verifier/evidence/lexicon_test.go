package evidence

import (
	"github.com/toolstream/toolstream/internal/lang"
	"strings"
	"testing"
)

// The lexicon of the language data loads and holds what the rules need;
// internal/lang's tests refuse a malformed file.
func TestLexiconFile(t *testing.T) {
	if len(EnLex) < 500 || len(ZhLex) < 500 || !LexConcepts["stock"] {
		t.Fatalf("lexicon too small: %d English, %d Chinese words", len(EnLex), len(ZhLex))
	}
	if l := EnLex["out of stock"]; l == nil || l.Cues&CueNegLex == 0 || !strings.Contains(strings.Join(l.Concepts, " "), "stock") {
		t.Fatalf("out_of_stock: %+v", l)
	}
	if _, err := ParseLexicon(lang.Default()); err != nil {
		t.Fatal(err)
	}
}

// The data that name concepts name the lexicon's: a concept misspelt in
// keys.txt or words.txt would silently match nothing.
func TestDataNameLexiconConcepts(t *testing.T) {
	for _, sec := range []string{"concept dimensions", "dimension concepts", "concept roles"} {
		for _, l := range lang.Default().Lines(sec) {
			for _, c := range l.Words {
				if !LexConcepts[c] {
					t.Errorf("%s line %d: %q is no concept of the lexicon", l.File, l.No, c)
				}
			}
		}
	}
	for _, l := range lang.Default().Lines("measure concepts") {
		if !LexConcepts[l.Name] {
			t.Errorf("%s line %d: %q is no concept of the lexicon", l.File, l.No, l.Name)
		}
	}
	// An ordinal's noun may also be a unit's concept (第五天: day).
	unitConcepts := map[string]bool{}
	for _, l := range lang.Default().Lines("unit concepts") {
		unitConcepts[l.Name] = true
	}
	for _, l := range lang.Default().Lines("ordinal nouns") {
		if !LexConcepts[l.Name] && !unitConcepts[l.Name] {
			t.Errorf("%s line %d: %q is no concept of the lexicon", l.File, l.No, l.Name)
		}
	}
}

// The category rules name categories of the lexicon: a class or value
// misspelt there would silently never apply.
func TestCategoryRulesNameLexiconCategories(t *testing.T) {
	known := map[string]bool{}
	for _, l := range lang.Default().Lines("categories") {
		class, rest, _ := strings.Cut(l.Name, "/")
		value, _, _ := strings.Cut(rest, "/")
		known[class], known[class+"/"+value] = true, true
	}
	for _, sec := range []string{"category covers", "category traits"} {
		for _, l := range lang.Default().Lines(sec) {
			names := l.Words
			if sec == "category covers" {
				names = append([]string{l.Name}, l.Words...)
			}
			for _, n := range names {
				if !known[n] {
					t.Errorf("%s line %d: %q is no category of the lexicon", l.File, l.No, n)
				}
			}
		}
	}
}
