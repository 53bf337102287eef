package events

import "fmt"

// Answer and verdict events: the model's final answer and the verifier's
// claim-by-claim verdicts on it.

const (
	KindAnswerSubmitted Kind = "answer.submitted"
	KindAnswerVerified  Kind = "answer.verified"
	KindJudgeVerdict    Kind = "answer.judge_verdict"
	// KindConstraintsChecked: the answer read against the user's
	// constraints in force at its time (ConstraintsChecked).
	KindConstraintsChecked Kind = "answer.constraints_checked"
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
	// VerdictViolatesConstraint: the claim recommends or states what a
	// constraint of the user in force at the answer's time forbids ("book
	// the 7pm call" against "don't call me after 6pm"); the claim names the
	// constraint (ClaimVerdict.Constraint). A policy treats it as a
	// contradiction.
	VerdictViolatesConstraint Verdict = "violates_constraint"
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
	// Constraint: for VerdictViolatesConstraint, the memory record and
	// version of the constraint the claim goes against.
	Constraint *ConstraintRef `msgpack:"co,omitempty" json:"constraint,omitempty"`
}

// ConstraintRef names one version of a memory record.
type ConstraintRef struct {
	Record  string `msgpack:"id" json:"record"`
	Version int    `msgpack:"v" json:"version"`
}

// AnswerVerified carries every claim's verdict and, where the tenant's
// policy says so, the repaired answer.
type AnswerVerified struct {
	Faithfulness float64        `msgpack:"f"`
	Claims       []ClaimVerdict `msgpack:"cl"`
	Policy       string         `msgpack:"po"`
	Repaired     string         `msgpack:"rp,omitempty"`
	Blocked      bool           `msgpack:"bl,omitempty"`
	// ConstraintsChecked: the verdict includes the check of the answer
	// against the user's constraints in force (a ConstraintsChecked
	// applied); Constraints is how many were in force.
	ConstraintsChecked bool `msgpack:"cc,omitempty"`
	Constraints        int  `msgpack:"cn,omitempty"`
}

// JudgeVerdict records an external judge's verdict on a claim, so replay
// never calls the judge again.
type JudgeVerdict struct {
	Claim   int     `msgpack:"cl"`
	Verdict Verdict `msgpack:"v"`
	Reason  string  `msgpack:"r,omitempty"`
}

// ConstraintsChecked records an answer read against its user's
// constraints in force at the answer's time (AsOf, Unix nanoseconds), as
// the run driver read them from memory: how many were in force, and the
// violations found, each a span of the answer (rune offsets) and the
// constraint it goes against. Recorded so that replay never asks memory
// again; it carries no constraint's text, so forgetting a record leaves
// nothing of it here.
type ConstraintsChecked struct {
	AsOf       int64                 `msgpack:"ao"`
	InForce    int                   `msgpack:"n"`
	Violations []ConstraintViolation `msgpack:"vi,omitempty"`
}

// ConstraintViolation is one span of an answer that goes against one
// constraint.
type ConstraintViolation struct {
	Start      int           `msgpack:"s"`
	End        int           `msgpack:"e"`
	Constraint ConstraintRef `msgpack:"co"`
	Reason     string        `msgpack:"r,omitempty"`
}

func (*ConstraintsChecked) Kind() Kind { return KindConstraintsChecked }
func (*AnswerSubmitted) Kind() Kind    { return KindAnswerSubmitted }
func (*AnswerVerified) Kind() Kind     { return KindAnswerVerified }
func (*JudgeVerdict) Kind() Kind       { return KindJudgeVerdict }

// ReasonWrongSubject: an event on a subject that holds only another kind
// of event, or another response's: on a constraint check's subject
// (ConstraintCheckSubject), anything but a ConstraintsChecked of the
// response the subject names. Whoever may write there may not publish
// verdicts, so such an event is refused and changes no verdict.
const ReasonWrongSubject Reason = "wrong_subject"

// ErrWrongSubject is CheckConstraintsSubject's error. It wraps ErrBadInput.
var ErrWrongSubject = BadInput("events: wrong_subject")

// CheckConstraintsSubject returns ErrWrongSubject for an event stored on
// a constraint check's subject (ts.check) that is not a ConstraintsChecked
// whose response is the one the subject names. Events on other subjects
// pass: a ConstraintsChecked on the answer's subject is how logs written
// before checks had their own subject hold them (only the verifier role
// and the admin may publish there now). It does not check the tenant
// (CheckSubject does).
func CheckConstraintsSubject(subject string, ev *Event) error {
	if len(subject) < len(checkPrefix) || subject[:len(checkPrefix)] != checkPrefix {
		return nil
	}
	kind := ev.Kind
	if ev.Body != nil {
		kind = ev.Body.Kind()
	}
	if kind != KindConstraintsChecked {
		return fmt.Errorf("%w: %s %q on %s (which holds only %s)", ErrWrongSubject, kind, ev.ID, subject, KindConstraintsChecked)
	}
	if want, err := ConstraintCheckSubject(ev.Tenant, ev.Response); err != nil || ev.Response == "" || want != subject {
		return fmt.Errorf("%w: the check %q of response %q on %s, another response's subject", ErrWrongSubject, ev.ID, ev.Response, subject)
	}
	return nil
}

// checkPrefix starts every constraint check's subject.
const checkPrefix = SubjectPrefix + ".check."
