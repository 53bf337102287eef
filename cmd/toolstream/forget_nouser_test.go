package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/keys"
)

// TestForgetWithoutAUser: `toolstream forget --tenant acme --no-user`
// erases what acme's producers published raw without a user (no Ts-User):
// unconfirmed, or confirmed with another tenant's name, it is a typed
// error and erases nothing; confirmed (--confirm acme), the raw copies'
// key is destroyed, and the user-less stream's arguments, result and
// answer are in no file Toolstream keeps and read from the log no more;
// acme's user bob, and globex's stream published without a user, keep
// theirs.
func TestForgetWithoutAUser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f := startForgetServe(t, ctx)
	root, logDir, serveDir, cliDir, admin, url, serveErr := f.root, f.logDir, f.serveDir, f.cliDir, f.admin, f.url, f.serveErr

	run := func(id auth.Identity, args ...string) (string, error) {
		t.Helper()
		var out, errOut bytes.Buffer
		c := newRoot(&out, &errOut)
		c.SetArgs(append(args, "--nats-url", url, "--data", cliDir, "--log-level", "error", "--creds", bustest.Creds(t, admin, id)))
		err := c.ExecuteContext(ctx)
		return out.String() + errOut.String(), err
	}
	cli := func(id auth.Identity, args ...string) string {
		t.Helper()
		out, err := run(id, args...)
		if err != nil {
			t.Fatalf("toolstream %s: %v\n%s\nserve: %s", strings.Join(args, " "), err, out, serveErr.String())
		}
		return out
	}
	const (
		anonArgs, anonText = "anon-arg-4c1f9", "anon-said-77d02"
		bobArgs, bobText   = "bob-arg-e93a0", "bob-said-1b6c4"
		gloArgs            = "globex-anon-arg-5a8d3"
	)
	for _, p := range []struct{ tenant, user, resp, args, text string }{
		{"acme", "", "r_anon", anonArgs, anonText},
		{"acme", "bob", "r_bob", bobArgs, bobText},
		{"globex", "", "r_glo", gloArgs, "globex-anon-text"},
	} {
		file := filepath.Join(root, p.resp+".jsonl")
		if err := os.WriteFile(file, answerStream(p.resp, fmt.Sprintf(`{"q":%q}`, p.args), p.text), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"publish", "--raw", "--provider", "openai-responses", "--tenant", p.tenant, "--stream", p.resp, file}
		if p.user != "" {
			args = append(args, "--user", p.user)
		}
		cli(auth.Identity{Role: auth.RoleProducer, Tenant: p.tenant}, args...)
	}
	if _, err := bustest.WaitEvents(ctx, admin, []string{"ts.result.>", "ts.answer.>"}, func(evs []*events.Event) bool {
		var results, verdicts int
		for _, ev := range evs {
			switch ev.Kind {
			case events.KindCallSucceeded:
				results++
			case events.KindAnswerVerified:
				verdicts++
			}
		}
		return results == 3 && verdicts == 3
	}); err != nil {
		t.Fatalf("the pipeline did not finish: %v\nserve: %s", err, serveErr.String())
	}
	// calls counts the calls of tenant whose arguments hold args, as the
	// log reads now.
	calls := func(tenant, args string) int {
		t.Helper()
		admin.Keys.(*keys.Store).Forget(tenant, "") // as a runner does at a tombstone
		evs, err := admin.ReadEvents(ctx, []string{"ts.call." + tenant + ".>"})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range evs {
			if cc, ok := events.As[*events.CallCompleted](ev); ok && strings.Contains(string(cc.Arguments), args) {
				n++
			}
		}
		return n
	}
	if calls("acme", anonArgs) != 1 {
		t.Fatal("the user-less call does not read before the erasure: the test would prove nothing")
	}

	// Not confirmed, or confirmed with another tenant: a typed error, and
	// nothing erased.
	op := auth.Identity{Role: auth.RoleOperator}
	for _, extra := range [][]string{nil, {"--confirm", "globex"}} {
		out, err := run(op, append([]string{"forget", "--tenant", "acme", "--no-user"}, extra...)...)
		if !errors.Is(err, client.ErrNotConfirmed) || !strings.Contains(err.Error(), "--confirm acme") {
			t.Errorf("forget --no-user %v: %v (%s), want ErrNotConfirmed naming --confirm acme", extra, err, out)
		}
	}
	if _, err := run(op, "forget", "--tenant", "acme", "--no-user", "--user", "bob", "--confirm", "acme"); err == nil {
		t.Error("forget --no-user --user bob was taken")
	}
	// Confirmed, by an identity that may not erase: acme's own producer
	// and a reader, which the CLI refuses before connecting (their creds
	// name a role that is not the operator's: exit 5), and run mode's
	// driver, which the server refuses (ErrPermissionDenied: the keys
	// service's erase subject is the operator's). Nothing is erased.
	for _, id := range []auth.Identity{{Role: auth.RoleProducer, Tenant: "acme"}, {Role: auth.RoleReader}, {Role: auth.RoleDriver}} {
		out, err := run(id, "forget", "--tenant", "acme", "--no-user", "--confirm", "acme")
		var ee *exitError
		early := errors.As(err, &ee) && ee.code == exitUnavailable && strings.Contains(err.Error(), "needs the operator role")
		if id.Role == auth.RoleDriver && !errors.Is(err, client.ErrPermissionDenied) || id.Role != auth.RoleDriver && !early {
			t.Errorf("forget --no-user --confirm acme as %s: %v (%s), want it refused", id, err, out)
		}
	}
	if calls("acme", anonArgs) != 1 {
		t.Fatal("an unconfirmed or refused erasure erased the user-less call")
	}

	out := cli(op, "forget", "--tenant", "acme", "--no-user", "--confirm", "acme", "--json")
	var res struct {
		Keys         int               `json:"keys_destroyed"`
		Tombstones   map[string]uint64 `json:"tombstones"`
		NotConfirmed []string          `json:"not_confirmed"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("forget printed %q: %v", out, err)
	}
	if res.Keys != 1 || len(res.Tombstones) != len(events.Streams) || len(res.NotConfirmed) > 0 {
		t.Fatalf("forget --no-user: %+v, want the one key of the user-less scope, a tombstone in every stream", res)
	}
	if n := calls("acme", anonArgs); n != 0 {
		t.Errorf("the user-less call still reads (%d) after the erasure", n)
	}
	if calls("acme", bobArgs) != 1 || calls("globex", gloArgs) != 1 {
		t.Error("bob's call, or globex's user-less call, no longer reads")
	}
	// Said again, the erasure destroys nothing more.
	if out := cli(op, "forget", "--tenant", "acme", "--no-user", "--confirm", "acme"); !strings.Contains(out, "0 data key(s) destroyed") {
		t.Errorf("forget --no-user again: %s", out)
	}
	f.stop(t)
	admin.Close()
	for _, s := range []string{anonArgs, anonText} {
		if files := filesWith(t, s, logDir, serveDir, cliDir); len(files) > 0 {
			t.Errorf("%s is still in %v", s, files)
		}
	}
	// acme's views, rebuilt without the user-less stream, hold bob's call
	// in the clear: the scan would find erased text too. (globex's call
	// reads from the log above.)
	if len(filesWith(t, bobArgs, serveDir)) == 0 {
		t.Error("the scan does not find bob's call: it would prove nothing")
	}
}
