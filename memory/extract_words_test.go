package memory

import (
	"slices"
	"strings"
	"testing"
)

// wordList reads a name's words in the data's order, and a name the data
// does not hold panics, naming it, instead of reading as no words.
func TestWordListRefusesANameTheDataLacks(t *testing.T) {
	if got := wordList("zh words", "no_longer"); !slices.Equal(got, memData.Words("zh words", "no_longer")) || len(got) == 0 {
		t.Errorf("wordList(zh words, no_longer) = %v", got)
	}
	defer func() {
		r := recover()
		if msg, _ := r.(string); !strings.Contains(msg, "no_such_name") {
			t.Errorf("a missing name: recovered %v, want a panic naming it", r)
		}
	}()
	wordList("zh words", "no_such_name")
	t.Error("a missing name read as no words")
}
