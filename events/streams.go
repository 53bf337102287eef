package events

import (
	"fmt"
	"strings"
)

// The log is a few JetStream streams, one per family of subjects, so a
// projection reads exactly one stream, unfiltered, and most of what it
// reads is what it needs. (A consumer filtered to a subset of a stream with
// many subjects costs the server far more per message than an unfiltered
// one: docs/design.md, "The stream layout".) A family groups the kinds of
// subject that are read together:
//
//	TS_IN     ts.in.>  ts.raw.>             raw provider events: verbatim until ingest seals them
//	                                        (ts.raw), then deleted; bounded retention
//	TS_MODEL  ts.model.>  ts.ctl.>          canonical model events; the registry, clock ticks
//	TS_CALLS  ts.call.>  ts.approval.>  ts.exec.>
//	                                        calls decided, approvals, execution progress
//	TS_OUT    ts.resp.>  ts.result.>  ts.answer.>  ts.check.>  ts.run.>
//	                                        response outcomes, results, answers and verdicts,
//	                                        answers' constraint checks, runs (rounds settled,
//	                                        the calls they wait for)
//	TS_MEM    ts.mem.>                      memory
//	TS_GW     ts.gw.>                       the gateway's relayed stream frames (gateway.go)
//
// Each stream keeps its own sequence space: a projection's checkpoint is a
// sequence of the one stream it reads, and replay reads that stream in the
// order it was stored.
const (
	StreamIn     = "TS_IN"
	StreamModel  = "TS_MODEL"
	StreamCalls  = "TS_CALLS"
	StreamOut    = "TS_OUT"
	StreamMemory = "TS_MEM"
)

// streamOfKind maps a subject's kind token to its stream.
var streamOfKind = map[string]string{
	"in": StreamIn, "raw": StreamIn, "model": StreamModel, "ctl": StreamModel,
	"call": StreamCalls, "approval": StreamCalls, "exec": StreamCalls,
	"resp": StreamOut, "result": StreamOut, "answer": StreamOut, "check": StreamOut, "run": StreamOut,
	"mem": StreamMemory, "gw": StreamGateway,
}

// StreamSubjects are the subjects each stream holds, by stream, in the
// order of Streams.
var StreamSubjects = func() map[string][]string {
	out := map[string][]string{}
	for _, kind := range []string{"in", "raw", "model", "ctl", "call", "approval", "exec", "resp", "result", "answer", "check", "run", "mem", "gw"} {
		s := streamOfKind[kind]
		out[s] = append(out[s], SubjectPrefix+"."+kind+".>")
	}
	return out
}()

// Streams lists the log's streams.
var Streams = []string{StreamIn, StreamModel, StreamCalls, StreamOut, StreamMemory, StreamGateway}

// StreamOf returns the stream that holds subject, a subject of the log or
// a filter of one kind (ts.call.>, ts.model.acme.>). A subject of no kind
// the log holds, or a filter spanning kinds (ts.>, ts.*.acme.x) returns
// ErrMalformed.
func StreamOf(subject string) (string, error) {
	parts := strings.SplitN(subject, ".", 3)
	if len(parts) >= 2 && parts[0] == SubjectPrefix {
		if s, ok := streamOfKind[parts[1]]; ok {
			return s, nil
		}
	}
	return "", fmt.Errorf("%w: %q is not a subject of one stream of the log", ErrMalformed, subject)
}

// StreamOfAll returns the one stream that holds every subject of subjects;
// ErrMalformed when they lie in several streams or none.
func StreamOfAll(subjects []string) (string, error) {
	stream := ""
	for _, s := range subjects {
		st, err := StreamOf(s)
		if err != nil {
			return "", err
		}
		if stream != "" && st != stream {
			return "", fmt.Errorf("%w: %v lie in streams %s and %s; a projection reads one", ErrMalformed, subjects, stream, st)
		}
		stream = st
	}
	if stream == "" {
		return "", fmt.Errorf("%w: no subjects", ErrMalformed)
	}
	return stream, nil
}

// Clock ticks (events.Tick) are written into every stream whose readers
// decide by event time, on a subject of the system tenant, so a projection
// finds them in order among what it reads.
const (
	// ModelClockSubject: ticks in TS_MODEL (the assembler's idle deadline).
	ModelClockSubject = SubjectPrefix + ".ctl." + SystemTenant + ".clock"
	// InClockSubject: ticks in TS_IN (ingest's gap wait).
	InClockSubject = SubjectPrefix + ".in." + SystemTenant + ".clock"
)

// ClockSubjects are the subjects the clock writes each tick to.
var ClockSubjects = []string{ModelClockSubject, InClockSubject}
