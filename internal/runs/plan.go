package runs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Plan is a run's plan as its driver writes it (JSON). The projection
// reads the steps' evidence (Accept) and the budget; the rest is the
// driver's own and kept as written.
type Plan struct {
	Goal     string     `json:"goal,omitempty"`
	Steps    []Step     `json:"steps,omitempty"`
	Blockers []string   `json:"blockers,omitempty"`
	Recovery string     `json:"recovery,omitempty"`
	Budget   PlanBudget `json:"budget,omitempty"`
}

// PlanBudget is what a plan may spend: Rounds of the run (0: the
// projection's RoundsMax) and Replans, the replan triggers the driver acts
// on before it ends the run (0: the driver's default).
type PlanBudget struct {
	Rounds  int `json:"rounds,omitempty"`
	Replans int `json:"replans,omitempty"`
}

// ParsePlan reads and checks a plan as the projection does (see
// parsePlan); an error says what is wrong, for the model to fix.
func ParsePlan(b []byte) (*Plan, error) { return parsePlan(b) }

// Step is one step of a plan.
type Step struct {
	ID        string   `json:"id"`
	Goal      string   `json:"goal,omitempty"`
	DependsOn []string `json:"depends_on,omitempty"`
	// Accept is the evidence that accepts the step: a result of Tool whose
	// value at Pointer (a JSON pointer) exists and, when Equals is given,
	// equals it. A result of Tool whose value there differs from Equals
	// contradicts what the plan assumed.
	Accept *Evidence `json:"accept,omitempty"`
}

// Evidence names a value of a tool's result.
type Evidence struct {
	Tool    string          `json:"tool"`
	Pointer string          `json:"pointer"`
	Equals  json.RawMessage `json:"equals,omitempty"`
}

// planBytesMax bounds a plan.
const planBytesMax = 64 << 10

// parsePlan reads and checks a plan: one JSON object, at most
// planBytesMax, steps with distinct ids whose dependencies name steps of
// the plan and form no cycle.
func parsePlan(b []byte) (*Plan, error) {
	if len(b) > planBytesMax {
		return nil, fmt.Errorf("the plan has %d bytes, more than %d", len(b), planBytesMax)
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("the plan must be one JSON object")
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("the plan is not a plan: %v", err)
	}
	if p.Budget.Rounds < 0 || p.Budget.Replans < 0 {
		return nil, fmt.Errorf("a budget is a whole number >= 0")
	}
	index := map[string]int{}
	for i, s := range p.Steps {
		if s.ID == "" {
			return nil, fmt.Errorf("step %d has no id", i)
		}
		if _, dup := index[s.ID]; dup {
			return nil, fmt.Errorf("two steps are named %q", s.ID)
		}
		index[s.ID] = i
		if s.Accept != nil && (s.Accept.Tool == "" || s.Accept.Pointer != "" && s.Accept.Pointer[0] != '/') {
			return nil, fmt.Errorf("step %q: accept needs a tool and a JSON pointer (/a/0/b)", s.ID)
		}
	}
	for _, s := range p.Steps {
		for _, d := range s.DependsOn {
			if _, ok := index[d]; !ok {
				return nil, fmt.Errorf("step %q depends on %q, which is not a step of the plan", s.ID, d)
			}
		}
	}
	// A cycle: depth-first, in step order (deterministic).
	state := make([]int, len(p.Steps)) // 0 new, 1 on the path, 2 done
	var visit func(i int) error
	visit = func(i int) error {
		state[i] = 1
		for _, d := range p.Steps[i].DependsOn {
			j := index[d]
			if state[j] == 1 {
				return fmt.Errorf("steps %q and %q depend on each other", p.Steps[i].ID, d)
			}
			if state[j] == 0 {
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		state[i] = 2
		return nil
	}
	for i := range p.Steps {
		if state[i] == 0 {
			if err := visit(i); err != nil {
				return nil, err
			}
		}
	}
	return &p, nil
}

// pointer returns the value at ptr (RFC 6901) in doc.
func pointer(doc []byte, ptr string) (json.RawMessage, bool) {
	cur := json.RawMessage(doc)
	if ptr == "" {
		return cur, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		t := bytes.TrimSpace(cur)
		if len(t) == 0 {
			return nil, false
		}
		switch t[0] {
		case '{':
			var m map[string]json.RawMessage
			if json.Unmarshal(t, &m) != nil {
				return nil, false
			}
			v, ok := m[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case '[':
			var arr []json.RawMessage
			i, err := strconv.Atoi(tok)
			if json.Unmarshal(t, &arr) != nil || err != nil || i < 0 || i >= len(arr) {
				return nil, false
			}
			cur = arr[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return bytes.Equal(ca, cb)
}
