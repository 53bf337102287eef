package check

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/lang"
	"github.com/toolstream/toolstream/verifier/evidence"
)

// crossRowSupport returns the supported claims of rep that cite a field of
// another row than the one the claim names: the bug a claim bound to the
// wrong row shows. A claim names a row of an array of objects when its
// text holds a value of one of the row's naming fields (a key of the
// subject key words, "name", "label", "title", "id", "code", or the
// row's first string field) that no other row of the array holds; a claim
// naming no row of an array and holding a pronoun continues the row the
// claim before it named. The diagnostic reads the evidence and the report
// only, not the checker's own scope, so that it can catch the checker.
// It is a lower bound: rows named by a date, a position or a number are
// not read.
func crossRowSupport(rep Report, evs []evidence.Evidence) []events.ClaimVerdict {
	type array struct {
		call, ptr string
		names     [][]string // per row, its naming values (folded)
		values    [][]string // per row, every string value's first comma part (folded)
	}
	var arrays []array
	var walk func(call, ptr string, v any)
	walk = func(call, ptr string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(call, ptr+"/"+escapePtr(k), e)
			}
		case []any:
			rows, vals := make([][]string, len(x)), make([][]string, len(x))
			objs := 0
			for i, e := range x {
				walk(call, ptr+"/"+strconv.Itoa(i), e)
				o, ok := e.(map[string]any)
				if !ok {
					continue
				}
				objs++
				rows[i] = rowNames(o)
				for _, f := range o {
					if s, ok := f.(string); ok {
						p, _, _ := strings.Cut(strings.ToLower(s), ",")
						vals[i] = append(vals[i], strings.TrimSpace(p))
					}
				}
			}
			if objs >= 2 {
				arrays = append(arrays, array{call: call, ptr: ptr, names: rows, values: vals})
			}
		}
	}
	for _, e := range evs {
		var v any
		if json.Unmarshal(e.Result, &v) == nil {
			walk(e.CallID, "", v)
		}
	}
	var out []events.ClaimVerdict
	prev := map[int]int{} // array → the row the claim before named
	for _, cl := range rep.Claims {
		text := strings.ToLower(cl.Text)
		cur := map[int]int{}
		for a, arr := range arrays {
			row := -1
			for i, ns := range arr.names {
				for _, n := range ns {
					if !strings.Contains(text, n) || heldByOther(arr.names, i, n) {
						continue
					}
					if row >= 0 && row != i {
						row = -2 // two rows named: no one row
					} else if row == -1 {
						row = i
					}
				}
			}
			if row == -1 && hasPronoun(text) {
				if p, ok := prev[a]; ok {
					row = p
				}
			}
			if row >= 0 {
				cur[a] = row
			}
		}
		if cl.Verdict == events.VerdictSupported && !rangesOverRows(text) {
		refs:
			for _, r := range cl.Evidence {
				for a, row := range cur {
					arr := arrays[a]
					rest, ok := strings.CutPrefix(r.Pointer, arr.ptr+"/")
					if r.CallID != arr.call || !ok {
						continue
					}
					idx, _, _ := strings.Cut(rest, "/")
					if k, err := strconv.Atoi(idx); err == nil && k != row && !namesAValueOf(text, arr.values[k]) {
						out = append(out, cl)
						break refs
					}
				}
			}
		}
		prev = cur
	}
	return out
}

// namesAValueOf reports whether text holds one of a row's values of three
// runes or more: the claim names that row itself by it.
func namesAValueOf(text string, vals []string) bool {
	return slices.ContainsFunc(vals, func(v string) bool { return len([]rune(v)) >= 3 && strings.Contains(text, v) })
}

// rangesOverRows reports whether text holds a word of the lexicon's
// universal, existential or except cues (all, every, except, 其他, 都): a
// claim over several rows cites them all.
func rangesOverRows(text string) bool {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	for _, l := range evidence.LangData.Lines("cues") {
		if l.Name != "universal" && l.Name != "existential" && l.Name != "except" {
			continue
		}
		for _, w := range l.Words {
			if lang.IsCJK([]rune(w)[0]) && strings.Contains(text, w) || slices.Contains(words, w) {
				return true
			}
		}
	}
	return strings.Contains(text, "其他") || strings.Contains(text, "其余")
}

// rowNames returns the folded values of a row's naming fields.
func rowNames(o map[string]any) []string {
	var out []string
	first, firstKey := "", ""
	for k, v := range o {
		s, ok := v.(string)
		if !ok || len([]rune(s)) < 2 {
			continue
		}
		if firstKey == "" || k < firstKey {
			first, firstKey = s, k
		}
		kl := strings.ToLower(k)
		for _, w := range []string{"name", "label", "title", "id", "code", "名称", "名"} {
			if strings.Contains(kl, w) {
				out = append(out, strings.ToLower(s))
				break
			}
		}
	}
	if len(out) == 0 && first != "" && !lang.IsAllDigits(first) {
		out = append(out, strings.ToLower(first))
	}
	return out
}

// heldByOther reports whether a row of names other than row i holds a
// value that contains n or that n contains.
func heldByOther(names [][]string, i int, n string) bool {
	for j, ns := range names {
		if j == i {
			continue
		}
		for _, m := range ns {
			if strings.Contains(m, n) || strings.Contains(n, m) {
				return true
			}
		}
	}
	return false
}

// hasPronoun reports whether folded text holds a word of the lexicon's
// pronoun cue (it, they, 它, 其 …): English ones as words, Chinese ones
// inside the text.
func hasPronoun(text string) bool {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	for _, l := range evidence.LangData.Lines("cues") {
		if l.Name != "pronoun" {
			continue
		}
		for _, w := range l.Words {
			if lang.IsCJK([]rune(w)[0]) && strings.Contains(text, w) || slices.Contains(words, w) {
				return true
			}
		}
	}
	return false
}

func escapePtr(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
