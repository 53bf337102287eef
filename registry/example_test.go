package registry_test

import (
	"fmt"

	"github.com/toolstream/toolstream/registry"
)

func ExampleRegistry_Validate() {
	r, err := registry.Parse([]byte(`
tools:
  - name: weather.read
    side_effect: none
    coerce: true
    input_schema: {type: object, properties: {city: {type: string}, days: {type: integer}}, required: [city]}
grants:
  - tenant: acme
    permissions: [weather.read]
`))
	if err != nil {
		panic(err)
	}
	out, coerced, reason, _ := r.Validate("acme", "weather.read", []byte(`{"city": "Paris", "days": "3"}`))
	fmt.Println(string(out), coerced, reason == "")
	_, _, reason, detail := r.Validate("acme", "weather.read", []byte(`{"days": 3}`))
	fmt.Println(reason, "—", detail)
	_, _, reason, _ = r.Validate("globex", "weather.read", []byte(`{"city": "Paris"}`))
	fmt.Println(reason)
	// Output:
	// {"city":"Paris","days":3} [/days] true
	// schema_violation — the arguments do not match the input schema of weather.read: at the top level: missing property 'city'
	// permission_denied
}
