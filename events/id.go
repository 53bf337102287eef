package events

import (
	"strconv"
	"strings"
)

// Event ids are derived from their cause, never from a clock or a random
// source, so that an event emitted twice (a relay retry, a replay, a
// restarted executor) carries the same id and JetStream's duplicate window
// (Nats-Msg-Id) keeps one copy.

func id(kind string, tenant string, parts ...string) string {
	var b strings.Builder
	b.WriteString(kind)
	b.WriteByte(':')
	b.WriteString(tenant)
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(p)
	}
	return b.String()
}

// ModelEventID names the n-th canonical model event normalised from the raw
// event at stream sequence rawSeq.
func ModelEventID(tenant, response string, rawSeq uint64, n int) string {
	return id("model", tenant, response, strconv.FormatUint(rawSeq, 10), strconv.Itoa(n))
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
// Empty run or step are written as "-".
func IdempotencyKey(tenant, run, step, call string) string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	return tenant + "/" + dash(run) + "/" + dash(step) + "/" + call
}

// ExecutionID names an execution event of a call by what it records
// (started, succeeded, failed, approval_requested…) and its attempt.
func ExecutionID(what, key string, attempt int) string {
	return what + ":" + key + "#" + strconv.Itoa(attempt)
}

// VerifiedID names the verifier's verdict on a response's answer.
func VerifiedID(tenant, response string) string { return id("verified", tenant, response) }
