package toolsel_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/toolsel"
	"github.com/toolstream/toolstream/registry"
)

const spec = `
tools:
  - name: get_weather
    description: Current weather for a city.
    input_schema: {type: object, properties: {city: {type: string, description: "City name"}, unit: {type: string}}, required: [city]}
  - name: orders_refund
    description: Refund an order.
    input_schema: {type: object, properties: {order_id: {type: string}, amount: {type: number}}}
    idempotency: required
    side_effect: irreversible
    approval: required
  - name: orders_lookup
    description: Look up an order by id.
    input_schema: {type: object, properties: {order_id: {type: string}}}
  - name: shipping.quote
    description: Quote a shipping price for a parcel.
    input_schema: {type: object, properties: {carrier: {type: string}, weight_kg: {type: number}}}
  - name: calendar_add
    version: 1
    description: Old calendar.
  - name: calendar_add
    version: 2
    description: Add an event to the calendar.
    input_schema: {type: object, properties: {title: {type: string}, startsAt: {type: string, description: "ISO date"}}}
grants:
  - tenant: acme
    permissions: [get_weather, orders_lookup, shipping.quote, calendar_add]
`

func reg(t *testing.T) *registry.Registry {
	t.Helper()
	r, err := registry.Parse([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func names(ts []*registry.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, fmt.Sprintf("%s@%d", t.Name, t.Version))
	}
	return out
}

func TestAllowedIsTheTenantsToolsLatestVersion(t *testing.T) {
	r := reg(t)
	if got, want := names(toolsel.Allowed(r, "acme")), []string{"calendar_add@2", "get_weather@1", "orders_lookup@1", "shipping.quote@1"}; !slices.Equal(got, want) {
		t.Errorf("acme: %v, want %v", got, want)
	}
	if got := toolsel.Allowed(r, "other"); len(got) != 0 {
		t.Errorf("a tenant without grants gets %v", names(got))
	}
	if got := toolsel.Allowed(r, ""); len(got) != 5 {
		t.Errorf("the operator's export: %v, want 5 tools", names(got))
	}
}

func TestExportWritesEachFormatsShape(t *testing.T) {
	tools := toolsel.Allowed(reg(t), "acme")
	for _, tc := range []struct {
		format string
		path   func(v any) any // the first tool's name in the shape
		skip   []string
	}{
		{"openai", func(v any) any { return at(v, 0, "function", "name") }, nil},
		{"openai-responses", func(v any) any { return at(v, 0, "name") }, nil},
		{"anthropic", func(v any) any { return at(v, 0, "name") }, nil},
		{"gemini", func(v any) any { return at(v, 0, "functionDeclarations", 0, "name") }, nil},
		{"mcp", func(v any) any { return at(v, 0, "name") }, nil},
	} {
		t.Run(tc.format, func(t *testing.T) {
			ex, err := toolsel.Export(tc.format, tools)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(ex.Tools, &v); err != nil {
				t.Fatal(err)
			}
			if got := tc.path(v); got != "calendar_add" {
				t.Errorf("first tool's name %v in %s", got, ex.Tools)
			}
			if !slices.Equal(ex.Skipped, tc.skip) {
				t.Errorf("skipped %v, want %v", ex.Skipped, tc.skip)
			}
			if len(ex.Names)+len(ex.Skipped) != len(tools) {
				t.Errorf("names %v + skipped %v ≠ %d tools", ex.Names, ex.Skipped, len(tools))
			}
			// The schema is carried unchanged under the format's key.
			schemaKey := map[string][]any{"openai-chat": {0, "function", "parameters"}, "openai-responses": {0, "parameters"},
				"anthropic": {0, "input_schema"}, "gemini": {0, "functionDeclarations", 0, "parameters"}, "mcp": {0, "inputSchema"}}[ex.Format]
			if at(v, append(schemaKey, "properties", "title", "type")...) != "string" {
				t.Errorf("schema not under %v in %s", schemaKey, ex.Tools)
			}
		})
	}
	if _, err := toolsel.Export("cohere", tools); !errors.Is(err, toolsel.ErrUnknownFormat) {
		t.Errorf("unknown format: %v", err)
	}
	ex, err := toolsel.Export("gemini", nil)
	if err != nil || string(ex.Tools) != "[]" {
		t.Errorf("no tools: %s %v", ex.Tools, err)
	}
}

// A provider's format carries a dotted name as its wire name, which the
// registry maps back to the tool: the project's own weather.get style of
// name is exported, not left out, and a call the model makes by the
// exported name runs that tool. A name too long for the format even so is
// left out and named.
func TestExportCarriesDottedNamesAndMapsThemBack(t *testing.T) {
	r := reg(t)
	tools := toolsel.Allowed(r, "acme")
	for _, format := range []string{"openai", "openai-responses", "anthropic", "gemini", "mcp"} {
		ex, err := toolsel.Export(format, tools)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(ex.Names, "shipping.quote")
		if i < 0 {
			t.Fatalf("%s: shipping.quote not exported: names %v, skipped %v", format, ex.Names, ex.Skipped)
		}
		want := "shipping__quote"
		if format == "mcp" {
			want = "shipping.quote" // MCP's names take dots
		}
		if ex.Wire[i] != want || !strings.Contains(string(ex.Tools), `"`+want+`"`) {
			t.Errorf("%s: shipping.quote exported as %q in %s, want %q", format, ex.Wire[i], ex.Tools, want)
		}
		for j, w := range ex.Wire {
			if !toolsel.NameFits(ex.Format, w) {
				t.Errorf("%s: wire name %q does not fit the format", format, w)
			}
			got, ok := r.Lookup(w)
			if !ok || got.Name != ex.Names[j] {
				t.Errorf("%s: Lookup(%q) = %v, %v; want tool %s", format, w, got, ok, ex.Names[j])
			}
		}
	}
	long, err := registry.Parse([]byte("tools:\n  - name: " + strings.Repeat("a.", 40) + "b\n"))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := toolsel.Export("openai", toolsel.Allowed(long, ""))
	if err != nil || len(ex.Skipped) != 1 || len(ex.Names) != 0 {
		t.Errorf("a name too long once written for openai: names %v skipped %v, %v", ex.Names, ex.Skipped, err)
	}
}

func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		}
	}
	return v
}

func TestRankFindsTheToolByNameDescriptionAndParameters(t *testing.T) {
	tools := toolsel.Allowed(reg(t), "")
	for _, tc := range []struct{ query, first string }{
		{"What's the weather in Paris?", "get_weather"},
		{"please refund my order", "orders_refund"},
		{"look up order 42", "orders_lookup"},
		{"how much to ship a 3 weight_kg parcel with a carrier", "shipping.quote"},
		{"add a meeting that startsAt noon", "calendar_add"}, // a parameter's name, split at its case change
		{"which city", "get_weather"},                        // a parameter's name only
	} {
		r := toolsel.Rank(tools, tc.query)
		if r[0].Tool.Name != tc.first || r[0].Score <= 0 {
			t.Errorf("%q: first %s (%.3f), want %s", tc.query, r[0].Tool.Name, r[0].Score, tc.first)
		}
		if len(r) != len(tools) {
			t.Errorf("%q: %d ranked of %d", tc.query, len(r), len(tools))
		}
	}
	// No matching word: every tool scores 0, in name order.
	r := toolsel.Rank(tools, "zzz")
	for i, s := range r {
		if s.Score != 0 || i > 0 && r[i-1].Tool.Name > s.Tool.Name {
			t.Errorf("no match: %d %s %.3f", i, s.Tool.Name, s.Score)
		}
	}
}

func TestSelectKeepsTheMostRelevantWhenThereAreTooMany(t *testing.T) {
	var b strings.Builder
	b.WriteString("tools:\n")
	for i := range 30 {
		fmt.Fprintf(&b, "  - name: filler_%02d\n    description: Does filler thing number %d.\n", i, i)
	}
	b.WriteString("  - name: get_weather\n    description: Current weather for a city.\n")
	r, err := registry.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	tools := toolsel.Allowed(r, "")
	got := toolsel.Select(tools, "weather in Oslo", 0)
	if len(got) != toolsel.ToolsMax || got[0].Name != "get_weather" {
		t.Errorf("selected %d, first %s", len(got), got[0].Name)
	}
	if again := toolsel.Select(tools, "weather in Oslo", 0); !slices.Equal(names(got), names(again)) {
		t.Errorf("two selections differ: %v / %v", names(got), names(again))
	}
	if few := toolsel.Select(tools[:5], "weather", 20); len(few) != 5 {
		t.Errorf("under the max: %d tools, want all 5", len(few))
	}
	if k := toolsel.Select(tools, "weather", 3); len(k) != 3 || k[0].Name != "get_weather" {
		t.Errorf("k=3: %v", names(k))
	}
}

// A model may declare what a call waits for: the OpenAI formats offer
// $depends_on (positions of the response's calls) beside each tool's own
// properties, whose schema is otherwise carried as it is; Anthropic's and
// Gemini's rules refuse '$' in a property name (Anthropic the whole request
// for it), so theirs offer it as ts_depends_on, a name both take; an MCP
// call is a response of its own, so MCP carries the schema unchanged.
func TestExportOffersDependsOnWhereTheFormatAllows(t *testing.T) {
	propName := regexp.MustCompile(`^[a-zA-Z0-9_]{1,64}$`) // Gemini's, within Anthropic's
	tools := toolsel.Allowed(reg(t), "acme")
	schemaKey := map[string][]any{"openai-chat": {"function", "parameters"}, "openai-responses": {"parameters"},
		"anthropic": {"input_schema"}, "gemini": {"parameters"}, "mcp": {"inputSchema"}}
	for _, format := range toolsel.Formats {
		ex, err := toolsel.Export(format, tools)
		if err != nil {
			t.Fatal(err)
		}
		var v []any
		if err := json.Unmarshal(ex.Tools, &v); err != nil {
			t.Fatal(err)
		}
		if format == toolsel.FormatGemini {
			v = at(v, 0, "functionDeclarations").([]any)
		}
		field := map[string]string{"openai-chat": "$depends_on", "openai-responses": "$depends_on", "anthropic": "ts_depends_on", "gemini": "ts_depends_on"}[format]
		if got := toolsel.DependsOnFieldOf(format); got != field {
			t.Errorf("%s: field %q, want %q", format, got, field)
		}
		if field == "ts_depends_on" && !propName.MatchString(field) {
			t.Errorf("%s: %s is no property name the format takes", format, field)
		}
		offered := field != ""
		for i, name := range ex.Names {
			schema := at(v, append([]any{i}, schemaKey[format]...)...)
			dep := at(schema, "properties", field)
			if (dep != nil) != offered {
				t.Errorf("%s %s: $depends_on offered %v, want %v: %v", format, name, dep != nil, offered, schema)
				continue
			}
			want := tools[slices.IndexFunc(tools, func(x *registry.Tool) bool { return x.Name == name })].InputSchema
			var own map[string]any
			json.Unmarshal(want, &own)
			got := schema.(map[string]any)
			if offered {
				if at(dep, "type") != "array" || at(dep, "items", "type") != "integer" || !strings.Contains(fmt.Sprint(at(dep, "description")), "position") {
					t.Errorf("%s %s: $depends_on is %v", format, name, dep)
				}
				props := got["properties"].(map[string]any)
				delete(props, field)
				if len(props) == 0 && own["properties"] == nil {
					delete(got, "properties")
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(own) {
				t.Errorf("%s %s: schema %v, want the tool's own %v (besides $depends_on)", format, name, got, own)
			}
		}
	}
	// A tool that declares $depends_on itself keeps its own meaning.
	r, err := registry.Parse([]byte(`
tools:
  - name: plan_step
    input_schema: {type: object, properties: {$depends_on: {type: string}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := toolsel.Export("openai", toolsel.Allowed(r, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ex.Tools), `"$depends_on":{"type":"string"}`) {
		t.Errorf("the tool's own $depends_on was replaced: %s", ex.Tools)
	}
}
