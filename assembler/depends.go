package assembler

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// DependsOnField is the reserved top-level field of a call's arguments in
// which a producer that plans calls names the calls this one waits for (a
// list of calls of the same response, each by its call id or by its
// position: 1 is the response's first call). It is taken out of the
// arguments before validation, so a tool's strict schema never sees it, and
// travels as CallCompleted.DependsOn (call ids: a position is resolved to
// the id of the call at it).
//
// A position is what a model can write: the provider gives a call its id
// after the model wrote the call, so a model naming a call of the same
// response knows its place, not its id.
const DependsOnField = "$depends_on"

// DependsOnAlias is DependsOnField under a name the providers that refuse
// '$' in a property name take (Anthropic: ^[a-zA-Z0-9_.-]{1,64}$; Gemini:
// letters, digits and underscores): the tools given to those models offer
// it. It is read as DependsOnField, unless the call's tool declares a
// property of that name itself (ArgumentDeclarer), whose arguments are
// then the tool's. A call naming both is refused.
const DependsOnAlias = "ts_depends_on"

// ArgumentDeclarer is what a Validator may also say: whether a tool's input
// schema declares a top-level property. registry.Registry does.
type ArgumentDeclarer interface {
	DeclaresArgument(tool, field string) bool
}

// DependsOnMax bounds how many calls one call may name in DependsOnField.
const DependsOnMax = 64

// dependencies takes DependsOnField out of a call's raw arguments and
// checks it: a list of call ids, each of a call the model gave before this
// one in the same response (so a cycle cannot be written, and a dependency
// that does not exist is known at once, not after a wait). It returns the
// arguments without the field, the dependencies, and a reason and detail
// when the list is refused (invalid_dependency).
func (s *step) dependencies(c *call, raw []byte) ([]byte, []string, events.Reason, string) {
	if !bytes.Contains(raw, []byte(`"`+DependsOnField+`"`)) && !bytes.Contains(raw, []byte(`"`+DependsOnAlias+`"`)) {
		return raw, nil, "", ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(raw), &obj) != nil {
		return raw, nil, "", "" // not one JSON object: validation says why
	}
	name := DependsOnField
	field, ok := obj[DependsOnField]
	if alias, has := obj[DependsOnAlias]; has {
		if d, isD := s.a.validator.(ArgumentDeclarer); !isD || !d.DeclaresArgument(c.Name, DependsOnAlias) {
			if ok {
				delete(obj, DependsOnField)
				delete(obj, DependsOnAlias)
				stripped, _ := json.Marshal(obj)
				return stripped, nil, events.ReasonInvalidDependency, fmt.Sprintf("the call names its dependencies twice, in %s and %s; keep one", DependsOnField, DependsOnAlias)
			}
			name, field, ok = DependsOnAlias, alias, true
		}
	}
	if !ok {
		return raw, nil, "", ""
	}
	delete(obj, name)
	stripped, err := json.Marshal(obj)
	if err != nil {
		return raw, nil, "", ""
	}
	var list []json.RawMessage
	if json.Unmarshal(field, &list) != nil || len(list) > DependsOnMax {
		return stripped, nil, events.ReasonInvalidDependency, fmt.Sprintf("%s must be a list of at most %d calls, each a call id or a position (1 is this response's first call)", name, DependsOnMax)
	}
	self := c.CallID
	earlier, named, err := s.earlierCalls(c)
	if err != nil {
		return stripped, nil, events.ReasonInvalidDependency, err.Error()
	}
	deps := make([]string, 0, len(list))
	for _, e := range list {
		var id string
		if json.Unmarshal(e, &id) == nil {
			deps = append(deps, id)
			continue
		}
		var pos int
		if json.Unmarshal(e, &pos) != nil {
			return stripped, nil, events.ReasonInvalidDependency, fmt.Sprintf("%s names %s, which is neither a call id nor a position (1 is this response's first call)", name, bound(e))
		}
		switch {
		case pos == len(named)+1:
			return stripped, nil, events.ReasonInvalidDependency, fmt.Sprintf("the call depends on itself (position %d); remove it from %s", pos, name)
		case pos < 1 || pos > len(named):
			return stripped, nil, events.ReasonInvalidDependency, fmt.Sprintf(
				"the call depends on position %d, and it is call %d of this response; a call may wait only for calls given before it", pos, len(named)+1)
		}
		deps = append(deps, named[pos-1])
	}
	for _, d := range deps {
		switch {
		case d == self || d == s.ev.Item:
			return stripped, nil, events.ReasonInvalidDependency, fmt.Sprintf("the call depends on itself (%s); remove it from %s", d, name)
		case !slices.Contains(earlier, d):
			known := "none"
			if len(named) > 0 {
				known = strings.Join(named, ", ")
			}
			return stripped, nil, events.ReasonInvalidDependency, fmt.Sprintf(
				"the call depends on %s, which is not a call made before it in this response (calls before it: %s); a call may wait only for calls given before it", d, known)
		}
	}
	slices.Sort(deps)
	return stripped, slices.Compact(deps), "", ""
}

// earlierCalls lists the ids a dependency may name — the call ids and
// item ids of the calls of the response opened before c — and each of
// those calls once (its call id, else its item), in order: named[p-1] is
// the call at position p.
func (s *step) earlierCalls(c *call) (ids, named []string, err error) {
	prefix, err := callsPrefix(s.ev.Tenant, s.ev.Response)
	if err != nil {
		return nil, nil, err
	}
	type seen struct {
		order int
		ids   []string
	}
	var calls []seen
	err = s.tx.Scan(prefix, func(k, _ []byte) error {
		var other call
		if ok, err := load(s.tx, k, &other); err != nil || !ok {
			return err
		}
		if other.Order < c.Order {
			ids := []string{itemOf(k)}
			if other.CallID != "" {
				ids = []string{other.CallID, itemOf(k)}
			}
			calls = append(calls, seen{other.Order, ids})
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(calls, func(a, b seen) int { return a.order - b.order })
	for _, x := range calls {
		ids = append(ids, x.ids...)
		named = append(named, x.ids[0])
	}
	return ids, named, nil
}

// SideEffects is what a Validator may also say: whether a tool's contract
// declares no side effect (side_effect: none). registry.Registry does.
type SideEffects interface {
	SideEffectFree(name string) bool
}

// serialAfter says which call a completed call c runs after:
// calls of one response without declared dependencies whose tools
// have side effects run one after another, in the order the model gave
// them; a read-only tool's call (side_effect none) and a call that
// declares its dependencies do not wait for them. It returns the id of the
// last such call decided before c in the response (nil when there is
// none), and marks c as one of them. Without a registry that says side
// effects (no registry at all) nothing is ordered.
//
// Calls are decided in the order the model gave them in every provider's
// stream (Chat's at its finish, in order), so the last one decided before
// c is the one the model gave before it; each waits for the one before,
// which makes a chain.
func (s *step) serialAfter(c *call, deps []string) ([]string, error) {
	se, ok := s.a.validator.(SideEffects)
	if !ok || len(deps) > 0 || se.SideEffectFree(c.Name) {
		return nil, nil
	}
	c.Serial = true
	prefix, err := callsPrefix(s.ev.Tenant, s.ev.Response)
	if err != nil {
		return nil, err
	}
	last, lastOrder := "", -1
	err = s.tx.Scan(prefix, func(k, _ []byte) error {
		var other call
		if ok, err := load(s.tx, k, &other); err != nil || !ok {
			return err
		}
		if other.Serial && other.Order < c.Order && other.Order > lastOrder {
			last, lastOrder = cmp.Or(other.CallID, itemOf(k)), other.Order
		}
		return nil
	})
	if err != nil || last == "" {
		return nil, err
	}
	return []string{last}, nil
}

// bound is a JSON value as a rejection quotes it: at most 40 bytes.
func bound(v json.RawMessage) string {
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}
