package assembler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Lenient JSON. Some models write arguments that are
// almost JSON: single quotes, trailing commas, unquoted keys, Python's
// True/False/None, or a Markdown code fence around a tagged call. A tenant
// that opts in (Config.LenientTenants), or a tool whose contract does
// (lenient_json: LenientContracts), has them repaired; a repaired call
// says what was changed (CallCompleted.Repaired) and is still validated
// like any other. Without the opt-in such a call is rejected invalid_json
// with the byte where it stops being JSON.
//
// The repair is a single pass over the bytes with a bound on its output
// (twice the input), so its cost is linear; it changes nothing inside a
// string but the quotes of a single-quoted one, and it never guesses: what
// is still not JSON after it is rejected as it was.

// Repairs a repaired call may report.
const (
	RepairCodeFence      = "code_fence"      // a Markdown ``` fence around the call was removed
	RepairSingleQuotes   = "single_quotes"   // 'strings' became "strings"
	RepairUnquotedKeys   = "unquoted_keys"   // {key: …} became {"key": …}
	RepairPythonLiterals = "python_literals" // True, False, None became true, false, null
	RepairTrailingCommas = "trailing_commas" // [1,] and {"a":1,} lost the comma
)

// errNotRepairable: the text is not almost JSON.
var errNotRepairable = errors.New("not repairable")

// stripFence removes a Markdown code fence (```json … ```) around s.
func stripFence(s []byte) ([]byte, bool) {
	t := bytes.TrimSpace(s)
	if !bytes.HasPrefix(t, []byte("```")) || !bytes.HasSuffix(t, []byte("```")) || len(t) < 6 {
		return s, false
	}
	t = bytes.TrimSpace(t[3 : len(t)-3])
	// The fence's language tag: a word before the first { or [.
	if i := bytes.IndexAny(t, "{["); i > 0 && isWord(bytes.TrimSpace(t[:i])) {
		t = t[i:]
	}
	return t, true
}

func isWord(b []byte) bool {
	for _, c := range b {
		if !isIdent(c) {
			return false
		}
	}
	return true
}

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// repairJSON returns raw repaired into JSON and the repairs made (sorted);
// errNotRepairable when the result is still not JSON.
func repairJSON(raw []byte) ([]byte, []string, error) {
	var changes []string
	note := func(c string) {
		if !slices.Contains(changes, c) {
			changes = append(changes, c)
		}
	}
	in, fenced := stripFence(raw)
	if fenced {
		note(RepairCodeFence)
	}
	out := make([]byte, 0, len(in)+16)
	// Containers open: '{' or '['; in an object, whether a key is expected.
	var stack []byte
	expectKey := false
	for i := 0; i < len(in); i++ {
		if len(out) > 2*len(in)+16 {
			return nil, nil, errNotRepairable
		}
		c := in[i]
		switch {
		case c == '"' || c == '\'':
			j, s, ok := readString(in, i)
			if !ok {
				return nil, nil, errNotRepairable
			}
			if c == '\'' {
				note(RepairSingleQuotes)
			}
			out = append(out, s...)
			i = j
			expectKey = false
		case c == '{' || c == '[':
			stack = append(stack, c)
			out = append(out, c)
			expectKey = c == '{'
		case c == '}' || c == ']':
			if n := len(out); n > 0 {
				k := n - 1
				for k >= 0 && isSpace(out[k]) {
					k--
				}
				if k >= 0 && out[k] == ',' {
					out = append(out[:k], out[k+1:]...)
					note(RepairTrailingCommas)
				}
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			out = append(out, c)
			expectKey = false
		case c == ',':
			out = append(out, c)
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case c == ':':
			out = append(out, c)
			expectKey = false
		case isIdent(c) && !(c >= '0' && c <= '9' || c == '-'):
			j := i
			for j < len(in) && isIdent(in[j]) {
				j++
			}
			word := string(in[i:j])
			if expectKey {
				out = append(out, '"')
				out = append(out, word...)
				out = append(out, '"')
				note(RepairUnquotedKeys)
			} else {
				switch word {
				case "True":
					out, word = append(out, "true"...), ""
				case "False":
					out, word = append(out, "false"...), ""
				case "None":
					out, word = append(out, "null"...), ""
				default:
					out = append(out, word...)
				}
				if word == "" {
					note(RepairPythonLiterals)
				}
			}
			i = j - 1
		default:
			out = append(out, c)
		}
	}
	if !json.Valid(out) {
		return nil, nil, errNotRepairable
	}
	slices.Sort(changes)
	return out, changes, nil
}

// readString reads the string starting at in[i] (quoted by in[i]) and
// returns the index of its closing quote and the string as JSON.
func readString(in []byte, i int) (int, []byte, bool) {
	q := in[i]
	var b strings.Builder
	b.WriteByte('"')
	for j := i + 1; j < len(in); j++ {
		c := in[j]
		switch {
		case c == '\\' && j+1 < len(in):
			if q == '\'' && in[j+1] == '\'' {
				b.WriteByte('\'')
			} else {
				b.WriteByte('\\')
				b.WriteByte(in[j+1])
			}
			j++
		case c == q:
			b.WriteByte('"')
			return j, []byte(b.String()), true
		case c == '"': // inside a single-quoted string
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	return 0, nil, false
}

// jsonErrorAt says where raw stops being JSON: the decoder's message and
// its byte offset.
func jsonErrorAt(raw []byte) string {
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("arguments are not valid JSON: %v at byte %d", se, se.Offset)
	case err != nil:
		return fmt.Sprintf("arguments are not valid JSON: %v at byte %d", err, len(raw))
	}
	return "arguments are not valid JSON"
}

// taggedWrapper reads a repaired tagged call {"name": …, "arguments": …}
// (or "parameters"): its name and arguments.
func taggedWrapper(b []byte) (string, []byte, bool) {
	var w struct {
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if json.Unmarshal(b, &w) != nil || w.Name == "" {
		return "", nil, false
	}
	a := w.Arguments
	if len(a) == 0 || string(a) == "null" {
		a = w.Parameters
	}
	if len(a) == 0 || string(a) == "null" {
		a = []byte("{}")
	}
	if a[0] == '"' {
		var s string
		if json.Unmarshal(a, &s) != nil {
			return "", nil, false
		}
		a = []byte(s)
	}
	return w.Name, a, true
}

// LenientContracts is what a Validator may also say: whether a tool's
// contract opted in to the repair of almost-JSON arguments
// (registry.Registry does: the contract's lenient_json).
type LenientContracts interface {
	LenientJSON(name string) bool
}

// lenient reports whether a call of tool name by tenant may be repaired:
// the tenant opted in (Config.LenientTenants), or the tool's contract did.
// The registry is the one in force, so a replay decides as live did.
func (a *Assembler) lenient(tenant, name string) bool {
	if slices.Contains(a.cfg.LenientTenants, tenant) {
		return true
	}
	lc, ok := a.validator.(LenientContracts)
	return ok && name != "" && lc.LenientJSON(name)
}

// repairCall repairs a call's raw arguments for a tenant that opted in:
// for a call without a name (a tagged call whose wrapper was not JSON),
// the wrapper is repaired and read, and the arguments inside it repaired
// in turn. It returns the name (c's unless the wrapper names one), the
// arguments and the repairs, or ok false when nothing could be repaired.
func repairCall(name string, raw []byte) (string, []byte, []string, bool) {
	fixed, changes, err := repairJSON(raw)
	if err != nil {
		return "", nil, nil, false
	}
	if name != "" {
		return name, fixed, changes, true
	}
	n, args, ok := taggedWrapper(fixed)
	if !ok {
		return "", nil, nil, false
	}
	if !json.Valid(args) {
		inner, more, err := repairJSON(args)
		if err != nil {
			return "", nil, nil, false
		}
		args = inner
		for _, m := range more {
			if !slices.Contains(changes, m) {
				changes = append(changes, m)
			}
		}
		slices.Sort(changes)
	}
	return n, args, changes, true
}
