package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
)

// Name is the runs projection's name.
const Name = "runs"

// Config configures the runs projection. The zero value is usable.
type Config struct {
	// DegradeAfter is the number of calls in a row that fail or are
	// rejected after which a run degrades; default 3.
	DegradeAfter int
	// TenantDegradeAfter overrides DegradeAfter per tenant.
	TenantDegradeAfter map[string]int
	// RoundsMax is a run's budget of rounds when its plan names none
	// (plan.budget.rounds); default 8. A replan is suggested when one
	// round or less is left.
	RoundsMax int
	// ResultInlineMax bounds a result written into a tool-result message;
	// a larger one is referenced (its summary and where the whole is).
	// Default 16 KiB.
	ResultInlineMax int
}

func (c *Config) setDefaults() {
	if c.DegradeAfter <= 0 {
		c.DegradeAfter = 3
	}
	if c.RoundsMax <= 0 {
		c.RoundsMax = 8
	}
	if c.ResultInlineMax <= 0 {
		c.ResultInlineMax = 16 << 10
	}
}

// Projection is the runs projection (see the package doc).
type Projection struct{ cfg Config }

// New returns the runs projection.
func New(cfg Config) *Projection {
	cfg.setDefaults()
	return &Projection{cfg: cfg}
}

var _ projector.Projection = (*Projection)(nil)

// Name implements projector.Projection.
func (*Projection) Name() string { return Name }

// Subjects implements projector.Projection: the response outcomes, the
// results and the runs' own stream, all in TS_OUT.
func (*Projection) Subjects() []string {
	return []string{events.AllResponses, events.AllResults, events.AllRuns}
}

// Apply implements projector.Projection.
func (p *Projection) Apply(tx *projector.Tx, m *projector.Msg) error {
	ev, err := m.Event()
	if err != nil {
		return err
	}
	switch ev.Body.(type) {
	case *events.ResponseOutcome, *events.CallSucceeded, *events.CallFailed, *events.RunCall, *events.PlanWritten, *events.RunMessage, *events.RunEnded:
	default:
		return nil // answers, ticks, what this projection emitted itself
	}
	runID := events.RunOf(ev)
	if runID == "" {
		return fmt.Errorf("%w: %s without run or response id", events.ErrMissingField, ev.Kind)
	}
	a := &apply{p: p, tx: tx, m: m, ev: ev}
	if err := a.loadRun(runID); err != nil {
		return err
	}
	switch b := ev.Body.(type) {
	case *events.PlanWritten:
		return a.plan(b)
	case *events.RunMessage:
		return a.message(b)
	case *events.RunEnded:
		return a.ended(b)
	}
	if ev.Response == "" {
		return fmt.Errorf("%w: %s without response id", events.ErrMissingField, ev.Kind)
	}
	if err := a.loadRound(); err != nil {
		return err
	}
	changed := false
	switch b := ev.Body.(type) {
	case *events.ResponseOutcome:
		changed = a.outcome(b)
	case *events.RunCall:
		changed = a.call(b)
	case *events.CallSucceeded:
		changed = a.result(CallSucceeded, b.Name, b.Key, "", "", b)
	case *events.CallFailed:
		st := CallFailed
		switch b.Error {
		case events.ErrApprovalDenied:
			st = CallDenied
		case events.ErrOutcomeUnknown:
			st = CallUnknown
		}
		changed = a.result(st, b.Name, b.Key, b.Error, b.Message, nil)
	}
	if !changed {
		return nil
	}
	if err := a.maybeSettle(); err != nil {
		return err
	}
	return a.save()
}

// apply is the application of one event to one run.
type apply struct {
	p       *Projection
	tx      *projector.Tx
	m       *projector.Msg
	ev      *events.Event
	run     Run
	runK    []byte
	round   *Round
	roundK  []byte
	newRun  bool
	settled bool
}

func (a *apply) loadRun(id string) error {
	k, err := runKey(a.ev.Tenant, id)
	if err != nil {
		return err
	}
	a.runK = k
	found, err := load(a.tx, k, &a.run)
	if err != nil {
		return err
	}
	if !found {
		a.newRun = true
		a.run = Run{Tenant: a.ev.Tenant, ID: id, Status: StatusRunning, FirstAt: a.ev.At}
	}
	if a.run.User == "" {
		a.run.User = a.ev.User
	}
	if a.run.Session == "" {
		a.run.Session = a.ev.Session
	}
	return nil
}

// loadRound finds (or opens) the round of the event's response.
func (a *apply) loadRound() error {
	t, resp := a.ev.Tenant, a.ev.Response
	ik, err := roundIndexKey(t, a.run.ID, resp)
	if err != nil {
		return err
	}
	var n int
	found, err := load(a.tx, ik, &n)
	if err != nil {
		return err
	}
	if found {
		if a.roundK, err = turnKey(t, a.run.ID, n); err != nil {
			return err
		}
		var tu turn
		ok, err := load(a.tx, a.roundK, &tu)
		if err != nil {
			return err
		}
		if !ok || tu.Round == nil {
			return fmt.Errorf("runs: round of %s/%s/%s indexed at turn %d is missing", t, a.run.ID, resp, n)
		}
		a.round = tu.Round
		return nil
	}
	a.run.Rounds++
	a.run.Turns++
	a.run.OpenRounds++
	a.run.Ended, a.run.EndReason, a.run.EndDetail = "", "", "" // driven again
	a.round = &Round{N: a.run.Rounds, Turn: a.run.Turns, Response: resp, Expected: -1}
	if a.roundK, err = turnKey(t, a.run.ID, a.run.Turns); err != nil {
		return err
	}
	return store(a.tx, ik, a.run.Turns)
}

// save stores the run and its round with a new version.
func (a *apply) save() error {
	a.run.Version++
	a.run.LastAt, a.run.LastSeq = a.ev.At, a.m.Seq
	a.run.Status = statusOf(&a.run)
	if a.round != nil {
		if err := store(a.tx, a.roundK, &turn{Round: a.round}); err != nil {
			return err
		}
	}
	if err := store(a.tx, a.runK, &a.run); err != nil {
		return err
	}
	if a.settled {
		return a.emitSettled()
	}
	return nil
}

// statusOf derives the run's status from its rounds, and from how its
// driver stopped driving it (run.ended) when no round is open.
func statusOf(r *Run) Status {
	switch {
	case r.OpenRounds > 0 && r.Waiting > 0:
		return StatusWaitingApproval
	case r.OpenRounds == 0 && r.Ended != "":
		return r.Ended
	case r.OpenRounds > 0 || r.Settled == 0:
		return StatusRunning
	}
	switch r.Last {
	case events.RoundAnswered:
		return StatusAnswered
	case events.RoundFailed:
		return StatusFailed
	}
	if r.Degraded {
		return StatusDegraded
	}
	return StatusSettled
}

// outcome records the assembler's verdict on the round's response.
func (a *apply) outcome(b *events.ResponseOutcome) bool {
	rd := a.round
	if rd.Expected >= 0 {
		return false // decided once
	}
	rd.Expected = b.Calls
	rd.Ended, rd.EndReason = b.Status, b.Reason
	rd.EndError = b.ErrorCode
	if b.ErrorMessage != "" {
		rd.EndError += ": " + b.ErrorMessage
	}
	rd.Text = b.Text
	if u := b.Usage; u != (events.Usage{}) {
		rd.Usage = u
		a.run.InputTokens += u.Input
		a.run.OutputTokens += u.Output
	}
	if b.Provider != "" {
		rd.Format = b.Provider
		a.run.Format = b.Provider
	}
	return true
}

// callOf returns the round's call of the event's item, adding it.
func (a *apply) callOf() *Call {
	item := a.ev.Item
	if item == "" {
		item = a.ev.CallID
	}
	for i := range a.round.Calls {
		if a.round.Calls[i].Item == item {
			return &a.round.Calls[i]
		}
	}
	a.round.Calls = append(a.round.Calls, Call{Item: item, CallID: a.ev.CallID, Order: orderUnknown, State: CallPending})
	return &a.round.Calls[len(a.round.Calls)-1]
}

// orderUnknown sorts a call whose decision has not arrived last.
const orderUnknown = 1 << 30

func (a *apply) sortCalls() {
	slices.SortStableFunc(a.round.Calls, func(x, y Call) int {
		if x.Order != y.Order {
			return x.Order - y.Order
		}
		switch {
		case x.Item < y.Item:
			return -1
		case x.Item > y.Item:
			return 1
		}
		return 0
	})
}

// setState moves a call to st, keeping the run's count of waiting calls.
func (a *apply) setState(c *Call, st CallState) {
	if c.State == CallWaiting {
		a.run.Waiting--
	}
	if st == CallWaiting {
		a.run.Waiting++
	}
	c.State = st
}

// call applies a decision copied into the run's stream (RunCall).
func (a *apply) call(b *events.RunCall) bool {
	c := a.callOf()
	if c.CallID == "" {
		c.CallID = a.ev.CallID
	}
	if b.Name != "" && c.Name == "" {
		c.Name = b.Name
	}
	if b.Key != "" {
		c.Key = b.Key
	}
	switch b.Verdict {
	case events.CallVerdictCompleted, events.CallVerdictRejected, events.CallVerdictIncomplete:
		if c.Decided {
			return false
		}
		c.Decided, c.Name, c.Order = true, b.Name, b.Order
		c.Arguments, c.DependsOn, c.Bytes = b.Arguments, b.DependsOn, b.Bytes
		c.Reason, c.Detail = b.Reason, b.Detail
		a.sortCalls()
		c = a.callByItem(c.Item)
		if terminal(c.State) {
			return true // its result came first
		}
		switch {
		case b.Verdict == events.CallVerdictCompleted && b.Builtin:
			// The run's driver runs it and publishes its outcome.
			c.Step = a.ev.Step
			if c.State == CallPending {
				a.setState(c, CallRunning)
			}
		case b.Verdict == events.CallVerdictCompleted && b.ClientRuns:
			a.setState(c, CallClient)
		case b.Verdict == events.CallVerdictRejected:
			a.setState(c, CallRejected)
		case b.Verdict == events.CallVerdictIncomplete:
			a.setState(c, CallIncomplete)
		default:
			if c.State == CallPending {
				a.setState(c, CallRunning)
			}
		}
		return true
	case events.CallVerdictApproval:
		if terminal(c.State) || c.State == CallWaiting {
			return b.Key != ""
		}
		a.setState(c, CallWaiting)
		return true
	case events.CallVerdictApproved:
		if c.State != CallWaiting {
			return false
		}
		a.setState(c, CallRunning)
		return true
	}
	return false
}

func (a *apply) callByItem(item string) *Call {
	for i := range a.round.Calls {
		if a.round.Calls[i].Item == item {
			return &a.round.Calls[i]
		}
	}
	return nil
}

// result applies a call's outcome from the executor (or, for a built-in
// tool's call, the driver). The first wins. An outcome of a built-in tool
// for a call of a real tool (or the reverse) changes nothing: the driver's
// role publishes built-in tools' outcomes only, and names the call it
// likes (docs/security.md).
func (a *apply) result(st CallState, name, key string, et events.ErrorType, msg string, ok *events.CallSucceeded) bool {
	c := a.callOf()
	if terminal(c.State) {
		return false
	}
	if c.Name != "" && events.IsBuiltinTool(c.Name) != events.IsBuiltinTool(name) {
		return false
	}
	if c.Name == "" {
		c.Name = name
	}
	if c.CallID == "" {
		c.CallID = a.ev.CallID
	}
	c.Key = key
	a.setState(c, st)
	c.Error, c.Message = et, msg
	if ok != nil {
		c.Result, c.Summary, c.RawRef = ok.Result, ok.Summary, ok.RawRef
		if len(ok.Result) > 0 {
			sum := sha256.Sum256(ok.Result)
			c.Digest = hex.EncodeToString(sum[:16])
		}
	}
	return true
}

// maybeSettle settles the round when its response ended and every call it
// made has its outcome.
func (a *apply) maybeSettle() error {
	rd := a.round
	if rd.Status != "" || rd.Expected < 0 {
		return nil
	}
	decided := 0
	for _, c := range rd.Calls {
		if !c.Decided {
			continue
		}
		if !terminal(c.State) {
			return nil
		}
		decided++
	}
	if decided < rd.Expected {
		return nil
	}
	switch {
	case rd.Expected > 0:
		rd.Status = events.RoundCalled
	case rd.Ended == events.StatusCompleted:
		rd.Status = events.RoundAnswered
	default:
		rd.Status = events.RoundFailed
	}
	if rd.Format == "" {
		rd.Format = a.run.Format
	}
	if rd.Format == "" {
		rd.Format = FormatChat
	}
	a.run.OpenRounds--
	a.run.Settled++
	a.run.Last = rd.Status
	for _, c := range rd.Calls {
		if !c.Decided {
			continue
		}
		a.run.Calls++
		if failure(c.State) {
			a.run.FailuresInRow++
			a.run.Failures++
		} else {
			a.run.FailuresInRow = 0
			a.run.Degraded = false
		}
	}
	if rd.Expected > 0 {
		n, err := a.countNewEvidence()
		if err != nil {
			return err
		}
		rd.NewEvidence = n
		if n == 0 {
			a.run.NoNewEvidence++
		} else {
			a.run.NoNewEvidence = 0
		}
	}
	a.settled = true
	return nil
}

// plan applies a plan write against the version it read.
func (a *apply) plan(b *events.PlanWritten) error {
	k, err := planKey(a.ev.Tenant, a.run.ID, a.m.Seq)
	if err != nil {
		return err
	}
	v := PlanVerdict{Version: a.run.Version}
	switch {
	case b.Expected != a.run.Version:
		v.Reason, v.Detail = RefusedStale, fmt.Sprintf("written against version %d; the run is at version %d: read it again", b.Expected, a.run.Version)
	default:
		if _, err := parsePlan(b.Plan); err != nil {
			v.Reason, v.Detail = RefusedInvalidPlan, err.Error()
		}
	}
	if v.Reason != "" {
		return store(a.tx, k, &v)
	}
	a.run.Plan = json.RawMessage(b.Plan)
	a.run.PlanVersion = a.run.Version + 1
	if err := a.save(); err != nil {
		return err
	}
	v.Applied, v.Version = true, a.run.Version
	return store(a.tx, k, &v)
}

// message applies an input turn.
func (a *apply) message(b *events.RunMessage) error {
	if b.Role != "" && b.Role != "user" {
		return fmt.Errorf("%w: run message role %q (want user)", events.ErrMalformed, b.Role)
	}
	if b.Format != "" {
		if !KnownFormat(b.Format) {
			return fmt.Errorf("%w: run message format %q (want one of %v)", events.ErrMalformed, b.Format, Formats)
		}
		a.run.Format = b.Format
	}
	if b.Parent != "" && a.run.Parent == "" && b.Parent != a.run.ID {
		if err := a.link(b.Parent); err != nil {
			return err
		}
	}
	a.run.Turns++
	a.run.LastInput = a.run.Turns
	a.run.Ended, a.run.EndReason, a.run.EndDetail = "", "", "" // a new turn opens it again
	k, err := turnKey(a.ev.Tenant, a.run.ID, a.run.Turns)
	if err != nil {
		return err
	}
	if err := store(a.tx, k, &turn{Input: &Input{Turn: a.run.Turns, Role: "user", Text: b.Text}}); err != nil {
		return err
	}
	return a.save()
}

// ended records that the run's driver stopped driving it short of an
// answer. Only a run the log knows ends; the status must be one a driver
// stops with.
func (a *apply) ended(b *events.RunEnded) error {
	if a.newRun {
		return fmt.Errorf("%w: run %s ended before anything of it was recorded", events.ErrMalformed, a.run.ID)
	}
	switch st := Status(b.Status); st {
	case StatusFailed, StatusCancelled:
		a.run.Ended, a.run.EndReason, a.run.EndDetail = st, b.Reason, b.Detail
	default:
		return fmt.Errorf("%w: run ended with status %q (want failed or cancelled)", events.ErrMalformed, b.Status)
	}
	return a.save()
}

// link records that the run is a child of parent: in the run and in the
// parent's children (a change of the parent, so a new version of it).
func (a *apply) link(parent string) error {
	a.run.Parent = parent
	pk, err := runKey(a.ev.Tenant, parent)
	if err != nil {
		return err
	}
	var p Run
	found, err := load(a.tx, pk, &p)
	if err != nil {
		return err
	}
	if !found || slices.Contains(p.Children, a.run.ID) {
		return nil // a parent the view does not know is named in the child only
	}
	p.Children = append(p.Children, a.run.ID)
	p.Version++
	return store(a.tx, pk, &p)
}
