package registry

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
)

// Secrets. A value that carries a credential (an http header such as
// Authorization, a command tool's environment variable) is written in the
// tools file as a reference that the executor resolves each time it calls:
//
//	${env:NAME}    the executor's environment variable NAME
//	${file:PATH}   the content of the file at PATH (absolute; one trailing newline dropped)
//
// A value may mix text and references ("Bearer ${env:API_TOKEN}"); "$${"
// writes a literal "${". The registry keeps the value as written, so the
// canonical spec (Spec, Digest), the RegistryChanged events in the log and
// every view derived from them hold references, never secrets (docs/design.md
// invariant 10).

// Sources a reference can name.
const (
	RefEnv  = "env"  // ${env:NAME}
	RefFile = "file" // ${file:PATH}
)

// Ref is a reference to a secret within a value.
type Ref struct {
	Source string // RefEnv or RefFile
	Name   string // the variable's name or the file's absolute path
}

// String returns the reference as it is written: ${env:NAME}.
func (r Ref) String() string { return "${" + r.Source + ":" + r.Name + "}" }

// Expand returns the value v with each reference replaced by what resolve
// returns for it (and "$${" by "${"). It returns resolve's first error, or
// an error naming a malformed reference (Parse refuses values holding one).
func Expand(v string, resolve func(Ref) (string, error)) (string, error) {
	var b strings.Builder
	err := scanValue(v, func(text string) { b.WriteString(text) }, func(r Ref) error {
		s, err := resolve(r)
		b.WriteString(s)
		return err
	})
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

// HasRefs reports whether the value v holds a reference.
func HasRefs(v string) bool {
	found := false
	scanValue(v, func(string) {}, func(Ref) error { found = true; return nil })
	return found
}

// scanValue splits v into text and references, in order.
func scanValue(v string, text func(string), ref func(Ref) error) error {
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			text(v)
			return nil
		}
		if i > 0 && v[i-1] == '$' { // "$${": a literal "${"
			text(v[:i-1] + "${")
			v = v[i+2:]
			continue
		}
		text(v[:i])
		end := strings.IndexByte(v[i:], '}')
		if end < 0 {
			return fmt.Errorf("%q opens a reference that is not closed; write ${env:NAME} or ${file:PATH} (or $${ for a literal ${)", v[i:])
		}
		r, err := parseRef(v[i+2 : i+end])
		if err != nil {
			return err
		}
		if err := ref(r); err != nil {
			return err
		}
		v = v[i+end+1:]
	}
}

func parseRef(s string) (Ref, error) {
	src, name, _ := strings.Cut(s, ":")
	r := Ref{Source: src, Name: name}
	switch {
	case src == RefEnv && validEnvName(name):
		return r, nil
	case src == RefFile && filepath.IsAbs(name):
		return r, nil
	case src == RefEnv:
		return r, fmt.Errorf("%s: %q is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)", r, name)
	case src == RefFile:
		return r, fmt.Errorf("%s: the path must be absolute", r)
	}
	return r, fmt.Errorf("${%s} is not a reference; write ${env:NAME} or ${file:PATH} (or $${ for a literal ${)", s)
}

func validEnvName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// secretWords end the names of headers and variables that carry
// credentials (after '-' or '_', or as the whole name): a literal value
// there is refused.
var secretWords = []string{"key", "apikey", "token", "secret", "password", "passwd", "auth", "authorization", "credential", "credentials", "cookie", "signature"}

// carriesSecret reports whether a header or variable named name carries a
// credential, by its name: Authorization, Proxy-Authorization, Cookie,
// X-Api-Key, X-Auth-Token, DB_PASSWORD, …
func carriesSecret(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if n == w || strings.HasSuffix(n, "-"+w) || strings.HasSuffix(n, "_"+w) {
			return true
		}
	}
	return strings.HasSuffix(n, "apikey") // X-ApiKey
}

// value decodes a value that may hold references. A literal value where
// the name says it carries a credential is refused with the fix.
func (d *decoder) value(path, name string, v any) string {
	s := d.str(path, v, "")
	if err := scanValue(s, func(string) {}, func(Ref) error { return nil }); err != nil {
		d.fail(path, "%v", err)
		return s
	}
	if carriesSecret(name) && !HasRefs(s) {
		d.fail(path, "%s carries a credential, and the tools file (hence the log) must not hold one: use ${env:NAME} or ${file:PATH}, e.g. \"Bearer ${env:API_TOKEN}\"", name)
	}
	return s
}

// urlCredentials refuses a URL that carries user:password@ (the message
// does not repeat it).
func (d *decoder) urlCredentials(path, raw string) {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		d.fail(path, "the url carries credentials (user:password@), and the tools file (hence the log) must not hold one: send them in a header with ${env:NAME} or ${file:PATH}, e.g. Authorization: \"Basic ${file:/run/secrets/api}\"")
	}
}

// headers decodes http.headers: header names to values (see value).
func (d *decoder) headers(path string, v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		d.fail(path, "want a mapping of header names to values, got %s", typeName(v))
		return nil
	}
	h := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		kp := join(path, k)
		if !validHeaderName(k) {
			d.fail(kp, "%q is not a header name", k)
		}
		h[k] = d.value(kp, k, m[k])
		if strings.ContainsAny(h[k], "\r\n") {
			d.fail(kp, "a header value cannot hold a line break")
		}
	}
	return h
}

func validHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return s != ""
}

// reservedEnv are variables the executor sets itself for a command tool.
func reservedEnv(name string) bool {
	return name == "HOME" || name == "TMPDIR" || strings.HasPrefix(name, "TOOLSTREAM_")
}

// env decodes a command tool's env: a list of names (each passes the
// executor's variable of that name, written canonically as
// NAME: ${env:NAME}) or a mapping of names to values (see value).
func (d *decoder) env(path string, v any) map[string]string {
	out := map[string]string{}
	name := func(p, k string) bool {
		switch {
		case !validEnvName(k):
			d.fail(p, "%q is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)", k)
		case reservedEnv(k):
			d.fail(p, "%s is set by the executor (HOME and TMPDIR are a private directory per call; TOOLSTREAM_* describe the call)", k)
		default:
			return true
		}
		return false
	}
	switch ev := v.(type) {
	case []any:
		for i, n := range ev {
			p := fmt.Sprintf("%s[%d]", path, i)
			if k := d.str(p, n, ""); name(p, k) {
				out[k] = Ref{Source: RefEnv, Name: k}.String()
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(ev) {
			p := join(path, k)
			if name(p, k) {
				out[k] = d.value(p, k, ev[k])
			}
		}
	default:
		d.fail(path, "want a list of variable names to pass, or a mapping of names to values such as ${env:NAME}, got %s", typeName(v))
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
