package events

// Answer and verdict events: the model's final answer and the verifier's
// claim-by-claim verdicts on it.

const (
	KindAnswerSubmitted Kind = "answer.submitted"
	KindAnswerVerified  Kind = "answer.verified"
	KindJudgeVerdict    Kind = "answer.judge_verdict"
)

// AnswerSubmitted is a final answer published directly (rather than
// assembled from text deltas).
type AnswerSubmitted struct {
	Text string `msgpack:"x"`
}

// Verdict is a claim's verdict.
type Verdict string

const (
	VerdictSupported    Verdict = "supported"
	VerdictContradicted Verdict = "contradicted"
	VerdictUnsupported  Verdict = "unsupported"
	VerdictNotCheckable Verdict = "not_checkable"
	// VerdictStale: the evidence said it, but every result it rests on is
	// older than its contract's fresh_for at the answer's time.
	VerdictStale Verdict = "stale"
)

// EvidenceRef points at one field of one tool result.
type EvidenceRef struct {
	CallID  string `msgpack:"c" json:"call_id"`
	Pointer string `msgpack:"p" json:"pointer"`
	Value   string `msgpack:"v" json:"value"` // JSON text of the value
}

// ClaimVerdict is one claim and its verdict. Start and End are character
// (rune) offsets into the answer.
type ClaimVerdict struct {
	Text     string        `msgpack:"x" json:"text"`
	Start    int           `msgpack:"s" json:"start"`
	End      int           `msgpack:"e" json:"end"`
	Verdict  Verdict       `msgpack:"v" json:"verdict"`
	Evidence []EvidenceRef `msgpack:"ev,omitempty" json:"evidence"`
	Reason   string        `msgpack:"r,omitempty" json:"reason,omitempty"`
}

// AnswerVerified carries every claim's verdict and, where the tenant's
// policy says so, the repaired answer.
type AnswerVerified struct {
	Faithfulness float64        `msgpack:"f"`
	Claims       []ClaimVerdict `msgpack:"cl"`
	Policy       string         `msgpack:"po"`
	Repaired     string         `msgpack:"rp,omitempty"`
	Blocked      bool           `msgpack:"bl,omitempty"`
}

// JudgeVerdict records an external judge's verdict on a claim, so replay
// never calls the judge again.
type JudgeVerdict struct {
	Claim   int     `msgpack:"cl"`
	Verdict Verdict `msgpack:"v"`
	Reason  string  `msgpack:"r,omitempty"`
}

func (*AnswerSubmitted) Kind() Kind { return KindAnswerSubmitted }
func (*AnswerVerified) Kind() Kind  { return KindAnswerVerified }
func (*JudgeVerdict) Kind() Kind    { return KindJudgeVerdict }
