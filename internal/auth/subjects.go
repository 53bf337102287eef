package auth

import "strings"

// subjectsCollide reports whether two subjects, either of which may hold
// wildcards, can both match one literal subject: nats-server's
// server.SubjectsCollide (v2.15, in its sublist), which a role's permissions
// are checked with, written out here so that auth, and every client that
// takes its identities from it, links no server. TestSubjectsCollideAsTheServer
// holds the two equal.
func subjectsCollide(subj1, subj2 string) bool {
	if subj1 == subj2 {
		return true
	}
	toks1, toks2 := strings.Split(subj1, "."), strings.Split(subj2, ".")
	pwc1, fwc1 := wildcards(toks1)
	pwc2, fwc2 := wildcards(toks2)
	// Both literal: only the same subject collides.
	l1, l2 := !(pwc1 || fwc1), !(pwc2 || fwc2)
	if l1 && l2 {
		return false
	}
	// One literal: it collides when the other matches it.
	if l1 && !l2 {
		return subsetMatch(toks1, toks2)
	} else if l2 && !l1 {
		return subsetMatch(toks2, toks1)
	}
	// Both have wildcards. With partial ones only, the lengths must match;
	// the shorter one must end in '>' to reach the longer one's tokens.
	if !fwc1 && !fwc2 && len(toks1) != len(toks2) {
		return false
	}
	if lt1, lt2 := len(toks1), len(toks2); lt1 != lt2 {
		if lt1 < lt2 && !fwc1 || lt2 < lt1 && !fwc2 {
			return false
		}
	}
	for i := range min(len(toks1), len(toks2)) {
		if !tokensCanMatch(toks1[i], toks2[i]) {
			return false
		}
	}
	return true
}

// wildcards reports whether tokens hold a '*' and a '>' token.
func wildcards(tokens []string) (pwc, fwc bool) {
	for _, t := range tokens {
		switch t {
		case "*":
			pwc = true
		case ">":
			fwc = true
		}
	}
	return pwc, fwc
}

// tokensCanMatch reports whether two tokens can match one literal token.
func tokensCanMatch(t1, t2 string) bool {
	if len(t1) == 0 || len(t2) == 0 {
		return false
	}
	t1c, t2c := t1[0], t2[0]
	if t1c == '*' || t2c == '*' || t1c == '>' || t2c == '>' {
		return true
	}
	return t1 == t2
}

// subsetMatch reports whether the subject tokens (wildcards in it are
// matched only by the same wildcard) match the filter test.
func subsetMatch(tokens, test []string) bool {
	for i, t2 := range test {
		if i >= len(tokens) {
			return false
		}
		if len(t2) == 0 {
			return false
		}
		if t2 == ">" {
			return true
		}
		t1 := tokens[i]
		if len(t1) == 0 || t1 == ">" {
			return false
		}
		if t1 == "*" {
			if t2 != "*" {
				return false
			}
			continue
		}
		if t2[0] != '*' && t1 != t2 {
			return false
		}
	}
	return len(tokens) == len(test)
}
