package executor

import (
	"strings"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// Fair to every tenant (docs/design.md). The executor's inputs come from
// one durable consumer in log order, and each held input takes one of the
// executor's InFlightMax slots while it waits for its dependencies, for a
// tenant slot or runs. Without a bound per tenant, one tenant's calls could
// hold every slot — calls waiting up to DependencyWaitMax on calls that
// never finish, say — and no other tenant's call would be taken until they
// ended. So each tenant holds at most heldMax inputs being handled and
// waitMax more waiting for their dependencies: past the first, an input is
// handed back at once, unread; past the second, a call that would wait is
// handed back. Both go back with NakWithDelay(busyDelay), and the consumer
// goes on delivering the inputs behind them, other tenants' among them. A
// call waiting for its dependencies is not counted among those handled, so
// the calls it waits for, the tenant's own, can still come in.
//
// How long a handed-back input waits (busyDelay, handback.go) is drawn
// below a bound that doubles with each of its deliveries: Heartbeat/64 on
// its first, Heartbeat from its seventh on. A tenant's burst of quick
// calls (a response's calls, a run's fan-out) is held up for a few
// milliseconds past its bound, not a whole Heartbeat each time it comes
// back while the burst drains — a burst of 1,000 calls of one tenant
// took seconds of such waits. The bound stops at Heartbeat, or a second
// where Heartbeat is shorter (handback.go says why).
//
// A slot is only borrowed past the share for a call that gives it back at
// once: past heldMax, a tenant's input is still taken when its tool is an
// Immediate Go tool (it runs on its handler and returns, so the slot is
// free again within the call's handling) and the inputs held by every
// tenant leave a whole share (heldMax slots) to the others. A burst of one
// tenant's quick calls with nobody else about then runs on all but a
// share of the slots instead of being handed back again and again (in the
// whole-path bench, 1,000 no-op calls of one tenant went through more
// than 1,000 hand-backs, some inputs eight times, the last of those
// waits a whole Heartbeat). Any other tool may hold its slot for its
// whole timeout, so a tenant's calls to it stop at heldMax: tenants that
// come later, however many, each find a share free as long as there are
// slots for one (TestAThirdTenantAfterTwoFloodsGetsItsShare). The tool is
// read from the call's subject: a Go tool name the contract gives an
// HTTP, MCP or command implementation is the operator's error, and its
// calls would borrow as an Immediate tool's do.
//
// What the handing back can reach is the consumer's window
// (MaxAckPending, 4 × InFlightMax inputs delivered and not acknowledged):
// a call behind more of one tenant's backlog than that waits for the
// backlog to shrink. The assembler's quotas bound how fast a tenant's
// calls can come (events per second, calls open at once).

// heldMax is the most inputs one tenant may have handled at once: a
// quarter of the slots, or as many as its tenant slots where that is more
// (up to half), at least one.
func heldMax(inFlight, parallel int) int {
	return max(1, inFlight/4, min(parallel, inFlight/2))
}

// waitMax is the most calls of one tenant waiting for their dependencies
// at once: an eighth of the slots, at least one.
func waitMax(inFlight int) int { return max(1, inFlight/8) }

// held counts each tenant's inputs held by this executor.
type held struct {
	max, waitMax int
	slots        int // InFlightMax
	mu           sync.Mutex
	n, w         map[string]int // handled, waiting: only tenants with some
	all          int            // the sum of n and w over every tenant
}

func newHeld(inFlight, parallel int) *held {
	return &held{max: heldMax(inFlight, parallel), waitMax: waitMax(inFlight), slots: inFlight, n: map[string]int{}, w: map[string]int{}}
}

// take counts one more input of tenant; false, counting nothing, when the
// tenant has heldMax handled already and either the input may not borrow
// (its tool is not Immediate) or one more would leave fewer than heldMax
// slots unheld for the other tenants.
func (h *held) take(tenant string, borrow bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n[tenant] >= h.max && (!borrow || h.all+1 > h.slots-h.max) {
		return false
	}
	h.n[tenant]++
	h.all++
	return true
}

// give counts one input of tenant fewer.
func (h *held) give(tenant string) {
	h.mu.Lock()
	dec(h.n, tenant)
	h.all--
	h.mu.Unlock()
}

// park moves a taken input of tenant to those waiting for their
// dependencies; false when waitMax wait already.
func (h *held) park(tenant string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.w[tenant] >= h.waitMax {
		return false
	}
	h.w[tenant]++
	dec(h.n, tenant)
	return true
}

// unpark moves it back, whatever the tenant has handled meanwhile.
func (h *held) unpark(tenant string) {
	h.mu.Lock()
	dec(h.w, tenant)
	h.n[tenant]++
	h.mu.Unlock()
}

func dec(m map[string]int, k string) {
	if m[k]--; m[k] <= 0 {
		delete(m, k)
	}
}

// subjectTenant is the tenant and tool tokens of a call subject
// (ts.call.<tenant>.<tool>); "" when there is none. The envelope is not
// read yet: whether it agrees with the subject is decided when the input
// is handled (events.DecodeAt).
func subjectTenant(subject string) (tenant, tool string) {
	rest, ok := strings.CutPrefix(subject, events.CallsPrefix)
	if !ok {
		return "", ""
	}
	tenant, tool, _ = strings.Cut(rest, ".")
	return tenant, tool
}

// immediateTokens is the subject tokens of the Go tools in tools that are
// Immediate, by name (a "name@version" key gives its name).
func immediateTokens(tools map[string]Tool) map[string]bool {
	set := map[string]bool{}
	for ref, impl := range tools {
		if _, ok := impl.(Immediate); ok {
			name, _, _ := strings.Cut(ref, "@")
			set[events.Token(name)] = true
		}
	}
	return set
}

// fairly handles m with handle when m's tenant holds fewer than heldMax
// inputs, or may borrow a slot (fair.go's doc), and hands it back otherwise.
func (e *Executor) fairly(m jetstream.Msg, handle func(jetstream.Msg)) {
	tenant, tool := subjectTenant(m.Subject())
	if !e.held.take(tenant, e.immediate[tool]) {
		m.NakWithDelay(e.busyDelay(m))
		return
	}
	defer e.held.give(tenant)
	handle(m)
}

// park counts the call among its tenant's calls waiting for their
// dependencies while it waits; when waitMax wait already, the input is
// handed back (errHandBack, the nak already sent with busyDelay's delay).
// The returned func ends the wait.
func (j *job) park() (func(), error) {
	if !j.e.held.park(j.tenant) {
		j.nak(j.e.busyDelay(j.carrier))
		return nil, errHandBack
	}
	return func() { j.e.held.unpark(j.tenant) }, nil
}
