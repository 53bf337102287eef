package runs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/runs"
	"github.com/toolstream/toolstream/projector"
)

// pipeline applies events of TS_CALLS to the Calls projection and events
// of TS_OUT — with the RunCall events Calls emitted, in the order they
// were emitted — to the runs projection, each on a view of its own, as
// serve runs them.
type pipeline struct {
	t        *testing.T
	dir      string
	cfg      runs.Config
	calls    *projector.Local
	runs     *projector.Local
	callSeq  uint64
	outSeq   uint64
	outLog   []projector.Msg // every TS_OUT message, for replay
	emitted  []projector.Emitted
	eventNum int
}

func newPipeline(t *testing.T, cfg runs.Config) *pipeline {
	p := &pipeline{t: t, dir: t.TempDir(), cfg: cfg}
	p.open()
	t.Cleanup(p.close)
	return p
}

func (p *pipeline) open() {
	var err error
	if p.calls, err = projector.NewLocal(filepath.Join(p.dir, "calls"), runs.Calls{}); err != nil {
		p.t.Fatal(err)
	}
	if p.runs, err = projector.NewLocal(filepath.Join(p.dir, "runs"), runs.New(p.cfg)); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pipeline) close() {
	if p.calls != nil {
		p.calls.Close()
		p.runs.Close()
		p.calls, p.runs = nil, nil
	}
}

// out applies one TS_OUT message to the runs view.
func (p *pipeline) out(subject string, ev *events.Event) {
	data, err := events.Encode(ev)
	if err != nil {
		p.t.Fatal(err)
	}
	p.outSeq++
	m := projector.Msg{Seq: p.outSeq, Subject: subject, Time: ev.At, Data: data}
	p.outLog = append(p.outLog, m)
	em, err := p.runs.Apply(context.Background(), &projector.Msg{Seq: m.Seq, Subject: m.Subject, Time: m.Time, Data: m.Data})
	if err != nil {
		p.t.Fatal(err)
	}
	p.emitted = append(p.emitted, em...)
}

// call applies one TS_CALLS message to the Calls view, and what it emits
// to the runs view.
func (p *pipeline) call(subject string, ev *events.Event) {
	data, err := events.Encode(ev)
	if err != nil {
		p.t.Fatal(err)
	}
	p.callSeq++
	em, err := p.calls.Apply(context.Background(), &projector.Msg{Seq: p.callSeq, Subject: subject, Time: ev.At, Data: data})
	if err != nil {
		p.t.Fatal(err)
	}
	for _, e := range em {
		p.out(e.Subject, e.Event)
	}
}

// args reads "key=value" and "key='value with spaces'" fields.
func fields(t *testing.T, line string) (string, map[string]string) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	out := map[string]string{}
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		k, v, ok := strings.Cut(rest, "=")
		if !ok {
			t.Fatalf("field %q: want key=value", rest)
		}
		if strings.HasPrefix(v, "'") {
			end := strings.Index(v[1:], "'")
			if end < 0 {
				t.Fatalf("unterminated quote in %q", line)
			}
			out[k], rest = v[1:end+1], v[end+2:]
			continue
		}
		val, next, _ := strings.Cut(v, " ")
		out[k], rest = val, next
	}
	return kind, out
}

func atoi(t *testing.T, s string) int {
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// event applies one line of input.
func (p *pipeline) event(line string) {
	t := p.t
	kind, f := fields(t, line)
	tenant := f["tenant"]
	if tenant == "" {
		tenant = "acme"
	}
	p.eventNum++
	ev := &events.Event{ID: fmt.Sprintf("in-%d", p.eventNum), Tenant: tenant, User: f["user"], Run: f["run"], Response: f["resp"],
		Item: f["item"], CallID: f["id"], At: int64(p.eventNum) * 1e9}
	if ev.Item == "" {
		ev.Item = ev.CallID
	}
	key := events.IdempotencyKey(tenant, ev.Run, ev.Response, ev.CallID)
	subj := func(s string, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	switch kind {
	case "completed":
		ev.Body = &events.CallCompleted{Name: f["name"], Order: atoi(t, f["order"]), Arguments: []byte(f["args"])}
		p.call(subj(events.CallSubject(tenant, f["name"])), ev)
	case "rejected":
		ev.Body = &events.CallRejected{Name: f["name"], Order: atoi(t, f["order"]), Reason: events.Reason(f["reason"]), Detail: f["detail"], Arguments: []byte(f["args"]),
			From: events.Provenance{Bytes: len(f["args"])}}
		p.call(subj(events.CallSubject(tenant, f["name"])), ev)
	case "incomplete":
		ev.Body = &events.CallIncomplete{Name: f["name"], Order: atoi(t, f["order"]), Reason: events.Reason(f["reason"]), Detail: f["detail"], Partial: []byte(f["partial"]),
			From: events.Provenance{Bytes: len(f["partial"])}}
		p.call(subj(events.CallSubject(tenant, f["name"])), ev)
	case "approval":
		ev.Body = &events.ApprovalRequested{Name: f["name"], Key: key}
		p.call(subj(events.ExecSubject(tenant, key)), ev)
	case "granted", "denied":
		dec := &events.Event{ID: "approval:" + key, Tenant: tenant, Run: ev.Run, Step: ev.Response, CallID: ev.CallID, At: ev.At, Body: &events.ApprovalGranted{By: "ops"}}
		if kind == "denied" {
			dec.Body = &events.ApprovalDenied{By: "ops"}
		}
		p.call(subj(events.ApprovalSubject(tenant, key)), dec)
	case "outcome":
		ev.Item, ev.CallID = "", ""
		out := &events.ResponseOutcome{Status: events.ResponseStatus(f["status"]), Calls: atoi(t, f["calls"]), Provider: f["provider"], Text: f["text"],
			Reason: events.Reason(f["reason"]), ErrorCode: f["code"]}
		if in, o, ok := strings.Cut(f["usage"], "/"); ok {
			out.Usage = events.Usage{Input: int64(atoi(t, in)), Output: int64(atoi(t, o))}
		}
		ev.Body = out
		p.out(subj(events.ResponseSubject(tenant, ev.Response)), ev)
	case "succeeded":
		ev.Body = &events.CallSucceeded{Name: f["name"], Key: key, Result: []byte(f["result"]), Summary: f["summary"], RawRef: f["ref"]}
		p.out(subj(events.ResultSubject(tenant, key)), ev)
	case "failed":
		ev.Body = &events.CallFailed{Name: f["name"], Key: key, Error: events.ErrorType(f["error"]), Message: f["message"]}
		p.out(subj(events.ResultSubject(tenant, key)), ev)
	case "message":
		ev.Body = &events.RunMessage{Role: f["role"], Text: f["text"], Format: f["format"]}
		p.out(subj(events.RunSubject(tenant, events.RunOf(ev))), ev)
	case "ended":
		ev.Body = &events.RunEnded{Status: f["status"], Reason: f["reason"], Detail: f["detail"], Driver: f["driver"]}
		p.out(subj(events.RunSubject(tenant, events.RunOf(ev))), ev)
	case "plan":
		ev.Body = &events.PlanWritten{Expected: uint64(atoi(t, f["expected"])), Plan: []byte(f["plan"])}
		p.out(subj(events.RunSubject(tenant, events.RunOf(ev))), ev)
	default:
		t.Fatalf("unknown event %q", kind)
	}
}

func (p *pipeline) view() projector.Reader { return p.runs.Runner().View() }

func indent(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	return strings.TrimRight(out.String(), "\n")
}

// describe writes an emitted event for the expected output.
func describe(e projector.Emitted) string {
	ev := e.Event
	switch b := ev.Body.(type) {
	case *events.RoundSettled:
		var calls []string
		for _, c := range b.Calls {
			s := c.Name + ":" + string(c.Outcome)
			if c.Error != "" {
				s += "(" + c.Error + ")"
			}
			calls = append(calls, s)
		}
		return fmt.Sprintf("settled %s round=%d status=%s format=%s version=%d calls=[%s]\n%s", ev.ID, b.Round, b.Status, b.Format, b.Version,
			strings.Join(calls, " "), indent(b.Messages))
	case *events.RunDegraded:
		return fmt.Sprintf("degraded %s round=%d failures=%d threshold=%d", ev.ID, b.Round, b.FailuresInRow, b.Threshold)
	case *events.ReplanSuggested:
		return fmt.Sprintf("replan %s round=%d reason=%s: %s", ev.ID, b.Round, b.Reason, b.Detail)
	case *events.RunCall:
		return fmt.Sprintf("runcall %s %s", ev.ID, b.Verdict)
	}
	return fmt.Sprintf("%s %s", ev.Kind, ev.ID)
}

func runLine(r runs.Run) string {
	s := fmt.Sprintf("run %s/%s status=%s version=%d rounds=%d settled=%d calls=%d failures_in_row=%d failures=%d no_new_evidence=%d",
		r.Tenant, r.ID, r.Status, r.Version, r.Rounds, r.Settled, r.Calls, r.FailuresInRow, r.Failures, r.NoNewEvidence)
	if r.Waiting > 0 {
		s += fmt.Sprintf(" waiting=%d", r.Waiting)
	}
	if r.Degraded {
		s += " degraded"
	}
	if r.Ended != "" {
		s += fmt.Sprintf(" ended=%s end_reason=%s", r.Ended, r.EndReason)
	}
	if r.Format != "" {
		s += " format=" + r.Format
	}
	if len(r.Plan) > 0 {
		s += fmt.Sprintf(" plan_version=%d", r.PlanVersion)
	}
	if len(r.Accepted) > 0 {
		s += " accepted=" + strings.Join(r.Accepted, ",")
	}
	if r.InputTokens+r.OutputTokens > 0 {
		s += fmt.Sprintf(" tokens=%d/%d", r.InputTokens, r.OutputTokens)
	}
	return s
}

// TestDataDriven runs testdata/*: events in, run state and messages out.
//
//	apply          one event a line; prints what the runs projection emitted
//	run            [tenant=T] run=R: the run's state and its rounds' calls
//	history        run=R format=F [budget=N] [keep=K]: the history and its counts
//	restart        closes both views and opens them again (a process restart)
//	replay         rebuilds the runs view from its log: digest equal to live
//	plan-verdict   run=R seq=N
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/runs", func(t *testing.T, path string) {
		cfg := runs.Config{}
		var p *pipeline
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if p == nil || d.Cmd == "config" {
				if d.Cmd == "config" {
					for _, a := range d.CmdArgs {
						switch a.Key {
						case "degrade-after":
							cfg.DegradeAfter = atoi(t, a.Vals[0])
						case "rounds-max":
							cfg.RoundsMax = atoi(t, a.Vals[0])
						case "inline-max":
							cfg.ResultInlineMax = atoi(t, a.Vals[0])
						}
					}
					p = newPipeline(t, cfg)
					return ""
				}
				p = newPipeline(t, cfg)
			}
			p.t = t
			var arg = func(k string) string {
				for _, a := range d.CmdArgs {
					if a.Key == k && len(a.Vals) > 0 {
						return a.Vals[0]
					}
				}
				return ""
			}
			tenant := arg("tenant")
			if tenant == "" {
				tenant = "acme"
			}
			switch d.Cmd {
			case "apply":
				p.emitted = nil
				for _, line := range strings.Split(d.Input, "\n") {
					if strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#") {
						p.event(line)
					}
				}
				var out []string
				for _, e := range p.emitted {
					if _, ok := e.Event.Body.(*events.RunCall); ok {
						continue // the copies: shown by run
					}
					out = append(out, describe(e))
				}
				if len(out) == 0 {
					return "(nothing emitted)\n"
				}
				return strings.Join(out, "\n") + "\n"
			case "run":
				v := p.runs.Runner().View()
				defer v.Close()
				r, err := runs.Get(v, tenant, arg("run"))
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				var b strings.Builder
				b.WriteString(runLine(r) + "\n")
				rounds, err := runs.Rounds(v, tenant, arg("run"))
				if err != nil {
					t.Fatal(err)
				}
				for _, rd := range rounds {
					st := string(rd.Status)
					if st == "" {
						st = "open"
					}
					fmt.Fprintf(&b, "  round %d %s %s expected=%d\n", rd.N, rd.Response, st, rd.Expected)
					for _, c := range rd.Calls {
						fmt.Fprintf(&b, "    call %s %s %s\n", c.CallID, c.Name, c.State)
					}
				}
				return b.String()
			case "history":
				v := p.runs.Runner().View()
				defer v.Close()
				h, err := runs.BuildHistory(v, tenant, arg("run"), runs.HistoryOptions{Format: arg("format"), BudgetTokens: atoi(t, arg("budget")), Keep: atoi(t, arg("keep"))})
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				if arg("budget") == "" {
					checkHistoryFrom(t, v, tenant, arg("run"), arg("format"), h)
				}
				return fmt.Sprintf("history %s tokens=%d rounds=%d verbatim=%d compacted=%d noted=%d omitted=%d fits=%v\n%s\n",
					h.Format, h.Tokens, h.Rounds, h.Verbatim, h.Compacted, h.Noted, h.Omitted, h.Fits, indent(h.Messages))
			case "plan-verdict":
				v := p.runs.Runner().View()
				defer v.Close()
				pv, err := runs.PlanWrite(v, tenant, arg("run"), uint64(atoi(t, arg("seq"))))
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return fmt.Sprintf("applied=%v reason=%s version=%d %s\n", pv.Applied, pv.Reason, pv.Version, pv.Detail)
			case "restart":
				p.close()
				p.open()
				return "restarted\n"
			case "replay":
				live, err := p.runs.Runner().Digest()
				if err != nil {
					t.Fatal(err)
				}
				l, err := projector.NewLocal(t.TempDir(), runs.New(p.cfg))
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				var msgs []*projector.Msg
				for _, m := range p.outLog {
					msgs = append(msgs, &projector.Msg{Seq: m.Seq, Subject: m.Subject, Time: m.Time, Data: m.Data})
				}
				if _, err := l.Apply(context.Background(), msgs...); err != nil {
					t.Fatal(err)
				}
				got, err := l.Runner().Digest()
				if err != nil {
					t.Fatal(err)
				}
				if got != live {
					return fmt.Sprintf("replay %v differs from live %v\n", got, live)
				}
				return "replay equals live\n"
			case "seq":
				return fmt.Sprintf("%d\n", p.outSeq)
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

// checkHistoryFrom checks a history read from each turn against the whole
// one (h, no budget): from turn k it is the whole history's last messages,
// those of the entries at k and after up to the first round still open,
// and Through says where that is; a driver appends them to what it kept.
func checkHistoryFrom(t *testing.T, v projector.Reader, tenant, run, format string, h *runs.History) {
	t.Helper()
	r, err := runs.Get(v, tenant, run)
	if err != nil {
		t.Fatal(err)
	}
	var whole []json.RawMessage
	if err := json.Unmarshal(h.Messages, &whole); err != nil {
		t.Fatal(err)
	}
	rounds, err := runs.Rounds(v, tenant, run)
	if err != nil {
		t.Fatal(err)
	}
	open := 0 // the turn of the first round still open
	for _, rd := range rounds {
		if rd.Status == "" {
			open = rd.Turn
			break
		}
	}
	var kept []json.RawMessage
	through := 0
	for k := -1; k <= r.Turns+3; k++ {
		hf, err := runs.BuildHistoryFrom(v, tenant, run, k, runs.HistoryOptions{Format: format})
		if err != nil {
			t.Fatalf("history from turn %d: %v", k, err)
		}
		var part []json.RawMessage
		if err := json.Unmarshal(hf.Messages, &part); err != nil {
			t.Fatal(err)
		}
		if k == through+1 {
			kept = append(kept, part...)
			through = hf.Through
		}
		wantThrough := r.Turns
		if open > 0 && k <= open {
			wantThrough = open - 1
		}
		// From before the first turn is from the first; from beyond the
		// end is nothing new, through the run's last turn (never a turn the
		// run lacks, which a reader would skip when it comes).
		if want := max(wantThrough, min(max(k, 1)-1, r.Turns)); hf.Through != want {
			t.Errorf("history from turn %d: through %d, want %d", k, hf.Through, want)
		}
		if k > r.Turns && len(part) != 0 {
			t.Errorf("history from turn %d, beyond the run's %d: %s", k, r.Turns, hf.Messages)
		}
		if open == 0 && (len(part) > len(whole) || !equalMessages(part, whole[len(whole)-len(part):])) {
			t.Errorf("history from turn %d is not the whole history's tail:\n%s\nwhole:\n%s", k, hf.Messages, h.Messages)
		}
	}
	if open == 0 && !equalMessages(kept, whole) {
		t.Errorf("the history kept and read on from its Through differs from the whole:\n%s\nwhole:\n%s", kept, h.Messages)
	}
	if h.Through != through {
		t.Errorf("the whole history's Through is %d, the one read on %d", h.Through, through)
	}
	if _, err := runs.BuildHistoryFrom(v, tenant, run, 1, runs.HistoryOptions{Format: format, BudgetTokens: 10}); !errors.Is(err, runs.ErrInvalidRequest) {
		t.Errorf("a history from a turn with a budget: %v, want ErrInvalidRequest", err)
	}
}

func equalMessages(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
