package events

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// The subject scheme. Every subject of the log starts with "ts." and carries
// the tenant as its third token, so a permission, a consumer filter or a
// query can always be limited to one tenant.
//
//	ts.in.<tenant>.<format>.<response>        raw provider events (JSON, verbatim)
//	ts.model.<tenant>.<response>.<item>       canonical model events
//	ts.call.<tenant>.<tool>                   CallCompleted / CallRejected / CallIncomplete
//	ts.resp.<tenant>.<response>               ResponseOutcome
//	ts.exec.<tenant>.<call>                   ExecutionStarted, ApprovalRequested
//	ts.approval.<tenant>.<call>               ApprovalGranted / ApprovalDenied
//	ts.result.<tenant>.<call>                 CallSucceeded / CallFailed
//	ts.answer.<tenant>.<response>             AnswerSubmitted, AnswerVerified, JudgeVerdict
//	ts.check.<tenant>.<response>              ConstraintsChecked (run mode's driver; older logs hold it on ts.answer)
//	ts.run.<tenant>.<run>                     run events: RunCall, RoundSettled, RunDegraded, …
//	ts.mem.<tenant>.<user>                    memory events
//	ts.gw.<tenant>.<api>.<stream>             the gateway's relayed stream frames
//	ts.ctl.<tenant>.<what>                    control: registry changes, clock ticks (tenant _system)
//
// Ids that are not safe as a subject token are escaped by Token.
const (
	SubjectPrefix = "ts"
	// SubjectAll matches every subject of the log.
	SubjectAll = "ts.>"
	// PreviewPrefix is the non-durable partial-argument preview:
	// tsp.preview.<tenant>.<response>.<item>. It is not in the log.
	PreviewPrefix = "tsp.preview"
	// SystemTenant owns system-wide events (clock ticks, the tool registry).
	// No user tenant can be named like it: user tenants may not start with '_'.
	SystemTenant = "_system"
)

// ValidTenant returns ErrInvalidTenant unless t is a tenant name: 1 to 64
// bytes of [A-Za-z0-9_-] not starting with '_' (reserved), or SystemTenant.
func ValidTenant(t string) error {
	if t == SystemTenant {
		return nil
	}
	if len(t) == 0 || len(t) > 64 || t[0] == '_' {
		return fmt.Errorf("%w: %q", ErrInvalidTenant, t)
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("%w: %q", ErrInvalidTenant, t)
		}
	}
	return nil
}

// Token makes an id safe as one subject token. A token of printable ASCII
// without '.', '*', '>' or '~' is returned as it is; anything else (and the
// empty string) becomes '~' followed by its unpadded base64url form, so two
// different ids never share a token.
func Token(id string) string {
	if id == "" {
		return "~"
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c <= ' ' || c >= 0x7f || c == '.' || c == '*' || c == '>' || c == '~' {
			return "~" + base64.RawURLEncoding.EncodeToString([]byte(id))
		}
	}
	return id
}

// Untoken reverses Token.
func Untoken(tok string) (string, error) {
	if !strings.HasPrefix(tok, "~") {
		return tok, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(tok[1:])
	if err != nil {
		return "", fmt.Errorf("%w: subject token %q: %v", ErrMalformed, tok, err)
	}
	return string(b), nil
}

// SubjectBytesMax bounds a log subject. The ids in a subject come from
// producers, models and gateway clients (a response, an item, a call id, a
// user); nats-server reads a publish's subject, reply and sizes as one
// control line of at most 4 KiB (max_control_line) and closes the
// connection of a client that sends a longer one, and serve's processors
// share a connection: one tool call id of 5,000 bytes in a raw event took
// serve down. A subject past this bound is malformed input, refused where
// it is built, with room left in the line for the reply inbox and a
// direct get's or a bucket's prefix.
const SubjectBytesMax = 1024

// ErrSubjectTooLong is returned by the subject builders for a subject past
// SubjectBytesMax. It wraps ErrMalformed (and so ErrBadInput).
var ErrSubjectTooLong = fmt.Errorf("%w: a subject too long", ErrMalformed)

func errSubjectTooLong(kind, tenant string, n int) error {
	return fmt.Errorf("%w: %s subject of tenant %s of %d bytes, over %d: an id in it is too long", ErrSubjectTooLong, kind, tenant, n, SubjectBytesMax)
}

func subject(kind, tenant string, ids ...string) (string, error) {
	if err := ValidTenant(tenant); err != nil {
		return "", err
	}
	n := len(SubjectPrefix) + len(kind) + len(tenant) + 2
	for _, id := range ids {
		n += 1 + len(id) // a token that must be encoded is longer: the builder grows then
	}
	if n > SubjectBytesMax {
		return "", errSubjectTooLong(kind, tenant, n)
	}
	var b strings.Builder
	b.Grow(n) // one allocation where growing by appends took three or four
	b.WriteString(SubjectPrefix)
	b.WriteByte('.')
	b.WriteString(kind)
	b.WriteByte('.')
	b.WriteString(tenant)
	for _, id := range ids {
		b.WriteByte('.')
		b.WriteString(Token(id))
	}
	if b.Len() > SubjectBytesMax {
		return "", errSubjectTooLong(kind, tenant, b.Len())
	}
	return b.String(), nil
}

// IngestSubject is where producers publish raw provider events verbatim.
func IngestSubject(tenant, format, response string) (string, error) {
	return subject("in", tenant, format, response)
}

// ModelSubject is where canonical model events of one item live.
func ModelSubject(tenant, response, item string) (string, error) {
	return subject("model", tenant, response, item)
}

// ParseModelSubject returns the tenant, response and item a model subject
// (ModelSubject, partitioned or not) names; ErrMalformed for any other
// subject.
func ParseModelSubject(subj string) (tenant, response, item string, err error) {
	parts := strings.Split(subj, ".")
	if (len(parts) != 5 && len(parts) != 6) || parts[0] != SubjectPrefix || parts[1] != "model" {
		return "", "", "", fmt.Errorf("%w: %q is not a model subject", ErrMalformed, subj)
	}
	if err := ValidTenant(parts[2]); err != nil {
		return "", "", "", err
	}
	if response, err = Untoken(parts[3]); err != nil {
		return "", "", "", err
	}
	if item, err = Untoken(parts[4]); err != nil {
		return "", "", "", err
	}
	return parts[2], response, item, nil
}

// ModelResponseFilter matches the model subjects of every item of one
// response, e.g. ModelResponseFilter("acme", "r1") = "ts.model.acme.r1.>"
// (partitioned subjects included: the partition is a further token).
func ModelResponseFilter(tenant, response string) (string, error) {
	s, err := subject("model", tenant, response)
	if err != nil {
		return "", err
	}
	return s + ".>", nil
}

// CallSubject is where call outcomes of one tool live.
func CallSubject(tenant, tool string) (string, error) { return subject("call", tenant, tool) }

// ResponseSubject is where a response's outcome lives.
func ResponseSubject(tenant, response string) (string, error) {
	return subject("resp", tenant, response)
}

// ExecSubject is where execution progress of one call lives.
func ExecSubject(tenant, call string) (string, error) { return subject("exec", tenant, call) }

// ApprovalSubject is where approval decisions of one call live.
func ApprovalSubject(tenant, call string) (string, error) {
	return subject("approval", tenant, call)
}

// ResultSubject is where the result of one call lives.
func ResultSubject(tenant, call string) (string, error) { return subject("result", tenant, call) }

// AnswerSubject is where answers and verdicts of one response live.
func AnswerSubject(tenant, response string) (string, error) {
	return subject("answer", tenant, response)
}

// ConstraintCheckSubject is where run mode's driver records a response's
// answer checked against its user's constraints (ConstraintsChecked): a
// subject of its own, beside the answer's in TS_OUT, so that the role
// that records checks is not allowed the answer's subject, where verdicts
// are published (CheckConstraintsSubject keeps anything else off it).
func ConstraintCheckSubject(tenant, response string) (string, error) {
	return subject("check", tenant, response)
}

// MemorySubject is where memory events of one user live.
func MemorySubject(tenant, user string) (string, error) { return subject("mem", tenant, user) }

// ControlSubject is where control events (registry, clock) live.
func ControlSubject(tenant, what string) (string, error) { return subject("ctl", tenant, what) }

// PreviewSubject is the non-durable partial-argument preview of one call.
func PreviewSubject(tenant, response, item string) (string, error) {
	if err := ValidTenant(tenant); err != nil {
		return "", err
	}
	s := PreviewPrefix + "." + tenant + "." + Token(response) + "." + Token(item)
	if len(s) > SubjectBytesMax {
		return "", errSubjectTooLong("preview", tenant, len(s))
	}
	return s, nil
}

// SubjectTenant returns the tenant token of a log subject.
func SubjectTenant(subj string) (string, error) {
	prefix, rest, ok1 := strings.Cut(subj, ".")
	_, rest, ok2 := strings.Cut(rest, ".") // the kind
	tenant, _, _ := strings.Cut(rest, ".") // no allocation: this runs per event read
	if !ok1 || !ok2 || prefix != SubjectPrefix {
		return "", fmt.Errorf("%w: subject %q", ErrMalformed, subj)
	}
	if err := ValidTenant(tenant); err != nil {
		return "", err
	}
	return tenant, nil
}

// TenantFilter returns the subject filter of one kind of subject for one
// tenant, e.g. TenantFilter("call", "acme") = "ts.call.acme.>".
func TenantFilter(kind, tenant string) (string, error) {
	s, err := subject(kind, tenant)
	if err != nil {
		return "", err
	}
	return s + ".>", nil
}

// The filters of every subject of one family, for the readers of a whole
// family (a projection's Subjects, an observer).
const (
	AllIn        = SubjectPrefix + ".in.>"
	AllModel     = SubjectPrefix + ".model.>"
	AllCalls     = SubjectPrefix + ".call.>"
	AllResponses = SubjectPrefix + ".resp.>"
	AllExec      = SubjectPrefix + ".exec.>"
	AllApprovals = SubjectPrefix + ".approval.>"
	AllResults   = SubjectPrefix + ".result.>"
	AllAnswers   = SubjectPrefix + ".answer.>"
	AllChecks    = SubjectPrefix + ".check.>"
	AllRuns      = SubjectPrefix + ".run.>"
	AllMemory    = SubjectPrefix + ".mem.>"
	// CallsPrefix starts every call subject: ts.call.<tenant>.<tool>.
	CallsPrefix = SubjectPrefix + ".call."
	// EachCall and EachApproval match one subject per call or approval of
	// every tenant (ts.call.<tenant>.<tool>, ts.approval.<tenant>.<call>).
	EachCall     = SubjectPrefix + ".call.*.*"
	EachApproval = SubjectPrefix + ".approval.*.*"
	// RegistrySubject holds the tool registry's changes (tenant _system).
	RegistrySubject = SubjectPrefix + ".ctl." + SystemTenant + ".registry"
)

// Model subjects split into partitions (bus.Partitions) carry the partition
// as a fourth id token: ts.model.<tenant>.<response>.<item>.<partition>.
const (
	// ModelUnpartitioned matches every model subject before it is mapped
	// to its partition.
	ModelUnpartitioned = SubjectPrefix + ".model.*.*.*"
	// modelPartitionOf is the subject mapping's destination, %d the
	// number of partitions.
	modelPartitionOf = SubjectPrefix + ".model.{{wildcard(1)}}.{{wildcard(2)}}.{{wildcard(3)}}.{{partition(%d,2)}}"
)

// ModelPartitionMapping is the destination of the server's subject mapping
// that spreads model subjects over n partitions by response (the tenant and
// response tokens hashed together).
func ModelPartitionMapping(n int) string { return fmt.Sprintf(modelPartitionOf, n) }

// ModelPartitionFilter matches the model subjects of partition p.
func ModelPartitionFilter(p int) string { return ModelUnpartitioned + "." + strconv.Itoa(p) }
