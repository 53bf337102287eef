package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/hear"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/internal/toolsel"
	"github.com/toolstream/toolstream/registry"
)

// failedRoundsMax is how many model responses in a row may fail (or be cut
// without calls) before the drive gives up: one retry covers a response
// cut by a crash of the previous driver.
const failedRoundsMax = 2

// loop drives the run while this driver holds its lease.
//
// lead is how many messages at the start of the run's history are the
// user messages of spec's conversation (sent as they are instead).
//
// query is the run's latest user message, what the user's memory is
// recalled for, once for this drive's rounds.
func (d *Driver) loop(ctx context.Context, spec *Spec, held *runs.Held, lead int, query string) (*Outcome, error) {
	body, err := parseBody(spec.Body)
	if err != nil {
		return nil, err
	}
	conv, err := clientConversation(spec.Format, body)
	if err != nil {
		return nil, err
	}
	// Wake up on what the runs projection emits for the run (RoundSettled
	// and the calls' copies); the poll covers what it does not announce.
	subj, err := events.RunSubject(spec.Tenant, spec.Run)
	if err != nil {
		return nil, err
	}
	// Wake-ups are coalesced: one pending is as good as many (any of them
	// has the run read again), so the subscription never falls behind,
	// where a channel of messages filled up while a round was asked and
	// the client dropped the rest as a slow consumer.
	// A wake-up is followed by rechecks (internal/hear): the run's event can
	// be heard before it is stored.
	runHeard, err := hear.Subject(d.cfg.Conn, subj, d.cfg.ServiceTimeout)
	if err != nil {
		return nil, fmt.Errorf("agent: hear the run: %w", err)
	}
	defer runHeard.Close()
	wake := runHeard.C()
	poll := time.NewTicker(d.cfg.Poll)
	defer poll.Stop()
	wait := func() error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-held.Lost():
			return nil
		case <-wake:
		case <-poll.C:
		}
		return nil
	}
	cancelled := func() (*Outcome, error) {
		return &Outcome{Run: spec.Run, Status: StatusCancelled, Reason: ReasonClientDisconnected}, nil
	}
	// The round this drive started, until the view shows it: by its
	// response id, or as a round more than the view had (an upstream may
	// name its response otherwise than the ingest adapter reads it).
	var lastStarted string
	var startedAt time.Time
	var cache runCache            // what this drive read of the run (runs.go)
	var recalled []RecalledMemory // what the latest round this drive asked was given
	var memText string            // recalled for query, once (memRecalled)
	memRecalled := false
	roundsBefore := 0
	acted := map[string]bool{} // built-in calls whose outcome this drive published
	roundsMax := d.cfg.RoundsMax
	if spec.RoundsMax > 0 {
		roundsMax = spec.RoundsMax
	}
	for {
		if ctx.Err() != nil {
			return cancelled()
		}
		if !held.Valid() {
			return &Outcome{Run: spec.Run, Status: StatusFailed, Reason: ReasonLeaseLost, Detail: "another driver took the run over; it finishes it"}, nil
		}
		st, err := d.state(ctx, spec.Tenant, spec.Run, &cache)
		if err != nil {
			if ctx.Err() != nil {
				return cancelled()
			}
			return nil, err
		}
		if lastStarted != "" && !hasRound(st, lastStarted) && len(st.Rounds) <= roundsBefore {
			if time.Since(startedAt) > d.cfg.RecordWait {
				return &Outcome{Run: spec.Run, Status: StatusFailed, Reason: ReasonNotRecorded, Rounds: len(st.Rounds),
					Detail: "the model answered (response " + lastStarted + ") but the runs view did not show the round within " + d.cfg.RecordWait.String()}, nil
			}
			if err := wait(); err != nil {
				return cancelled()
			}
			continue
		}
		lastStarted = ""
		var last *runs.Round
		if n := len(st.Rounds); n > 0 {
			last = &st.Rounds[n-1]
		}
		switch {
		case last != nil && last.Status == "":
			if out, err := d.builtins(ctx, spec, st, last, acted); err != nil || out != nil {
				if ctx.Err() != nil {
					return cancelled()
				}
				return out, err
			}
			if st.Run.Status == runs.StatusWaitingApproval {
				decided, err := d.decided(ctx, spec.Tenant, last)
				if err != nil {
					return nil, err
				}
				if !decided {
					return waiting(spec.Run, st, last), nil
				}
				// A person decided and the runs view has not caught up: the
				// client that resumes right after the approval is not told
				// the run still waits.
			}
			if err := wait(); err != nil {
				return cancelled()
			}
			continue
		case last != nil && last.Status == events.RoundAnswered && last.Turn > st.Run.LastInput:
			out, err := d.answer(ctx, spec, st, last)
			if out != nil {
				out.Recalled = recalled
			}
			return out, err
		case failedInRow(turnRounds(st)) >= failedRoundsMax:
			return &Outcome{Run: spec.Run, Status: StatusFailed, Reason: ReasonResponseFailed, Rounds: len(st.Rounds), Response: last.Response,
				Detail: fmt.Sprintf("the model's last %d responses failed or were cut without calls: %s %s", failedRoundsMax, last.Ended, last.EndError)}, nil
		case len(turnRounds(st)) >= budgetRounds(roundsMax, planOf(st)):
			return &Outcome{Run: spec.Run, Status: StatusFailed, Reason: ReasonRoundsExhausted, Rounds: len(st.Rounds), Response: last.Response,
				Detail: fmt.Sprintf("%d rounds and the model still calls tools", len(turnRounds(st)))}, nil
		case spec.TokensMax > 0 && st.Run.InputTokens+st.Run.OutputTokens >= spec.TokensMax:
			return &Outcome{Run: spec.Run, Status: StatusFailed, Reason: ReasonTokensExhausted, Rounds: len(st.Rounds), Response: last.Response, Usage: turnUsage(st),
				Detail: fmt.Sprintf("%d tokens used of the %d its parent gave it", st.Run.InputTokens+st.Run.OutputTokens, spec.TokensMax)}, nil
		}
		// The plan and the replan triggers of the last round.
		pl := planOf(st)
		var trig []runs.Signal
		used, budget := 0, d.replanBudget(pl)
		if pl != nil {
			trig, used = triggers(st), replansUsed(st)
		}
		if len(trig) > 0 && used > budget {
			return &Outcome{Run: spec.Run, Status: StatusFailed, Reason: ReasonReplansExhausted, Rounds: len(st.Rounds), Response: last.Response, Usage: turnUsage(st),
				Detail: fmt.Sprintf("replan trigger %d (%s) past the plan's budget of %d replans", used, signalName(trig[0]), budget)}, nil
		}
		n := len(st.Rounds) + 1
		degraded := st.Run.Degraded || st.Run.Status == runs.StatusDegraded
		answerOnly := degraded || len(turnRounds(st))+1 >= budgetRounds(roundsMax, pl)
		// The user's memory for the latest user message, recalled once for
		// it: the tool rounds that follow ask the same question, and a
		// recall reads every active record of the user.
		if !memRecalled {
			memText, recalled, err = d.recall(ctx, *spec, query)
			if err != nil {
				if ctx.Err() != nil {
					return cancelled()
				}
				return nil, err
			}
			memRecalled = true
		}
		recs := recalled
		mbody, mconv, err := withMemory(spec.Format, body, conv, memText)
		if err != nil {
			return nil, err
		}
		note := planNote(st, pl, trig, used, budget, answerOnly)
		if mbody, mconv, err = withMemory(spec.Format, mbody, mconv, note); err != nil {
			return nil, err
		}
		req, err := d.roundBody(ctx, spec, st, &cache, mbody, mconv, lead, answerOnly, (len(note)+3)/4)
		if err != nil {
			return nil, err
		}
		if len(recs) > 0 {
			d.log.Info("memory recalled into the round", "tenant", spec.Tenant, "run", spec.Run, "round", n, "records", len(recs))
		}
		if !held.Valid() {
			continue // said above
		}
		d.log.Debug("round", "tenant", spec.Tenant, "run", spec.Run, "round", n, "answer_only", answerOnly)
		res, err := d.cfg.Model.Round(ctx, Round{Spec: spec, N: n, Step: "round-" + strconv.Itoa(n), Body: req})
		if ctx.Err() != nil {
			return cancelled()
		}
		if err != nil {
			return &Outcome{Run: spec.Run, Status: StatusFailed, Reason: ReasonUpstreamError, Rounds: n - 1, Detail: err.Error()}, nil
		}
		if res.Status != http.StatusOK {
			return &Outcome{Run: spec.Run, Status: StatusFailed, Reason: ReasonUpstreamError, Rounds: n - 1, Upstream: res,
				Detail: fmt.Sprintf("the upstream answered round %d with status %d", n, res.Status)}, nil
		}
		lastStarted, startedAt, roundsBefore = cmpOr(res.Response, "(unnamed)"), time.Now(), n-1
	}
}

// turnRounds are the rounds asked since the run's last user message.
func turnRounds(st *state) []runs.Round {
	for i, r := range st.Rounds {
		if r.Turn > st.Run.LastInput {
			return st.Rounds[i:]
		}
	}
	return nil
}

// turnUsage adds up the tokens of the rounds asked since the run's last
// user message: what the request that ends with them cost.
func turnUsage(st *state) events.Usage {
	var u events.Usage
	for _, r := range st.Rounds {
		if r.Turn > st.Run.LastInput {
			u.Input += r.Usage.Input
			u.Output += r.Usage.Output
		}
	}
	return u
}

// hasRound reports whether the view shows the round of response.
func hasRound(st *state, response string) bool {
	for _, r := range st.Rounds {
		if r.Response == response {
			return true
		}
	}
	return false
}

// failedInRow counts the settled rounds at the end that failed.
func failedInRow(rs []runs.Round) int {
	n := 0
	for i := len(rs) - 1; i >= 0 && rs[i].Status == events.RoundFailed; i-- {
		n++
	}
	return n
}

func waiting(run string, st *state, rd *runs.Round) *Outcome {
	out := &Outcome{Run: run, Status: StatusWaitingApproval, Response: rd.Response, Rounds: len(st.Rounds), Usage: turnUsage(st)}
	for _, c := range rd.Calls {
		if c.State == runs.CallWaiting {
			wc := WaitingCall{CallID: c.CallID, Name: c.Name, Key: c.Key}
			if json.Valid(c.Arguments) {
				wc.Arguments = json.RawMessage(c.Arguments)
			}
			out.Waiting = append(out.Waiting, wc)
		}
	}
	return out
}

// roundBody writes the next round's request: the client's conversation,
// the run's tool rounds so far, and the tools the tenant may call now.
//
// noteTokens is what the plan note costs: the history's budget less it.
func (d *Driver) roundBody(ctx context.Context, spec *Spec, st *state, c *runCache, body map[string]jsonRaw, conv []jsonRaw, lead int, answerOnly bool, noteTokens int) ([]byte, error) {
	budget := d.cfg.HistoryBudgetTokens
	if budget > 0 {
		budget = max(budget-noteTokens, 1)
	}
	msgs, err := d.historyMessages(ctx, spec.Tenant, spec.Run, spec.Format, st, c, budget)
	if err != nil {
		return nil, err
	}
	// The history begins with the client's first messages, which conv
	// holds as the client sent them.
	hist := msgs[min(lead, len(msgs)):]
	reg := d.cfg.Registry()
	var tools []*registry.Tool
	if spec.Parent != "" {
		// A child run: the tools its parent gave it, and no others.
		tools = toolsel.NewIndex(givenTools(reg, spec)).Select(conversationText(conv), d.cfg.ToolsMax)
	} else {
		tools = d.index(reg, spec.Tenant).Select(conversationText(conv), d.cfg.ToolsMax)
	}
	ex, err := toolsel.Export(toolsFormat(spec.Format), tools)
	if err != nil {
		return nil, err
	}
	if ex.Tools, err = withBuiltins(ex.Tools, spec.Format, d.plans(spec), d.delegates(spec)); err != nil {
		return nil, err
	}
	if len(ex.Skipped) > 0 {
		d.log.Warn("tools left out: the provider does not take their names", "tenant", spec.Tenant, "tools", strings.Join(ex.Skipped, ","))
	}
	return roundBody(spec.Format, body, conv, hist, ex.Tools, answerOnly)
}

// answer reads the model's answer and the verifier's verdict on it, and
// applies the tenant's policy as the verifier decided it.
func (d *Driver) answer(ctx context.Context, spec *Spec, st *state, rd *runs.Round) (*Outcome, error) {
	out := &Outcome{Run: spec.Run, Status: StatusAnswered, Response: rd.Response, Rounds: len(st.Rounds), Degraded: st.Run.Degraded, Usage: turnUsage(st)}
	ro, err := d.runs.Closed(ctx, spec.Tenant, rd.Response)
	switch {
	case err == nil:
		out.Text = ro.Text
	case !errors.Is(err, client.ErrNotFound):
		return nil, fmt.Errorf("agent: the response %s: %w", rd.Response, err)
	}
	if strings.TrimSpace(out.Text) == "" {
		return out, nil // nothing to verify
	}
	// The answer against the user's constraints in force at its time: the
	// verdict to read is then the one that applies the check.
	constrained, err := d.checkConstraints(ctx, spec, rd.Response, out.Text, ro.At)
	if err != nil && ctx.Err() != nil {
		// The run is answered: only this client's wait ends.
		out.Text, out.Blocked, out.Reason = "", true, ReasonClientDisconnected
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	deadline := time.NewTimer(d.cfg.VerifyWait)
	defer deadline.Stop()
	// Wake up when the verifier publishes on the response's answer subject
	// (heard before the first read, so a verdict published meanwhile is
	// either read or heard); the poll covers an identity that may not hear
	// it.
	// A wake-up is followed by rechecks (internal/hear): the verdict can be
	// heard before it is stored, and read only after.
	var verdict <-chan struct{}
	if subj, err := events.AnswerSubject(spec.Tenant, rd.Response); err == nil {
		if h, err := hear.Subject(d.cfg.Conn, subj, d.cfg.ServiceTimeout); err == nil {
			defer h.Close()
			verdict = h.C()
		}
	}
	poll := time.NewTicker(d.cfg.Poll)
	defer poll.Stop()
	for {
		v, err := d.runs.LastVerdict(ctx, spec.Tenant, rd.Response)
		if err != nil && !errors.Is(err, client.ErrNotFound) {
			return nil, fmt.Errorf("agent: the verdict on %s: %w", rd.Response, err)
		}
		if av := v.Verified; av != nil && (av.ConstraintsChecked || !constrained) {
			out.Verdict = av
			switch {
			case av.Blocked:
				out.Text, out.Blocked = "", true
			case av.Repaired != "":
				out.Text = av.Repaired
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			// The run is answered: only this client's wait ends.
			out.Text, out.Blocked, out.Reason = "", true, ReasonClientDisconnected
			return out, nil
		case <-deadline.C:
			out.Text, out.Blocked, out.Reason = "", true, ReasonUnverified
			out.Detail = "no verdict on the answer within " + d.cfg.VerifyWait.String() + ": withheld"
			return out, nil
		case <-verdict:
		case <-poll.C:
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// decided reports whether one of the round's waiting calls has a decision
// in the log (ts.approval.<tenant>.<key>).
func (d *Driver) decided(ctx context.Context, tenant string, rd *runs.Round) (bool, error) {
	for _, c := range rd.Calls {
		if c.State != runs.CallWaiting || c.Key == "" {
			continue
		}
		_, err := d.runs.Decided(ctx, tenant, c.Key)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, client.ErrNotFound) {
			return false, fmt.Errorf("agent: the decision about %s: %w", c.Key, err)
		}
	}
	return false, nil
}
