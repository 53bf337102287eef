package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolstream/toolstream/events"
)

// Bounds of what Validate reports.
const (
	// DetailBytesMax bounds a Validate detail.
	DetailBytesMax = 1024
	// detailProblemsMax bounds the schema problems one detail lists.
	detailProblemsMax = 4
	// coerceDepthMax bounds how deep coercion follows schemas and values.
	coerceDepthMax = 64
)

// Validate is the gate a call passes before it may run (docs/design.md
// invariant 1): the tool must exist (else events.ReasonUnknownTool), the
// tenant must hold its permission (events.ReasonPermission), and the
// arguments must validate against its input schema
// (events.ReasonSchemaViolation, with a detail naming each field and what to
// fix). name may pin a version ("name@2").
//
// Coercion happens only when the tool's contract says coerce: true, and only
// where the schema wants a number, an integer or a boolean (and not a
// string) and the argument is a string that reads as one: "12" → 12,
// "true" → true. out is the canonical JSON of the (possibly coerced)
// arguments (sorted keys, no HTML escaping); coerced lists the JSON pointers
// that were coerced, in document order.
//
// args must be one JSON object; anything else comes back as
// events.ReasonInvalidJSON or events.ReasonNotAnObject. reason is "" when
// the call may run.
//
// A nil registry accepts every call and returns args unchanged.
func (r *Registry) Validate(tenant, name string, args []byte) (out []byte, coerced []string, reason events.Reason, detail string) {
	if r == nil {
		return args, nil, "", ""
	}
	defer func() { // the schema library is third-party: bad arguments must never take the process down
		if p := recover(); p != nil {
			out, coerced, reason, detail = nil, nil, events.ReasonSchemaViolation, bound(fmt.Sprintf("the arguments could not be checked against the input schema of %s: %v", name, p))
		}
	}()
	t, ok := r.Lookup(name)
	if !ok {
		return nil, nil, events.ReasonUnknownTool, r.unknownDetail(name)
	}
	if !r.Allowed(tenant, t.Permission) {
		if tenant == "" {
			return nil, nil, events.ReasonPermission, "the call has no tenant"
		}
		return nil, nil, events.ReasonPermission, fmt.Sprintf("tenant %s is not granted permission %q, which tool %s needs", tenant, t.Permission, t.Name)
	}
	v, err := readJSON(args) // jsonvalue.go
	if err != nil {
		return nil, nil, events.ReasonInvalidJSON, fmt.Sprintf("the arguments are not JSON: %v", err)
	}
	if _, isObj := v.(map[string]any); !isObj {
		return nil, nil, events.ReasonNotAnObject, fmt.Sprintf("the arguments must be one JSON object, got %s", strings.TrimPrefix(typeName(v), "a "))
	}
	if t.object != nil {
		if obj := v.(map[string]any); obj[ObjectVersionField] != nil {
			if _, _, err := ObjectVersion(args); err != nil {
				return nil, nil, events.ReasonSchemaViolation, err.Error()
			}
			delete(obj, ObjectVersionField) // the executor reads it from the call's arguments; the schema and the tool never see it
		}
	}
	values, err := checkValue(v, 0)
	if err != nil {
		return nil, nil, events.ReasonInvalidJSON, "the arguments are not JSON this tool accepts: " + err.Error()
	}
	if fanOut := r.fanOut[t]; values*fanOut > ValidateStepsMax {
		return nil, nil, events.ReasonTooLarge, fmt.Sprintf("%d values are more than the input schema of %s can check (at most %d)", values, t.Name, ValidateStepsMax/fanOut)
	}
	if t.Coerce {
		v = coerce(t.input, v, "", &coerced, 0)
	}
	if t.anyObject {
		// v is an object, and the schema asks nothing more of it.
	} else if err := t.input.Validate(v); err != nil {
		return nil, nil, events.ReasonSchemaViolation, bound(fmt.Sprintf("the arguments do not match the input schema of %s: %s", t.Name, schemaDetail(err)))
	}
	if t.object != nil {
		if _, err := t.object.key(v.(map[string]any)); err != nil {
			return nil, nil, events.ReasonSchemaViolation, bound(strings.TrimPrefix(err.Error(), "registry: "))
		}
	}
	if out, ok := appendCanonical(make([]byte, 0, len(args)), v); ok {
		return out, coerced, "", ""
	}
	out, err = canonicalJSON(v)
	if err != nil { // a value readJSON produced always encodes
		return nil, nil, events.ReasonInvalidJSON, err.Error()
	}
	return out, coerced, "", ""
}

func (r *Registry) unknownDetail(name string) string {
	base, ver, pinned := strings.Cut(name, "@")
	if vs := r.tools[base]; pinned && len(vs) > 0 {
		have := make([]string, len(vs))
		for i, t := range vs {
			have[i] = fmt.Sprint(t.Version)
		}
		return fmt.Sprintf("tool %s has no version %s (versions: %s)", base, ver, strings.Join(have, ", "))
	}
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > 20 {
		names = append(names[:20], "…")
	}
	return bound(fmt.Sprintf("no tool named %q; known tools: %s", name, strings.Join(names, ", ")))
}

// schemaDetail lists the innermost problems of a validation error, each as
// "at '/pointer': what is wrong".
func schemaDetail(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			s := strings.TrimSpace(e.Error())
			if !slices.Contains(leaves, s) {
				leaves = append(leaves, s)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	more := 0
	if len(leaves) > detailProblemsMax {
		more = len(leaves) - detailProblemsMax
		leaves = leaves[:detailProblemsMax]
	}
	s := strings.Join(leaves, "; ")
	s = strings.ReplaceAll(s, "at '':", "at the top level:")
	if more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}

func bound(s string) string {
	if len(s) <= DetailBytesMax {
		return s
	}
	cut := DetailBytesMax - len("…")
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// jsonNumber is the grammar of a JSON number literal.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// jsonInteger is a JSON number literal with an integral value and no
// exponent (an exponent could name an integer too large to hold).
var jsonInteger = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.0+)?$`)

// coerce walks the value beside its schema and replaces strings that the
// schema wants as a number, integer or boolean. It follows properties,
// additionalProperties, prefixItems/items, $ref and allOf; it does not guess
// inside anyOf/oneOf, where the intended branch is ambiguous.
func coerce(s *jsonschema.Schema, v any, ptr string, out *[]string, depth int) any {
	if s == nil || depth > coerceDepthMax {
		return v
	}
	if s.Ref != nil {
		v = coerce(s.Ref, v, ptr, out, depth+1)
	}
	for _, sub := range s.AllOf {
		v = coerce(sub, v, ptr, out, depth+1)
	}
	switch val := v.(type) {
	case string:
		if nv, ok := coerceScalar(s, val); ok {
			*out = append(*out, ptr)
			return nv
		}
	case map[string]any:
		keys := make([]string, 0, len(val))
		for k := range val {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub := s.Properties[k]
			if sub == nil {
				sub, _ = s.AdditionalProperties.(*jsonschema.Schema)
			}
			if sub != nil {
				val[k] = coerce(sub, val[k], ptr+"/"+escapePointer(k), out, depth+1)
			}
		}
	case []any:
		for i := range val {
			var sub *jsonschema.Schema
			switch {
			case i < len(s.PrefixItems):
				sub = s.PrefixItems[i]
			case s.Items2020 != nil:
				sub = s.Items2020
			default:
				switch it := s.Items.(type) {
				case *jsonschema.Schema:
					sub = it
				case []*jsonschema.Schema:
					if i < len(it) {
						sub = it[i]
					}
				}
			}
			if sub != nil {
				val[i] = coerce(sub, val[i], fmt.Sprintf("%s/%d", ptr, i), out, depth+1)
			}
		}
	}
	return v
}

// coerceScalar converts str when the schema's type wants a number, an
// integer or a boolean and does not accept a string.
func coerceScalar(s *jsonschema.Schema, str string) (any, bool) {
	if s.Types == nil {
		return nil, false
	}
	types := s.Types.ToStrings()
	if slices.Contains(types, "string") {
		return nil, false
	}
	if slices.Contains(types, "boolean") && (str == "true" || str == "false") {
		return str == "true", true
	}
	if !jsonNumber.MatchString(str) || !numberOK(str) {
		return nil, false
	}
	if slices.Contains(types, "number") {
		return json.Number(str), true
	}
	if slices.Contains(types, "integer") {
		if jsonInteger.MatchString(str) {
			return json.Number(str), true
		}
	}
	return nil, false
}

func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// LenientJSON reports whether the contract of tool name (the latest
// version, or the one name pins) opted in to the repair of almost-JSON
// arguments (lenient_json). An unknown tool never did.
func (r *Registry) LenientJSON(name string) bool {
	t, ok := r.Lookup(name)
	return ok && t.LenientJSON
}

// SideEffectFree reports whether the contract of tool name declares no
// side effect (side_effect: none): the assembler lets such calls run at
// once, and orders the others of a response one after another. An unknown
// tool is not side-effect free.
func (r *Registry) SideEffectFree(name string) bool {
	t, ok := r.Lookup(name)
	return ok && t.SideEffect == SideEffectNone
}

// DeclaresArgument reports whether the input schema of tool name declares
// field as a top-level property: the assembler leaves such a field to the
// tool instead of reading it as one of its reserved arguments. An unknown
// tool declares nothing.
func (r *Registry) DeclaresArgument(name, field string) bool {
	t, ok := r.Lookup(name)
	if !ok {
		return false
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(t.InputSchema, &s) != nil {
		return false
	}
	_, declared := s.Properties[field]
	return declared
}
