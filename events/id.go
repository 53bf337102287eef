package events

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// Event ids are derived from their cause, never from a clock or a random
// source, so that an event emitted twice (a relay retry, a replay, a
// restarted executor) carries the same id and JetStream's duplicate window
// (Nats-Msg-Id) keeps one copy.
//
// The same window drops an event whose id another cause already has, so an
// id must be injective: two different causes never share one (invariants 4
// and 9). id writes kind:tenant/part/part…, each part escaped as in
// IdempotencyKey ('%' is %25, '/' is %2F, "" is "-" and "-" is %2D): a
// response a/b with item c and a response a with item b/c are two ids.
// The kind names the builder, every builder of a kind writes a fixed
// number of parts (VerifiedID one, ConstrainedID two, JudgedID three, so "/" counts tell
// them apart), kinds hold no ':' and tenants no '/', so splitting at the
// first ':' and at every '/' gives the parts back. Ids made of other
// characters are written as they are: completed:acme/resp_1/call_1.

func id(kind string, tenant string, parts ...string) string {
	var b strings.Builder
	n := len(kind) + 1 + len(tenant)
	for _, p := range parts {
		n += 1 + len(p)
	}
	b.Grow(n)
	b.WriteString(kind)
	b.WriteByte(':')
	b.WriteString(tenant)
	for _, p := range parts {
		b.WriteByte('/')
		escapeKeyPart(&b, p)
	}
	return b.String()
}

// ModelEventID names the n-th canonical model event normalised from the raw
// event at stream sequence rawSeq.
func ModelEventID(tenant, response string, rawSeq uint64, n int) string {
	return id("model", tenant, response, strconv.FormatUint(rawSeq, 10), strconv.Itoa(n))
}

// EdgeEventID names the n-th canonical model event that a producer
// normalised at the edge (client.Writer) from the raw event at
// position pos (0, 1, …) of its stream: that raw event never reached the
// log, so its place in its stream names it. At EdgeEnd it names the n-th
// event the stream's end implies (no raw event holds it: a response
// completed or ended incomplete when the stream closed, text held back).
func EdgeEventID(tenant, stream string, pos int64, n int) string {
	at := strconv.FormatInt(pos, 10)
	if pos == EdgeEnd {
		at = edgeEnd
	}
	return id("edge", tenant, stream, at, strconv.Itoa(n))
}

// EdgeEnd is the position EdgeEventID takes for what a stream's end
// implies ("end" in the id): after every raw event, whatever their number.
const EdgeEnd int64 = -1

const edgeEnd = "end"

// SplitEdgeEventID returns the parts of an id EdgeEventID made (pos
// EdgeEnd for what the stream's end implied); ok is false for any other id.
func SplitEdgeEventID(eid string) (tenant, stream string, pos int64, n int, ok bool) {
	rest, found := strings.CutPrefix(eid, "edge:")
	parts := strings.Split(rest, "/")
	if !found || len(parts) != 4 || ValidTenant(parts[0]) != nil {
		return "", "", 0, 0, false
	}
	if parts[1] != "-" {
		stream = unescapeKeyPart.Replace(parts[1])
	}
	pos, err := strconv.ParseInt(parts[2], 10, 64)
	if parts[2] == edgeEnd {
		pos, err = EdgeEnd, nil
	}
	if err != nil {
		return "", "", 0, 0, false
	}
	n, err = strconv.Atoi(parts[3])
	if err != nil || EdgeEventID(parts[0], stream, pos, n) != eid {
		return "", "", 0, 0, false // not canonical
	}
	return parts[0], stream, pos, n, true
}

// CompletedID, RejectedID and IncompleteID name the assembler's one decision
// about the call (tenant, response, item).
func CompletedID(tenant, response, item string) string {
	return id("completed", tenant, response, item)
}

// RejectedID: see CompletedID.
func RejectedID(tenant, response, item string) string {
	return id("rejected", tenant, response, item)
}

// IncompleteID: see CompletedID.
func IncompleteID(tenant, response, item string) string {
	return id("incomplete", tenant, response, item)
}

// ResponseOutcomeID names the assembler's verdict on a response.
func ResponseOutcomeID(tenant, response string) string { return id("response", tenant, response) }

// IdempotencyKey is the executor's key for a call: tenant/run/step/call.
// Each of run, step and call is escaped so that two different calls never
// share a key (the key is injective): '%' is written %25 and '/' %2F, an
// empty part "-" and a part that is "-" %2D. Ids made of other characters
// are written as they are, so keys stay readable: acme/-/resp_1/call_1.
// The tenant is a tenant name (ValidTenant), which holds none of them.
func IdempotencyKey(tenant, run, step, call string) string {
	var b strings.Builder
	b.Grow(len(tenant) + len(run) + len(step) + len(call) + 3)
	b.WriteString(tenant)
	for _, p := range [3]string{run, step, call} {
		b.WriteByte('/')
		escapeKeyPart(&b, p)
	}
	return b.String()
}

func escapeKeyPart(b *strings.Builder, p string) {
	switch p {
	case "":
		b.WriteByte('-')
		return
	case "-":
		b.WriteString("%2D")
		return
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '%':
			b.WriteString("%25")
		case '/':
			b.WriteString("%2F")
		default:
			b.WriteByte(c)
		}
	}
}

var unescapeKeyPart = strings.NewReplacer("%2D", "-", "%2F", "/", "%25", "%")

// SplitIdempotencyKey returns the parts of an idempotency key; ok is false
// when key is not exactly what IdempotencyKey writes for some tenant, run,
// step and call.
func SplitIdempotencyKey(key string) (tenant, run, step, call string, ok bool) {
	parts := strings.Split(key, "/")
	if len(parts) != 4 || ValidTenant(parts[0]) != nil {
		return "", "", "", "", false
	}
	var dec [3]string
	for i, p := range parts[1:] {
		if p == "-" {
			continue
		}
		dec[i] = unescapeKeyPart.Replace(p)
	}
	if IdempotencyKey(parts[0], dec[0], dec[1], dec[2]) != key {
		return "", "", "", "", false // not canonical: %2D inside a part, a stray %, …
	}
	return parts[0], dec[0], dec[1], dec[2], true
}

// ExecutionID names an execution event of a call by what it records
// (started, succeeded, failed, approval_requested…) and its attempt. It is
// injective without escaping: what holds no ':', and the attempt, after
// the last '#', holds only digits (a '#' in key stays left of it).
func ExecutionID(what, key string, attempt int) string {
	return what + ":" + key + "#" + strconv.Itoa(attempt)
}

// ConflictID names the CallFailed that refuses a call whose idempotency key
// is already another call's: one per refused input, the CallCompleted at
// stream sequence seq, so a redelivery of that input is dropped as a
// duplicate.
func ConflictID(key string, seq uint64) string {
	return "conflict:" + key + "#" + strconv.FormatUint(seq, 10)
}

// VerifiedID names the verifier's verdict on a response's answer.
func VerifiedID(tenant, response string) string { return id("verified", tenant, response) }

// JudgedID names the verifier's verdict on a response's answer after its
// judged-th external judge verdict: verified:<tenant>/<response>/judged/<n>.
func JudgedID(tenant, response string, judged int) string {
	return id("verified", tenant, response, "judged", strconv.Itoa(judged))
}

// ConstrainedID names the verifier's verdict on a response's answer after
// the answer was checked against its user's constraints:
// verified:<tenant>/<response>/constraints.
func ConstrainedID(tenant, response string) string {
	return id("verified", tenant, response, "constraints")
}

// ConstraintsCheckedID names the check of a response's answer against its
// user's constraints: one per answer, so a driver that checks again after
// a restart publishes a duplicate the log drops.
func ConstraintsCheckedID(tenant, response string) string {
	return id("constraints", tenant, response)
}

// JudgeVerdictID names the external judge's verdict on the claim-th claim
// of a response's answer: one per claim, so a judge worker that asks again
// after a restart or a redelivery publishes a duplicate the log drops.
func JudgeVerdictID(tenant, response string, claim int) string {
	return id("judge", tenant, response, strconv.Itoa(claim))
}

// MemoryOpID names the memory event of the line-th op of a file of memory
// ops (memory.Op.Event) for tenant's user.
func MemoryOpID(tenant, user string, line int) string {
	return id("mem", tenant, user, strconv.Itoa(line))
}

// MemoryRequestID names the memory event of a request to the memory
// service: op (correct, forget) of record for tenant's user, at its time
// (Unix ns).
func MemoryRequestID(tenant, user, op, record string, at int64) string {
	return id("mem-svc", tenant, user, op, record, strconv.FormatInt(at, 10))
}

// MemoryWriteID names the memory event of a write to the memory service
// (observe, correct, forget of record for tenant's user at its time, Unix
// ns) by its content too: a retry of the same request has the same id and
// is stored once, but two requests that differ only in what they say (two
// corrections stamped with one time) are two events, never one taken for a
// retry of the other.
func MemoryWriteID(tenant, user, op, record string, at int64, content []byte) string {
	sum := sha256.Sum256(content)
	return id("mem-svc", tenant, user, op, record, strconv.FormatInt(at, 10), hex.EncodeToString(sum[:12]))
}
