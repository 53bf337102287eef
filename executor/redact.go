package executor

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// secretRedactMin is the shortest value a redactor hides: a shorter one
// (a value of "1", "on") would take every occurrence of common text with
// it, and guards nothing a guess would not find.
const secretRedactMin = 4

// redactor hides the values of the secrets resolved for one invocation
// in what the tool or its upstream says: each value, and its JSON-escaped,
// URL-escaped, base64 and hex forms, becomes [redacted:NAME], NAME the variable
// or header the contract gives it. A command tool's and an http tool's
// Invoke pass everything they return through one (outcome), so no text
// that leaves a tool — the result, a CallFailed's message (the end of
// stderr, an upstream's error body, a typed error's message), hence the
// log, the console and serve's log lines — holds a value. The zero value
// (no secrets) changes nothing. Not safe for concurrent use.
type redactor struct {
	forms []redaction // longest first
	rep   *strings.Replacer
}

type redaction struct{ value, marker string }

// resolve resolves the references of the contract's value v (of the
// variable or header name), remembering each resolved value, and the
// whole expanded value when it holds one, as secrets.
func (r *redactor) resolve(name, v string) (string, error) {
	if !registry.HasRefs(v) {
		return v, nil
	}
	out, err := registry.Expand(v, func(ref registry.Ref) (string, error) {
		s, err := resolveSecret(ref)
		if err == nil {
			r.add(name, s)
		}
		return s, err
	})
	if err == nil {
		r.add(name, out)
	}
	return out, err
}

// add remembers value, and the forms a tool or a server may write it in,
// as the secret name.
func (r *redactor) add(name, value string) {
	if len(value) < secretRedactMin {
		return
	}
	marker := "[redacted:" + name + "]"
	inJSON := func(escapeHTML bool) string { // the value inside a JSON string
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(escapeHTML)
		e.Encode(value)
		q := strings.TrimSuffix(b.String(), "\n")
		return q[1 : len(q)-1]
	}
	for _, f := range []string{
		value, inJSON(true), inJSON(false),
		url.QueryEscape(value), url.PathEscape(value),
		base64.StdEncoding.EncodeToString([]byte(value)), base64.RawStdEncoding.EncodeToString([]byte(value)),
		base64.URLEncoding.EncodeToString([]byte(value)), base64.RawURLEncoding.EncodeToString([]byte(value)),
		hex.EncodeToString([]byte(value)), strings.ToUpper(hex.EncodeToString([]byte(value))),
	} {
		if len(f) >= secretRedactMin && !slices.ContainsFunc(r.forms, func(x redaction) bool { return x.value == f }) {
			r.forms = append(r.forms, redaction{f, marker})
		}
	}
	// Longest first: at one position the longer form wins (Replacer
	// tries its pairs in order), so "Bearer x" is not left as "Bearer "
	// and a marker.
	slices.SortStableFunc(r.forms, func(a, b redaction) int { return len(b.value) - len(a.value) })
	r.rep = nil
}

func (r *redactor) replacer() *strings.Replacer {
	if r.rep == nil {
		pairs := make([]string, 0, 2*len(r.forms))
		for _, f := range r.forms {
			pairs = append(pairs, f.value, f.marker)
		}
		r.rep = strings.NewReplacer(pairs...)
	}
	return r.rep
}

// String returns s with every secret replaced by its marker.
func (r *redactor) String(s string) string {
	if r == nil || len(r.forms) == 0 {
		return s
	}
	return r.replacer().Replace(s)
}

// tail is tail(b, n) of the redacted b. cut says that b itself is the
// end of a longer text; where the text is cut, a beginning that may be
// the end of a secret cut through is dropped too.
func (r *redactor) tail(b []byte, n int, cut bool) string {
	if r == nil || len(r.forms) == 0 {
		return tail(b, n)
	}
	s := r.String(string(b))
	if t := strings.TrimSpace(s); len(t) > n {
		cut, s = true, t[len(t)-n:]
	}
	if cut {
		s = "…" + strings.TrimPrefix(s[r.fragment(s):], "…")
	}
	return tail([]byte(s), n+len("…"))
}

// fragment returns the length of the longest beginning of s that is the
// end of a secret's form (a secret cut through by a tail).
func (r *redactor) fragment(s string) int {
	n := 0
	for _, f := range r.forms {
		for k := min(len(f.value)-1, len(s)); k > n; k-- {
			if strings.HasPrefix(s, f.value[len(f.value)-k:]) {
				n = k
				break
			}
		}
	}
	return n
}

// outcome is what an invocation returns, its secrets redacted: a
// ToolError's message, and a result. A result whose secret cannot be
// replaced without breaking its JSON (a value written as a number) is a
// tool_error that does not repeat it.
func (r *redactor) outcome(name string, out json.RawMessage, err error) (json.RawMessage, error) {
	if r == nil || len(r.forms) == 0 {
		return out, err
	}
	var te *ToolError
	if errors.As(err, &te) {
		return nil, &ToolError{Type: te.Type, Message: r.String(te.Message)}
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, errors.New(r.String(err.Error()))
	}
	red := r.String(string(out))
	if red == string(out) {
		return out, nil
	}
	if !json.Valid([]byte(red)) {
		return nil, Errorf(events.ErrToolError, "%s returned a secret of its contract where it cannot be redacted; its result is withheld", name)
	}
	return json.RawMessage(red), nil
}
