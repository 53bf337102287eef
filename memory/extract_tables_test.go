package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestExtractPhraseTables is a lint of the extractor's rules as data: it
// fails on a phrase written twice or one that can never win — not in the
// normal form a clause is matched in, or shadowed by an earlier entry (or a
// rule) that always matches first where the table is tried in order.
func TestExtractPhraseTables(t *testing.T) {
	t.Run("en phrases", func(t *testing.T) {
		tab, err := parseENPhrases(enPhrasesText)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range lintENPhrases(tab) {
			t.Error(e)
		}
	})
	t.Run("en qualifiers", func(t *testing.T) {
		// stripped from an object's end, in order, until none is left: an
		// earlier qualifier that ends a later one strips it first
		var qs []string
		for _, q := range qualifiers {
			qs = append(qs, strings.Join(q, " "))
			if n := len(q); n >= 2 && q[n-1] == "ago" && agoUnits[q[n-2]] {
				t.Errorf("qualifier %q never matches: object() strips \"<number> %s ago\" first", strings.Join(q, " "), q[n-2])
			}
		}
		lintOrdered(t, "qualifier", qs, func(later, earlier string) bool {
			return strings.HasSuffix(" "+later, " "+earlier)
		})
	})
	t.Run("en bounds", func(t *testing.T) {
		var bs []string
		for _, b := range boundsEN {
			bs = append(bs, strings.Join(b.p, " "))
		}
		lintOrdered(t, "bound", bs, func(later, earlier string) bool {
			return strings.HasPrefix(later+" ", earlier+" ")
		})
	})
	t.Run("zh patterns", func(t *testing.T) {
		// the first that opens the clause reads it (最喜欢 is reached only
		// after 在 or 正在 is stripped: elsewhere 最 is trimmed as an adverb)
		var ps []string
		for _, p := range zhPatterns {
			ps = append(ps, p.prefix)
		}
		lintOrdered(t, "pattern", ps, strings.HasPrefix)
	})
	t.Run("zh lexicon", func(t *testing.T) {
		// an object that is a word takes its slot, the first that matches;
		// one that only contains words takes the first within a rune of
		// its length, which a shorter word it contains never shadows
		var ws []string
		for _, e := range zhLexicon {
			ws = append(ws, e.zh)
		}
		lintOrdered(t, "lexicon word", ws, func(later, earlier string) bool { return false })
	})
	t.Run("zh trimmed words", func(t *testing.T) {
		// trimAny strips the first that opens the clause, again and again
		lintOrdered(t, "connector", zhConnectors, strings.HasPrefix)
		lintOrdered(t, "adverb", zhAdverbs, strings.HasPrefix)
		lintOrdered(t, "period", zhPeriods, strings.HasPrefix)
	})
	t.Run("open-ended words are trimmed", func(t *testing.T) {
		// a clause that opens with one must still be read
		for _, w := range cues.zhOpen {
			if !slices.Contains(zhAdverbs, w) {
				t.Errorf("open-ended word %q is not in zhAdverbs: 我%s不能吃辣 states nothing", w, w)
			}
		}
		var ps []string
		for _, p := range cues.open {
			ps = append(ps, strings.Join(p, " "))
		}
		lintOrdered(t, "open-ended phrase", ps, func(later, earlier string) bool { return false })
	})
	t.Run("zh bounds", func(t *testing.T) {
		var bs []string
		for _, b := range zhBounds {
			bs = append(bs, b.w)
		}
		lintOrdered(t, "bound", bs, strings.Contains)
	})
}

// lintOrdered fails on an entry of an ordered table written twice or
// shadowed: covers(later, earlier) says that wherever the later entry
// matches, the earlier one does too, so the earlier always wins.
func lintOrdered(t *testing.T, what string, entries []string, covers func(later, earlier string) bool) {
	t.Helper()
	for j, later := range entries {
		for i, earlier := range entries[:j] {
			switch {
			case earlier == later:
				t.Errorf("%s %q is written twice (entries %d and %d)", what, later, i+1, j+1)
			case covers(later, earlier):
				t.Errorf("%s %q (entry %d) never wins: %q (entry %d) matches wherever it does and comes first",
					what, later, j+1, earlier, i+1)
			}
		}
	}
}

// lintENPhrases lists the phrases of the English table that never win:
// written twice in a section, or not in the normal form a clause after
// the section's subject is matched in (a contraction, a capital, a filler
// after the opening auxiliaries, "do" before a like verb).
func lintENPhrases(tab *enTable) []string {
	var out []string
	seen := map[string]int{}
	for _, p := range tab.all {
		phrase := strings.Join(p.words, " ")
		key := p.section + ": " + phrase
		if l, ok := seen[key]; ok {
			out = append(out, fmt.Sprintf("line %d: [%s] %q is also on line %d: one of them never wins", p.line,
				p.section, phrase, l))
		}
		seen[key] = p.line
		norm := words(phrase)
		switch p.section {
		case "i":
			norm = normalEN(norm)
		case "we":
			norm = dropAdverbs(norm)
		}
		if got := joinLow(norm); got != phrase {
			out = append(out, fmt.Sprintf("line %d: [%s] %q never matches: a clause that opens so reads as %q",
				p.line, p.section, phrase, got))
		}
	}
	return out
}

// TestExtractPhraseLintFindsDeadPhrases: the lint finds the two kinds of
// rule the if-chain held that could never match — "am not into" a second
// time, after the first had read it, and "have always loved" (dropAdverbs
// had dropped "always") — and the other kinds of phrase a clause never opens with.
func TestExtractPhraseLintFindsDeadPhrases(t *testing.T) {
	tab, err := parseENPhrases(`[I]
am not into = preference negative
am over = preference negative
am not into = preference negative
have always loved = preference positive
can't = forbid
Like = preference positive
do like = preference positive
[we]
am not into = preference negative
really live in = fact location/home
[my]
Name is = value identity/name
`)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lintENPhrases(tab), "\n")
	want := `line 4: [i] "am not into" is also on line 2: one of them never wins
line 5: [i] "have always loved" never matches: a clause that opens so reads as "have loved"
line 6: [i] "can't" never matches: a clause that opens so reads as "can not"
line 7: [i] "Like" never matches: a clause that opens so reads as "like"
line 8: [i] "do like" never matches: a clause that opens so reads as "like"
line 11: [we] "really live in" never matches: a clause that opens so reads as "live in"
line 13: [my] "Name is" never matches: a clause that opens so reads as "name is"`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestExtractPhraseTableRefusesMalformed: a malformed line of the English
// phrase table is an error that names it.
func TestExtractPhraseTableRefusesMalformed(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"like = preference positive", "before the first [section]"},
		{"[they]\nlike = preference positive", "section [they]: want [I], [we] or [my]"},
		{"[I]\nlike", "want phrase = reading"},
		{"[I]\n = preference positive", "no phrase"},
		{"[I]\nlike = adore", `unknown reading "adore"`},
		{"[I]\nlike = preference", "want preference positive|negative"},
		{"[I]\nlike = constraint maybe", "want constraint positive|negative"},
		{"[I]\nlive in = fact home", "want fact subject/attribute"},
		{"[I]\nname is = value /name", "want value subject/attribute"},
		{"[I]\ncan = allow everything", "allow takes no argument"},
	} {
		_, err := parseENPhrases(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error with %q", c.text, err, c.want)
		}
	}
	if _, err := parseENPhrases("# a comment\n\n[I]\nlike = preference positive\n"); err != nil {
		t.Error(err)
	}
}
