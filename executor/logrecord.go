package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// Outcomes recorded in the log. A decision that needs no lease — the
// outcome of a tool with side_effect: none and no retries, or a failure
// decided before anything runs (gateway, dependencies, circuit breaker) —
// is not written to the record bucket when the call has no record there:
// its outcome event, published with the deterministic id events.ResultID(key) and
// the condition that the key's result subject holds no message yet
// (Nats-Expected-Last-Subject-Sequence: 0), is the record. The publish is
// the compare-and-set: of two deciders, one lands, and the other finds the
// subject taken and reads what landed. This saves the bucket write, the
// larger of the two waited round trips of such a call.
//
// What a record says is then read from either place: the bucket first, and
// when it holds nothing, the first message on the result subject whose id
// is events.ResultID(key) (loggedRecord). Refusals of other calls under the same
// key (ConflictID) share the subject and are skipped. Every outcome
// message carries in headers what its event does not: the stream sequence
// of the CallCompleted decided (headerInputSeq) and the tool name as the
// call gave it (headerCallName), so a later input of the key is told apart
// as a duplicate or another call exactly as against a record in the
// bucket.
//
// Why it keeps invariant 5 (every path that writes the bucket looks at the
// log first, and the log path looks at the bucket last):
//
//   - A call decided in the log, then any input with its key: the input's
//     job reads the bucket (nothing) and the log (the outcome) before it
//     decides anything; a first delivery that skipped that read
//     (optimistic) looks at the log before it writes a lease or an
//     approval wait, and a log decision of its own finds the subject taken.
//     So a duplicate is acknowledged and another call is refused
//     (idempotency_conflict), never run.
//   - A call with a record in the bucket (a lease held, an approval
//     waited for, an outcome), then a call that would decide in the log: it
//     reads the bucket just before it publishes, finds the record and
//     decides by it (refused, or a duplicate).
//   - Both at once, in two processes, within the time of one read: the log
//     decider read the bucket before the lease was written, and the leased
//     call read the log before the outcome landed. The leased call runs;
//     its outcome cannot be the key's (the log has one), so its settle
//     finds the id taken by another call's outcome and refuses it with a
//     CallFailed idempotency_conflict that says the call ran and where its
//     result is (its record). At most one side effect per key still holds
//     (the log's call has none), and nothing is silent; only the promise
//     that a call whose key is taken never runs is weaker in this race,
//     which needs two different calls sharing a tenant, run, step and call
//     id.
//
// A crash anywhere: before the publish landed, the redelivered input runs
// the side-effect-free tool again; after it, the input finds the outcome
// and is acknowledged as a duplicate.

const (
	// headerInputSeq is the stream sequence of the CallCompleted whose
	// outcome a log-recorded message is.
	headerInputSeq = "Ts-Input-Seq"
	// headerCallName is the tool name the call gave ("name" or "name@2").
	headerCallName = "Ts-Call-Name"
	// loggedScanMax bounds the messages of a result subject read to find
	// its outcome (refusals under the key come before it only while the
	// key's own call is still running).
	loggedScanMax = 64
)

// logRecordable says whether the decision over a record at rev may be the
// log's alone: no record in the bucket is known (rev 0), the call is not
// carried by an approval, and this job has not found the subject taken.
func (j *job) logRecordable(rev uint64) bool {
	return rev == 0 && !j.viaApproval && !j.logTaken
}

// recordInLog decides the call by publishing out as its first message on
// its result subject, then acknowledges the carrier. It returns
// errConflict when the bucket holds a record for the key after all, or the
// subject is taken: the loop reads both again.
//
// The look and the publish go in a window with the decisions of other
// jobs made meanwhile (window.go).
func (j *job) recordInLog(out *outcome) error {
	found, dup, settled, err := j.e.decideInLog(j.e.hard, j.tenant, j.key, out, j.seq, j.cc.Name, j.carrier)
	if found {
		j.optimistic = false
		return errConflict
	}
	if wrongLastSeq(err) || err == nil && dup {
		// Decided or refused by someone else meanwhile. Should the subject
		// hold no outcome after all (only refusals), the next try records
		// in the bucket.
		j.optimistic, j.logTaken = false, true
		return errConflict
	}
	if err != nil {
		return fmt.Errorf("executor: record outcome %s in the log: %w", out.ID, err)
	}
	j.count(out)
	if settled { // the window's leader acknowledged the input (window.go's ackInputs)
		j.settled = true
		return nil
	}
	j.settleLogged()
	return nil
}

// outcomeMsg is the message that publishes out, the outcome of the call
// whose input is at inputSeq and that names its tool name; first: only as
// the first message of its subject.
func outcomeMsg(out *outcome, msgID string, inputSeq uint64, name string, first bool) *nats.Msg {
	// The message and its header's values are one allocation, not five.
	return new(outcomeMsgBuf).set(out, msgID, inputSeq, name, first)
}

// outcomeMsgBuf is an outcome's message with its header's values. One
// may be set again once the message it made is no longer used (a window's
// decisions are reused: window.go): its header map is kept.
type outcomeMsgBuf struct {
	msg nats.Msg
	v   [4]string
	h   nats.Header
}

// set makes b's message the one outcomeMsg describes and returns it:
// published under msgID (Executor.msgID of out's subject and id).
func (b *outcomeMsgBuf) set(out *outcome, msgID string, inputSeq uint64, name string, first bool) *nats.Msg {
	b.v = [4]string{msgID, strconv.FormatUint(inputSeq, 10), name, "0"}
	if b.h == nil {
		b.h = make(nats.Header, 4)
	} else {
		clear(b.h)
	}
	b.h[jetstream.MsgIDHeader] = b.v[0:1:1]
	b.h[headerInputSeq] = b.v[1:2:2]
	b.h[headerCallName] = b.v[2:3:3]
	if first {
		b.h[jetstream.ExpectedLastSubjSeqHeader] = b.v[3:4:4]
	}
	b.msg = nats.Msg{Subject: out.Subject, Data: out.Data, Header: b.h}
	return &b.msg
}

// reset drops what b's message referred to (the outcome's bytes), keeping
// the header map for the next set.
func (b *outcomeMsgBuf) reset() {
	b.msg = nats.Msg{}
	b.v = [4]string{}
	clear(b.h)
}

// settleLogged acknowledges the carrier of a call whose outcome is in the
// log already.
func (j *job) settleLogged() {
	if h := j.e.cfg.Hooks; h != nil && h.BeforeAck != nil {
		h.BeforeAck(j.key)
	}
	j.ack()
}

// checkLog is the look at the log before a write to the bucket by a job
// that knows of no record (rev 0): errConflict when the key's result
// subject holds anything, so the loop reads the record and the log again
// and decides by them. An empty subject, the common case, costs one direct
// get by subject, with no body to encode or decode.
func (j *job) checkLog() error {
	subj, err := events.ResultSubject(j.tenant, j.key)
	if err != nil {
		return err
	}
	taken, err := j.e.subjectTaken(j.e.hard, subj)
	if err != nil {
		return err
	}
	if taken {
		j.optimistic = false
		return errConflict
	}
	return nil
}

// subjectTaken reports whether the result stream holds a message on subj.
func (e *Executor) subjectTaken(ctx context.Context, subj string) (bool, error) {
	if e.resultsDirect == "" {
		_, err := e.results.GetLastMsgForSubject(ctx, subj)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m, err := e.store.ask.ask(ctx, &nats.Msg{Subject: e.resultsDirect + subj}, entryAnswer(e.resultsName, subj))
	if err != nil {
		return false, fmt.Errorf("executor: look at %s: %w", subj, err)
	}
	switch st := m.Header.Get("Status"); st {
	case "":
		return true, nil
	case "404":
		return false, nil
	default:
		return false, fmt.Errorf("executor: look at %s: status %s %s", subj, st, m.Header.Get("Description"))
	}
}

// loggedRecord returns the record a call's outcome in the log stands for:
// the first message on the key's result subject with the id events.ResultID(key)
// (tagged, Executor.msgID, or plain as logs written before tags hold it), as
// a done record (logged set); nil when there is none.
func (e *Executor) loggedRecord(ctx context.Context, tenant, key string) (*record, error) {
	subj, err := events.ResultSubject(tenant, key)
	if err != nil {
		return nil, err
	}
	id := events.ResultID(key)
	tagged := e.msgID(subj, id)
	seq := uint64(1)
	for range loggedScanMax {
		var raw *jetstream.RawStreamMsg
		err := retryUntil(ctx, e.store.retry, e.store.deadline(), func(ctx context.Context) error {
			var err error
			raw, err = e.readMsg(ctx, e.results, e.resultsName, seq, subj)
			return err
		})
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("executor: read the outcome of %s: %w", key, err)
		}
		if h := raw.Header.Get(jetstream.MsgIDHeader); h == tagged || h == id {
			return recordOfOutcome(key, raw, e.cfg.Keys)
		}
		seq = raw.Sequence + 1
	}
	return nil, fmt.Errorf("executor: no outcome of %s among the first %d messages of its result subject", key, loggedScanMax)
}

// recordOfOutcome is the done record an outcome message stands for.
func recordOfOutcome(key string, raw *jetstream.RawStreamMsg, kr events.Keyring) (*record, error) {
	ev, err := events.DecodeAtWith(raw.Subject, raw.Data, kr)
	if err != nil {
		return nil, fmt.Errorf("executor: the outcome of %s at sequence %d: %w", key, raw.Sequence, err)
	}
	out := &outcome{Subject: raw.Subject, ID: ev.ID, Data: raw.Data}
	switch b := ev.Body.(type) {
	case *events.CallSucceeded:
	case *events.CallFailed:
		out.Error, out.Message = b.Error, b.Message
	default:
		return nil, fmt.Errorf("executor: the outcome of %s at sequence %d is a %s", key, raw.Sequence, ev.Kind)
	}
	rec := &record{Key: key, State: stateDone, Name: raw.Header.Get(headerCallName),
		Response: ev.Response, Item: ev.Item, Outcome: out, logged: true}
	if s := raw.Header.Get(headerInputSeq); s != "" {
		rec.InputSeq, _ = strconv.ParseUint(s, 10, 64)
	}
	return rec, nil
}

// settledByOther is settle's check when the log reports the outcome's id
// as a duplicate: the id was taken by the outcome of the same call (a
// republish) or, in the race described above, of another call decided in
// the log. It returns the other call's identity, or "".
func (j *job) settledByOther(out *outcome) (string, error) {
	rec, err := j.e.loggedRecord(j.e.hard, j.tenant, j.key)
	if err != nil || rec == nil || bytes.Equal(rec.Outcome.Data, out.Data) {
		return "", err
	}
	if rec.Response != j.ev.Response || rec.Item != j.ev.Item {
		return fmt.Sprintf("response %s, item %s", rec.Response, rec.Item), nil
	}
	return "", nil
}

// wrongLastSeq reports a publish refused because the subject's last
// sequence was not the expected one.
func wrongLastSeq(err error) bool {
	if err == nil { // errors.As would still reflect on its target
		return false
	}
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}
