package registry_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/registry"
)

// A provider's API carries a dotted or coloned name as its wire name; a
// call by that name validates as the tool's and runs its contract, and a
// tools file in which two names share a wire name is refused, so the way
// back is never ambiguous.
func TestWireNameMapsBack(t *testing.T) {
	for name, want := range map[string]string{
		"weather.get": "weather__get", "crm:lookup.v2": "crm_-lookup__v2", "get_weather": "get_weather", "a-b": "a-b",
	} {
		if got := registry.WireName(name); got != want {
			t.Errorf("WireName(%q) = %q, want %q", name, got, want)
		}
	}
	r, err := registry.Parse([]byte(`
tools:
  - name: weather.get
    side_effect: none
    input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
grants:
  - tenant: acme
    permissions: [weather.get]
`))
	if err != nil {
		t.Fatal(err)
	}
	tool, ok := r.Lookup("weather__get")
	if !ok || tool.Name != "weather.get" {
		t.Fatalf("Lookup(weather__get) = %v, %v", tool, ok)
	}
	if tool, ok := r.Lookup("weather__get@1"); !ok || tool.Name != "weather.get" {
		t.Errorf("Lookup(weather__get@1) = %v, %v", tool, ok)
	}
	if _, _, reason, detail := r.Validate("acme", "weather__get", []byte(`{"city":"Oslo"}`)); reason != "" {
		t.Errorf("a call by the wire name: %s %s", reason, detail)
	}
	if _, _, reason, _ := r.Validate("acme", "weather__get", []byte(`{}`)); reason == "" {
		t.Error("a call by the wire name escaped the tool's schema")
	}
	if _, ok := r.Lookup("weather_get"); ok {
		t.Error("a name that is no tool's wire name was found")
	}

	for _, clash := range [][2]string{{"a.b", "a__b"}, {"p.q.r", "p__q.r"}, {"x:y", "x_-y"}} {
		_, err := registry.Parse([]byte("tools:\n  - name: " + clash[0] + "\n  - name: " + clash[1] + "\n"))
		var fe *registry.FieldError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "one name to a provider") {
			t.Errorf("%s and %s: %v, want a FieldError saying they are one name", clash[0], clash[1], err)
		}
	}
}
