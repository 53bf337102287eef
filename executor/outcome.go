package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

// objectPutAttempts bounds the tries to store a large raw result.
const objectPutAttempts = 3

// publish sends an outcome message to the log and returns the log's
// acknowledgement, as jetstream's PublishMsg does but without a context
// per publish: a request on the connection, bounded by the API's default
// timeout. Every call in flight published through PublishMsg(e.hard, …)
// registered a context of its own with e.hard and took it out again, a
// lock and two map writes on one shared context per call and the largest
// part of what the publish cost the executor. A stream with no responder
// (a leader change) goes through PublishMsg, which tries again.
func (e *Executor) publish(ctx context.Context, m *nats.Msg) (*jetstream.PubAck, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stream, serr := events.StreamOf(m.Subject)
	if serr != nil { // no subject of the log: any stream's answer (tests)
		resp, err := e.store.nc.RequestMsg(m, e.store.timeout)
		if errors.Is(err, nats.ErrNoResponders) {
			return e.cfg.JS.PublishMsg(ctx, m)
		}
		if err != nil {
			return nil, err
		}
		ack := new(jetstream.PubAck)
		return ack, readPubAckTo(resp.Data, ack)
	}
	// Only the answer of the stream the subject is in is taken (ackedBy);
	// another stream's, or a stored message a direct get sent to the reply
	// subject, is waited past (ask.go). A stream without a responder (a
	// leader change) is asked again, as jetstream's PublishMsg would.
	resp, err := e.shown.ask(ctx, m, ackAnswer(stream))
	for try := 0; errors.Is(err, nats.ErrNoResponders) && try < noRespondersRetries; try++ {
		t := time.NewTimer(noRespondersWait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		resp, err = e.shown.ask(ctx, m, ackAnswer(stream))
	}
	if err != nil {
		return nil, err
	}
	ack := new(jetstream.PubAck)
	if err := readPubAckTo(resp.Data, ack); err != nil {
		return nil, err
	}
	return ack, nil
}

// A publish the log has no responder for (a stream leader change) is
// tried again this many times, this long apart: jetstream's PublishMsg's
// defaults.
const (
	noRespondersRetries = 2
	noRespondersWait    = 250 * time.Millisecond
)

// plainPubAck reads the acknowledgement the log gives almost every
// publish, {"stream":"S","seq":N} with an optional ,"duplicate": true
// (the server writes that space),
// without the JSON decoder (about 8% of the CPU the executor's handler
// spent per no-op call went to decoding it). Anything else (an error, a domain, another field,
// other spacing) is not ok, and publish decodes it in full.
func plainPubAck(d []byte) (*jetstream.PubAck, bool) {
	ack := new(jetstream.PubAck)
	if !plainPubAckTo(d, ack) {
		return nil, false
	}
	return ack, true
}

// plainPubAckTo is plainPubAck into ack, which it sets whole. The stream's
// name is kept when ack already holds it, so an ack reused for the answers
// of one stream (a window's decisions, window.go) allocates nothing.
func plainPubAckTo(d []byte, ack *jetstream.PubAck) bool {
	const head, seqKey = `{"stream":"`, `","seq":`
	rest, ok := bytes.CutPrefix(d, []byte(head))
	if !ok {
		return false
	}
	stream, rest, ok := bytes.Cut(rest, []byte(seqKey))
	if !ok || len(stream) == 0 || bytes.ContainsAny(stream, `"\`) {
		return false
	}
	i := 0
	for i < len(rest) && i < 20 && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	seq, err := strconv.ParseUint(string(rest[:i]), 10, 64)
	if err != nil {
		return false
	}
	dup := false
	switch tail := rest[i:]; {
	case string(tail) == "}":
	case string(tail) == `,"duplicate": true}`, string(tail) == `,"duplicate":true}`:
		dup = true
	default:
		return false
	}
	name := ack.Stream
	if name != string(stream) {
		name = string(stream)
	}
	*ack = jetstream.PubAck{Stream: name, Sequence: seq, Duplicate: dup}
	return true
}

// pubAck is the log's answer to a publish: an acknowledgement or an error.
type pubAck struct {
	jetstream.PubAck
	Error *jetstream.APIError `json:"error,omitempty"`
}

// outcomeOf encodes the event announcing a call's outcome.
func (j *job) outcomeOf(body events.Body, et events.ErrorType, msg string) *outcome {
	return j.outcomeWithID(events.ResultID(j.key), body, et, msg)
}

// outcomeWithID encodes an outcome event with the id id.
func (j *job) outcomeWithID(id string, body events.Body, et events.ErrorType, msg string) *outcome {
	subj, err := events.ResultSubject(j.tenant, j.key)
	if err != nil { // the tenant was valid when the event was decoded
		panic(err)
	}
	ev := j.event(id, body)
	data, err := j.e.encode(ev)
	if err != nil {
		panic(fmt.Sprintf("executor: encode outcome: %v", err)) // every field is set by us
	}
	return &outcome{Subject: subj, ID: ev.ID, Data: data, Error: et, Message: msg}
}

func nameVersion(t *registry.Tool, name string) (string, int) {
	if t == nil {
		return name, 0
	}
	return t.Name, t.Version
}

// failed is the outcome of a call that failed with et.
func (j *job) failed(t *registry.Tool, et events.ErrorType, msg string, attempts int) *outcome {
	name, ver := nameVersion(t, j.cc.Name)
	return j.outcomeOf(&events.CallFailed{Name: name, Version: ver, Key: j.key, Error: et, Message: msg, Attempts: attempts}, et, msg)
}

func (j *job) deniedOutcome(t *registry.Tool, rec *record) *outcome {
	msg := "a person denied this call"
	if rec.ApprovalBy != "" {
		msg += " (" + rec.ApprovalBy + ")"
	}
	if rec.ApprovalReason != "" {
		msg += ": " + rec.ApprovalReason
	}
	msg += "; nothing was run — do not repeat it unchanged"
	return j.failed(t, events.ErrApprovalDenied, msg, rec.Attempt)
}

func (j *job) unavailable(t *registry.Tool, until time.Time, attempts int) *outcome {
	return j.failed(t, events.ErrUnavailable, fmt.Sprintf(
		"tool %s failed %d times in a row for tenant %s, so calls to it fail fast until %s; nothing was run — try again later or use another tool",
		t.Name, j.e.cfg.BreakerFailures, j.tenant, until.UTC().Format(time.RFC3339)), attempts)
}

// succeeded is the outcome of a call whose tool returned result (canonical
// JSON). A result above ResultInlineMax is stored in the object store under
// the call's key and referenced; the summary is always bounded.
func (j *job) succeeded(t *registry.Tool, result []byte, attempts int) (*outcome, error) {
	body := &events.CallSucceeded{Name: t.Name, Version: t.Version, Key: j.key, Attempts: attempts, FreshFor: t.FreshFor}
	if len(result) > j.e.cfg.ResultInlineMax {
		stored := result
		if kr := j.e.cfg.Keys; kr != nil { // the raw result is the user's data too: sealed as the log is
			sealed, err := events.SealBytes(kr, j.tenant, events.UserScope(j.ev.User), j.key, result)
			if err != nil {
				return nil, fmt.Errorf("executor: seal raw result: %w", err)
			}
			stored = sealed
		}
		var err error
		for i := range objectPutAttempts {
			if _, err = j.e.obs.PutBytes(j.e.hard, j.key, stored); err == nil {
				break
			}
			select {
			case <-j.e.hard.Done():
				return nil, context.Cause(j.e.hard)
			case <-time.After(time.Duration(i+1) * 50 * time.Millisecond):
			}
		}
		if err != nil {
			return nil, fmt.Errorf("executor: store raw result: %w", err)
		}
		body.RawRef = j.e.cfg.ObjectBucket + "/" + j.key
		// What the verifier reads of it, sealed with the event as the raw result is.
		body.Excerpt, body.Cuts = excerpt(result, j.e.cfg.ResultInlineMax)
	} else {
		body.Result = result
	}
	body.Summary = summarize(result, body.RawRef, j.e.cfg.SummaryMax)
	return j.outcomeOf(body, "", ""), nil
}
