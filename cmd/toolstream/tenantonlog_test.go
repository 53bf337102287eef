package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
)

// TestMistypedTenantIsSaid: `calls --tenant acmee` (and runs, history,
// verdicts, trace) listed nothing and exited 0, silently (review rev14): a
// tenant with nothing on a log that holds others' events is said on
// stderr, naming the tenants that have something, and the command goes on
// as before (exit codes unchanged: a new tenant with nothing yet is no
// mistake). A tenant on the log, by its model events, its memory or its
// calls alone, lists with nothing said; an empty log says nothing.
func TestMistypedTenantIsSaid(t *testing.T) {
	b := bustest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, subj := range []string{"ts.model.acme.resp_1", "ts.mem.beta.u1", "ts.call.gamma.k1"} {
		if _, err := b.JS.Publish(ctx, subj, []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	reader := bustest.Creds(t, b, auth.Identity{Role: auth.RoleReader})
	admin := bustest.Creds(t, b, auth.Identity{Role: auth.RoleAdmin})
	run := func(ctx context.Context, creds string, args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		c := newRoot(&out, &errOut)
		c.SetArgs(append(args, "--nats-url", b.ClientURL(), "--data", t.TempDir(), "--log-level", "error", "--creds", creds))
		err := c.ExecuteContext(ctx)
		return out.String(), errOut.String(), err
	}
	const want = "tenant acmee has nothing on the log (tenants on the log: acme, beta)"
	for _, tc := range []struct {
		creds string
		args  []string
		code  int
	}{
		{reader, []string{"calls", "--tenant", "acmee"}, 0},
		{reader, []string{"verdicts", "--tenant", "acmee"}, 0},
		{reader, []string{"trace", "call_1", "--tenant", "acmee"}, exitNotFound},
		// No runs service on this bare log: said first, then no responders.
		{admin, []string{"runs", "--tenant", "acmee"}, exitUnavailable},
		{admin, []string{"history", "--run", "r1", "--tenant", "acmee"}, exitUnavailable},
	} {
		out, stderr, err := run(ctx, tc.creds, tc.args...)
		if code := exitCode(err); err != nil && code != tc.code || err == nil && tc.code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("%v: %q, %v (exit %d), stderr %q; want exit %d saying %q", tc.args, out, err, exitCode(err), stderr, tc.code, want)
		}
	}
	for _, args := range [][]string{{"calls", "--tenant", "acme"}, {"verdicts", "--tenant", "beta"}, {"calls", "--tenant", "gamma"}} {
		if out, stderr, err := run(ctx, reader, args...); err != nil || strings.Contains(stderr, "nothing on the log") {
			t.Errorf("%v: %q, %v, stderr %q; want a listing, nothing said", args, out, err, stderr)
		}
	}
	fctx, stop := context.WithTimeout(ctx, 2*time.Second)
	defer stop()
	_, stderr, err := run(fctx, reader, "calls", "--tenant", "acmee", "--follow")
	if exitCode(err) == exitNotFound || !strings.Contains(stderr, want+"; following what comes") {
		t.Errorf("calls --follow: %v, stderr %q; want it said and followed", err, stderr)
	}
	// An empty log: nothing to compare with, nothing said.
	empty := bustest.Start(t)
	var out, errOut bytes.Buffer
	c := newRoot(&out, &errOut)
	c.SetArgs([]string{"calls", "--tenant", "acmee", "--nats-url", empty.ClientURL(), "--data", t.TempDir(), "--log-level", "error",
		"--creds", bustest.Creds(t, empty, auth.Identity{Role: auth.RoleReader})})
	if err := c.ExecuteContext(ctx); err != nil || errOut.Len() > 0 {
		t.Errorf("calls on an empty log: %v, stderr %q; want nothing said", err, errOut.String())
	}
}
