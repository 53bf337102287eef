package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
)

// Call states, as the Calls page shows them: the assembler's decision, then
// what the executors did with a completed call.
const (
	StateRejected   = "rejected"
	StateIncomplete = "incomplete"
	StateCompleted  = "completed" // decided, not yet taken by an executor
	StateAwaiting   = "awaiting_approval"
	StateRunning    = "running"
	StateSucceeded  = "succeeded"
	StateFailed     = "failed"
)

// Call is one call as the console shows it.
type Call struct {
	Key       string    `json:"key"`
	Tenant    string    `json:"tenant"`
	Tool      string    `json:"tool"`
	Response  string    `json:"response_id"`
	Item      string    `json:"item_id,omitempty"`
	CallID    string    `json:"call_id,omitempty"`
	State     string    `json:"state"`
	Reason    string    `json:"reason,omitempty"`    // a rejection's or incompleteness's reason, a failure's error type
	Detail    string    `json:"detail,omitempty"`    // what the reason says, a failure's message, a result's summary
	Arguments string    `json:"arguments,omitempty"` // canonical JSON (or the raw bytes of a rejected call)
	Attempts  int       `json:"attempts,omitempty"`
	Executor  string    `json:"executor,omitempty"` // the last lease holder
	Decision  string    `json:"decision,omitempty"` // approved or denied
	DecidedBy string    `json:"decided_by,omitempty"`
	Why       string    `json:"decision_reason,omitempty"`
	First     time.Time `json:"first"` // stream time of its first event
	Last      time.Time `json:"last"`  // of its latest
	Order     uint64    `json:"order"` // the console's order of arrival
}

// Answer is one verified answer: its text and its claims' verdicts.
type Answer struct {
	Tenant       string                `json:"tenant"`
	Response     string                `json:"response_id"`
	Text         string                `json:"text"`
	Claims       []events.ClaimVerdict `json:"claims"`
	Faithfulness float64               `json:"faithfulness"`
	Policy       string                `json:"policy"`
	Repaired     string                `json:"repaired,omitempty"`
	Blocked      bool                  `json:"blocked,omitempty"`
	At           time.Time             `json:"at"`
	Order        uint64                `json:"order"`
}

// update is one change pushed to the pages.
type update struct {
	tenant string
	kind   string // call, answer
	data   []byte // JSON
}

// feed follows the log into the bounded tables of calls and answers.
type feed struct {
	callsMax, answersMax int

	mu      sync.Mutex
	order   uint64
	calls   map[string]*Call // by key
	answers map[string]*Answer
	texts   map[string]string // tenant/response → the answer text, until its AnswerVerified
	textOrd []string
	subs    map[chan update]Grant
	caught  bool
}

// feedKinds are what the console reads: never the model deltas.
var feedKinds = []client.Kind{client.KindCalls, client.KindExecutions, client.KindDecisions, client.KindResults,
	client.KindResponses, client.KindAnswers}

func newFeed(callsMax, answersMax int) *feed {
	return &feed{callsMax: callsMax, answersMax: answersMax, calls: map[string]*Call{}, answers: map[string]*Answer{},
		texts: map[string]string{}, subs: map[chan update]Grant{}}
}

// run follows every tenant's activity (client.Activity) from the start of
// the log until ctx ends.
func (f *feed) run(ctx context.Context, c *client.Client) error {
	for a, err := range c.Activity(ctx, client.AllTenants, feedKinds, client.Follow()) {
		var me *client.MalformedError
		if errors.As(err, &me) {
			continue // the projections record bad input
		}
		if err != nil {
			return fmt.Errorf("console: follow the log: %w", err)
		}
		f.apply(a)
	}
	return nil
}

// apply takes one activity; its time is when the log stored it.
func (f *feed) apply(a client.Activity) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := a.Meta()
	at := m.Stored.UTC()
	switch {
	case a.Call != nil:
		c := f.call(m.CallKey(), m, a.Call.Tool, at)
		switch a.Call.Outcome {
		case client.CallCompleted:
			c.Arguments = string(a.Call.Arguments)
			if c.State == "" {
				c.State = StateCompleted
			}
		case client.CallRejected:
			c.State, c.Reason, c.Detail, c.Arguments = StateRejected, string(a.Call.Reason), a.Call.Detail, string(a.Call.Arguments)
		case client.CallIncomplete:
			c.State, c.Reason, c.Detail, c.Arguments = StateIncomplete, string(a.Call.Reason), a.Call.Detail, string(a.Call.Arguments)
		}
		f.push(c)
	case a.Approval != nil:
		c := f.call(a.Approval.Key, m, a.Approval.Tool, at)
		if c.Arguments == "" {
			c.Arguments = string(a.Approval.Arguments)
		}
		if c.Decision == "" && !terminal(c.State) {
			c.State = StateAwaiting
		}
		f.push(c)
	case a.Decision != nil:
		c := f.call(m.CallKey(), m, "", at)
		c.Decision, c.DecidedBy, c.Why = "denied", a.Decision.By, a.Decision.Reason
		if a.Decision.Approved {
			c.Decision = "approved"
		}
		if c.State == StateAwaiting {
			c.State = StateCompleted
		}
		f.push(c)
	case a.Execution != nil:
		c := f.call(a.Execution.Key, m, a.Execution.Tool, at)
		c.Attempts = max(c.Attempts, a.Execution.Attempt)
		c.Executor = a.Execution.Executor
		if !terminal(c.State) {
			c.State = StateRunning
		}
		f.push(c)
	case a.Result != nil:
		r := a.Result
		c := f.call(r.Key, m, r.Tool, at)
		if r.OK {
			c.State, c.Reason, c.Detail = StateSucceeded, "", r.Summary
		} else {
			c.State, c.Reason, c.Detail = StateFailed, string(r.Error), r.Message
		}
		c.Attempts = max(c.Attempts, r.Attempts)
		f.push(c)
	case a.Response != nil:
		if a.Response.Text != "" {
			f.text(m.Tenant, m.Response, a.Response.Text)
		}
	case a.Answer != nil:
		f.text(m.Tenant, m.Response, a.Answer.Text)
	case a.Verdict != nil && a.Verdict.Verified != nil:
		b := a.Verdict.Verified
		k := m.Tenant + "/" + m.Response
		f.order++
		an := &Answer{Tenant: m.Tenant, Response: m.Response, Text: f.texts[k], Claims: b.Claims, Faithfulness: b.Faithfulness,
			Policy: b.Policy, Repaired: b.Repaired, Blocked: b.Blocked, At: at, Order: f.order}
		f.answers[k] = an
		if len(f.answers) > f.answersMax {
			evictOldest(f.answers, func(a *Answer) uint64 { return a.Order })
		}
		f.send(update{tenant: an.Tenant, kind: "answer", data: mustJSON(an)})
	}
}

func terminal(state string) bool {
	return state == StateSucceeded || state == StateFailed || state == StateRejected || state == StateIncomplete
}

// call returns the call of key, made from m when new.
func (f *feed) call(key string, m client.Meta, tool string, at time.Time) *Call {
	c, ok := f.calls[key]
	if !ok {
		c = &Call{Key: key, Tenant: m.Tenant, First: at}
		f.calls[key] = c
		if len(f.calls) > f.callsMax {
			evictOldest(f.calls, func(c *Call) uint64 { return c.Order })
		}
	}
	f.order++
	c.Order, c.Last = f.order, at
	if tool != "" {
		c.Tool = tool
	}
	if m.Response != "" && c.Response == "" {
		c.Response = m.Response
	}
	if m.Item != "" {
		c.Item = m.Item
	}
	if m.CallID != "" && c.CallID == "" {
		c.CallID = m.CallID
	}
	if c.Response == "" && m.Step != "" {
		c.Response = m.Step // a call without a run: its step is its response
	}
	return c
}

// text remembers an answer's text for its verdicts, a bounded number.
func (f *feed) text(tenant, response, text string) {
	k := tenant + "/" + response
	if _, ok := f.texts[k]; !ok {
		f.textOrd = append(f.textOrd, k)
	}
	f.texts[k] = text
	if a, ok := f.answers[k]; ok && a.Text == "" {
		a.Text = text
		f.send(update{tenant: a.Tenant, kind: "answer", data: mustJSON(a)})
	}
	for len(f.textOrd) > f.answersMax*4 {
		delete(f.texts, f.textOrd[0])
		f.textOrd = f.textOrd[1:]
	}
}

// evictOldest drops the oldest tenth of m (by order), so eviction costs a
// sort once in a while, not at every event.
func evictOldest[T any](m map[string]T, order func(T) uint64) {
	type ko struct {
		k string
		o uint64
	}
	all := make([]ko, 0, len(m))
	for k, v := range m {
		all = append(all, ko{k, order(v)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].o < all[j].o })
	for _, e := range all[:len(all)/10+1] {
		delete(m, e.k)
	}
}

func (f *feed) push(c *Call) {
	f.send(update{tenant: c.Tenant, kind: "call", data: mustJSON(c)})
}

// send gives u to every subscriber that sees its tenant; one too slow to
// keep up is dropped (its page reconnects and reloads).
func (f *feed) send(u update) {
	for ch, g := range f.subs {
		if !g.Sees(u.tenant) {
			continue
		}
		select {
		case ch <- u:
		default:
			delete(f.subs, ch)
			close(ch)
		}
	}
}

func (f *feed) subscribe(g Grant) chan update {
	ch := make(chan update, 256)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs[ch] = g
	return ch
}

func (f *feed) unsubscribe(ch chan update) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[ch]; ok {
		delete(f.subs, ch)
		close(ch)
	}
}

// CallFilter selects calls; empty fields select all.
type CallFilter struct {
	Tenant, Tool, State string
	Since               time.Time
	Limit               int
}

// list returns the calls g sees that match flt, newest first, and the
// counts by state of all that match but for the state.
func (f *feed) list(g Grant, flt CallFilter) ([]Call, map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	counts := map[string]int{}
	var out []Call
	for _, c := range f.calls {
		if !g.Sees(c.Tenant) || (flt.Tenant != "" && c.Tenant != flt.Tenant) || (flt.Tool != "" && c.Tool != flt.Tool) ||
			(!flt.Since.IsZero() && c.Last.Before(flt.Since)) {
			continue
		}
		counts[c.State]++
		if flt.State != "" && c.State != flt.State {
			continue
		}
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].First.After(out[j].First) || (out[i].First.Equal(out[j].First) && out[i].Order > out[j].Order)
	})
	if flt.Limit > 0 && len(out) > flt.Limit {
		out = out[:flt.Limit]
	}
	return out, counts
}

// answerList returns the answers g sees (of tenant, when given), newest
// first.
func (f *feed) answerList(g Grant, tenant string, limit int) []Answer {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Answer
	for _, a := range f.answers {
		if g.Sees(a.Tenant) && (tenant == "" || a.Tenant == tenant) {
			out = append(out, *a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Order > out[j].Order })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("console: marshal %T: %v", v, err)) // our own types always marshal
	}
	return data
}
