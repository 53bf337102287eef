package verifier

import (
	"encoding/binary"
	"fmt"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/verifier/evidence"
	"github.com/vmihailenco/msgpack/v5"
	"slices"
	"strings"
	"time"
)

// Name is the verifier projection's name.
const Name = "verifier"

// ProjectionConfig configures the verifier projection. Policies are part of
// what the view is derived from: a replay must run with the same ones.
type ProjectionConfig struct {
	Checker       *Checker          // nil: NewChecker(CheckerConfig{})
	DefaultPolicy Policy            // "" = annotate
	Policies      map[string]Policy // per tenant
}

// Projection keeps tool results as evidence and verifies final answers.
//
// Evidence is scoped: a result counts for answers of the same run, else the
// same session, else (neither set) the tenant's unscoped evidence. The
// answer of a response is its display text, checked when the response
// completes without calling tools (a response that calls tools is not a
// final answer), or an AnswerSubmitted event.
//
// Keys: <tenant>\0ev\0<scope>\0<seq:8> evidence (the result and its index,
// made once when the result arrives); <tenant>\0v\0<response> the
// verdicts.
type Projection struct {
	cfg ProjectionConfig
	// check is cfg.Checker.CheckKept (a test makes it fail).
	check func(string, []*evidence.EvidenceIndex, []evidence.Evidence, time.Time) (Report, error)
}

var _ projector.Projection = (*Projection)(nil)

// NewProjection returns the verifier projection.
func NewProjection(cfg ProjectionConfig) *Projection {
	if cfg.Checker == nil {
		cfg.Checker = NewChecker(CheckerConfig{})
	}
	if cfg.DefaultPolicy == "" {
		cfg.DefaultPolicy = PolicyAnnotate
	}
	return &Projection{cfg: cfg, check: cfg.Checker.CheckKept}
}

// Name implements projector.Projection.
func (*Projection) Name() string { return Name }

// Subjects implements projector.Projection.
// The verifier reads the outcomes (TS_OUT): results are the evidence; a
// response's outcome carries its display text when it called no tool (the
// assembler keeps it), and that text is a final answer, as is an
// AnswerSubmitted; a judge's verdicts are on the answers' subjects, run
// mode's constraint checks on their own (and, in logs written before they
// had one, on the answers').
func (*Projection) Subjects() []string {
	return []string{events.AllResults, events.AllResponses, events.AllAnswers, events.AllChecks}
}

// evidenceRow is one result kept as evidence: the result as it came, and
// its index (marshalPart), made once when the result arrived. The result
// stays for Evidences, a judge, and a part that must be indexed again (an
// index of an older format, a part crossing the leaf limit of an answer).
type evidenceRow struct {
	CallID  string `msgpack:"c"`
	Name    string `msgpack:"n"`
	Version int    `msgpack:"v,omitempty"`
	Result  []byte `msgpack:"r"`
	Index   []byte `msgpack:"x,omitempty"`
	// A failed call (CallFailed): its error type and message, no result.
	Error    string `msgpack:"e,omitempty"`
	Message  string `msgpack:"m,omitempty"`
	At       int64  `msgpack:"at,omitempty"` // the result's event time, Unix nanoseconds
	FreshFor int64  `msgpack:"ff,omitempty"` // the contract's fresh_for, nanoseconds
	// Cuts: when Result is the excerpt of a result kept in the object
	// store, the arrays it shortened.
	Cuts []events.ArrayCut `msgpack:"cu,omitempty"`
	// Stats: beside an excerpt, the statistics its summary states.
	Stats []evidence.FieldStats `msgpack:"st,omitempty"`
}

// evidence returns the row as Evidence.
func (r *evidenceRow) evidence() Evidence {
	e := Evidence{CallID: r.CallID, Name: r.Name, Version: r.Version, Result: r.Result, FreshFor: time.Duration(r.FreshFor), Cuts: r.Cuts, Stats: r.Stats}
	if r.At != 0 {
		e.At = time.Unix(0, r.At).UTC()
	}
	if r.Error != "" {
		e.Failed, e.Result = &Failure{Error: r.Error, Message: r.Message}, nil
	}
	return e
}

// Verified is the stored verdict on one answer.
type Verified struct {
	Tenant    string                `msgpack:"t" json:"tenant"`
	Response  string                `msgpack:"r" json:"response_id"`
	Answer    string                `msgpack:"a" json:"answer"`
	Verified  events.AnswerVerified `msgpack:"av" json:"verified"`
	Undecided []int                 `msgpack:"u,omitempty" json:"undecided,omitempty"`
	Judged    int                   `msgpack:"j,omitempty" json:"judged,omitempty"`
	At        int64                 `msgpack:"at" json:"at"`
	Evidence  int                   `msgpack:"ne" json:"evidence"`
}

func scopeOf(ev *events.Event) string {
	switch {
	case ev.Run != "":
		return "run:" + ev.Run
	case ev.Session != "":
		return "session:" + ev.Session
	}
	return "-"
}

func seqSuffix(prefix []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), prefix...), seq)
}

// Apply implements projector.Projection.
func (p *Projection) Apply(tx *projector.Tx, m *projector.Msg) error {
	ev, err := m.Event()
	if err != nil {
		return err
	}
	// The check subject is the driver role's, which may publish no
	// verdict: only a check of the subject's response is read there.
	if err := events.CheckConstraintsSubject(m.Subject, ev); err != nil {
		return err
	}
	switch b := ev.Body.(type) {
	case *events.CallSucceeded:
		e := Evidence{CallID: ev.CallID, Name: b.Name, Version: b.Version, Result: b.Result}
		if len(b.Result) == 0 {
			// A result kept in the object store: its excerpt in the event.
			e.Result, e.Cuts, e.Stats = b.Excerpt, b.Cuts, summaryStats(b.Summary)
		}
		if len(e.Result) == 0 {
			return nil // kept by reference only: nothing to check against here
		}
		prefix, err := projector.TenantKey(ev.Tenant, "ev", scopeOf(ev), "")
		if err != nil {
			return err
		}
		index, err := IndexEvidence(e).MarshalBinary()
		if err != nil {
			return err
		}
		return put(tx, seqSuffix(prefix, m.Seq), &evidenceRow{CallID: e.CallID, Name: e.Name, Version: e.Version, Result: e.Result, Index: index,
			At: ev.At, FreshFor: int64(b.FreshFor), Cuts: e.Cuts, Stats: e.Stats})
	case *events.CallFailed:
		// A failed call (a denied approval included) is evidence that what
		// it would have done did not happen.
		prefix, err := projector.TenantKey(ev.Tenant, "ev", scopeOf(ev), "")
		if err != nil {
			return err
		}
		return put(tx, seqSuffix(prefix, m.Seq), &evidenceRow{CallID: ev.CallID, Name: b.Name, Version: b.Version,
			Error: string(b.Error), Message: b.Message, At: ev.At})
	case *events.ResponseOutcome:
		if b.Status != events.StatusCompleted || b.Calls > 0 || strings.TrimSpace(b.Text) == "" {
			return nil // not a final answer
		}
		return p.verify(tx, ev, scopeOf(ev), b.Text)
	case *events.AnswerSubmitted:
		if ev.Response == "" {
			return fmt.Errorf("%w: answer without response id", events.ErrMissingField)
		}
		return p.verify(tx, ev, scopeOf(ev), b.Text)
	case *events.JudgeVerdict:
		return p.judged(tx, ev, b)
	case *events.ConstraintsChecked:
		return p.constrained(tx, ev, b)
	}
	return nil
}

// AnswerEvidence returns the evidence in scope for the answer of ev (an
// answer's event, or the verdict on it: the same run, session or tenant),
// oldest first: what a judge is shown.
func AnswerEvidence(rd projector.Reader, ev *events.Event) ([]Evidence, error) {
	return Evidences(rd, ev.Tenant, scopeOf(ev))
}

// Evidences returns the evidence in scope for an answer, oldest first.
func Evidences(rd projector.Reader, tenant, scope string) ([]Evidence, error) {
	prefix, err := projector.TenantKey(tenant, "ev", scope, "")
	if err != nil {
		return nil, err
	}
	var out []Evidence
	err = rd.Scan(prefix, func(_, v []byte) error {
		var r evidenceRow
		if err := msgpack.Unmarshal(v, &r); err != nil {
			return err
		}
		out = append(out, r.evidence())
		return nil
	})
	return out, err
}

func (p *Projection) policy(tenant string) Policy {
	if pol, ok := p.cfg.Policies[tenant]; ok {
		return pol
	}
	return p.cfg.DefaultPolicy
}

// evidenceParts returns the indexes of the evidence in scope for an
// answer, oldest first: each row's index as it was stored, or, for a row
// whose index is of another format, the result indexed now; and the calls
// that failed.
func evidenceParts(rd projector.Reader, tenant, scope string) ([]*EvidenceIndex, []Evidence, error) {
	prefix, err := projector.TenantKey(tenant, "ev", scope, "")
	if err != nil {
		return nil, nil, err
	}
	var out []*EvidenceIndex
	var failed []Evidence
	err = rd.Scan(prefix, func(k, v []byte) error {
		var r evidenceRow
		if err := msgpack.Unmarshal(v, &r); err != nil {
			return err
		}
		e := r.evidence()
		if e.Failed != nil {
			failed = append(failed, e)
			return nil
		}
		x, err := evidence.ReadEvidenceIndex(r.Index, e)
		if err != nil {
			// NB: an index of another format, or one damaged, costs a walk of
			// the result; the verdicts are the same.
			x = IndexEvidence(e)
		}
		out = append(out, x)
		return nil
	})
	return out, failed, err
}

func (p *Projection) verify(tx *projector.Tx, ev *events.Event, scope, text string) error {
	parts, failed, err := evidenceParts(tx, ev.Tenant, scope)
	if err != nil {
		return err
	}
	r, err := p.checkKept(text, parts, failed, ev.Time())
	if err != nil {
		return err
	}
	v := &Verified{Tenant: ev.Tenant, Response: ev.Response, Answer: text, Undecided: r.Undecided, At: ev.At, Evidence: len(parts) + len(failed)}
	v.Verified = p.verdict(ev.Tenant, text, r)
	return p.store(tx, ev, v, events.VerifiedID(ev.Tenant, ev.Response))
}

// checkKept is the checker's CheckKept with a fault of its own on this
// answer (a panic, as heldout7's blind run found one) turned into rejected
// input (ErrCheckFailed, wrapping events.ErrBadInput): otherwise one
// answer, which any producer can write, would stop the verifier for every
// tenant, and again at each restart's replay.
func (p *Projection) checkKept(text string, parts []*evidence.EvidenceIndex, failed []evidence.Evidence, now time.Time) (r Report, err error) {
	defer func() {
		if v := recover(); v != nil {
			r, err = Report{}, fmt.Errorf("%w: %w: %v", events.ErrBadInput, ErrCheckFailed, v)
		}
	}()
	return p.check(text, parts, failed, now)
}

func (p *Projection) verdict(tenant, text string, r Report) events.AnswerVerified {
	pol := p.policy(tenant)
	repaired, blocked := ApplyPolicy(pol, text, r)
	av := events.AnswerVerified{Faithfulness: r.Faithfulness, Claims: r.Claims, Policy: string(pol), Blocked: blocked}
	if repaired != text {
		av.Repaired = repaired
	}
	return av
}

func (p *Projection) store(tx *projector.Tx, ev *events.Event, v *Verified, id string) error {
	key, err := projector.TenantKey(ev.Tenant, "v", ev.Response)
	if err != nil {
		return err
	}
	if err := put(tx, key, v); err != nil {
		return err
	}
	subj, err := events.AnswerSubject(ev.Tenant, ev.Response)
	if err != nil {
		return err
	}
	out := v.Verified
	return tx.Emit(subj, &events.Event{ID: id, Tenant: ev.Tenant, User: ev.User, Session: ev.Session, Run: ev.Run,
		Response: ev.Response, At: ev.At, Body: &out})
}

// judged applies an external judge's recorded verdict: replay reads it from
// the log and never calls the judge. A verdict decides a claim the checker
// left undecided, once: a verdict on a claim decided already (by the
// checker, or by an earlier verdict a judge worker published again) changes
// nothing and emits nothing.
func (p *Projection) judged(tx *projector.Tx, ev *events.Event, jv *events.JudgeVerdict) error {
	v, err := Get(tx, ev.Tenant, ev.Response)
	if err != nil {
		return fmt.Errorf("%w: judge verdict for an answer never verified: %v", events.ErrBadInput, err)
	}
	if !slices.Contains(v.Undecided, jv.Claim) {
		return nil
	}
	r := ApplyJudgeVerdicts(Report{Faithfulness: v.Verified.Faithfulness, Claims: v.Verified.Claims, Undecided: v.Undecided}, []events.JudgeVerdict{*jv})
	v.Undecided = r.Undecided
	v.Judged++
	checked, n := v.Verified.ConstraintsChecked, v.Verified.Constraints
	v.Verified = p.verdict(ev.Tenant, v.Answer, r)
	v.Verified.ConstraintsChecked, v.Verified.Constraints = checked, n
	return p.store(tx, ev, &v, events.JudgedID(ev.Tenant, ev.Response, v.Judged))
}

// Get returns the verdicts on a response's answer. It returns
// projector.ErrNoTenant without a tenant and ErrNotVerified when there are
// none.
func Get(rd projector.Reader, tenant, resp string) (Verified, error) {
	if err := events.ValidTenant(tenant); err != nil {
		return Verified{}, fmt.Errorf("%w: %v", projector.ErrNoTenant, err)
	}
	key, _ := projector.TenantKey(tenant, "v", resp)
	var v Verified
	ok, err := get(rd, key, &v)
	if err == nil && !ok {
		err = ErrNotVerified
	}
	return v, err
}

// List returns a tenant's verified answers in response id order.
func List(rd projector.Reader, tenant string) ([]Verified, error) {
	if err := events.ValidTenant(tenant); err != nil {
		return nil, fmt.Errorf("%w: %v", projector.ErrNoTenant, err)
	}
	prefix, _ := projector.TenantKey(tenant, "v", "")
	var out []Verified
	err := rd.Scan(prefix, func(_, b []byte) error {
		var v Verified
		if err := msgpack.Unmarshal(b, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

func get[T any](rd projector.Reader, key []byte, v *T) (bool, error) {
	b, ok, err := rd.Get(key)
	if err != nil || !ok {
		return false, err
	}
	if err := msgpack.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("verifier: corrupt row %q: %w", key, err)
	}
	return true, nil
}

func put[T any](tx projector.Writer, key []byte, v *T) error {
	b, err := msgpack.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Set(key, b)
}
