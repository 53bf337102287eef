package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestClientCommands: the client commands against a log, as an operator
// of --creds: verdicts prints the verifier's verdicts of the tenant only,
// garbage on its subjects skipped; approve of a call nobody asked about
// is ErrNotFound; deny without a reason is refused before connecting.
func TestClientCommands(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tenant := range []string{"acme", "other"} {
		subj, _ := events.AnswerSubject(tenant, "resp_1")
		ev := &events.Event{ID: "v-" + tenant, Tenant: tenant, User: "u1", Response: "resp_1", At: 1,
			Body: &events.AnswerVerified{Faithfulness: 0.5, Policy: "annotate", Claims: []events.ClaimVerdict{{Text: "It is 21° in " + tenant, Verdict: events.VerdictSupported}}}}
		if _, err := b.Publish(ctx, subj, ev); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.JS.Publish(ctx, "ts.answer.acme.resp_2", []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	creds := bustest.Creds(t, b, auth.Identity{Role: auth.RoleOperator})
	cli := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		c := newRoot(&out, &errOut)
		c.SetArgs(append(args, "--nats-url", b.ClientURL(), "--data", t.TempDir(), "--log-level", "error", "--creds", creds))
		err := c.ExecuteContext(ctx)
		return out.String(), err
	}
	out, err := cli("verdicts", "--tenant", "acme")
	if want := "answer resp_1 faithfulness 0.50 policy annotate\n  supported     \"It is 21° in acme\" \n"; err != nil || out != want {
		t.Fatalf("verdicts: %q, %v; want %q", out, err, want)
	}
	if _, err := cli("approve", "--tenant", "acme", "call_nobody"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("approve of an unknown call: %v", err)
	}
	if _, err := cli("deny", "--tenant", "acme", "call_nobody"); err == nil || !strings.Contains(err.Error(), "--reason") {
		t.Fatalf("deny without a reason: %v", err)
	}
}

// TestVerdictsNameEachRevision: an answer's verdicts are the verifier's
// first, one after the user's constraints were read in and one after an
// external judge, each an event of its own on the answer's subject;
// verdicts printed them as identical "answer c0 …" blocks (review rev14,
// a run-mode answer of a user with a constraint). Each later one now says
// which it is, in text and in --json.
func TestVerdictsNameEachRevision(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	subj, _ := events.AnswerSubject("acme", "c0")
	claims := []events.ClaimVerdict{{Text: "It is 14 C.", Verdict: events.VerdictSupported}}
	for _, tc := range []struct {
		id   string
		body *events.AnswerVerified
	}{
		{events.VerifiedID("acme", "c0"), &events.AnswerVerified{Faithfulness: 1, Policy: "annotate", Claims: claims}},
		{events.ConstrainedID("acme", "c0"), &events.AnswerVerified{Faithfulness: 1, Policy: "annotate", Claims: claims, ConstraintsChecked: true, Constraints: 2}},
		{events.JudgedID("acme", "c0", 1), &events.AnswerVerified{Faithfulness: 1, Policy: "annotate", Claims: claims, ConstraintsChecked: true, Constraints: 2}},
	} {
		ev := &events.Event{ID: tc.id, Tenant: "acme", User: "ada", Response: "c0", At: 1, Body: tc.body}
		if _, err := b.Publish(ctx, subj, ev); err != nil {
			t.Fatal(err)
		}
	}
	creds := bustest.Creds(t, b, auth.Identity{Role: auth.RoleOperator})
	cli := func(args ...string) string {
		var out, errOut bytes.Buffer
		c := newRoot(&out, &errOut)
		c.SetArgs(append(args, "--nats-url", b.ClientURL(), "--data", t.TempDir(), "--log-level", "error", "--creds", creds))
		if err := c.ExecuteContext(ctx); err != nil {
			t.Fatalf("%v: %v (%s)", args, err, errOut.String())
		}
		return out.String()
	}
	claim := "  supported     \"It is 14 C.\" \n"
	want := "answer c0 faithfulness 1.00 policy annotate\n" + claim +
		"answer c0 faithfulness 1.00 policy annotate (again, against the user's constraints in force: 2)\n" + claim +
		"answer c0 faithfulness 1.00 policy annotate (again, after the judge's verdicts)\n" + claim
	if out := cli("verdicts", "--tenant", "acme"); out != want {
		t.Fatalf("verdicts:\n%s\nwant:\n%s", out, want)
	}
	out := cli("verdicts", "--tenant", "acme", "--json")
	for i, rev := range []string{`"revision":"verified"`, `"revision":"constraints"`, `"revision":"judged"`} {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 3 || !strings.Contains(lines[i], rev) {
			t.Fatalf("verdicts --json line %d: want %s in\n%s", i+1, rev, out)
		}
	}
}
