package check

import (
	"fmt"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/verifier/evidence"
	"time"
)

// CheckerConfig configures a Checker. The zero value is usable.
type CheckerConfig struct {
	// Tolerance is the relative difference within which a claimed number
	// equals an evidence number (default 0.01). A number is also equal to
	// the evidence when it is the evidence rounded to the precision the
	// claim is written in (19.96 → "20.0", 0.125 → "12.5%").
	Tolerance float64
	// ApproxTolerance bounds the tolerance of a number hedged with
	// "about", "around", 约, 左右 … (default 0.1): such a number is the
	// value rounded at the place of its last non-zero digit ("about 300"
	// is 250–350, "about 940" 935–945), at most this share of it either
	// way, and never less than Tolerance.
	ApproxTolerance float64
	// DerivedLeavesMax bounds how many evidence numbers near a claim are
	// combined pairwise when looking for a derived value (sum, difference,
	// ratio, product); default 48. Work per claimed number is quadratic in it.
	DerivedLeavesMax int
	// EvidenceRefsMax bounds the evidence pointers kept per claim
	// (default 8).
	EvidenceRefsMax int
	// ClaimsMax bounds the claims of one answer that are checked (default
	// 1000); the rest are not_checkable. Work per claim grows with the
	// evidence, so this keeps a long answer against a large result from
	// taking minutes.
	ClaimsMax int
}

func (c *CheckerConfig) setDefaults() {
	if c.Tolerance <= 0 {
		c.Tolerance = 0.01
	}
	if c.ApproxTolerance <= 0 {
		c.ApproxTolerance = 0.1
	}
	if c.DerivedLeavesMax <= 0 {
		c.DerivedLeavesMax = 48
	}
	if c.EvidenceRefsMax <= 0 {
		c.EvidenceRefsMax = 8
	}
	if c.ClaimsMax <= 0 {
		c.ClaimsMax = 1000
	}
}

// Checker checks answers against evidence. It holds only its configuration,
// so one Checker is safe for concurrent use.
type Checker struct {
	cfg CheckerConfig
}

// NewChecker returns a Checker with cfg's zero fields set to their defaults.
func NewChecker(cfg CheckerConfig) *Checker {
	cfg.setDefaults()
	return &Checker{cfg: cfg}
}

// Report is the verdict on every claim of an answer.
type Report struct {
	// Faithfulness is supported ÷ checkable claims (supported, contradicted
	// or unsupported); 1 when no claim is checkable.
	Faithfulness float64 `json:"faithfulness"`
	// Claims are the answer's claims in order, each with its verdict.
	Claims []events.ClaimVerdict `json:"claims"`
	// Undecided lists the indices of claims the deterministic checker could
	// not decide with confidence: unsupported only because no fact in the
	// claim was recognised, or not_checkable without a cue saying why. An
	// external Judge may decide them (see AskJudge).
	Undecided []int `json:"undecided,omitempty"`
}

// Check checks every claim of answer against evidence. now is the answer's
// event time; relative dates (today, tomorrow, 明天, Friday) are resolved
// against it in its location. Evidence whose Result is not JSON is skipped;
// of several results with one CallID only the highest Version counts.
// Check is deterministic: identical input gives an identical Report.
func (c *Checker) Check(answer string, evs []evidence.Evidence, now time.Time) Report {
	ix := evidence.BuildIndex(evs, now)
	defer ix.Release()
	return c.check(answer, ix, now)
}

// check checks every claim of answer against the index of its evidence.
func (c *Checker) check(answer string, ix *evidence.Index, now time.Time) Report {
	claims := SplitClaims(answer)
	rep := Report{Claims: make([]events.ClaimVerdict, 0, len(claims))}
	var prev *after
	var buf readBuffers
	supported, checkable := 0, 0
	for i, cl := range claims {
		if i >= c.cfg.ClaimsMax {
			rep.Claims = append(rep.Claims, events.ClaimVerdict{Text: cl.Text, Start: cl.Start, End: cl.End, Verdict: events.VerdictNotCheckable,
				Reason: fmt.Sprintf("not checked: the answer has more than %d claims", c.cfg.ClaimsMax)})
			continue
		}
		cx := c.newClaim(ix, cl, now, prev, &buf)
		v := cx.decide()
		if v.verdict == events.VerdictSupported {
			if why, ok := stale(ix, v.refs, now); ok {
				v.verdict, v.reason = events.VerdictStale, why
			}
		}
		if v.undecided {
			rep.Undecided = append(rep.Undecided, i)
		}
		rep.Claims = append(rep.Claims, events.ClaimVerdict{
			Text: cl.Text, Start: cl.Start, End: cl.End,
			Verdict: v.verdict, Evidence: v.refs, Reason: v.reason,
		})
		switch v.verdict {
		case events.VerdictSupported:
			supported++
			checkable++
		case events.VerdictContradicted, events.VerdictUnsupported, events.VerdictStale:
			checkable++
		}
		prev = cx.after(&buf.afters[i%2], v.leaves) // NB: not the one cx was made with
	}
	rep.Faithfulness = Faithfulness(supported, checkable)
	return rep
}

// Faithfulness is supported ÷ checkable, and 1 when no claim is checkable.
func Faithfulness(supported, checkable int) float64 {
	if checkable == 0 {
		return 1
	}
	return float64(supported) / float64(checkable)
}
