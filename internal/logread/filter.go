package logread

import "strings"

// Filter matches NATS subjects against a set of patterns ('*' one token,
// '>' the rest). A nil Filter matches every subject.
type Filter [][]string

// NewFilter compiles patterns; none gives a nil Filter.
func NewFilter(patterns []string) Filter {
	if len(patterns) == 0 {
		return nil
	}
	f := make(Filter, 0, len(patterns))
	for _, p := range patterns {
		f = append(f, strings.Split(p, "."))
	}
	return f
}

// Match reports whether subject matches one of the patterns.
func (f Filter) Match(subject string) bool {
	if f == nil {
		return true
	}
	for _, p := range f {
		if matchTokens(p, subject) {
			return true
		}
	}
	return false
}

func matchTokens(pattern []string, subject string) bool {
	for i, tok := range pattern {
		if tok == ">" {
			return subject != ""
		}
		if subject == "" && i > 0 {
			return false
		}
		var cur string
		if j := strings.IndexByte(subject, '.'); j >= 0 {
			cur, subject = subject[:j], subject[j+1:]
		} else {
			cur, subject = subject, ""
			if i != len(pattern)-1 {
				return false
			}
		}
		if tok != "*" && tok != cur {
			return false
		}
		if i == len(pattern)-1 && subject != "" {
			return false
		}
	}
	return true
}
