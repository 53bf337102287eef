package runs

import (
	"fmt"
	"strings"

	"github.com/toolstream/toolstream/events/runsapi"
	"github.com/toolstream/toolstream/projector"
)

// HistoryOptions say how a run's history is written; History is a run's
// conversation as one provider's messages (package runsapi).
type (
	HistoryOptions = runsapi.HistoryOptions
	History        = runsapi.History
)

// levels of a round in a history, from the most kept to the least.
const (
	levelVerbatim = iota
	levelCompact
	levelNote
	levelOmitted
)

// estimateTokens is the history's size in tokens as estimated here: a
// token per 4 bytes of JSON.
func estimateTokens(b []byte) int { return (len(b) + 3) / 4 }

// BuildHistory writes a run's settled rounds and input messages in a
// provider's shape, within a budget: the last Keep rounds are verbatim;
// older ones are compacted first (results as their summaries), then each
// written as one line of a note (tool, arguments, the result's summary),
// then left out — oldest first, one step at a time, so the same view and
// options always give the same history. Input messages are never cut. A
// history that still exceeds the budget is returned with Fits false.
//
// Errors: those of Turns, ErrUnknownFormat.
func BuildHistory(rd projector.Reader, tenant, run string, o HistoryOptions) (*History, error) {
	r, err := Get(rd, tenant, run)
	if err != nil {
		return nil, err
	}
	ts, err := Turns(rd, tenant, run)
	if err != nil {
		return nil, err
	}
	return buildHistory(r, ts, o)
}

// BuildHistoryFrom writes the run's entries at turn from and after, every
// one verbatim, up to the first round still open (Through is the turn
// before it, else the run's last turn): the messages a reader that kept
// the history through turn from-1 appends to it. A budget is refused
// (ErrInvalidRequest): compacting older rounds needs the whole run.
// Errors otherwise as BuildHistory.
func BuildHistoryFrom(rd projector.Reader, tenant, run string, from int, o HistoryOptions) (*History, error) {
	if o.BudgetTokens > 0 {
		return nil, fmt.Errorf("%w: a history from a turn has no budget (compaction reads the whole run)", ErrInvalidRequest)
	}
	r, ts, err := TurnsFrom(rd, tenant, run, from)
	if err != nil {
		return nil, err
	}
	for i, t := range ts {
		if t.Round != nil && t.Round.Status == "" {
			ts = ts[:i]
			break
		}
	}
	h, err := buildHistory(r, ts, o)
	if err != nil {
		return nil, err
	}
	h.Through = min(max(from, 1)-1, r.Turns) // from beyond the end: the run's last turn, never one it lacks
	if n := len(ts); n > 0 {
		h.Through = turnOf(ts[n-1])
	}
	return h, nil
}

// turnOf is an entry's turn.
func turnOf(t Turn) int {
	if t.Input != nil {
		return t.Input.Turn
	}
	return t.Round.Turn
}

func buildHistory(r Run, ts []Turn, o HistoryOptions) (*History, error) {
	if o.Format == "" {
		o.Format = r.Format
	}
	if o.Format == "" {
		o.Format = FormatChat
	}
	if !KnownFormat(o.Format) {
		return nil, fmt.Errorf("%w: %q (want one of %v)", ErrUnknownFormat, o.Format, Formats)
	}
	if o.Keep <= 0 {
		o.Keep = 2
	}
	if o.InlineMax <= 0 {
		o.InlineMax = 16 << 10
	}
	// Only settled rounds: an open round's calls have no results yet.
	var entries []Turn
	var rounds []int // indexes of rounds in entries
	for _, t := range ts {
		if t.Round != nil && t.Round.Status == "" {
			continue
		}
		if t.Round != nil {
			rounds = append(rounds, len(entries))
		}
		entries = append(entries, t)
	}
	level := make([]int, len(entries))
	h := &History{Format: o.Format, Rounds: len(rounds)}
	for _, t := range ts {
		if t.Round != nil && t.Round.Status == "" {
			break
		}
		h.Through = turnOf(t)
	}
	render := func() error {
		msgs, err := renderHistory(entries, level, o)
		if err != nil {
			return err
		}
		h.Messages, err = marshal(msgs)
		h.Tokens = estimateTokens(h.Messages)
		return err
	}
	if err := render(); err != nil {
		return nil, err
	}
	older := rounds[:max(len(rounds)-o.Keep, 0)]
	for next := levelCompact; next <= levelOmitted && o.BudgetTokens > 0 && h.Tokens > o.BudgetTokens; next++ {
		for _, i := range older {
			if h.Tokens <= o.BudgetTokens {
				break
			}
			level[i] = next
			if err := render(); err != nil {
				return nil, err
			}
		}
	}
	for _, i := range rounds {
		switch level[i] {
		case levelVerbatim:
			h.Verbatim++
		case levelCompact:
			h.Compacted++
		case levelNote:
			h.Noted++
		default:
			h.Omitted++
		}
	}
	h.Fits = o.BudgetTokens <= 0 || h.Tokens <= o.BudgetTokens
	return h, nil
}

// renderHistory writes the entries at their levels.
func renderHistory(entries []Turn, level []int, o HistoryOptions) ([]any, error) {
	var out []any
	omitted := 0
	flushOmitted := func() error {
		if omitted == 0 {
			return nil
		}
		m, err := userTurn(fmt.Sprintf("[%d earlier tool rounds of this conversation are left out]", omitted), o.Format)
		out = append(out, m)
		omitted = 0
		return err
	}
	for i, e := range entries {
		if e.Input != nil {
			if err := flushOmitted(); err != nil {
				return nil, err
			}
			m, err := userTurn(e.Input.Text, o.Format)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
			continue
		}
		rd := e.Round
		switch level[i] {
		case levelOmitted:
			omitted++
			continue
		case levelNote:
			if err := flushOmitted(); err != nil {
				return nil, err
			}
			m, err := userTurn(noteOf(rd), o.Format)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
			continue
		}
		if err := flushOmitted(); err != nil {
			return nil, err
		}
		turn, err := assistantTurn(rd, o.Format)
		if err != nil {
			return nil, err
		}
		out = append(out, turn...)
		results, err := toolResults(rd, o.Format, o.InlineMax, level[i] == levelCompact)
		if err != nil {
			return nil, err
		}
		out = append(out, results...)
	}
	if err := flushOmitted(); err != nil {
		return nil, err
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

// noteOf is a round in one line: each call, its arguments and what came
// of it.
func noteOf(rd *Round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[earlier tool round %d:", rd.N)
	for i, c := range decided(rd) {
		if i > 0 {
			b.WriteString(";")
		}
		text, _, _ := feedback(c, 0, true)
		fmt.Fprintf(&b, " %s(%s) → %s", c.Name, clip(string(args(c)), 100), clip(text, 120))
	}
	if rd.Text != "" {
		fmt.Fprintf(&b, " said: %s", clip(rd.Text, 120))
	}
	b.WriteString("]")
	return b.String()
}
