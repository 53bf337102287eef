package agent_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/agent"
	"github.com/toolstream/toolstream/internal/agent/agenttest"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logread"
)

// claimers: for each kind of TS_CALLS, TS_OUT and TS_MEM a run writes
// whose ids were plain, a role that writes another subject of the same
// stream, and so could claim an id there, and that subject.
var claimers = map[string]struct {
	role auth.Role
	subj string
}{
	"call":   {auth.RoleExecutor, "ts.exec.acme.claim"},   // the assembler's calls
	"resp":   {auth.RoleVerifier, "ts.answer.acme.claim"}, // the assembler's response outcomes
	"answer": {auth.RoleRuns, "ts.run.acme.claim"},        // the verifier's verdicts
	"check":  {auth.RoleVerifier, "ts.answer.acme.claim"}, // the driver's constraint checks
	"run":    {auth.RoleVerifier, "ts.answer.acme.claim"}, // the runs role's run events
	"mem":    {auth.RoleOperator, "ts.mem.acme.claim"},    // the memory role's events
}

// logged is a message the log stores: its subject and its event's id.
type logged struct{ subject, id string }

// ownedRun is a run that writes every kind of claimers: alice's
// constraint told to memory (mem) at, then a run that calls weather
// (call, resp, run) and answers, checked against her constraint (check)
// and verified (answer). It returns the run's outcome.
func ownedRun(t *testing.T, p *agenttest.Pipeline, ctx context.Context, at time.Time) *agent.Outcome {
	t.Helper()
	mem, err := client.Connect(ctx, client.WithConn(p.B.Conn), client.WithKeys(p.B.Keys))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := mem.Message(ctx, agenttest.Tenant, "u1", "owned-m1", "I'm allergic to shellfish.", at); err != nil || len(r.Records) == 0 || !r.Records[0].Applied {
		t.Fatalf("alice's constraint told to memory: %+v, %v", r, err)
	}
	up := weatherUpstream(t)
	out, err := driver(t, p, "gw-owned", up).Run(ctx, chatSpec("owned-1", "What's the weather in San Francisco?"))
	if err != nil {
		t.Fatalf("the run: %v", err)
	}
	return out
}

// loggedOf reads what the log holds on the subjects of claimers' kinds,
// by kind, leaving out the claimers' own subjects.
func loggedOf(t *testing.T, p *agenttest.Pipeline, ctx context.Context) map[string][]logged {
	t.Helper()
	var subjects []string
	for kind := range claimers {
		subjects = append(subjects, events.SubjectPrefix+"."+kind+".>")
	}
	out := map[string][]logged{}
	err := p.B.ReadAcross(ctx, logread.Config{Subjects: subjects}, false, func(_ string, batch []*logread.Msg) error {
		for _, m := range batch {
			if strings.HasSuffix(m.Subject, ".claim") {
				continue
			}
			ev, err := events.DecodeAtWith(m.Subject, m.Data, p.B.Keys)
			if err != nil {
				return fmt.Errorf("%s seq %d: %w", m.Subject, m.Seq, err)
			}
			kind := strings.Split(m.Subject, ".")[1]
			out[kind] = append(out[kind], logged{m.Subject, ev.ID})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAttackClaimedOwnedIDs: JetStream drops a message whose Nats-Msg-Id
// its stream holds, whoever wrote either. The ids of the assembler's calls
// and response outcomes, the verifier's verdicts, the driver's constraint
// checks, the runs role's run events and the memory role's events were
// plain event ids, derived from their cause, so another role's credential
// that writes a subject of the same stream could publish under them first
// and have the owner's event dropped (silently, by a relay). Runs on two
// pipelines learn the ids such a run writes that do not change from run
// to run (what a claimer computes ahead); then, for each kind, on a
// pipeline of its own, the kind's claimer (bustest.RoleJS: its own role's
// credential, through the real server) publishes under each of the kind's
// ids first, the plain id and the tag its own key makes, and the same run
// goes: it is answered, checked against alice's constraint and verified,
// weather runs once, and the log holds every one of those events, on its
// own subject.
func TestAttackClaimedOwnedIDs(t *testing.T) {
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	// The ids two runs on two pipelines both wrote are those a claimer
	// computes ahead (an id with the wall clock in it is not one).
	var learnt []map[string][]logged
	for range 2 {
		first := agenttest.StartWith(t, agenttest.Options{Memory: true})
		if out := ownedRun(t, first, ctx, at); out.Status != agent.StatusAnswered {
			t.Fatalf("a first run: %+v", out)
		}
		time.Sleep(time.Second) // what the run's last round sets off
		learnt = append(learnt, loggedOf(t, first, ctx))
	}
	want := map[string][]logged{}
	for kind, ls := range learnt[0] {
		for _, l := range ls {
			if slices.Contains(learnt[1][kind], l) {
				want[kind] = append(want[kind], l)
			}
		}
	}
	for kind := range claimers {
		t.Logf("ts.%s: %d ids to claim", kind, len(want[kind]))
		if len(want[kind]) == 0 {
			t.Fatalf("the run wrote no id on ts.%s a claimer computes ahead: it tests no claim of one", kind)
		}
	}

	for _, kind := range slices.Sorted(maps.Keys(claimers)) {
		c := claimers[kind]
		t.Run(kind, func(t *testing.T) {
			p := agenttest.StartWith(t, agenttest.Options{Memory: true})
			js := bustest.RoleJS(t, p.B, auth.Identity{Role: c.role})
			key := events.DeriveMsgIDKey([]byte(c.role))
			for _, l := range want[kind] {
				for _, claim := range []string{l.id, events.OwnedMsgID(key, l.subject, l.id)} {
					if _, err := js.Publish(ctx, c.subj, []byte("x"), jetstream.WithMsgID(claim)); err != nil {
						t.Fatalf("%s's claim on %s of the id %s: %v", c.role, c.subj, claim, err)
					}
				}
			}
			runCtx, runCancel := context.WithTimeout(ctx, time.Minute)
			defer runCancel()
			out := ownedRun(t, p, runCtx, at)
			if out.Status != agent.StatusAnswered || out.Verdict == nil || !out.Verdict.ConstraintsChecked {
				t.Errorf("the run after %s's claims: %+v (verdict %+v), want answered, checked against alice's constraint", c.role, out, out.Verdict)
			}
			if n := p.Invoked["weather"].Load(); n != 1 {
				t.Errorf("weather ran %d times, want 1", n)
			}
			var missing []string
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				got := loggedOf(t, p, ctx)
				missing = missing[:0]
				for k, ls := range want {
					for _, l := range ls {
						if !slices.Contains(got[k], l) {
							missing = append(missing, l.subject+" "+l.id)
						}
					}
				}
				if len(missing) == 0 || time.Now().After(deadline) {
					break
				}
			}
			if len(missing) > 0 {
				t.Errorf("after %s's claims the log lacks %d of the run's events:\n%s", c.role, len(missing), strings.Join(missing, "\n"))
			}
		})
	}
}
