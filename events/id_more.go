package events

import (
	"encoding/hex"
	"strconv"
	"strings"
)

// The ids below were built by their callers (the client's raw events, the
// clock's ticks, the registry's changes, the executor's execution events,
// the projector's causation); they are built here so that every id kind
// is in one package and lint's TestIDsAreBuiltInEvents can say so. Each
// writes exactly what its caller wrote before: ids already in logs and
// duplicate windows stay the same.

// RawEventID names the raw event at position pos (0, 1, …) of a producer's
// stream (client.Writer publishing verbatim to TS_IN): its place in its
// stream names it, so a producer that resumes writes the same id.
func RawEventID(tenant, stream string, pos int64) string {
	return "raw:" + tenant + "/" + stream + "/" + strconv.FormatInt(pos, 10)
}

// RawEndID names the end-of-stream marker a producer writes after the raw
// events of its stream.
func RawEndID(tenant, stream string) string {
	return "raw:" + tenant + "/" + stream + "/end"
}

// TickID names the clock tick at time at (Unix ns): every clock that ticks
// at that time writes the same id, so the log keeps one tick.
func TickID(at int64) string { return "tick:" + strconv.FormatInt(at, 10) }

// RegistryChangedID names the RegistryChanged of the registry with digest
// taking effect after the registry change at stream sequence prev (0: the
// first). It is derived from the cause, so two processes that publish the
// same change are deduplicated, and a return to an earlier registry
// (A → B → A) is still recorded.
func RegistryChangedID(digest string, prev uint64) string {
	return "registry:" + digest + "/" + strconv.FormatUint(prev, 10)
}

// SeqCausation is the Causation of an event emitted while applying the
// message at stream sequence seq, when the emitter names no other cause.
func SeqCausation(seq uint64) string { return "seq:" + strconv.FormatUint(seq, 10) }

// ResultID names the outcome (CallSucceeded or CallFailed) of the call with
// idempotency key key: one per key, so a second outcome is a duplicate.
func ResultID(key string) string { return ExecutionID("result", key, 0) }

// ApprovalID names the decision (approved or denied) on the call with
// idempotency key key: one per key and decider (its message id is tagged
// under the decider's key, OwnedMsgID); the first decision on the call's
// approval subject is the one the executor takes.
func ApprovalID(key string) string { return ExecutionID("approval", key, 0) }

// ApprovalRequestedID names the ApprovalRequested of the call with
// idempotency key key.
func ApprovalRequestedID(key string) string { return ExecutionID("approval_requested", key, 0) }

// StartedID names the ExecutionStarted of the attempt-th attempt of the
// call with idempotency key key.
func StartedID(key string, attempt int) string { return ExecutionID("started", key, attempt) }

// MessageID is the id a service gives a message that came without one: its
// time (Unix ns) and a random part drawn by the caller (two messages may be
// said at the same time), msg-<at>-<hex>. A client that retries gives the
// id itself, so that the log drops the repeat.
func MessageID(at int64, random [4]byte) string {
	return "msg-" + strconv.FormatInt(at, 10) + "-" + hex.EncodeToString(random[:])
}

// SplitModelEventID returns the parts of an id ModelEventID made; ok is
// false for any other id.
func SplitModelEventID(eid string) (tenant, response string, rawSeq uint64, n int, ok bool) {
	rest, found := strings.CutPrefix(eid, "model:")
	parts := strings.Split(rest, "/")
	if !found || len(parts) != 4 || ValidTenant(parts[0]) != nil {
		return "", "", 0, 0, false
	}
	if parts[1] != "-" {
		response = unescapeKeyPart.Replace(parts[1])
	}
	rawSeq, err := strconv.ParseUint(parts[2], 10, 64)
	if err != nil {
		return "", "", 0, 0, false
	}
	n, err = strconv.Atoi(parts[3])
	if err != nil || ModelEventID(parts[0], response, rawSeq, n) != eid {
		return "", "", 0, 0, false // not canonical
	}
	return parts[0], response, rawSeq, n, true
}

// RunEndedID names a run's end as its driver recorded it, with nonce (the
// runs service's random part): an end is applied the same however often it
// is written, and a plain id (the run and its version) could be claimed
// first by any role that writes TS_OUT, on its own subject, so that the
// driver's end was dropped as a duplicate.
func RunEndedID(tenant, run, nonce string) string {
	return id("run-ended", tenant, run, nonce)
}
