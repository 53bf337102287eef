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
