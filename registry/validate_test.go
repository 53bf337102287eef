package registry_test

import (
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

const coerceYAML = `
tools:
  - name: calc
    coerce: true
    side_effect: none
    input_schema:
      type: object
      properties:
        n: {type: integer}
        x: {type: number}
        flag: {type: boolean}
        label: {type: string}
        either: {type: [string, integer]}
        maybe: {type: [integer, "null"]}
        list: {type: array, items: {type: integer}}
        pair: {type: array, prefixItems: [{type: string}, {type: number}]}
        nested: {$ref: "#/$defs/inner"}
        free: {}
        "a/b": {type: integer}
      additionalProperties: {type: boolean}
      $defs:
        inner: {type: object, properties: {depth: {type: integer, minimum: 0}}}
  - name: calc.strict
    coerce: false
    side_effect: none
    input_schema: {type: object, properties: {n: {type: integer}}}
grants:
  - tenant: acme
    permissions: [calc, calc.strict]
`

func TestValidateCoercion(t *testing.T) {
	r := mustParse(t, coerceYAML)
	cases := []struct {
		name, tool, args string
		out              string   // "" when rejected
		coerced          []string // pointers
		reason           events.Reason
		detail           string
	}{
		{name: "integer", tool: "calc", args: `{"n":"12"}`, out: `{"n":12}`, coerced: []string{"/n"}},
		{name: "integral decimal", tool: "calc", args: `{"n":"12.0"}`, out: `{"n":12.0}`, coerced: []string{"/n"}},
		{name: "number", tool: "calc", args: `{"x":"-1.5e3"}`, out: `{"x":-1.5e3}`, coerced: []string{"/x"}},
		{name: "boolean", tool: "calc", args: `{"flag":"true"}`, out: `{"flag":true}`, coerced: []string{"/flag"}},
		{name: "already typed", tool: "calc", args: `{"n":12,"flag":false}`, out: `{"flag":false,"n":12}`},
		{name: "string stays string", tool: "calc", args: `{"label":"12"}`, out: `{"label":"12"}`},
		{name: "string allowed by union", tool: "calc", args: `{"either":"12"}`, out: `{"either":"12"}`},
		{name: "nullable integer", tool: "calc", args: `{"maybe":"7"}`, out: `{"maybe":7}`, coerced: []string{"/maybe"}},
		{name: "no type no coercion", tool: "calc", args: `{"free":"12"}`, out: `{"free":"12"}`},
		{name: "array items", tool: "calc", args: `{"list":["1",2,"3"]}`, out: `{"list":[1,2,3]}`, coerced: []string{"/list/0", "/list/2"}},
		{name: "prefix items", tool: "calc", args: `{"pair":["1","2"]}`, out: `{"pair":["1",2]}`, coerced: []string{"/pair/1"}},
		{name: "through ref", tool: "calc", args: `{"nested":{"depth":"4"}}`, out: `{"nested":{"depth":4}}`, coerced: []string{"/nested/depth"}},
		{name: "additional properties", tool: "calc", args: `{"extra":"false"}`, out: `{"extra":false}`, coerced: []string{"/extra"}},
		{name: "escaped pointer", tool: "calc", args: `{"a/b":"1"}`, out: `{"a/b":1}`, coerced: []string{"/a~1b"}},
		{name: "not a number", tool: "calc", args: `{"n":"twelve"}`, reason: events.ReasonSchemaViolation, detail: "at '/n': got string, want integer"},
		{name: "leading zero", tool: "calc", args: `{"n":"012"}`, reason: events.ReasonSchemaViolation, detail: "/n"},
		{name: "fraction for integer", tool: "calc", args: `{"n":"1.5"}`, reason: events.ReasonSchemaViolation, detail: "/n"},
		{name: "exponent for integer", tool: "calc", args: `{"n":"1e3"}`, reason: events.ReasonSchemaViolation, detail: "/n"},
		{name: "hex", tool: "calc", args: `{"x":"0x10"}`, reason: events.ReasonSchemaViolation, detail: "/x"},
		{name: "spaces", tool: "calc", args: `{"x":" 1"}`, reason: events.ReasonSchemaViolation, detail: "/x"},
		{name: "bool case", tool: "calc", args: `{"flag":"True"}`, reason: events.ReasonSchemaViolation, detail: "/flag"},
		{name: "coerced then checked", tool: "calc", args: `{"nested":{"depth":"-1"}}`, reason: events.ReasonSchemaViolation, detail: "/nested/depth"},
		{name: "coerce off", tool: "calc.strict", args: `{"n":"12"}`, reason: events.ReasonSchemaViolation, detail: "at '/n': got string, want integer"},
		{name: "coerce off typed", tool: "calc.strict", args: `{"n":12}`, out: `{"n":12}`},
		{name: "canonical", tool: "calc.strict", args: ` { "z" : "<&>" , "n" : 1 } `, out: `{"n":1,"z":"<&>"}`},
		{name: "not json", tool: "calc", args: `{"n":`, reason: events.ReasonInvalidJSON},
		{name: "not an object", tool: "calc", args: `[1]`, reason: events.ReasonNotAnObject, detail: "got list"},
		{name: "trailing", tool: "calc", args: `{} {}`, reason: events.ReasonInvalidJSON},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, coerced, reason, detail := r.Validate("acme", c.tool, []byte(c.args))
			if reason != c.reason || string(out) != c.out || strings.Join(coerced, ",") != strings.Join(c.coerced, ",") {
				t.Fatalf("Validate(%s) = %s %v %q %q; want %s %v %q", c.args, out, coerced, reason, detail, c.out, c.coerced, c.reason)
			}
			if !strings.Contains(detail, c.detail) {
				t.Fatalf("detail %q does not say %q", detail, c.detail)
			}
		})
	}
}

func TestValidateSaysWhatToFix(t *testing.T) {
	r := mustParse(t, refundYAML)
	_, _, reason, detail := r.Validate("acme", "orders.refund", []byte(`{}`))
	if reason != events.ReasonSchemaViolation || !strings.Contains(detail, "missing property 'order_id'") || !strings.Contains(detail, "orders.refund") {
		t.Fatalf("missing field: %q %q", reason, detail)
	}
	_, _, reason, detail = r.Validate("acme", "weather.read", []byte(`{"city":"Paris","days":"30","wind":1}`))
	if reason != events.ReasonSchemaViolation || !strings.Contains(detail, "/days") || !strings.Contains(detail, "maximum") || !strings.Contains(detail, "wind") {
		t.Fatalf("several problems: %q %q", reason, detail)
	}
	big := `{"city":"x"` + strings.Repeat(`,"k`+strings.Repeat("x", 200)+`":1`, 40) + `}`
	_, _, _, detail = r.Validate("acme", "weather.read", []byte(big))
	if len(detail) > registry.DetailBytesMax {
		t.Fatalf("detail of %d bytes exceeds the bound", len(detail))
	}
}

func TestValidatePermissionsPerTenant(t *testing.T) {
	r := mustParse(t, refundYAML+`  - tenant: initech
    permissions: ["*"]
`)
	cases := []struct {
		tenant, tool string
		reason       events.Reason
	}{
		{"acme", "orders.refund", ""},
		{"acme", "weather.read", ""},
		{"globex", "weather.read", ""},
		{"globex", "orders.refund", events.ReasonPermission},
		{"initech", "orders.refund", ""},
		{"umbrella", "weather.read", events.ReasonPermission},
		{"", "weather.read", events.ReasonPermission},
		{"acme", "orders.cancel", events.ReasonUnknownTool},
		{"acme", "orders.refund@2", ""},
		{"acme", "orders.refund@1", events.ReasonUnknownTool},
	}
	for _, c := range cases {
		args := `{"order_id":"o1"}`
		if strings.HasPrefix(c.tool, "weather") {
			args = `{"city":"Paris"}`
		}
		_, _, reason, detail := r.Validate(c.tenant, c.tool, []byte(args))
		if reason != c.reason {
			t.Errorf("%s calling %s: %q (%s), want %q", c.tenant, c.tool, reason, detail, c.reason)
		}
		if c.reason == events.ReasonPermission && c.tenant != "" && !strings.Contains(detail, c.tenant) {
			t.Errorf("permission detail %q does not name the tenant", detail)
		}
	}
	_, _, _, detail := r.Validate("acme", "orders.refund@1", []byte(`{}`))
	if !strings.Contains(detail, "versions: 2") {
		t.Errorf("unknown version detail = %q", detail)
	}
	_, _, _, detail = r.Validate("acme", "orders.cancel", []byte(`{}`))
	if !strings.Contains(detail, "orders.refund, weather.read") {
		t.Errorf("unknown tool detail = %q", detail)
	}
}

func TestValidateResult(t *testing.T) {
	r := mustParse(t, `tools: [{name: a, output_schema: {type: object, required: [ok]}}, {name: b}]`)
	a, _ := r.Lookup("a")
	if d := a.ValidateResult([]byte(`{"ok":1}`)); d != "" {
		t.Fatalf("valid result: %s", d)
	}
	if d := a.ValidateResult([]byte(`{}`)); !strings.Contains(d, "missing property 'ok'") {
		t.Fatalf("invalid result: %q", d)
	}
	if d := a.ValidateResult([]byte(`nope`)); !strings.Contains(d, "not JSON") {
		t.Fatalf("non-JSON result: %q", d)
	}
	b, _ := r.Lookup("b")
	if d := b.ValidateResult([]byte(`[1]`)); d != "" {
		t.Fatalf("no output schema: %q", d)
	}
}

// An input schema that accepts every object ({"type":"object"}, the
// default, {} or true) is not asked: the arguments are known to be one
// object by then. Validate answers as the schema would, and a schema that
// asks anything more of the object is asked.
func TestValidateAnyObjectSchema(t *testing.T) {
	r := mustParse(t, `
tools:
  - {name: none, side_effect: none}
  - {name: object, side_effect: none, input_schema: {type: object}}
  - {name: empty, side_effect: none, input_schema: {}}
  - {name: "yes", side_effect: none, input_schema: true}
  - {name: coerced, side_effect: none, coerce: true, input_schema: {type: object}}
  - {name: required, side_effect: none, input_schema: {type: object, required: [x]}}
  - {name: small, side_effect: none, input_schema: {type: object, maxProperties: 1}}
grants:
  - {tenant: acme, permissions: [none, object, empty, "yes", coerced, required, small]}
`)
	cases := []struct {
		tool, args string
		any        bool
		out        string // "" when refused
		reason     events.Reason
	}{
		{tool: "none", args: `{}`, any: true, out: `{}`},
		{tool: "none", args: ` {"b":[1,"2"],"a":{"c":null}} `, any: true, out: `{"a":{"c":null},"b":[1,"2"]}`},
		{tool: "none", args: `[1]`, any: true, reason: events.ReasonNotAnObject},
		{tool: "none", args: `"{}"`, any: true, reason: events.ReasonNotAnObject},
		{tool: "none", args: `{"a":`, any: true, reason: events.ReasonInvalidJSON},
		{tool: "object", args: `{"n":"12"}`, any: true, out: `{"n":"12"}`},
		{tool: "empty", args: `{"a":1}`, any: true, out: `{"a":1}`},
		{tool: "empty", args: `null`, any: true, reason: events.ReasonNotAnObject},
		{tool: "yes", args: `{"a":true}`, any: true, out: `{"a":true}`},
		{tool: "coerced", args: `{"n":"12"}`, any: true, out: `{"n":"12"}`},
		{tool: "required", args: `{}`, reason: events.ReasonSchemaViolation},
		{tool: "required", args: `{"x":1}`, out: `{"x":1}`},
		{tool: "small", args: `{"a":1,"b":2}`, reason: events.ReasonSchemaViolation},
		{tool: "small", args: `{"a":1}`, out: `{"a":1}`},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			tool, ok := r.Lookup(c.tool)
			if !ok {
				t.Fatalf("no tool %s", c.tool)
			}
			if got := registry.AnyObject(tool); got != c.any {
				t.Fatalf("schema %s taken as accepting every object: %v, want %v", tool.InputSchema, got, c.any)
			}
			out, _, reason, detail := r.Validate("acme", c.tool, []byte(c.args))
			if string(out) != c.out || reason != c.reason {
				t.Fatalf("Validate(%s) = %s %q %q; want %s %q", c.args, out, reason, detail, c.out, c.reason)
			}
		})
	}
}
