package executor

import (
	"sort"
	"time"
)

// Breaker is the state of one circuit of this process's breaker (a tenant
// and a tool with failed invocations): consecutive failures and, when
// open, until when calls fail fast.
type Breaker struct {
	Tenant    string    `json:"tenant"`
	Tool      string    `json:"tool"`
	Failures  int       `json:"failures"`
	State     string    `json:"state"` // closed (failures below the threshold), open, half_open
	OpenUntil time.Time `json:"open_until,omitzero"`
}

// Breakers returns the circuits with failures, by tenant and tool. A
// circuit missing here is closed with no failures.
func (e *Executor) Breakers() []Breaker {
	return e.breaker.snapshot()
}

func (b *breaker) snapshot() []Breaker {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock()
	out := make([]Breaker, 0, len(b.m))
	for k, c := range b.m {
		br := Breaker{Tenant: k.tenant, Tool: k.tool, Failures: c.fails, State: "closed"}
		switch {
		case c.openUntil.IsZero():
		case now.Before(c.openUntil):
			br.State, br.OpenUntil = "open", c.openUntil
		default:
			br.State = "half_open"
		}
		out = append(out, br)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tenant != out[j].Tenant {
			return out[i].Tenant < out[j].Tenant
		}
		return out[i].Tool < out[j].Tool
	})
	return out
}
