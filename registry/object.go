package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ObjectVersionField is the reserved top-level argument in which a call of
// a tool with an object names the object's version its change is based on
// (a whole number ≥ 0; 0: the object was never changed). Validate takes it
// out before the input schema sees it, so a strict schema need not declare
// it and the tool never receives it in its arguments; the executor reads
// it from the call's arguments (ObjectVersion) and refuses a change based
// on another version than the object's with object_conflict.
const ObjectVersionField = "$object_version"

// Bounds of object templates and keys.
const (
	// ObjectKeyBytesMax bounds an object key, the template's text and the
	// argument values it names together.
	ObjectKeyBytesMax = 256
)

// ErrObjectKey: a call's arguments do not give its object a key (a field
// the template names is missing, empty or not a string, number or boolean,
// or the key is too long). Validate reports the same as a schema
// violation, so an executed call never meets it.
var ErrObjectKey = errors.New("registry: the arguments do not name the object")

// objectTemplate is a parsed object: literal text and {field} placeholders,
// each a top-level argument.
type objectTemplate struct {
	parts  []string // literal, field, literal, field, … literal (odd indexes are fields)
	fields []string
}

// parseObject parses an object template: text with {field} placeholders,
// field a top-level argument name of [A-Za-z0-9_-]; "{{" and "}}" write a
// literal brace. At least one placeholder is required: an object key that
// does not depend on the arguments names one object for every call, which
// is what permission and approval are for.
func parseObject(s string) (*objectTemplate, error) {
	if s == "" {
		return nil, errors.New("empty object template (omit it when the tool changes no business object)")
	}
	t := &objectTemplate{}
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%q: '{' at byte %d is not closed (write {{ for a literal brace)", s, i)
			}
			name := s[i+1 : i+end]
			if !fieldName(name) {
				return nil, fmt.Errorf("%q: {%s} is not a top-level argument name ([A-Za-z0-9_-], e.g. {order_id})", s, name)
			}
			t.parts = append(t.parts, lit.String(), name)
			t.fields = append(t.fields, name)
			lit.Reset()
			i += end
		case c == '}':
			return nil, fmt.Errorf("%q: '}' at byte %d closes nothing (write }} for a literal brace)", s, i)
		default:
			lit.WriteByte(c)
		}
	}
	t.parts = append(t.parts, lit.String())
	if len(t.fields) == 0 {
		return nil, fmt.Errorf("%q names no argument: give the object's key from the arguments, e.g. \"order:{order_id}\"", s)
	}
	return t, nil
}

func fieldName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// checkSchema says what is wrong with the template against the tool's
// input schema: every field it names must be a required property, so
// every call that validates names its object.
func (t *objectTemplate) checkSchema(schema json.RawMessage) error {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return errors.New("the input schema must be an object schema with properties for the fields the object names")
	}
	for _, f := range t.fields {
		if _, ok := s.Properties[f]; !ok {
			return fmt.Errorf("{%s} is not a property of input_schema: declare it (and list it in required)", f)
		}
		found := false
		for _, r := range s.Required {
			found = found || r == f
		}
		if !found {
			return fmt.Errorf("{%s} is not in input_schema's required: a call without it would name no object", f)
		}
	}
	return nil
}

// key renders the template over a call's top-level arguments.
func (t *objectTemplate) key(args map[string]any) (string, error) {
	var b strings.Builder
	for i, p := range t.parts {
		if i%2 == 0 {
			b.WriteString(p)
			continue
		}
		var s string
		switch v := args[p].(type) {
		case string:
			s = v
		case json.Number:
			s = v.String()
		case bool:
			s = strconv.FormatBool(v)
		case nil:
			return "", fmt.Errorf("%w: argument %s is missing; the object is %s", ErrObjectKey, p, t.String())
		default:
			return "", fmt.Errorf("%w: argument %s is %s; the object key takes a string, number or boolean", ErrObjectKey, p, typeName(v))
		}
		if s == "" {
			return "", fmt.Errorf("%w: argument %s is empty", ErrObjectKey, p)
		}
		b.WriteString(s)
	}
	if b.Len() > ObjectKeyBytesMax {
		return "", fmt.Errorf("%w: the key is %d bytes, more than %d", ErrObjectKey, b.Len(), ObjectKeyBytesMax)
	}
	return b.String(), nil
}

// String writes the template back as given.
func (t *objectTemplate) String() string {
	var b strings.Builder
	for i, p := range t.parts {
		if i%2 == 1 {
			b.WriteString("{" + p + "}")
			continue
		}
		b.WriteString(strings.NewReplacer("{", "{{", "}", "}}").Replace(p))
	}
	return b.String()
}

// ObjectKey is the business object a call of the tool changes, rendered
// from the call's arguments (JSON; $object_version, if present, is
// ignored): "" and no error when the contract names no object. It returns
// an error wrapping ErrObjectKey when the arguments do not name it.
func (t *Tool) ObjectKey(args []byte) (string, error) {
	if t.object == nil {
		return "", nil
	}
	v, err := readJSON(args)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrObjectKey, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", fmt.Errorf("%w: the arguments are not an object", ErrObjectKey)
	}
	return t.object.key(m)
}

// ObjectVersion reads ObjectVersionField from a call's raw arguments: the
// version, and whether the call gives one. A value that is not a whole
// number ≥ 0 is an error (Validate refuses such a call).
func ObjectVersion(args []byte) (uint64, bool, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return 0, false, nil
	}
	raw, ok := m[ObjectVersionField]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%s must be a whole number ≥ 0 (the object's version your change is based on), got %s", ObjectVersionField, raw)
	}
	return n, true, nil
}
