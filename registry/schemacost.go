package registry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A schema has a budget too. Compiling and applying a schema costs time
// more than linear in its size (a chain of 20000 $refs takes seconds to
// compile and a second to apply once), and the subschemas applied at one
// place of a value multiply through $ref, allOf, anyOf, oneOf, not,
// if/then/else and dependentSchemas: eight levels of ten $refs are 10^8
// applications for one string. So Parse refuses a schema of more than
// SchemaValuesMax JSON values before compiling it, and one that applies
// more than SchemaFanOutMax subschemas at one place, or has a cycle of
// applications at one place, after; and Validate refuses arguments whose
// values times the fan-out of the tool's schema exceed ValidateStepsMax,
// before the schema library sees them.
const (
	// SchemaValuesMax bounds the JSON values (objects, arrays, strings,
	// numbers…) of one input or output schema.
	SchemaValuesMax = 16384
	// SchemaFanOutMax bounds the subschemas applied at one place of a value.
	SchemaFanOutMax = 256
	// ValidateStepsMax bounds the values of a call's arguments times the
	// fan-out of its tool's input schema (about a second of validation).
	ValidateStepsMax = 1 << 22
)

// schemaFanOut returns the most subschemas s applies at one place of a
// value, and an error when s is over its budget.
func schemaFanOut(s *jsonschema.Schema) (int, error) {
	var nodes []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var visit func(c *jsonschema.Schema)
	visit = func(c *jsonschema.Schema) {
		if seen[c] {
			return
		}
		seen[c] = true
		nodes = append(nodes, c)
		for _, d := range children(c, false) {
			visit(d)
		}
	}
	visit(s)
	const inProgress = -1
	cost := map[*jsonschema.Schema]int{}
	var apply func(c *jsonschema.Schema) (int, error)
	apply = func(c *jsonschema.Schema) (int, error) {
		switch n, ok := cost[c]; {
		case ok && n == inProgress:
			return 0, fmt.Errorf("%s applies itself to the same value (a $ref cycle)", c.Location)
		case ok:
			return n, nil
		}
		cost[c] = inProgress
		n := 1
		for _, d := range children(c, true) {
			m, err := apply(d)
			if err != nil {
				return 0, err
			}
			n = min(n+m, SchemaFanOutMax+1) // saturate: only "too many" matters
		}
		cost[c] = n
		return n, nil
	}
	most := 0
	for _, c := range nodes {
		n, err := apply(c)
		if err != nil {
			return 0, err
		}
		if n > SchemaFanOutMax {
			return 0, fmt.Errorf("%s applies more than %d subschemas to one value (through $ref, allOf, anyOf, oneOf, not, if/then/else)", c.Location, SchemaFanOutMax)
		}
		most = max(most, n)
	}
	return most, nil
}

// children returns the subschemas of s: with sameValue, only those applied
// to the value s is applied to; otherwise all of them.
func children(s *jsonschema.Schema, sameValue bool) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, d := range s.DependentSchemas {
		out = append(out, d)
	}
	for _, d := range s.Dependencies {
		if d, ok := d.(*jsonschema.Schema); ok {
			out = append(out, d)
		}
	}
	if !sameValue {
		out = append(out, s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema)
		for _, d := range s.Properties {
			out = append(out, d)
		}
		for _, d := range s.PatternProperties {
			out = append(out, d)
		}
		out = append(out, s.PrefixItems...)
		for _, a := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
			switch a := a.(type) {
			case *jsonschema.Schema:
				out = append(out, a)
			case []*jsonschema.Schema:
				out = append(out, a...)
			}
		}
	}
	kept := out[:0]
	for _, d := range out {
		if d != nil {
			kept = append(kept, d)
		}
	}
	// In document order, whatever the maps' order: the error names the
	// same schema every time (a refusal in the log replays the same).
	slices.SortFunc(kept, func(a, b *jsonschema.Schema) int { return strings.Compare(a.Location, b.Location) })
	return kept
}
