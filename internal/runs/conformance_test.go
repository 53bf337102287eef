package runs_test

import (
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/projector/projectortest"
)

// TestConformance runs the projection contract's suite on a recorded
// history of TS_OUT: runs of three tenants whose rounds settle with every
// outcome, wait for approvals, degrade and replan, plan writes (one
// stale), input messages, and messages that are not events or name no run.
// Its replay step is replay-equals-live for the runs view.
func TestConformance(t *testing.T) {
	projectortest.Run(t, projectortest.Subject{
		New:    func() projector.Projection { return runs.New(runs.Config{DegradeAfter: 2, RoundsMax: 4}) },
		Record: recordRuns,
	})
}

// TestCallsConformance runs the suite on the copy of TS_CALLS into the
// runs' stream: calls decided, approvals asked for and granted (one
// before its request), denials and executions that it leaves alone.
func TestCallsConformance(t *testing.T) {
	projectortest.Run(t, projectortest.Subject{
		New:    func() projector.Projection { return runs.Calls{} },
		Record: recordCalls,
	})
}

func msg(t testing.TB, subj string, err error, ev *events.Event) projectortest.Message {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	m, err := projectortest.Event(subj, ev)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func recordRuns(t testing.TB) []projectortest.Message {
	var out []projectortest.Message
	formats := []string{"anthropic", "openai-chat", "openai-responses", "gemini"}
	n := 0
	next := func() int64 { n++; return int64(n) * 1e6 }
	for i := range 24 {
		tenant := []string{"acme", "globex", "initech"}[i%3]
		run := fmt.Sprint("run", i%5)
		resp := fmt.Sprint("resp", i)
		env := func(item, call string) *events.Event {
			return &events.Event{Tenant: tenant, User: "u" + tenant, Run: run, Response: resp, Item: item, CallID: call, At: next()}
		}
		if i%4 == 0 {
			ev := env("", "")
			ev.ID, ev.Body = fmt.Sprintf("msg-%d", i), &events.RunMessage{Role: "user", Text: fmt.Sprint("question ", i), Format: formats[i%4]}
			subj, err := events.RunSubject(tenant, run)
			out = append(out, msg(t, subj, err, ev))
		}
		calls := i % 3
		for c := range calls {
			item, call := fmt.Sprint("it", c), fmt.Sprintf("call_%d_%d", i, c)
			key := events.IdempotencyKey(tenant, run, resp, call)
			rc := &events.RunCall{Verdict: events.CallVerdictCompleted, Name: "lookup", Order: c, Arguments: []byte(fmt.Sprintf(`{"q":%d}`, i%2))}
			if i%5 == 3 && c == 1 {
				rc = &events.RunCall{Verdict: events.CallVerdictRejected, Name: "lookup", Order: c, Reason: events.ReasonSchemaViolation, Detail: "at '/q': want integer"}
			}
			ev := env(item, call)
			ev.ID, ev.Body = events.RunCallID(tenant, resp, item, rc.Verdict), rc
			subj, err := events.RunSubject(tenant, run)
			out = append(out, msg(t, subj, err, ev))
			if rc.Verdict != events.CallVerdictCompleted {
				continue
			}
			if i%7 == 2 {
				ap := env(item, call)
				ap.ID, ap.Body = events.RunCallID(tenant, resp, key, events.CallVerdictApproval), &events.RunCall{Verdict: events.CallVerdictApproval, Name: "lookup", Key: key}
				out = append(out, msg(t, subj, err, ap))
				gr := env(item, call)
				gr.ID, gr.Body = events.RunCallID(tenant, resp, key, events.CallVerdictApproved), &events.RunCall{Verdict: events.CallVerdictApproved, Key: key}
				out = append(out, msg(t, subj, err, gr))
			}
			res := env(item, call)
			res.ID = "result:" + key + "#0"
			if (i+c)%3 != 0 {
				res.Body = &events.CallFailed{Name: "lookup", Key: key, Error: events.ErrProviderTimeout, Message: "no answer in 5s"}
			} else {
				res.Body = &events.CallSucceeded{Name: "lookup", Key: key, Result: []byte(fmt.Sprintf(`{"n":%d}`, i%2)), Summary: "n"}
			}
			rsubj, err := events.ResultSubject(tenant, key)
			out = append(out, msg(t, rsubj, err, res))
		}
		oc := env("", "")
		oc.ID = events.ResponseOutcomeID(tenant, resp)
		oc.Body = &events.ResponseOutcome{Status: events.StatusCompleted, Calls: calls, Provider: formats[i%4], Text: map[bool]string{true: "the answer"}[calls == 0]}
		osubj, err := events.ResponseSubject(tenant, resp)
		out = append(out, msg(t, osubj, err, oc))
		if i%6 == 5 {
			pw := env("", "")
			pw.ID, pw.Body = fmt.Sprintf("plan-%d", i), &events.PlanWritten{Expected: uint64(i % 2), Plan: []byte(`{"goal":"g","steps":[{"id":"s","accept":{"tool":"lookup","pointer":"/n","equals":1}}]}`)}
			subj, err := events.RunSubject(tenant, run)
			out = append(out, msg(t, subj, err, pw))
		}
		if i == 11 {
			out = append(out, projectortest.Message{Subject: "ts.result.acme.x", Data: []byte("\x00not an event")})
			bad := &events.Event{ID: "norun", Tenant: "acme", At: next(), Body: &events.CallSucceeded{Name: "x"}}
			subj, err := events.ResultSubject("acme", "x")
			out = append(out, msg(t, subj, err, bad))
		}
	}
	return out
}

func recordCalls(t testing.TB) []projectortest.Message {
	var out []projectortest.Message
	n := 0
	next := func() int64 { n++; return int64(n) * 1e6 }
	for i := range 18 {
		tenant := []string{"acme", "globex"}[i%2]
		run := []string{"", "runA", "runB"}[i%3]
		resp := fmt.Sprint("resp", i)
		call := fmt.Sprint("call", i)
		env := &events.Event{ID: events.CompletedID(tenant, resp, "it"), Tenant: tenant, Run: run, Response: resp, Item: "it", CallID: call, At: next()}
		switch i % 3 {
		case 0:
			env.Body = &events.CallCompleted{Name: "lookup", Arguments: []byte(`{}`)}
		case 1:
			env.ID, env.Body = events.RejectedID(tenant, resp, "it"), &events.CallRejected{Name: "lookup", Reason: events.ReasonInvalidJSON, Arguments: []byte("{")}
		default:
			env.ID, env.Body = events.IncompleteID(tenant, resp, "it"), &events.CallIncomplete{Name: "lookup", Reason: events.ReasonTruncated, Partial: []byte(`{"q":`)}
		}
		subj, err := events.CallSubject(tenant, "lookup")
		out = append(out, msg(t, subj, err, env))
		if i%3 != 0 {
			continue
		}
		key := events.IdempotencyKey(tenant, run, resp, call)
		grant := &events.Event{ID: "approval:" + key, Tenant: tenant, Run: run, Step: resp, CallID: call, At: next(), Body: &events.ApprovalGranted{By: "ops"}}
		gsubj, gerr := events.ApprovalSubject(tenant, key)
		if i%2 == 0 { // the decision before the request
			out = append(out, msg(t, gsubj, gerr, grant))
		}
		req := &events.Event{ID: "approval_requested:" + key + "#0", Tenant: tenant, Run: run, Response: resp, Item: "it", CallID: call, At: next(),
			Body: &events.ApprovalRequested{Name: "lookup", Key: key}}
		esubj, err := events.ExecSubject(tenant, key)
		out = append(out, msg(t, esubj, err, req))
		started := &events.Event{ID: "started:" + key + "#1", Tenant: tenant, Run: run, Response: resp, At: next(), Body: &events.ExecutionStarted{Name: "lookup", Key: key}}
		out = append(out, msg(t, esubj, err, started))
		if i%2 == 1 {
			grant.Body = &events.ApprovalGranted{By: "ops"}
			out = append(out, msg(t, gsubj, gerr, grant))
		}
	}
	out = append(out, projectortest.Message{Subject: "ts.call.acme.x", Data: []byte("garbage")})
	return out
}
